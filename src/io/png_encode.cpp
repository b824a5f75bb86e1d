// PNG encoding on every core (W3C, "Portable Network Graphics (PNG) Specification", 2nd ed.,
// 2003: §7 scanlines and filter bytes, §9 filters, §10 the zlib stream, §5.3 chunks; RFC 1950
// zlib, RFC 1951 deflate).
//
// The filtered scanlines form one zlib stream. It is compressed in blocks of whole scanlines,
// about kBlockBytes each, a block per task: each block's deflate stream starts with the 32 KiB
// of filtered data before it as its dictionary (so matches may reach back into the previous
// block, as they would in one stream) and ends with a sync flush (an empty stored block, which
// byte-aligns it), the last one with the final block. The blocks' Adler-32 checksums are
// combined in order. The split depends only on the image's width, so the bytes are the same on
// any thread count. The blocks are compressed a wave at a time (four per worker) and each wave
// goes to the sink, cut into IDAT chunks, before the next one is formed: the encoder reads the
// image a row at a time from its source and holds neither the image nor the whole stream. An image
// of one block is one ordinary deflate stream, the same bytes as a row-by-row encoder with the same
// settings (libspng 0.7's, which terrane used before: its goldens did not change).
//
// Filters: `fast` filters every row with Paeth (type 4) and compresses at zlib level 1; otherwise
// each row takes the filter whose filtered bytes, read as signed, have the least sum of absolute
// values (ties to the lower type; the heuristic of the PNG specification's §12.8, as libpng and
// libspng apply it) and the stream is compressed at level 6. Both use Z_FILTERED.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

