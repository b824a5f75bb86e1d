// Drainage statistics on the depression-filled surface: drainage density, Hack's law, closed
// depressions.
//
// Routing is terrane's compute_flow_routing (D8 on the exact Priority-Flood surface; Barnes,
// Lehman & Mulla 2014): the surface is flooded from the border, sea cells (height <= sea level)
// and no-data cells (set below every finite height and made "sea" for the routing, so water
// that reaches one leaves the map), which are outlets; a land cell of the border that has a
// lower neighbour on the filled surface then drains into it (D8 on the filled surface), the
// others leave the map. Lakes drain as compute_flow_routing routes them (down to the pit, then
// along the reversed path to the spill), not along an epsilon-gradient: maps with many closed
// depressions (the Sahara DEM, 31% of its land) read a lower drainage density than a
// Priority-Flood+epsilon routing gives. The routing takes one spacing: for non-square cells it runs
// with the geometric mean sqrt(dx dz) (an approximation of the steepest-descent choice only);
// everything measured here uses the true geometry: cell area dx dz, step length dx, dz or
// sqrt(dx^2 + dz^2) by the direction of the receiver.
//   Drainage density (Horton 1945): km of flow path (each channel cell's step to its receiver)
//   through land cells whose drainage area reaches channel_area_m2, per km^2 of land.
//   Hack's law (Hack 1957, L ~ A^h): over channel cells, the longest flow path upstream of the
//   cell against its drainage area; log10 area in bins of 0.1, the median length per bin, and
//   the least-squares slope of log10 median length against log10 median area of the bins.
//   Depressions: depth = filled - height on land; a closed depression is an 8-connected
//   component of cells with depth > 0; its cells deeper than depression_tolerance_m count when
//   the component's deepest cell is deeper than depression_depth_m.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/huge_pages.hpp"
#include "stats/stats_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane::stats_detail {

