// Compact block chunks: one value for a uniform chunk, else a local palette and bit-packed
// indices in a zstd frame (level 1: terrain chunks are layered, so the packed bytes compress
// several times over).
#include <zstd.h>

#include <algorithm>
#include <string>

#include "terrane/core.hpp"
#include "terrane/voxel.hpp"

namespace terrane {

std::uint64_t hash(const BlockChunkKey& key) {
  return hash_combine(hash_combine(std::uint64_t(key.cx), std::uint64_t(key.cy)),
                      std::uint64_t(key.cz));
}

std::size_t BlockChunk::bytes() const {
  return sizeof(BlockChunk) + local.capacity() * sizeof(std::uint16_t) + packed.capacity();
}

namespace voxel_detail {

// Encodes `ids` (size^3 interior blocks) into `out`.
void encode_chunk(std::span<const std::uint16_t> ids, int size, BlockChunk& out,
                  std::vector<std::uint8_t>& work) {
  out.size = size;
  out.local.clear();
  out.packed.clear();
  out.bits = 0;
  const std::uint16_t first = ids.empty() ? 0 : ids[0];
  const bool uniform =
      std::all_of(ids.begin(), ids.end(), [first](std::uint16_t v) { return v == first; });
  out.uniform = uniform;
  out.value = first;
  if (uniform) {
    out.packed.shrink_to_fit();
    out.local.shrink_to_fit();
    return;
  }
  // Local palette: the ids present, ascending.
  std::vector<std::uint16_t>& local = out.local;
  {
    std::vector<std::uint8_t> present(65536, 0);
    for (std::uint16_t v : ids) present[v] = 1;
    for (std::size_t v = 0; v < present.size(); ++v) {
      if (present[v] != 0) local.push_back(std::uint16_t(v));
    }
  }
  int bits = 1;
  while ((std::size_t{1} << bits) < local.size()) bits *= 2;
  out.bits = bits;
  std::vector<std::uint16_t> index_of(65536, 0);
  for (std::size_t k = 0; k < local.size(); ++k) index_of[local[k]] = std::uint16_t(k);
  const std::size_t raw_bytes = (ids.size() * std::size_t(bits) + 7) / 8;
  work.assign(raw_bytes, 0);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const std::uint32_t v = index_of[ids[k]];
    const std::size_t bit = k * std::size_t(bits);
    if (bits >= 8) {
      work[bit / 8] = std::uint8_t(v & 0xFFu);
      if (bits == 16) work[bit / 8 + 1] = std::uint8_t(v >> 8);
    } else {
      work[bit / 8] = std::uint8_t(work[bit / 8] | (v << (bit % 8)));
    }
  }
  out.packed.resize(ZSTD_compressBound(raw_bytes));
  const std::size_t n =
      ZSTD_compress(out.packed.data(), out.packed.size(), work.data(), raw_bytes, 1);
  if (ZSTD_isError(n) != 0) {
    throw Error(ErrorCategory::internal,
                std::string("block chunk: zstd compression failed: ") + ZSTD_getErrorName(n));
  }
  out.packed.resize(n);
  out.packed.shrink_to_fit();
  out.local.shrink_to_fit();
}

}  // namespace voxel_detail

void BlockChunk::decode(std::vector<std::uint16_t>& out) const {
  const std::size_t count = std::size_t(size) * std::size_t(size) * std::size_t(size);
  out.resize(count);
  if (uniform) {
    std::fill(out.begin(), out.end(), value);
    return;
  }
  const std::size_t raw_bytes = (count * std::size_t(bits) + 7) / 8;
  std::vector<std::uint8_t> raw(raw_bytes);
  const std::size_t n = ZSTD_decompress(raw.data(), raw.size(), packed.data(), packed.size());
  if (ZSTD_isError(n) != 0 || n != raw_bytes) {
    throw Error(ErrorCategory::internal, "block chunk: corrupt packed indices");
  }
  const std::uint32_t mask = bits >= 16 ? 0xFFFFu : ((1u << bits) - 1u);
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t bit = k * std::size_t(bits);
    std::uint32_t v = 0;
    if (bits >= 8) {
      v = raw[bit / 8];
      if (bits == 16) v |= std::uint32_t(raw[bit / 8 + 1]) << 8;
    } else {
      v = (std::uint32_t(raw[bit / 8]) >> (bit % 8)) & mask;
    }
    out[k] = local[std::min<std::size_t>(v, local.size() - 1)];
  }
}

}  // namespace terrane
