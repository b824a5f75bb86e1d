// Helpers shared by the erosion module's algorithm files (not public API).
#pragma once

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "terrane/core.hpp"

namespace terrane::erosion_detail {

inline std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

[[noreturn]] inline void fail(std::string_view path, const char* field, const std::string& value,
                              const std::string& allowed) {
  std::string msg(path);
  msg += '.';
  msg += field;
  msg += " = ";
  msg += value;
  msg += " is outside the allowed range ";
  msg += allowed;
  throw Error(ErrorCategory::invalid_argument, msg);
}

// v must be finite and in [lo, hi] (or (lo, hi] / [lo, hi) when open at that end).
inline void check_range(std::string_view path, const char* field, double v, double lo, double hi,
                        bool lo_open = false, bool hi_open = false) {
  const bool ok = std::isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (!ok) {
    std::string allowed = lo_open ? "(" : "[";
    allowed += fmt(lo);
    allowed += ", ";
    allowed += fmt(hi);
    allowed += hi_open ? ")" : "]";
    fail(path, field, fmt(v), allowed);
  }
}

inline void check_int(std::string_view path, const char* field, std::int64_t v, std::int64_t lo,
                      std::int64_t hi) {
  if (v < lo || v > hi) {
    fail(path, field, std::to_string(v), std::to_string(lo) + ".." + std::to_string(hi));
  }
}

// An ExecContext for inner parallel loops: same threads and cancellation, no progress (the
// caller reports progress at its own granularity).
inline ExecContext quiet(const ExecContext& ctx) {
  ExecContext q;
  q.threads = ctx.threads;
  q.cancel = ctx.cancel;
  return q;
}

inline void check_cancel(const ExecContext& ctx) {
  if (ctx.cancelled()) throw Error(ErrorCategory::internal, "cancelled");
}

inline void report(const ExecContext& ctx, double fraction) {
  if (ctx.progress) ctx.progress(fraction);
}

// The 8 neighbours in a fixed order: E, W, S, N (axial, distance 1), then SE, SW, NE, NW
// (diagonal, distance sqrt 2). "S" is +j.
inline constexpr int kDi[8] = {1, -1, 0, 0, 1, -1, 1, -1};
inline constexpr int kDj[8] = {0, 0, 1, -1, 1, 1, -1, -1};

}  // namespace terrane::erosion_detail

#include <span>
#include <vector>

namespace terrane::erosion_detail {

// Priority-Flood (priority_flood.cpp) of the cells not yet `drained`. Drained cells (the outlets
// and every cell with a strictly descending D8 path to one) keep filled == height and count as
// closed; the flood starts from `seeds` (drained cells next to undrained ones) at their heights
// and grows into the undrained cells (the depressions' catchments). Fills `filled` (the lowest
// level at which water from each cell can reach an outlet; exact, as if the flood had started
// from the outlets), `parent` (for undrained cells: the neighbour from which the flood reached
// them) and appends to `order` the undrained cells in the order they left the queues:
// non-decreasing filled level, every parent before its children.
void priority_flood(const float* heights, int width, int height, const std::uint8_t* drained,
                    std::span<const std::uint32_t> seeds, std::vector<float>& filled,
                    std::vector<std::uint32_t>& parent, std::vector<std::uint32_t>& order);

}  // namespace terrane::erosion_detail
