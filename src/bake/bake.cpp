// The map-baking pipeline (terrane/bake.hpp): request -> preset -> checks of everything -> output
// directory -> heights -> post operations -> hydrology -> outputs -> sidecar.
#include <chrono>
#include <utility>

#include "bake/bake_internal.hpp"
#include "terrane/erosion.hpp"
#include "terrane/io.hpp"
#include "terrane/preset.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;
using namespace bake_detail;

// ctx with its progress mapped from [0, 1] onto [lo, hi] (none when ctx has none).
ExecContext progress_range(const ExecContext& ctx, double lo, double hi) {
  ExecContext sub = ctx;
  if (ctx.progress) {
    sub.progress = [&ctx, lo, hi](double f) { ctx.progress(lo + (hi - lo) * f); };
  }
  return sub;
}

// Every warning of a bake goes through here: kept as data (BakeReport::warnings, the sidecar)
// and sent to ctx.log as it happens, so a warning followed by a refusal (an engine snap, then
// tiles that do not divide the snapped map) reaches the user too.
void add_warning(BakeReport& report, const ExecContext& ctx, std::string text) {
  if (text.empty()) return;
  warn(ctx, text);
  report.warnings.push_back(std::move(text));
}

bool wants_hydrology(const BakeRequest& request, const SurfacePlan& surface) {
  const auto& f = request.formats;
  // The relief preview and the perspective draw lakes and rivers; the surface outputs use them
  // only when asked to (whole-map hydrology).
  const bool relief_preview =
      f.count(OutputFormat::preview) != 0U && request.preview != PreviewMode::biomes;
  return f.count(OutputFormat::rivers) != 0U || f.count(OutputFormat::lakes) != 0U ||
         f.count(OutputFormat::flow) != 0U || relief_preview ||
         f.count(OutputFormat::perspective) != 0U || (surface.any() && surface.whole_map_hydrology);
}

// `message` with the staging directory's paths replaced by the paths the files are published
// under, so an error names "out/terrain.png", not the staging directory.
std::string published_names(std::string message, const fs::path& stage, const fs::path& dir) {
  const std::string from = (stage / "").string(), to = (dir / "").string();
  for (std::size_t at = 0; (at = message.find(from, at)) != std::string::npos; at += to.size()) {
    message.replace(at, from.size(), to);
  }
  return message;
}

}  // namespace

