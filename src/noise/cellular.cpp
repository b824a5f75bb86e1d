// Cellular (Worley / Voronoi) noise, 2D and 3D.
// S. Worley, "A Cellular Texture Basis Function", SIGGRAPH 1996: one feature point per lattice
// cell, the value is a function of the distances to the nearest feature points (F1, F2).
//
// Feature points. Cell c (per axis) holds one feature point at c + 0.5 + r * u, where
// r = BasisArgs::cellular_jitter (jitter * 0.4375 cells, so the point stays inside its cell)
// and u in [-1, 1) comes from the lattice hash h = Hash(seed, c_x * kPrimeX, [c_y * kPrimeY,]
// c_z * kPrimeZ): u_x from the 24 high bits of h, u_y / u_z from the 24 high bits of h times
// further odd constants. In exact arithmetic u = HashToUnit(...); the kernel evaluates the
// offset to the sample as ((i + 0.5 - r) - f) + s * (r * 2^-23), s = the 24 bits, which is the
// same number up to rounding and saves an operation per candidate.
//
// Search window and exactness. The kernel first searches the 3x3 (3x3x3) cells around the
// sample's cell, as FastNoise does. A feature point of a cell at Chebyshev offset >= k + 1 is
// at least (k + 0.5 - r) + e away in every metric, e = the distance of the sample to the
// nearest face of its cell (the per-axis distance is a lower bound of all three metrics). With
// the default r = 0.4375 the 3x3 window alone is NOT exact: F1 can reach sqrt(2) * 0.9375 =
// 1.33 (2D euclidean) while a point two cells away can be 1.0625 away, so FastNoise-style 3x3
// search returns a too-large F1 for a small fraction of samples. Measured by
// tests/noise/cellular_test.cpp (plain 3^d window vs brute force, random points): 2D euclidean
// F1 < 0.0005% / F2 0.0005%, manhattan F1 0.005% / F2 0.13%, 3D manhattan F1 0.03% / F2 0.24%,
// chebyshev 0 (F1 provably exact there); at lattice corners, the worst places, 2D euclidean F1
// is wrong at 1 corner in 490000. terrane closes the gap: after the 3x3 search, wherever the value
// that is returned (F1, or F2 for f2 / f2_minus_f1) exceeds that bound (less a 2^-10 margin that
// covers float rounding) the next ring of cells (5x5 minus 3x3, then 7x7 minus 5x5, ...) is
// searched, until no lane of the vector needs more. The result is exact: F1 and F2 are the
// distances to the nearest and second-nearest feature points of the whole lattice. The rings run
// rarely: measured on the W4 grid (1024^2, 0.02 cells/m) at AVX-512 width (16 lanes), 0% of vectors
// for euclidean and chebyshev F1, 0.07% for euclidean F2, 1.5% for manhattan F1, 15% for manhattan
// F2 (manhattan balls reach furthest along the axes). Chebyshev F1 never needs them (D1 = 0.9375
// < 1.0625). A lane takes the ring result only where it needed it, so every lane depends on its own
// inputs only, whatever the vector width.
//
// Output maps (a = 0.5 + r; all bounds are suprema over sample positions and hash values,
// derived from the cell geometry above and checked numerically; D1 / D2 below):
//   f1:          F1 in [0, D1] -> 2 * F1 / D1 - 1
//   f2:          F2 in [0, D2] -> 2 * F2 / D2 - 1
//   f2_minus_f1: F2 - F1 in [0, D2] -> 2 * (F2 - F1) / D2 - 1   (tight in 2D; in 3D the
//                supremum of F2 - F1 is slightly below D2)
//   cell_value:  HashToUnit of a further hash of the nearest feature's cell, in [-1, 1)
// with, for the three distances:
//   2D  euclidean  D1 = sqrt(2) a    D2 = sqrt((1 + r)^2 + r^2)
//       manhattan  D1 = 2 a          D2 = 2 a
//       chebyshev  D1 = a            D2 = 1 + r
//   3D  euclidean  D1 = sqrt(3) a    D2 = sqrt(max(3 a^2, (1 + r)^2 + 2 r^2))
//       manhattan  D1 = 3 a          D2 = 3 a
//       chebyshev  D1 = a            D2 = 1 + r
// D1 is reached with the sample on a cell corner and every feature point pushed to the far
// side of its cell; D2 with the sample in a cell centre and the face neighbours' points
// pushed outwards (or at a corner where that is larger). Every mapped value is clamped to
// [-1, 1] (ClampUnit) as a guard; the clamp never changes a value in exact arithmetic.
//
// Bit-exactness: euclidean distances are compared squared and take one IEEE sqrt at the end;
// F1 / F2 are updated with Min / Max (equal distances give equal values whatever the order)
// and the nearest cell's hash with a strict `<` in a fixed visiting order, so ties resolve the
// same way on every target. No FMA, no approximations.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "noise/cellular.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "noise/fractal-inl.h"
#include "noise/kernel_export.hpp"

