// OpenSimplex2 ("fast") gradient noise, 2D and 3D.
// After K. Spencer (KdotJPG), OpenSimplex2, https://github.com/KdotJPG/OpenSimplex2 (2D: simplex
// noise on the skewed triangular lattice; 3D: a rotated body-centred-cubic lattice built as two
// interleaved cubic lattices, evaluating the two nearest points of each), and its adaptation as
// SingleOpenSimplex2 in J. Peck's FastNoiseLite. Written from the published descriptions.
//
// Lattice (host side, sampler.cpp): 2D gets floor and fraction of the skewed coordinate
// xs = x + F2 (x + z), F2 = (sqrt3 - 1)/2; 3D gets the rotated coordinate M p, M = (2/3) ones - I
// (orthogonal, so 3D lattice distances are world distances times the frequency).
//
// 2D: the skewed cell splits into the triangles (0,0)-(1,0)-(1,1) and (0,0)-(0,1)-(1,1); the
// sample gets a contribution max(1/2 - r^2, 0)^4 (g . d) from each vertex of its triangle, d being
// the unskewed offset (unskew with G2 = (3 - sqrt3)/6). r^2 = 1/2 is exactly the squared height
// of the triangle, so no other lattice point ever reaches a sample: the noise is continuous.
// The choice of the middle vertex is a select, not a branch.
//
// 3D: lattice A is Z^3 (seed), lattice B is Z^3 + (1/2, 1/2, 1/2) (seed ^ kSeedB). From each, the
// nearest point and the next one along the axis of largest offset contribute
// max(1/2 - r^2, 0)^4 (g . d). Deviation from the reference, which uses r^2 = 0.6: with 0.6 the
// third-nearest point of a cubic lattice can lie inside the kernel (e.g. 4 points at r^2 = 1/2
// around a cube edge), so skipping it leaves small jumps; with r^2 = 1/2 every point beyond the
// second is at r^2 >= 1/2 and the noise is continuous (checked by exhaustive enumeration).
//
// Normalisation: with unit gradients |noise| <= S = sup_p sum_i max(r^2 - |d_i|^2, 0)^4 |d_i|
// (every gradient aligned with its offset). S was found by sampling 3 * 10^6 positions of a
// lattice period, enumerating every lattice point in reach, and refining the best position by
// local search: 2D S = 0.0100802047 (scale 99.2043346), 3D S = 0.00928906293 (scale
// 107.653485). The output is noise / S, clamped to [-1, 1] against rounding.
//
// Lipschitz bound (used by the tests): a term's gradient a^4 g - 8 a^3 (g . d) d has norm at most
// max(a^4, |a^4 - 8 a^3 |d|^2|); the sup of the sum of these, divided by S, is 9.57 (2D) and 7.81
// (3D) per lattice unit, i.e. |v(p) - v(q)| <= L * frequency * |p - q|.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "noise/opensimplex2.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "noise/fractal-inl.h"
#include "noise/kernel_export.hpp"
#include "noise/simplex_grad-inl.h"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {

struct OpenSimplex2Basis {
  static constexpr bool kSheared = true;

  static constexpr double kG2 = 0.21132486540518711775;  // (3 - sqrt3) / 6
  static constexpr float kR2 = 0.5f;
  static constexpr float kScale2 = 99.2043346f;
  static constexpr float kScale3 = 107.653485f;
  static constexpr std::uint32_t kSeedB = 0x6A09E667u;  // lattice B's seed: seed ^ kSeedB

