// Internal to the voxel module: the per-id type table and the 64-bit column / row masks of a
// padded block volume that build_block_mesh and compute_block_columns share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "terrane/voxel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace terrane::voxel_detail {

// table[id] for id < types: bits 0..1 the BlockKind, bit 2 cull_same; table[types] (one past
// the palette, where min(id, types) lands for an id outside it) is kInvalidBlock.
inline constexpr std::uint8_t kCullSameBit = 4;
inline constexpr std::uint8_t kInvalidBlock = 0x80;
void build_block_table(const BlockPalette& palette, std::vector<std::uint8_t>& table);

// Error(invalid_argument) for block id `id` at padded (x, y, z) outside a palette of `types`.
[[noreturn]] void throw_block_outside_palette(std::uint16_t id, int x, int y, int z,
                                              std::size_t types);

// Row masks of the opaque and the translucent (transparent, liquid) blocks from the ids: bit x
// of rows[y * P + z]. Throws for an id outside the palette (the first in y, z, x order).
// Returns whether any block is translucent.
bool scan_block_rows(const BlockVolume& volume, const std::uint8_t* table, std::size_t types,
                     std::uint64_t* opaque_rows, std::uint64_t* translucent_rows);

// Row masks (bit x of rows[y * P + z]) to column masks (bit y of columns[z * P + x]) and back:
// one 64 x 64 bit transpose per z. p <= 64; input bits at and above p are ignored.
void rows_to_columns(const std::uint64_t* rows, int p, std::uint64_t* columns);
void columns_to_rows(const std::uint64_t* columns, int p, std::uint64_t* rows);

// Bit x (1 <= x < p) set where a[x] == a[x - 1]; bit 0 clear.
inline std::uint64_t equal_to_previous(const std::uint16_t* a, int p) {
  std::uint64_t same = 0;
#if defined(__SSE2__)
  if (p >= 9) {
    const auto block = [&](int x) {  // x .. x + 7, for x >= 1 and x + 7 < p
      const __m128i u = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + x));
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + x - 1));
      const __m128i eq = _mm_packs_epi16(_mm_cmpeq_epi16(u, v), _mm_setzero_si128());
      same |= std::uint64_t(unsigned(_mm_movemask_epi8(eq)) & 0xFFu) << x;
    };
    int x = 1;
    for (; x + 7 < p; x += 8) block(x);
    if (x < p) block(p - 8);
    return same;
  }
#endif
  for (int x = 1; x < p; ++x) same |= std::uint64_t(a[x] == a[x - 1]) << x;
  return same;
}

// Bit x (x < p) set where a[x] == b[x].
inline std::uint64_t equal_ids(const std::uint16_t* a, const std::uint16_t* b, int p) {
  std::uint64_t same = 0;
#if defined(__SSE2__)
  if (p >= 8) {
    const auto block = [&](int x) {  // x .. x + 7, for x + 7 < p
      const __m128i u = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + x));
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + x));
      const __m128i eq = _mm_packs_epi16(_mm_cmpeq_epi16(u, v), _mm_setzero_si128());
      same |= std::uint64_t(unsigned(_mm_movemask_epi8(eq)) & 0xFFu) << x;
    };
    int x = 0;
    for (; x + 7 < p; x += 8) block(x);
    if (x < p) block(p - 8);
    return same;
  }
#endif
  for (int x = 0; x < p; ++x) same |= std::uint64_t(a[x] == b[x]) << x;
  return same;
}

// out[j * P + i] = in[i * P + j] for i, j < p (cache-blocked).
void transpose_words(const std::uint64_t* in, int p, std::uint64_t* out);

}  // namespace terrane::voxel_detail
