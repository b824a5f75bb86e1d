// Applies a monotone cubic curve (Fritsch & Carlson 1980, see terrane/curve.hpp) to every sample.
#include "field/field_internal.hpp"
#include "terrane/field.hpp"

namespace terrane {

void apply_curve(Field2D& field, const MonotoneCurve& curve, const ExecContext& ctx) {
  field_detail::for_each_row(ctx, field.grid.height, field.grid.width, [&](int j) {
    for (float& v : field.row(j)) v = curve(v);
  });
}

}  // namespace terrane
