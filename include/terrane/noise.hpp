// terrane noise: gradient, simplex, value and cellular noise in 2D and 3D, fractals and domain
// warp. Batch API filling caller-owned grids (SIMD through Highway runtime dispatch, parallel
// over rows with oneTBB) plus a per-point convenience API that returns the same bits.
//
// Determinism: every function here is a pure function of its parameters and coordinates. The
// output is bit-identical for every SIMD target (scalar, SSE4, AVX2, AVX-512), every thread
// count, and any split of a grid into sub-rectangles (see GridSpec::sub). Kernels use only
// correctly rounded IEEE operations (+, -, *, /, sqrt, floor, min, max), never FMA, approximate
// reciprocals or library transcendentals.
//
// Precision: each sample's coordinate times the frequency is split in double into an integer
// lattice cell and a fractional part before the float kernels run, so noise 10^8 m from the
// origin is as smooth as at the origin. Lattice cells wrap modulo 2^32 (period 2^32 cells).
//
// Threading: all functions are reentrant; samplers are immutable after construction and may
// be shared between threads.
//
// SIMD target: the batch functions run on their ExecContext's target (ExecContext::simd); the
// point functions, which take no context, and samplers constructed with SimdTarget::best use
// the process-wide setting (set_simd_target / TERRANE_SIMD) at the time of each call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/schema.hpp"

namespace terrane {

enum class NoiseType {
  perlin,         // improved Perlin gradient noise, quintic fade
  opensimplex2,   // OpenSimplex2 ("fast"): 3 vertices per 2D simplex, rotated BCC lattice in 3D
  opensimplex2s,  // OpenSimplex2S ("smooth"): larger kernel, 4 (2D) / 8 (3D) contributions
  value,          // value noise, quintic interpolation of hashed lattice values
  value_cubic,    // value noise, Catmull-Rom cubic interpolation over 4^d lattice values
  cellular,       // Worley / Voronoi noise, see CellularReturn
};
enum class FractalType {
  none,      // the base noise
  fbm,       // sum of octaves noise_o * amp_o
  ridged,    // sum of (1 - 2|noise_o|) * amp_o: sharp ridges
  billow,    // sum of (2|noise_o| - 1) * amp_o: rounded hills
  pingpong,  // sum of (2 pingpong((noise_o + 1) * strength) - 1) * amp_o: terraced bands
};
enum class CellularDistance { euclidean, manhattan, chebyshev };
enum class CellularReturn {
  f1,           // distance to the nearest feature point
  f2,           // distance to the second nearest
  f2_minus_f1,  // f2 - f1: cell borders
  cell_value,   // a random value per cell (flat Voronoi cells)
};

const char* to_string(NoiseType t);
const char* to_string(FractalType t);
const char* to_string(CellularDistance t);
const char* to_string(CellularReturn t);
// Parse the names above (e.g. "opensimplex2", "f2_minus_f1"); throw Error(invalid_argument)
// listing the allowed names.
NoiseType parse_noise_type(std::string_view s);
FractalType parse_fractal_type(std::string_view s);
CellularDistance parse_cellular_distance(std::string_view s);
CellularReturn parse_cellular_return(std::string_view s);

// Parameters of one noise source (a base noise plus an optional fractal).
//
// Output range: every combination returns values in [-1, 1].
// - Base noises are scaled by their analytic bound and clamped, so |noise| <= 1.
// - Fractals multiply the octave sum by the "fractal bounding" 1 / sum_{o<octaves} gain^o. Each
//   octave term is bounded by its amplitude (weighted_strength only shrinks amplitudes), so
//   |fbm|, |ridged|, |billow|, |pingpong| <= 1.
struct NoiseParams {
  NoiseType type = NoiseType::opensimplex2;
  std::uint64_t seed = 1337;
  double frequency = 0.01;  // lattice cells per metre [Units: 1/m] [Limit: (0, 1000], finite]
  FractalType fractal = FractalType::none;
  int octaves = 3;                 // [Limit: 1..16]
  double lacunarity = 2.0;         // frequency multiplier per octave [Limit: [0.1, 16]]
  double gain = 0.5;               // amplitude multiplier per octave [Limit: [0, 4]]
  double weighted_strength = 0.0;  // octave amplitude follows the previous octave [Limit: [0, 1]]
  double pingpong_strength = 2.0;  // [Limit: (0, 64]]
  CellularDistance cellular_distance = CellularDistance::euclidean;
  CellularReturn cellular_return = CellularReturn::f1;
  // Feature-point displacement from the cell centre, as a fraction of the largest safe radius
  // (0.4375 cells, as FastNoise) [Limit: [0, 1]].
  double cellular_jitter = 1.0;

