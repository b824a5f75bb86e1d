// Tangent-space normal maps: unit normals packed to 8-bit RGB, c -> round((c + 1) / 2 * 255).
#include <cmath>
#include <string>
#include <vector>

#include "core/huge_pages.hpp"
#include "field/field_internal.hpp"
#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

std::uint8_t pack(float c) {
  const float v = (c + 1.0f) * 0.5f * 255.0f;
  if (!(v > 0.0f)) return 0;
  if (v >= 255.0f) return 255;
  return std::uint8_t(v + 0.5f);
}

}  // namespace

void write_normal_map_png(const std::filesystem::path& path, const Normals& normals,
                          const ExecContext& ctx) {
  const GridSpec& g = normals.x.grid;
  io_detail::check_image_size(path, g.width, g.height, ErrorCategory::invalid_argument);
  const std::size_t n = g.sample_count();
  if (normals.x.data.size() != n || normals.y.data.size() != n || normals.z.data.size() != n) {
    throw io_detail::file_error(
        ErrorCategory::invalid_argument, path,
        "normal components do not all have " + std::to_string(n) + " samples");
  }
  std::vector<std::uint8_t> rgb;
  core_detail::resize_huge(rgb, n * 3, &ctx);
  parallel_for(ctx, std::int64_t(n), std::int64_t(1) << 16, [&](std::int64_t k0, std::int64_t k1) {
    for (auto k = std::size_t(k0); k < std::size_t(k1); ++k) {
      rgb[3 * k + 0] = pack(normals.x.data[k]);
      rgb[3 * k + 1] = pack(normals.z.data[k]);
      rgb[3 * k + 2] = pack(normals.y.data[k]);
    }
  });
  io_detail::write_png_atomic(path, g.width, g.height, 2, 8, rgb.data(), rgb.size(), false, ctx);
}

// The normals of each row are formed as the encoder asks for the row (the same floats as
// normals_clamped's), so neither the three normal fields nor the image are ever whole.
void write_normal_map_png(const std::filesystem::path& path, const Field2D& heights,
                          const ExecContext& ctx) {
  const GridSpec& g = heights.grid;
  io_detail::check_image_size(path, g.width, g.height, ErrorCategory::invalid_argument);
  g.validate("normal map heights");
  if (heights.data.size() != g.sample_count()) {
    throw io_detail::file_error(ErrorCategory::invalid_argument, path,
                                "height field data size " + std::to_string(heights.data.size()) +
                                    " does not match its grid");
  }
  const double inv_2s = 1.0 / (2.0 * g.spacing_m);
  io_detail::write_png_atomic(
      path, g.width, g.height, 2, 8,
      [&](int j, std::uint8_t* out) {
        field_detail::normal_row(heights, 0, j, g.width, inv_2s,
                                 [&](int i, float x, float y, float z) {
                                   std::uint8_t* px = out + 3 * std::size_t(i);
                                   px[0] = pack(x);
                                   px[1] = pack(z);
                                   px[2] = pack(y);
                                 });
      },
      false, ctx);
}

}  // namespace terrane
