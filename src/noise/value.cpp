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
    const CellHashes2 h = CellHashes(seed, cx, cz);
    const VF u = Quintic(fx), v = Quintic(fz);
    const VF a = Lerp(HashToUnit(h.h00), HashToUnit(h.h10), u);
    const VF b = Lerp(HashToUnit(h.h01), HashToUnit(h.h11), u);
    return ClampUnit(Lerp(a, b, v));
  }

  static HWY_INLINE VF Eval3(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                             const BasisArgs&) {
    const CellHashes3 h = CellHashes(seed, cx, cy, cz);
    const VF u = Quintic(fx), v = Quintic(fy), w = Quintic(fz);
    const VF a = Lerp(Lerp(HashToUnit(h.h000), HashToUnit(h.h100), u),
                      Lerp(HashToUnit(h.h010), HashToUnit(h.h110), u), v);
    const VF b = Lerp(Lerp(HashToUnit(h.h001), HashToUnit(h.h101), u),
                      Lerp(HashToUnit(h.h011), HashToUnit(h.h111), u), v);
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
