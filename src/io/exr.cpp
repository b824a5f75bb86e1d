// OpenEXR height maps (OpenEXR file layout: "OpenEXR File Layout", openexr.com). Files are
// written by terrane itself (below: the chunks compressed on every core) and read with the core
// library (OpenEXRCore) alone: its parser has image-size limits and validates what it reads,
// while the C++ reader allocates sizes it reads from the file before checking them, and parses
// some headers differently from the core library (fuzz_read_exr found both: a 1.5 GB line
// buffer, a 1.6 GB attribute). Before decoding, every attribute's declared size is checked
// against the file and the data window against what the file can hold. Errors are
// terrane::Error naming the file.
#include <openexr.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

// Densest expansion of OpenEXR's lossless codecs: ZIP / ZIPS deflate at most 1032:1, PXR24
// deflates 3 of every 4 bytes of a float (1376:1); RLE (64:1), PIZ and B44 stay below. A file of
// S bytes is taken to hold at most 1376 * S bytes of samples; a header declaring more is refused
// before anything is allocated (issue 12, defect 10). Only lossy DWAA / DWAB images of nearly
// constant value can exceed this, and are refused too.
constexpr std::uint64_t kMaxExrInflation = 1376;

struct CoreErrors {
  std::string message;
};

void capture_core_error(exr_const_context_t ctxt, exr_result_t code, const char* msg) {
  void* user = nullptr;
  if (exr_get_user_data(ctxt, &user) == EXR_ERR_SUCCESS && user != nullptr) {
    auto* errors = static_cast<CoreErrors*>(user);
    if (errors->message.empty()) {
      errors->message = msg != nullptr ? msg : exr_get_error_code_as_string(code);
    }
  }
}

// Core library reading with terrane's image-size caps, its messages captured into `errors`.
exr_context_initializer_t core_initializer(CoreErrors& errors) {
  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  init.error_handler_fn = &capture_core_error;
  init.user_data = &errors;
  init.max_image_width = kMaxGridSide;
  init.max_image_height = kMaxGridSide;
  init.max_tile_width = kMaxGridSide;
  init.max_tile_height = kMaxGridSide;
  return init;
}

// The size of a value of a predefined OpenEXR attribute type with a fixed layout, -1 for the
// others (chlist, preview, string, stringvector, floatvector, unknown types).
std::int64_t fixed_value_size(const std::string& type) {
  static constexpr std::pair<const char*, std::int64_t> kSizes[] = {
      {"box2i", 16},      {"box2f", 16},   {"chromaticities", 32},
      {"compression", 1}, {"double", 8},   {"envmap", 1},
      {"float", 4},       {"int", 4},      {"keycode", 28},
      {"lineOrder", 1},   {"m33f", 36},    {"m33d", 72},
      {"m44f", 64},       {"m44d", 128},   {"rational", 8},
      {"tiledesc", 9},    {"timecode", 8}, {"v2i", 8},
      {"v2f", 8},         {"v2d", 16},     {"v3i", 12},
      {"v3f", 12},        {"v3d", 24},     {"deepImageState", 1}};
  for (const auto& [name, bytes] : kSizes) {
    if (type == name) return bytes;
  }
  return -1;
}

