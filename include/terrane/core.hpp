// terrane core: grids, fields, errors, hashing, execution settings (threads, SIMD target,
// progress, cancellation, log). Depends on nothing else in terrane.
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
  // The work was stopped through ExecContext::cancel: a status, not a failure of the input.
  // Recognise it by category() alone (what() is "cancelled", but is not part of the contract).
  cancelled,
};

const char* to_string(ErrorCategory c);

// `message` with every control character (below 0x20, and 0x7f) written as an escape: \n, \r,
// \t, or \xNN; other bytes (UTF-8 included) unchanged.
std::string one_line_message(std::string_view message);

// The one exception type thrown at API boundaries. what() is a complete, user-facing message
// naming the file / JSON path / value / allowed range, on one line: control characters in it
// (a JSON key or name echoed from the input may hold any) are written as escapes, \n, \t, \r,
// \xNN (one_line_message). An Error thrown by work running on a worker thread (parallel_for,
// the Streamer's jobs) reaches the caller with its category and message intact.
class Error : public std::runtime_error {
 public:
  Error(ErrorCategory category, const std::string& message)
      : std::runtime_error(one_line_message(message)), category_(category) {}
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
  int width = 0;              // samples along X   [Limit: 1..kMaxGridSide]
  int height = 0;             // samples along Z   [Limit: 1..kMaxGridSide]
  double spacing_m = 1.0;     // distance between samples [Units: m] [Limit: > 0, finite]
  double origin_x_m = 0.0;    // [Units: m] finite
  double origin_z_m = 0.0;    // [Units: m] finite
  std::int64_t index_x0 = 0;  // integer sample offset along X
  std::int64_t index_z0 = 0;  // integer sample offset along Z

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

struct ExecContext;

// A height field (or any scalar field) in metres: a GridSpec plus row-major samples.
struct Field2D {
  GridSpec grid;
  std::vector<float> data;

  Field2D() = default;
  // Allocates grid.sample_count() zeros after grid.validate().
  explicit Field2D(const GridSpec& g);
  // The same, with the fresh pages of a large field faulted in (and so zeroed by the kernel) on
  // ctx's workers rather than all on the calling thread: 4097^2 floats take about 0.1 s to fault
  // on one core. ctx's progress callback is not called.
  Field2D(const GridSpec& g, const ExecContext& ctx);

  float& at(int i, int j) { return data[std::size_t(j) * std::size_t(grid.width) + i]; }
  float at(int i, int j) const { return data[std::size_t(j) * std::size_t(grid.width) + i]; }
  std::span<float> row(int j) {
    return {data.data() + std::size_t(j) * grid.width, std::size_t(grid.width)};
  }
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
inline std::uint64_t hash_floats(std::span<const float> v) {
  return hash_bytes(v.data(), v.size_bytes());
}
// Uniform float in [0, 1) from a 64-bit hash (24 high bits).
constexpr float unit_float(std::uint64_t h) {
  return float(h >> 40) * (1.0f / 16777216.0f);
}

// ---------------------------------------------------------------------------------------------
// SIMD target selection

// Instruction sets the noise kernels are compiled for. All produce bit-identical output; the
// setting exists for tests and for users who want to compare or work around a CPU.
enum class SimdTarget { best, scalar, sse4, avx2, avx3 };

const char* to_string(SimdTarget t);
// Parses "best" | "scalar" | "sse4" | "avx2" | "avx3"; throws Error(invalid_argument).
SimdTarget parse_simd_target(std::string_view name);
// Process-wide choice: the default of every ExecContext (ExecContext::simd = best) and the
// target of functions that take no ExecContext (per-point conveniences such as noise_at,
// evaluate_at, TerrainQuery). Initialised from the environment variable TERRANE_SIMD on first
// use (an invalid value there is an error at that point). Throws Error(invalid_argument) when
// the requested target is not supported by this CPU. Thread-safe.
void set_simd_target(SimdTarget t);
SimdTarget simd_target();
// The target actually used after resolving `best` (never `best`).
SimdTarget resolved_simd_target();
// Targets this CPU can run (and this build has compiled), best first, always ending in scalar.
std::vector<SimdTarget> supported_simd_targets();

// ---------------------------------------------------------------------------------------------
// Execution context: threads, SIMD target, progress, cancellation, log (a context object, not
// globals). A function that takes an ExecContext applies all of it to the work it does; the
// context is borrowed for the duration of the call (its callbacks and `cancel` must outlive it).

enum class LogLevel { debug, info, warning };
const char* to_string(LogLevel level);  // "debug" | "info" | "warning"

inline constexpr int kMaxThreads = 256;

struct ExecContext {
  // Worker threads for data-parallel work; 0 = all hardware threads. Results never depend on it.
  // [Limit: 0..kMaxThreads]; parallel work refuses anything else with Error(invalid_argument)
  // "threads = <n> is outside the allowed range 0..256".
  int threads = 0;
  // Called from the calling thread or a worker with a fraction in [0, 1]; may be empty.
  std::function<void(double fraction)> progress;
  // Set by another thread to stop long work early; the work then throws
  // Error(ErrorCategory::cancelled) (see throw_if_cancelled). Outputs are unspecified then.
  const std::atomic<bool>* cancel = nullptr;
  // Where library code reports what is worth telling but is not an error (e.g. a RAW16 size
  // that Unity will refuse). Called from the calling thread or a worker, possibly concurrently
  // from several workers: it must be thread-safe. The message is only valid during the call.
  // Empty: messages are dropped. Use log_message() / warn() rather than calling it directly.
  std::function<void(LogLevel level, std::string_view message)> log;
  // SIMD target of the kernels run with this context. `best` = the process-wide setting
  // (set_simd_target / TERRANE_SIMD, which itself defaults to the best supported target); any
  // other value forces that target for this work only. Results are bit-identical for every
  // target. A target this CPU or build does not support is Error(invalid_argument), raised
  // before any work by every function that runs kernels or parallel loops with the context
  // (see resolved_simd_target(const ExecContext&)).
  SimdTarget simd = SimdTarget::best;