namespace terrane::io_detail {
namespace {

// Filtered bytes per block (rounded to whole scanlines, at least one).
constexpr std::size_t kBlockBytes = std::size_t(1) << 20;
// Deflate's window: the dictionary each block after the first starts with.
constexpr std::size_t kWindow = 32768;
// Data bytes per IDAT chunk (the last one may hold fewer).
constexpr std::size_t kIdatBytes = 8192;

struct Layout {
  int width = 0, height = 0;
  int bytes_per_sample = 1;   // 1 or 2
  std::size_t row_bytes = 0;  // one row of samples, without its filter byte
  std::size_t bpp = 1;        // bytes per pixel: the filters' left neighbour distance
  std::size_t scanline() const { return row_bytes + 1; }
};

int channels_of(int color_type) {
  switch (color_type) {
    case 0:
      return 1;  // greyscale
    case 2:
      return 3;  // RGB
    case 4:
      return 2;  // greyscale + alpha
    case 6:
      return 4;  // RGBA
    default:
      return 0;
  }
}

// Throws Error(internal) for a layout the encoder does not write.
Layout layout_of(int width, int height, int color_type, int bit_depth) {
  const int channels = channels_of(color_type);
  if (channels == 0 || (bit_depth != 8 && bit_depth != 16) || width < 1 || height < 1) {
    throw Error(ErrorCategory::internal, "PNG encoding: colour type " + std::to_string(color_type) +
                                             ", bit depth " + std::to_string(bit_depth) + ", " +
                                             std::to_string(width) + " x " +
                                             std::to_string(height) + " is not supported");
  }
  Layout l;
  l.width = width;
  l.height = height;
  l.bytes_per_sample = bit_depth / 8;
  l.bpp = std::size_t(channels) * std::size_t(l.bytes_per_sample);
  l.row_bytes = std::size_t(width) * l.bpp;
  return l;
}

// Row j in the file's byte order: the source's row, 16-bit samples swapped to big-endian
// (§7.1).
void png_row(const Layout& l, const PngRows& rows, int j, std::uint8_t* out) {
  rows(j, out);
  if (l.bytes_per_sample == 1) return;
  for (std::size_t k = 0; k < l.row_bytes; k += 2) std::swap(out[k], out[k + 1]);
}

inline std::uint8_t paeth(std::uint8_t a, std::uint8_t b, std::uint8_t c) {
  const int p = int(a) + int(b) - int(c);
  const int pa = std::abs(p - int(a)), pb = std::abs(p - int(b)), pc = std::abs(p - int(c));
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

// Filters `cur` (previous row `prev`, zeros above the first row) with `type` into out.
void filter_row(int type, const std::uint8_t* prev, const std::uint8_t* cur, std::size_t n,
                std::size_t bpp, std::uint8_t* out) {
  switch (type) {
    case 0:
      std::memcpy(out, cur, n);
      return;
    case 1:
      for (std::size_t i = 0; i < n; ++i)
        out[i] = std::uint8_t(cur[i] - (i >= bpp ? cur[i - bpp] : 0));
      return;
    case 2:
      for (std::size_t i = 0; i < n; ++i) out[i] = std::uint8_t(cur[i] - prev[i]);
      return;
    case 3:
      for (std::size_t i = 0; i < n; ++i) {
        const unsigned a = i >= bpp ? cur[i - bpp] : 0;
        out[i] = std::uint8_t(cur[i] - (a + prev[i]) / 2);
      }
      return;
    default:
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t a = i >= bpp ? cur[i - bpp] : 0, c = i >= bpp ? prev[i - bpp] : 0;
        out[i] = std::uint8_t(cur[i] - paeth(a, prev[i], c));
      }
      return;
  }
}

// The filter byte and filtered bytes of one scanline into out[0 .. scanline).
void filtered_scanline(const Layout& l, bool fast, const std::uint8_t* prev,
                       const std::uint8_t* cur, std::vector<std::uint8_t>& trial,
                       std::uint8_t* out) {
  if (fast) {
    out[0] = 4;
    filter_row(4, prev, cur, l.row_bytes, l.bpp, out + 1);
    return;
  }
  trial.resize(l.row_bytes);
  std::uint64_t best = UINT64_MAX;
  for (int type = 0; type < 5; ++type) {
    filter_row(type, prev, cur, l.row_bytes, l.bpp, trial.data());
    std::uint64_t sum = 0;
    for (const std::uint8_t x : trial) sum += std::min<unsigned>(x, 256u - x);
    if (sum < best) {
      best = sum;
      out[0] = std::uint8_t(type);
      std::memcpy(out + 1, trial.data(), l.row_bytes);
    }
  }
}

// One block's deflate data (raw, no zlib wrapper) and the Adler-32 of its filtered bytes.
struct Block {
  std::vector<std::uint8_t> data;
  std::uint32_t adler = 1;
  std::size_t filtered_bytes = 0;
};

void compress_block(const Layout& l, bool fast, const PngRows& rows, int r0, int r1, bool last,
                    Block& out) {
  const std::size_t scan = l.scanline();
  // The rows before r0 whose filtered bytes make the dictionary.
  const int dict_rows = r0 == 0 ? 0 : std::min(r0, int((kWindow + scan - 1) / scan));
  const int d0 = r0 - dict_rows;
  std::vector<std::uint8_t> filtered(std::size_t(r1 - d0) * scan);
  std::vector<std::uint8_t> prev(l.row_bytes, 0), cur(l.row_bytes), trial;
  if (d0 > 0) png_row(l, rows, d0 - 1, prev.data());
  for (int j = d0; j < r1; ++j) {
    png_row(l, rows, j, cur.data());
    filtered_scanline(l, fast, prev.data(), cur.data(), trial,
                      filtered.data() + std::size_t(j - d0) * scan);
    std::swap(prev, cur);
  }
  const std::uint8_t* data = filtered.data() + std::size_t(dict_rows) * scan;
  const std::size_t bytes = std::size_t(r1 - r0) * scan;
  out.filtered_bytes = bytes;
  out.adler = std::uint32_t(adler32(adler32(0, nullptr, 0), data, uInt(bytes)));

  z_stream z{};
  if (deflateInit2(&z, fast ? 1 : 6, Z_DEFLATED, -15, 8, Z_FILTERED) != Z_OK) {
    throw Error(ErrorCategory::internal, "PNG encoding: deflateInit2 failed");
  }
  struct End {
    z_stream* z;
    ~End() { deflateEnd(z); }
  } end{&z};
  if (dict_rows > 0) {
    const std::size_t have = std::size_t(dict_rows) * scan, dict = std::min(kWindow, have);
    if (deflateSetDictionary(&z, filtered.data() + (have - dict), uInt(dict)) != Z_OK) {
      throw Error(ErrorCategory::internal, "PNG encoding: deflateSetDictionary failed");
    }
  }
  // Room for the worst case plus the sync flush's empty stored block; grown if ever short.
  out.data.resize(deflateBound(&z, uLong(bytes)) + 16);
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = uInt(bytes);
  const int flush = last ? Z_FINISH : Z_SYNC_FLUSH;
  std::size_t written = 0;
  for (;;) {
    z.next_out = out.data.data() + written;
    z.avail_out = uInt(out.data.size() - written);
    const int rc = deflate(&z, flush);
    written = out.data.size() - z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw Error(ErrorCategory::internal,
                  "PNG encoding: deflate failed (" + std::to_string(rc) + ")");
    }
    if (z.avail_out > 0) {
      // Room left after a sync flush: the block is complete (a repeated flush with nothing
      // left answers Z_BUF_ERROR). Z_FINISH stops only at Z_STREAM_END.
      if (!last && z.avail_in == 0) break;
      throw Error(ErrorCategory::internal, "PNG encoding: deflate stopped with room left");
    }
    out.data.resize(out.data.size() * 2);
  }
  out.data.resize(written);
  out.data.shrink_to_fit();  // every block is held until the file is assembled
}

void put_u32(std::uint8_t* p, std::uint32_t v) {
  p[0] = std::uint8_t(v >> 24);
  p[1] = std::uint8_t(v >> 16);
  p[2] = std::uint8_t(v >> 8);
  p[3] = std::uint8_t(v);
}

// The file's bytes in order: chunks (§5.3) formed as their data comes, the zlib stream cut
// into IDAT chunks of kIdatBytes (the last one may hold fewer), handed to the sink about
// kFlushBytes at a time.
class Chunks {
 public:
  explicit Chunks(const std::function<void(std::span<const std::uint8_t>)>& sink) : sink_(sink) {}
  // Bytes outside any chunk: the signature.
  void raw(const std::uint8_t* p, std::size_t n) { buf_.insert(buf_.end(), p, p + n); }
  // A whole chunk.
  void chunk(const char* type, const std::uint8_t* data, std::size_t n) {
    open(type);
    buf_.insert(buf_.end(), data, data + n);
    seal();
  }
  // Bytes of the zlib stream.
  void stream(const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
      if (!open_) open("IDAT");
      const std::size_t take = std::min(n, kIdatBytes - (buf_.size() - chunk_ - 8));
      buf_.insert(buf_.end(), p, p + take);
      p += take;
      n -= take;
      if (buf_.size() - chunk_ - 8 == kIdatBytes) seal();
    }
  }
  // The last IDAT and IEND, and whatever is left handed on.
  void finish() {
    if (open_) seal();
    chunk("IEND", nullptr, 0);
    flush();
  }

