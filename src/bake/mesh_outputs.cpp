// Mesh outputs of a bake (formats glb, obj): terrain meshes of the map, whole or as N x N tiles
// sharing their border samples (plus a JSON manifest), optionally simplified with locked
// borders. Everything the request can get wrong is checked by plan_meshes before the map is
// generated.
#include <algorithm>
#include <string>

#include "bake/bake_internal.hpp"
#include "terrane/field.hpp"

namespace terrane::bake_detail {

MeshPlan plan_meshes(const BakeRequest& request, const GridSpec& grid,
                     const std::filesystem::path& dir, const std::string& base) {
  MeshPlan plan;
  plan.glb = request.formats.count(OutputFormat::glb) != 0U;
  plan.obj = request.formats.count(OutputFormat::obj) != 0U;
  if (!plan.any()) {
    if (request.lod != 0 || request.tiles != 1 || request.simplify_error_m.has_value()) {
      throw Error(ErrorCategory::invalid_argument,
                  "--lod, --tiles and --simplify-error apply to meshes: add glb and/or obj to "
                  "--formats");
    }
    return plan;
  }
  if (request.simplify_error_m) {
    plan.simplify = true;
    plan.simplify_params.max_error_m = *request.simplify_error_m;
    try {
      plan.simplify_params.validate();
    } catch (const Error& e) {
      throw Error(ErrorCategory::invalid_argument, std::string("--simplify-error: ") + e.what());
    }
  }
  plan.tiles = plan_tiles(grid, request.tiles, request.lod);
  if (plan.glb) {
    // One GLB per tile: its size is known from the tile's lattice before any mesh is built.
    const int step = 1 << request.lod;
    const std::uint64_t nx = std::uint64_t(plan.tiles.tile_cells_x / step);
    const std::uint64_t nz = std::uint64_t(plan.tiles.tile_cells_z / step);
    const GlbMeshSize size{(nx + 1) * (nz + 1), nx * nz * 6};
    const std::string name = plan.tiles.tiles == 1 ? base + ".glb" : base + "_x0_z0.glb";
    check_glb_size(dir / name, {&size, 1});
  }
  return plan;
}

std::vector<WrittenFile> write_meshes(const MeshPlan& plan, const Field2D& heights,
                                      const std::filesystem::path& dir, const std::string& base,
                                      BakeMeshSummary& summary) {
  std::vector<WrittenFile> written;
  if (!plan.any()) return written;
  const int n = plan.tiles.tiles;
  TileManifest manifest;
  manifest.tiles = n;
  manifest.tile_cells_x = plan.tiles.tile_cells_x;
  manifest.tile_cells_z = plan.tiles.tile_cells_z;
  manifest.lod = plan.tiles.lod;
  manifest.spacing_m = heights.grid.spacing_m;
  manifest.origin_x_m = heights.grid.x_m(0);
  manifest.origin_z_m = heights.grid.z_m(0);
  const MinMax mm = min_max(heights);
  manifest.mesh_height_min_m = mm.min;
  manifest.mesh_height_max_m = mm.max;
  manifest.simplify_error_m = plan.simplify ? plan.simplify_params.max_error_m : 0.0;
  summary = BakeMeshSummary{};
  summary.tiles = n;
  summary.lod = plan.tiles.lod;
  summary.simplified = plan.simplify;
  summary.simplify_error_m = manifest.simplify_error_m;
  Mesh raw, simplified;
  for (int tz = 0; tz < n; ++tz) {
    for (int tx = 0; tx < n; ++tx) {
      build_region_mesh(heights, plan.tiles.region(tx, tz), raw);
      const Mesh* mesh = &raw;
      summary.triangles_in += raw.index_count() / 3;
      if (plan.simplify) {
        const SimplifyReport r = simplify_mesh(raw, plan.simplify_params, simplified);
        summary.reached_error_m = std::max(summary.reached_error_m, r.error_m);
        mesh = &simplified;
      } else {
        optimize_mesh(raw);
      }
      summary.triangles_out += mesh->index_count() / 3;
      const std::string stem =
          n == 1 ? base : base + "_x" + std::to_string(tx) + "_z" + std::to_string(tz);
      for (const char* fmt : {"glb", "obj"}) {
        const bool glb = fmt[0] == 'g';
        if ((glb && !plan.glb) || (!glb && !plan.obj)) continue;
        const std::string file = stem + "." + fmt;
        if (glb) {
          const GlbNode node{stem, mesh};
          write_glb(dir / file, {&node, 1});
        } else {
          // Relative to the map's first sample (the sidecar's origin): small numbers that
          // float32 importers keep to the millimetre, shared by all tiles.
          write_obj(dir / file, *mesh, stem,
                    ObjOrigin{manifest.origin_x_m, 0.0, manifest.origin_z_m});
        }
        written.push_back({file, fmt});
        manifest.tile_files.push_back(
            {tx, tz, mesh->origin_x_m, mesh->origin_z_m, file, fmt, mesh->index_count() / 3});
      }
    }
  }
  if (n > 1) {
    write_tile_manifest(dir / (base + "_tiles.json"), manifest);
    written.push_back({base + "_tiles.json", "mesh_tile_manifest"});
  }
  return written;
}

}  // namespace terrane::bake_detail
