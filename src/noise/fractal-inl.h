// Internal, per-SIMD-target: the row driver shared by every noise basis. It assembles each
// octave's lattice coordinates from the column tables, row scalars and warp displacements,
// calls the basis, and accumulates the fractal. Included once per Highway target by each
// basis translation unit (after <hwy/foreach_target.h>).
//
// Fractal formulas (amp_o = bounding * gain^o, bounding = 1 / sum_o gain^o, w_0 = 1):
//   fbm:      sum += n * amp_o * w;              w *= lerp(1, min(n + 1, 2) / 2, weighted)
//   ridged:   sum += (1 - 2|n|) * amp_o * w;     w *= lerp(1, 1 - |n|, weighted)
//   billow:   sum += (2|n| - 1) * amp_o * w;     w *= lerp(1, |n|, weighted)
//   pingpong: t = pingpong((n + 1) * strength);  sum += (2t - 1) * amp_o * w;
//             w *= lerp(1, t, weighted);          pingpong(t) = 1 - |(t mod 2) - 1|
// Every weight factor lies in [0, 1], so |sum| <= sum_o amp_o = 1.
//
// Bit-exactness: only IEEE add/sub/mul/div/sqrt/floor/min/max, integer ops and selects; no
// MulAdd (FMA on some targets only), no approximate reciprocals. Each lane depends only on its
// own inputs, so the output does not depend on the vector width or on where a row starts.

#if defined(TERRANE_NOISE_FRACTAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TERRANE_NOISE_FRACTAL_INL_H_
#undef TERRANE_NOISE_FRACTAL_INL_H_
#else
#define TERRANE_NOISE_FRACTAL_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if HWY_ARCH_X86_64
#include <emmintrin.h>
#endif

#include "noise/kernel_args.hpp"

HWY_BEFORE_NAMESPACE();
namespace terrane::noise_detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;
using VI = hn::Vec<DI>;

// ---- shared helpers for bases ---------------------------------------------------------------

HWY_INLINE VF Lerp(VF a, VF b, VF t) {
  return hn::Add(a, hn::Mul(t, hn::Sub(b, a)));
}

// Quintic fade 6t^5 - 15t^4 + 10t^3 (Perlin 2002), Horner form without FMA.
HWY_INLINE VF Quintic(VF t) {
  const DF d;
  VF p = hn::Sub(hn::Mul(t, hn::Set(d, 6.0f)), hn::Set(d, 15.0f));
  p = hn::Add(hn::Mul(t, p), hn::Set(d, 10.0f));
  return hn::Mul(hn::Mul(hn::Mul(t, t), t), p);
}

// Min and max of floats with x86's rule: b unless a is strictly smaller (larger), so a NaN or an
// equal pair (+0, -0) gives b. The x86 vector targets are minps / maxps; on the scalar target
// these are selects (minss / maxss) with the same rule, where Highway's Min / Max test each
// operand for NaN with branches that mispredict on noise (and return a for an equal pair).
// (Written as a ternary, GCC still turns a max followed by products into a branch. On x86-64,
// where SSE is the baseline, the instruction itself: through the intrinsics GCC zeroed the upper
// lanes with a round trip through a general register each time, and the scalar target ran 10 to
// 22% slower on W1-W5.)
HWY_INLINE VF MinF(VF a, VF b) {
#if HWY_TARGET == HWY_SCALAR && HWY_ARCH_X86_64
  float r = a.raw;
  asm("minss %1, %0" : "+x"(r) : "x"(b.raw));
  return VF(r);
#elif HWY_TARGET == HWY_SCALAR
  return VF(a.raw < b.raw ? a.raw : b.raw);
#else
  return hn::Min(a, b);
#endif
}
HWY_INLINE VF MaxF(VF a, VF b) {
#if HWY_TARGET == HWY_SCALAR && HWY_ARCH_X86_64
  float r = a.raw;
  asm("maxss %1, %0" : "+x"(r) : "x"(b.raw));
  return VF(r);
#elif HWY_TARGET == HWY_SCALAR
  return VF(a.raw > b.raw ? a.raw : b.raw);
#else
  return hn::Max(a, b);
#endif
}

HWY_INLINE VF ClampUnit(VF v) {
  const DF d;
  return MinF(MaxF(v, hn::Set(d, -1.0f)), hn::Set(d, 1.0f));
}

// The lattice hash of its inputs already xor-ed together (seed ^ xp ^ zp ...).
HWY_INLINE VU HashPremixed(VU mixed) {
  const DU du;
  const VU h = hn::Mul(mixed, hn::Set(du, kHashMul));
  return hn::Xor(h, hn::ShiftRight<15>(h));
}

// The same hash's bits 31..kHashHighBit, the others arbitrary. The xor-shift of HashPremixed
// changes no bit above bit 16 (h >> 15 has zeros there), so a basis that reads only those bits
// (the gradient bases: a gradient's index and sign come from the top bits) takes the product
// alone, with the same noise to the bit and two operations less per hash.
inline constexpr int kHashHighBit = 17;
HWY_INLINE VU HashHighPremixed(VU mixed) {
  const DU du;
  return hn::Mul(mixed, hn::Set(du, kHashMul));
}
// HashPremixed, or HashHighPremixed for a basis that reads only the high bits.
template <bool kHighBitsOnly>
HWY_INLINE VU HashMixed(VU mixed) {
  if constexpr (kHighBitsOnly) {
    return HashHighPremixed(mixed);
  } else {
    return HashPremixed(mixed);
  }
}

