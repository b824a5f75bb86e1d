// Height tiles as compressed blobs (edit_blob.hpp): byte-plane shuffle (as Blosc does for
// typed data) and a zstd frame with a content checksum, so damage inside a blob is reported
// rather than read as deltas.
#include "store/edit_blob.hpp"

#include <zstd.h>

#include <cmath>
#include <cstring>

#include "terrane/schema.hpp"

namespace terrane::store_detail {
namespace {

constexpr std::uint8_t kMagic[4] = {'T', 'R', 'H', '1'};
constexpr std::size_t kHeader = 8;
// Level 1: a 128^2 tile of a brush stroke in 50-80 us (bench_store's BM_EncodeHeightTile);
// level 3 gains about 10 % in size for twice the time.
constexpr int kLevel = 1;

// One compression and one decompression context per thread, reused: creating a context per
// tile allocates (and page-faults in) several hundred kilobytes, which cost more than the
// compression itself.
struct Contexts {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_DCtx* d = ZSTD_createDCtx();
  Contexts() {
    if (c != nullptr) {
      ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, kLevel);
      ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    }
  }
  Contexts(const Contexts&) = delete;
  Contexts& operator=(const Contexts&) = delete;
  ~Contexts() {
    ZSTD_freeCCtx(c);
    ZSTD_freeDCtx(d);
  }
};

Contexts& contexts() {
  thread_local Contexts ctx;
  if (ctx.c == nullptr || ctx.d == nullptr) {
    throw Error(ErrorCategory::internal, "world: zstd: out of memory");
  }
  return ctx;
}

// Appends one zstd frame (with its content checksum) of `data` to `out`.
void append_frame(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> data) {
  const std::size_t at = out.size();
  out.resize(at + ZSTD_compressBound(data.size()));
  const std::size_t written =
      ZSTD_compress2(contexts().c, out.data() + at, out.size() - at, data.data(), data.size());
  if (ZSTD_isError(written) != 0) {
    throw Error(ErrorCategory::internal,
                std::string("world: zstd compression failed: ") + ZSTD_getErrorName(written));
  }
  out.resize(at + written);
}

// Decodes the one frame `frame` into exactly out.size() bytes; else returns why not.
std::string read_frame(std::span<const std::uint8_t> frame, std::span<std::uint8_t> out) {
  const unsigned long long content = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (content != out.size())
    return "the frame does not hold the expected " + std::to_string(out.size()) + " bytes";
  const std::size_t got =
      ZSTD_decompressDCtx(contexts().d, out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(got) != 0) return ZSTD_getErrorName(got);
  if (got != out.size()) return "short frame";
  return {};
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int b = 0; b < 4; ++b) out.push_back(std::uint8_t(v >> (8 * b)));
}

std::uint64_t get_le(std::span<const std::uint8_t> bytes, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int b = 0; b < n; ++b) v |= std::uint64_t(bytes[at + std::size_t(b)]) << (8 * b);
  return v;
}

// The float bits of `v` split into four byte planes (lowest byte first), which lets zstd see
// smooth values' repeating high bytes.
std::vector<std::uint8_t> float_planes(std::span<const float> v) {
  const std::size_t n = v.size();
  std::vector<std::uint8_t> planes(n * 4);
  for (std::size_t k = 0; k < n; ++k) {
    std::uint32_t bits;
    std::memcpy(&bits, &v[k], 4);
    for (std::size_t b = 0; b < 4; ++b) planes[b * n + k] = std::uint8_t(bits >> (8 * b));
  }
  return planes;
}

// Decodes a frame of float_planes into exactly out.size() floats; else returns why not.
std::string read_float_planes(std::span<const std::uint8_t> frame, std::span<float> out) {
  const std::size_t n = out.size();
  std::vector<std::uint8_t> planes(n * 4);
  if (std::string why = read_frame(frame, planes); !why.empty()) return why;
  for (std::size_t k = 0; k < n; ++k) {
    std::uint32_t bits = 0;
    for (std::size_t b = 0; b < 4; ++b) bits |= std::uint32_t(planes[b * n + k]) << (8 * b);
    std::memcpy(&out[k], &bits, 4);
  }
  return {};
}

}  // namespace

std::vector<std::uint8_t> encode_height_tile(const HeightEditSnapshot::Tile& tile, int tile_cells) {
  std::vector<std::uint8_t> out(kMagic, kMagic + 4);
  put_u32(out, std::uint32_t(tile_cells));
  append_frame(out, float_planes(tile));
  return out;
}