#include "noise/cellular_bounds.hpp"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {
namespace cellular_impl {
namespace cc = ::terrane::noise_detail::cellular;
using MF = hn::Mask<DF>;

// Distance in the chosen metric; euclidean stays squared until the end. In 2D it is formed from
// the z term alone and the x offset, so that a row's column memo (Column2) can keep the z term.
template <CellularDistance kDist>
HWY_INLINE VF ZTerm(VF dz) {
  return kDist == CellularDistance::euclidean ? hn::Mul(dz, dz) : hn::Abs(dz);
}
template <CellularDistance kDist>
HWY_INLINE VF DistZ(VF dx, VF zterm) {
  if constexpr (kDist == CellularDistance::euclidean) {
    return hn::Add(hn::Mul(dx, dx), zterm);
  } else if constexpr (kDist == CellularDistance::manhattan) {
    return hn::Add(hn::Abs(dx), zterm);
  } else {
    return hn::Max(hn::Abs(dx), zterm);
  }
}
template <CellularDistance kDist>
HWY_INLINE VF Dist(VF dx, VF dz) {
  return DistZ<kDist>(dx, ZTerm<kDist>(dz));
}
template <CellularDistance kDist>
HWY_INLINE VF Dist(VF dx, VF dy, VF dz) {
  if constexpr (kDist == CellularDistance::euclidean) {
    return hn::Add(hn::Add(hn::Mul(dx, dx), hn::Mul(dy, dy)), hn::Mul(dz, dz));
  } else if constexpr (kDist == CellularDistance::manhattan) {
    return hn::Add(hn::Add(hn::Abs(dx), hn::Abs(dy)), hn::Abs(dz));
  } else {
    return hn::Max(hn::Max(hn::Abs(dx), hn::Abs(dy)), hn::Abs(dz));
  }
}

// The nearest distances found so far and the hash of the nearest feature's cell.
struct Nearest {
  VF f1, f2;
  VU h1;
};

template <CellularReturn kRet>
HWY_INLINE void Consider(Nearest& s, VF dist, VU h) {
  if constexpr (kRet == CellularReturn::f1) {
    s.f1 = hn::Min(s.f1, dist);
  } else if constexpr (kRet == CellularReturn::cell_value) {
    const MF closer = hn::Lt(dist, s.f1);
    s.f1 = hn::IfThenElse(closer, dist, s.f1);
    s.h1 = hn::IfThenElse(hn::RebindMask(DU(), closer), h, s.h1);
  } else {
    s.f2 = hn::Min(s.f2, hn::Max(s.f1, dist));
    s.f1 = hn::Min(s.f1, dist);
  }
}

// 24 high bits of h as a float in [0, 2^24).
HWY_INLINE VF High24(VU h) {
  return hn::ConvertTo(DF(), hn::BitCast(DI(), hn::ShiftRight<8>(h)));
}

HWY_INLINE VU Scramble(VU h, std::uint32_t mul) {
  return hn::Mul(h, hn::Set(DU(), mul));
}

// Per-call constants shared by every candidate.
struct Setup {
  float r;   // feature radius in cells
  VF scale;  // r * 2^-23: maps the 24 hash bits to [0, 2r)
  VU seed;
};

HWY_INLINE Setup MakeSetup(std::uint32_t seed, const BasisArgs& b) {
  const DF d;
  return Setup{b.cellular_jitter, hn::Set(d, b.cellular_jitter * (1.0f / 8388608.0f)),
               hn::Set(DU(), seed)};
}

// Offset base of cell offset i along one axis: (i + 0.5 - r) - f.
HWY_INLINE VF AxisBase(const Setup& s, int i, VF f) {
  return hn::Sub(hn::Set(DF(), float(i) + (0.5f - s.r)), f);
}

// Lower bound (minus margin) of the distance to any feature point at Chebyshev offset > k.
HWY_INLINE VF OuterBound(const BasisArgs& b, int k, VF edge) {
  return hn::Add(hn::Set(DF(), b.cellular_ring[k]), edge);
}

// Distance from f in [0, 1] to the nearer cell face.
HWY_INLINE VF EdgeDist(VF f) {
  return hn::Min(f, hn::Sub(hn::Set(DF(), 1.0f), f));
}

// The value whose exactness is guarded: F2 when it is returned, else F1.
template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE MF NeedsRing(const BasisArgs& b, const Nearest& n, int k, VF edge) {
  const VF v = (kRet == CellularReturn::f2 || kRet == CellularReturn::f2_minus_f1) ? n.f2 : n.f1;
  VF bound = OuterBound(b, k, edge);
  if constexpr (kDist == CellularDistance::euclidean) bound = hn::Mul(bound, bound);
  return hn::Gt(v, bound);
}

template <CellularReturn kRet>
HWY_INLINE Nearest Blend(MF m, const Nearest& a, const Nearest& b) {
  return Nearest{hn::IfThenElse(m, a.f1, b.f1), hn::IfThenElse(m, a.f2, b.f2),
                 hn::IfThenElse(hn::RebindMask(DU(), m), a.h1, b.h1)};
}

// Maps the search result to [-1, 1] (see the header comment).
template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE VF Finish(const Nearest& n, const BasisArgs& b, int dims) {
  const DF d;
  const VF one = hn::Set(d, 1.0f);
  if constexpr (kRet == CellularReturn::cell_value) {
    return HashToUnit(Scramble(n.h1, cc::kMulD));
  } else {
    VF f1 = n.f1, f2 = n.f2;
    if constexpr (kDist == CellularDistance::euclidean) {
      f1 = hn::Sqrt(f1);
      if constexpr (kRet != CellularReturn::f1) f2 = hn::Sqrt(f2);
    }
    VF v;
    if constexpr (kRet == CellularReturn::f1) {
      v = f1;
    } else if constexpr (kRet == CellularReturn::f2) {
      v = f2;
    } else {
      v = hn::Sub(f2, f1);
    }
    const float map = dims == 2 ? b.cellular_map2 : b.cellular_map3;
    return ClampUnit(hn::Sub(hn::Mul(v, hn::Set(d, map)), one));
  }
}

// ---- 2D ----------------------------------------------------------------------------------

template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE void Cell2(const Setup& s, Nearest& n, VU xp, VU zp, VF bx, VF bz) {
  const VU h = Hash(s.seed, xp, zp);
  const VF dx = hn::Add(bx, hn::Mul(High24(h), s.scale));
  const VF dz = hn::Add(bz, hn::Mul(High24(Scramble(h, cc::kMulB)), s.scale));
  Consider<kRet>(n, Dist<kDist>(dx, dz), h);
}

// Cells at Chebyshev offset exactly k (k >= 2), rows of z outer, x inner.
template <CellularDistance kDist, CellularReturn kRet>
HWY_NOINLINE void Ring2(const Setup& s, Nearest& n, int k, VU x0, VF fx, VU z0, VF fz) {
  const DU du;
  for (int j = -k; j <= k; ++j) {
    const VU zp = hn::Add(z0, hn::Set(du, std::uint32_t(j) * kPrimeZ));
    const VF bz = AxisBase(s, j, fz);
    const int step = (j == -k || j == k) ? 1 : 2 * k;
    for (int i = -k; i <= k; i += step) {
      Cell2<kDist, kRet>(s, n, hn::Add(x0, hn::Set(du, std::uint32_t(i) * kPrimeX)), zp,
                         AxisBase(s, i, fx), bz);
    }
  }
}

// The part of a 2D sample that depends on its lattice row only: the same along a row without
// warp (CellularBasis::PrepareRow2).
struct Row2Z {
  VU z0;  // cz * kPrimeZ
  VF fz;
  VU sz[3];  // seed ^ (cz + j) * kPrimeZ, j = -1, 0, 1: the hash's row terms, premixed
  VF bz[3];  // AxisBase(j, fz)
  VF edge;   // EdgeDist(fz)
};

HWY_INLINE Row2Z MakeRow2Z(const Setup& s, VU cz, VF fz) {
  const DU du;
  Row2Z z;
  z.z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
  z.fz = fz;
  z.sz[0] = hn::Xor(s.seed, hn::Sub(z.z0, hn::Set(du, kPrimeZ)));
  z.sz[1] = hn::Xor(s.seed, z.z0);
  z.sz[2] = hn::Xor(s.seed, hn::Add(z.z0, hn::Set(du, kPrimeZ)));
  for (int j = 0; j < 3; ++j) z.bz[j] = AxisBase(s, j - 1, fz);
  z.edge = EdgeDist(fz);
  return z;
}

// The candidate of cell (i, j) of the 3x3 window (i, j = 0..2 for offsets -1..1): its hash and
// the parts of its offset to the sample that come from the hash, q = High24 * scale per axis.
// Hash(seed, xp, zp) == HashPremixed(xp ^ (seed ^ zp)): xor is associative.
struct Candidate2 {
  VU h;
  VF qx, qz;
};
HWY_INLINE Candidate2 MakeCandidate2(const Setup& s, const Row2Z& z, VU xp, int j) {
  const VU h = HashPremixed(hn::Xor(xp, z.sz[j]));
  return {h, hn::Mul(High24(h), s.scale), hn::Mul(High24(Scramble(h, cc::kMulB)), s.scale)};
}

// After the 3x3 window: the rings wherever a lane needs them, then the output map.
template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE VF Rings2AndFinish(const Setup& s, const Row2Z& z, Nearest n, VU x0, VF fx,
                              const BasisArgs& b) {
  const DF d;
  const VF edge = hn::Min(EdgeDist(fx), z.edge);
  for (int k = 1; k < cc::kMaxRing; ++k) {
    const MF need = NeedsRing<kDist, kRet>(b, n, k, edge);
    if (hn::AllFalse(d, need)) break;
    Nearest wider = n;
    Ring2<kDist, kRet>(s, wider, k + 1, x0, fx, z.z0, z.fz);
    n = Blend<kRet>(need, wider, n);
  }
  return Finish<kDist, kRet>(n, b, 2);
}

template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE VF Eval2Core(const Setup& s, const Row2Z& z, VU cx, VF fx, const BasisArgs& b) {
  const DF d;
  const DU du;
  const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
  const VU xp[3] = {hn::Sub(x0, hn::Set(du, kPrimeX)), x0, hn::Add(x0, hn::Set(du, kPrimeX))};
  const VF bx[3] = {AxisBase(s, -1, fx), AxisBase(s, 0, fx), AxisBase(s, 1, fx)};
  const VF inf = hn::Set(d, HUGE_VALF);
  Nearest n{inf, inf, hn::Zero(du)};
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) {
      const Candidate2 c = MakeCandidate2(s, z, xp[i], j);
      const VF dx = hn::Add(bx[i], c.qx);
      const VF dz = hn::Add(z.bz[j], c.qz);
      Consider<kRet>(n, Dist<kDist>(dx, dz), c.h);
    }
  }
  return Rings2AndFinish<kDist, kRet>(s, z, n, x0, fx, b);
}

