// Improved Perlin gradient noise, 2D and 3D.
// K. Perlin, "Improving Noise", SIGGRAPH 2002: quintic fade 6t^5-15t^4+10t^3 and, in 3D, the
// 12 cube-edge gradients. Gradients come from a hash of (seed, lattice point) instead of a
// permutation table, so every seed gets its own pattern.
//
// 2D gradients: the 8 directions of a regular octagon, all of length sqrt(2):
// (+-1, +-1) and (+-sqrt2, 0), (0, +-sqrt2). With |g| = sqrt(2) the noise is bounded by
// |g| * sqrt(2)/2 = 1. 3D: the 12 edge vectors (length sqrt(2)); the bound |g| * sqrt(3)/2 is
// not reached — the observed maximum is about 1.04 (Perlin's edge gradients), so the value
// is scaled by 1/1.04 and clamped to [-1, 1].

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "noise/perlin.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "noise/fractal-inl.h"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {

// Dot of a hashed octagon gradient with (x, z). Bits 31..29 of h choose the gradient.
HWY_INLINE VF GradDot2(VU h, VF x, VF z) {
  const DF d;
  const DU du;
  const auto axis = hn::RebindMask(d, hn::Ne(hn::And(h, hn::Set(du, 0x80000000u)), hn::Zero(du)));
  const auto swap = hn::RebindMask(d, hn::Ne(hn::And(h, hn::Set(du, 0x40000000u)), hn::Zero(du)));
  // Axis gradients: sqrt(2) * (+-x or +-z); diagonal gradients: +-x +-z.
  const VF u = hn::IfThenElse(axis, hn::Mul(hn::IfThenElse(swap, z, x), hn::Set(d, 1.41421356f)), x);
  const VF v = hn::IfThenZeroElse(axis, z);
  return hn::Add(FlipSign(u, hn::ShiftLeft<2>(h)), FlipSign(v, hn::ShiftLeft<1>(h)));
}

// Dot of a hashed cube-edge gradient with (x, y, z). Bits 31..28 of h give the index 0..15 of
// Perlin's table (12 edges, 4 of them repeated).
HWY_INLINE VF GradDot3(VU h, VF x, VF y, VF z) {
  const DF d;
  const DU du;
  const VU g = hn::ShiftRight<28>(h);
  const auto lt8 = hn::RebindMask(d, hn::Lt(g, hn::Set(du, 8u)));
  const auto lt4 = hn::RebindMask(d, hn::Lt(g, hn::Set(du, 4u)));
  const auto is12or14 = hn::RebindMask(d, hn::Eq(hn::And(g, hn::Set(du, 13u)), hn::Set(du, 12u)));
  const VF u = hn::IfThenElse(lt8, x, y);
  const VF v = hn::IfThenElse(lt4, y, hn::IfThenElse(is12or14, x, z));
  return hn::Add(FlipSign(u, hn::ShiftLeft<31>(g)), FlipSign(v, hn::ShiftLeft<30>(g)));
}

struct PerlinBasis {
  static constexpr bool kSheared = false;