  // The three vertices of the 2D simplex containing the point: unskewed offsets, kernel
  // weights max(r^2 - |d|^2, 0)^4 and lattice hashes. (Named members, not arrays: GCC keeps
  // them in registers across the fractal loop.)
  struct Simplex2 {
    VF x0, z0, w0, x1, z1, w1, x2, z2, w2;
    VU h0, h1, h2;
  };
  // The geometry alone: offsets and weights, and whether the middle vertex is (0, 1) (above the
  // diagonal, fz > fx) or (1, 0).
  struct Offsets2 {
    VF x0, z0, w0, x1, z1, w1, x2, z2, w2;
    hn::Mask<DU> upper;
  };
  static HWY_INLINE Offsets2 Geometry2(VF fx, VF fz) {
    const DF d;
    const DU du;
    const VF t = hn::Mul(hn::Add(fx, fz), hn::Set(d, float(kG2)));
    // Vertex (0, 0).
    const VF x0 = hn::Sub(fx, t), z0 = hn::Sub(fz, t);
    // Vertex (1, 1): unskewed offset (1 - 2 G2, 1 - 2 G2).
    const VF c11 = hn::Set(d, float(1.0 - 2.0 * kG2));
    const VF x1 = hn::Sub(x0, c11), z1 = hn::Sub(z0, c11);
    // Vertex (0, 1) above the diagonal (fz > fx), else (1, 0); unskewed (-G2, 1 - G2) or
    // (1 - G2, -G2).
    const auto upper = hn::Gt(fz, fx);
    const VF lo = hn::Set(d, float(-kG2)), hi = hn::Set(d, float(1.0 - kG2));
    const VF x2 = hn::Sub(x0, hn::IfThenElse(upper, lo, hi));
    const VF z2 = hn::Sub(z0, hn::IfThenElse(upper, hi, lo));
    return {x0,
            z0,
            Falloff4(Attenuation2(kR2, x0, z0)),
            x1,
            z1,
            Falloff4(Attenuation2(kR2, x1, z1)),
            x2,
            z2,
            Falloff4(Attenuation2(kR2, x2, z2)),
            hn::RebindMask(du, upper)};
  }
  static HWY_INLINE Simplex2 Vertices2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz) {
    const DU du;
    const Offsets2 g = Geometry2(fx, fz);
    const VU s = hn::Set(du, seed);
    const VU xp = hn::Mul(cx, hn::Set(du, kPrimeX));
    const VU zp = hn::Mul(cz, hn::Set(du, kPrimeZ));
    // Hashes of (0, 0), (1, 1) and the middle vertex, (0, 1) or (1, 0): the seed is xor-ed into
    // the x terms once, and the middle vertex picks its terms from the other two's (xor is
    // associative, so these are Hash(s, x, z) of the same points). Only their high bits: the
    // gradients read no other (Sum2).
    const VU xp1 = hn::Add(xp, hn::Set(du, kPrimeX)), zp1 = hn::Add(zp, hn::Set(du, kPrimeZ));
    const VU sx0 = hn::Xor(s, xp), sx1 = hn::Xor(s, xp1);
    return {g.x0,
            g.z0,
            g.w0,
            g.x1,
            g.z1,
            g.w1,
            g.x2,
            g.z2,
            g.w2,
            HashHighPremixed(hn::Xor(sx0, zp)),
            HashHighPremixed(hn::Xor(sx1, zp1)),
            HashHighPremixed(
                hn::Xor(hn::IfThenElse(g.upper, sx0, sx1), hn::IfThenElse(g.upper, zp1, zp)))};
  }

  // A cell's gradients for the vectors of a row that lie wholly in it (MemoKey): per hash shift
  // (0: Eval2; 5: the pair's second noise) and corner (0, 0), (1, 0), (0, 1), (1, 1), GradDot2's
  // gradient with its sign inside, as GradDot2Signed has it, broadcast. On one lane the gradient
  // is an indexed load anyway, and the memo saves nothing; elsewhere a fill (four scalar hashes)
  // costs less than the three vector hashes and gradient lookups of one vector, so the first
  // vector in a cell fills.
  static constexpr bool kCellMemo2 = hn::MaxLanes(DF()) == 4;
  struct Memo2 {
    MemoKey<2, true> key;
    VF gx[2][4], gz[2][4];
  };
  template <int kShifts>
  static HWY_NOINLINE void FillMemo2(Memo2& m, std::uint32_t seed) {
    const DF d;
    const std::uint32_t xp = m.key.cell[0] * kPrimeX, zp = m.key.cell[1] * kPrimeZ;
    for (int c = 0; c < 4; ++c) {
      const std::uint32_t h =
          (seed ^ (xp + std::uint32_t(c & 1) * kPrimeX) ^ (zp + std::uint32_t(c >> 1) * kPrimeZ)) *
          kHashMul;
      for (int s = 0; s < kShifts; ++s) {
        const std::uint32_t i = (h << (5 * s)) >> 27;  // GradDot2Signed's index
        m.gx[s][c] = hn::Set(d, kSignedGrad2Tables.x[i]);
        m.gz[s][c] = hn::Set(d, kSignedGrad2Tables.z[i]);
      }
    }
  }
  // Terms2 with the memo's signed gradients. They change at most the sign of a zero term, so
  // the sum is Sum2's unless it is zero in some lane: then false, and the caller evaluates the
  // vector without the memo.
  static HWY_INLINE bool Sum2Memo(const Offsets2& g, const Memo2& m, int s, VF& out) {
    const DF d;
    const auto upper = hn::RebindMask(d, g.upper);
    const VF gx2 = hn::IfThenElse(upper, m.gx[s][2], m.gx[s][1]);
    const VF gz2 = hn::IfThenElse(upper, m.gz[s][2], m.gz[s][1]);
    VF v = hn::Mul(g.w0, hn::Add(hn::Mul(m.gx[s][0], g.x0), hn::Mul(m.gz[s][0], g.z0)));
    v = hn::Add(v, hn::Mul(g.w1, hn::Add(hn::Mul(m.gx[s][3], g.x1), hn::Mul(m.gz[s][3], g.z1))));
    v = hn::Add(v, hn::Mul(g.w2, hn::Add(hn::Mul(gx2, g.x2), hn::Mul(gz2, g.z2))));
    out = ClampUnit(hn::Mul(v, hn::Set(d, kScale2)));
    return hn::AllFalse(d, hn::Eq(v, hn::Zero(d)));
  }
  // Whether the vector can use the memo (filling it first where needed).
  template <int kShifts>
  static HWY_INLINE bool UseMemo2(Memo2& m, std::uint32_t seed, VU cx, VU cz) {
    const VU cells[2] = {cx, cz};
    switch (m.key.Probe(cells)) {
      case MemoProbe::fill:
        FillMemo2<kShifts>(m, seed);
        return true;
      case MemoProbe::hit:
        return true;
      default:
        return false;
    }
  }

  // Sum of the vertex contributions with gradients chosen by hash bits (31 - kShift)..
  template <int kShift>
  static HWY_INLINE VF Sum2(const Simplex2& sx) {
    // GradDot2 reads bits 31..27: the hashes' high bits are all Vertices2 forms.
    static_assert(27 - kShift >= kHashHighBit);
    const DF d;
    if constexpr (kSignedGrad2) {
      // The signed gradients change at most the sign of a zero term, so the sum is the same
      // unless it is zero (a sample on a lattice point, or an exact cancellation): redone there.
      VF v = Terms2<kShift, GradDot2Signed>(sx);
      if (HWY_UNLIKELY(!hn::AllFalse(d, hn::Eq(v, hn::Zero(d))))) {
        v = Terms2<kShift, GradDot2>(sx);
      }
      return ClampUnit(hn::Mul(v, hn::Set(d, kScale2)));
    } else {
      return ClampUnit(hn::Mul(Terms2<kShift, GradDot2>(sx), hn::Set(d, kScale2)));
    }
  }
  template <int kShift, VF (*kGradDot)(VU, VF, VF)>
  static HWY_INLINE VF Terms2(const Simplex2& sx) {
    VF v = hn::Mul(sx.w0, kGradDot(hn::ShiftLeft<kShift>(sx.h0), sx.x0, sx.z0));
    v = hn::Add(v, hn::Mul(sx.w1, kGradDot(hn::ShiftLeft<kShift>(sx.h1), sx.x1, sx.z1)));
    return hn::Add(v, hn::Mul(sx.w2, kGradDot(hn::ShiftLeft<kShift>(sx.h2), sx.x2, sx.z2)));
  }

  static HWY_INLINE VF Eval2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&) {
    return Sum2<0>(Vertices2(seed, cx, fx, cz, fz));
  }
  static HWY_INLINE VF Eval2Memo(Memo2& m, std::uint32_t seed, VU cx, VF fx, VU cz, VF fz,
                                 const BasisArgs& b) {
    VF v;
    if (UseMemo2<1>(m, seed, cx, cz) && Sum2Memo(Geometry2(fx, fz), m, 0, v)) return v;
    return Eval2(seed, cx, fx, cz, fz, b);
  }

  // Two independent noises from the same lattice evaluation (the domain warp's x and z
  // displacement): shared kernel weights, the second gradient from hash bits 26..22.
  static HWY_INLINE void Eval2Pair(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&,
                                   VF& a, VF& b) {
    const Simplex2 sx = Vertices2(seed, cx, fx, cz, fz);
    a = Sum2<0>(sx);
    b = Sum2<5>(sx);
  }
  static HWY_INLINE void Eval2PairMemo(Memo2& m, std::uint32_t seed, VU cx, VF fx, VU cz, VF fz,
                                       const BasisArgs& args, VF& a, VF& b) {
    if (UseMemo2<2>(m, seed, cx, cz)) {
      const Offsets2 g = Geometry2(fx, fz);
      if (Sum2Memo(g, m, 0, a) && Sum2Memo(g, m, 1, b)) return;
    }
    Eval2Pair(seed, cx, fx, cz, fz, args, a, b);
  }

  static HWY_INLINE VF Eval3(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                             const BasisArgs&) {
    const DF d;
    const DU du;
    const VF one = hn::Set(d, 1.0f), half = hn::Set(d, 0.5f);
    const VU px = hn::Set(du, kPrimeX), py = hn::Set(du, kPrimeY), pz = hn::Set(du, kPrimeZ);
    const VU xp = hn::Mul(cx, px), yp = hn::Mul(cy, py), zp = hn::Mul(cz, pz);

    // Per axis, with hi = (f >= 1/2) and s = hi ? +1 : -1:
    //   nearest A point: index cell + hi,  offset a = f - hi;
    //   next A point:    index cell + !hi, offset a + s;
    //   nearest B point: index cell,       offset b = f - 1/2 (B is offset by half a cell);
    //   next B point:    index cell + s,   offset b - s.
    const auto hx = hn::Ge(fx, half), hy = hn::Ge(fy, half), hz = hn::Ge(fz, half);
    const auto hxu = hn::RebindMask(du, hx), hyu = hn::RebindMask(du, hy);
    const auto hzu = hn::RebindMask(du, hz);
    const VF ax = hn::Sub(fx, hn::IfThenElseZero(hx, one));
    const VF ay = hn::Sub(fy, hn::IfThenElseZero(hy, one));
    const VF az = hn::Sub(fz, hn::IfThenElseZero(hz, one));
    const VF bx = hn::Sub(fx, half), by = hn::Sub(fy, half), bz = hn::Sub(fz, half);
    const VF neg_one = hn::Set(d, -1.0f);
    const VF sx = hn::IfThenElse(hx, one, neg_one), sy = hn::IfThenElse(hy, one, neg_one);
    const VF sz = hn::IfThenElse(hz, one, neg_one);
    const VU xpa = hn::Add(xp, hn::IfThenElseZero(hxu, px));
    const VU ypa = hn::Add(yp, hn::IfThenElseZero(hyu, py));
    const VU zpa = hn::Add(zp, hn::IfThenElseZero(hzu, pz));

    // Lattice A, nearest point. GradDot3 reads bits 31..27 of a hash: the high bits only.
    const VU sa = hn::Set(du, seed);
    VF v = hn::Mul(Falloff4(Attenuation3(kR2, ax, ay, az)),
                   GradDot3(Hash<true>(sa, xpa, ypa, zpa), ax, ay, az));

    // Lattice A, next point along the axis of largest |a| (ties: x, then y). Only that one can
    // be inside the kernel.
    {
      const VF ux = hn::Abs(ax), uy = hn::Abs(ay), uz = hn::Abs(az);
      const auto mx = hn::And(hn::Ge(ux, uy), hn::Ge(ux, uz));
      const auto my = hn::AndNot(mx, hn::Ge(uy, uz));
      const auto mz = hn::Not(hn::Or(mx, my));
      const VF x = hn::IfThenElse(mx, hn::Add(ax, sx), ax);
      const VF y = hn::IfThenElse(my, hn::Add(ay, sy), ay);
      const VF z = hn::IfThenElse(mz, hn::Add(az, sz), az);
      // Flipping axis k moves the index from cell + hi to cell + !hi.
      const VU xq =
          hn::IfThenElse(hn::RebindMask(du, mx), hn::Add(xp, hn::IfThenZeroElse(hxu, px)), xpa);
      const VU yq =
          hn::IfThenElse(hn::RebindMask(du, my), hn::Add(yp, hn::IfThenZeroElse(hyu, py)), ypa);
      const VU zq =
          hn::IfThenElse(hn::RebindMask(du, mz), hn::Add(zp, hn::IfThenZeroElse(hzu, pz)), zpa);
      v = hn::Add(v, hn::Mul(Falloff4(Attenuation3(kR2, x, y, z)),
                             GradDot3(Hash<true>(sa, xq, yq, zq), x, y, z)));
    }

    // Lattice B, nearest point (index = cell).
    const VU sb = hn::Set(du, seed ^ kSeedB);
    v = hn::Add(v, hn::Mul(Falloff4(Attenuation3(kR2, bx, by, bz)),
                           GradDot3(Hash<true>(sb, xp, yp, zp), bx, by, bz)));

    // Lattice B, next point along the axis of largest |b|: index cell + 1 where hi, else cell - 1.
    {
      const VF ux = hn::Abs(bx), uy = hn::Abs(by), uz = hn::Abs(bz);
      const auto mx = hn::And(hn::Ge(ux, uy), hn::Ge(ux, uz));
      const auto my = hn::AndNot(mx, hn::Ge(uy, uz));
      const auto mz = hn::Not(hn::Or(mx, my));
      const VF x = hn::IfThenElse(mx, hn::Sub(bx, sx), bx);
      const VF y = hn::IfThenElse(my, hn::Sub(by, sy), by);
      const VF z = hn::IfThenElse(mz, hn::Sub(bz, sz), bz);
      const VU xq = hn::IfThenElse(hn::RebindMask(du, mx),
                                   hn::IfThenElse(hxu, hn::Add(xp, px), hn::Sub(xp, px)), xp);
      const VU yq = hn::IfThenElse(hn::RebindMask(du, my),
                                   hn::IfThenElse(hyu, hn::Add(yp, py), hn::Sub(yp, py)), yp);
      const VU zq = hn::IfThenElse(hn::RebindMask(du, mz),
                                   hn::IfThenElse(hzu, hn::Add(zp, pz), hn::Sub(zp, pz)), zp);
      v = hn::Add(v, hn::Mul(Falloff4(Attenuation3(kR2, x, y, z)),
                             GradDot3(Hash<true>(sb, xq, yq, zq), x, y, z)));
    }
    return ClampUnit(hn::Mul(v, hn::Set(d, kScale3)));
  }
};

TERRANE_NOISE_ROW_KERNELS(OpenSimplex2, OpenSimplex2Basis)

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace terrane::noise_detail {
TERRANE_NOISE_EXPORT(OpenSimplex2, opensimplex2)
}  // namespace terrane::noise_detail
#endif