HeightEditSnapshot::Tile decode_height_tile(std::span<const std::uint8_t> blob, int tile_cells,
                                            const std::string& where) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCategory::io, where + ": damaged height edits: " + why);
  };
  if (blob.size() < kHeader || std::memcmp(blob.data(), kMagic, 4) != 0) {
    throw bad("not a height tile (no TRH1 header)");
  }
  const auto side = std::uint32_t(get_le(blob, 4, 4));
  if (side != std::uint32_t(tile_cells)) {
    throw bad("a tile of side " + std::to_string(side) + ", the world's is " +
              std::to_string(tile_cells));
  }
  HeightEditSnapshot::Tile tile(std::size_t(tile_cells) * std::size_t(tile_cells));
  if (const std::string why = read_float_planes(blob.subspan(kHeader), tile); !why.empty()) {
    throw bad(why);
  }
  for (const float d : tile) {
    if (!std::isfinite(d)) throw bad("a delta that is not finite");
  }
  return tile;
}

}  // namespace terrane::store_detail

namespace terrane::store_detail {
namespace {

constexpr std::uint8_t kBlockMagic[4] = {'T', 'R', 'B', '1'};
constexpr std::size_t kBlockHeader = 12;

}  // namespace

std::vector<std::uint8_t> encode_block_column(std::span<const BlockColumnChunk> chunks,
                                              int chunk_size) {
  const std::size_t per =
      std::size_t(chunk_size) * std::size_t(chunk_size) * std::size_t(chunk_size);
  const std::size_t n = per * chunks.size();
  std::vector<std::uint8_t> planes(n * 2);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const BlockEditSnapshot::Chunk& values = *chunks[c].values;
    for (std::size_t k = 0; k < per; ++k) {
      planes[c * per + k] = std::uint8_t(values[k]);
      planes[n + c * per + k] = std::uint8_t(values[k] >> 8);
    }
  }
  std::vector<std::uint8_t> out(kBlockMagic, kBlockMagic + 4);
  put_u32(out, std::uint32_t(chunk_size));
  put_u32(out, std::uint32_t(chunks.size()));
  for (const BlockColumnChunk& c : chunks) {
    const auto cy = std::uint64_t(c.cy);
    for (int b = 0; b < 8; ++b) out.push_back(std::uint8_t(cy >> (8 * b)));
  }
  append_frame(out, planes);
  return out;
}

std::vector<std::pair<std::int64_t, BlockEditSnapshot::Chunk>> decode_block_column(
    std::span<const std::uint8_t> blob, int chunk_size, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCategory::io, where + ": damaged block overrides: " + why);
  };
  if (blob.size() < kBlockHeader || std::memcmp(blob.data(), kBlockMagic, 4) != 0) {
    throw bad("not a block column (no TRB1 header)");
  }
  const auto size = std::uint32_t(get_le(blob, 4, 4));
  if (size != std::uint32_t(chunk_size)) {
    throw bad("chunks of " + std::to_string(size) + " blocks, the world's are " +
              std::to_string(chunk_size));
  }
  const std::uint64_t count = get_le(blob, 8, 4);
  // A column holds at most the block world's 2^20 / 8 chunks of height (VoxelParams' y range).
  if (count == 0 || count > (std::uint64_t{1} << 17) || blob.size() < kBlockHeader + count * 8) {
    throw bad("a column of " + std::to_string(count) + " chunks in " + std::to_string(blob.size()) +
              " bytes");
  }
  const std::size_t per =
      std::size_t(chunk_size) * std::size_t(chunk_size) * std::size_t(chunk_size);
  const std::size_t n = per * std::size_t(count);
  std::vector<std::uint8_t> planes(n * 2);
  if (const std::string why =
          read_frame(blob.subspan(kBlockHeader + std::size_t(count) * 8), planes);
      !why.empty()) {
    throw bad(why);
  }
  std::vector<std::pair<std::int64_t, BlockEditSnapshot::Chunk>> out(
      static_cast<std::size_t>(count));
  for (std::size_t c = 0; c < out.size(); ++c) {
    out[c].first = std::int64_t(get_le(blob, kBlockHeader + c * 8, 8));
    if (c > 0 && out[c].first <= out[c - 1].first) throw bad("chunk rows out of order");
    BlockEditSnapshot::Chunk& values = out[c].second;
    values.resize(per);
    for (std::size_t k = 0; k < per; ++k) {
      values[k] = std::uint16_t(planes[c * per + k] | (planes[n + c * per + k] << 8));
    }
  }
  return out;
}

}  // namespace terrane::store_detail

