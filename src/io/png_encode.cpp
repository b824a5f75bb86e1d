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
// any thread count. An image of one block is one ordinary deflate stream, the same bytes as a
// row-by-row encoder with the same settings (libspng 0.7's, which terrane used before: its
// goldens did not change).
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
#include <string>
#include <vector>

#include "core/huge_pages.hpp"
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
constexpr std::size_t kChunkOverhead = 12;  // length, type, CRC
constexpr std::size_t kSignatureAndIhdr = 8 + kChunkOverhead + 13;

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

// Row j in the file's byte order: 16-bit samples big-endian (§7.1).
void png_row(const Layout& l, const std::uint8_t* pixels, int j, std::uint8_t* out) {
  const std::uint8_t* src = pixels + std::size_t(j) * l.row_bytes;
  if (l.bytes_per_sample == 1) {
    std::memcpy(out, src, l.row_bytes);
    return;
  }
  for (std::size_t k = 0; k < l.row_bytes; k += 2) {
    std::uint16_t v;
    std::memcpy(&v, src + k, 2);
    out[k] = std::uint8_t(v >> 8);
    out[k + 1] = std::uint8_t(v & 0xff);
  }
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

void compress_block(const Layout& l, bool fast, const std::uint8_t* pixels, int r0, int r1,
                    bool last, Block& out) {
  const std::size_t scan = l.scanline();
  // The rows before r0 whose filtered bytes make the dictionary.
  const int dict_rows = r0 == 0 ? 0 : std::min(r0, int((kWindow + scan - 1) / scan));
  const int d0 = r0 - dict_rows;
  std::vector<std::uint8_t> filtered(std::size_t(r1 - d0) * scan);
  std::vector<std::uint8_t> prev(l.row_bytes, 0), cur(l.row_bytes), trial;
  if (d0 > 0) png_row(l, pixels, d0 - 1, prev.data());
  for (int j = d0; j < r1; ++j) {
    png_row(l, pixels, j, cur.data());
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

// Writes a chunk's length and type at p and its CRC after `length` data bytes (already there).
void seal_chunk(std::uint8_t* p, const char* type, std::size_t length) {
  put_u32(p, std::uint32_t(length));
  std::memcpy(p + 4, type, 4);
  const auto crc = std::uint32_t(crc32(crc32(0, nullptr, 0), p + 4, uInt(4 + length)));
  put_u32(p + 8 + length, crc);
}

}  // namespace

std::vector<std::uint8_t> encode_png(int width, int height, int color_type, int bit_depth,
                                     const void* pixels, std::size_t pixel_bytes, bool fast,
                                     const ExecContext& ctx) {
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
  if (pixel_bytes != l.row_bytes * std::size_t(height)) {
    throw Error(ErrorCategory::internal, "PNG encoding: " + std::to_string(pixel_bytes) +
                                             " bytes of pixels for " + std::to_string(width) +
                                             " x " + std::to_string(height) + " x " +
                                             std::to_string(l.bpp) + " bytes");
  }
  const auto* px = static_cast<const std::uint8_t*>(pixels);
  const int rows_per_block = int(std::max<std::size_t>(1, kBlockBytes / l.scanline()));
  const int blocks = (height + rows_per_block - 1) / rows_per_block;
  std::vector<Block> block(static_cast<std::size_t>(blocks));
  parallel_for(ctx, blocks, 1, [&](std::int64_t b0, std::int64_t b1) {
    for (auto b = int(b0); b < int(b1); ++b) {
      const int r0 = b * rows_per_block, r1 = std::min(height, r0 + rows_per_block);
      compress_block(l, fast, px, r0, r1, b + 1 == blocks, block[std::size_t(b)]);
    }
  });

  // The zlib stream: header (RFC 1950 §2.2: 32 KiB window, the level's FLEVEL, FCHECK), the
  // blocks, the Adler-32 of all filtered bytes.
  const unsigned flevel = fast ? 0 : 2;
  unsigned header = (0x78u << 8) | (flevel << 6);
  header += 31 - header % 31;
  std::uint32_t adler = block[0].adler;
  std::size_t stream_bytes = 2 + 4;
  for (std::size_t b = 0; b < block.size(); ++b) {
    if (b > 0) {
      adler =
          std::uint32_t(adler32_combine(adler, block[b].adler, z_off_t(block[b].filtered_bytes)));
    }
    stream_bytes += block[b].data.size();
  }

  // The file: signature, IHDR, the stream in IDAT chunks of kIdatBytes, IEND.
  const std::size_t idats = (stream_bytes + kIdatBytes - 1) / kIdatBytes;
  const std::size_t idat_begin = kSignatureAndIhdr;
  const std::size_t file_bytes =
      idat_begin + stream_bytes + idats * kChunkOverhead + kChunkOverhead;
  std::vector<std::uint8_t> file;
  core_detail::resize_huge(file, file_bytes, &ctx);
  static constexpr std::array<std::uint8_t, 8> kSignature = {0x89, 'P',  'N',  'G',
                                                             '\r', '\n', 0x1a, '\n'};
  std::memcpy(file.data(), kSignature.data(), kSignature.size());
  std::uint8_t* ihdr = file.data() + 8;
  put_u32(ihdr + 8, std::uint32_t(width));
  put_u32(ihdr + 12, std::uint32_t(height));
  ihdr[16] = std::uint8_t(bit_depth);
  ihdr[17] = std::uint8_t(color_type);
  ihdr[18] = 0;  // deflate
  ihdr[19] = 0;  // adaptive filtering
  ihdr[20] = 0;  // not interlaced
  seal_chunk(ihdr, "IHDR", 13);
  // Stream byte s lies in IDAT s / kIdatBytes, at s % kIdatBytes into its data.
  auto at = [&](std::size_t s) {
    return file.data() + idat_begin + (s / kIdatBytes) * (kIdatBytes + kChunkOverhead) + 8 +
           s % kIdatBytes;
  };
  auto copy_stream = [&](std::size_t s, const std::uint8_t* from, std::size_t n) {
    while (n > 0) {
      const std::size_t take = std::min(n, kIdatBytes - s % kIdatBytes);
      std::memcpy(at(s), from, take);
      s += take;
      from += take;
      n -= take;
    }
  };
  const std::array<std::uint8_t, 2> head = {std::uint8_t(header >> 8), std::uint8_t(header & 0xff)};
  copy_stream(0, head.data(), 2);
  std::vector<std::size_t> offset(block.size());
  std::size_t s = 2;
  for (std::size_t b = 0; b < block.size(); ++b) {
    offset[b] = s;
    s += block[b].data.size();
  }
  std::array<std::uint8_t, 4> tail;
  put_u32(tail.data(), adler);
  copy_stream(s, tail.data(), 4);
  parallel_for(ctx, std::int64_t(block.size()), 1, [&](std::int64_t b0, std::int64_t b1) {
    for (auto b = std::size_t(b0); b < std::size_t(b1); ++b) {
      copy_stream(offset[b], block[b].data.data(), block[b].data.size());
    }
  });
  parallel_for(ctx, std::int64_t(idats), 64, [&](std::int64_t c0, std::int64_t c1) {
    for (auto c = std::size_t(c0); c < std::size_t(c1); ++c) {
      const std::size_t n = std::min(kIdatBytes, stream_bytes - c * kIdatBytes);
      seal_chunk(file.data() + idat_begin + c * (kIdatBytes + kChunkOverhead), "IDAT", n);
    }
  });
  seal_chunk(file.data() + file_bytes - kChunkOverhead, "IEND", 0);
  return file;
}

}  // namespace terrane::io_detail
