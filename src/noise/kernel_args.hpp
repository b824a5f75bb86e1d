// Internal: the plain-data interface between the noise samplers (host side, double precision
// coordinate splitting) and the SIMD row kernels (float, Highway dispatch). No Highway here.
//
// Every kernel evaluates one row (or row segment) of n samples. A sample's position in lattice
// space is split into an integer cell (uint32, wrapping) and a float fraction per lattice
// axis. For each octave and lattice axis a, the position is the sum of a per-column
// contribution (tables indexed by the sample's column, computed once per grid in double) and a
// per-row contribution (a scalar, computed per row in double), optionally plus a warp
// displacement (metres) times a float matrix. Bases with a sheared lattice (OpenSimplex2/2S)
// get contributions from every input axis; the others only from their own.
#pragma once

#include <cstddef>
#include <cstdint>

#include "terrane/noise.hpp"

namespace terrane::noise_detail {

inline constexpr int kMaxOctaves = 16;
// Column tables are padded so a full SIMD vector (up to 16 floats) can be loaded past the end.
inline constexpr int kTablePad = 16;

// 32-bit hash constants for lattice coordinates (odd multipliers with good avalanche).
inline constexpr std::uint32_t kPrimeX = 0x9E3779B1u;
inline constexpr std::uint32_t kPrimeY = 0x85EBCA77u;
inline constexpr std::uint32_t kPrimeZ = 0xC2B2AE3Du;
inline constexpr std::uint32_t kHashMul = 0x27D4EB2Fu;

struct Octave2 {
  std::uint32_t seed;
  const std::uint32_t* col_cell[2];  // [axis] per-column cell contribution, null if none
  const float* col_frac[2];
  std::uint32_t row_cell[2];  // [axis] per-row contribution
  float row_frac[2];
  float warp[2][2];  // lattice axis a += dx * warp[a][0] + dz * warp[a][1]
};

struct Octave3 {
  std::uint32_t seed;
  const std::uint32_t* col_cell[3];
  const float* col_frac[3];
  std::uint32_t row_cell[3];
  float row_frac[3];
  float warp[3][3];  // lattice axis a += (dx * warp[a][0] + dy * warp[a][1]) + dz * warp[a][2]
};

struct FractalArgs {
  FractalType type;
  int octaves;                   // 1 when type == none
  float amplitude[kMaxOctaves];  // bounding * gain^o
  float weighted_strength;
  float pingpong_strength;
};

struct BasisArgs {
  CellularDistance cellular_distance;
  CellularReturn cellular_return;
  float cellular_jitter;  // feature-point radius in cells (jitter * 0.4375)
  // Derived from the three above by set_cellular_bounds (noise/cellular_bounds.hpp), once per
  // call: the output map's scale for 2D and 3D samples, and the ring bounds.
  float cellular_map2 = 0.0f;
  float cellular_map3 = 0.0f;
  float cellular_ring[4] = {};
};

struct Row2 {
  const Octave2* octave;
  FractalArgs fractal;
  BasisArgs basis;
  std::size_t n;
  const float* dx;  // null, or n displacements in metres
  const float* dz;
  float* out;
};

struct Row3 {
  const Octave3* octave;
  FractalArgs fractal;
  BasisArgs basis;
  std::size_t n;
  float* out;
  const float* dx = nullptr;  // null, or n displacements in metres (all three or none)
  const float* dy = nullptr;
  const float* dz = nullptr;
};

// Two independent noises of one basis sharing a single lattice evaluation (octave[0] only, no
// fractal): the x and z displacements of a domain warp. Bases with a fused evaluation derive
// the second value from other bits of the same lattice hashes; the others evaluate twice with
// the seed XOR kPairSeedFlip.
struct Row2Pair {
  const Octave2* octave;
  BasisArgs basis;
  std::size_t n;
  const float* dx;  // null, or n displacements in metres
  const float* dz;
  float* out_a;
  float* out_b;
};
inline constexpr std::uint32_t kPairSeedFlip = 0x5851F42Du;

using Row2Fn = void (*)(const Row2&);
using Row3Fn = void (*)(const Row3&);
using Row2PairFn = void (*)(const Row2Pair&);

// Row kernels, one set per basis (each in its own translation unit): <basis>_row2 etc. dispatch
// to the process-wide SIMD target at every call; <basis>_row2_for(target) etc. return the
// kernel of one target (`best` = the process-wide one now; Error(invalid_argument) when the
// target is unsupported).
Row2Fn perlin_row2_for(SimdTarget t);
Row3Fn perlin_row3_for(SimdTarget t);
Row2PairFn perlin_row2_pair_for(SimdTarget t);
Row2Fn opensimplex2_row2_for(SimdTarget t);
Row3Fn opensimplex2_row3_for(SimdTarget t);
Row2PairFn opensimplex2_row2_pair_for(SimdTarget t);
Row2Fn opensimplex2s_row2_for(SimdTarget t);
Row3Fn opensimplex2s_row3_for(SimdTarget t);
Row2PairFn opensimplex2s_row2_pair_for(SimdTarget t);
Row2Fn value_row2_for(SimdTarget t);
Row3Fn value_row3_for(SimdTarget t);
Row2PairFn value_row2_pair_for(SimdTarget t);
Row2Fn value_cubic_row2_for(SimdTarget t);
Row3Fn value_cubic_row3_for(SimdTarget t);
Row2PairFn value_cubic_row2_pair_for(SimdTarget t);
Row2Fn cellular_row2_for(SimdTarget t);
Row3Fn cellular_row3_for(SimdTarget t);
Row2PairFn cellular_row2_pair_for(SimdTarget t);

void perlin_row2(const Row2& r);
void perlin_row3(const Row3& r);
void opensimplex2_row2(const Row2& r);
void opensimplex2_row3(const Row3& r);
void opensimplex2s_row2(const Row2& r);
void opensimplex2s_row3(const Row3& r);
void value_row2(const Row2& r);
void value_row3(const Row3& r);
void value_cubic_row2(const Row2& r);
void value_cubic_row3(const Row3& r);
void cellular_row2(const Row2& r);
void cellular_row3(const Row3& r);
void perlin_row2_pair(const Row2Pair& r);
void opensimplex2_row2_pair(const Row2Pair& r);
void opensimplex2s_row2_pair(const Row2Pair& r);
void value_row2_pair(const Row2Pair& r);
void value_cubic_row2_pair(const Row2Pair& r);
void cellular_row2_pair(const Row2Pair& r);

}  // namespace terrane::noise_detail