// Walks the attributes of every header (name, type name, 32-bit size, value; a header ends with
// an empty name, a multi-part file's list of headers with an empty header) and checks each
// declared size against the bytes the file has left, and a preview's size against its sides.
// OpenEXR's C++ reader allocates an attribute's declared size before reading it (a 1.7 GB
// opaque attribute in a few hundred bytes, found by fuzz_read_exr), so this runs first.
void check_attribute_sizes(const fs::path& path, std::uintmax_t file_bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) {
    const int e = errno;
    throw io_detail::file_error(ErrorCategory::io, path,
                                "cannot open for reading: " + io_detail::errno_text(e));
  }
  auto malformed = [&](const std::string& what) {
    return io_detail::file_error(ErrorCategory::parse, path,
                                 "not a readable OpenEXR file: " + what);
  };
  unsigned char head[8] = {};
  if (std::fread(head, 1, 8, file.get()) != 8) throw malformed("shorter than its 8-byte preamble");
  const bool multipart = (head[5] & 0x10) != 0;  // version flags, bit 12
  std::uintmax_t at = 8;
  // Reads a NUL-terminated name of at most 255 bytes; false at the end of the file.
  auto read_name = [&](std::string& out) {
    out.clear();
    for (;;) {
      const int c = std::fgetc(file.get());
      if (c == EOF) return false;
      ++at;
      if (c == 0) return true;
      if (out.size() == 255) throw malformed("an attribute name longer than 255 bytes");
      out += char(c);
    }
  };
  std::string name, type;
  for (int header = 0;; ++header) {
    int attributes = 0;
    for (;; ++attributes) {
      if (!read_name(name)) throw malformed("the header ends before its attributes do");
      if (name.empty()) break;
      if (!read_name(type)) throw malformed("the header ends before its attributes do");
      unsigned char le[4] = {};
      if (std::fread(le, 1, 4, file.get()) != 4) {
        throw malformed("the header ends before its attributes do");
      }
      at += 4;
      const std::int64_t size =
          std::int32_t(std::uint32_t(le[0]) | std::uint32_t(le[1]) << 8 |
                       std::uint32_t(le[2]) << 16 | std::uint32_t(le[3]) << 24);
      if (size < 0 || std::uintmax_t(size) > file_bytes - at) {
        throw malformed("attribute '" + io_detail::quoted(name) + "' declares " +
                        std::to_string(size) + " bytes, the file has " +
                        std::to_string(file_bytes - at) + " left");
      }
      // OpenEXR's C++ reader reads the value of a known type by its layout, not by the declared
      // size, and goes on reading the next attribute where the value ended: a size that differs
      // from the layout would make this walk and that reader disagree about where the following
      // attributes are. So fixed-size types must declare their size, and a channel list must end
      // exactly at its declared size.
      if (const std::int64_t fixed = fixed_value_size(type); fixed >= 0 && size != fixed) {
        throw malformed("attribute '" + io_detail::quoted(name) + "' of type " +
                        io_detail::quoted(type) + " declares " + std::to_string(size) +
                        " bytes; its type has " + std::to_string(fixed));
      }
      if (type == "chlist") {
        std::string value(static_cast<std::size_t>(size), '\0');
        if (std::fread(value.data(), 1, value.size(), file.get()) != value.size()) {
          throw malformed("the header ends before its attributes do");
        }
        std::size_t k = 0;  // each channel: name, NUL, 16 bytes; the list ends with a NUL
        while (k < value.size() && value[k] != '\0') {
          const std::size_t end = value.find('\0', k);
          if (end == std::string::npos) break;
          k = end + 1 + 16;
        }
        if (k + 1 != value.size()) {
          throw malformed("attribute '" + io_detail::quoted(name) +
                          "': a channel list that does not end at its declared " +
                          std::to_string(size) + " bytes");
        }
      }
      if (type == "preview") {
        unsigned char sides[8] = {};
        if (size < 8 || std::fread(sides, 1, 8, file.get()) != 8) {
          throw malformed("a preview attribute shorter than its sides");
        }
        auto u32 = [&](int k) {
          return std::uint64_t(sides[k]) | std::uint64_t(sides[k + 1]) << 8 |
                 std::uint64_t(sides[k + 2]) << 16 | std::uint64_t(sides[k + 3]) << 24;
        };
        const std::uint64_t w = u32(0), h = u32(4);
        if ((w != 0 && h > std::uint64_t(size) / 4 / w) || 8 + 4 * w * h != std::uint64_t(size)) {
          throw malformed("a preview of " + std::to_string(w) + " x " + std::to_string(h) +
                          " pixels in an attribute of " + std::to_string(size) + " bytes");
        }
      }
      at += std::uintmax_t(size);
      if (std::fseek(file.get(), long(at), SEEK_SET) != 0) throw malformed("cannot seek");
    }
    // A single-part file has one header; a multi-part file's headers end with an empty one.
    if (!multipart || attributes == 0) break;
  }
}

