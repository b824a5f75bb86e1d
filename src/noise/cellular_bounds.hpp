// Internal: the constants of the cellular basis shared by its kernels (noise/cellular.cpp, per
// SIMD target) and the host side (noise/sampler.cpp), which computes the per-call bounds into
// BasisArgs once instead of once per vector. See noise/cellular.cpp for what they mean.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "noise/kernel_args.hpp"

namespace terrane::noise_detail::cellular {
// Odd multipliers deriving the further feature-point coordinates and the cell value from the
// lattice hash h (their products move low hash bits into the 24 high bits that are used).
inline constexpr std::uint32_t kMulB = 0x165667B1u;
inline constexpr std::uint32_t kMulC = 0x85EBCA6Bu;
inline constexpr std::uint32_t kMulD = 0xCC9E2D51u;
// Margin subtracted from the outer-ring distance bound so float rounding of the distances can
// never make an inexact result look exact.
inline constexpr double kBoundMargin = 1.0 / 1024.0;
// Largest ring searched (ring k = the cells at Chebyshev offset k). No distance exceeds
// 3 * 0.9375 = 2.8125 (3D manhattan), below the bound 3.5 - 0.4375 - 2^-10 beyond ring 3, so
// the search never passes ring 3; the cap only bounds the loop.
inline constexpr int kMaxRing = 4;

// Output-map suprema (see the header comment), in cells.
inline double f1_bound(CellularDistance dist, int dims, double r) {
  const double a = 0.5 + r;
  switch (dist) {
    case CellularDistance::manhattan:
      return dims * a;
    case CellularDistance::chebyshev:
      return a;
    default:
      return std::sqrt(double(dims)) * a;
  }
}
inline double f2_bound(CellularDistance dist, int dims, double r) {
  const double a = 0.5 + r;
  switch (dist) {
    case CellularDistance::manhattan:
      return dims * a;
    case CellularDistance::chebyshev:
      return 1.0 + r;
    default: {
      const double face = (1.0 + r) * (1.0 + r) + (dims - 1) * r * r;
      return std::sqrt(dims == 2 ? face : std::max(3.0 * a * a, face));
    }
  }
}
}  // namespace terrane::noise_detail::cellular

namespace terrane::noise_detail {
static_assert(sizeof(BasisArgs::cellular_ring) / sizeof(float) == cellular::kMaxRing);

// The per-call constants of BasisArgs, from its distance, return and jitter: the output map's
// scale 2 / D for 2D and 3D samples, and each ring's distance bound (see NeedsRing).
inline void set_cellular_bounds(BasisArgs& b) {
  namespace cc = cellular;
  const double r = double(b.cellular_jitter);
  for (int dims = 2; dims <= 3; ++dims) {
    const double dmax = b.cellular_return == CellularReturn::f1
                            ? cc::f1_bound(b.cellular_distance, dims, r)
                            : cc::f2_bound(b.cellular_distance, dims, r);
    (dims == 2 ? b.cellular_map2 : b.cellular_map3) = float(2.0 / dmax);
  }
  for (int k = 0; k < cc::kMaxRing; ++k) {
    b.cellular_ring[k] = float(double(k) + 0.5 - r - cc::kBoundMargin);
  }
}
}  // namespace terrane::noise_detail
