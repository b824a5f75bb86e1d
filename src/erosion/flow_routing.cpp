// D8 flow routing with depression handling.
//
// Receivers: O'Callaghan & Mark 1984, "The extraction of drainage networks from digital
// elevation data" (D8: each cell drains to the neighbour of steepest descent, drop / distance).
// Depressions: the basin graph (basin_graph.cpp; Cordonnier, Bovy & Braun 2019) gives the exact
// Priority-Flood surface (Barnes et al. 2014) and routes each pit's catchment across its spill
// link: the path from the exit cell down to the pit is reversed, so the pit drains through the
// exit into a basin that itself drains, and the graph stays a tree with no cycles.
// The order starts with a breadth-first walk from the outlets over the donor lists (Braun &
// Willett 2013, §2.2 "stack"), which reaches every cell with a descending path to an outlet;
// the walk goes on from the pits to label their catchments, which are then ordered basin by
// basin in the order their spill levels were settled.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

#include "core/huge_pages.hpp"
#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;
namespace cd = core_detail;

std::span<const Field<RoutingParams>> RoutingParams::fields() {
  using P = RoutingParams;
  static const Field<P> table[] = {
      {"use_sea_level", TERRANE_FIELD_REF(P, use_sea_level)},
      {"sea_level_m", TERRANE_FIELD_REF(P, sea_level_m), Range::closed(-1e9, 1e9)},
  };
  return table;
}

void RoutingParams::validate(std::string_view path) const {
  check_fields(*this, fields(), path);
}

namespace {

// Steepest strictly-descending neighbour of interior cell (i, j) on surface `s`, or c itself.
inline std::uint32_t steepest(const float* s, int w, int i, int j) {
  const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
  const float hc = s[c];
  float best = 0.0f;
  std::uint32_t rcv = std::uint32_t(c);
  constexpr float kInvDiag = float(1.0 / std::numbers::sqrt2);
  for (int k = 0; k < 8; ++k) {
    const std::size_t nc =
        std::size_t(std::ptrdiff_t(c) + ed::kDj[k] * std::ptrdiff_t(w) + ed::kDi[k]);
    const float drop = hc - s[nc];
    const float slope = k < 4 ? drop : drop * kInvDiag;
    if (slope > best) {
      best = slope;
      rcv = std::uint32_t(nc);
    }
  }
  return rcv;
}

}  // namespace