// Lattice hash of pre-multiplied coordinates (xp = cell_x * kPrimeX, ...); with kHighBitsOnly,
// only its bits 31..kHashHighBit (HashHighPremixed).
template <bool kHighBitsOnly = false>
HWY_INLINE VU Hash(VU seed, VU xp, VU zp) {
  return HashMixed<kHighBitsOnly>(hn::Xor(seed, hn::Xor(xp, zp)));
}
template <bool kHighBitsOnly = false>
HWY_INLINE VU Hash(VU seed, VU xp, VU yp, VU zp) {
  return HashMixed<kHighBitsOnly>(hn::Xor(hn::Xor(seed, xp), hn::Xor(yp, zp)));
}

// Hashes of the corners of the lattice cell at (cx, cz) [2D] or (cx, cy, cz) [3D]: h[k] with
// bit 0 of k = +1 along x, bit 1 = +1 along z (2D) or y (3D), bit 2 = +1 along z (3D).
struct CellHashes2 {
  VU h00, h10, h01, h11;
};
template <bool kHighBitsOnly = false>
HWY_INLINE CellHashes2 CellHashes(std::uint32_t seed, VU cx, VU cz) {
  const DU du;
  const VU s = hn::Set(du, seed);
  const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
  const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
  const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
  const VU z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
  return {Hash<kHighBitsOnly>(s, x0, z0), Hash<kHighBitsOnly>(s, x1, z0),
          Hash<kHighBitsOnly>(s, x0, z1), Hash<kHighBitsOnly>(s, x1, z1)};
}
struct CellHashes3 {
  VU h000, h100, h010, h110, h001, h101, h011, h111;
};
template <bool kHighBitsOnly = false>
HWY_INLINE CellHashes3 CellHashes(std::uint32_t seed, VU cx, VU cy, VU cz) {
  const DU du;
  const VU s = hn::Set(du, seed);
  const VU x0 = hn::Mul(cx, hn::Set(du, kPrimeX));
  const VU y0 = hn::Mul(cy, hn::Set(du, kPrimeY));
  const VU z0 = hn::Mul(cz, hn::Set(du, kPrimeZ));
  const VU x1 = hn::Add(x0, hn::Set(du, kPrimeX));
  const VU y1 = hn::Add(y0, hn::Set(du, kPrimeY));
  const VU z1 = hn::Add(z0, hn::Set(du, kPrimeZ));
  constexpr bool k = kHighBitsOnly;
  return {Hash<k>(s, x0, y0, z0), Hash<k>(s, x1, y0, z0), Hash<k>(s, x0, y1, z0),
          Hash<k>(s, x1, y1, z0), Hash<k>(s, x0, y0, z1), Hash<k>(s, x1, y0, z1),
          Hash<k>(s, x0, y1, z1), Hash<k>(s, x1, y1, z1)};
}

// Hash to a float in [-1, 1) using the 24 high bits.
HWY_INLINE VF HashToUnit(VU h) {
  const DF d;
  const DI di;
  const VI s = hn::BitCast(di, hn::ShiftRight<8>(h));  // 0 .. 2^24-1
  return hn::Sub(hn::Mul(hn::ConvertTo(d, s), hn::Set(d, 1.0f / 8388608.0f)), hn::Set(d, 1.0f));
}

// Flips the sign of v where bit 31 of `sign` is set.
HWY_INLINE VF FlipSign(VF v, VU sign) {
  const DF d;
  const DU du;
  return hn::BitCast(d, hn::Xor(hn::BitCast(du, v), hn::And(sign, hn::Set(du, 0x80000000u))));
}

// Moves the integer part of frac into cell, leaving frac in [0, 1).
HWY_INLINE void Normalize(VU& cell, VF& frac) {
#if HWY_TARGET == HWY_SCALAR
  // Highway's scalar Floor works on the bits with branches, and its ConvertTo checks the range
  // in double. Below 2^23 in magnitude a truncating conversion gives floor exactly. "+ 0.0f"
  // makes -0 a +0, as x86's floor(-0) = -0 does (x - floor(x) = +0).
  const float x = frac.raw;
  if (x > -8388608.0f && x < 8388608.0f) {
    std::int32_t fl = static_cast<std::int32_t>(x);
    if (static_cast<float>(fl) > x) --fl;
    cell = VU(cell.raw + static_cast<std::uint32_t>(fl));
    frac = VF((x - static_cast<float>(fl)) + 0.0f);
    return;
  }
#endif
  const DI di;
  const DU du;
  const VF fl = hn::Floor(frac);
  cell = hn::Add(cell, hn::BitCast(du, hn::ConvertTo(di, fl)));
  frac = hn::Sub(frac, fl);
}