// The 3x3 window of one lattice column, kept for the next vectors of a row without warp (a cell
// memo, MemoKey in fractal-inl.h). Along such a row the lattice z is fixed and the cell column
// changes every 1 / frequency samples (50 at W4's frequency), so a vector whose lanes all lie in
// the memo's column needs none of the 9 hashes: per candidate it adds the memo's qx to its x
// base and takes the memo's z term (the z offset is the same along the row). The same
// operations on the same values as Eval2Core, so the same bits.
struct Column2 {
  MemoKey<1, false> key;  // a fill costs as much as a usual evaluation
  float qx[9], zterm[9];  // per candidate, j * 3 + i: MakeCandidate2's qx, ZTerm of the z offset
  std::uint32_t h[9];
};

template <CellularDistance kDist>
HWY_NOINLINE void FillColumn2(const Setup& s, const Row2Z& z, Column2& col) {
  const DU du;
  const VU x0 = hn::Mul(hn::Set(du, col.key.cell[0]), hn::Set(du, kPrimeX));
  const VU xp[3] = {hn::Sub(x0, hn::Set(du, kPrimeX)), x0, hn::Add(x0, hn::Set(du, kPrimeX))};
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) {
      const Candidate2 c = MakeCandidate2(s, z, xp[i], j);
      col.h[j * 3 + i] = hn::GetLane(c.h);
      col.qx[j * 3 + i] = hn::GetLane(c.qx);
      col.zterm[j * 3 + i] = hn::GetLane(ZTerm<kDist>(hn::Add(z.bz[j], c.qz)));
    }
  }
}

