// Slope distribution of land cells.
//
// The gradient is numpy.gradient's: central differences (h[i+1] - h[i-1]) / (2 dx) inside,
// one-sided first differences at the border; a no-data (NaN) neighbour makes the difference
// one-sided, and a cell with no finite neighbour along an axis gets no slope (it is left out).
// Slope = atan(|grad h|) in degrees, computed in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "core/huge_pages.hpp"
#include "stats/stats_internal.hpp"

namespace terrane::stats_detail {
namespace {

// d h / d s at index k of a line of n samples spaced `step` apart (stride `stride`), or NaN.
inline double derivative(const float* h, int k, int n, std::ptrdiff_t stride, double step) {
  const bool has_prev = k > 0 && !std::isnan(h[-stride]);
  const bool has_next = k + 1 < n && !std::isnan(h[stride]);
  const double c = h[0];
  if (has_prev && has_next) return (double(h[stride]) - double(h[-stride])) / (2.0 * step);
  if (has_next) return (double(h[stride]) - c) / step;
  if (has_prev) return (c - double(h[-stride])) / step;
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

void measure_slopes(const Prepared& p, TerrainStats& out, const ExecContext& ctx) {
  const StatsGrid& g = *p.grid;
  const int w = g.width, h = g.height;
  out.slope_histogram.assign(90, 0.0);
  if (p.land_cells == 0) {
    const Stat none = stat_none("no land");
    out.slope_p10_deg = out.slope_p50_deg = out.slope_p90_deg = none;
    out.slope_lt15 = out.slope_lt30 = out.slope_gt45 = out.walkable_share = none;
    return;
  }
  if (w < 2 || h < 2) {
    const Stat none = stat_none("the map is " + std::to_string(w) + " x " + std::to_string(h) +
                                " cells; a slope needs at least 2 cells along each axis");
    out.slope_p10_deg = out.slope_p50_deg = out.slope_p90_deg = none;
    out.slope_lt15 = out.slope_lt30 = out.slope_gt45 = out.walkable_share = none;
    return;
  }
  // Slope per cell (NaN where not land or not measurable), rows in parallel; the counts and the
  // histogram per block of rows (integers: any order gives the same sums).
  std::vector<float> slope;
  core_detail::resize_huge(slope, p.cells(), &ctx);
  constexpr double kDeg = 180.0 / std::numbers::pi;
  const float agent = float(p.params->agent_slope_deg);
  struct Counts {
    std::int64_t lt15 = 0, lt30 = 0, gt45 = 0, walkable = 0;
    std::array<std::int64_t, 90> bins{};
  };
  constexpr int kBlockRows = 16;
  std::vector<Counts> counts(std::size_t((h + kBlockRows - 1) / kBlockRows));
  for_row_blocks(ctx, h, kBlockRows, [&](std::size_t b, int j0, int j1) {
    Counts& k = counts[b];
    for (int j = j0; j < j1; ++j) {
      for (int i = 0; i < w; ++i) {
        const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
        slope[c] = std::numeric_limits<float>::quiet_NaN();
        if (!p.land[c]) continue;
        const float* hc = g.heights.data() + c;
        const double gx = derivative(hc, i, w, 1, g.cell_x_m);
        const double gz = derivative(hc, j, h, w, g.cell_z_m);
        if (std::isnan(gx) || std::isnan(gz)) continue;
        const float s = float(std::atan(std::sqrt(gx * gx + gz * gz)) * kDeg);
        slope[c] = s;
        k.lt15 += s < 15.0f;
        k.lt30 += s < 30.0f;
        k.gt45 += s > 45.0f;
        k.walkable += s <= agent;
        k.bins[std::size_t(std::clamp(int(s), 0, 89))] += 1;
      }
    }
  });
  const RankSelect values(slope, ctx);
  if (values.count() == 0) {
    const Stat none = stat_none("no land cell has a finite neighbour to measure a slope");
    out.slope_p10_deg = out.slope_p50_deg = out.slope_p90_deg = none;
    out.slope_lt15 = out.slope_lt30 = out.slope_gt45 = out.walkable_share = none;
    return;
  }
  Counts all;
  for (const Counts& k : counts) {
    all.lt15 += k.lt15;
    all.lt30 += k.lt30;
    all.gt45 += k.gt45;
    all.walkable += k.walkable;
    for (std::size_t q = 0; q < all.bins.size(); ++q) all.bins[q] += k.bins[q];
  }
  const double n = double(values.count());
  out.slope_lt15 = stat_value(double(all.lt15) / n);
  out.slope_lt30 = stat_value(double(all.lt30) / n);
  out.slope_gt45 = stat_value(double(all.gt45) / n);
  out.walkable_share = stat_value(double(all.walkable) / n);
  for (std::size_t q = 0; q < all.bins.size(); ++q) {
    out.slope_histogram[q] = double(all.bins[q]) / n;
  }
  out.slope_p10_deg = stat_value(values.percentile(10.0));
  out.slope_p50_deg = stat_value(values.percentile(50.0));
  out.slope_p90_deg = stat_value(values.percentile(90.0));
}

}  // namespace terrane::stats_detail
