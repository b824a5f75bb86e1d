// Internal, per-SIMD-target: hashed unit gradients and the radial kernel shared by the
// OpenSimplex2 and OpenSimplex2S bases. Included once per Highway target, after
// noise/fractal-inl.h.
//
// Gradients are unit vectors chosen by the 5 high bits of a lattice hash: bits 31..28 index a
// 16-entry table of directions, bit 27 flips the sign, so every direction and its opposite are
// equally likely. Nothing below bit 27 is read, so callers form only the hash's high bits
// (HashHighPremixed, fractal-inl.h).
// - 2D: the 32 directions at angles (k + 1/2) * 11.25 degrees: no direction lies on an axis or
//   a diagonal, and the set is invariant under the symmetries of the square lattice.
// - 3D: the 12 vertices of an icosahedron and the 20 vertices of the dual dodecahedron, all
//   normalised (16 antipodal pairs). Any set with icosahedral symmetry has isotropic second and
//   fourth moments (the first non-trivial icosahedral invariant has degree 6), so no axis or
//   lattice plane is preferred, unlike the 12 cube edges.
//
// Bit-exactness: table lookups are exact, and the dot products and kernels use only IEEE
// add/sub/mul/max in a fixed order.

#if defined(TERRANE_NOISE_SIMPLEX_GRAD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TERRANE_NOISE_SIMPLEX_GRAD_INL_H_
#undef TERRANE_NOISE_SIMPLEX_GRAD_INL_H_
#else
#define TERRANE_NOISE_SIMPLEX_GRAD_INL_H_
#endif

#include <hwy/highway.h>

#include "noise/fractal-inl.h"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {

// cos and sin of (k + 1/2) * pi / 16, k = 0..15 (the upper half circle).
alignas(64) inline constexpr float kSimplexGrad2X[16] = {
    0.995184727f,  0.956940336f,  0.881921264f,   0.773010453f,  0.634393284f,  0.471396737f,
    0.290284677f,  0.0980171403f, -0.0980171403f, -0.290284677f, -0.471396737f, -0.634393284f,
    -0.773010453f, -0.881921264f, -0.956940336f,  -0.995184727f};
alignas(64) inline constexpr float kSimplexGrad2Z[16] = {
    0.0980171403f, 0.290284677f, 0.471396737f, 0.634393284f, 0.773010453f, 0.881921264f,
    0.956940336f,  0.995184727f, 0.995184727f, 0.956940336f, 0.881921264f, 0.773010453f,
    0.634393284f,  0.471396737f, 0.290284677f, 0.0980171403f};

// One of each antipodal pair: icosahedron (0, 1, +-p), (1, p, 0), (-1, p, 0), (p, 0, +-1) and
// dodecahedron (1, 1, 1), (1, 1, -1), (1, -1, 1), (-1, 1, 1), (0, 1/p, +-p), (+-1/p, p, 0),
// (p, 0, +-1/p), p = golden ratio, each divided by its length.
alignas(64) inline constexpr float kSimplexGrad3X[16] = {
    0.0f,         0.0f,         0.525731112f, -0.525731112f, 0.850650808f, 0.850650808f,
    0.577350269f, 0.577350269f, 0.577350269f, -0.577350269f, 0.0f,         0.0f,
    0.35682209f,  -0.35682209f, 0.934172359f, 0.934172359f};
alignas(64) inline constexpr float kSimplexGrad3Y[16] = {
    0.525731112f, 0.525731112f, 0.850650808f,  0.850650808f, 0.0f,        0.0f,
    0.577350269f, 0.577350269f, -0.577350269f, 0.577350269f, 0.35682209f, 0.35682209f,
    0.934172359f, 0.934172359f, 0.0f,          0.0f};
alignas(64) inline constexpr float kSimplexGrad3Z[16] = {
    0.850650808f, -0.850650808f, 0.0f,         0.0f,         0.525731112f, -0.525731112f,
    0.577350269f, -0.577350269f, 0.577350269f, 0.577350269f, 0.934172359f, -0.934172359f,
    0.0f,         0.0f,          0.35682209f,  -0.35682209f};

// table[idx] per lane, idx in 0..15: one permute on 16-lane targets, two permutes and a select
// on 8-lane targets, a (possibly emulated) gather elsewhere. All exact.
HWY_INLINE VF Lookup16(const float* HWY_RESTRICT table, VU idx) {
  const DF d;
  const DI di;
  if constexpr (hn::MaxLanes(d) >= 16) {
    return hn::TableLookupLanes(hn::LoadU(d, table), hn::IndicesFromVec(d, hn::BitCast(di, idx)));
  } else if constexpr (hn::MaxLanes(d) == 8) {
    const DU du;
    const VI lo_idx = hn::BitCast(di, hn::And(idx, hn::Set(du, 7u)));
    const VF lo = hn::TableLookupLanes(hn::LoadU(d, table), hn::IndicesFromVec(d, lo_idx));
    const VF hi = hn::TableLookupLanes(hn::LoadU(d, table + 8), hn::IndicesFromVec(d, lo_idx));
    return hn::IfThenElse(hn::RebindMask(d, hn::TestBit(idx, hn::Set(du, 8u))), hi, lo);
  } else {
    return hn::GatherIndex(d, table, hn::BitCast(di, idx));
  }
}