  static HWY_INLINE VF Eval2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&) {
    const DF d;
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
    const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
    const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
    const VU z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
    const VF one = hn::Set(d, 1.0f);
    const VF gx = hn::Sub(fx, one), gz = hn::Sub(fz, one);
    const VF n00 = GradDot2(Hash(s, x0, z0), fx, fz);
    const VF n10 = GradDot2(Hash(s, x1, z0), gx, fz);
    const VF n01 = GradDot2(Hash(s, x0, z1), fx, gz);
    const VF n11 = GradDot2(Hash(s, x1, z1), gx, gz);
    const VF u = Quintic(fx), v = Quintic(fz);
    return ClampUnit(Lerp(Lerp(n00, n10, u), Lerp(n01, n11, u), v));
  }

  // Two independent noises from the same lattice hashes: the second gradient uses hash bits
  // 28..26 instead of 31..29 (the domain warp's x and z displacement).
  static HWY_INLINE void Eval2Pair(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz,
                                   const BasisArgs&, VF& a, VF& b) {
    const DF d;
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
    const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
    const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
    const VU z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
    const VF one = hn::Set(d, 1.0f);
    const VF gx = hn::Sub(fx, one), gz = hn::Sub(fz, one);
    const VU h00 = Hash(s, x0, z0), h10 = Hash(s, x1, z0);
    const VU h01 = Hash(s, x0, z1), h11 = Hash(s, x1, z1);
    const VF u = Quintic(fx), v = Quintic(fz);
    a = ClampUnit(Lerp(Lerp(GradDot2(h00, fx, fz), GradDot2(h10, gx, fz), u),
                       Lerp(GradDot2(h01, fx, gz), GradDot2(h11, gx, gz), u), v));
    b = ClampUnit(Lerp(Lerp(GradDot2(hn::ShiftLeft<3>(h00), fx, fz),
                            GradDot2(hn::ShiftLeft<3>(h10), gx, fz), u),
                       Lerp(GradDot2(hn::ShiftLeft<3>(h01), fx, gz),
                            GradDot2(hn::ShiftLeft<3>(h11), gx, gz), u),
                       v));
  }

  static HWY_INLINE VF Eval3(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                             const BasisArgs&) {
    const DF d;
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
    const VU y0 = hn::Mul(cy, hn::Set(du, kPrimeY));
    const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
    const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
    const VU y1 = hn::Add(y0, hn::Set(du, kPrimeY));
    const VU z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
    const VF one = hn::Set(d, 1.0f);
    const VF gx = hn::Sub(fx, one), gy = hn::Sub(fy, one), gz = hn::Sub(fz, one);
    const VF u = Quintic(fx), v = Quintic(fy), w = Quintic(fz);
    const VF n000 = GradDot3(Hash(s, x0, y0, z0), fx, fy, fz);
    const VF n100 = GradDot3(Hash(s, x1, y0, z0), gx, fy, fz);
    const VF n010 = GradDot3(Hash(s, x0, y1, z0), fx, gy, fz);
    const VF n110 = GradDot3(Hash(s, x1, y1, z0), gx, gy, fz);
    const VF n001 = GradDot3(Hash(s, x0, y0, z1), fx, fy, gz);
    const VF n101 = GradDot3(Hash(s, x1, y0, z1), gx, fy, gz);
    const VF n011 = GradDot3(Hash(s, x0, y1, z1), fx, gy, gz);
    const VF n111 = GradDot3(Hash(s, x1, y1, z1), gx, gy, gz);
    const VF a = Lerp(Lerp(n000, n100, u), Lerp(n010, n110, u), v);
    const VF b = Lerp(Lerp(n001, n101, u), Lerp(n011, n111, u), v);
    return ClampUnit(hn::Mul(Lerp(a, b, w), hn::Set(d, 1.0f / 1.04f)));
  }
};

void PerlinRow2(const Row2& r) { Row2Kernel<PerlinBasis>(r); }
void PerlinRow3(const Row3& r) { Row3Kernel<PerlinBasis>(r); }

void PerlinRow2Pair(const Row2Pair& r) { Row2PairKernel<PerlinBasis>(r); }

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/simd_dispatch.hpp"

namespace terrane::noise_detail {
HWY_EXPORT(PerlinRow2);
HWY_EXPORT(PerlinRow3);
HWY_EXPORT(PerlinRow2Pair);
void perlin_row2_pair(const Row2Pair& r) { TERRANE_DISPATCH(PerlinRow2Pair)(r); }
void perlin_row2(const Row2& r) { TERRANE_DISPATCH(PerlinRow2)(r); }
void perlin_row3(const Row3& r) { TERRANE_DISPATCH(PerlinRow3)(r); }
}  // namespace terrane::noise_detail
#endif
