// PNG reading and writing with libspng (PNG specification: W3C, "Portable Network Graphics
// (PNG) Specification", 2nd ed., 2003). 16-bit samples are stored big-endian in the file
// (spec §7.1); libspng 0.7 takes and returns them in host order for SPNG_FMT_PNG and swaps.
#include <spng.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

struct SpngFree {
  void operator()(spng_ctx* c) const { spng_ctx_free(c); }
};
struct FileClose {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using SpngPtr = std::unique_ptr<spng_ctx, SpngFree>;

const char* color_type_name(int t) {
  switch (t) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
      return "greyscale";
    case SPNG_COLOR_TYPE_TRUECOLOR:
      return "RGB";
    case SPNG_COLOR_TYPE_INDEXED:
      return "palette (indexed)";
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA:
      return "greyscale + alpha";
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA:
      return "RGBA";
    default:
      return "unknown colour type";
  }
}

// Largest chunk (and total cached ancillary chunk data) accepted: far above any real IDAT
// split, far below an allocation that could hurt.
constexpr std::size_t kMaxChunkBytes = std::size_t{64} << 20;

// Deflate (RFC 1951) expands at most 1032:1 (a 258-byte match in 2 bits), so a file of S bytes
// holds at most 1032 * S bytes of filtered image data (spec §7.3: one filter byte per row).
constexpr std::uint64_t kMaxDeflateRatio = 1032;

}  // namespace

namespace io_detail {

void write_png_atomic(const fs::path& path, int width, int height, int color_type, int bit_depth,
                      const PngRows& rows, bool fast, const ExecContext& ctx) {
  check_image_size(path, width, height, ErrorCategory::invalid_argument);
  write_file_atomic(path, [&](int fd) {
    encode_png(width, height, color_type, bit_depth, rows, fast, ctx,
               [&](std::span<const std::uint8_t> bytes) {
                 write_to_descriptor(fd, path, std::as_bytes(bytes));
               });
  });
}

void write_png_atomic(const fs::path& path, int width, int height, int color_type, int bit_depth,
                      const void* pixels, std::size_t pixel_bytes, bool fast,
                      const ExecContext& ctx) {
  check_image_size(path, width, height, ErrorCategory::invalid_argument);
  write_png_atomic(path, width, height, color_type, bit_depth,
                   pixel_rows(width, height, color_type, bit_depth, pixels, pixel_bytes), fast,
                   ctx);
}

}  // namespace io_detail

void write_png16(const fs::path& path, const Image16& image, const ExecContext& ctx) {
  io_detail::check_image16(path, image);
  io_detail::write_png_atomic(path, image.width, image.height, SPNG_COLOR_TYPE_GRAYSCALE, 16,
                              image.samples.data(), image.samples.size() * 2, true, ctx);
}

void write_png16(const fs::path& path, int width, int height,
                 const std::function<void(int j, std::span<std::uint16_t> out)>& row,
                 const ExecContext& ctx) {
  io_detail::check_image_size(path, width, height, ErrorCategory::invalid_argument);
  io_detail::write_png_atomic(
      path, width, height, SPNG_COLOR_TYPE_GRAYSCALE, 16,
      [&](int j, std::uint8_t* out) {
        // The samples go through a row of their own: the encoder's buffer need not be aligned
        // for 16-bit values.
        std::vector<std::uint16_t> samples(static_cast<std::size_t>(width));
        row(j, samples);
        std::memcpy(out, samples.data(), samples.size() * 2);
      },
      true, ctx);
}

namespace {

// The PNG colour type of an 8-bit image with `channels` interleaved channels.
int png8_color_type(const fs::path& path, int channels) {
  switch (channels) {
    case 1:
      return SPNG_COLOR_TYPE_GRAYSCALE;
    case 3:
      return SPNG_COLOR_TYPE_TRUECOLOR;
    case 4:
      return SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
    default:
      throw io_detail::file_error(ErrorCategory::invalid_argument, path,
                                  std::to_string(channels) + " channels (allowed: 1, 3, 4)");
  }
}

}  // namespace

void write_png8(const fs::path& path, int width, int height, int channels,
                std::span<const std::uint8_t> pixels, const ExecContext& ctx) {
  io_detail::check_image_size(path, width, height, ErrorCategory::invalid_argument);
  const int color_type = png8_color_type(path, channels);
  const std::size_t expected = std::size_t(width) * std::size_t(height) * std::size_t(channels);
  if (pixels.size() != expected) {
    throw io_detail::file_error(ErrorCategory::invalid_argument, path,
                                std::to_string(pixels.size()) + " bytes do not match " +
                                    std::to_string(width) + " x " + std::to_string(height) + " x " +
                                    std::to_string(channels));
  }
  io_detail::write_png_atomic(path, width, height, color_type, 8, pixels.data(), pixels.size(),
                              true, ctx);
}

void write_png8(const fs::path& path, int width, int height, int channels,
                const std::function<void(int j, std::span<std::uint8_t> out)>& row,
                const ExecContext& ctx) {
  io_detail::check_image_size(path, width, height, ErrorCategory::invalid_argument);
  const int color_type = png8_color_type(path, channels);
  const std::size_t row_bytes = std::size_t(width) * std::size_t(channels);
  io_detail::write_png_atomic(
      path, width, height, color_type, 8,
      [&](int j, std::uint8_t* out) { row(j, std::span<std::uint8_t>(out, row_bytes)); }, true,
      ctx);
}

