// OpenSimplex2S ("smooth", also "SuperSimplex") gradient noise, 2D and 3D.
// After K. Spencer (KdotJPG), OpenSimplex2, https://github.com/KdotJPG/OpenSimplex2 (the "S"
// variant: same lattices as OpenSimplex2 with a larger kernel radius and more points per
// sample), and its adaptation as SingleOpenSimplex2S in J. Peck's FastNoiseLite. Written from
// the published descriptions; the branch structure of the references is recast as a fixed set
// of slots, each choosing between candidate lattice points with selects.
//
// Lattice (host side, sampler.cpp): as OpenSimplex2 (skewed 2D lattice, rotated BCC in 3D).
//
// 2D: kernel max(2/3 - r^2, 0)^4 (g . d). The points within reach of a sample in skewed cell
// (xi, zi) in [0,1]^2 are (0,0), (1,1) and two more: above the diagonal (xi + zi > 1) they are
// (2,1) if 2 xi - zi > 1 else (0,1), and (1,2) if 2 zi - xi > 1 else (1,0); below it, (-1,0) if
// 2 xi - zi < 0 else (1,0), and (0,-1) if 2 zi - xi < 0 else (0,1). So 4 slots per sample.
//
// 3D: kernel max(3/4 - r^2, 0)^4 (g . d) on lattices A = Z^3 (seed) and B = Z^3 + (1/2,1/2,1/2)
// (seed ^ kSeedB). With u_k = |offset to the nearest A point| along axis k (in [0, 1/2]), the
// 14 points that can be in reach are the A cube corners but the farthest and the B point at the
// cube centre with its neighbours towards the sample along one or two axes. Per axis k (j, l the
// others):  a(flip k) + a(flip j,l) = -3/2 + 2 sum u(1-u) <= 0  and
//           a(shift k) + a(shift j,l) = -2 sum u^2 <= 0,
// so of each pair at most one is inside the kernel, and a slot that takes whichever has a > 0
// covers both. 8 slots: nearest A, centre B, and two per axis.
// (Coverage of every lattice point within reach was checked by exhaustive enumeration over
// 2 * 10^6 positions, boundaries included.)
//
// Normalisation: with unit gradients |noise| <= S = sup_p sum_i max(r^2 - |d_i|^2, 0)^4 |d_i|
// (gradients aligned with their offsets), found by sampling 3 * 10^6 positions with every lattice
// point in reach enumerated, then refining the best one by local search: 2D S = 0.0551804103
// (scale 18.1223734), 3D S = 0.0867762392 (scale 11.5238919). Output = noise / S, clamped.
//
// Lipschitz bound (used by the tests), per lattice unit: sup of sum max(a^4, |a^4 - 8 a^3 r^2|)
// divided by S: 6.37 (2D), 7.97 (3D).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "noise/opensimplex2s.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "noise/fractal-inl.h"
#include "noise/kernel_export.hpp"
#include "noise/simplex_grad-inl.h"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {

struct OpenSimplex2SBasis {
  static constexpr bool kSheared = true;

  static constexpr double kG2 = 0.21132486540518711775;  // (3 - sqrt3) / 6
  static constexpr float kR2D = float(2.0 / 3.0);
  static constexpr float kR3D = 0.75f;
  static constexpr float kScale2 = 18.1223734f;
  static constexpr float kScale3 = 11.5238919f;
  static constexpr std::uint32_t kSeedB = 0x6A09E667u;  // lattice B's seed: seed ^ kSeedB

  // Unskewed offset of skewed lattice point (i, j) from cell corner (0, 0).
  static constexpr float UnskewX(int i, int j) { return float(i - kG2 * (i + j)); }
  static constexpr float UnskewZ(int i, int j) { return float(j - kG2 * (i + j)); }

  // Contribution of the lattice point at unskewed offset (ox, oz) from the cell corner, whose
  // hashed coordinates are (xp, zp); (x0, z0) is the sample's offset from the corner.
  static HWY_INLINE VF Point2(VU s, VU xp, VU zp, VF x0, VF z0, VF ox, VF oz) {
    const VF x = hn::Sub(x0, ox), z = hn::Sub(z0, oz);
    return hn::Mul(Falloff4(Attenuation2(kR2D, x, z)), GradDot2(Hash<true>(s, xp, zp), x, z));
  }