  // Schema table (terrane/schema.hpp): the scalar keys of a noise object and their limits
  // (cellular_jitter is "jitter"); type, fractal and the cellular enums are read by name.
  static std::span<const Field<NoiseParams>> fields();
  // Throws Error(invalid_argument) naming `path` + field, the value and the allowed range.
  void validate(std::string_view path = "noise") const;
};

// Domain warp: displaces sample positions by a noise vector field before another noise (or a
// whole sub-graph) is evaluated: p' = p + amplitude_m * (n_x(p), n_z(p)).
enum class WarpFractal {
  none,         // one layer
  progressive,  // each octave is sampled at the position warped by the previous octaves
  independent,  // each octave is sampled at the unwarped position; displacements add up
};
const char* to_string(WarpFractal t);
WarpFractal parse_warp_fractal(std::string_view s);

struct WarpParams {
  NoiseType basis = NoiseType::opensimplex2;  // any type but cellular
  std::uint64_t seed = 7331;
  double frequency = 0.005;   // [Units: 1/m] [Limit: (0, 1000]]
  double amplitude_m = 30.0;  // largest displacement per axis of the first octave [Units: m]
                              // [Limit: [0, 1e6]]
  WarpFractal fractal = WarpFractal::none;
  int octaves = 3;          // [Limit: 1..16], used when fractal != none
  double lacunarity = 2.0;  // [Limit: [0.1, 16]]
  double gain = 0.5;        // [Limit: [0, 4]]; octave o has amplitude amplitude_m * gain^o *
                            // bounding, bounding = 1 / sum gain^o (total stays <= amplitude_m)

  // Schema table: the scalar keys of a warp node and their limits (basis, fractal: by name).
  static std::span<const Field<WarpParams>> fields();
  void validate(std::string_view path = "warp") const;
};

// ---------------------------------------------------------------------------------------------
// Point API (convenience; returns exactly the batch API's value at the same coordinates; the
// process-wide SIMD target)

float noise_at(const NoiseParams& p, double x_m, double z_m);
float noise_at(const NoiseParams& p, double x_m, double y_m, double z_m);
// Displacement (metres) the warp applies at (x, z).
void warp_at(const WarpParams& w, double x_m, double z_m, float& dx_m, float& dz_m);

// ---------------------------------------------------------------------------------------------
// Batch API

// out[j * width + i] = noise at (grid.x_m(i), grid.z_m(j)). out.size() must equal
// grid.sample_count(). Throws Error on invalid params / grid / size.
void noise_fill(const NoiseParams& p, const GridSpec& grid, std::span<float> out,
                const ExecContext& ctx = {});
// Same, evaluated at the warped positions.
void noise_fill_warped(const NoiseParams& p, const WarpParams& w, const GridSpec& grid,
                       std::span<float> out, const ExecContext& ctx = {});
// out[(k * size_y + j) * size_x + i] = noise at (x_m(i), y_m(j), z_m(k)).
void noise_fill3(const NoiseParams& p, const GridSpec3& grid, std::span<float> out,
                 const ExecContext& ctx = {});

// A noise prepared for one grid: per-column lattice tables are computed once, then any row or
// row segment is evaluated, optionally at displaced positions. This is the building block of
// compiled generator graphs. Immutable after construction; row() is thread-safe.
class NoiseGridSampler {
 public:
  // Validates p and grid. simd: the target its rows run on; best = the process-wide setting at
  // each call, another target is fixed here (Error(invalid_argument) when unsupported; pass
  // ExecContext::simd).
  NoiseGridSampler(const NoiseParams& p, const GridSpec& grid, SimdTarget simd = SimdTarget::best);
  ~NoiseGridSampler();
  NoiseGridSampler(NoiseGridSampler&&) noexcept;
  NoiseGridSampler& operator=(NoiseGridSampler&&) noexcept;

  // out[k] = noise at (x_m(i0 + k) + dx[k], z_m(j) + dz[k]), 0 <= k < out.size().
  // dx and dz are both null (no displacement) or both point to out.size() floats (metres).
  // Requires 0 <= j < height and 0 <= i0, i0 + out.size() <= width.
  void row(int j, int i0, std::span<float> out, const float* dx = nullptr,
           const float* dz = nullptr) const;
  // Two independent noises of this sampler's basis at the same positions, sharing one lattice
  // evaluation where the basis supports it (the x and z displacement of a domain warp).
  // Requires fractal == none; out_b.size() == out_a.size(); otherwise as row().
  void row_pair(int j, int i0, std::span<float> out_a, std::span<float> out_b,
                const float* dx = nullptr, const float* dz = nullptr) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Working memory of WarpGridSampler::row, owned by the caller: one per thread (or per task),
// reused from call to call so that rows allocate nothing once it has held a row of that length.
// Its contents between calls are unspecified.
struct WarpScratch {
  std::vector<float> nx, nz, base_x, base_z;
  std::size_t bytes() const;  // capacity held [Units: bytes]
};

// A domain warp prepared for one grid (same contract as NoiseGridSampler, including simd).
class WarpGridSampler {
 public:
  WarpGridSampler(const WarpParams& w, const GridSpec& grid, SimdTarget simd = SimdTarget::best);
  ~WarpGridSampler();
  WarpGridSampler(WarpGridSampler&&) noexcept;
  WarpGridSampler& operator=(WarpGridSampler&&) noexcept;

