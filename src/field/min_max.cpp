// Minimum and maximum of a field, with NaN detection. Rows are scanned in parallel; combining
// per-row extrema with min/max is exact and order-independent, so the result never depends on
// the thread count.
#include <atomic>
#include <limits>
#include <string>
#include <vector>

#include "field/field_internal.hpp"
#include "terrane/field.hpp"

namespace terrane {

MinMax min_max(const Field2D& field, const ExecContext& ctx) {
  const int w = field.grid.width, h = field.grid.height;
  if (w <= 0 || h <= 0 || field.data.size() != field.grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                "min_max: field is empty or its data size " + std::to_string(field.data.size()) +
                    " does not match its grid " + std::to_string(w) + " x " + std::to_string(h));
  }
  std::vector<MinMax> rows(static_cast<std::size_t>(h));
  std::vector<int> nan_col(static_cast<std::size_t>(h), -1);
  field_detail::for_each_row(ctx, h, w, [&](int j) {
    const auto r = field.row(j);
    float lo = std::numeric_limits<float>::infinity();
    float hi = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < w; ++i) {
      const float v = r[std::size_t(i)];
      if (v != v) {
        nan_col[std::size_t(j)] = i;
        return;
      }
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    rows[std::size_t(j)] = {lo, hi};
  });
  MinMax result{std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  for (int j = 0; j < h; ++j) {
    if (nan_col[std::size_t(j)] >= 0) {
      throw Error(ErrorCategory::invalid_argument,
                  "min_max: sample (" + std::to_string(nan_col[std::size_t(j)]) + ", " +
                      std::to_string(j) + ") is NaN; heights must be numbers");
    }
    result.min = std::min(result.min, rows[std::size_t(j)].min);
    result.max = std::max(result.max, rows[std::size_t(j)].max);
  }
  return result;
}

}  // namespace terrane