  static HWY_INLINE VF Eval2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&) {
    const DF d;
    const DU du;
    const VU s = hn::Set(du, seed);
    const VU px = hn::Set(du, kPrimeX), pz = hn::Set(du, kPrimeZ);
    const VU xp = hn::Mul(cx, px), zp = hn::Mul(cz, pz);
    const VU xp1 = hn::Add(xp, px), zp1 = hn::Add(zp, pz);
    const VF t = hn::Mul(hn::Add(fx, fz), hn::Set(d, float(kG2)));
    const VF x0 = hn::Sub(fx, t), z0 = hn::Sub(fz, t);

    // (0, 0) and (1, 1).
    VF v = Point2(s, xp, zp, x0, z0, hn::Zero(d), hn::Zero(d));
    const VF c11 = hn::Set(d, UnskewX(1, 1));
    v = hn::Add(v, Point2(s, xp1, zp1, x0, z0, c11, c11));

    const auto upper = hn::Gt(hn::Add(fx, fz), hn::Set(d, 1.0f));
    const auto upper_u = hn::RebindMask(du, upper);
    const VF zero = hn::Zero(d), one = hn::Set(d, 1.0f);
    // Slot P: above, (2,1) or (0,1); below, (-1,0) or (1,0).
    {
      const VF w = hn::Sub(hn::Add(fx, fx), fz);
      const auto m = hn::Or(hn::And(upper, hn::Gt(w, one)), hn::AndNot(upper, hn::Lt(w, zero)));
      const auto mu = hn::RebindMask(du, m);
      const VF ox = hn::IfThenElse(
          upper, hn::IfThenElse(m, hn::Set(d, UnskewX(2, 1)), hn::Set(d, UnskewX(0, 1))),
          hn::IfThenElse(m, hn::Set(d, UnskewX(-1, 0)), hn::Set(d, UnskewX(1, 0))));
      const VF oz = hn::IfThenElse(
          upper, hn::IfThenElse(m, hn::Set(d, UnskewZ(2, 1)), hn::Set(d, UnskewZ(0, 1))),
          hn::IfThenElse(m, hn::Set(d, UnskewZ(-1, 0)), hn::Set(d, UnskewZ(1, 0))));
      const VU xq = hn::IfThenElse(upper_u, hn::IfThenElse(mu, hn::Add(xp1, px), xp),
                                   hn::IfThenElse(mu, hn::Sub(xp, px), xp1));
      const VU zq = hn::IfThenElse(upper_u, zp1, zp);
      v = hn::Add(v, Point2(s, xq, zq, x0, z0, ox, oz));
    }
    // Slot Q (P with x and z exchanged): above, (1,2) or (1,0); below, (0,-1) or (0,1).
    {
      const VF w = hn::Sub(hn::Add(fz, fz), fx);
      const auto m = hn::Or(hn::And(upper, hn::Gt(w, one)), hn::AndNot(upper, hn::Lt(w, zero)));
      const auto mu = hn::RebindMask(du, m);
      const VF ox = hn::IfThenElse(
          upper, hn::IfThenElse(m, hn::Set(d, UnskewX(1, 2)), hn::Set(d, UnskewX(1, 0))),
          hn::IfThenElse(m, hn::Set(d, UnskewX(0, -1)), hn::Set(d, UnskewX(0, 1))));
      const VF oz = hn::IfThenElse(
          upper, hn::IfThenElse(m, hn::Set(d, UnskewZ(1, 2)), hn::Set(d, UnskewZ(1, 0))),
          hn::IfThenElse(m, hn::Set(d, UnskewZ(0, -1)), hn::Set(d, UnskewZ(0, 1))));
      const VU xq = hn::IfThenElse(upper_u, xp1, xp);
      const VU zq = hn::IfThenElse(upper_u, hn::IfThenElse(mu, hn::Add(zp1, pz), zp),
                                   hn::IfThenElse(mu, hn::Sub(zp, pz), zp1));
      v = hn::Add(v, Point2(s, xq, zq, x0, z0, ox, oz));
    }
    return ClampUnit(hn::Mul(v, hn::Set(d, kScale2)));
  }

  // Attenuation from precomputed squared offsets, in a fixed order.
  static HWY_INLINE VF Atten3Sq(VF x2, VF y2, VF z2) {
    const DF d;
    return hn::Sub(hn::Sub(hn::Sub(hn::Set(d, kR3D), x2), y2), z2);
  }

  // One slot choosing between two candidate points: the first when its attenuation is
  // positive, else the second.
  struct Candidate {
    VF a, x, y, z;
    VU xp, yp, zp;
  };
  // The point with offsets off[k] (squared off2[k], hashed coordinate pk[k]) moved along the
  // axes in the bit set `axes` to moved[k] (moved2[k], mk[k]).
  static HWY_INLINE Candidate Move(int axes, const VF* off, const VF* moved, const VF* off2,
                                   const VF* moved2, const VU* pk, const VU* mk) {
    const bool m0 = (axes & 1) != 0, m1 = (axes & 2) != 0, m2 = (axes & 4) != 0;
    return Candidate{
        Atten3Sq(m0 ? moved2[0] : off2[0], m1 ? moved2[1] : off2[1], m2 ? moved2[2] : off2[2]),
        m0 ? moved[0] : off[0],
        m1 ? moved[1] : off[1],
        m2 ? moved[2] : off[2],
        m0 ? mk[0] : pk[0],
        m1 ? mk[1] : pk[1],
        m2 ? mk[2] : pk[2]};
  }

  static HWY_INLINE VF Slot3(VU s, const Candidate& c1, const Candidate& c2) {
    const DU du;
    const auto m = hn::Gt(c1.a, hn::Zero(DF()));
    const auto mu = hn::RebindMask(du, m);
    const VF a = hn::IfThenElse(m, c1.a, c2.a);
    const VF x = hn::IfThenElse(m, c1.x, c2.x);
    const VF y = hn::IfThenElse(m, c1.y, c2.y);
    const VF z = hn::IfThenElse(m, c1.z, c2.z);
    const VU h = Hash<true>(s, hn::IfThenElse(mu, c1.xp, c2.xp), hn::IfThenElse(mu, c1.yp, c2.yp),
                            hn::IfThenElse(mu, c1.zp, c2.zp));
    return hn::Mul(Falloff4(a), GradDot3(h, x, y, z));
  }

  static HWY_INLINE VF Eval3(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                             const BasisArgs&) {
    const DF d;
    const DU du;
    const VF one = hn::Set(d, 1.0f), neg_one = hn::Set(d, -1.0f), half = hn::Set(d, 0.5f);
    const VU p[3] = {hn::Set(du, kPrimeX), hn::Set(du, kPrimeY), hn::Set(du, kPrimeZ)};
    const VU c[3] = {cx, cy, cz};
    const VF f[3] = {fx, fy, fz};

    // Per axis k (sg = +1 where the sample is in the upper half of its A cell, else -1):
    //   A near:  offset a  = f - (hi ? 1 : 0), index cell + hi
    //   A flip:  offset af = a + sg,           index cell + !hi
    //   B centre: offset b = f - 1/2,           index cell
    //   B shift: offset bs = b - sg,           index cell + sg
    VF a[3], af[3], b[3], bs[3], a2[3], af2[3], b2[3], bs2[3];
    VU ap[3], afp[3], bp[3], bsp[3];
    for (int k = 0; k < 3; ++k) {
      const auto hi = hn::Ge(f[k], half);
      const auto hiu = hn::RebindMask(du, hi);
      const VF sg = hn::IfThenElse(hi, one, neg_one);
      a[k] = hn::Sub(f[k], hn::IfThenElseZero(hi, one));
      af[k] = hn::Add(a[k], sg);
      b[k] = hn::Sub(f[k], half);
      bs[k] = hn::Sub(b[k], sg);
      a2[k] = hn::Mul(a[k], a[k]);
      af2[k] = hn::Mul(af[k], af[k]);
      b2[k] = hn::Mul(b[k], b[k]);
      bs2[k] = hn::Mul(bs[k], bs[k]);
      bp[k] = hn::Mul(c[k], p[k]);
      const VU next = hn::Add(bp[k], p[k]);
      ap[k] = hn::IfThenElse(hiu, next, bp[k]);
      afp[k] = hn::IfThenElse(hiu, bp[k], next);
      bsp[k] = hn::IfThenElse(hiu, next, hn::Sub(bp[k], p[k]));
    }
    const VU sa = hn::Set(du, seed), sb = hn::Set(du, seed ^ kSeedB);

    VF v = hn::Mul(Falloff4(Atten3Sq(a2[0], a2[1], a2[2])),
                   GradDot3(Hash<true>(sa, ap[0], ap[1], ap[2]), a[0], a[1], a[2]));
    v = hn::Add(v, hn::Mul(Falloff4(Atten3Sq(b2[0], b2[1], b2[2])),
                           GradDot3(Hash<true>(sb, bp[0], bp[1], bp[2]), b[0], b[1], b[2])));
    for (int k = 0; k < 3; ++k) {
      // Candidates moved along axis k alone, or along both other axes.
      const int alone = 1 << k, others = 7 ^ alone;
      v = hn::Add(v, Slot3(sa, Move(alone, a, af, a2, af2, ap, afp),
                           Move(others, a, af, a2, af2, ap, afp)));
      v = hn::Add(v, Slot3(sb, Move(alone, b, bs, b2, bs2, bp, bsp),
                           Move(others, b, bs, b2, bs2, bp, bsp)));
    }
    return ClampUnit(hn::Mul(v, hn::Set(d, kScale3)));
  }
};

TERRANE_NOISE_ROW_KERNELS(OpenSimplex2S, OpenSimplex2SBasis)

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace terrane::noise_detail {
TERRANE_NOISE_EXPORT(OpenSimplex2S, opensimplex2s)
}  // namespace terrane::noise_detail
#endif
