// Internal pieces of the nav module: the surface of one tile's input (for drop links) and the
// Recast/Detour helpers shared by the builder, the world and the queries.
#pragma once

#include <cstdint>
#include <vector>

#include "terrane/nav.hpp"

struct rcPolyMesh;

namespace terrane::nav_detail {

// The level-0 surface under one tile's input, in navmesh coordinates: heights of vertices
// (gi0 + i, gj0 + j) on the terrain lattice (spacing s), cell diagonals as the world's.
struct TileSurface {
  std::int64_t gi0 = 0, gj0 = 0;
  int w = 0, h = 0;  // vertices per row, rows
  int chunk_cells = 0;
  double s = 1.0;
  double ox = 0.0, oz = 0.0;  // world position of the navmesh origin
  std::vector<float> heights;

  // The surface height and the triangle's unit normal y under navmesh-local (x, z); false when
  // the point lies outside the covered cells.
  bool sample(double x, double z, double& y, double& normal_y) const;
};

// NavTileBuilder::input plus the surface it came from.
void make_tile_input(const NavTerrain& terrain, const NavParams& params, int agent,
                     const NavTileKey& key, const NavTileKey& origin, NavTileInput& out,
                     TileSurface* surface);

// One-way drop links from the wall edges of the tile's polygons down to walkable ground below
// (see drop_links.cpp). Appends 6 floats per link (start, end) to `verts`.
void find_drop_links(const rcPolyMesh& mesh, const TileSurface& surface, const NavAgent& agent,
                     const NavTileInput& in, std::vector<float>& verts);

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace terrane::nav_detail
