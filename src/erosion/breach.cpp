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
  routing.parts = {.order = false, .levels = true};  // the partial fill reads the levels alone
  compute_flow_routing(heights, params.routing, routing, ctx);
  const ExecContext inner = ed::quiet(ctx);
  const std::size_t n = heights.data.size();
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / w);
  // Per row: cells raised and volume added, summed over the rows in row order afterwards.
  std::vector<std::int64_t> row_cells(std::size_t(h), 0);
  std::vector<double> row_m3(std::size_t(h), 0.0);
  parallel_for(inner, h, grain, [&](std::int64_t j0, std::int64_t j1) {
    for (std::int64_t j = j0; j < j1; ++j) {
      for (std::size_t c = std::size_t(j) * std::size_t(w); c < std::size_t(j + 1) * std::size_t(w);
           ++c) {
        const double floor_m = double(routing.filled_m[c]) - params.max_depth_m;
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

  // (2) Routing of the filled surface; (3) cut along it, sources first, each part of the order
  //     (FlowRouting::part_begin: no receiver in another part) on its own, in parallel. A cell
  //     is lowered to the lowest target of its donors, whatever their order; the volumes are
  //     summed per part, then over the parts in their order.
  routing.parts = {.order = true, .levels = false};  // the cut reads the receivers and the order
  compute_flow_routing(heights, params.routing, routing, ctx);
  const double axial = heights.grid.spacing_m, diagonal = axial * std::sqrt(2.0);
  const float lowest = -std::numeric_limits<float>::infinity();
  std::vector<std::uint8_t> carved;  // a cell may be lowered by several donors
  core_detail::assign_huge(carved, n, std::uint8_t(0), &ctx);
  const std::uint32_t* receiver = routing.receiver.data();
  const std::vector<std::size_t>& part_begin = routing.part_begin;
  const std::size_t parts = part_begin.size() - 1;
  std::vector<std::int64_t> part_cells(parts, 0);
  std::vector<double> part_m3(parts, 0.0);
  parallel_for(
      inner, std::int64_t(parts), ed::part_grain(parts), [&](std::int64_t p0, std::int64_t p1) {
        for (std::int64_t p = p0; p < p1; ++p) {
          const std::uint32_t* order = routing.order.data() + part_begin[std::size_t(p)];
          const std::size_t count = part_begin[std::size_t(p) + 1] - part_begin[std::size_t(p)];
          std::int64_t cells = 0;
          double m3 = 0.0;
          for (std::size_t k = count; k-- > 0;) {
            if (k >= ed::kAhead) {
              const std::uint32_t far = order[k - ed::kAhead];
              ed::prefetch(&receiver[far]);
              ed::prefetch(&z[far]);
              const std::uint32_t near_r = receiver[order[k - ed::kAhead / 2]];
              ed::prefetch(&z[near_r]);
              ed::prefetch(&carved[near_r]);
            }
            const std::uint32_t c = order[k];
            const std::uint32_t r = receiver[c];
            if (r == c) continue;
            const bool diag = (c % std::uint32_t(w)) != (r % std::uint32_t(w)) &&
                              (c / std::uint32_t(w)) != (r / std::uint32_t(w));
            const double drop = params.gradient * (diag ? diagonal : axial);
            float target = float(double(z[c]) - drop);
            if (!(target < z[c])) target = std::nextafter(z[c], lowest);
            if (z[r] > target) {
              m3 += (double(z[r]) - double(target)) * cell_area;
              z[r] = target;
              if (carved[r] == 0) ++cells;
              carved[r] = 1;
            }
          }
          part_cells[std::size_t(p)] = cells;
          part_m3[std::size_t(p)] = m3;
        }
      });
  for (std::size_t p = 0; p < parts; ++p) {
    stats.carved_cells += part_cells[p];
    stats.carved_m3 += part_m3[p];
  }
  return stats;
}

}  // namespace terrane
