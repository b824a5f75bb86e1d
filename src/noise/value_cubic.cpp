// Cubic value noise, 2D and 3D: hashed lattice values in [-1, 1) interpolated with the
// Catmull-Rom cubic over 4 points per axis (C1-continuous, smoother-looking than quintic value
// noise). Catmull-Rom weights can sum in absolute value to at most 1.25 (at t = 1/2), so the
// result is scaled by 1/1.25^d (d = 2 or 3): an analytic bound, |noise| <= 1.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "noise/value_cubic.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "noise/fractal-inl.h"
#include "noise/kernel_export.hpp"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {

// Catmull-Rom through b (t = 0) and c (t = 1) with neighbours a and d:
// b + t/2 * (c - a + t * (2a - 5b + 4c - d + t * (3(b - c) + d - a))).
HWY_INLINE VF CatmullRom(VF a, VF b, VF c, VF d, VF t) {
  const DF df;
  const VF p3 = hn::Sub(hn::Add(hn::Mul(hn::Set(df, 3.0f), hn::Sub(b, c)), d), a);
  const VF p2 = hn::Sub(hn::Add(hn::Sub(hn::Add(a, a), hn::Mul(hn::Set(df, 5.0f), b)),
                                hn::Mul(hn::Set(df, 4.0f), c)),
                        d);
  const VF inner = hn::Add(hn::Sub(c, a), hn::Mul(t, hn::Add(p2, hn::Mul(t, p3))));
  return hn::Add(b, hn::Mul(hn::Mul(t, hn::Set(df, 0.5f)), inner));
}

struct ValueCubicBasis {
  static constexpr bool kSheared = false;

  static HWY_INLINE VF Eval2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&) {
    const DF d;
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU px = hn::Set(du, kPrimeX), pz = hn::Set(du, kPrimeZ);
    const VU x1 = hn::Mul(cx, px);
    const VU x0 = hn::Sub(x1, px), x2 = hn::Add(x1, px), x3 = hn::Add(x2, px);
    VU z = hn::Sub(hn::Mul(cz, pz), pz);
    VF rows[4];
    for (int k = 0; k < 4; ++k, z = hn::Add(z, pz)) {
      rows[k] = CatmullRom(HashToUnit(Hash(s, x0, z)), HashToUnit(Hash(s, x1, z)),
                           HashToUnit(Hash(s, x2, z)), HashToUnit(Hash(s, x3, z)), fx);
    }
    const VF v = CatmullRom(rows[0], rows[1], rows[2], rows[3], fz);
    return ClampUnit(hn::Mul(v, hn::Set(d, 1.0f / (1.25f * 1.25f))));
  }

  static HWY_INLINE VF Eval3(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                             const BasisArgs&) {
    const DF d;
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU px = hn::Set(du, kPrimeX), py = hn::Set(du, kPrimeY), pz = hn::Set(du, kPrimeZ);
    const VU x1 = hn::Mul(cx, px);
    const VU x0 = hn::Sub(x1, px), x2 = hn::Add(x1, px), x3 = hn::Add(x2, px);
    VF planes[4];
    VU z = hn::Sub(hn::Mul(cz, pz), pz);
    for (int kz = 0; kz < 4; ++kz, z = hn::Add(z, pz)) {
      VF rows[4];
      VU y = hn::Sub(hn::Mul(cy, py), py);
      for (int ky = 0; ky < 4; ++ky, y = hn::Add(y, py)) {
        rows[ky] = CatmullRom(HashToUnit(Hash(s, x0, y, z)), HashToUnit(Hash(s, x1, y, z)),
                              HashToUnit(Hash(s, x2, y, z)), HashToUnit(Hash(s, x3, y, z)), fx);
      }
      planes[kz] = CatmullRom(rows[0], rows[1], rows[2], rows[3], fy);
    }
    const VF v = CatmullRom(planes[0], planes[1], planes[2], planes[3], fz);
    return ClampUnit(hn::Mul(v, hn::Set(d, 1.0f / (1.25f * 1.25f * 1.25f))));
  }
};

TERRANE_NOISE_ROW_KERNELS(ValueCubic, ValueCubicBasis)

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace terrane::noise_detail {
TERRANE_NOISE_EXPORT(ValueCubic, value_cubic)
}  // namespace terrane::noise_detail
#endif
