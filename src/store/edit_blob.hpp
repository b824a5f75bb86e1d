// The bytes of one chunk's edits in a world file (module `store`, internal). docs/EDIT.md
// documents the format.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "terrane/edit.hpp"

namespace terrane::store_detail {

// Layers of the `chunks` table (its `layer` column).
inline constexpr std::int64_t kHeightLayer = 1;
// Block overrides: one row per block chunk column (cx, cz), holding its edited chunks.
inline constexpr std::int64_t kBlockLayer = 2;
// Scatter instance overrides: one row per instance chunk (cx, cz) of the world's chunk side.
inline constexpr std::int64_t kInstanceLayer = 3;

// Splat paint: one row per tile (ti, tj) of the height layer's side.
inline constexpr std::int64_t kPaintLayer = 4;

// A height tile as a blob: the magic "TRH1", the tile side (u32 little-endian), then one zstd
// frame (with its content checksum) of the tile's float bits split into four byte planes
// (lowest byte first), which lets zstd see the smooth deltas' repeating high bytes.
std::vector<std::uint8_t> encode_height_tile(const HeightEditSnapshot::Tile& tile, int tile_cells);
// Throws Error(io) "`where`: ..." for any blob that is not such a tile of this side (wrong
// magic, size, a frame that fails to decode or its checksum, deltas that are not finite).
HeightEditSnapshot::Tile decode_height_tile(std::span<const std::uint8_t> blob, int tile_cells,
                                            const std::string& where);

// One edited chunk of a block column: its row cy and its override values.
struct BlockColumnChunk {
  std::int64_t cy = 0;
  const BlockEditSnapshot::Chunk* values = nullptr;
};
// A block chunk column's overrides as a blob: the magic "TRB1", the chunk size (u32), the count
// of chunks (u32), their rows cy (i64 each, ascending), all little-endian, then one zstd frame
// (with its content checksum) of the chunks' values (u16, chunk after chunk in the order of
// BlockEditSnapshot::Chunk) split into two byte planes, low bytes first.
std::vector<std::uint8_t> encode_block_column(std::span<const BlockColumnChunk> chunks,
                                              int chunk_size);
// The (cy, values) of each chunk; throws Error(io) "`where`: damaged block overrides: ..." for
// any blob that is not such a column of this chunk size. The values are checked by
// BlockEditSnapshot's constructor.
std::vector<std::pair<std::int64_t, BlockEditSnapshot::Chunk>> decode_block_column(
    std::span<const std::uint8_t> blob, int chunk_size, const std::string& where);

// An instance chunk's overrides as a blob: the magic "TRI1", the chunk side (f64 bits), the count
// of overrides (u32), all little-endian, then one zstd frame (with its content checksum) of the
// overrides in id order, 57 bytes each: id (u64), change (u8), state (u64), timer_s, x_m, z_m
// (f64), yaw_deg, scale_xz, scale_y (f32), species (i32).
std::vector<std::uint8_t> encode_instance_chunk(const InstanceEditSnapshot::Chunk& chunk,
                                                double chunk_size_m);
// Throws Error(io) "`where`: damaged instance overrides: ..." for any blob that is not such a
// chunk of this side. The fields are checked by InstanceEditSnapshot's constructor.
InstanceEditSnapshot::Chunk decode_instance_chunk(std::span<const std::uint8_t> blob,
                                                  double chunk_size_m, const std::string& where);

// A paint tile as a blob: the magic "TRP1", the tile side and the layer count (u32 each,
// little-endian), then one zstd frame (with its content checksum) of the tile's amounts as float
// bits in four byte planes, as a height tile's.
std::vector<std::uint8_t> encode_paint_tile(const SplatPaintSnapshot::Tile& tile, int tile_cells,
                                            int layers);
// Throws Error(io) "`where`: damaged splat paint: ..." for any blob that is not such a tile of
// this side and layer count. The amounts are checked by SplatPaintSnapshot's constructor.
SplatPaintSnapshot::Tile decode_paint_tile(std::span<const std::uint8_t> blob, int tile_cells,
                                           int layers, const std::string& where);

}  // namespace terrane::store_detail