// Normalize for fractions known to lie in [-2^22, 2^22) (a sheared lattice without warp: the sum
// of two split fractions, in [0, 2]): the floor's integer from the bits of fl + 1.5 * 2^23, which
// is exact in that range, instead of ConvertTo with its overflow fix-up.
// On the scalar target without a branch: Normalize's correction of a truncation branches on
// the fraction's sign, which a warp makes unpredictable in the fine octaves. Here x is rounded
// to an integer by adding and subtracting 1.5 * 2^23 (exact in that range), and the floor is
// that minus one where it is above x, by a compare mask; "+ 0.0f" makes -0 a +0, as the vector
// targets' x - floor(x) does. Scalar W5 took 13% less time, W2 7% less.
HWY_INLINE void NormalizeSmall(VU& cell, VF& frac) {
#if HWY_TARGET == HWY_SCALAR
  const float x = frac.raw;
  const float r = (x + 12582912.0f) - 12582912.0f;
#if HWY_ARCH_X86_64
  // The select as a compare mask (GCC makes "r > x ? 1 : 0" a branch, which mispredicts half
  // the time even without warp: r is x rounded to nearest).
  float above = x, one = 1.0f;
  asm("cmpltss %1, %0" : "+x"(above) : "x"(r));  // all ones where x < r
  asm("andps %1, %0" : "+x"(one) : "x"(above));
  const float fl = r - one;
#else
  const float fl = r - (r > x ? 1.0f : 0.0f);
#endif
  std::uint32_t bits;
  const float biased = fl + 12582912.0f;
  std::memcpy(&bits, &biased, sizeof(bits));
  cell = VU(cell.raw + (bits - 0x4B400000u));
  frac = VF((x - fl) + 0.0f);
#else
  const DF d;
  const DU du;
  const VF fl = hn::Floor(frac);
  const VU bits = hn::BitCast(du, hn::Add(fl, hn::Set(d, 12582912.0f)));
  cell = hn::Add(cell, hn::Sub(bits, hn::Set(du, 0x4B400000u)));
  frac = hn::Sub(frac, fl);
#endif
}

// ---- fractal accumulation -------------------------------------------------------------------

struct FractalState {
  VF sum, weight;
};

HWY_INLINE void Accumulate(const FractalArgs& f, int o, VF n, FractalState& s) {
  const DF d;
  const VF one = hn::Set(d, 1.0f);
  const VF amp = hn::Set(d, f.amplitude[o]);
  // The term, and the weight factor where the octaves are weighted (else it is not formed).
  const bool weighted = f.weighted_strength != 0.0f;
  VF term, factor = one;
  switch (f.type) {
    case FractalType::ridged: {
      const VF a = hn::Abs(n);
      term = hn::Sub(one, hn::Add(a, a));
      if (weighted) factor = hn::Sub(one, a);
      break;
    }
    case FractalType::billow: {
      const VF a = hn::Abs(n);
      term = hn::Sub(hn::Add(a, a), one);
      factor = a;
      break;
    }
    case FractalType::pingpong: {
      VF t = hn::Mul(hn::Add(n, one), hn::Set(d, f.pingpong_strength));
      t = hn::Sub(t, hn::Mul(hn::Floor(hn::Mul(t, hn::Set(d, 0.5f))), hn::Set(d, 2.0f)));
      factor = hn::Sub(one, hn::Abs(hn::Sub(t, one)));
      term = hn::Sub(hn::Add(factor, factor), one);
      break;
    }
    default: {  // fbm
      term = n;
      if (weighted) factor = hn::Mul(MinF(hn::Add(n, one), hn::Set(d, 2.0f)), hn::Set(d, 0.5f));
      break;
    }
  }
  if (weighted) {
    s.sum = hn::Add(s.sum, hn::Mul(hn::Mul(term, amp), s.weight));
    const VF ws = hn::Set(d, f.weighted_strength);
    s.weight = hn::Mul(s.weight, hn::Add(one, hn::Mul(ws, hn::Sub(factor, one))));
  } else {
    // The weight stays exactly 1, and a product with 1 is its other factor, bit for bit.
    s.sum = hn::Add(s.sum, hn::Mul(term, amp));
  }
}

// ---- cell memos -----------------------------------------------------------------------------

// At low frequencies tens to hundreds of consecutive samples of a row lie in one lattice cell,
// and a basis that hashes the cell's corners per sample redoes the same work for all of them. A
// basis may keep, per row and octave, what it derived from one cell's hashes, and reuse it for
// the next vectors whose lanes all lie in that cell (Memo2 below). MemoKey says which case a
// vector is: `other` where its lanes lie in several cells (the basis evaluates it as usual);
// `fill` for the vector that makes the memo the current cell's, `hit` for the later ones in the
// same cell. With kFillFirst the first vector in a cell fills (for a basis whose fill costs
// less than one usual evaluation); without, the first vector only records the cell and the
// second fills, so a cell per vector costs a compare and never a fill. The memo changes no bits:
// a basis forms the same values from it as from the hashes.
enum class MemoProbe { other, fill, hit };

template <int kAxes, bool kFillFirst>
struct MemoKey {
  std::uint32_t cell[kAxes] = {};
  bool filled = false;
  bool seen = false;  // whether cell[] holds a cell (the first vector's) at all

  HWY_INLINE MemoProbe Probe(const VU (&c)[kAxes]) {
    const DU du;
    bool one_cell = true, same = seen;
    std::uint32_t first[kAxes];
    for (int a = 0; a < kAxes; ++a) {
      first[a] = hn::GetLane(c[a]);
      one_cell = one_cell && hn::AllTrue(du, hn::Eq(c[a], hn::Set(du, first[a])));
      same = same && first[a] == cell[a];
    }
    if (!one_cell) return MemoProbe::other;
    if (same && filled) return MemoProbe::hit;
    if (!same) {
      for (int a = 0; a < kAxes; ++a) cell[a] = first[a];
      seen = true;
      filled = false;
      if (!kFillFirst) return MemoProbe::other;
    }
    filled = true;
    return MemoProbe::fill;
  }
};

// ---- 2D row driver --------------------------------------------------------------------------

