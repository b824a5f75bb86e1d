// Value noise, 2D and 3D: a hashed value in [-1, 1) at every lattice point, interpolated with
// the quintic fade of improved Perlin noise (C2-continuous). Bounded by 1 by construction
// (a convex combination of lattice values). Lattice values come from a hash of
// (seed, lattice point), not a permutation table.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "noise/value.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "noise/fractal-inl.h"
#include "noise/kernel_export.hpp"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {

struct ValueBasis {
  static constexpr bool kSheared = false;

  static HWY_INLINE VF Eval2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&) {
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
    const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
    const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
    const VU z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
    const VF u = Quintic(fx), v = Quintic(fz);
    const VF a = Lerp(HashToUnit(Hash(s, x0, z0)), HashToUnit(Hash(s, x1, z0)), u);
    const VF b = Lerp(HashToUnit(Hash(s, x0, z1)), HashToUnit(Hash(s, x1, z1)), u);
    return ClampUnit(Lerp(a, b, v));
  }

  static HWY_INLINE VF Eval3(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                             const BasisArgs&) {
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
    const VU y0 = hn::Mul(cy, hn::Set(du, kPrimeY));
    const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
    const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
    const VU y1 = hn::Add(y0, hn::Set(du, kPrimeY));
    const VU z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
    const VF u = Quintic(fx), v = Quintic(fy), w = Quintic(fz);
    auto at = [&](VU x, VU y, VU z) { return HashToUnit(Hash(s, x, y, z)); };
    const VF a = Lerp(Lerp(at(x0, y0, z0), at(x1, y0, z0), u), Lerp(at(x0, y1, z0), at(x1, y1, z0), u), v);
    const VF b = Lerp(Lerp(at(x0, y0, z1), at(x1, y0, z1), u), Lerp(at(x0, y1, z1), at(x1, y1, z1), u), v);
    return ClampUnit(Lerp(a, b, w));
  }
};

TERRANE_NOISE_ROW_KERNELS(Value, ValueBasis)

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace terrane::noise_detail {
TERRANE_NOISE_EXPORT(Value, value)
}  // namespace terrane::noise_detail
#endif
