// The bytes of one chunk's edits in a world file (module `store`, internal). docs/EDIT.md
// documents the format.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "terrane/edit.hpp"

namespace terrane::store_detail {

// Layers of the `chunks` table (its `layer` column).
inline constexpr std::int64_t kHeightLayer = 1;

// A height tile as a blob: the magic "TRH1", the tile side (u32 little-endian), then one zstd
// frame (with its content checksum) of the tile's float bits split into four byte planes
// (lowest byte first), which lets zstd see the smooth deltas' repeating high bytes.
std::vector<std::uint8_t> encode_height_tile(const HeightEditSnapshot::Tile& tile, int tile_cells);
// Throws Error(io) "`where`: ..." for any blob that is not such a tile of this side (wrong
// magic, size, a frame that fails to decode or its checksum, deltas that are not finite).
HeightEditSnapshot::Tile decode_height_tile(std::span<const std::uint8_t> blob, int tile_cells,
                                            const std::string& where);

}  // namespace terrane::store_detail
