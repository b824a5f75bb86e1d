#include <cmath>
#include <string>

#include "core/huge_pages.hpp"
#include "terrane/core.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

void check_side(std::string_view what, const char* axis, int n) {
  if (n < 1 || n > kMaxGridSide) {
    throw Error(n < 1 ? ErrorCategory::invalid_argument : ErrorCategory::limit,
                std::string(what) + ": " + axis + " = " + std::to_string(n) +
                    " is outside the allowed range 1.." + std::to_string(kMaxGridSide));
  }
}

void check_spacing_origin(std::string_view what, double spacing,
                          std::initializer_list<double> origin) {
  if (!std::isfinite(spacing) || spacing <= 0.0) {
    throw Error(
        ErrorCategory::invalid_argument,
        std::string(what) + ": spacing " + format_number(spacing) + " m must be finite and > 0");
  }
  for (double o : origin) {
    if (!std::isfinite(o)) {
      throw Error(ErrorCategory::invalid_argument, std::string(what) + ": origin must be finite");
    }
  }
}

}  // namespace

GridSpec GridSpec::sub(int i0, int j0, int w, int h) const {
  GridSpec g = *this;
  g.width = w;
  g.height = h;
  g.index_x0 += i0;
  g.index_z0 += j0;
  return g;
}

void GridSpec::validate(std::string_view what) const {
  check_side(what, "width", width);
  check_side(what, "height", height);
  const std::int64_t n = std::int64_t(width) * height;
  if (n > kMaxGridSamples) {
    throw Error(ErrorCategory::limit,
                std::string(what) + ": " + std::to_string(width) + " x " + std::to_string(height) +
                    " = " + std::to_string(n) + " samples exceeds the cap of " +
                    std::to_string(kMaxGridSamples) + " samples (4 GiB of float heights)");
  }
  check_spacing_origin(what, spacing_m, {origin_x_m, origin_z_m});
}

void GridSpec3::validate(std::string_view what) const {
  check_side(what, "size_x", size_x);
  check_side(what, "size_y", size_y);
  check_side(what, "size_z", size_z);
  const std::int64_t n = std::int64_t(size_x) * size_y * size_z;
  if (n > kMaxGridSamples) {
    throw Error(ErrorCategory::limit, std::string(what) + ": " + std::to_string(n) +
                                          " samples exceeds the cap of " +
                                          std::to_string(kMaxGridSamples) + " samples");
  }
  check_spacing_origin(what, spacing_m, {origin_x_m, origin_y_m, origin_z_m});
}

Field2D::Field2D(const GridSpec& g) : grid(g) {
  grid.validate("field");
  core_detail::assign_huge(data, grid.sample_count(), 0.0f);
}

Field2D::Field2D(const GridSpec& g, const ExecContext& ctx) : grid(g) {
  grid.validate("field");
  // Faulting the pages in is none of the caller's progress: its callback is not called.
  ExecContext quiet = ctx;
  quiet.progress = nullptr;
  core_detail::assign_huge(data, grid.sample_count(), 0.0f, &quiet);
}

}  // namespace terrane