// Parses the header with the core library and returns the data window; throws Error naming
// the file for unreadable, malformed or oversize files.
exr_attr_box2i_t checked_data_window(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw io_detail::file_error(
        ErrorCategory::io, path,
        ec ? "cannot read: " + ec.message() : std::string("cannot read: no such regular file"));
  }
  const std::uintmax_t file_bytes = fs::file_size(path, ec);
  if (ec) throw io_detail::file_error(ErrorCategory::io, path, "cannot read: " + ec.message());
  check_attribute_sizes(path, file_bytes);
  CoreErrors errors;
  const exr_context_initializer_t init = core_initializer(errors);
  exr_context_t ctx = nullptr;
  exr_result_t rc = exr_start_read(&ctx, path.c_str(), &init);
  exr_attr_box2i_t box{};
  int parts = 0;
  const exr_attr_chlist_t* channels = nullptr;
  if (rc == EXR_ERR_SUCCESS) rc = exr_get_count(ctx, &parts);
  if (rc == EXR_ERR_SUCCESS) rc = exr_get_data_window(ctx, 0, &box);
  if (rc == EXR_ERR_SUCCESS) rc = exr_get_channels(ctx, 0, &channels);
  // Bytes of samples the first part declares (every channel, at its sampling) and the samples
  // read_exr allocates (the data window), whichever is larger.
  std::uint64_t declared = 0;
  if (rc == EXR_ERR_SUCCESS) {
    const std::uint64_t w = std::uint64_t(std::int64_t(box.max.x) - box.min.x + 1);
    const std::uint64_t h = std::uint64_t(std::int64_t(box.max.y) - box.min.y + 1);
    declared = w * h;
    std::uint64_t channel_bytes = 0;
    for (int c = 0; channels != nullptr && c < channels->num_channels; ++c) {
      const exr_attr_chlist_entry_t& e = channels->entries[c];
      const std::uint64_t xs = std::uint64_t(std::max(e.x_sampling, 1));
      const std::uint64_t ys = std::uint64_t(std::max(e.y_sampling, 1));
      channel_bytes += (w / xs) * (h / ys) * (e.pixel_type == EXR_PIXEL_HALF ? 2 : 4);
    }
    declared = std::max(declared, channel_bytes);
  }
  exr_finish(&ctx);
  if (rc != EXR_ERR_SUCCESS) {
    const std::string detail =
        errors.message.empty() ? exr_get_error_code_as_string(rc) : errors.message;
    // The core library reports a data window beyond the caps as invalid; say what the caps are.
    const bool window = detail.find("window") != std::string::npos;
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        "not a readable OpenEXR file: " + io_detail::quoted(detail, 300) +
            (window ? " (the data window must be 1.." + std::to_string(kMaxGridSide) +
                          " samples per side)"
                    : std::string()));
  }
  io_detail::check_image_size(path, std::int64_t(box.max.x) - box.min.x + 1,
                              std::int64_t(box.max.y) - box.min.y + 1, ErrorCategory::parse);
  if (declared > kMaxExrInflation * std::uint64_t(file_bytes)) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        "the OpenEXR header declares a data window of " +
            std::to_string(std::int64_t(box.max.x) - box.min.x + 1) + " x " +
            std::to_string(std::int64_t(box.max.y) - box.min.y + 1) + " (" +
            std::to_string(declared) + " bytes of samples), more than a file of " +
            std::to_string(file_bytes) + " bytes can hold (at most " +
            std::to_string(kMaxExrInflation) + " bytes per byte of file): truncated or corrupt");
  }
  return box;
}

// ---- writing ----
//
// A single-part scanline file with ZIP compression, written from the file layout's description
// ("OpenEXR File Layout", openexr.com; the ZIP codec as "Reading and Writing OpenEXR Image
// Files" and the technical introduction describe it): the magic number and version 2, the header
// (its attributes in name order, as OpenEXR writes them), the table of chunk offsets, then a
// chunk per 16 scanlines. A chunk holds its first scanline's y, its data's size and the data:
// each scanline's channels in name order (B, G, R), each a row of little-endian floats. ZIP
// splits those bytes into the even-indexed ones followed by the odd-indexed ones, replaces each
// byte after the first by its difference from the one before (plus 128, modulo 256), and
// deflates the result as one zlib stream; a chunk whose compressed data would not be smaller
// keeps its bytes as they are. The chunks are compressed on ctx's workers a wave at a time (four
// per worker), each wave written in order before the next is formed, and the offsets are filled
// in last. The bytes are those of OpenEXR 3.1's own writer (Imf::OutputFile, which terrane used
// before and which compresses on one thread unless the process sets its global thread count),
// on any thread count: tests/io compares them.
constexpr int kZipScanlines = 16;
constexpr int kZipLevel = 4;                          // OpenEXR's default zipCompressionLevel
constexpr const char* kChannels[] = {"B", "G", "R"};  // name order; each the height

static_assert(std::endian::native == std::endian::little,
              "EXR chunks are written from the floats' own bytes");