// Basis requirements:
//   static constexpr bool kSheared;  // lattice axes get contributions from both input axes
//   static VF Eval2(uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&);
//   static VF Eval3(uint32_t seed, VU cx, VF fx, VU cy, VF fy, VU cz, VF fz, const BasisArgs&);
// returning values in [-1, 1].
// Optional, for a basis that is not sheared (its lattice z is the same along a row where there
// is no warp): the row-invariant part of Eval2 done once per row and octave,
//   struct Row2State;
//   static Row2State PrepareRow2(uint32_t seed, VU cz, VF fz, const BasisArgs&);
//   static VF Eval2Row(Row2State&, VU cx, VF fx, const BasisArgs&);
// with Eval2Row(PrepareRow2(seed, cz, fz, args), cx, fx, args) == Eval2(seed, cx, fx, cz, fz, args)
// bit for bit. The state belongs to one row and octave and is passed in the row's order, so
// Eval2Row may keep what it computed for the next vectors (a cache; the bits stay the same).
template <class Basis>
concept RowPrepared2 = !Basis::kSheared && requires {
  typename Basis::Row2State;
};

// Optional, a memo of one lattice cell per row and octave (see MemoKey):
//   static constexpr bool kCellMemo2;  // true on the targets where the basis uses it
//   struct Memo2;  // default-constructed empty
//   static VF Eval2Memo(Memo2&, uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs&);
//   static void Eval2PairMemo(Memo2&, uint32_t seed, VU cx, VF fx, VU cz, VF fz,
//                             const BasisArgs&, VF& a, VF& b);  // with Eval2Pair
// with the bits of Eval2 (Eval2Pair) whatever the memo holds, given the calls of one row and
// octave in the row's order.
template <class Basis>
concept CellMemo2 = requires {
  requires Basis::kCellMemo2;
};

// Whether an octave's memo pays on a row: where a vector's lanes cross a cell line about once or
// more (the fine octaves), few vectors lie in one cell, and a probe and a fill per cell cost more
// than they save. The crossings per sample are the lattice steps per column, from the column
// tables (the warp is left out: it moves cells, it does not make them smaller). SSE4 W2 took 7%
// less time than with a memo in every octave; 0.5 and 2 crossings did no better.
inline constexpr double kMemoMaxCrossingsPerVector = 1.0;
HWY_INLINE bool MemoPays(const Octave2& oc, std::size_t n) {
  const DF d;
  if (n < 2) return true;
  double crossings = 0.0;
  for (int a = 0; a < 2; ++a) {
    if (oc.col_cell[a] == nullptr) continue;
    const double cells = double(std::int32_t(oc.col_cell[a][n - 1] - oc.col_cell[a][0]));
    const double frac = double(oc.col_frac[a][n - 1]) - double(oc.col_frac[a][0]);
    crossings += std::fabs(cells + frac) / double(n - 1);
  }
  return crossings * double(hn::Lanes(d)) < kMemoMaxCrossingsPerVector;
}

// One row's memos, one per octave where it pays (MemoPays), or nothing for a basis without them.
template <class Basis>
struct RowMemos2 {
  explicit RowMemos2(const Row2&) {}
  HWY_INLINE VF Eval2(int, std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs& b) {
    return Basis::Eval2(seed, cx, fx, cz, fz, b);
  }
};
template <CellMemo2 Basis>
struct RowMemos2<Basis> {
  typename Basis::Memo2 memo[kMaxOctaves];
  bool pays[kMaxOctaves] = {};
  explicit RowMemos2(const Row2& r) {
    const int octaves = r.fractal.type == FractalType::none ? 1 : r.fractal.octaves;
    for (int o = 0; o < octaves; ++o) pays[o] = MemoPays(r.octave[o], r.n);
  }
  HWY_INLINE VF Eval2(int o, std::uint32_t seed, VU cx, VF fx, VU cz, VF fz, const BasisArgs& b) {
    if (!pays[o]) return Basis::Eval2(seed, cx, fx, cz, fz, b);
    return Basis::Eval2Memo(memo[o], seed, cx, fx, cz, fz, b);
  }
};

// Lattice coordinates of samples i.. for one octave: column tables + row scalars + warp. With
// kSmallWarp the caller has checked that the warped fractions stay in NormalizeSmall's range
// (WarpFitsSmall), where it gives the bits of Normalize.
template <class Basis, bool kWarp, bool kSmallWarp = false>
HWY_INLINE void Lattice2(const Octave2& oc, std::size_t i, VF dx, VF dz, VU& c0, VF& f0, VU& c1,
                         VF& f1) {
  const DF d;
  const DU du;
  c0 = hn::LoadU(du, oc.col_cell[0] + i);
  f0 = hn::LoadU(d, oc.col_frac[0] + i);
  c1 = hn::Set(du, oc.row_cell[1]);
  f1 = hn::Set(d, oc.row_frac[1]);
  if constexpr (Basis::kSheared) {
    c0 = hn::Add(c0, hn::Set(du, oc.row_cell[0]));
    f0 = hn::Add(f0, hn::Set(d, oc.row_frac[0]));
    c1 = hn::Add(c1, hn::LoadU(du, oc.col_cell[1] + i));
    f1 = hn::Add(f1, hn::LoadU(d, oc.col_frac[1] + i));
  }
  if constexpr (kWarp) {
    f0 = hn::Add(f0, hn::Mul(dx, hn::Set(d, oc.warp[0][0])));
    f1 = hn::Add(f1, hn::Mul(dz, hn::Set(d, oc.warp[1][1])));
    if constexpr (Basis::kSheared) {
      f0 = hn::Add(f0, hn::Mul(dz, hn::Set(d, oc.warp[0][1])));
      f1 = hn::Add(f1, hn::Mul(dx, hn::Set(d, oc.warp[1][0])));
    }
  }
  if constexpr (kWarp && !kSmallWarp) {
    Normalize(c0, f0);
    Normalize(c1, f1);
  } else if constexpr (kWarp || Basis::kSheared) {
    NormalizeSmall(c0, f0);
    NormalizeSmall(c1, f1);
  }
}

