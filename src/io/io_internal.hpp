// Helpers shared by the io module's files (not public API).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/io.hpp"

namespace terrane::io_detail {

// "<path>: <reason>" as an Error of `category`.
inline Error file_error(ErrorCategory category, const std::filesystem::path& path,
                        const std::string& reason) {
  return Error(category, path.string() + ": " + reason);
}

inline std::string errno_text(int err) {
  return std::strerror(err);
}

// Throws Error(invalid_argument / limit) naming `path` when width x height is not a grid terrane
// accepts (1..kMaxGridSide per side, at most kMaxGridSamples in all).
void check_image_size(const std::filesystem::path& path, std::int64_t width, std::int64_t height,
                      ErrorCategory too_small_category);
// check_image_size for an image about to be written, plus its sample count.
void check_image16(const std::filesystem::path& path, const Image16& image);

// Encodes an 8- or 16-bit PNG (16-bit samples host-endian, as libspng 0.7 expects for
// SPNG_FMT_PNG) and writes it atomically. color_type: 0 greyscale, 2 RGB. `fast` picks zlib
// level 1 and a single (Paeth) row filter instead of level 6 and trying every filter per row.
void write_png_atomic(const std::filesystem::path& path, int width, int height, int color_type,
                      int bit_depth, const void* pixels, std::size_t pixel_bytes, bool fast);

}  // namespace terrane::io_detail
