// Hypsometry of land heights (Strahler 1952, "Hypsometric (area-altitude) analysis of erosional
// topography"): the integral (mean - min) / (max - min) and the curve of the share of land
// above each relative height.
#include <algorithm>
#include <cmath>

#include "stats/stats_internal.hpp"

namespace terrane::stats_detail {

void measure_hypsometry(const Prepared& p, TerrainStats& out) {
  out.hypsometric_curve.clear();
  if (p.land_cells == 0) {
    out.hypsometric_integral = stat_none("no land");
    return;
  }
  const std::span<const float> hs = p.grid->heights;
  double lo = INFINITY, hi = -INFINITY, sum = 0.0;
  for (std::size_t c = 0; c < hs.size(); ++c) {
    if (!p.land[c]) continue;
    lo = std::min(lo, double(hs[c]));
    hi = std::max(hi, double(hs[c]));
    sum += double(hs[c]);
  }
  if (!(hi > lo)) {
    out.hypsometric_integral = stat_none("the land is flat (every land cell at " + num(lo) + " m)");
    return;
  }
  const double mean = sum / double(p.land_cells);
  out.hypsometric_integral = stat_value((mean - lo) / (hi - lo));
  // Share of land strictly above lo + k / 100 * (hi - lo), k = 0..100: a histogram of 100
  // equal bins, then cumulative sums from the top.
  std::vector<std::int64_t> bins(100, 0);
  for (std::size_t c = 0; c < hs.size(); ++c) {
    if (!p.land[c]) continue;
    const double r = (double(hs[c]) - lo) / (hi - lo) * 100.0;
    // A cell at relative height r is above level k for every k < r.
    const int k = std::clamp(int(std::ceil(r)) - 1, -1, 99);  // highest k with k < r
    if (k >= 0) bins[std::size_t(k)] += 1;
  }
  out.hypsometric_curve.assign(101, 0.0);
  std::int64_t above = 0;
  for (int k = 99; k >= 0; --k) {
    above += bins[std::size_t(k)];
    out.hypsometric_curve[std::size_t(k)] = double(above) / double(p.land_cells);
  }
  out.hypsometric_curve[100] = 0.0;
}

}  // namespace terrane::stats_detail