void put_i32(std::vector<std::uint8_t>& b, std::int32_t v) {
  for (int k = 0; k < 4; ++k) b.push_back(std::uint8_t(std::uint32_t(v) >> (8 * k)));
}
void put_f32(std::vector<std::uint8_t>& b, float v) {
  put_i32(b, std::bit_cast<std::int32_t>(v));
}
void put_attribute(std::vector<std::uint8_t>& b, const char* name, const char* type,
                   const std::vector<std::uint8_t>& value) {
  b.insert(b.end(), name, name + std::strlen(name) + 1);
  b.insert(b.end(), type, type + std::strlen(type) + 1);
  put_i32(b, std::int32_t(value.size()));
  b.insert(b.end(), value.begin(), value.end());
}

// The magic number, the version field and the header of a w x h image.
std::vector<std::uint8_t> exr_head(int w, int h) {
  std::vector<std::uint8_t> b = {0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0};
  std::vector<std::uint8_t> v;
  for (const char* c : kChannels) {
    v.insert(v.end(), c, c + std::strlen(c) + 1);
    put_i32(v, 2);                    // pixel type FLOAT
    v.insert(v.end(), {0, 0, 0, 0});  // pLinear, reserved
    put_i32(v, 1);                    // x sampling
    put_i32(v, 1);                    // y sampling
  }
  v.push_back(0);
  put_attribute(b, "channels", "chlist", v);
  put_attribute(b, "compression", "compression", {3});  // ZIP_COMPRESSION
  v.clear();
  for (const std::int32_t x : {0, 0, w - 1, h - 1}) put_i32(v, x);
  put_attribute(b, "dataWindow", "box2i", v);
  put_attribute(b, "displayWindow", "box2i", v);
  put_attribute(b, "lineOrder", "lineOrder", {0});  // INCREASING_Y
  v.clear();
  put_f32(v, 1.0f);
  put_attribute(b, "pixelAspectRatio", "float", v);
  v.clear();
  put_f32(v, 0.0f);
  put_f32(v, 0.0f);
  put_attribute(b, "screenWindowCenter", "v2f", v);
  v.clear();
  put_f32(v, 1.0f);
  put_attribute(b, "screenWindowWidth", "float", v);
  b.push_back(0);  // end of the header
  return b;
}

// Chunk `k` (scanlines 16 k ..) of the heights: its y, size and data, in `out`. `raw` and `zip`
// are the task's scratch.
void encode_exr_chunk(const fs::path& path, const Field2D& heights, int k,
                      std::vector<std::uint8_t>& raw, std::vector<std::uint8_t>& zip,
                      std::vector<std::uint8_t>& out) {
  const int w = heights.grid.width, h = heights.grid.height;
  const int y0 = k * kZipScanlines, y1 = std::min(h, y0 + kZipScanlines);
  const std::size_t row_bytes = std::size_t(w) * sizeof(float);
  const std::size_t n = std::size_t(y1 - y0) * std::size(kChannels) * row_bytes;
  raw.resize(n);
  std::uint8_t* at = raw.data();
  for (int y = y0; y < y1; ++y) {
    const float* row = heights.data.data() + std::size_t(y) * std::size_t(w);
    for (std::size_t c = 0; c < std::size(kChannels); ++c, at += row_bytes) {
      std::memcpy(at, row, row_bytes);
    }
  }
  // Even-indexed bytes, then odd-indexed ones; then each byte after the first as its difference
  // from the one before, plus 128.
  zip.resize(n);
  std::uint8_t* even = zip.data();
  std::uint8_t* odd = zip.data() + (n + 1) / 2;
  for (std::size_t i = 0; i < n; i += 2) {
    *even++ = raw[i];
    if (i + 1 < n) *odd++ = raw[i + 1];
  }
  for (std::size_t i = n; i-- > 1;) zip[i] = std::uint8_t(zip[i] - zip[i - 1] + 128u);
  uLongf packed = compressBound(uLong(n));
  out.resize(8 + std::size_t(packed));
  const int rc = compress2(out.data() + 8, &packed, zip.data(), uLong(n), kZipLevel);
  if (rc != Z_OK) {
    throw io_detail::file_error(
        ErrorCategory::internal, path,
        "zlib could not compress an OpenEXR chunk (code " + std::to_string(rc) + ")");
  }
  std::size_t size = packed;
  if (size >= n) {  // not smaller: the bytes as they are
    size = n;
    std::memcpy(out.data() + 8, raw.data(), n);
  }
  out.resize(8 + size);
  std::vector<std::uint8_t> head;
  put_i32(head, y0);
  put_i32(head, std::int32_t(size));
  std::memcpy(out.data(), head.data(), 8);
}

}  // namespace