// Whether the first `octaves` octaves of a warped 2D row keep every lattice fraction within
// NormalizeSmall's range [-2^22, 2^22). A fraction is a column and a row fraction, each in
// [0, 1], plus dx * warp[a][0] + dz * warp[a][1]; with |dx|, |dz| < 2^20 / (|warp[a][0]| +
// |warp[a][1]|) it stays below 2 + 2^20 in magnitude, rounding included. A NaN or infinite
// displacement fails the test (its compare is false), so it takes Normalize as before.
HWY_INLINE bool WarpFitsSmall(const Octave2* octave, int octaves, std::size_t n, const float* dx,
                              const float* dz) {
  const DF d;
  float limit = std::numeric_limits<float>::infinity();
  for (int o = 0; o < octaves; ++o) {
    for (int a = 0; a < 2; ++a) {
      const float w = std::fabs(octave[o].warp[a][0]) + std::fabs(octave[o].warp[a][1]);
      if (w > 0.0f) limit = std::min(limit, 1048576.0f / w);
    }
  }
  const std::size_t N = hn::Lanes(d);
  const VF lim = hn::Set(d, limit);
  auto fits = hn::FirstN(d, N);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    fits = hn::And(fits, hn::Lt(hn::Abs(hn::LoadU(d, dx + i)), lim));
    fits = hn::And(fits, hn::Lt(hn::Abs(hn::LoadU(d, dz + i)), lim));
  }
  bool all = hn::AllTrue(d, fits);
  for (; i < n; ++i) all = all && std::fabs(dx[i]) < limit && std::fabs(dz[i]) < limit;
  return all;
}

template <class Basis, bool kWarp, bool kSmallWarp = false>
HWY_INLINE VF Sample2(const Row2& r, RowMemos2<Basis>& memos, std::size_t i, VF dx, VF dz) {
  const DF d;
  FractalState s{hn::Zero(d), hn::Set(d, 1.0f)};
  const int octaves = r.fractal.type == FractalType::none ? 1 : r.fractal.octaves;
  VF last = hn::Zero(d);
  for (int o = 0; o < octaves; ++o) {
    const Octave2& oc = r.octave[o];
    VU c0, c1;
    VF f0, f1;
    Lattice2<Basis, kWarp, kSmallWarp>(oc, i, dx, dz, c0, f0, c1, f1);
    last = memos.Eval2(o, oc.seed, c0, f0, c1, f1, r.basis);
    if (r.fractal.type != FractalType::none) Accumulate(r.fractal, o, last, s);
  }
  return r.fractal.type == FractalType::none ? last : ClampUnit(s.sum);
}

// Walks a row of n samples a vector at a time: eval(i, dx, dz, a, b) computes one or two
// (kOutputs) result vectors for samples i..i+N-1, which are stored to out_a / out_b. The tail is
// evaluated on a full vector (column tables are padded; displacements and results go through
// scratch), so every lane sees exactly the inputs it would in the middle of a row.
template <int kOutputs, bool kWarp, class Eval>
HWY_INLINE void RowLoop(std::size_t n, const float* dxp, const float* dzp, float* out_a,
                        float* out_b, const Eval& eval) {
  const DF d;
  const std::size_t N = hn::Lanes(d);
  VF a = hn::Zero(d), b = hn::Zero(d);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    VF dx = hn::Zero(d), dz = hn::Zero(d);
    if constexpr (kWarp) {
      dx = hn::LoadU(d, dxp + i);
      dz = hn::LoadU(d, dzp + i);
    }
    eval(i, dx, dz, a, b);
    hn::StoreU(a, d, out_a + i);
    if constexpr (kOutputs == 2) hn::StoreU(b, d, out_b + i);
  }
  if (i < n) {
    const std::size_t rest = n - i;
    HWY_ALIGN float bx[hn::MaxLanes(d)] = {}, bz[hn::MaxLanes(d)] = {};
    HWY_ALIGN float ta[hn::MaxLanes(d)], tb[hn::MaxLanes(d)];
    VF dx = hn::Zero(d), dz = hn::Zero(d);
    if constexpr (kWarp) {
      std::memcpy(bx, dxp + i, rest * sizeof(float));
      std::memcpy(bz, dzp + i, rest * sizeof(float));
      dx = hn::Load(d, bx);
      dz = hn::Load(d, bz);
    }
    eval(i, dx, dz, a, b);
    hn::Store(a, d, ta);
    std::memcpy(out_a + i, ta, rest * sizeof(float));
    if constexpr (kOutputs == 2) {
      hn::Store(b, d, tb);
      std::memcpy(out_b + i, tb, rest * sizeof(float));
    }
  }
}

// One octave of a prepared row: the basis's row state and the octave's column tables along x.
template <class State>
struct PreparedOctave {
  State state;
  const std::uint32_t* cell;
  const float* frac;
};