BakeReport bake(const BakeRequest& request, const ExecContext& ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  BakeReport report;
  StageClock clock(&report.stages, request.stage_peaks);

  // 1. Everything is checked before any work and before the directory exists.
  check_request_values(request);
  std::vector<std::string> overrides = request_overrides(request);
  Preset preset = resolve_preset(request, overrides);
  if (!request.erode.empty()) {
    try {
      overrides.push_back(append_post_override(preset, request.erode));
    } catch (const Error& e) {
      throw Error(e.category(), std::string("--erode: ") + e.what());
    }
    preset = resolve_preset(request, overrides);
  }
  const std::vector<RegionOp>& post_ops = preset.post;

  GridSpec grid = request_grid(request, preset);
  add_warning(report, ctx, snap_size_for_engine(request.engine, grid));
  grid.validate("map size");  // before allocating anything large
  check_world_layers(request, preset, grid);

  const fs::path& dir = request.out_dir;
  const std::string base = preset.name.empty() ? "terrain" : preset.name;
  MeshPlan mesh_plan = plan_meshes(request, grid, dir, base);
  const SurfacePlan surface_plan = plan_surface(request, preset);
  if (request.whole_map_hydrology && !surface_plan.any()) {
    throw Error(ErrorCategory::invalid_argument,
                "--whole-map-hydrology: applies to the surface outputs (splat, biomes, scatter, "
                "--preview biomes), and none is requested");
  }
  if (surface_plan.any() && surface_plan.whole_map_hydrology) {
    add_warning(report, ctx,
                "--whole-map-hydrology: the surface outputs use this map's rivers and lakes, "
                "which depend on the map's extent: they are not seamless with neighbouring maps "
                "or tiles");
  }
  if (surface_plan.any() && (grid.width < 2 || grid.height < 2)) {
    throw Error(
        ErrorCategory::invalid_argument,
        "--formats: splat, biomes, scatter and the biome preview need a map of at least 2 x "
        "2 samples (got " +
            std::to_string(grid.width) + " x " + std::to_string(grid.height) + ")");
  }
  const HeightOutputsPlan height_plan = plan_height_outputs(request, preset);
  const PerspectivePlan perspective_plan = plan_perspective(request, preset);
  const bool want_hydrology = wants_hydrology(request, surface_plan);
  mesh_plan.concurrent_tiles = check_budget(request, preset, grid, mesh_plan, surface_plan,
                                            want_hydrology, worker_count(ctx));
  const CompiledGraph graph = compile(preset);
  prepare_output_dir(dir);
  // Every file is written into a staging directory and published at the end, the sidecar last:
  // a run that fails (or is interrupted) leaves `dir` as it was.
  StagedOutputs staged(dir);
  const fs::path& stage = staged.staging();

  // 2. Heights, post operations, hydrology.
  ExecContext quiet = ctx;  // stages that report no progress
  quiet.progress = nullptr;
  clock.stop("checks");
  Field2D heights(grid, quiet);
  evaluate(graph, grid, heights.data, progress_range(ctx, 0.0, post_ops.empty() ? 1.0 : 0.25));
  add_edits(request.edits.get(), grid, heights.data);
  clock.stop("graph");
  if (!post_ops.empty()) {
    apply_region_ops(heights, preset.generator(), post_ops, progress_range(ctx, 0.25, 1.0),
                     &report.stages, request.stage_peaks);
    clock.restart();  // the operations timed themselves
  }
  Hydrology hydro;
  if (want_hydrology) {
    HydrologyParams hp;
    hp.routing.use_sea_level = true;
    hp.routing.sea_level_m = preset.world.sea_level_m;
    hp.river_area_m2 = request.river_area_m2;
    // The outputs read the water (the preview and perspective only its levels and rivers); the
    // drainage area for the flow map, the lake ids for the lakes map, both those and the sea
    // flags for the surface outputs; never the routing.
    const bool lakes_map = request.formats.count(OutputFormat::lakes) != 0U;
    HydrologyParts keep;
    keep.routing = false;
    keep.drainage_area = request.formats.count(OutputFormat::flow) != 0U;
    keep.lake_ids = lakes_map || surface_plan.any();
    keep.sea = surface_plan.any();
    // The outputs read the water levels only where they are above the ground: without lakes,
    // nowhere beyond the sea, which they tell from the heights.
    keep.water_level_only_with_lakes = true;
    compute_hydrology(heights, hp, hydro, quiet, keep);
    clock.stop("hydrology");
  }
  const auto t_gen = std::chrono::steady_clock::now();

  // 3. Outputs, in the sidecar's order, then the sidecar, all into the staging directory; errors
  // name the file by its published path.
  std::vector<WrittenFile> written;
  BakeMeshSummary mesh_summary;
  try {
    std::string raw_warning;
    const auto add = [&](const std::vector<WrittenFile>& files, const char* name) {
      written.insert(written.end(), files.begin(), files.end());
      if (!files.empty()) clock.stop(name);
    };
    add(write_height_outputs(height_plan, heights, hydro, quiet, stage, base, raw_warning),
        "height outputs");
    SurfaceSummary surface_summary;
    add(write_meshes(mesh_plan, heights, stage, base, mesh_summary, quiet), "meshes");
    add(write_engine_target(request.engine, heights, height_plan.range, stage, base, quiet),
        "engine target");
    add(write_surface_outputs(surface_plan, preset, graph, heights,
                              want_hydrology ? &hydro : nullptr, request, quiet, stage, base,
                              &surface_summary),
        "surface");
    add(write_perspective(perspective_plan, heights, want_hydrology ? &hydro : nullptr, quiet,
                          stage, base),
        "perspective");
    if (request.formats.count(OutputFormat::stats) != 0U) {
      add(write_stats_outputs(heights, preset, surface_summary, quiet, stage, base), "stats");
    }
    add_warning(report, ctx, published_names(std::move(raw_warning), stage, dir));

    Sidecar sidecar;
    sidecar.width = grid.width;
    sidecar.height = grid.height;
    sidecar.spacing_m = grid.spacing_m;
    sidecar.origin_x_m = grid.origin_x_m;
    sidecar.origin_z_m = grid.origin_z_m;
    sidecar.range = height_plan.range;
    sidecar.sea_level_m = preset.world.sea_level_m;
    sidecar.seed = preset.seed;
    sidecar.preset = preset.name;
    sidecar.preset_hash = preset.hash;
    for (const WrittenFile& f : written) sidecar.files.push_back({f.file, f.format});
    sidecar.warnings = report.warnings;
    sidecar.edits_source = request.edits_source;
    if (request.edits && !request.edits->empty()) {
      sidecar.edit_tiles = request.edits->tile_count();
      sidecar.edits_hash = request.edits->content_hash();
    }
    // The layers only the surface outputs read are recorded where those were baked.
    if (request.instance_edits && !request.instance_edits->empty() && surface_plan.scatter) {
      sidecar.instance_chunks = request.instance_edits->chunks().size();
      sidecar.instance_overrides = request.instance_edits->override_count();
      sidecar.instance_hash = request.instance_edits->content_hash();
    }
    if (request.paint && !request.paint->empty() && surface_plan.splat) {
      sidecar.paint_tiles = request.paint->tile_count();
      sidecar.paint_hash = request.paint->content_hash();
    }
    write_sidecar_json(stage / (base + ".json"), sidecar);
    written.push_back({base + ".json", "sidecar_json"});
    std::vector<std::string> names;
    for (const WrittenFile& f : written) names.push_back(f.file);
    staged.publish(names, base + ".json");
    clock.stop("sidecar, publish");
  } catch (const Error& e) {
    throw Error(e.category(), published_names(e.what(), stage, dir));
  }
  const auto t1 = std::chrono::steady_clock::now();

  for (const WrittenFile& f : written) {
    report.files.push_back({f.file, f.format, fs::file_size(dir / f.file)});
  }
  if (mesh_plan.any()) report.meshes = mesh_summary;
  report.generation_s = std::chrono::duration<double>(t_gen - t0).count();
  report.total_s = std::chrono::duration<double>(t1 - t0).count();
  report.grid = grid;
  report.name = base;
  report.preset_name = preset.name;
  report.seed = preset.seed;
  report.preset_hash = preset.hash;
  report.range = height_plan.range;
  report.sea_level_m = preset.world.sea_level_m;
  return report;
}