template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE VF Eval2Column(const Setup& s, const Row2Z& z, Column2& col, VU cx, VF fx,
                          const BasisArgs& b) {
  const DF d;
  const DU du;
  const VU cells[1] = {cx};
  switch (col.key.Probe(cells)) {
    case MemoProbe::other:
      return Eval2Core<kDist, kRet>(s, z, cx, fx, b);
    case MemoProbe::fill:
      FillColumn2<kDist>(s, z, col);
      break;
    case MemoProbe::hit:
      break;
  }
  const VF bx[3] = {AxisBase(s, -1, fx), AxisBase(s, 0, fx), AxisBase(s, 1, fx)};
  const VF inf = hn::Set(d, HUGE_VALF);
  Nearest n{inf, inf, hn::Zero(du)};
  for (int k = 0; k < 9; ++k) {
    const VF dx = hn::Add(bx[k % 3], hn::Set(d, col.qx[k]));
    Consider<kRet>(n, DistZ<kDist>(dx, hn::Set(d, col.zterm[k])), hn::Set(du, col.h[k]));
  }
  return Rings2AndFinish<kDist, kRet>(s, z, n, hn::Mul(cx, hn::Set(du, kPrimeX)), fx, b);
}

template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE VF Eval2Impl(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs& b) {
  const Setup s = MakeSetup(seed, b);
  return Eval2Core<kDist, kRet>(s, MakeRow2Z(s, cz, fz), cx, fx, b);
}