// The vector loop of a prepared row (Row2Prepared, Row3Prepared): prepare(o) gives octave o's
// PreparedOctave, once per row; eval_row(state, cx, fx) is the basis's Eval*Row. The states are
// locals, which the row's stores cannot alias, so nothing is reloaded per vector, and the loop
// does only the per-column work. The same bits as Sample2 / Sample3.
template <class State, class Prepare, class EvalRow>
HWY_INLINE void PreparedRowLoop(std::size_t n, float* out, const FractalArgs& fractal_args,
                                const Prepare& prepare, const EvalRow& eval_row) {
  const DF d;
  const DU du;
  if (fractal_args.type == FractalType::none) {
    PreparedOctave<State> p = prepare(0);
    RowLoop<1, false>(n, nullptr, nullptr, out, nullptr, [&](std::size_t i, VF, VF, VF& a, VF&) {
      a = eval_row(p.state, hn::LoadU(du, p.cell + i), hn::LoadU(d, p.frac + i));
    });
    return;
  }
  const FractalArgs fractal = fractal_args;
  const int octaves = fractal.octaves;
  PreparedOctave<State> p[kMaxOctaves];
  for (int o = 0; o < octaves; ++o) p[o] = prepare(o);
  RowLoop<1, false>(n, nullptr, nullptr, out, nullptr, [&](std::size_t i, VF, VF, VF& a, VF&) {
    FractalState s{hn::Zero(d), hn::Set(d, 1.0f)};
    for (int o = 0; o < octaves; ++o) {
      const VF v = eval_row(p[o].state, hn::LoadU(du, p[o].cell + i), hn::LoadU(d, p[o].frac + i));
      Accumulate(fractal, o, v, s);
    }
    a = ClampUnit(s.sum);
  });
}

// A 2D row without warp of a RowPrepared2 basis.
template <class Basis>
HWY_INLINE void Row2Prepared(const Row2& r) {
  const DF d;
  const DU du;
  using State = typename Basis::Row2State;
  const BasisArgs basis = r.basis;
  PreparedRowLoop<State>(
      r.n, r.out, r.fractal,
      [&](int o) {
        const Octave2& oc = r.octave[o];
        return PreparedOctave<State>{Basis::PrepareRow2(oc.seed, hn::Set(du, oc.row_cell[1]),
                                                        hn::Set(d, oc.row_frac[1]), basis),
                                     oc.col_cell[0], oc.col_frac[0]};
      },
      [&](State& st, VU cx, VF fx) { return Basis::Eval2Row(st, cx, fx, basis); });
}

// A fractal 2D row an octave at a time: the row is cut into chunks of kOctaveChunk samples, and
// each chunk's octaves are evaluated one after the other over all its vectors, the fractal
// state (sum, weight) kept per sample in chunk arrays in between. Per vector and octave that
// is a load and a store of the state instead of the octave's constants (seed, row terms, warp
// factors), which on 4-lane x86 are broadcasts from memory, and an octave's loop keeps them in
// registers. Each sample sees the same operations in the same order as Sample2's, and each
// octave's memo the vectors in the row's order, so the bits are Sample2's.
// On one lane the state's load and store cost more than the constants (scalar W5 took 4% longer),
// so the scalar target keeps Sample2's loop.
inline constexpr std::size_t kOctaveChunk = 256;
inline constexpr bool kOctavesOuter = hn::MaxLanes(DF()) > 1;
template <class Basis, bool kWarp, bool kSmallWarp = false>
HWY_INLINE void Row2Octaves(const Row2& r, RowMemos2<Basis>& memos) {
  const DF d;
  const std::size_t N = hn::Lanes(d);
  static_assert(kOctaveChunk % hn::MaxLanes(DF()) == 0);
  const FractalArgs fractal = r.fractal;
  const BasisArgs basis = r.basis;
  const bool weighted = fractal.weighted_strength != 0.0f;
  HWY_ALIGN float sum[kOctaveChunk], weight[kOctaveChunk];
  HWY_ALIGN float tail_dx[hn::MaxLanes(d)], tail_dz[hn::MaxLanes(d)];
  for (std::size_t base = 0; base < r.n; base += kOctaveChunk) {
    const std::size_t len = std::min(kOctaveChunk, r.n - base);
    const std::size_t full = len / N * N;  // the vectors wholly inside the row
    if (kWarp && full < len) {
      // The tail vector's displacements, zero beyond the row (as RowLoop's).
      std::fill(tail_dx, tail_dx + N, 0.0f);
      std::fill(tail_dz, tail_dz + N, 0.0f);
      std::memcpy(tail_dx, r.dx + base + full, (len - full) * sizeof(float));
      std::memcpy(tail_dz, r.dz + base + full, (len - full) * sizeof(float));
    }
    for (int o = 0; o < fractal.octaves; ++o) {
      const Octave2 oc = r.octave[o];
      for (std::size_t v = 0; v < len; v += N) {
        VF dx = hn::Zero(d), dz = hn::Zero(d);
        if constexpr (kWarp) {
          const bool inside = v < full;
          dx = inside ? hn::LoadU(d, r.dx + base + v) : hn::Load(d, tail_dx);
          dz = inside ? hn::LoadU(d, r.dz + base + v) : hn::Load(d, tail_dz);
        }
        VU c0, c1;
        VF f0, f1;
        Lattice2<Basis, kWarp, kSmallWarp>(oc, base + v, dx, dz, c0, f0, c1, f1);
        const VF n = memos.Eval2(o, oc.seed, c0, f0, c1, f1, basis);
        FractalState s{o == 0 ? hn::Zero(d) : hn::Load(d, sum + v),
                       o == 0 || !weighted ? hn::Set(d, 1.0f) : hn::Load(d, weight + v)};
        Accumulate(fractal, o, n, s);
        hn::Store(s.sum, d, sum + v);
        if (weighted) hn::Store(s.weight, d, weight + v);
      }
    }
    for (std::size_t v = 0; v < full; v += N) {
      hn::StoreU(ClampUnit(hn::Load(d, sum + v)), d, r.out + base + v);
    }
    if (full < len) {
      hn::Store(ClampUnit(hn::Load(d, sum + full)), d, sum + full);
      std::memcpy(r.out + base + full, sum + full, (len - full) * sizeof(float));
    }
  }
}