 private:
  static constexpr std::size_t kFlushBytes = std::size_t(1) << 20;
  void open(const char* type) {
    chunk_ = buf_.size();
    buf_.resize(chunk_ + 8);
    std::memcpy(buf_.data() + chunk_ + 4, type, 4);
    open_ = true;
  }
  // The open chunk's length and CRC (over its type and data).
  void seal() {
    const std::size_t length = buf_.size() - chunk_ - 8;
    put_u32(buf_.data() + chunk_, std::uint32_t(length));
    const auto crc =
        std::uint32_t(crc32(crc32(0, nullptr, 0), buf_.data() + chunk_ + 4, uInt(4 + length)));
    buf_.resize(buf_.size() + 4);
    put_u32(buf_.data() + buf_.size() - 4, crc);
    open_ = false;
    if (buf_.size() >= kFlushBytes) flush();
  }
  void flush() {
    if (!buf_.empty()) sink_(buf_);
    buf_.clear();
  }
  const std::function<void(std::span<const std::uint8_t>)>& sink_;
  std::vector<std::uint8_t> buf_;
  std::size_t chunk_ = 0;  // where the open chunk starts in buf_
  bool open_ = false;
};

}  // namespace

void encode_png(int width, int height, int color_type, int bit_depth, const PngRows& rows,
                bool fast, const ExecContext& ctx,
                const std::function<void(std::span<const std::uint8_t>)>& sink) {
  const Layout l = layout_of(width, height, color_type, bit_depth);
  const int rows_per_block = int(std::max<std::size_t>(1, kBlockBytes / l.scanline()));
  const int blocks = (height + rows_per_block - 1) / rows_per_block;

  Chunks out(sink);
  static constexpr std::array<std::uint8_t, 8> kSignature = {0x89, 'P',  'N',  'G',
                                                             '\r', '\n', 0x1a, '\n'};
  std::array<std::uint8_t, 13> ihdr{};
  put_u32(ihdr.data(), std::uint32_t(width));
  put_u32(ihdr.data() + 4, std::uint32_t(height));
  ihdr[8] = std::uint8_t(bit_depth);
  ihdr[9] = std::uint8_t(color_type);
  ihdr[10] = 0;  // deflate
  ihdr[11] = 0;  // adaptive filtering
  ihdr[12] = 0;  // not interlaced
  out.raw(kSignature.data(), kSignature.size());
  out.chunk("IHDR", ihdr.data(), ihdr.size());

  // The zlib stream (RFC 1950 §2.2): the header (32 KiB window, the level's FLEVEL, FCHECK), the
  // blocks, the Adler-32 of all filtered bytes. The blocks are compressed a wave at a time, in
  // parallel, and each wave is handed on in order before the next is formed, so that only a
  // wave's blocks are held, never the image or the whole stream.
  const unsigned flevel = fast ? 0 : 2;
  unsigned header = (0x78u << 8) | (flevel << 6);
  header += 31 - header % 31;
  const std::array<std::uint8_t, 2> head = {std::uint8_t(header >> 8), std::uint8_t(header & 0xff)};
  out.stream(head.data(), head.size());
  std::uint32_t adler = 1;
  const int wave = 4 * worker_count(ctx);
  std::vector<Block> block(static_cast<std::size_t>(std::min(wave, blocks)));
  for (int w0 = 0; w0 < blocks; w0 += wave) {
    const int w1 = std::min(blocks, w0 + wave);
    parallel_for(ctx, w1 - w0, 1, [&](std::int64_t b0, std::int64_t b1) {
      for (auto b = int(b0); b < int(b1); ++b) {
        const int r0 = (w0 + b) * rows_per_block, r1 = std::min(height, r0 + rows_per_block);
        compress_block(l, fast, rows, r0, r1, w0 + b + 1 == blocks, block[std::size_t(b)]);
      }
    });
    for (int b = 0; b < w1 - w0; ++b) {
      Block& k = block[std::size_t(b)];
      adler = w0 + b == 0
                  ? k.adler
                  : std::uint32_t(adler32_combine(adler, k.adler, z_off_t(k.filtered_bytes)));
      out.stream(k.data.data(), k.data.size());
      std::vector<std::uint8_t>().swap(k.data);
    }
  }
  std::array<std::uint8_t, 4> tail;
  put_u32(tail.data(), adler);
  out.stream(tail.data(), tail.size());
  out.finish();
}

