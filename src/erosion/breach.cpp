// Hybrid depression breaching (terrane/erosion.hpp, breach_depressions).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/huge_pages.hpp"
#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;

std::span<const Field<BreachParams>> BreachParams::fields() {
  using P = BreachParams;
  static const Field<P> table[] = {
      {"max_depth_m", TERRANE_FIELD_REF(P, max_depth_m), Range::closed(0.0, 1e4)},
      {"gradient", TERRANE_FIELD_REF(P, gradient), Range::open_lo(0.0, 1.0)},
  };
  return table;
}

void BreachParams::validate(std::string_view path) const {
  check_fields(*this, fields(), path);
  routing.validate(std::string(path) + ".routing");
}

BreachStats breach_depressions(Field2D& heights, const BreachParams& params,
                               const ExecContext& ctx) {
  params.validate();
  BreachStats stats;
  const int w = heights.grid.width, h = heights.grid.height;
  if (w < 3 || h < 3) return stats;  // every cell is a border outlet
  const double cell_area = heights.grid.spacing_m * heights.grid.spacing_m;
  float* z = heights.data.data();

  // (1) Partial fill of what lies deeper than max_depth_m below the spill level.
  FlowRouting routing;
  routing.keep_scratch = false;  // each part of the working memory goes once it is read
  // The partial fill reads the filled levels alone, from each cell's basin and its spill level.
  routing.parts = {.order = false, .levels = false, .basins = true};
  compute_flow_routing(heights, params.routing, routing, ctx);
  const ExecContext inner = ed::quiet(ctx);
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / w);
  // Per row: cells raised and volume added, summed over the rows in row order afterwards.
  std::vector<std::int64_t> row_cells(std::size_t(h), 0);
  std::vector<double> row_m3(std::size_t(h), 0.0);
  parallel_for(inner, h, grain, [&](std::int64_t j0, std::int64_t j1) {
    for (std::int64_t j = j0; j < j1; ++j) {
      for (std::size_t c = std::size_t(j) * std::size_t(w); c < std::size_t(j + 1) * std::size_t(w);
           ++c) {
        const std::uint32_t basin = routing.basin.empty() ? 0 : routing.basin[c];
        const bool in_pit = basin != 0 && basin <= std::uint32_t(routing.depressions);
        const float level = in_pit ? std::max(z[c], routing.spill_m[basin]) : z[c];
        const double floor_m = double(level) - params.max_depth_m;
        if (double(z[c]) < floor_m) {
          const float raised = float(floor_m);
          row_m3[std::size_t(j)] += (double(raised) - double(z[c])) * cell_area;
          z[c] = raised;
          ++row_cells[std::size_t(j)];
        }
      }
    }
  });
  for (std::size_t j = 0; j < std::size_t(h); ++j) {
    stats.filled_cells += row_cells[j];
    stats.filled_m3 += row_m3[j];
  }
  throw_if_cancelled(ctx);

  // (2) Routing of the filled surface, its receivers alone; (3) cut along it, sources first: a
  //     depth-first walk from each outlet over the donors (the neighbours whose receiver is the
  //     cell) comes back to a cell once its donors are cut, and lowers it to the lowest target
  //     of its donors, which the order of the donors does not change. The walks from different
  //     outlets touch different cells and run in parallel; the cells and volumes are summed per
  //     row of outlets, then over the rows in their order.
  routing.parts = {.order = false, .levels = false, .receivers_without_order = true};
  compute_flow_routing(heights, params.routing, routing, ctx);
  const double axial = heights.grid.spacing_m, diagonal = axial * std::sqrt(2.0);
  const double drop[2] = {params.gradient * axial, params.gradient * diagonal};
  const float lowest = -std::numeric_limits<float>::infinity();
  const std::uint32_t* receiver = routing.receiver.data();
  const std::ptrdiff_t sw = w;
  // The neighbours in ascending cell index, and which are diagonal.
  const std::ptrdiff_t offset[8] = {-sw - 1, -sw, -sw + 1, -1, 1, sw - 1, sw, sw + 1};
  const int di[8] = {-1, 0, 1, -1, 1, -1, 0, 1}, dj[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
  // A cell on a walk's stack: `done` once its donors are on the stack above it, with the height
  // it had then (before any donor lowered it).
  struct Visit {
    std::uint32_t cell;
    bool done;
    float before;
  };
  std::fill(row_cells.begin(), row_cells.end(), 0);
  std::fill(row_m3.begin(), row_m3.end(), 0.0);
  const auto uw = std::uint32_t(w);
  parallel_for(inner, h, grain, [&](std::int64_t j0, std::int64_t j1) {
    std::vector<Visit> stack;
    for (std::int64_t j = j0; j < j1; ++j) {
      std::int64_t cells = 0;
      double m3 = 0.0;
      for (std::size_t root = std::size_t(j) * std::size_t(w);
           root < std::size_t(j + 1) * std::size_t(w); ++root) {
        if (receiver[root] != root) continue;
        stack.assign(1, Visit{std::uint32_t(root), false, 0.0f});
        while (!stack.empty()) {
          const std::uint32_t x = stack.back().cell;
          if (!stack.back().done) {
            stack.back().done = true;
            stack.back().before = z[x];
            const int xi = int(x % uw), xj = int(x / uw);
            for (int k = 0; k < 8; ++k) {
              const int ni = xi + di[k], nj = xj + dj[k];
              if (ni < 0 || nj < 0 || ni >= w || nj >= h) continue;
              const auto d = std::uint32_t(std::ptrdiff_t(x) + offset[k]);
              if (receiver[d] == x) stack.push_back(Visit{d, false, 0.0f});
            }
            continue;
          }
          // Every donor has lowered x as far as it lowers it: its height is final, and it
          // lowers its receiver in turn.
          const float before = stack.back().before;
          stack.pop_back();
          if (z[x] < before) {
            m3 += (double(before) - double(z[x])) * cell_area;
            ++cells;
          }
          const std::uint32_t r = receiver[x];
          if (r == x) continue;
          const bool diag = (x % uw) != (r % uw) && (x / uw) != (r / uw);
          float target = float(double(z[x]) - drop[diag ? 1 : 0]);
          if (!(target < z[x])) target = std::nextafter(z[x], lowest);
          if (z[r] > target) z[r] = target;
        }
      }
      row_cells[std::size_t(j)] = cells;
      row_m3[std::size_t(j)] = m3;
    }
  });
  for (std::size_t j = 0; j < std::size_t(h); ++j) {
    stats.carved_cells += row_cells[j];
    stats.carved_m3 += row_m3[j];
  }
  return stats;
}

}  // namespace terrane