void write_exr(const fs::path& path, const Field2D& heights, const ExecContext& ctx) {
  const int w = heights.grid.width, h = heights.grid.height;
  io_detail::check_image_size(path, w, h, ErrorCategory::invalid_argument);
  if (heights.data.size() != heights.grid.sample_count()) {
    throw io_detail::file_error(ErrorCategory::invalid_argument, path,
                                "height field data size " + std::to_string(heights.data.size()) +
                                    " does not match its grid");
  }
  const int chunks = (h + kZipScanlines - 1) / kZipScanlines;
  write_file_atomic(path, [&](int fd) {
    const std::vector<std::uint8_t> head = exr_head(w, h);
    std::vector<std::uint8_t> table(std::size_t(chunks) * 8);
    write_to_descriptor(fd, path, std::as_bytes(std::span(head)));
    write_to_descriptor(fd, path, std::as_bytes(std::span(table)));  // filled in below
    std::uint64_t offset = head.size() + table.size();
    const int wave = 4 * worker_count(ctx);
    std::vector<std::vector<std::uint8_t>> chunk(std::size_t(std::min(wave, chunks)));
    for (int k0 = 0; k0 < chunks; k0 += wave) {
      const int k1 = std::min(chunks, k0 + wave);
      parallel_for(ctx, k1 - k0, 1, [&](std::int64_t b0, std::int64_t b1) {
        std::vector<std::uint8_t> raw, zip;
        for (auto b = std::size_t(b0); b < std::size_t(b1); ++b) {
          encode_exr_chunk(path, heights, k0 + int(b), raw, zip, chunk[b]);
        }
      });
      for (int k = k0; k < k1; ++k) {
        std::vector<std::uint8_t>& c = chunk[std::size_t(k - k0)];
        for (int byte = 0; byte < 8; ++byte) {
          table[std::size_t(k) * 8 + std::size_t(byte)] = std::uint8_t(offset >> (8 * byte));
        }
        write_to_descriptor(fd, path, std::as_bytes(std::span(c)));
        offset += c.size();
      }
    }
    std::size_t done = 0;
    while (done < table.size()) {
      const ::ssize_t n =
          ::pwrite(fd, table.data() + done, table.size() - done, ::off_t(head.size() + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        throw io_detail::file_error(ErrorCategory::io, path,
                                    "write failed: " + io_detail::errno_text(errno));
      }
      done += std::size_t(n);
    }
  });
}

Field2D read_exr(const fs::path& path, double spacing_m) {
  const exr_attr_box2i_t box = checked_data_window(path);
  const int w = box.max.x - box.min.x + 1, h = box.max.y - box.min.y + 1;
  CoreErrors errors;
  const exr_context_initializer_t init = core_initializer(errors);
  exr_context_t ctx = nullptr;
  exr_decode_pipeline_t decoder = EXR_DECODE_PIPELINE_INITIALIZER;
  bool decoder_ready = false;
  struct Finish {
    exr_context_t& ctx;
    exr_decode_pipeline_t& decoder;
    bool& ready;
    ~Finish() {
      if (ready) exr_decoding_destroy(ctx, &decoder);
      exr_finish(&ctx);
    }
  } finish{ctx, decoder, decoder_ready};
  auto check = [&](exr_result_t rc, const char* what) {
    if (rc == EXR_ERR_SUCCESS) return;
    const std::string detail =
        errors.message.empty() ? exr_get_error_code_as_string(rc) : errors.message;
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        std::string("malformed OpenEXR file (") + what + "): " + io_detail::quoted(detail, 300));
  };
  check(exr_start_read(&ctx, path.c_str(), &init), "header");
  exr_storage_t storage = EXR_STORAGE_SCANLINE;
  check(exr_get_storage(ctx, 0, &storage), "storage");
  if (storage != EXR_STORAGE_SCANLINE && storage != EXR_STORAGE_TILED) {
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "deep OpenEXR images are not height maps (expected scan lines "
                                "or tiles)");
  }
  const exr_attr_chlist_t* channels = nullptr;
  check(exr_get_channels(ctx, 0, &channels), "channels");
  int chosen = -1;
  for (const char* want : {"R", "Y"}) {
    for (int c = 0; chosen < 0 && channels != nullptr && c < channels->num_channels; ++c) {
      if (std::string_view(channels->entries[c].name.str,
                           std::size_t(channels->entries[c].name.length)) == want) {
        chosen = c;
      }
    }
  }
  if (chosen < 0) {
    std::string found;
    for (int c = 0; channels != nullptr && c < channels->num_channels; ++c) {
      if (!found.empty()) found += ", ";
      found +=
          std::string(channels->entries[c].name.str, std::size_t(channels->entries[c].name.length));
    }
    throw io_detail::file_error(ErrorCategory::parse, path,
                                "expected a channel named R or Y, found: " +
                                    (found.empty() ? std::string("no channels") : found));
  }
  const exr_attr_chlist_entry_t& channel = channels->entries[chosen];
  if (channel.x_sampling != 1 || channel.y_sampling != 1 || channel.pixel_type == EXR_PIXEL_UINT) {
    throw io_detail::file_error(
        ErrorCategory::parse, path,
        "channel " + std::string(channel.name.str, std::size_t(channel.name.length)) +
            " must be a HALF or FLOAT channel sampled at every pixel (found sampling " +
            std::to_string(channel.x_sampling) + " x " + std::to_string(channel.y_sampling) +
            (channel.pixel_type == EXR_PIXEL_UINT ? ", UINT samples)" : ")"));
  }
  const std::string channel_name(channel.name.str, std::size_t(channel.name.length));

  Field2D out(GridSpec{.width = w, .height = h, .spacing_m = spacing_m});
  // Decodes one chunk (a block of scan lines, or a tile) whose first pixel is (x0, y0) of the
  // data window into `out`, converting HALF samples to float.
  auto decode = [&](const exr_chunk_info_t& chunk, int x0, int y0) {
    if (x0 < 0 || y0 < 0 || chunk.width <= 0 || chunk.height <= 0 || x0 + chunk.width > w ||
        y0 + chunk.height > h) {
      throw io_detail::file_error(ErrorCategory::parse, path,
                                  "malformed OpenEXR file: a block outside the data window");
    }
    if (!decoder_ready) {
      check(exr_decoding_initialize(ctx, 0, &chunk, &decoder), "decoder");
      decoder_ready = true;
    } else {
      check(exr_decoding_update(ctx, 0, &chunk, &decoder), "decoder");
    }
    for (int c = 0; c < decoder.channel_count; ++c) {
      exr_coding_channel_info_t& info = decoder.channels[c];
      if (channel_name == info.channel_name) {
        info.decode_to_ptr = reinterpret_cast<std::uint8_t*>(
            out.data.data() + std::size_t(y0) * std::size_t(w) + std::size_t(x0));
        info.user_pixel_stride = int32_t(sizeof(float));
        info.user_line_stride = int32_t(sizeof(float) * std::size_t(w));
        info.user_bytes_per_element = int16_t(sizeof(float));
        info.user_data_type = EXR_PIXEL_FLOAT;
      } else {
        info.decode_to_ptr = nullptr;
      }
    }
    check(exr_decoding_choose_default_routines(ctx, 0, &decoder), "decoder");
    check(exr_decoding_run(ctx, 0, &decoder), "pixels");
  };
  if (storage == EXR_STORAGE_SCANLINE) {
    int lines = 1;
    check(exr_get_scanlines_per_chunk(ctx, 0, &lines), "scan lines");
    if (lines < 1) lines = 1;
    for (std::int64_t y = box.min.y; y <= box.max.y; y += lines) {
      exr_chunk_info_t chunk{};
      check(exr_read_scanline_chunk_info(ctx, 0, int(y), &chunk), "scan line block");
      decode(chunk, chunk.start_x - box.min.x, chunk.start_y - box.min.y);
    }
  } else {
    std::uint32_t tw = 0, th = 0;
    exr_tile_level_mode_t levels{};
    exr_tile_round_mode_t round{};
    check(exr_get_tile_descriptor(ctx, 0, &tw, &th, &levels, &round), "tiles");
    if (tw == 0 || th == 0) {
      throw io_detail::file_error(ErrorCategory::parse, path,
                                  "malformed OpenEXR file: empty tiles");
    }
    for (std::int64_t ty = 0; ty * std::int64_t(th) < h; ++ty) {
      for (std::int64_t tx = 0; tx * std::int64_t(tw) < w; ++tx) {
        exr_chunk_info_t chunk{};
        check(exr_read_tile_chunk_info(ctx, 0, int(tx), int(ty), 0, 0, &chunk), "tile");
        decode(chunk, int(tx * std::int64_t(tw)), int(ty * std::int64_t(th)));
      }
    }
  }
  return out;
}

}  // namespace terrane
