// Meshes of map regions and the tiling of a map into regions that share their border samples.
#include <string>

#include "core/huge_pages.hpp"
#include "mesh/mesh_internal.hpp"
#include "terrane/mesh.hpp"

namespace terrane {
namespace {

// Strip width of MeshOrder::vertex_cache for a 16-entry FIFO cache: the widest whose two rows
// fit it (2 * (7 + 1) = 16), 8 misses per 14 triangles. One cell wider and every row misses
// twice, as the strip's first row loads both rows interleaved (export_test measures the
// order against meshopt_optimizeVertexCache).
constexpr int kCacheStripCells = 7;

}  // namespace

void build_region_mesh(const Field2D& map, const MeshRegion& r, Mesh& out) {
  const GridSpec& g = map.grid;
  if (map.data.size() != g.sample_count()) {
    throw Error(ErrorCategory::invalid_argument, "build_region_mesh: map data size " +
                                                     std::to_string(map.data.size()) +
                                                     " does not match its grid");
  }
  if (r.lod < 0 || r.lod > 16) {
    throw Error(ErrorCategory::invalid_argument,
                "lod " + std::to_string(r.lod) + " is outside 0..16");
  }
  const int step = 1 << r.lod;
  const auto where = [&] {
    return "region (" + std::to_string(r.i0) + ", " + std::to_string(r.j0) + ") + " +
           std::to_string(r.cells_x) + " x " + std::to_string(r.cells_z) + " cells";
  };
  if (r.cells_x < 1 || r.cells_z < 1 || r.i0 < 0 || r.j0 < 0 ||
      std::int64_t(r.i0) + r.cells_x > std::int64_t(g.width) - 1 ||
      std::int64_t(r.j0) + r.cells_z > std::int64_t(g.height) - 1) {
    throw Error(ErrorCategory::invalid_argument,
                where() + " does not lie within the map of " + std::to_string(g.width) + " x " +
                    std::to_string(g.height) + " samples");
  }
  if (r.cells_x % step != 0 || r.cells_z % step != 0) {
    throw Error(ErrorCategory::invalid_argument,
                where() + " is not a multiple of 2^lod = " + std::to_string(step) + " cells (lod " +
                    std::to_string(r.lod) + ")");
  }
  if (!(r.uv_world_wrap_m > 0.0 && r.uv_world_wrap_m < 1e300)) {
    throw Error(ErrorCategory::invalid_argument,
                "uv_world_wrap_m " + mesh_detail::format_metres(r.uv_world_wrap_m) + " must be > 0 and finite");
  }
  mesh_detail::LatticeSource src;
  src.field = &map;
  src.i0 = r.i0;
  src.j0 = r.j0;
  src.step = step;
  src.nx = r.cells_x / step;
  src.nz = r.cells_z / step;
  src.uv_world_wrap_m = r.uv_world_wrap_m;
  const bool strips = r.order == MeshOrder::vertex_cache;
  src.strip_cells = strips ? kCacheStripCells : 0;
  mesh_detail::build_lattice_vertices(src, false, 0, out);
  // Wide meshes take their indices in place; 16-bit ones through a 32-bit list.
  const bool wide = out.vertex_count() > 65535;
  std::vector<std::uint32_t> narrow;
  std::vector<std::uint32_t>& indices = wide ? out.indices32 : narrow;
  indices.clear();
  core_detail::reserve_huge(indices, 6 * std::size_t(src.nx) * std::size_t(src.nz));
  if (strips) {
    mesh_detail::append_lattice_triangles_in_strips(src.nx, src.nz, kCacheStripCells, indices);
  } else {
    mesh_detail::append_lattice_triangles(src.nx, src.nz, {1, 1, 1, 1}, -1, indices);
  }
  if (wide) {
    out.indices16.clear();
    out.surface_index_count = indices.size();
  } else {
    set_indices(out, narrow);
  }
}

MeshRegion TilePlan::region(int tx, int tz) const {
  MeshRegion r;
  r.i0 = tx * tile_cells_x;
  r.j0 = tz * tile_cells_z;
  r.cells_x = tile_cells_x;
  r.cells_z = tile_cells_z;
  r.lod = lod;
  return r;
}

TilePlan plan_tiles(const GridSpec& map, int tiles, int lod) {
  map.validate("map");
  const int cx = map.width - 1, cz = map.height - 1;
  if (cx < 1 || cz < 1) {
    throw Error(ErrorCategory::invalid_argument,
                "a map of " + std::to_string(map.width) + " x " + std::to_string(map.height) +
                    " samples has no cells to mesh (needs at least 2 x 2 samples)");
  }
  if (tiles < 1 || tiles > cx || tiles > cz || cx % tiles != 0 || cz % tiles != 0) {
    throw Error(ErrorCategory::invalid_argument,
                "--tiles " + std::to_string(tiles) + " does not divide the map: " +
                    std::to_string(map.width) + " x " + std::to_string(map.height) +
                    " samples are " + std::to_string(cx) + " x " + std::to_string(cz) +
                    " cells, and the tile count per side must divide both (tiles share their "
                    "border samples)");
  }
  TilePlan p;
  p.tiles = tiles;
  p.tile_cells_x = cx / tiles;
  p.tile_cells_z = cz / tiles;
  p.lod = lod;
  int levels = 0;  // largest lod that divides both tile sides
  while (levels < 16 && p.tile_cells_x % (2 << levels) == 0 && p.tile_cells_z % (2 << levels) == 0) {
    ++levels;
  }
  if (lod < 0 || lod > levels) {
    throw Error(ErrorCategory::invalid_argument,
                "--lod " + std::to_string(lod) + " is beyond the levels of a tile of " +
                    std::to_string(p.tile_cells_x) + " x " + std::to_string(p.tile_cells_z) +
                    " cells (allowed 0.." + std::to_string(levels) +
                    ": a level-L mesh samples every 2^L cells, which must divide the tile)");
  }
  return p;
}

}  // namespace terrane
