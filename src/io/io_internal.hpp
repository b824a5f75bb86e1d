// Helpers shared by the io module's files (not public API).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/io.hpp"

namespace terrane::io_detail {

// "<path>: <reason>" as an Error of `category`.
inline Error file_error(ErrorCategory category, const std::filesystem::path& path,
                        const std::string& reason) {
  return Error(category, path.string() + ": " + reason);
}

// Text from a file as quoted in messages: at most `max_bytes` bytes (then "..."), control and
// non-ASCII bytes and the backslash as \xNN, so that a message stays one line of plain text
// whatever the file holds.
inline std::string quoted(std::string_view text, std::size_t max_bytes = 80) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t k = 0; k < text.size() && k < max_bytes; ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += char(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
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