void measure_drainage(const Prepared& p, TerrainStats& out, const ExecContext& ctx) {
  const StatsGrid& g = *p.grid;
  const StatsParams& params = *p.params;
  const int w = g.width, h = g.height;
  const std::size_t n = p.cells();
  out.channel_cells = 0;
  out.hack_area_m2.clear();
  out.hack_length_m.clear();
  out.max_drainage_area_m2 = 0.0;
  out.max_depression_depth_m = 0.0;
  if (p.land_cells == 0) {
    const Stat none = stat_none("no land");
    out.drainage_density_km_per_km2 = out.hack_h = out.depression_share = out.pit_share = none;
    return;
  }
  if (w < 3 || h < 3) {
    const Stat none = stat_none("the map is " + std::to_string(w) + " x " + std::to_string(h) +
                                " cells; drainage needs at least 3 x 3 (an interior cell)");
    out.drainage_density_km_per_km2 = out.hack_h = out.depression_share = out.pit_share = none;
    return;
  }

  // Routing surface: no-data below everything, and below the routing's sea level.
  float lo = INFINITY;
  bool any_nodata = false;
  for (std::size_t c = 0; c < n; ++c) {
    if (std::isnan(g.heights[c]))
      any_nodata = true;
    else
      lo = std::min(lo, g.heights[c]);
  }
  RoutingParams rp;
  double nodata_level = double(lo) - 1000.0;
  if (params.sea_level_m) nodata_level = std::min(nodata_level, *params.sea_level_m - 1000.0);
  if (params.sea_level_m) {
    rp.use_sea_level = true;  // outlets: height < sea, so land (> sea) never is one
    rp.sea_level_m = std::nextafter(*params.sea_level_m, INFINITY);
  } else if (any_nodata) {
    rp.use_sea_level = true;
    rp.sea_level_m = nodata_level + 1.0;
  }
  Field2D surface(GridSpec{w, h, std::sqrt(g.cell_x_m * g.cell_z_m)});
  for (std::size_t c = 0; c < n; ++c) {
    surface.data[c] = std::isnan(g.heights[c]) ? float(nodata_level) : g.heights[c];
  }
  FlowRouting routing;
  compute_flow_routing(surface, rp, routing, ctx);
  throw_if_cancelled(ctx);

  // Drainage area and longest upstream path, donors before receivers.
  const double cell_area = g.cell_x_m * g.cell_z_m;
  const double diag = std::hypot(g.cell_x_m, g.cell_z_m);
  auto step_m = [&](std::uint32_t c) {
    const std::uint32_t r = routing.receiver[c];
    if (r == c) return 0.0;
    const bool dx = (r % std::uint32_t(w)) != (c % std::uint32_t(w));
    const bool dz = (r / std::uint32_t(w)) != (c / std::uint32_t(w));
    return dx && dz ? diag : dx ? g.cell_x_m : g.cell_z_m;
  };
  // D8 on the filled surface for the land cells of the border too: one with a lower neighbour
  // drains into it (filled strictly falls along it, so no cycle can form); the others stay
  // outlets. This is what the reference measurements do (their drainage densities are 1 to 3%
  // higher when every border cell is an outlet).
  {
    const float* f = routing.filled_m.data();
    for (int j = 0; j < h; ++j) {
      for (int i = 0; i < w; ++i) {
        if (i != 0 && j != 0 && i != w - 1 && j != h - 1) continue;
        const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
        if (!p.land[c]) continue;
        double best = 0.0;
        for (int dj = -1; dj <= 1; ++dj) {
          for (int di = -1; di <= 1; ++di) {
            const int ni = i + di, nj = j + dj;
            if ((di == 0 && dj == 0) || ni < 0 || nj < 0 || ni >= w || nj >= h) continue;
            const std::size_t nc = std::size_t(nj) * std::size_t(w) + std::size_t(ni);
            const double d =
                (double(f[c]) - double(f[nc])) / std::hypot(di * g.cell_x_m, dj * g.cell_z_m);
            if (d > best) {
              best = d;
              routing.receiver[c] = std::uint32_t(nc);
            }
          }
        }
      }
    }
  }
  // Topological order (Kahn): the receivers may have been changed above.
  // Map-sized buffers on huge pages (core/huge_pages.hpp): fewer faults on first touch.
  std::vector<std::uint32_t> donors, queue;
  core_detail::assign_huge(donors, n, 0u);
  core_detail::reserve_huge(queue, n);
  for (std::size_t c = 0; c < n; ++c) {
    if (routing.receiver[c] != c) ++donors[routing.receiver[c]];
  }
  for (std::size_t c = 0; c < n; ++c) {
    if (donors[c] == 0) queue.push_back(std::uint32_t(c));
  }
  std::vector<double> area, longest;
  core_detail::assign_huge(area, n, cell_area);
  core_detail::assign_huge(longest, n, 0.0);
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const std::uint32_t c = queue[q];
    const std::uint32_t r = routing.receiver[c];
    if (r == c) continue;
    area[r] += area[c];
    longest[r] = std::max(longest[r], longest[c] + step_m(c));
    if (--donors[r] == 0) queue.push_back(r);
  }

  double path_m = 0.0;
  std::map<int, std::vector<std::size_t>> bins;  // log10 area bin -> channel cells
  for (std::size_t c = 0; c < n; ++c) {
    if (!p.land[c]) continue;
    out.max_drainage_area_m2 = std::max(out.max_drainage_area_m2, area[c]);
    if (area[c] < params.channel_area_m2) continue;
    ++out.channel_cells;
    path_m += step_m(std::uint32_t(c));
    if (longest[c] > 0.0) bins[int(std::floor(std::log10(area[c]) * 10.0))].push_back(c);
  }
  const double land_km2 = double(p.land_cells) * cell_area * 1e-6;
  if (out.channel_cells == 0) {
    const std::string why = "no land cell reaches the channel area of " +
                            num(params.channel_area_m2) + " m^2 (the largest drainage area is " +
                            num(out.max_drainage_area_m2) + " m^2)";
    out.drainage_density_km_per_km2 = stat_none(why);
    out.hack_h = stat_none(why);
  } else {
    out.drainage_density_km_per_km2 = stat_value(path_m * 1e-3 / land_km2);
    std::vector<double> x, y;
    std::vector<float> a, l;
    for (const auto& [bin, cells] : bins) {
      a.clear();
      l.clear();
      for (std::size_t c : cells) {
        a.push_back(float(area[c]));
        l.push_back(float(longest[c]));
      }
      const double ma = median(a), ml = median(l);
      out.hack_area_m2.push_back(ma);
      out.hack_length_m.push_back(ml);
      x.push_back(std::log10(ma));
      y.push_back(std::log10(ml));
    }
    if (x.size() < 3) {
      out.hack_h = stat_none("the channel cells' drainage areas span " + std::to_string(x.size()) +
                             " bins of 0.1 decade; Hack's exponent needs at least 3");
    } else {
      out.hack_h = stat_value(fit_slope(x, y));
    }
  }

  // Depressions.
  std::vector<float> depth;
  core_detail::assign_huge(depth, n, 0.0f);
  std::int64_t any = 0;
  for (std::size_t c = 0; c < n; ++c) {
    if (!p.land[c]) continue;
    depth[c] = routing.filled_m[c] - g.heights[c];
    out.max_depression_depth_m = std::max(out.max_depression_depth_m, double(depth[c]));
    any += double(depth[c]) > params.depression_tolerance_m;
  }
  std::int64_t counted = 0;
  std::vector<std::uint8_t> seen;
  core_detail::assign_huge(seen, n, std::uint8_t(0));
  std::vector<std::size_t> stack, members;
  for (std::size_t c0 = 0; c0 < n; ++c0) {
    if (seen[c0] || !(depth[c0] > 0.0f)) continue;
    seen[c0] = 1;
    stack.assign(1, c0);
    members.clear();
    float deepest = 0.0f;
    while (!stack.empty()) {
      const std::size_t c = stack.back();
      stack.pop_back();
      members.push_back(c);
      deepest = std::max(deepest, depth[c]);
      const int i = int(c % std::size_t(w)), j = int(c / std::size_t(w));
      for (int dj = -1; dj <= 1; ++dj) {
        for (int di = -1; di <= 1; ++di) {
          const int ni = i + di, nj = j + dj;
          if ((di == 0 && dj == 0) || ni < 0 || nj < 0 || ni >= w || nj >= h) continue;
          const std::size_t nc = std::size_t(nj) * std::size_t(w) + std::size_t(ni);
          if (seen[nc] || !(depth[nc] > 0.0f)) continue;
          seen[nc] = 1;
          stack.push_back(nc);
        }
      }
    }
    if (double(deepest) > params.depression_depth_m) {
      for (std::size_t c : members) counted += double(depth[c]) > params.depression_tolerance_m;
    }
  }
  out.depression_share = stat_value(double(counted) / double(p.land_cells));
  out.pit_share = stat_value(double(any) / double(p.land_cells));
}

}  // namespace terrane::stats_detail
