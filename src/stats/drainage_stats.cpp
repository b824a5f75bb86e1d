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
#include <utility>

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
  constexpr int kBlockRows = 16;
  const std::size_t blocks = std::size_t((h + kBlockRows - 1) / kBlockRows);
  std::vector<float> block_lo(blocks, INFINITY);
  std::vector<std::uint8_t> block_nodata(blocks, 0);
  for_row_blocks(ctx, h, kBlockRows, [&](std::size_t b, int j0, int j1) {
    const std::size_t c1 = std::size_t(j1) * std::size_t(w);
    for (std::size_t c = std::size_t(j0) * std::size_t(w); c < c1; ++c) {
      if (std::isnan(g.heights[c]))
        block_nodata[b] = 1;
      else
        block_lo[b] = std::min(block_lo[b], g.heights[c]);
    }
  });
  const float lo = *std::min_element(block_lo.begin(), block_lo.end());
  const bool any_nodata =
      std::find(block_nodata.begin(), block_nodata.end(), 1) != block_nodata.end();
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
  Field2D surface;
  surface.grid = GridSpec{w, h, std::sqrt(g.cell_x_m * g.cell_z_m)};
  core_detail::resize_huge(surface.data, n, &ctx);
  parallel_for(ctx, std::int64_t(n), std::int64_t(1) << 16, [&](std::int64_t c0, std::int64_t c1) {
    for (auto c = std::size_t(c0); c < std::size_t(c1); ++c) {
      surface.data[c] = std::isnan(g.heights[c]) ? float(nodata_level) : g.heights[c];
    }
  });
  // What each step reads is released once read: the routing keeps no working memory, the surface
  // goes once routed (its filled levels are the routing's), the order once the drainage has been
  // accumulated, and the receivers and drainage once the channels are measured; the depressions'
  // depths are then formed in the filled levels' own buffer.
  FlowRouting routing;
  routing.keep_scratch = false;
  compute_flow_routing(surface, rp, routing, ctx);
  surface = {};
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
  // higher when every border cell is an outlet). Collected here, applied after the routing's
  // own accumulation below.
  struct Moved {
    std::uint32_t cell, receiver;
  };
  std::vector<Moved> moved;
  {
    const float* f = routing.filled_m.data();
    for (int j = 0; j < h; ++j) {
      for (int i = 0; i < w; ++i) {
        if (i != 0 && j != 0 && i != w - 1 && j != h - 1) continue;
        const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
        if (!p.land[c]) continue;
        double best = 0.0;
        std::uint32_t to = std::uint32_t(c);
        for (int dj = -1; dj <= 1; ++dj) {
          for (int di = -1; di <= 1; ++di) {
            const int ni = i + di, nj = j + dj;
            if ((di == 0 && dj == 0) || ni < 0 || nj < 0 || ni >= w || nj >= h) continue;
            const std::size_t nc = std::size_t(nj) * std::size_t(w) + std::size_t(ni);
            const double d =
                (double(f[c]) - double(f[nc])) / std::hypot(di * g.cell_x_m, dj * g.cell_z_m);
            if (d > best) {
              best = d;
              to = std::uint32_t(nc);
            }
          }
        }
        if (to != c) moved.push_back({std::uint32_t(c), to});
      }
    }
  }
  // Cells upstream (counted, so the sums are exact in any order) and the longest path upstream,
  // donors before receivers: the routing's parts on every worker. The border cells above are
  // still outlets here: each is the root of its own tree.
  std::vector<std::uint32_t> upstream;
  std::vector<double> longest;
  core_detail::assign_huge(upstream, n, 1u, &ctx);
  core_detail::assign_huge(longest, n, 0.0, &ctx);
  const std::size_t parts = routing.part_begin.empty() ? 1 : routing.part_begin.size() - 1;
  parallel_for(ctx, std::int64_t(parts), std::max<std::int64_t>(1, std::int64_t(parts) / 256),
               [&](std::int64_t p0, std::int64_t p1) {
                 for (auto q = std::size_t(p0); q < std::size_t(p1); ++q) {
                   const std::size_t b = routing.part_begin.empty() ? 0 : routing.part_begin[q];
                   const std::size_t e = routing.part_begin.empty() ? n : routing.part_begin[q + 1];
                   for (std::size_t k = e; k-- > b;) {
                     const std::uint32_t c = routing.order[k];
                     const std::uint32_t r = routing.receiver[c];
                     if (r == c) continue;
                     upstream[r] += upstream[c];
                     longest[r] = std::max(longest[r], longest[c] + step_m(c));
                   }
                 }
               });
  std::vector<std::uint32_t>().swap(routing.order);
  throw_if_cancelled(ctx);
  // Then each moved border cell's tree flows on from its new receiver, down to the next moved
  // cell or an outlet. Filled strictly falls from a moved cell to the next one, so taking them
  // from the highest filled level down passes each one's whole upstream on. The longest path
  // through a cell is the larger of what reached it in each pass (rounded addition is monotonic,
  // so this is the same value as one walk over the changed routing).
  std::vector<std::uint8_t> is_moved;
  core_detail::assign_huge(is_moved, n, std::uint8_t(0), &ctx);
  for (const Moved& m : moved) {
    is_moved[m.cell] = 1;
    routing.receiver[m.cell] = m.receiver;
  }
  std::sort(moved.begin(), moved.end(), [&](const Moved& a, const Moved& b) {
    const float fa = routing.filled_m[a.cell], fb = routing.filled_m[b.cell];
    return fa != fb ? fa > fb : a.cell < b.cell;
  });
  for (const Moved& m : moved) {
    const std::uint32_t add = upstream[m.cell];
    double along = longest[m.cell] + step_m(m.cell);
    for (std::uint32_t c = m.receiver;;) {
      upstream[c] += add;
      longest[c] = std::max(longest[c], along);
      const std::uint32_t r = routing.receiver[c];
      if (is_moved[c] || r == c) break;
      along += step_m(c);
      c = r;
    }
  }
  std::vector<std::uint8_t>().swap(is_moved);
  const auto area = [&](std::size_t c) { return upstream[c] * cell_area; };  // exact: a count

  // Channel cells per block of rows: the largest area, the steps counted by their length (so the
  // path's total is exact in any order), and (log10 area bin, cell) for Hack's law.
  struct Channels {
    double max_area = 0.0;
    std::int64_t cells = 0;
    std::int64_t steps[3] = {0, 0, 0};  // along x, along z, diagonal
    std::vector<std::pair<int, std::uint32_t>> binned;
  };
  std::vector<Channels> channels(blocks);
  for_row_blocks(ctx, h, kBlockRows, [&](std::size_t b, int j0, int j1) {
    Channels& ch = channels[b];
    const std::size_t c1 = std::size_t(j1) * std::size_t(w);
    for (std::size_t c = std::size_t(j0) * std::size_t(w); c < c1; ++c) {
      if (!p.land[c]) continue;
      ch.max_area = std::max(ch.max_area, area(c));
      if (area(c) < params.channel_area_m2) continue;
      ++ch.cells;
      const std::uint32_t r = routing.receiver[c];
      if (r != c) {
        const bool dx = (r % std::uint32_t(w)) != (c % std::uint32_t(w));
        const bool dz = (r / std::uint32_t(w)) != (c / std::uint32_t(w));
        ++ch.steps[dx && dz ? 2 : dx ? 0 : 1];
      }
      if (longest[c] > 0.0) {
        ch.binned.emplace_back(int(std::floor(std::log10(area(c)) * 10.0)), std::uint32_t(c));
      }
    }
  });
  std::int64_t steps[3] = {0, 0, 0};
  std::vector<std::pair<int, std::uint32_t>> binned;
  for (const Channels& ch : channels) {
    out.max_drainage_area_m2 = std::max(out.max_drainage_area_m2, ch.max_area);
    out.channel_cells += ch.cells;
    for (int k = 0; k < 3; ++k) steps[k] += ch.steps[k];
    binned.insert(binned.end(), ch.binned.begin(), ch.binned.end());
  }
  const double path_m =
      double(steps[0]) * g.cell_x_m + double(steps[1]) * g.cell_z_m + double(steps[2]) * diag;
  // Bins in increasing order, each holding its cells in cell order.
  std::stable_sort(binned.begin(), binned.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
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
    for (std::size_t k0 = 0; k0 < binned.size();) {
      a.clear();
      l.clear();
      std::size_t k = k0;
      for (; k < binned.size() && binned[k].first == binned[k0].first; ++k) {
        a.push_back(float(area(binned[k].second)));
        l.push_back(float(longest[binned[k].second]));
      }
      k0 = k;
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

  // Depressions, once nothing reads the drainage or the receivers.
  std::vector<std::uint32_t>().swap(upstream);
  std::vector<double>().swap(longest);
  std::vector<std::uint32_t>().swap(routing.receiver);
  std::vector<float> depth = std::move(routing.filled_m);  // each cell's depth in its own level
  std::vector<std::int64_t> block_any(blocks, 0);
  std::vector<double> block_deepest(blocks, 0.0);
  for_row_blocks(ctx, h, kBlockRows, [&](std::size_t b, int j0, int j1) {
    const std::size_t c1 = std::size_t(j1) * std::size_t(w);
    for (std::size_t c = std::size_t(j0) * std::size_t(w); c < c1; ++c) {
      if (!p.land[c]) {
        depth[c] = 0.0f;
        continue;
      }
      depth[c] = depth[c] - g.heights[c];
      block_deepest[b] = std::max(block_deepest[b], double(depth[c]));
      block_any[b] += double(depth[c]) > params.depression_tolerance_m;
    }
  });
  std::int64_t any = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    out.max_depression_depth_m = std::max(out.max_depression_depth_m, block_deepest[b]);
    any += block_any[b];
  }
  std::int64_t counted = 0;
  std::vector<std::uint8_t> seen;
  core_detail::assign_huge(seen, n, std::uint8_t(0), &ctx);
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