// ---- 3D ----------------------------------------------------------------------------------

template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE void Cell3(const Setup& s, Nearest& n, VU xp, VU yp, VU zp, VF bx, VF by, VF bz) {
  const VU h = Hash(s.seed, xp, yp, zp);
  const VF dx = hn::Add(bx, hn::Mul(High24(h), s.scale));
  const VF dy = hn::Add(by, hn::Mul(High24(Scramble(h, cc::kMulB)), s.scale));
  const VF dz = hn::Add(bz, hn::Mul(High24(Scramble(h, cc::kMulC)), s.scale));
  Consider<kRet>(n, Dist<kDist>(dx, dy, dz), h);
}

template <CellularDistance kDist, CellularReturn kRet>
HWY_NOINLINE void Ring3(const Setup& s, Nearest& n, int k, VU x0, VF fx, VU y0, VF fy, VU z0,
                        VF fz) {
  const DU du;
  for (int l = -k; l <= k; ++l) {
    const VU zp = hn::Add(z0, hn::Set(du, std::uint32_t(l) * kPrimeZ));
    const VF bz = AxisBase(s, l, fz);
    for (int j = -k; j <= k; ++j) {
      const VU yp = hn::Add(y0, hn::Set(du, std::uint32_t(j) * kPrimeY));
      const VF by = AxisBase(s, j, fy);
      const bool face = l == -k || l == k || j == -k || j == k;
      const int step = face ? 1 : 2 * k;
      for (int i = -k; i <= k; i += step) {
        Cell3<kDist, kRet>(s, n, hn::Add(x0, hn::Set(du, std::uint32_t(i) * kPrimeX)), yp, zp,
                           AxisBase(s, i, fx), by, bz);
      }
    }
  }
}

