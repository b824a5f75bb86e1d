// The files of `terrane nav` (docs/NAV.md): the .navtiles container of one agent's Detour tiles
// and an OBJ of its polygons for debugging.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "terrane/nav.hpp"

namespace terrane::cli {

inline constexpr char kNavTilesMagic[8] = {'T', 'R', 'N', 'N', 'A', 'V', '0', '1'};
inline constexpr std::uint32_t kNavTilesVersion = 1;

// What a .navtiles file says before its tiles.
struct NavTilesHeader {
  int tile_cells = 0;
  double tile_size_m = 0.0, cell_size_m = 0.0, cell_height_m = 0.0;
  NavTileKey origin;  // the navmesh origin tile the tile bytes are relative to
  double origin_x_m = 0.0, origin_z_m = 0.0;
  NavAgent agent;
};

// The file's bytes (little-endian; layout in docs/NAV.md): the header, then every tile in the
// order given (empty tiles too, with a byte count of 0).
std::vector<std::byte> encode_navtiles(const NavTilesHeader& header,
                                       std::span<const NavTile* const> tiles);

struct NavMeshSummary {
  std::size_t polygons = 0;        // ground polygons (not off-mesh links)
  std::size_t off_mesh_links = 0;  // drop links
  std::size_t vertices = 0;
  // Horizontal polygon area inside the box, by NavArea id [Units: m^2].
  std::array<double, kNavAreaCount> area_in_box_m2{};
  double area_m2 = 0.0;  // all polygons, inside the box or not
};

// Loads copies of the tiles into a dtNavMesh (which checks the bytes, as a reader of the file
// would), returns an OBJ of its polygons (one object per tile, polygons as faces, drop links as
// lines; coordinates are world minus the navmesh origin, which a comment states) and sums the
// polygons in `summary`. box: x0, z0, x1, z1 in world metres. Throws Error(internal) when
// Detour refuses a tile.
std::string navmesh_obj(const NavTilesHeader& header, std::span<const NavTile* const> tiles,
                        const std::array<double, 4>& box, NavMeshSummary& summary);

}  // namespace terrane::cli
