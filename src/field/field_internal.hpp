// Helpers shared by the field module's algorithm files (not public API).
#pragma once

#include <algorithm>
#include <cstdint>

#include "terrane/core.hpp"

namespace terrane::field_detail {

// Sets `out` to an all-zero field on `grid`, reusing its capacity.
inline void prepare_output(Field2D& out, const GridSpec& grid) {
  out.grid = grid;
  out.data.assign(grid.sample_count(), 0.0f);
}

// Rows per parallel task so that a task covers roughly 16k samples.
inline std::int64_t row_grain(int width) {
  return std::max<std::int64_t>(1, 16384 / std::max(1, width));
}

// Runs body(j) for every row j in [0, rows) on ctx's workers.
template <typename Body>
void for_each_row(const ExecContext& ctx, int rows, int width, Body&& body) {
  parallel_for(ctx, rows, row_grain(width), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t j = b; j < e; ++j) body(int(j));
  });
}

// Height gradient by central differences at output sample (i, j); `h(di, dj)` returns the
// height at offset (di, dj) in {-1, 0, 1}. One fixed operation order for every caller.
struct Gradient {
  double dhdx;
  double dhdz;
};
template <typename Sample>
inline Gradient central_gradient(Sample&& h, double inv_2s) {
  return {(double(h(1, 0)) - double(h(-1, 0))) * inv_2s,
          (double(h(0, 1)) - double(h(0, -1))) * inv_2s};
}

}  // namespace terrane::field_detail