Field2D bake_heights(const BakeRequest& request, const ExecContext& ctx, bool graph_only,
                     Preset* preset_out) {
  check_request_values(request);
  std::vector<std::string> overrides = request_overrides(request);
  Preset preset = resolve_preset(request, overrides);
  if (!request.erode.empty() && !graph_only) {
    try {
      overrides.push_back(append_post_override(preset, request.erode));
    } catch (const Error& e) {
      throw Error(e.category(), std::string("--erode: ") + e.what());
    }
    preset = resolve_preset(request, overrides);
  }
  GridSpec grid = request_grid(request, preset);
  grid.validate("map size");
  check_edits_grid(request.edits.get(), grid);
  {
    BakeRequest heights_only = request;
    heights_only.formats.clear();
    Preset budgeted = preset;
    if (graph_only) budgeted.post.clear();
    check_budget(heights_only, budgeted, grid, MeshPlan{}, SurfacePlan{}, false);
  }
  const CompiledGraph graph = compile(preset);
  const bool post = !graph_only && !preset.post.empty();
  Field2D heights(grid, ctx);
  evaluate(graph, grid, heights.data, progress_range(ctx, 0.0, post ? 0.25 : 1.0));
  add_edits(request.edits.get(), grid, heights.data);
  if (post) {
    apply_region_ops(heights, preset.generator(), preset.post, progress_range(ctx, 0.25, 1.0));
  }
  if (preset_out != nullptr) *preset_out = std::move(preset);
  return heights;
}

}  // namespace terrane