template <class Basis, bool kWarp>
HWY_INLINE void Row2Impl(const Row2& r) {
  if constexpr (!kWarp && RowPrepared2<Basis>) {
    Row2Prepared<Basis>(r);
  } else if constexpr (kWarp) {
    const int octaves = r.fractal.type == FractalType::none ? 1 : r.fractal.octaves;
    RowMemos2<Basis> memos(r);
    const bool small = WarpFitsSmall(r.octave, octaves, r.n, r.dx, r.dz);
    if (kOctavesOuter && r.fractal.type != FractalType::none) {
      if (small) {
        Row2Octaves<Basis, true, true>(r, memos);
      } else {
        Row2Octaves<Basis, true>(r, memos);
      }
    } else if (small) {
      RowLoop<1, true>(r.n, r.dx, r.dz, r.out, nullptr,
                       [&](std::size_t i, VF dx, VF dz, VF& a, VF&) {
                         a = Sample2<Basis, true, true>(r, memos, i, dx, dz);
                       });
    } else {
      RowLoop<1, true>(r.n, r.dx, r.dz, r.out, nullptr,
                       [&](std::size_t i, VF dx, VF dz, VF& a, VF&) {
                         a = Sample2<Basis, true>(r, memos, i, dx, dz);
                       });
    }
  } else {
    RowMemos2<Basis> memos(r);
    if (kOctavesOuter && r.fractal.type != FractalType::none) {
      Row2Octaves<Basis, false>(r, memos);
      return;
    }
    RowLoop<1, false>(r.n, r.dx, r.dz, r.out, nullptr,
                      [&](std::size_t i, VF dx, VF dz, VF& a, VF&) {
                        a = Sample2<Basis, false>(r, memos, i, dx, dz);
                      });
  }
}

template <class Basis>
void Row2Kernel(const Row2& r) {
  if (r.dx != nullptr) {
    Row2Impl<Basis, true>(r);
  } else {
    Row2Impl<Basis, false>(r);
  }
}

// ---- 2D pair driver (domain warp) -------------------------------------------------------

template <class Basis>
concept FusedPair = requires {
  &Basis::Eval2Pair;
};

// The pair's memo: one octave.
template <class Basis>
struct PairMemo2 {};
template <CellMemo2 Basis>
struct PairMemo2<Basis> {
  typename Basis::Memo2 memo;
};

template <class Basis, bool kWarp, bool kSmallWarp = false>
HWY_INLINE void SamplePair2(const Row2Pair& r, PairMemo2<Basis>& pm, std::size_t i, VF dx, VF dz,
                            VF& a, VF& b) {
  const Octave2& oc = r.octave[0];
  VU c0, c1;
  VF f0, f1;
  Lattice2<Basis, kWarp, kSmallWarp>(oc, i, dx, dz, c0, f0, c1, f1);
  if constexpr (FusedPair<Basis> && CellMemo2<Basis>) {
    Basis::Eval2PairMemo(pm.memo, oc.seed, c0, f0, c1, f1, r.basis, a, b);
  } else if constexpr (FusedPair<Basis>) {
    Basis::Eval2Pair(oc.seed, c0, f0, c1, f1, r.basis, a, b);
  } else {
    a = Basis::Eval2(oc.seed, c0, f0, c1, f1, r.basis);
    b = Basis::Eval2(oc.seed ^ kPairSeedFlip, c0, f0, c1, f1, r.basis);
  }
}

template <class Basis, bool kWarp>
HWY_INLINE void RowPair2Impl(const Row2Pair& r) {
  PairMemo2<Basis> pm;
  if constexpr (kWarp) {
    if (WarpFitsSmall(r.octave, 1, r.n, r.dx, r.dz)) {
      RowLoop<2, true>(r.n, r.dx, r.dz, r.out_a, r.out_b,
                       [&](std::size_t i, VF dx, VF dz, VF& a, VF& b) {
                         SamplePair2<Basis, true, true>(r, pm, i, dx, dz, a, b);
                       });
      return;
    }
  }
  RowLoop<2, kWarp>(r.n, r.dx, r.dz, r.out_a, r.out_b,
                    [&](std::size_t i, VF dx, VF dz, VF& a, VF& b) {
                      SamplePair2<Basis, kWarp>(r, pm, i, dx, dz, a, b);
                    });
}

template <class Basis>
void Row2PairKernel(const Row2Pair& r) {
  if (r.dx != nullptr) {
    RowPair2Impl<Basis, true>(r);
  } else {
    RowPair2Impl<Basis, false>(r);
  }
}

// ---- 3D row driver (rows along X; Y and Z fixed per row) ----------------------------------

