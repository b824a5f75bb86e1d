// `terrane generate --formats glb,obj [--lod L] [--simplify-error M] [--tiles N]`: terrain meshes
// of the generated map, whole or as N x N tiles sharing their border samples (plus a JSON
// manifest), optionally simplified with locked borders. Everything the options can get wrong is
// checked by plan_mesh_export before the map is generated.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "terrane/field.hpp"

namespace terrane::cli {

MeshExportPlan plan_mesh_export(const GenerateOptions& opt, bool glb, bool obj,
                                const GridSpec& grid, const std::filesystem::path& dir,
                                const std::string& base) {
  MeshExportPlan plan;
  plan.glb = glb;
  plan.obj = obj;
  if (!glb && !obj) {
    if (opt.lod != 0 || opt.tiles != 1 || opt.has_simplify) {
      throw Error(ErrorCategory::invalid_argument,
                  "--lod, --tiles and --simplify-error apply to meshes: add glb and/or obj to "
                  "--formats");
    }
    return plan;
  }
  if (opt.has_simplify) {
    plan.simplify = true;
    plan.simplify_params.max_error_m = opt.simplify_error_m;
    try {
      plan.simplify_params.validate();
    } catch (const Error& e) {
      throw Error(ErrorCategory::invalid_argument, std::string("--simplify-error: ") + e.what());
    }
  }
  plan.tiles = plan_tiles(grid, opt.tiles, opt.lod);
  if (glb) {
    // One GLB per tile: its size is known from the tile's lattice before any mesh is built.
    const int step = 1 << opt.lod;
    const std::uint64_t nx = std::uint64_t(plan.tiles.tile_cells_x / step);
    const std::uint64_t nz = std::uint64_t(plan.tiles.tile_cells_z / step);
    const GlbMeshSize size{(nx + 1) * (nz + 1), nx * nz * 6};
    const std::string name = plan.tiles.tiles == 1 ? base + ".glb" : base + "_x0_z0.glb";
    check_glb_size(dir / name, {&size, 1});
  }
  return plan;
}

std::vector<WrittenFile> write_mesh_exports(const MeshExportPlan& plan, const Field2D& heights,
                                            const std::filesystem::path& dir,
                                            const std::string& base, bool quiet) {
  std::vector<WrittenFile> written;
  if (!plan.glb && !plan.obj) return written;
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
  manifest.height_min_m = mm.min;
  manifest.height_max_m = mm.max;
  manifest.simplify_error_m = plan.simplify ? plan.simplify_params.max_error_m : 0.0;
  std::size_t triangles_in = 0, triangles_out = 0;
  double worst_error = 0.0;
  Mesh raw, simplified;
  for (int tz = 0; tz < n; ++tz) {
    for (int tx = 0; tx < n; ++tx) {
      build_region_mesh(heights, plan.tiles.region(tx, tz), raw);
      const Mesh* mesh = &raw;
      triangles_in += raw.index_count() / 3;
      if (plan.simplify) {
        const SimplifyReport r = simplify_mesh(raw, plan.simplify_params, simplified);
        worst_error = std::max(worst_error, r.error_m);
        mesh = &simplified;
      } else {
        optimize_mesh(raw);
      }
      triangles_out += mesh->index_count() / 3;
      const std::string stem =
          n == 1 ? base : base + "_x" + std::to_string(tx) + "_z" + std::to_string(tz);
      const std::string name = n == 1 ? base : stem;
      for (const char* fmt : {"glb", "obj"}) {
        if ((fmt[0] == 'g' && !plan.glb) || (fmt[0] == 'o' && !plan.obj)) continue;
        const std::string file = stem + "." + fmt;
        if (fmt[0] == 'g') {
          const GlbNode node{name, mesh};
          write_glb(dir / file, {&node, 1});
        } else {
          write_obj(dir / file, *mesh, name);
        }
        written.push_back({file, fmt});
        manifest.files.push_back(
            {tx, tz, mesh->origin_x_m, mesh->origin_z_m, file, fmt, mesh->index_count() / 3});
      }
    }
  }
  if (n > 1) {
    write_tile_manifest(dir / (base + "_tiles.json"), manifest);
    written.push_back({base + "_tiles.json", "mesh_tile_manifest"});
  }
  if (!quiet) {
    if (plan.simplify) {
      std::printf("meshes: %zu tile(s) at lod %d, %zu triangles simplified to %zu at max error "
                  "%.3g m (reached %.3g m)\n",
                  std::size_t(n) * std::size_t(n), plan.tiles.lod, triangles_in, triangles_out,
                  plan.simplify_params.max_error_m, worst_error);
    } else {
      std::printf("meshes: %zu tile(s) at lod %d, %zu triangles\n",
                  std::size_t(n) * std::size_t(n), plan.tiles.lod, triangles_out);
    }
  }
  return written;
}

}  // namespace terrane::cli
