// terrane core: grids, fields, errors, hashing, execution settings (threads, SIMD target,
// progress). Depends on nothing else in terrane.
//
// Conventions (docs/DESIGN.md §3): metres, Y up, the height field lies in X/Z; sample (i, j) of a
// grid is at world (x(i), z(j)); storage is row-major with j as the row.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Errors

enum class ErrorCategory {
  invalid_argument,  // a parameter outside its documented range
  parse,             // malformed preset / JSON / file contents
  io,                // a file could not be read or written
  limit,             // a request beyond a documented resource cap (checked before allocating)
  internal,          // should not happen; a bug
};

const char* to_string(ErrorCategory c);

// The one exception type thrown at API boundaries. what() is a complete, user-facing message
// naming the file / JSON path / value / allowed range.
class Error : public std::runtime_error {
 public:
  Error(ErrorCategory category, const std::string& message)
      : std::runtime_error(message), category_(category) {}
  ErrorCategory category() const noexcept { return category_; }

 private:
  ErrorCategory category_;
};

// ---------------------------------------------------------------------------------------------
// Grids

// Largest grid terrane allocates, in samples (2^30 floats = 4 GiB), and per side.
inline constexpr std::int64_t kMaxGridSamples = std::int64_t{1} << 30;
inline constexpr int kMaxGridSide = 65536;

// A regular 2D grid of samples in the X/Z plane.
//
// Sample (i, j), 0 <= i < width, 0 <= j < height, lies at world
//   x = origin_x_m + double(index_x0 + i) * spacing_m
//   z = origin_z_m + double(index_z0 + j) * spacing_m.
// The integer offsets make sub-rectangles exact: a sub-grid keeps origin and spacing and moves
// the offsets, so every sample's world coordinate is computed by the same expression whatever
// the split (docs/DESIGN.md §1: any split of a region gives the same bits). Chunk (cx, cz) of N
// cells is the grid with index_x0 = cx * N, index_z0 = cz * N.
struct GridSpec {
  int width = 0;                // samples along X   [Limit: 1..kMaxGridSide]
  int height = 0;               // samples along Z   [Limit: 1..kMaxGridSide]
  double spacing_m = 1.0;       // distance between samples [Units: m] [Limit: > 0, finite]
  double origin_x_m = 0.0;      // [Units: m] finite
  double origin_z_m = 0.0;      // [Units: m] finite
  std::int64_t index_x0 = 0;    // integer sample offset along X
  std::int64_t index_z0 = 0;    // integer sample offset along Z

  double x_m(std::int64_t i) const { return origin_x_m + double(index_x0 + i) * spacing_m; }
  double z_m(std::int64_t j) const { return origin_z_m + double(index_z0 + j) * spacing_m; }
  std::size_t sample_count() const { return std::size_t(width) * std::size_t(height); }
  // The sub-rectangle [i0, i0+w) x [j0, j0+h) of this grid, with identical sample positions.
  GridSpec sub(int i0, int j0, int w, int h) const;
  // Throws Error(limit / invalid_argument) naming `what` when sizes or spacing are invalid.
  void validate(std::string_view what = "grid") const;
};

// A regular 3D grid: sample (i, j, k) at (x(i), y(j), z(k)); storage x fastest, then y, then z.
struct GridSpec3 {
  int size_x = 0, size_y = 0, size_z = 0;
  double spacing_m = 1.0;
  double origin_x_m = 0.0, origin_y_m = 0.0, origin_z_m = 0.0;
  std::int64_t index_x0 = 0, index_y0 = 0, index_z0 = 0;

  double x_m(std::int64_t i) const { return origin_x_m + double(index_x0 + i) * spacing_m; }
  double y_m(std::int64_t j) const { return origin_y_m + double(index_y0 + j) * spacing_m; }
  double z_m(std::int64_t k) const { return origin_z_m + double(index_z0 + k) * spacing_m; }
  std::size_t sample_count() const {
    return std::size_t(size_x) * std::size_t(size_y) * std::size_t(size_z);
  }
  void validate(std::string_view what = "grid") const;
};

// A height field (or any scalar field) in metres: a GridSpec plus row-major samples.
struct Field2D {
  GridSpec grid;
  std::vector<float> data;

  Field2D() = default;
  // Allocates grid.sample_count() zeros after grid.validate().
  explicit Field2D(const GridSpec& g);

  float& at(int i, int j) { return data[std::size_t(j) * std::size_t(grid.width) + i]; }
  float at(int i, int j) const { return data[std::size_t(j) * std::size_t(grid.width) + i]; }
  std::span<float> row(int j) { return {data.data() + std::size_t(j) * grid.width, std::size_t(grid.width)}; }
  std::span<const float> row(int j) const {
    return {data.data() + std::size_t(j) * grid.width, std::size_t(grid.width)};
  }
};

// ---------------------------------------------------------------------------------------------
// Hashing and counter-based random numbers (never std::*_distribution: docs/DESIGN.md §1)

// SplitMix64 finaliser: a bijective 64-bit mix.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
constexpr std::uint64_t hash_combine(std::uint64_t a, std::uint64_t b) {
  return mix64(a ^ (mix64(b) + 0x632BE59BD9B4E019ull));
}
// FNV-1a 64 over bytes: stable content hashes for goldens and sidecars.
std::uint64_t hash_bytes(const void* data, std::size_t n, std::uint64_t h = 0xCBF29CE484222325ull);
inline std::uint64_t hash_floats(std::span<const float> v) { return hash_bytes(v.data(), v.size_bytes()); }
// Uniform float in [0, 1) from a 64-bit hash (24 high bits).
constexpr float unit_float(std::uint64_t h) { return float(h >> 40) * (1.0f / 16777216.0f); }

// ---------------------------------------------------------------------------------------------
// SIMD target selection

// Instruction sets the noise kernels are compiled for. All produce bit-identical output; the
// setting exists for tests and for users who want to compare or work around a CPU.
enum class SimdTarget { best, scalar, sse4, avx2, avx3 };

const char* to_string(SimdTarget t);
// Parses "best" | "scalar" | "sse4" | "avx2" | "avx3"; throws Error(invalid_argument).
SimdTarget parse_simd_target(std::string_view name);
// Process-wide choice. Initialised from the environment variable TERRANE_SIMD on first use
// (an invalid value there is an error at that point). Throws Error(invalid_argument) when the
// requested target is not supported by this CPU. Thread-safe.
void set_simd_target(SimdTarget t);
SimdTarget simd_target();
// The target actually used after resolving `best` (never `best`).
SimdTarget resolved_simd_target();
// Targets this CPU can run (and this build has compiled), best first, always ending in scalar.
std::vector<SimdTarget> supported_simd_targets();

// ---------------------------------------------------------------------------------------------
// Execution context: threads, progress, cancellation (a context object, not globals).

struct ExecContext {
  // Worker threads for data-parallel work; 0 = all hardware threads. Results never depend on it.
  int threads = 0;
  // Called from the calling thread or a worker with a fraction in [0, 1]; may be empty.
  std::function<void(double fraction)> progress;
  // Set by another thread to stop long work early; work then throws Error(internal,"cancelled").
  const std::atomic<bool>* cancel = nullptr;

  bool cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
};

// Runs body(begin, end) over [0, n) in chunks of `grain` on ctx.threads workers. The split is a
// scheduling choice only: callers must make each index's result independent of it.
void parallel_for(const ExecContext& ctx, std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t begin, std::int64_t end)>& body);

}  // namespace terrane