template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE VF Eval3Impl(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                        const BasisArgs& b) {
  const DF d;
  const DU du;
  const Setup s = MakeSetup(seed, b);
  const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
  const VU y0 = hn::Mul(cy, hn::Set(du, kPrimeY));
  const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
  const VU xp[3] = {hn::Sub(x0, hn::Set(du, kPrimeX)), x0, hn::Add(x0, hn::Set(du, kPrimeX))};
  const VU yp[3] = {hn::Sub(y0, hn::Set(du, kPrimeY)), y0, hn::Add(y0, hn::Set(du, kPrimeY))};
  const VU zp[3] = {hn::Sub(z0, hn::Set(du, kPrimeZ)), z0, hn::Add(z0, hn::Set(du, kPrimeZ))};
  const VF bx[3] = {AxisBase(s, -1, fx), AxisBase(s, 0, fx), AxisBase(s, 1, fx)};
  const VF by[3] = {AxisBase(s, -1, fy), AxisBase(s, 0, fy), AxisBase(s, 1, fy)};
  const VF bz[3] = {AxisBase(s, -1, fz), AxisBase(s, 0, fz), AxisBase(s, 1, fz)};
  const VF inf = hn::Set(d, HUGE_VALF);
  Nearest n{inf, inf, hn::Zero(du)};
  for (int l = 0; l < 3; ++l) {
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < 3; ++i) {
        Cell3<kDist, kRet>(s, n, xp[i], yp[j], zp[l], bx[i], by[j], bz[l]);
      }
    }
  }
  const VF edge = hn::Min(hn::Min(EdgeDist(fx), EdgeDist(fy)), EdgeDist(fz));
  for (int k = 1; k < cc::kMaxRing; ++k) {
    const MF need = NeedsRing<kDist, kRet>(b, n, k, edge);
    if (hn::AllFalse(d, need)) break;
    Nearest wider = n;
    Ring3<kDist, kRet>(s, wider, k + 1, x0, fx, y0, fy, z0, fz);
    n = Blend<kRet>(need, wider, n);
  }
  return Finish<kDist, kRet>(n, b, 3);
}

// Runtime (distance, return) -> template instance, once per vector; the per-cell loops are
// specialised for both. With a column cache (rows without warp), through it.
template <CellularDistance kDist, CellularReturn kRet>
HWY_INLINE VF Eval2With(const Setup& s, const Row2Z& z, Column2* col, VU cx, VF fx,
                        const BasisArgs& b) {
  return col != nullptr ? Eval2Column<kDist, kRet>(s, z, *col, cx, fx, b)
                        : Eval2Core<kDist, kRet>(s, z, cx, fx, b);
}

