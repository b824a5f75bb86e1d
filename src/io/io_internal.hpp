// Helpers shared by the io module's files (not public API).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <span>
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
// Throws Error(invalid_argument) for a height field whose grid is invalid or whose data does
// not match its grid.
void check_height_field(const Field2D& heights);
// check_image_size for an image about to be written, plus its sample count.
void check_image16(const std::filesystem::path& path, const Image16& image);

// PNG files of 8- or 16-bit samples (png_encode.cpp), compressed in blocks on ctx's workers;
// the same bytes on any thread count. color_type: 0 greyscale, 2 RGB, 4 greyscale + alpha,
// 6 RGBA. `fast` picks zlib level 1 and a single (Paeth) row filter instead of level 6 and
// trying every filter per row. Throws Error(internal) for a layout it does not write.
//
// The image comes a row at a time: rows(j, out) writes row j's samples (16-bit ones
// host-endian, width * channels * bit_depth / 8 bytes) to out. It is called from several
// workers at once for different rows, and more than once for some rows (each block re-forms the
// rows of its dictionary), so the whole image never has to exist at once.
using PngRows = std::function<void(int row, std::uint8_t* out)>;
// The file's bytes, handed to `sink` in order, in pieces of about 1 MiB; the encoder holds a few
// compressed blocks per worker at a time.
void encode_png(int width, int height, int color_type, int bit_depth, const PngRows& rows,
                bool fast, const ExecContext& ctx,
                const std::function<void(std::span<const std::uint8_t>)>& sink);
// The rows of an image held whole: `pixel_bytes` of rows of samples. Throws Error(internal)
// where pixel_bytes does not match the layout.
PngRows pixel_rows(int width, int height, int color_type, int bit_depth, const void* pixels,
                   std::size_t pixel_bytes);
// The whole file's bytes, from an image held whole.
std::vector<std::uint8_t> encode_png(int width, int height, int color_type, int bit_depth,
                                     const void* pixels, std::size_t pixel_bytes, bool fast,
                                     const ExecContext& ctx);
// encode_png written atomically to `path` as it is encoded, after its size is checked
// (check_image_size); nothing is published where a row, the encoder or a write fails.
void write_png_atomic(const std::filesystem::path& path, int width, int height, int color_type,
                      int bit_depth, const PngRows& rows, bool fast, const ExecContext& ctx);
void write_png_atomic(const std::filesystem::path& path, int width, int height, int color_type,
                      int bit_depth, const void* pixels, std::size_t pixel_bytes, bool fast,
                      const ExecContext& ctx);

// ---------------------------------------------------------------------------------------------
// Unpublished files (unpublished.cpp, atomic_write.cpp)

// Marks a temporary's name: "<target><marker><pid>-<hex>". The pid lets a later run tell the
// temporaries of a process that is gone (staged_outputs.cpp removes them).
inline constexpr const char* kTemporaryMarker = ".terrane-tmp-";
// Marks a staging directory: "<dir>/<marker><pid>-<hex>".
inline constexpr const char* kStagingMarker = ".terrane-staging-";

// "<pid>-<16 hex digits>", unique among the process's threads and calls.
std::string unique_suffix();

// The temporaries and staging directories of this process that exist and are not published,
// so that remove_unpublished_outputs() can delete them. Every creation, publication and
// removal of such a path runs under one lock; once removal of all has begun ("closed"), no
// new path is created and nothing more is published.
class Unpublished {
 public:
  static Unpublished& instance();
  // Runs create() under the lock and registers `path` when it returns true. Throws
  // Error(cancelled) without calling create() once closed.
  bool add(const std::filesystem::path& path, const std::function<bool()>& create);
  // Runs action() under the lock (unless closed) and unregisters `path`; returns whether
  // action() ran.
  bool remove(const std::filesystem::path& path, const std::function<void()>& action) noexcept;
  // Runs fn() under the lock unless closed; returns whether it ran. For a publication of several
  // renames that an interruption must not split.
  bool locked(const std::function<void()>& fn);
  // Closes the registry and deletes every registered path (a directory with its contents).
  void remove_all() noexcept;

 private:
  std::mutex mutex_;
  std::vector<std::filesystem::path> paths_;
  bool closed_ = false;
};

// Creates "<path><marker><suffix>" with O_CREAT | O_EXCL | O_NOFOLLOW, registered as
// unpublished; returns its descriptor and, in `created`, its name. Errors name `report_as`.
int create_exclusive(const std::filesystem::path& path, const std::filesystem::path& report_as,
                     std::filesystem::path& created);
// Deletes a temporary made by create_exclusive and unregisters it.
void remove_temporary(const std::filesystem::path& tmp) noexcept;

}  // namespace terrane::io_detail