  // In/out: dx, dz hold the displacement (metres) already applied to samples
  // (x_m(i0 + k), z_m(j)); the warp is sampled at the displaced position and its displacement
  // is added. Start from zeros for a single warp; nested warps compose by chaining calls.
  // scratch: the caller's working memory (not shared between concurrent calls); nullptr =
  // buffers allocated for this call only (4 * dx.size() floats).
  void row(int j, int i0, std::span<float> dx, std::span<float> dz,
           WarpScratch* scratch = nullptr) const;
  // row() for samples not displaced yet: dx and dz are overwritten with the warp's displacement
  // (their contents on entry are ignored). The bits of row() on zeros, with less work: the
  // layers that see the undisplaced grid are evaluated without displacement.
  void row_from_rest(int j, int i0, std::span<float> dx, std::span<float> dz,
                     WarpScratch* scratch = nullptr) const;

 private:
  void displace(int j, int i0, std::span<float> dx, std::span<float> dz, WarpScratch* scratch,
                bool at_rest) const;

  std::vector<NoiseGridSampler> layers_;  // one per octave, evaluated with row_pair()
  std::vector<float> layer_amplitude_m_;
  WarpFractal fractal_ = WarpFractal::none;
};

// ---------------------------------------------------------------------------------------------
// Volume samplers (3D): the building blocks of voxel density graphs. Same contract as the grid
// samplers, for rows along x of a GridSpec3: row (j, k) is y_m(j), z_m(k).

class NoiseVolumeSampler {
 public:
  NoiseVolumeSampler(const NoiseParams& p, const GridSpec3& grid,
                     SimdTarget simd = SimdTarget::best);
  ~NoiseVolumeSampler();
  NoiseVolumeSampler(NoiseVolumeSampler&&) noexcept;
  NoiseVolumeSampler& operator=(NoiseVolumeSampler&&) noexcept;

  // out[n] = noise at (x_m(i0 + n) + dx[n], y_m(j) + dy[n], z_m(k) + dz[n]). dx, dy, dz are all
  // null (no displacement) or all point to out.size() floats (metres). Requires
  // 0 <= j < size_y, 0 <= k < size_z, 0 <= i0, i0 + out.size() <= size_x.
  void row(int j, int k, int i0, std::span<float> out, const float* dx = nullptr,
           const float* dy = nullptr, const float* dz = nullptr) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Working memory of WarpVolumeSampler::row (one per thread; contents unspecified between calls).
struct WarpScratch3 {
  std::vector<float> n[3], base[3];
};

// A 3D domain warp: p' = p + amplitude_m * (n_x(p), n_y(p), n_z(p)), three independent noises of
// the warp's basis (seeds derived from the layer seed), layered as WarpParams::fractal says.
class WarpVolumeSampler {
 public:
  WarpVolumeSampler(const WarpParams& w, const GridSpec3& grid, SimdTarget simd = SimdTarget::best);
  ~WarpVolumeSampler();
  WarpVolumeSampler(WarpVolumeSampler&&) noexcept;
  WarpVolumeSampler& operator=(WarpVolumeSampler&&) noexcept;

  // In/out: the displacement already applied to the samples of row (j, k) from column i0; the
  // warp's displacement is added (as WarpGridSampler::row). dx, dy, dz have equal sizes.
  void row(int j, int k, int i0, std::span<float> dx, std::span<float> dy, std::span<float> dz,
           WarpScratch3* scratch = nullptr) const;
  // As WarpGridSampler::row_from_rest: row() on zeros, the entry contents ignored.
  void row_from_rest(int j, int k, int i0, std::span<float> dx, std::span<float> dy,
                     std::span<float> dz, WarpScratch3* scratch = nullptr) const;

 private:
  void displace(int j, int k, int i0, std::span<float> dx, std::span<float> dy, std::span<float> dz,
                WarpScratch3* scratch, bool at_rest) const;

  std::vector<NoiseVolumeSampler> layers_;  // three per octave: x, y, z
  std::vector<float> layer_amplitude_m_;
  WarpFractal fractal_ = WarpFractal::none;
};

}  // namespace terrane
