// Linear remap of a field's values from one range to another, optionally clamped.
#include <algorithm>
#include <cmath>
#include <string>

#include "field/field_internal.hpp"
#include "terrane/field.hpp"
#include "terrane/schema.hpp"

namespace terrane {

void remap(Field2D& field, double from_lo, double from_hi, double to_lo, double to_hi, bool clamp,
           const ExecContext& ctx) {
  for (double v : {from_lo, from_hi, to_lo, to_hi}) {
    if (!std::isfinite(v)) {
      throw Error(ErrorCategory::invalid_argument,
                  "remap: range bounds must be finite, got from [" + format_number(from_lo) + ", " +
                      format_number(from_hi) + "] to [" + format_number(to_lo) + ", " +
                      format_number(to_hi) + "]");
    }
  }
  if (from_lo == from_hi) {
    throw Error(ErrorCategory::invalid_argument,
                "remap: source range [" + format_number(from_lo) + ", " + format_number(from_hi) +
                    "] is empty; from_lo must differ from from_hi");
  }
  const double scale = (to_hi - to_lo) / (from_hi - from_lo);
  const double lo = std::min(to_lo, to_hi), hi = std::max(to_lo, to_hi);
  const int w = field.grid.width;
  field_detail::for_each_row(ctx, field.grid.height, w, [&](int j) {
    auto r = field.row(j);
    for (float& v : r) {
      double x = to_lo + (double(v) - from_lo) * scale;
      if (clamp) x = std::clamp(x, lo, hi);
      v = float(x);
    }
  });
}

}  // namespace terrane
