// Height brushes (edit.hpp): validation and the stroke over the lattice vertices a brush covers.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "terrane/edit.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

constexpr const char* kKindNames[] = {"raise", "lower", "smooth", "flatten", "noise"};

}  // namespace

const char* to_string(BrushKind kind) {
  const auto k = std::size_t(kind);
  return k < std::size(kKindNames) ? kKindNames[k] : "?";
}

std::optional<BrushKind> parse_brush_kind(std::string_view name) {
  for (std::size_t k = 0; k < std::size(kKindNames); ++k) {
    if (name == kKindNames[k]) return BrushKind(k);
  }
  return std::nullopt;
}

void HeightBrush::validate() const {
  const Range coordinate = Range::closed(-kMaxEditCoordinate, kMaxEditCoordinate);
  check_range("brush.x_m", x_m, coordinate);
  check_range("brush.z_m", z_m, coordinate);
  check_range("brush.radius_m", radius_m, Range::open_lo(0.0, 1e4));
  check_range("brush.strength_m", strength_m, Range::closed(0.0, 1e4));
  check_range("brush.falloff_start", falloff_start, Range::closed(0.0, 1.0));
  check_range("brush.target_m", target_m, Range::any());
  if (kind == BrushKind::noise) noise.validate("brush.noise");
}

}  // namespace terrane
