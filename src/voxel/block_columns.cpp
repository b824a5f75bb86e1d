// Column masks of a block volume from its ids (compute_block_columns, and build_block_mesh when
// the volume carries none). Each row of ids along x is cut into runs of one id (SSE2 compares
// of neighbouring ids, or a scalar loop), so a terrain row costs a handful of vector compares
// and one table lookup per run; the resulting row masks (bit x) become the column masks (bit y)
// through one 64 x 64 bit transpose per z (the recursive block swap of H. S. Warren, "Hacker's
// Delight", 2nd ed., section 7-3).
#include "block_columns.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "terrane/core.hpp"

namespace terrane {
namespace voxel_detail {
namespace {

std::uint64_t low_bits(int n) {
  return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}

// One stage of the transpose: swaps the bits whose index has bit J clear and whose row has it
// set with their mirror images (rows k, k + J; bits b + J, b).
template <int J, std::uint64_t Mask>
inline void transpose_stage(std::uint64_t* m) {
  for (int k0 = 0; k0 < 64; k0 += 2 * J) {
    for (int k = k0; k < k0 + J; ++k) {
      const std::uint64_t t = ((m[k] >> J) ^ m[k + J]) & Mask;
      m[k] ^= t << J;
      m[k + J] ^= t;
    }
  }
}

// In place: m[j] bit i becomes m[i] bit j.
void transpose64(std::uint64_t* m) {
  transpose_stage<32, 0x00000000FFFFFFFFull>(m);
  transpose_stage<16, 0x0000FFFF0000FFFFull>(m);
  transpose_stage<8, 0x00FF00FF00FF00FFull>(m);
  transpose_stage<4, 0x0F0F0F0F0F0F0F0Full>(m);
  transpose_stage<2, 0x3333333333333333ull>(m);
  transpose_stage<1, 0x5555555555555555ull>(m);
}

}  // namespace

void build_block_table(const BlockPalette& palette, std::vector<std::uint8_t>& table) {
  const std::size_t types = palette.types.size();
  table.resize(types + 1);
  for (std::size_t t = 0; t < types; ++t) {
    const BlockType& type = palette.types[t];
    table[t] = std::uint8_t(std::uint8_t(type.kind) | (type.cull_same ? kCullSameBit : 0u));
  }
  table[types] = kInvalidBlock;
}

void throw_block_outside_palette(std::uint16_t id, int x, int y, int z, std::size_t types) {
  throw Error(ErrorCategory::invalid_argument,
              "block volume: block id " + std::to_string(id) + " at (" + std::to_string(x - 1) +
                  ", " + std::to_string(y - 1) + ", " + std::to_string(z - 1) +
                  ") is outside the palette of " + std::to_string(types) + " types");
}

bool scan_block_rows(const BlockVolume& volume, const std::uint8_t* table, std::size_t types,
                     std::uint64_t* opaque_rows, std::uint64_t* translucent_rows) {
  const int p = volume.padded();
  const std::uint16_t* blocks = volume.blocks.data();
  const std::uint32_t last = std::uint32_t(types);
  std::uint64_t any_translucent = 0;
  for (int y = 0; y < p; ++y) {
    for (int z = 0; z < p; ++z) {
      const std::size_t row = std::size_t(y) * std::size_t(p) + std::size_t(z);
      const std::uint16_t* r = blocks + row * std::size_t(p);
      std::uint64_t starts = ~equal_to_previous(r, p) & low_bits(p);
      std::uint64_t opaque = 0, translucent = 0;
      while (starts != 0) {
        const int s = std::countr_zero(starts);
        starts &= starts - 1;
        const int e = starts != 0 ? std::countr_zero(starts) : p;
        const std::uint8_t info = table[std::min(std::uint32_t(r[s]), last)];
        if (info == kInvalidBlock) throw_block_outside_palette(r[s], s, y, z, types);
        const std::uint64_t run = low_bits(e) & ~low_bits(s);
        const unsigned kind = info & 3u;
        if (kind == unsigned(BlockKind::opaque)) opaque |= run;
        if (kind >= unsigned(BlockKind::transparent)) translucent |= run;
      }
      opaque_rows[row] = opaque;
      translucent_rows[row] = translucent;
      any_translucent |= translucent;
    }
  }
  return any_translucent != 0;
}

void rows_to_columns(const std::uint64_t* rows, int p, std::uint64_t* columns) {
  const std::size_t P = std::size_t(p);
  const std::uint64_t keep = low_bits(p);
  alignas(64) std::uint64_t m[64];
  for (std::size_t z = 0; z < P; ++z) {
    std::uint64_t any = 0;
    for (std::size_t y = 0; y < P; ++y) {
      m[y] = rows[y * P + z] & keep;
      any |= m[y];
    }
    if (any == 0) {
      std::fill(columns + z * P, columns + z * P + P, std::uint64_t{0});
      continue;
    }
    std::fill(m + P, m + 64, std::uint64_t{0});
    transpose64(m);
    std::copy(m, m + P, columns + z * P);
  }
}

void columns_to_rows(const std::uint64_t* columns, int p, std::uint64_t* rows) {
  const std::size_t P = std::size_t(p);
  const std::uint64_t keep = low_bits(p);
  alignas(64) std::uint64_t m[64];
  for (std::size_t z = 0; z < P; ++z) {
    std::uint64_t any = 0;
    for (std::size_t x = 0; x < P; ++x) {
      m[x] = columns[z * P + x] & keep;
      any |= m[x];
    }
    if (any == 0) {
      for (std::size_t y = 0; y < P; ++y) rows[y * P + z] = 0;
      continue;
    }
    std::fill(m + P, m + 64, std::uint64_t{0});
    transpose64(m);
    for (std::size_t y = 0; y < P; ++y) rows[y * P + z] = m[y];
  }
}

void transpose_words(const std::uint64_t* in, int p, std::uint64_t* out) {
  const std::size_t P = std::size_t(p);
  for (std::size_t i0 = 0; i0 < P; i0 += 8) {
    for (std::size_t j0 = 0; j0 < P; j0 += 8) {
      const std::size_t i1 = std::min(P, i0 + 8), j1 = std::min(P, j0 + 8);
      for (std::size_t i = i0; i < i1; ++i) {
        for (std::size_t j = j0; j < j1; ++j) out[j * P + i] = in[i * P + j];
      }
    }
  }
}

}  // namespace voxel_detail

void compute_block_columns(BlockVolume& volume, const BlockPalette& palette) {
  volume.validate();
  std::vector<std::uint8_t> table;
  voxel_detail::build_block_table(palette, table);
  const std::size_t words = std::size_t(volume.padded()) * std::size_t(volume.padded());
  std::vector<std::uint64_t> rows(2 * words);
  voxel_detail::scan_block_rows(volume, table.data(), palette.types.size(), rows.data(),
                                rows.data() + words);
  // Only now that the ids are known to be good: the volume is unchanged when this throws.
  volume.opaque_columns.resize(words);
  volume.translucent_columns.resize(words);
  voxel_detail::rows_to_columns(rows.data(), volume.padded(), volume.opaque_columns.data());
  voxel_detail::rows_to_columns(rows.data() + words, volume.padded(),
                                volume.translucent_columns.data());
}

}  // namespace terrane