void write_png16(const fs::path& path, const Field2D& heights, const HeightRange& range,
                 const ExecContext& ctx) {
  range.validate(path.string() + ": height range");
  io_detail::check_height_field(heights);
  // Converted a row at a time as the encoder asks for them: the 16-bit image is never whole.
  io_detail::write_png_atomic(
      path, heights.grid.width, heights.grid.height, SPNG_COLOR_TYPE_GRAYSCALE, 16,
      [&](int j, std::uint8_t* out) {
        const std::span<const float> row = heights.row(j);
        for (std::size_t i = 0; i < row.size(); ++i) {
          const std::uint16_t v = height_to_u16(row[i], range);
          std::memcpy(out + 2 * i, &v, 2);
        }
      },
      true, ctx);
}

Image16 read_png16(const fs::path& path) {
  std::unique_ptr<std::FILE, FileClose> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    const int e = errno;
    throw io_detail::file_error(ErrorCategory::io, path,
                                "cannot open for reading: " + io_detail::errno_text(e));
  }
  SpngPtr ctx(spng_ctx_new(0));
  if (!ctx)
    throw io_detail::file_error(ErrorCategory::internal, path, "cannot create a PNG decoder");
  spng_set_image_limits(ctx.get(), std::uint32_t(kMaxGridSide), std::uint32_t(kMaxGridSide));
  spng_set_chunk_limits(ctx.get(), kMaxChunkBytes, kMaxChunkBytes);
  spng_set_png_file(ctx.get(), file.get());
  spng_ihdr ihdr{};
  int rc = spng_get_ihdr(ctx.get(), &ihdr);
  if (rc == SPNG_ESIGNATURE) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "not a PNG file (the 8-byte PNG signature is missing)");
  }
  if (rc == SPNG_EUSER_WIDTH || rc == SPNG_EUSER_HEIGHT) {
    // spng refused the header before filling ihdr: read the sides from IHDR (bytes 16..23,
    // big-endian) to name them.
    std::ifstream in(path, std::ios::binary);
    unsigned char head[24] = {};
    in.read(reinterpret_cast<char*>(head), sizeof head);
    auto be32 = [&](int at) {
      return (std::uint32_t(head[at]) << 24) | (std::uint32_t(head[at + 1]) << 16) |
             (std::uint32_t(head[at + 2]) << 8) | std::uint32_t(head[at + 3]);
    };
    throw io_detail::file_error(ErrorCategory::limit, path,
                                "PNG image size " + std::to_string(be32(16)) + " x " +
                                    std::to_string(be32(20)) + " exceeds the allowed range 1.." +
                                    std::to_string(kMaxGridSide) + " per side");
  }
  if (rc != 0) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        std::string("malformed or truncated PNG header: ") + spng_strerror(rc));
  }
  if (ihdr.color_type != SPNG_COLOR_TYPE_GRAYSCALE || ihdr.bit_depth != 16) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "expected a 16-bit greyscale PNG, found " +
                                    std::to_string(ihdr.bit_depth) + "-bit " +
                                    color_type_name(ihdr.color_type) + " (colour type " +
                                    std::to_string(ihdr.color_type) + ")");
  }
  io_detail::check_image_size(path, ihdr.width, ihdr.height, ErrorCategory::parse);
  // The header is checked against the data actually present before the image is allocated: a
  // 69-byte file declaring 65536 x 16384 samples must not cost 2 GiB (issue 12, defect 10).
  struct stat st {};
  if (::fstat(::fileno(file.get()), &st) != 0) {
    const int e = errno;
    throw io_detail::file_error(ErrorCategory::io, path,
                                "cannot read: " + io_detail::errno_text(e));
  }
  const std::uint64_t filtered = std::uint64_t(ihdr.height) * (1 + std::uint64_t(ihdr.width) * 2);
  if (filtered > kMaxDeflateRatio * std::uint64_t(st.st_size)) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        "the PNG header declares " + std::to_string(ihdr.width) + " x " +
            std::to_string(ihdr.height) + " 16-bit samples (" + std::to_string(filtered) +
            " bytes of image data), more than a file of " + std::to_string(st.st_size) +
            " bytes can hold (deflate compresses at most 1032:1): truncated or corrupt");
  }
  std::size_t len = 0;
  rc = spng_decoded_image_size(ctx.get(), SPNG_FMT_PNG, &len);
  const std::size_t expected = std::size_t(ihdr.width) * ihdr.height * 2;
  if (rc != 0 || len != expected) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                std::string("unexpected decoded PNG size: ") + spng_strerror(rc));
  }
  Image16 img{int(ihdr.width), int(ihdr.height), {}};
  img.samples.resize(len / 2);
  rc = spng_decode_image(ctx.get(), img.samples.data(), len, SPNG_FMT_PNG, 0);
  if (rc != 0) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        std::string("corrupt or truncated PNG image data: ") + spng_strerror(rc));
  }
  // The image is complete; the file must still end properly (trailing chunks, IEND), or it was
  // cut short.
  rc = spng_decode_chunks(ctx.get());
  if (rc != 0) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        std::string("truncated or corrupt PNG after the image data: ") + spng_strerror(rc));
  }
  return img;
}

Field2D read_png16(const fs::path& path, const HeightRange& range, double spacing_m) {
  range.validate(path.string() + ": height range");
  return image16_to_heights(read_png16(path), range, spacing_m);
}

}  // namespace terrane