template <CellularDistance kDist>
HWY_INLINE VF Eval2Return(const Setup& s, const Row2Z& z, Column2* col, VU cx, VF fx,
                          const BasisArgs& b) {
  switch (b.cellular_return) {
    case CellularReturn::f2:
      return Eval2With<kDist, CellularReturn::f2>(s, z, col, cx, fx, b);
    case CellularReturn::f2_minus_f1:
      return Eval2With<kDist, CellularReturn::f2_minus_f1>(s, z, col, cx, fx, b);
    case CellularReturn::cell_value:
      return Eval2With<kDist, CellularReturn::cell_value>(s, z, col, cx, fx, b);
    default:
      return Eval2With<kDist, CellularReturn::f1>(s, z, col, cx, fx, b);
  }
}

HWY_INLINE VF Eval2Distance(const Setup& s, const Row2Z& z, Column2* col, VU cx, VF fx,
                            const BasisArgs& b) {
  switch (b.cellular_distance) {
    case CellularDistance::manhattan:
      return Eval2Return<CellularDistance::manhattan>(s, z, col, cx, fx, b);
    case CellularDistance::chebyshev:
      return Eval2Return<CellularDistance::chebyshev>(s, z, col, cx, fx, b);
    default:
      return Eval2Return<CellularDistance::euclidean>(s, z, col, cx, fx, b);
  }
}

template <CellularDistance kDist>
HWY_INLINE VF Eval3Return(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                          const BasisArgs& b) {
  switch (b.cellular_return) {
    case CellularReturn::f2:
      return Eval3Impl<kDist, CellularReturn::f2>(seed, cx, fx, cy, fy, cz, fz, b);
    case CellularReturn::f2_minus_f1:
      return Eval3Impl<kDist, CellularReturn::f2_minus_f1>(seed, cx, fx, cy, fy, cz, fz, b);
    case CellularReturn::cell_value:
      return Eval3Impl<kDist, CellularReturn::cell_value>(seed, cx, fx, cy, fy, cz, fz, b);
    default:
      return Eval3Impl<kDist, CellularReturn::f1>(seed, cx, fx, cy, fy, cz, fz, b);
  }
}

}  // namespace cellular_impl

struct CellularBasis {
  static constexpr bool kSheared = false;

  static HWY_INLINE VF Eval2(std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs& b) {
    using namespace cellular_impl;
    const Setup s = MakeSetup(seed, b);
    return Eval2Distance(s, MakeRow2Z(s, cz, fz), nullptr, cx, fx, b);
  }

  // Rows without warp: the setup and the row's z terms once per row (RowPrepared2), and the
  // 3x3 window of the current cell column (Column2).
  struct Row2State {
    cellular_impl::Setup s;
    cellular_impl::Row2Z z;
    cellular_impl::Column2 column;
  };
  static HWY_INLINE Row2State PrepareRow2(std::uint32_t seed, VU cz, VF fz, const BasisArgs& b) {
    using namespace cellular_impl;
    const Setup s = MakeSetup(seed, b);
    return Row2State{s, MakeRow2Z(s, cz, fz), Column2{}};
  }
  static HWY_INLINE VF Eval2Row(Row2State& st, VU cx, VF fx, const BasisArgs& b) {
    return cellular_impl::Eval2Distance(st.s, st.z, &st.column, cx, fx, b);
  }

  static HWY_INLINE VF Eval3(std::uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz,
                             const BasisArgs& b) {
    using cellular_impl::Eval3Return;
    switch (b.cellular_distance) {
      case CellularDistance::manhattan:
        return Eval3Return<CellularDistance::manhattan>(seed, cx, fx, cy, fy, cz, fz, b);
      case CellularDistance::chebyshev:
        return Eval3Return<CellularDistance::chebyshev>(seed, cx, fx, cy, fy, cz, fz, b);
      default:
        return Eval3Return<CellularDistance::euclidean>(seed, cx, fx, cy, fy, cz, fz, b);
    }
  }
};

TERRANE_NOISE_ROW_KERNELS(Cellular, CellularBasis)

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace terrane::noise_detail {
TERRANE_NOISE_EXPORT(Cellular, cellular)
}  // namespace terrane::noise_detail
#endif