std::vector<std::uint8_t> encode_png(int width, int height, int color_type, int bit_depth,
                                     const void* pixels, std::size_t pixel_bytes, bool fast,
                                     const ExecContext& ctx) {
  std::vector<std::uint8_t> file;
  encode_png(width, height, color_type, bit_depth,
             pixel_rows(width, height, color_type, bit_depth, pixels, pixel_bytes), fast, ctx,
             [&](std::span<const std::uint8_t> bytes) {
               file.insert(file.end(), bytes.begin(), bytes.end());
             });
  return file;
}

PngRows pixel_rows(int width, int height, int color_type, int bit_depth, const void* pixels,
                   std::size_t pixel_bytes) {
  const std::size_t row_bytes = layout_of(width, height, color_type, bit_depth).row_bytes;
  if (pixel_bytes != row_bytes * std::size_t(height)) {
    throw Error(ErrorCategory::internal, "PNG encoding: " + std::to_string(pixel_bytes) +
                                             " bytes of pixels for " + std::to_string(width) +
                                             " x " + std::to_string(height) + " with " +
                                             std::to_string(row_bytes) + " bytes a row");
  }
  return [px = static_cast<const std::uint8_t*>(pixels), row_bytes](int j, std::uint8_t* out) {
    std::memcpy(out, px + std::size_t(j) * row_bytes, row_bytes);
  };
}

}  // namespace terrane::io_detail