// The first quarter of those: direction k (k = 0..7) is (kSimplexCos8[k], kSimplexSin8[k]), and
// direction 15 - k is (-kSimplexCos8[k], kSimplexSin8[k]); the same floats as the 16-entry
// tables.
alignas(32) inline constexpr float kSimplexCos8[8] = {0.995184727f, 0.956940336f, 0.881921264f,
                                                      0.773010453f, 0.634393284f, 0.471396737f,
                                                      0.290284677f, 0.0980171403f};
alignas(32) inline constexpr float kSimplexSin8[8] = {0.0980171403f, 0.290284677f, 0.471396737f,
                                                      0.634393284f,  0.773010453f, 0.881921264f,
                                                      0.956940336f,  0.995184727f};

// table[idx] per lane, idx in 0..7, on 8-lane targets: one permute. Exact.
HWY_INLINE VF Lookup8(const float* HWY_RESTRICT table, VU idx) {
  const DF d;
  const DI di;
  return hn::TableLookupLanes(hn::LoadU(d, table), hn::IndicesFromVec(d, hn::BitCast(di, idx)));
}

// The 4-lane lookup of GradDot2's first-quarter direction, by byte shuffles from k = h >> 28:
// k's byte is spread over its lane (the constant shuffle `spread`), and two 16-entry byte tables
// give, per k, the byte offset 4 * (m & 3) of m = (k ^ (k >= 8 ? 15 : 0)) & 7 within a 4-float
// half table (`offset`, to which `lane_bytes`, the constant 0..3 of each byte within its lane,
// is or-ed), and whether m is in the upper half (`upper`, all ones). Five operations where
// building the lane indices and testing the half took ten. Exact.
struct Grad2ByteLuts {
  std::uint8_t offset[16], upper[16], spread[16], lane_bytes[16];
};
inline constexpr Grad2ByteLuts MakeGrad2ByteLuts() {
  Grad2ByteLuts t{};
  for (int k = 0; k < 16; ++k) {
    const int m = (k ^ (k >= 8 ? 15 : 0)) & 7;
    t.offset[k] = std::uint8_t(4 * (m & 3));
    t.upper[k] = m >= 4 ? 0xFF : 0x00;
    t.spread[k] = std::uint8_t(k & ~3);  // byte 0 of the lane
    t.lane_bytes[k] = std::uint8_t(k & 3);
  }
  return t;
}
alignas(16) inline constexpr Grad2ByteLuts kGrad2ByteLuts = MakeGrad2ByteLuts();

// gx and gz of GradDot2 on 4-lane targets (a template, so that no other target compiles it).
template <class D>
HWY_INLINE void Grad2ByteLookup(D d, VU h, VF& gx, VF& gz) {
  const hn::Repartition<std::uint8_t, D> d8;
  const auto half = [&d8](const float* t) {
    return hn::LoadU(d8, reinterpret_cast<const std::uint8_t*>(t));
  };
  const auto k = hn::TableLookupBytes(hn::BitCast(d8, hn::ShiftRight<28>(h)),
                                      hn::Load(d8, kGrad2ByteLuts.spread));
  const auto idx = hn::Or(hn::TableLookupBytes(hn::Load(d8, kGrad2ByteLuts.offset), k),
                          hn::Load(d8, kGrad2ByteLuts.lane_bytes));
  const auto upper =
      hn::MaskFromVec(hn::BitCast(d, hn::TableLookupBytes(hn::Load(d8, kGrad2ByteLuts.upper), k)));
  const auto lookup = [&](const float* t) {
    return hn::IfThenElse(upper, hn::BitCast(d, hn::TableLookupBytes(half(t + 4), idx)),
                          hn::BitCast(d, hn::TableLookupBytes(half(t), idx)));
  };
  gx = FlipSign(lookup(kSimplexCos8), h);
  gz = lookup(kSimplexSin8);
}

