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
#include "noise/kernel_export.hpp"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {

// Dot of a hashed octagon gradient with (x, z). Bits 31..29 of h choose the gradient.
HWY_INLINE VF GradDot2(VU h, VF x, VF z) {
  const DF d;
  const DU du;
  const auto axis = hn::RebindMask(d, hn::Ne(hn::And(h, hn::Set(du, 0x80000000u)), hn::Zero(du)));
  const auto swap = hn::RebindMask(d, hn::Ne(hn::And(h, hn::Set(du, 0x40000000u)), hn::Zero(du)));
  // Axis gradients: sqrt(2) * (+-x or +-z); diagonal gradients: +-x +-z.
  const VF u =
      hn::IfThenElse(axis, hn::Mul(hn::IfThenElse(swap, z, x), hn::Set(d, 1.41421356f)), x);
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

// GradDot3's choice of axes (0 = x, 1 = y, 2 = z) for gradient index g: u = x below 8, else y;
// v = y below 4, x for 12 and 14, else z. Bits 0 and 1 of g flip u and v.
inline constexpr int Grad3AxisU(int g) {
  return g < 8 ? 0 : 1;
}
inline constexpr int Grad3AxisV(int g) {
  return g < 4 ? 1 : ((g & 13) == 12 ? 0 : 2);
}

// GradDot3 of the eight corners of a cell on the scalar target, by indexed loads where GradDot3
// takes three compares and three selects: GradDot3 is FlipSign(u, bit 0 of g) +
// FlipSign(v, bit 1 of g) (g = bits 31..28 of h), u and v two of the corner's offsets. The twelve
// signed offsets (+-f and +-(f - 1) on each axis) are formed once per sample, and a table gives,
// per corner and g, which two of them are u and v with their signs: -u is FlipSign(u) exactly, so
// the sum has GradDot3's bits.
struct PerlinGrad3Index {
  std::uint8_t u[8][16], v[8][16];
};
inline constexpr PerlinGrad3Index MakePerlinGrad3Index() {
  PerlinGrad3Index t{};
  for (int corner = 0; corner < 8; ++corner) {
    for (int g = 0; g < 16; ++g) {
      const int au = Grad3AxisU(g), av = Grad3AxisV(g);
      // Offset slot 2 * (2 * axis + side) + sign; side = the corner's bit on that axis.
      t.u[corner][g] = std::uint8_t(2 * (2 * au + ((corner >> au) & 1)) + (g & 1));
      t.v[corner][g] = std::uint8_t(2 * (2 * av + ((corner >> av) & 1)) + ((g >> 1) & 1));
    }
  }
  return t;
}
inline constexpr PerlinGrad3Index kPerlinGrad3Index = MakePerlinGrad3Index();

// The row path's gradient dot at 8 and 16 lanes and on the scalar target
// (PerlinBasis::Eval2Row), with the bits of GradDot2. With k = bits 31..29 of h, GradDot2 is
// FlipSign(u, bit 29) + FlipSign(v, bit 30):
//   k = 0..3 (diagonal):      (+-x) + (+-z)
//   k = 4, 5 (axis x):        (+-(x * sqrt2)) + (+0)
//   k = 6, 7 (axis z):        (+-(z * sqrt2)) + (-0), which is +-(z * sqrt2) exactly
// z is the same along a row, so its part is a per-row table p[k] (PerlinRowTable); the x part
// is a[k] * x ((-a) * x = -(a * x) exactly), or -0 for k = 6, 7 (adding -0 changes nothing, so
// the sum is p[k] there, as in GradDot2). Sums are commutative in IEEE arithmetic, so q + p
// has the bits of GradDot2's sum in every case, zeros' signs included. A shift, two permutes,
// a compare, a multiply, a select and an add, where GradDot2 takes eleven operations.
// Where the row's p[6] and p[7] are not zero (z is not 0: every row but the lattice's), the
// compare and the select go too (kAxisZNonzero): for k = 6, 7 the table's a[k] = 0 makes
// q = 0 * x, a zero of either sign, and a zero added to the nonzero p[k] gives p[k] exactly.
// On the scalar target the lookups are indexed loads: a shift, two loads, a multiply and an add.
alignas(64) inline constexpr float kPerlinRowA[16] = {1.0f,        -1.0f,        1.0f, -1.0f,
                                                      1.41421356f, -1.41421356f, 0.0f, 0.0f};
inline constexpr bool kPerlinRowTables = hn::MaxLanes(DF()) >= 8 || HWY_TARGET == HWY_SCALAR;

// The row's table p: in a vector of at least 8 lanes, or an array on the scalar target.
struct PerlinRowTable {
#if HWY_TARGET == HWY_SCALAR
  float p[8];
#else
  VF p;
#endif
  bool axis_z_nonzero;  // p[6] != 0 and p[7] != 0
};

HWY_INLINE PerlinRowTable MakePerlinRowTable(float z) {
  const DF d;
  // At least 8 entries: the table is compiled (not used) on 4-lane targets too.
  HWY_ALIGN float t[hn::MaxLanes(d) < 8 ? 8 : hn::MaxLanes(d)] = {};
  t[0] = z;
  t[1] = z;
  t[2] = -z;
  t[3] = -z;
  t[4] = 0.0f;
  t[5] = 0.0f;
  t[6] = z * 1.41421356f;
  t[7] = -(z * 1.41421356f);
  PerlinRowTable table;
#if HWY_TARGET == HWY_SCALAR
  std::memcpy(table.p, t, sizeof(table.p));
#else
  table.p = hn::Load(d, t);
#endif
  table.axis_z_nonzero = t[6] != 0.0f && t[7] != 0.0f;
  return table;
}

template <bool kAxisZNonzero>
HWY_INLINE VF GradDot2Row(VU h, VF x, const PerlinRowTable& table) {
#if HWY_TARGET == HWY_SCALAR
  const std::uint32_t k = h.raw >> 29;
  const float q = kAxisZNonzero || k < 6 ? kPerlinRowA[k] * x.raw : -0.0f;
  return VF(q + table.p[k]);
#else
  const DF d;
  const DI di;
  const VI k = hn::BitCast(di, hn::ShiftRight<29>(h));
  const auto idx = hn::IndicesFromVec(d, k);
  const VF a = hn::TableLookupLanes(hn::Load(d, kPerlinRowA), idx);
  const VF p = hn::TableLookupLanes(table.p, idx);
  if constexpr (kAxisZNonzero) {
    return hn::Add(hn::Mul(a, x), p);
  } else {
    const auto axis_z = hn::RebindMask(d, hn::Gt(k, hn::Set(di, 5)));
    const VF q = hn::IfThenElse(axis_z, hn::Set(d, -0.0f), hn::Mul(a, x));
    return hn::Add(q, p);
  }
#endif
}

// The 3D row path's gradient dot at 16 lanes (PerlinBasis::Eval3Row), with the bits of
// GradDot3. A corner's y and z offsets are the same along a row, and GradDot3 is
// FlipSign(u, bit 0 of g) + FlipSign(v, bit 1 of g) with g = bits 31..28 of h, so each of the 16
// gradients is a[g] * x + p[g]: where x is u or v, a[g] = +-1 and p[g] the other term (+-y or
// +-z), and the sum is GradDot3's (IEEE sums are commutative, and (+-1) * x = FlipSign(x) exactly);
// where neither is x (g = 8..11, 13, 15), a[g] = 0 and p[g] = +-y +-z, GradDot3's sum itself. A
// zero 0 * x, of either sign, added to p[g] gives p[g] exactly unless p[g] is -0 (+0 + -0 = +0).
// A sum is -0 only where both its terms are, so that is the lattice row y = z = 0 alone, which
// takes the general path (Row3State::exact).
// The product a[g] * x is exact, so MulAdd gives Mul-then-Add's bits on every target. A shift,
// two permutes and an FMA, where GradDot3 takes twelve operations; 16 gradients fill one
// 16-lane vector, so the lookups are single permutes.
//
// Per gradient g: a[g]; the sign bits of p[g]'s y and z terms; whether p[g] has both terms
// (a[g] = 0) or the z term alone (all ones where true).
struct PerlinGrad3Row {
  float a[16];
  std::uint32_t y_sign[16], z_sign[16], both[16], z_only[16];
};
inline constexpr PerlinGrad3Row MakePerlinGrad3Row() {
  PerlinGrad3Row t{};
  for (int g = 0; g < 16; ++g) {
    const int au = Grad3AxisU(g), av = Grad3AxisV(g);
    const std::uint32_t su = (g & 1) != 0 ? 0x80000000u : 0u;
    const std::uint32_t sv = (g & 2) != 0 ? 0x80000000u : 0u;
    if (au == 0) {  // x is u: p is v, y or z
      t.a[g] = su != 0 ? -1.0f : 1.0f;
      (av == 1 ? t.y_sign[g] : t.z_sign[g]) = sv;
      t.z_only[g] = av == 2 ? ~0u : 0u;
    } else if (av == 0) {  // x is v: p is u, y
      t.a[g] = sv != 0 ? -1.0f : 1.0f;
      t.y_sign[g] = su;
    } else {  // u = y, v = z
      t.a[g] = 0.0f;
      t.y_sign[g] = su;
      t.z_sign[g] = sv;
      t.both[g] = ~0u;
    }
  }
  return t;
}
alignas(64) inline constexpr PerlinGrad3Row kPerlinGrad3Row = MakePerlinGrad3Row();
inline constexpr bool kPerlinRow3Tables = hn::MaxLanes(DF()) == 16;

// The row's table p of a corner's y and z offsets (16 lanes); exact becomes false where an
// a = 0 entry is -0. Formed in vectors: written as 16 floats and loaded as one vector, the
// load waits for the stores (no store forwarding), which cost a third of the gain on W3's
// 128-sample rows.
HWY_INLINE VF MakePerlinRow3Table(float y, float z, bool& exact) {
  const DF d;
  const DU du;
  const VF ys = FlipSign(hn::Set(d, y), hn::Load(du, kPerlinGrad3Row.y_sign));
  const VF zs = FlipSign(hn::Set(d, z), hn::Load(du, kPerlinGrad3Row.z_sign));
  const auto both = hn::RebindMask(d, hn::Ne(hn::Load(du, kPerlinGrad3Row.both), hn::Zero(du)));
  const auto z_only = hn::RebindMask(d, hn::Ne(hn::Load(du, kPerlinGrad3Row.z_only), hn::Zero(du)));
  const VF p = hn::IfThenElse(both, hn::Add(ys, zs), hn::IfThenElse(z_only, zs, ys));
  const auto minus_zero = hn::RebindMask(d, hn::Eq(hn::BitCast(du, p), hn::Set(du, 0x80000000u)));
  exact = exact && hn::AllFalse(d, hn::And(both, minus_zero));
  return p;
}

HWY_INLINE VF GradDot3Row(VU h, VF x, VF table) {
  const DF d;
  const DI di;
  const auto idx = hn::IndicesFromVec(d, hn::BitCast(di, hn::ShiftRight<28>(h)));
  return hn::MulAdd(hn::TableLookupLanes(hn::Load(d, kPerlinGrad3Row.a), idx), x,
                    hn::TableLookupLanes(table, idx));
}

struct PerlinBasis {
  static constexpr bool kSheared = false;

  // The four corners of a 2D cell: hashes, offsets and fade weights.
  struct Cell2 {
    VU h00, h10, h01, h11;
    VF gx, gz, u, v;
  };
  static HWY_INLINE Cell2 Corners2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz) {
    const DF d;
    const CellHashes2 h = CellHashes<true>(seed, cx, cz);
    const VF one = hn::Set(d, 1.0f);
    return {h.h00,       h.h10,      h.h01, h.h11, hn::Sub(fx, one), hn::Sub(fz, one),
            Quintic(fx), Quintic(fz)};
  }
  // Interpolated gradient noise with the gradients chosen by hash bits (31 - kShift)..
  template <int kShift>
  static HWY_INLINE VF Interpolate2(const Cell2& c, VF fx, VF fz) {
    // GradDot2 and GradDot2Row read bits 31..29, GradDot3 bits 31..28: every hash of this basis
    // is formed for its high bits only (HashHighPremixed).
    static_assert(29 - kShift >= kHashHighBit);
    const VF n00 = GradDot2(hn::ShiftLeft<kShift>(c.h00), fx, fz);
    const VF n10 = GradDot2(hn::ShiftLeft<kShift>(c.h10), c.gx, fz);
    const VF n01 = GradDot2(hn::ShiftLeft<kShift>(c.h01), fx, c.gz);
    const VF n11 = GradDot2(hn::ShiftLeft<kShift>(c.h11), c.gx, c.gz);
    return ClampUnit(Lerp(Lerp(n00, n10, c.u), Lerp(n01, n11, c.u), c.v));
  }

  static HWY_INLINE VF Eval2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&) {
    return Interpolate2<0>(Corners2(seed, cx, fx, cz, fz), fx, fz);
  }

  // The row-invariant part of Corners2 (fractal-inl.h, RowPrepared2): the seed and z terms of
  // the four hashes (Hash xors seed, x and z terms: xor is associative, so seed ^ z can be
  // formed once), z's offset and fade.
  // At 8 and 16 lanes and on the scalar target also the z parts of the gradient dots, as
  // tables (GradDot2Row).
  struct Row2State {
    VU sz0, sz1;  // seed ^ cz * kPrimeZ, seed ^ (cz + 1) * kPrimeZ
    VF fz, gz, v;
    PerlinRowTable p0, p1;  // of fz and of fz - 1
  };
  static HWY_INLINE Row2State PrepareRow2(std::uint32_t seed, VU cz, VF fz, const BasisArgs&) {
    const DF d;
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
    const VU z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
    const VF gz = hn::Sub(fz, hn::Set(d, 1.0f));
    return {hn::Xor(s, z0),
            hn::Xor(s, z1),
            fz,
            gz,
            Quintic(fz),
            MakePerlinRowTable(hn::GetLane(fz)),
            MakePerlinRowTable(hn::GetLane(gz))};
  }
  static HWY_INLINE VF Eval2Row(const Row2State& st, VU cx, VF fx, const BasisArgs&) {
    const DF d;
    const DU du;
    const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
    const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
    const Cell2 c{HashHighPremixed(hn::Xor(x0, st.sz0)),
                  HashHighPremixed(hn::Xor(x1, st.sz0)),
                  HashHighPremixed(hn::Xor(x0, st.sz1)),
                  HashHighPremixed(hn::Xor(x1, st.sz1)),
                  hn::Sub(fx, hn::Set(d, 1.0f)),
                  st.gz,
                  Quintic(fx),
                  st.v};
    if constexpr (kPerlinRowTables) {
      if (st.p0.axis_z_nonzero && st.p1.axis_z_nonzero) {
        return Interpolate2Row<true>(c, fx, st);
      }
      return Interpolate2Row<false>(c, fx, st);
    } else {
      return Interpolate2<0>(c, fx, st.fz);
    }
  }

  template <bool kAxisZNonzero>
  static HWY_INLINE VF Interpolate2Row(const Cell2& c, VF fx, const Row2State& st) {
    const VF n00 = GradDot2Row<kAxisZNonzero>(c.h00, fx, st.p0);
    const VF n10 = GradDot2Row<kAxisZNonzero>(c.h10, c.gx, st.p0);
    const VF n01 = GradDot2Row<kAxisZNonzero>(c.h01, fx, st.p1);
    const VF n11 = GradDot2Row<kAxisZNonzero>(c.h11, c.gx, st.p1);
    return ClampUnit(Lerp(Lerp(n00, n10, c.u), Lerp(n01, n11, c.u), c.v));
  }

  // Two independent noises from the same lattice hashes: the second gradient uses hash bits
  // 28..26 instead of 31..29 (the domain warp's x and z displacement).
  static HWY_INLINE void Eval2Pair(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&,
                                   VF& a, VF& b) {
    const Cell2 c = Corners2(seed, cx, fx, cz, fz);
    a = Interpolate2<0>(c, fx, fz);
    b = Interpolate2<3>(c, fx, fz);
  }

  static HWY_INLINE VF Eval3(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                             const BasisArgs&) {
    const DF d;
    const CellHashes3 h = CellHashes<true>(seed, cx, cy, cz);
    const VF one = hn::Set(d, 1.0f);
    const VF gx = hn::Sub(fx, one), gy = hn::Sub(fy, one), gz = hn::Sub(fz, one);
    const VF u = Quintic(fx), v = Quintic(fy), w = Quintic(fz);
    return Interpolate3(h, fx, fy, fz, gx, gy, gz, u, v, w);
  }

  // 3D rows without warp (fractal-inl.h, RowPrepared3): y and z are the same along the row, so
  // the seed, y and z terms of the eight hashes (four distinct: seed ^ y ^ z, xor being
  // associative), the y and z offsets and their fades are formed once per row and octave.
  // At 4 lanes (SSE4: W3 1.5x faster) and at 16 lanes, where the y and z parts of the gradient
  // dots are tables too (GradDot3Row). At 8 lanes the ten row vectors spill (W3 15% slower than
  // broadcasting the row's scalars for every vector, as Eval3 does), and on the scalar target the
  // gain was not measurable.
  static constexpr bool kPrepareRows3 = hn::MaxLanes(DF()) == 4 || kPerlinRow3Tables;
  struct Row3State {
    VU s00, s10, s01, s11;  // seed ^ (cy + j) * kPrimeY ^ (cz + k) * kPrimeZ: s<j><k>
    VF fy, fz, gy, gz, v, w;
    // At 16 lanes, the tables of the corners' (y, z): p<j><k> of (fy or gy, fz or gz).
    VF p00, p10, p01, p11;
    bool exact;  // the tables give GradDot3's bits (MakePerlinRow3Table)
  };
  static HWY_INLINE Row3State PrepareRow3(std::uint32_t seed, VU cy, VF fy, VU cz, VF fz,
                                          const BasisArgs&) {
    const DF d;
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU y0 = hn::Mul(cy, hn::Set(du, kPrimeY)), z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
    const VU y1 = hn::Add(y0, hn::Set(du, kPrimeY)), z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
    const VF one = hn::Set(d, 1.0f);
    Row3State st{};
    st.s00 = hn::Xor(s, hn::Xor(y0, z0));
    st.s10 = hn::Xor(s, hn::Xor(y1, z0));
    st.s01 = hn::Xor(s, hn::Xor(y0, z1));
    st.s11 = hn::Xor(s, hn::Xor(y1, z1));
    st.fy = fy;
    st.fz = fz;
    st.gy = hn::Sub(fy, one);
    st.gz = hn::Sub(fz, one);
    st.v = Quintic(fy);
    st.w = Quintic(fz);
    st.exact = true;
    if constexpr (kPerlinRow3Tables) {
      const float y0f = hn::GetLane(st.fy), y1f = hn::GetLane(st.gy);
      const float z0f = hn::GetLane(st.fz), z1f = hn::GetLane(st.gz);
      st.p00 = MakePerlinRow3Table(y0f, z0f, st.exact);
      st.p10 = MakePerlinRow3Table(y1f, z0f, st.exact);
      st.p01 = MakePerlinRow3Table(y0f, z1f, st.exact);
      st.p11 = MakePerlinRow3Table(y1f, z1f, st.exact);
    }
    return st;
  }
  // Whether Eval3Row gives Eval3's bits on this row (else the row takes Eval3).
  static HWY_INLINE bool Row3Exact(const Row3State& st) { return st.exact; }
  static HWY_INLINE VF Eval3Row(const Row3State& st, VU cx, VF fx, const BasisArgs&) {
    const DF d;
    const DU du;
    const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
    const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
    // Hash(seed, x, y, z) == HashPremixed(x ^ (seed ^ y ^ z)), here its high bits.
    const CellHashes3 h{
        HashHighPremixed(hn::Xor(x0, st.s00)), HashHighPremixed(hn::Xor(x1, st.s00)),
        HashHighPremixed(hn::Xor(x0, st.s10)), HashHighPremixed(hn::Xor(x1, st.s10)),
        HashHighPremixed(hn::Xor(x0, st.s01)), HashHighPremixed(hn::Xor(x1, st.s01)),
        HashHighPremixed(hn::Xor(x0, st.s11)), HashHighPremixed(hn::Xor(x1, st.s11))};
    const VF gx = hn::Sub(fx, hn::Set(d, 1.0f));
    if constexpr (kPerlinRow3Tables) {
      return Blend3(GradDot3Row(h.h000, fx, st.p00), GradDot3Row(h.h100, gx, st.p00),
                    GradDot3Row(h.h010, fx, st.p10), GradDot3Row(h.h110, gx, st.p10),
                    GradDot3Row(h.h001, fx, st.p01), GradDot3Row(h.h101, gx, st.p01),
                    GradDot3Row(h.h011, fx, st.p11), GradDot3Row(h.h111, gx, st.p11), Quintic(fx),
                    st.v, st.w);
    } else {
      return Interpolate3(h, fx, st.fy, st.fz, gx, st.gy, st.gz, Quintic(fx), st.v, st.w);
    }
  }

  // Trilinear blend of the eight corners' gradient dots; (gx, gy, gz) = (fx, fy, fz) - 1 and
  // (u, v, w) their fades.
  static HWY_INLINE VF Interpolate3(const CellHashes3& h, VF fx, VF fy, VF fz, VF gx, VF gy, VF gz,
                                    VF u, VF v, VF w) {
#if HWY_TARGET == HWY_SCALAR
    // Slots 2 * (2 * axis + side) + sign (PerlinGrad3Index).
    const float o[12] = {fx.raw, -fx.raw, gx.raw, -gx.raw, fy.raw, -fy.raw,
                         gy.raw, -gy.raw, fz.raw, -fz.raw, gz.raw, -gz.raw};
    const auto dot = [&o](VU hc, int corner) {
      const std::uint32_t g = hc.raw >> 28;
      return VF(o[kPerlinGrad3Index.u[corner][g]] + o[kPerlinGrad3Index.v[corner][g]]);
    };
    const VF n000 = dot(h.h000, 0), n100 = dot(h.h100, 1), n010 = dot(h.h010, 2);
    const VF n110 = dot(h.h110, 3), n001 = dot(h.h001, 4), n101 = dot(h.h101, 5);
    const VF n011 = dot(h.h011, 6), n111 = dot(h.h111, 7);
#else
    const VF n000 = GradDot3(h.h000, fx, fy, fz);
    const VF n100 = GradDot3(h.h100, gx, fy, fz);
    const VF n010 = GradDot3(h.h010, fx, gy, fz);
    const VF n110 = GradDot3(h.h110, gx, gy, fz);
    const VF n001 = GradDot3(h.h001, fx, fy, gz);
    const VF n101 = GradDot3(h.h101, gx, fy, gz);
    const VF n011 = GradDot3(h.h011, fx, gy, gz);
    const VF n111 = GradDot3(h.h111, gx, gy, gz);
#endif
    return Blend3(n000, n100, n010, n110, n001, n101, n011, n111, u, v, w);
  }
  // The trilinear blend of the corners' dots n<x><y><z>, scaled and clamped.
  static HWY_INLINE VF Blend3(VF n000, VF n100, VF n010, VF n110, VF n001, VF n101, VF n011,
                              VF n111, VF u, VF v, VF w) {
    const DF d;
    const VF a = Lerp(Lerp(n000, n100, u), Lerp(n010, n110, u), v);
    const VF b = Lerp(Lerp(n001, n101, u), Lerp(n011, n111, u), v);
    return ClampUnit(hn::Mul(Lerp(a, b, w), hn::Set(d, 1.0f / 1.04f)));
  }
};

TERRANE_NOISE_ROW_KERNELS(Perlin, PerlinBasis)

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace terrane::noise_detail {
TERRANE_NOISE_EXPORT(Perlin, perlin)
}  // namespace terrane::noise_detail
#endif