  bool cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
};

// Throws Error(ErrorCategory::cancelled, "cancelled") when ctx.cancelled(). The one way terrane
// reports cancellation.
void throw_if_cancelled(const ExecContext& ctx);
// Sends `message` to ctx.log at `level`; a no-op when ctx.log is empty.
void log_message(const ExecContext& ctx, LogLevel level, std::string_view message);
inline void warn(const ExecContext& ctx, std::string_view message) {
  log_message(ctx, LogLevel::warning, message);
}
// The target work with this context runs on (never `best`): ctx.simd, or resolved_simd_target()
// when ctx.simd is best. Throws Error(invalid_argument) naming the target and the supported
// ones when ctx.simd is not supported by this CPU or build. Thread-safe.
SimdTarget resolved_simd_target(const ExecContext& ctx);

// Wall-clock and CPU time of one stage of a pipeline (bake's BakeReport::stages,
// apply_region_ops). cpu_s is the whole process's CPU time over the stage, every thread
// included, so cpu_s / wall_s is how many cores the stage kept busy (on an otherwise idle
// process). peak_rss_bytes is the process's peak resident memory during the stage, where the
// system tells it (Linux), else 0.
struct StageTiming {
  std::string name;
  double wall_s = 0.0;  // [Units: s]
  double cpu_s = 0.0;   // [Units: s]
  std::uint64_t peak_rss_bytes = 0;  // [Units: bytes]
};

// The process's peak resident memory in bytes (Linux: VmHWM): since it began, or since a
// StageClock measuring peaks last reset it; 0 where the system does not tell it.
std::uint64_t peak_resident_bytes();

// Times stages one after another: each stop(name) records the time since the last stop (or
// construction) into `out`. Not thread-safe; one per pipeline. With `peaks` (and a non-null
// `out`) it also measures each stage's peak resident memory: on Linux it resets the process's
// peak counter (VmHWM, through /proc/self/clear_refs) at each stage's start, so what the
// process's own VmHWM and getrusage's ru_maxrss (time(1)'s maximum resident size) report
// afterwards is the peak since the last stage began; the largest of the stages' peaks is the
// whole pipeline's. Without `peaks`, peak_rss_bytes stays 0 and the counter is left alone.
class StageClock {
 public:
  explicit StageClock(std::vector<StageTiming>* out, bool peaks = false);
  void stop(std::string name);
  // Starts the next stage now without recording the time since the last stop.
  void restart();

 private:
  std::vector<StageTiming>* out_;
  bool peaks_ = false;
  double wall_ = 0.0, cpu_ = 0.0;
};

// Runs body(begin, end) over [0, n) in chunks of `grain` on ctx.threads workers. The split is a
// scheduling choice only: callers must make each index's result independent of it.
// Checks a forced ctx.simd first (Error(invalid_argument) when unsupported) and ctx.cancel
// before each chunk (Error(cancelled) once set). An exception thrown by `body`, on any thread,
// stops the remaining chunks and is rethrown to the caller as it was thrown (a terrane::Error
// keeps its category and message).
void parallel_for(const ExecContext& ctx, std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t begin, std::int64_t end)>& body);
// How many workers parallel_for runs with this context: ctx.threads, or the hardware threads
// TBB would use when it is 0. At least 1.
int worker_count(const ExecContext& ctx);

}  // namespace terrane