// Dot of the hashed 2D unit gradient with (x, z).
HWY_INLINE VF GradDot2(VU h, VF x, VF z) {
  const DF d;
  VF gx, gz;
  if constexpr (hn::MaxLanes(d) == 4) {
    Grad2ByteLookup(d, h, gx, gz);  // the same directions, by byte shuffles
  } else if constexpr (hn::MaxLanes(d) == 8) {
    // k = h >> 28; k >= 8 (bit 31 of h) is the mirror of 15 - k = (k & 7) ^ 7 with x negated:
    // one permute of an 8-entry table each, where a 16-entry one takes two and a blend.
    const DU du;
    const DI di;
    const VU mirror = hn::BitCast(du, hn::ShiftRight<31>(hn::BitCast(di, h)));
    const VU m = hn::And(hn::Xor(hn::ShiftRight<28>(h), mirror), hn::Set(du, 7u));
    gx = FlipSign(Lookup8(kSimplexCos8, m), h);
    gz = Lookup8(kSimplexSin8, m);
  } else {
    const VU idx = hn::ShiftRight<28>(h);
    gx = Lookup16(kSimplexGrad2X, idx);
    gz = Lookup16(kSimplexGrad2Z, idx);
  }
  const VF dot = hn::Add(hn::Mul(gx, x), hn::Mul(gz, z));
  return FlipSign(dot, hn::ShiftLeft<4>(h));
}

// GradDot2 with the sign inside the gradient: (-g) . d where GradDot2 forms -(g . d), on the
// targets where a 32-entry table costs no more than a 16-entry one (16 lanes: one two-table
// permute; scalar: a load). Entry i of the tables is direction i >> 1, negated where i is odd;
// i is bits 31..27 of h, GradDot2's direction and sign. Rounding is symmetric, so the two agree
// except on an exact zero: -(p + q) = -0 where p = -q, while (-p) + (-q) = +0. A caller that
// uses it must redo with GradDot2 any result that comes out zero (OpenSimplex2Basis::Sum2).
inline constexpr bool kSignedGrad2 =
#if HWY_TARGET == HWY_SCALAR || (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3)
    true;
#else
    false;
#endif

struct SignedGrad2Tables {
  float x[32], z[32];
};
inline constexpr SignedGrad2Tables MakeSignedGrad2Tables() {
  SignedGrad2Tables t{};
  for (int i = 0; i < 32; ++i) {
    const float gx = kSimplexGrad2X[i >> 1], gz = kSimplexGrad2Z[i >> 1];
    t.x[i] = (i & 1) != 0 ? -gx : gx;
    t.z[i] = (i & 1) != 0 ? -gz : gz;
  }
  return t;
}
alignas(64) inline constexpr SignedGrad2Tables kSignedGrad2Tables = MakeSignedGrad2Tables();

HWY_INLINE VF GradDot2Signed(VU h, VF x, VF z) {
#if HWY_TARGET == HWY_SCALAR
  const std::uint32_t i = h.raw >> 27;
  return VF(kSignedGrad2Tables.x[i] * x.raw + kSignedGrad2Tables.z[i] * z.raw);
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  const __m512i i = hn::ShiftRight<27>(h).raw;
  const __m512 gx = _mm512_permutex2var_ps(_mm512_load_ps(kSignedGrad2Tables.x), i,
                                           _mm512_load_ps(kSignedGrad2Tables.x + 16));
  const __m512 gz = _mm512_permutex2var_ps(_mm512_load_ps(kSignedGrad2Tables.z), i,
                                           _mm512_load_ps(kSignedGrad2Tables.z + 16));
  return hn::Add(hn::Mul(VF{gx}, x), hn::Mul(VF{gz}, z));
#else
  return GradDot2(h, x, z);  // not used: kSignedGrad2 is false here
#endif
}

// Dot of the hashed 3D unit gradient with (x, y, z).
HWY_INLINE VF GradDot3(VU h, VF x, VF y, VF z) {
  const VU idx = hn::ShiftRight<28>(h);
  const VF dot = hn::Add(
      hn::Add(hn::Mul(Lookup16(kSimplexGrad3X, idx), x), hn::Mul(Lookup16(kSimplexGrad3Y, idx), y)),
      hn::Mul(Lookup16(kSimplexGrad3Z, idx), z));
  return FlipSign(dot, hn::ShiftLeft<4>(h));
}

// Radial kernel weight max(a, 0)^4 for a = r^2 - |d|^2 already computed.
HWY_INLINE VF Falloff4(VF a) {
  const DF d;
  const VF p = MaxF(a, hn::Zero(d));
  const VF p2 = hn::Mul(p, p);
  return hn::Mul(p2, p2);
}

// r^2 - x^2 - z^2 and r^2 - x^2 - y^2 - z^2, in a fixed order.
HWY_INLINE VF Attenuation2(float r2, VF x, VF z) {
  const DF d;
  return hn::Sub(hn::Sub(hn::Set(d, r2), hn::Mul(x, x)), hn::Mul(z, z));
}
HWY_INLINE VF Attenuation3(float r2, VF x, VF y, VF z) {
  const DF d;
  return hn::Sub(hn::Sub(hn::Sub(hn::Set(d, r2), hn::Mul(x, x)), hn::Mul(y, y)), hn::Mul(z, z));
}

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
