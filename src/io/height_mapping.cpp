// Metres <-> 16-bit integers through an explicit HeightRange (0 <-> min, 65535 <-> max),
// and the image-size checks shared by the readers.
#include <algorithm>
#include <cmath>
#include <string>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"
#include "terrane/schema.hpp"

namespace terrane {

void HeightRange::validate(std::string_view what) const {
  if (!std::isfinite(height_min_m) || !std::isfinite(height_max_m) ||
      !(height_max_m > height_min_m)) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(what) + ": height_min_m = " + format_number(height_min_m) +
                    " m and height_max_m = " + format_number(height_max_m) +
                    " m must be finite with height_max_m > height_min_m");
  }
}

std::uint16_t height_to_u16(float height_m, const HeightRange& range) {
  const double t =
      (double(height_m) - range.height_min_m) / (range.height_max_m - range.height_min_m) * 65535.0;
  if (!(t > 0.0)) return 0;  // also NaN
  if (t >= 65535.0) return 65535;
  return std::uint16_t(std::floor(t + 0.5));
}

float u16_to_height(std::uint16_t v, const HeightRange& range) {
  return float(range.height_min_m +
               double(v) / 65535.0 * (range.height_max_m - range.height_min_m));
}

Image16 heights_to_image16(const Field2D& heights, const HeightRange& range,
                           const ExecContext& ctx) {
  range.validate();
  io_detail::check_height_field(heights);
  Image16 img{heights.grid.width, heights.grid.height, {}};
  img.samples.resize(heights.data.size());
  const std::int64_t n = std::int64_t(heights.data.size());
  parallel_for(ctx, n, 1 << 16, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t k = b; k < e; ++k) {
      img.samples[std::size_t(k)] = height_to_u16(heights.data[std::size_t(k)], range);
    }
  });
  return img;
}

Field2D image16_to_heights(const Image16& image, const HeightRange& range, double spacing_m) {
  range.validate();
  Field2D f(GridSpec{.width = image.width, .height = image.height, .spacing_m = spacing_m});
  if (image.samples.size() != f.data.size()) {
    throw Error(ErrorCategory::invalid_argument,
                "image: " + std::to_string(image.samples.size()) + " samples do not match " +
                    std::to_string(image.width) + " x " + std::to_string(image.height));
  }
  for (std::size_t k = 0; k < f.data.size(); ++k)
    f.data[k] = u16_to_height(image.samples[k], range);
  return f;
}

namespace io_detail {

void check_height_field(const Field2D& heights) {
  heights.grid.validate("height field");
  if (heights.data.size() != heights.grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                "height field: data size " + std::to_string(heights.data.size()) +
                    " does not match its grid " + std::to_string(heights.grid.width) + " x " +
                    std::to_string(heights.grid.height));
  }
}

void check_image16(const std::filesystem::path& path, const Image16& image) {
  check_image_size(path, image.width, image.height, ErrorCategory::invalid_argument);
  if (image.samples.size() != std::size_t(image.width) * std::size_t(image.height)) {
    throw file_error(ErrorCategory::invalid_argument, path,
                     std::to_string(image.samples.size()) + " samples do not match " +
                         std::to_string(image.width) + " x " + std::to_string(image.height));
  }
}

void check_image_size(const std::filesystem::path& path, std::int64_t width, std::int64_t height,
                      ErrorCategory too_small_category) {
  if (width < 1 || height < 1) {
    throw file_error(too_small_category, path,
                     "image size " + std::to_string(width) + " x " + std::to_string(height) +
                         " is empty; each side must be at least 1");
  }
  if (width > kMaxGridSide || height > kMaxGridSide) {
    throw file_error(ErrorCategory::limit, path,
                     "image size " + std::to_string(width) + " x " + std::to_string(height) +
                         " exceeds the allowed range 1.." + std::to_string(kMaxGridSide) +
                         " per side");
  }
  if (width * height > kMaxGridSamples) {
    throw file_error(ErrorCategory::limit, path,
                     "image size " + std::to_string(width) + " x " + std::to_string(height) +
                         " = " + std::to_string(width * height) + " samples exceeds the cap of " +
                         std::to_string(kMaxGridSamples));
  }
}

}  // namespace io_detail
}  // namespace terrane
