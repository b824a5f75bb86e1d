// Mesh outputs of a bake (formats glb, obj): terrain meshes of the map, whole or as N x N tiles
// sharing their border samples (plus a JSON manifest), optionally simplified with locked
// borders. Everything the request can get wrong is checked by plan_meshes before the map is
// generated.
#include <algorithm>
#include <atomic>
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
                                      BakeMeshSummary& summary, const ExecContext& ctx) {
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

  // Tiles are independent: each is built, simplified (or built straight in vertex-cache order)
  // and written by one worker, which then reuses the tile's buffers for its next tile (a
  // tile's mesh lives only while it is written; refilling the same capacity costs no page
  // faults). What each tile reports is kept per tile and gathered in tile order afterwards, so
  // the files, manifest and summary do not depend on the thread count or on which worker took
  // which tile.
  struct TileResult {
    std::size_t triangles_in = 0, triangles_out = 0;
    double error_m = 0.0;
    double origin_x_m = 0.0, origin_z_m = 0.0;
  };
  const std::size_t count = std::size_t(n) * std::size_t(n);
  std::vector<TileResult> results(count);
  const auto stem_of = [&](int tx, int tz) {
    return n == 1 ? base : base + "_x" + std::to_string(tx) + "_z" + std::to_string(tz);
  };
  // As many tiles in flight as the memory budget allows.
  const int workers = std::min({worker_count(ctx), plan.concurrent_tiles, int(count)});
  ExecContext tiles_ctx = ctx;
  tiles_ctx.threads = workers;
  const auto write_tile = [&](std::size_t t, Mesh& raw, Mesh& simplified) {
    const int tx = int(t % std::size_t(n)), tz = int(t / std::size_t(n));
    TileResult& r = results[t];
    MeshRegion region = plan.tiles.region(tx, tz);
    if (!plan.simplify) region.order = MeshOrder::vertex_cache;
    build_region_mesh(heights, region, raw);
    const Mesh* mesh = &raw;
    r.triangles_in = raw.index_count() / 3;
    if (plan.simplify) {
      r.error_m = simplify_mesh(raw, plan.simplify_params, simplified).error_m;
      mesh = &simplified;
    }
    r.triangles_out = mesh->index_count() / 3;
    r.origin_x_m = mesh->origin_x_m;
    r.origin_z_m = mesh->origin_z_m;
    const std::string stem = stem_of(tx, tz);
    if (plan.glb) {
      const GlbNode node{stem, mesh};
      write_glb(dir / (stem + ".glb"), {&node, 1});
    }
    if (plan.obj) {
      // Relative to the map's first sample (the sidecar's origin): small numbers that float32
      // importers keep to the millimetre, shared by all tiles. Formatted on all of ctx's
      // workers (a single tile is one worker's).
      write_obj(dir / (stem + ".obj"), *mesh, stem,
                ObjOrigin{manifest.origin_x_m, 0.0, manifest.origin_z_m}, ctx);
    }
  };
  std::atomic<std::size_t> next_tile{0};
  parallel_for(tiles_ctx, workers, 1, [&](std::int64_t, std::int64_t) {
    Mesh raw, simplified;
    for (std::size_t t = next_tile++; t < count; t = next_tile++) {
      try {
        write_tile(t, raw, simplified);
      } catch (...) {
        next_tile = count;  // the other workers take no further tile
        throw;
      }
    }
  });
  for (std::size_t t = 0; t < count; ++t) {
    const int tx = int(t % std::size_t(n)), tz = int(t / std::size_t(n));
    const TileResult& r = results[t];
    summary.triangles_in += r.triangles_in;
    summary.triangles_out += r.triangles_out;
    summary.reached_error_m = std::max(summary.reached_error_m, r.error_m);
    const std::string stem = stem_of(tx, tz);
    for (const char* fmt : {"glb", "obj"}) {
      if ((fmt[0] == 'g' && !plan.glb) || (fmt[0] == 'o' && !plan.obj)) continue;
      const std::string file = stem + "." + fmt;
      written.push_back({file, fmt});
      manifest.tile_files.push_back(
          {tx, tz, r.origin_x_m, r.origin_z_m, file, fmt, r.triangles_out});
    }
  }
  if (n > 1) {
    write_tile_manifest(dir / (base + "_tiles.json"), manifest);
    written.push_back({base + "_tiles.json", "mesh_tile_manifest"});
  }
  return written;
}

}  // namespace terrane::bake_detail
