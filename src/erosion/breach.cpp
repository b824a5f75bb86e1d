// Hybrid depression breaching (terrane/erosion.hpp, breach_depressions).
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
  compute_flow_routing(heights, params.routing, routing, ctx);
  for (std::size_t c = 0; c < heights.data.size(); ++c) {
    const double floor_m = double(routing.filled_m[c]) - params.max_depth_m;
    if (double(z[c]) < floor_m) {
      const float raised = float(floor_m);
      stats.filled_m3 += (double(raised) - double(z[c])) * cell_area;
      z[c] = raised;
      ++stats.filled_cells;
    }
  }
  throw_if_cancelled(ctx);

  // (2) Routing of the filled surface; (3) cut along it, sources first.
  if (stats.filled_cells > 0) compute_flow_routing(heights, params.routing, routing, ctx);
  const double axial = heights.grid.spacing_m, diagonal = axial * std::sqrt(2.0);
  const float lowest = -std::numeric_limits<float>::infinity();
  std::vector<std::uint8_t> carved;  // a cell may be lowered by several donors
  core_detail::assign_huge(carved, heights.data.size(), std::uint8_t(0));
  const std::uint32_t* order = routing.order.data();
  const std::uint32_t* receiver = routing.receiver.data();
  for (std::size_t k = routing.order.size(); k-- > 0;) {
    if (k >= ed::kAhead) {
      const std::uint32_t far = order[k - ed::kAhead];
      ed::prefetch(&receiver[far]);
      ed::prefetch(&z[far]);
      const std::uint32_t near_r = receiver[order[k - ed::kAhead / 2]];
      ed::prefetch(&z[near_r]);
      ed::prefetch(&carved[near_r]);
    }
    const std::uint32_t c = routing.order[k];
    const std::uint32_t r = routing.receiver[c];
    if (r == c) continue;
    const bool diag = (c % std::uint32_t(w)) != (r % std::uint32_t(w)) &&
                      (c / std::uint32_t(w)) != (r / std::uint32_t(w));
    const double drop = params.gradient * (diag ? diagonal : axial);
    float target = float(double(z[c]) - drop);
    if (!(target < z[c])) target = std::nextafter(z[c], lowest);
    if (z[r] > target) {
      stats.carved_m3 += (double(z[r]) - double(target)) * cell_area;
      z[r] = target;
      if (carved[r] == 0) ++stats.carved_cells;
      carved[r] = 1;
    }
  }
  return stats;
}

}  // namespace terrane
