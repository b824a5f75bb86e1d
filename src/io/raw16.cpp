// RAW16 height maps: headerless little-endian uint16, row-major (the format of Unity's terrain
// "Import Raw" with byte order "Windows"; Unity expects a square of side 2^n + 1).
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

bool is_pow2_plus_1(int n) {
  const int m = n - 1;
  return m >= 1 && (m & (m - 1)) == 0;
}

}  // namespace

void write_raw16(const fs::path& path, const Image16& image, const ExecContext& ctx) {
  io_detail::check_image16(path, image);
  std::vector<std::byte> bytes(image.samples.size() * 2);
  for (std::size_t k = 0; k < image.samples.size(); ++k) {
    bytes[2 * k] = std::byte(image.samples[k] & 0xFF);
    bytes[2 * k + 1] = std::byte(image.samples[k] >> 8);
  }
  write_file_atomic(path, bytes);
  if (image.width != image.height || !is_pow2_plus_1(image.width)) {
    warn(ctx, path.string() + ": size " + std::to_string(image.width) + " x " +
                  std::to_string(image.height) +
                  " is not a square of side 2^n + 1 (e.g. 513, 1025, 2049, 4097); Unity's "
                  "terrain importer will not accept it as is");
  }
}

void write_raw16(const fs::path& path, const Field2D& heights, const HeightRange& range,
                 const ExecContext& ctx) {
  range.validate(path.string() + ": height range");
  write_raw16(path, heights_to_image16(heights, range, ctx), ctx);
}

Image16 read_raw16(const fs::path& path, int width, int height) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) {
    throw io_detail::file_error(ErrorCategory::io, path, "cannot read: " + ec.message());
  }
  if (size % 2 != 0) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        "size " + std::to_string(size) + " bytes is odd; a RAW16 file holds 2 bytes per sample");
  }
  const std::uintmax_t n = size / 2;
  if (width == 0 && height == 0) {
    if (n == 0) throw io_detail::file_error(ErrorCategory::parse, path, "file is empty");
    const auto side = std::uintmax_t(std::llround(std::sqrt(double(n))));
    if (side * side != n) {
      throw io_detail::file_error(
          ErrorCategory::parse, path,
          "size " + std::to_string(size) + " bytes = " + std::to_string(n) +
              " samples is not a square; give the width and height explicitly");
    }
    if (side > std::uintmax_t(kMaxGridSide)) {
      throw io_detail::file_error(ErrorCategory::limit, path,
                                  "inferred side " + std::to_string(side) +
                                      " exceeds the allowed range 1.." +
                                      std::to_string(kMaxGridSide));
    }
    width = height = int(side);
  }
  io_detail::check_image_size(path, width, height, ErrorCategory::invalid_argument);
  const std::uintmax_t expected = std::uintmax_t(width) * std::uintmax_t(height) * 2;
  if (size != expected) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "size " + std::to_string(size) + " bytes does not match " +
                                    std::to_string(width) + " x " + std::to_string(height) +
                                    " 16-bit samples (" + std::to_string(expected) + " bytes)");
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) {
    const int e = errno;
    throw io_detail::file_error(ErrorCategory::io, path,
                                "cannot open for reading: " + io_detail::errno_text(e));
  }
  std::vector<unsigned char> bytes(static_cast<std::size_t>(expected));
  if (std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size()) {
    throw io_detail::file_error(ErrorCategory::io, path,
                                "read fewer than the " + std::to_string(expected) +
                                    " bytes its size promised (file changed while reading?)");
  }
  Image16 img{width, height, {}};
  img.samples.resize(std::size_t(width) * std::size_t(height));
  for (std::size_t k = 0; k < img.samples.size(); ++k) {
    img.samples[k] = std::uint16_t(bytes[2 * k] | (bytes[2 * k + 1] << 8));
  }
  return img;
}

}  // namespace terrane
