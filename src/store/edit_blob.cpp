// Height tiles as compressed blobs (edit_blob.hpp): byte-plane shuffle (as Blosc does for
// typed data) and a zstd frame with a content checksum, so damage inside a blob is reported
// rather than read as deltas.
#include "store/edit_blob.hpp"

#include <zstd.h>

#include <cmath>
#include <cstring>

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

}  // namespace

std::vector<std::uint8_t> encode_height_tile(const HeightEditSnapshot::Tile& tile, int tile_cells) {
  const std::size_t n = tile.size();
  std::vector<std::uint8_t> planes(n * 4);
  for (std::size_t k = 0; k < n; ++k) {
    std::uint32_t bits;
    std::memcpy(&bits, &tile[k], 4);
    for (std::size_t b = 0; b < 4; ++b) planes[b * n + k] = std::uint8_t(bits >> (8 * b));
  }
  std::vector<std::uint8_t> out(kHeader + ZSTD_compressBound(planes.size()));
  std::memcpy(out.data(), kMagic, 4);
  const auto side = std::uint32_t(tile_cells);
  for (int b = 0; b < 4; ++b) out[4 + std::size_t(b)] = std::uint8_t(side >> (8 * b));
  const std::size_t written = ZSTD_compress2(contexts().c, out.data() + kHeader,
                                             out.size() - kHeader, planes.data(), planes.size());
  if (ZSTD_isError(written) != 0) {
    throw Error(ErrorCategory::internal,
                std::string("world: zstd compression failed: ") + ZSTD_getErrorName(written));
  }
  out.resize(kHeader + written);
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
  std::uint32_t side = 0;
  for (int b = 0; b < 4; ++b) side |= std::uint32_t(blob[4 + std::size_t(b)]) << (8 * b);
  if (side != std::uint32_t(tile_cells)) {
    throw bad("a tile of side " + std::to_string(side) + ", the world's is " +
              std::to_string(tile_cells));
  }
  const std::size_t n = std::size_t(tile_cells) * std::size_t(tile_cells);
  const unsigned long long content =
      ZSTD_getFrameContentSize(blob.data() + kHeader, blob.size() - kHeader);
  if (content != n * 4) throw bad("the frame does not hold one tile");
  std::vector<std::uint8_t> planes(n * 4);
  const std::size_t got = ZSTD_decompressDCtx(contexts().d, planes.data(), planes.size(),
                                              blob.data() + kHeader, blob.size() - kHeader);
  if (ZSTD_isError(got) != 0 || got != planes.size()) {
    throw bad(ZSTD_isError(got) != 0 ? std::string(ZSTD_getErrorName(got)) : "short frame");
  }
  HeightEditSnapshot::Tile tile(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::uint32_t bits = 0;
    for (std::size_t b = 0; b < 4; ++b) bits |= std::uint32_t(planes[b * n + k]) << (8 * b);
    std::memcpy(&tile[k], &bits, 4);
    if (!std::isfinite(tile[k])) throw bad("a delta that is not finite");
  }
  return tile;
}

}  // namespace terrane::store_detail
