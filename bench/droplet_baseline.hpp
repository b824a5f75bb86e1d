// A plain single-threaded droplet erosion, the anchor that `terrane bench erosion` and
// bench_erosion compare terrane's droplet_erosion() against in the same run.
//
// It is the published model written the obvious way (Beyer 2015 / Lague 2019): one droplet after
// another in index order, double-free float arithmetic, the brush as one precomputed list of
// (dx, dy, weight) with a bounds check per brush cell. Same parameters and the same physics as
// terrane's (including the pit-free erosion floor and the dying droplet's load spread), so the
// two do the same work per step; only the schedule and the code organisation differ.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/erosion.hpp"
#include "terrane/preset.hpp"

namespace terrane::bench {

struct BaselineBrushCell {
  int dx, dy;
  float weight;
};

// Returns the number of droplet steps simulated. Cell mode only (reference_spacing_m == 0).
inline std::int64_t baseline_droplets(Field2D& field, const DropletParams& p) {
  const int w = field.grid.width, h = field.grid.height;
  float* hm = field.data.data();
  std::vector<BaselineBrushCell> brush;
  const double r = p.brush_radius;
  const int R = std::max(1, int(std::ceil(r)) - 1);
  double sum = 0.0;
  for (int dy = -R; dy <= R; ++dy) {
    for (int dx = -R; dx <= R; ++dx) {
      const double d = std::sqrt(double(dx * dx + dy * dy));
      if (d < r) {
        brush.push_back({dx, dy, float(r - d)});
        sum += r - d;
      }
    }
  }
  for (auto& b : brush) b.weight = float(double(b.weight) / sum);
  const float inertia = float(p.inertia), unit = float(p.height_unit_m);
  auto height_at = [&](float x, float y, float* gx, float* gy) {
    const int ix = int(x), iy = int(y);
    const float u = x - float(ix), v = y - float(iy);
    const float h00 = hm[iy * w + ix], h10 = hm[iy * w + ix + 1];
    const float h01 = hm[(iy + 1) * w + ix], h11 = hm[(iy + 1) * w + ix + 1];
    if (gx != nullptr) {
      *gx = (h10 - h00) * (1 - v) + (h11 - h01) * v;
      *gy = (h01 - h00) * (1 - u) + (h11 - h10) * u;
    }
    return h00 * (1 - u) * (1 - v) + h10 * u * (1 - v) + h01 * (1 - u) * v + h11 * u * v;
  };
  std::int64_t steps = 0;
  for (std::int64_t k = 0; k < p.droplets; ++k) {
    const std::uint64_t hs = hash_combine(p.seed, std::uint64_t(k));
    float x = unit_float(hs) * float(w - 1), y = unit_float(mix64(hs)) * float(h - 1);
    float dx = 0, dy = 0, speed = float(p.initial_speed), water = float(p.initial_water), load = 0;
    for (int life = 0; life < p.max_lifetime; ++life) {
      ++steps;
      const int ix = int(x), iy = int(y);
      const float u = x - float(ix), v = y - float(iy);
      float gx, gy;
      const float here = height_at(x, y, &gx, &gy);
      dx = dx * inertia - gx * (1 - inertia);
      dy = dy * inertia - gy * (1 - inertia);
      const float len = std::sqrt(dx * dx + dy * dy);
      if (len == 0) break;
      dx /= len;
      dy /= len;
      const float nx = x + dx, ny = y + dy;
      if (nx < 0 || ny < 0 || nx >= float(w - 1) || ny >= float(h - 1)) {
        load = 0;
        break;
      }
      const float next = height_at(nx, ny, nullptr, nullptr);
      const float drop = here - next;
      const float cap =
          std::max(drop / unit * speed * water * float(p.capacity), float(p.min_capacity)) * unit;
      if (drop < 0 || load > cap) {
        const float amount =
            drop < 0 ? std::min(-drop, load) : (load - cap) * float(p.deposit_speed);
        load -= amount;
        hm[iy * w + ix] += amount * (1 - u) * (1 - v);
        hm[iy * w + ix + 1] += amount * u * (1 - v);
        hm[(iy + 1) * w + ix] += amount * (1 - u) * v;
        hm[(iy + 1) * w + ix + 1] += amount * u * v;
      } else {
        const float amount = std::min((cap - load) * float(p.erode_speed), drop);
        for (const auto& b : brush) {
          const int bx = ix + b.dx, by = iy + b.dy;
          if (bx < 0 || by < 0 || bx >= w || by >= h) continue;
          float& cell = hm[by * w + bx];
          const float take = std::min(amount * b.weight, std::max(cell - next, 0.0f));
          cell -= take;
          load += take;
        }
      }
      speed = std::sqrt(std::max(0.0f, speed * speed + drop / unit * float(p.gravity)));
      water *= 1 - float(p.evaporation);
      x = nx;
      y = ny;
    }
    if (load > 0) {
      for (const auto& b : brush) {
        const int bx = int(x) + b.dx, by = int(y) + b.dy;
        if (bx >= 0 && by >= 0 && bx < w && by < h) hm[by * w + bx] += load * b.weight;
      }
    }
  }
  return steps;
}

}  // namespace terrane::bench