namespace terrane::store_detail {
namespace {

constexpr std::uint8_t kInstanceMagic[4] = {'T', 'R', 'I', '1'};
constexpr std::size_t kInstanceHeader = 16;
constexpr std::size_t kRecord = 57;  // u64 id, u8 change, u64 state, 3 f64, 3 f32, i32 species

template <class T>
void put_bits(std::vector<std::uint8_t>& out, T v) {
  std::uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  for (std::size_t b = 0; b < sizeof(T); ++b) out.push_back(std::uint8_t(u >> (8 * b)));
}

template <class T>
T get_bits(std::span<const std::uint8_t> bytes, std::size_t at) {
  const std::uint64_t u = get_le(bytes, at, int(sizeof(T)));
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

}  // namespace

std::vector<std::uint8_t> encode_instance_chunk(const InstanceEditSnapshot::Chunk& chunk,
                                                double chunk_size_m) {
  std::vector<std::uint8_t> records;
  records.reserve(chunk.size() * kRecord);
  for (const InstanceOverride& o : chunk) {
    put_bits(records, o.id);
    records.push_back(std::uint8_t(o.change));
    put_bits(records, o.state);
    put_bits(records, o.timer_s);
    put_bits(records, o.x_m);
    put_bits(records, o.z_m);
    put_bits(records, o.yaw_deg);
    put_bits(records, o.scale_xz);
    put_bits(records, o.scale_y);
    put_bits(records, o.species);
  }
  std::vector<std::uint8_t> out(kInstanceMagic, kInstanceMagic + 4);
  put_bits(out, chunk_size_m);
  put_u32(out, std::uint32_t(chunk.size()));
  append_frame(out, records);
  return out;
}

InstanceEditSnapshot::Chunk decode_instance_chunk(std::span<const std::uint8_t> blob,
                                                  double chunk_size_m, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCategory::io, where + ": damaged instance overrides: " + why);
  };
  if (blob.size() < kInstanceHeader || std::memcmp(blob.data(), kInstanceMagic, 4) != 0) {
    throw bad("not an instance chunk (no TRI1 header)");
  }
  const auto side = get_bits<double>(blob, 4);
  if (side != chunk_size_m) {
    throw bad("chunks of " + format_number(side) + " m, the world's are " +
              format_number(chunk_size_m) + " m");
  }
  const std::uint64_t count = get_le(blob, 12, 4);
  // A chunk holds at most 2^24 overrides (far beyond any scatter density).
  if (count == 0 || count > (std::uint64_t{1} << 24)) {
    throw bad("a chunk of " + std::to_string(count) + " overrides");
  }
  std::vector<std::uint8_t> records(std::size_t(count) * kRecord);
  if (const std::string why = read_frame(blob.subspan(kInstanceHeader), records); !why.empty()) {
    throw bad(why);
  }
  InstanceEditSnapshot::Chunk out(static_cast<std::size_t>(count));
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::span<const std::uint8_t> r(records.data() + k * kRecord, kRecord);
    InstanceOverride& o = out[k];
    o.id = get_bits<std::uint64_t>(r, 0);
    if (r[8] > std::uint8_t(InstanceChange::added)) throw bad("an unknown change kind");
    o.change = InstanceChange(r[8]);
    o.state = get_bits<std::uint64_t>(r, 9);
    o.timer_s = get_bits<double>(r, 17);
    o.x_m = get_bits<double>(r, 25);
    o.z_m = get_bits<double>(r, 33);
    o.yaw_deg = get_bits<float>(r, 41);
    o.scale_xz = get_bits<float>(r, 45);
    o.scale_y = get_bits<float>(r, 49);
    o.species = get_bits<std::int32_t>(r, 53);
  }
  return out;
}

}  // namespace terrane::store_detail

namespace terrane::store_detail {
namespace {

constexpr std::uint8_t kPaintMagic[4] = {'T', 'R', 'P', '1'};
constexpr std::size_t kPaintHeader = 12;

}  // namespace

std::vector<std::uint8_t> encode_paint_tile(const SplatPaintSnapshot::Tile& tile, int tile_cells,
                                            int layers) {
  std::vector<std::uint8_t> out(kPaintMagic, kPaintMagic + 4);
  put_u32(out, std::uint32_t(tile_cells));
  put_u32(out, std::uint32_t(layers));
  append_frame(out, float_planes(tile));
  return out;
}

SplatPaintSnapshot::Tile decode_paint_tile(std::span<const std::uint8_t> blob, int tile_cells,
                                           int layers, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCategory::io, where + ": damaged splat paint: " + why);
  };
  if (blob.size() < kPaintHeader || std::memcmp(blob.data(), kPaintMagic, 4) != 0) {
    throw bad("not a paint tile (no TRP1 header)");
  }
  const auto side = std::uint32_t(get_le(blob, 4, 4));
  const auto count = std::uint32_t(get_le(blob, 8, 4));
  if (side != std::uint32_t(tile_cells) || count != std::uint32_t(layers)) {
    throw bad("a tile of side " + std::to_string(side) + " and " + std::to_string(count) +
              " layers; the world's are " + std::to_string(tile_cells) + " and " +
              std::to_string(layers));
  }
  SplatPaintSnapshot::Tile tile(std::size_t(tile_cells) * std::size_t(tile_cells) *
                                std::size_t(layers));
  if (const std::string why = read_float_planes(blob.subspan(kPaintHeader), tile); !why.empty()) {
    throw bad(why);
  }
  return tile;
}

}  // namespace terrane::store_detail