void compute_flow_routing(const Field2D& heights, const RoutingParams& params, FlowRouting& out,
                          const ExecContext& ctx) {
  params.validate();
  heights.grid.validate("flow routing heights");
  const int w = heights.grid.width, h = heights.grid.height;
  const std::size_t n = heights.grid.sample_count();
  if (heights.data.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "compute_flow_routing: heights.data has " + std::to_string(heights.data.size()) +
                    " samples, the grid needs " + std::to_string(n));
  }
  if (n > std::size_t(0xFFFFFFFFu)) {
    throw Error(ErrorCategory::limit, "compute_flow_routing: more than 2^32 - 1 cells");
  }
  const float* hs = heights.data.data();
  out.width = w;
  out.height = h;
  cd::resize_huge(out.receiver, n);
  const float sea = float(params.sea_level_m);
  // Scratch from the last call: outlet, donor_mask and row_pits are overwritten whole, label is
  // cleared before use.
  std::vector<std::uint8_t>& outlet = out.scratch.outlet;
  std::vector<std::int64_t>& row_pits = out.scratch.row_pits;
  cd::resize_huge(outlet, n);
  row_pits.resize(std::size_t(h));
  const ExecContext inner = ed::quiet(ctx);
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max(1, w));
  parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t jj = b; jj < e; ++jj) {
      const int j = int(jj);
      std::int64_t pits = 0;
      for (int i = 0; i < w; ++i) {
        const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
        const bool edge = i == 0 || j == 0 || i == w - 1 || j == h - 1;
        const bool is_outlet = edge || (params.use_sea_level && hs[c] < sea);
        outlet[c] = is_outlet ? 1 : 0;
        if (is_outlet) {
          out.receiver[c] = std::uint32_t(c);
          continue;
        }
        const std::uint32_t r = steepest(hs, w, i, j);
        out.receiver[c] = r;
        if (r == c) ++pits;
      }
      row_pits[std::size_t(j)] = pits;
      // A NaN is found here, in parallel, and reported below (the first in cell order), before
      // anything reads these receivers; a NaN compares false, so the loop above stays defined.
      for (int i = 0; i < w; ++i) {
        if (std::isnan(hs[std::size_t(j) * std::size_t(w) + std::size_t(i)])) {
          row_pits[std::size_t(j)] = -1 - std::int64_t(i);
          break;
        }
      }
    }
  });
  out.depressions = 0;
  for (std::size_t j = 0; j < std::size_t(h); ++j) {
    if (row_pits[j] < 0) {
      throw Error(ErrorCategory::invalid_argument, "compute_flow_routing: height at (" +
                                                       std::to_string(-1 - row_pits[j]) + ", " +
                                                       std::to_string(j) + ") is NaN");
    }
    out.depressions += row_pits[j];
  }

  // Donors as an 8-bit mask per cell (bit k: the k-th neighbour in ascending cell index drains
  // here), filled per row in parallel, and a breadth-first walk from the outlets, in cell order
  // (Braun & Willett 2013, §2.2 "stack"; donors in ascending cell index). It reaches exactly the
  // drained cells: those with a strictly descending path to an outlet, whose filled level is
  // their height and whose receiver stays as it is. The walk then continues from the pits (in
  // cell order), labelling each cell with its pit.
  const std::ptrdiff_t sw = w;
  const std::ptrdiff_t up_offset[8] = {-sw - 1, -sw, -sw + 1, -1, 1, sw - 1, sw, sw + 1};
  std::vector<std::uint8_t>& donor_mask = out.scratch.donor_mask;
  cd::resize_huge(donor_mask, n);
  parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
    const std::uint32_t* rcv = out.receiver.data();
    for (std::int64_t jj = b; jj < e; ++jj) {
      const int j = int(jj);
      const bool inner_row = j > 0 && j < h - 1;
      for (int i = 0; i < w; ++i) {
        const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
        unsigned m = 0;
        if (inner_row && i > 0 && i < w - 1) {
          for (int k = 0; k < 8; ++k) {
            m |= unsigned(rcv[std::size_t(std::ptrdiff_t(c) + up_offset[k])] == c) << k;
          }
        } else {
          for (int k = 0; k < 8; ++k) {
            const int ni = i + (k == 0 || k == 3 || k == 5 ? -1 : k == 1 || k == 6 ? 0 : 1);
            const int nj = j + (k < 3 ? -1 : k < 5 ? 0 : 1);
            if (ni < 0 || nj < 0 || ni >= w || nj >= h) continue;
            const std::size_t nc = std::size_t(nj) * std::size_t(w) + std::size_t(ni);
            m |= unsigned(rcv[nc] == c && nc != c) << k;
          }
        }
        donor_mask[c] = std::uint8_t(m);
      }
    }
  });
  cd::resize_huge(out.order, n);
  std::uint32_t* ord = out.order.data();
  std::size_t end = 0;
  // The walk waits on donor_mask[c] (cells far apart on the map): the mask of the cell kAhead
  // places on, when the walk has already put one there, is fetched early.
  const auto walk = [&](std::size_t k, std::uint32_t* label) {
    for (; k < end; ++k) {
      if (k + ed::kAhead < end) ed::prefetch(&donor_mask[ord[k + ed::kAhead]]);
      const std::uint32_t c = ord[k];
      for (unsigned m = donor_mask[c]; m != 0; m &= m - 1) {
        const std::uint32_t d = std::uint32_t(std::ptrdiff_t(c) + up_offset[std::countr_zero(m)]);
        if (label != nullptr) label[d] = label[c];
        ord[end++] = d;
      }
    }
  };
  for (std::size_t c = 0; c < n; ++c) {
    if (outlet[c] != 0) ord[end++] = std::uint32_t(c);
  }
  walk(0, nullptr);
  const std::size_t drained = end;
  if (drained == n) {  // no pits: nothing to fill
    cd::reserve_huge(out.filled_m, n);
    out.filled_m.assign(hs, hs + n);
    return;
  }
  std::vector<std::uint32_t>& label = out.scratch.label;
  cd::resize_huge(label, n);
  parallel_for(inner, std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
    std::fill(label.begin() + b, label.begin() + e, 0u);
  });
  std::uint32_t pits = 0;
  for (std::size_t c = 0; c < n; ++c) {
    if (outlet[c] == 0 && out.receiver[c] == c) {
      label[c] = ++pits;
      ord[end++] = std::uint32_t(c);
    }
  }
  walk(drained, label.data());
  // Depressions: the pits' catchments are routed through their spill links and get their
  // Priority-Flood levels from the basin graph; the drained cells keep receiver and height.
  ed::route_depressions(hs, w, h, out.receiver.data(), label.data(), pits, drained, out.order,
                        out.filled_m, out.scratch.tail, inner);
}

void flow_accumulation(const FlowRouting& routing, const GridSpec& grid,
                       std::span<const float> rain, Field2D& out) {
  grid.validate("flow_accumulation grid");
  const std::size_t n = grid.sample_count();
  if (grid.width != routing.width || grid.height != routing.height || routing.order.size() != n ||
      routing.receiver.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "flow_accumulation: the routing (" + std::to_string(routing.width) + " x " +
                    std::to_string(routing.height) + ") does not match the grid (" +
                    std::to_string(grid.width) + " x " + std::to_string(grid.height) + ")");
  }
  if (!rain.empty() && rain.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "flow_accumulation: rain has " + std::to_string(rain.size()) +
                    " samples, the grid needs " + std::to_string(n));
  }
  const double cell = grid.spacing_m * grid.spacing_m;
  std::vector<double> area;
  cd::assign_huge(area, n, cell);
  if (!rain.empty()) {
    for (std::size_t c = 0; c < n; ++c) {
      if (!(std::isfinite(rain[c]) && rain[c] >= 0.0f)) {
        throw Error(ErrorCategory::invalid_argument,
                    "flow_accumulation: rain at (" + std::to_string(c % std::size_t(grid.width)) +
                        ", " + std::to_string(c / std::size_t(grid.width)) +
                        ") = " + format_number(rain[c]) + " is outside the allowed range [0, inf)");
      }
      area[c] = cell * double(rain[c]);
    }
  }
  ed::accumulate_downstream(routing.order.data(), routing.receiver.data(), area.data(), n);
  out.grid = grid;
  cd::resize_huge(out.data, n);
  for (std::size_t c = 0; c < n; ++c) out.data[c] = float(area[c]);
}

}  // namespace terrane