template <class Basis, bool kWarp>
HWY_INLINE VF Sample3(const Row3& r, std::size_t i, VF dx, VF dy, VF dz) {
  const DF d;
  const DU du;
  FractalState s{hn::Zero(d), hn::Set(d, 1.0f)};
  const int octaves = r.fractal.type == FractalType::none ? 1 : r.fractal.octaves;
  VF last = hn::Zero(d);
  for (int o = 0; o < octaves; ++o) {
    const Octave3& oc = r.octave[o];
    VU c[3];
    VF f[3];
    for (int a = 0; a < 3; ++a) {
      c[a] = hn::Set(du, oc.row_cell[a]);
      f[a] = hn::Set(d, oc.row_frac[a]);
      if (oc.col_cell[a] != nullptr) {
        c[a] = hn::Add(c[a], hn::LoadU(du, oc.col_cell[a] + i));
        f[a] = hn::Add(f[a], hn::LoadU(d, oc.col_frac[a] + i));
      }
      if constexpr (kWarp) {
        const VF w = hn::Add(
            hn::Add(hn::Mul(dx, hn::Set(d, oc.warp[a][0])), hn::Mul(dy, hn::Set(d, oc.warp[a][1]))),
            hn::Mul(dz, hn::Set(d, oc.warp[a][2])));
        f[a] = hn::Add(f[a], w);
      }
      if constexpr (kWarp) {
        Normalize(c[a], f[a]);
      } else if constexpr (Basis::kSheared) {
        NormalizeSmall(c[a], f[a]);
      }
    }
    last = Basis::Eval3(oc.seed, c[0], f[0], c[1], f[1], c[2], f[2], r.basis);
    if (r.fractal.type != FractalType::none) Accumulate(r.fractal, o, last, s);
  }
  return r.fractal.type == FractalType::none ? last : ClampUnit(s.sum);
}

// Optional, for a basis that is not sheared: the 3D analogue of RowPrepared2. A 3D row runs
// along x, so its lattice y and z are the same in every sample where there is no warp:
//   struct Row3State;
//   static Row3State PrepareRow3(uint32_t seed, VU cy, VF fy, VU cz, VF fz, const BasisArgs&);
//   static bool Row3Exact(const Row3State&);
//   static VF Eval3Row(const Row3State&, VU cx, VF fx, const BasisArgs&);
//   static constexpr bool kPrepareRows3;  // whether it pays on this target
// with Eval3Row(PrepareRow3(seed, cy, fy, cz, fz, args), cx, fx, args)
//   == Eval3(seed, cx, fx, cy, fy, cz, fz, args) bit for bit wherever Row3Exact(state) holds;
// a row with an octave where it does not takes Sample3.
template <class Basis>
concept RowPrepared3 = !Basis::kSheared && Basis::kPrepareRows3 && requires {
  typename Basis::Row3State;
};

// A 3D row without warp of a RowPrepared3 basis (only x has column tables). False, having
// written nothing, where an octave's state is not exact.
template <class Basis>
HWY_INLINE bool Row3Prepared(const Row3& r) {
  const DF d;
  const DU du;
  using State = typename Basis::Row3State;
  const BasisArgs basis = r.basis;
  const int octaves = r.fractal.type == FractalType::none ? 1 : r.fractal.octaves;
  PreparedOctave<State> p[kMaxOctaves];
  for (int o = 0; o < octaves; ++o) {
    const Octave3& oc = r.octave[o];
    p[o] = {Basis::PrepareRow3(oc.seed, hn::Set(du, oc.row_cell[1]), hn::Set(d, oc.row_frac[1]),
                               hn::Set(du, oc.row_cell[2]), hn::Set(d, oc.row_frac[2]), basis),
            oc.col_cell[0], oc.col_frac[0]};
    if (!Basis::Row3Exact(p[o].state)) return false;
  }
  PreparedRowLoop<State>(
      r.n, r.out, r.fractal, [&](int o) { return p[o]; },
      [&](const State& st, VU cx, VF fx) { return Basis::Eval3Row(st, cx, fx, basis); });
  return true;
}

template <bool kWarp, class Basis>
HWY_INLINE void Row3Impl(const Row3& r) {
  if constexpr (!kWarp && RowPrepared3<Basis>) {
    // Only x varies along the row (no column tables for y or z): the prepared path applies.
    const Octave3& oc = r.octave[0];
    if (oc.col_cell[0] != nullptr && oc.col_cell[1] == nullptr && oc.col_cell[2] == nullptr &&
        Row3Prepared<Basis>(r)) {
      return;
    }
  }
  const DF d;
  const std::size_t N = hn::Lanes(d);
  std::size_t i = 0;
  const VF zero = hn::Zero(d);
  for (; i + N <= r.n; i += N) {
    VF dx = zero, dy = zero, dz = zero;
    if constexpr (kWarp) {
      dx = hn::LoadU(d, r.dx + i);
      dy = hn::LoadU(d, r.dy + i);
      dz = hn::LoadU(d, r.dz + i);
    }
    hn::StoreU(Sample3<Basis, kWarp>(r, i, dx, dy, dz), d, r.out + i);
  }
  if (i < r.n) {
    const std::size_t rest = r.n - i;
    HWY_ALIGN float bx[hn::MaxLanes(d)] = {}, by[hn::MaxLanes(d)] = {}, bz[hn::MaxLanes(d)] = {};
    VF dx = zero, dy = zero, dz = zero;
    if constexpr (kWarp) {
      std::memcpy(bx, r.dx + i, rest * sizeof(float));
      std::memcpy(by, r.dy + i, rest * sizeof(float));
      std::memcpy(bz, r.dz + i, rest * sizeof(float));
      dx = hn::Load(d, bx);
      dy = hn::Load(d, by);
      dz = hn::Load(d, bz);
    }
    HWY_ALIGN float out[hn::MaxLanes(d)];
    hn::Store(Sample3<Basis, kWarp>(r, i, dx, dy, dz), d, out);
    std::memcpy(r.out + i, out, rest * sizeof(float));
  }
}

template <class Basis>
void Row3Kernel(const Row3& r) {
  if (r.dx != nullptr) {
    Row3Impl<true, Basis>(r);
  } else {
    Row3Impl<false, Basis>(r);
  }
}

}  // namespace terrane::noise_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
