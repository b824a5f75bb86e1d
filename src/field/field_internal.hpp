// Helpers shared by the field module's algorithm files (not public API).
#pragma once

#include <algorithm>
#include <cmath>
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

// The unit normals of output row j (`width` samples) of `in`: with `offset` 1 the input has a
// one-sample halo (output (i, j) is input (i + 1, j + 1)), with 0 the neighbours outside it are
// its border samples. store(i, nx, ny, nz) takes each; normals() and normals_clamped() are made
// of these rows, and a writer that forms its image a row at a time (the normal map) calls it
// for the same bits.
template <typename Store>
inline void normal_row(const Field2D& in, int offset, int j, int width, double inv_2s,
                       Store&& store) {
  const int max_i = in.grid.width - 1, max_j = in.grid.height - 1;
  for (int i = 0; i < width; ++i) {
    const auto h = [&](int di, int dj) {
      return in.at(std::clamp(i + offset + di, 0, max_i), std::clamp(j + offset + dj, 0, max_j));
    };
    const Gradient grad = central_gradient(h, inv_2s);
    const double len = std::sqrt(grad.dhdx * grad.dhdx + 1.0 + grad.dhdz * grad.dhdz);
    store(i, float(-grad.dhdx / len), float(1.0 / len), float(-grad.dhdz / len));
  }
}

}  // namespace terrane::field_detail
