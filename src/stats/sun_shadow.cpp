// Cast shadows of a height field under a directional sun by one sweep away from the sun: the
// "shadow volume height" S of a sample is max(h, S(predecessor) - drop), the predecessor being
// the point one step towards the sun on the previous line (linear interpolation between its two
// neighbours) and drop the sun ray's descent over that step. A sample is in shadow when S > h.
// This is the line-sweep form of horizon-based shadowing (e.g. Stewart, "Fast horizon
// computation at all points of a terrain with visibility and shading applications", IEEE TVCG
// 4(1), 1998, for the general horizon problem); one direction only, so O(cells).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "stats/perspective_internal.hpp"

namespace terrane::perspective_detail {

void sun_shadow(std::span<const float> heights, int w, int h, double spacing_m,
                double sun_azimuth_deg, double sun_elevation_deg, std::span<float> light) {
  std::fill(light.begin(), light.end(), 1.0f);
  if (sun_elevation_deg >= 89.9 || w < 2 || h < 2) return;
  const double deg = std::numbers::pi / 180.0;
  const double tx = -std::cos(sun_azimuth_deg * deg), tz = -std::sin(sun_azimuth_deg * deg);
  const bool major_x = std::abs(tx) >= std::abs(tz);
  const int na = major_x ? w : h, nb = major_x ? h : w;
  const int step = (major_x ? tx : tz) >= 0.0 ? 1 : -1;
  const double slope = (major_x ? tz : tx) / std::abs(major_x ? tx : tz);  // minor per step
  const double drop =
      spacing_m * std::sqrt(1.0 + slope * slope) * std::tan(sun_elevation_deg * deg);
  const auto idx = [&](int a, int b) {
    return major_x ? std::size_t(b) * std::size_t(w) + std::size_t(a)
                   : std::size_t(a) * std::size_t(w) + std::size_t(b);
  };
  const auto height_at = [&](std::size_t c) {
    const float v = heights[c];
    return std::isnan(v) ? -1.0e30 : double(v);
  };
  std::vector<double> prev(static_cast<std::size_t>(nb)), cur(static_cast<std::size_t>(nb));
  const int a0 = step > 0 ? 0 : na - 1;
  for (int b = 0; b < nb; ++b) prev[std::size_t(b)] = height_at(idx(a0, b));
  const double soft = std::max(drop, 1e-6);
  for (int k = 1; k < na; ++k) {
    const int a = a0 + k * step;
    for (int b = 0; b < nb; ++b) {
      const double hv = height_at(idx(a, b));
      const double bp = double(b) - slope;
      double s = hv;
      if (bp >= 0.0 && bp <= double(nb - 1)) {
        const auto b0 = int(std::floor(bp));
        const int b1 = std::min(b0 + 1, nb - 1);
        const double f = bp - double(b0);
        const double p = prev[std::size_t(b0)] * (1.0 - f) + prev[std::size_t(b1)] * f;
        s = std::max(hv, p - drop);
      }
      cur[std::size_t(b)] = s;
      light[idx(a, b)] = float(std::clamp(1.0 - (s - hv) / soft, 0.0, 1.0));
    }
    std::swap(prev, cur);
  }
}

}  // namespace terrane::perspective_detail
