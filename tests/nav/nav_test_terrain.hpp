// A periodic test terrain for the nav tests: 2 m cells, 64-cell chunks (128 m), period 64 cells
// in x and z, so the terrain at x + k * 128 m equals the terrain at x (far-origin tests). In each
// period: gentle waves, mesa A (3 m high, radius 24 m, centred at (40, 40) m) with a ramp to the
// east, mesa B (6 m, radius 20 m, at (88, 88) m) with cliffs all round.
#pragma once

#include <cmath>
#include <cstdint>

#include "terrane/nav.hpp"

namespace terrane::test {

class PeriodicTerrain final : public NavTerrain {
 public:
  static constexpr int kPeriod = 64;
  static constexpr double kCell = 2.0;
  double cell_size_m() const override { return kCell; }
  int chunk_cells() const override { return 64; }
  double sea_level_m() const override { return sea_; }
  void heights(std::int64_t i0, std::int64_t j0, int width, int height,
               std::span<float> out) const override {
    for (int j = 0; j < height; ++j) {
      for (int i = 0; i < width; ++i) out[std::size_t(j * width + i)] = at(i0 + i, j0 + j);
    }
  }
  static float at(std::int64_t gi, std::int64_t gj) {
    const auto wrap = [](std::int64_t v) {
      const std::int64_t m = v % kPeriod;
      return double(m < 0 ? m + kPeriod : m);
    };
    const double i = wrap(gi), j = wrap(gj);
    const double two_pi = 6.283185307179586;
    double h = 0.6 * std::sin(two_pi * i / kPeriod) * std::cos(two_pi * 2.0 * j / kPeriod);
    const double ra = std::hypot(i - 20.0, j - 20.0);
    if (ra < 12.0) {
      h += 3.0;
    } else if (ra < 20.0 && i > 20.0 && std::abs(j - 20.0) < 0.4 * (i - 20.0)) {
      h += 3.0 * (20.0 - ra) / 8.0;  // the ramp: 3 m over 16 m
    }
    if (std::hypot(i - 44.0, j - 44.0) < 10.0) h += 6.0;
    return float(h);
  }
  double sea_ = -100.0;
};

}  // namespace terrane::test
