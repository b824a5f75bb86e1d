// Internal interfaces between the bake pipeline (bake.cpp) and its output writers. Each writer
// comes as a plan_* function that checks everything before any work and a write_* function
// that writes files and returns them in the sidecar's order.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "terrane/bake.hpp"
#include "terrane/erosion.hpp"
#include "terrane/io.hpp"
#include "terrane/mesh.hpp"
#include "terrane/preset.hpp"
#include "terrane/stats.hpp"
#include "terrane/surface.hpp"

namespace terrane::bake_detail {

// A file written by a stage: its name in the output directory and its sidecar format.
struct WrittenFile {
  std::string file;
  std::string format;
};

// ---------------------------------------------------------------------------------------------
// Request (request.cpp)

// Loads request.preset (or re-parses the given Preset's canonical document) with `overrides`.
Preset resolve_preset(const BakeRequest& request, std::span<const std::string> overrides);
// The preset overrides the request's settings stand for: request.overrides, then seed, size,
// cell size, in that order.
std::vector<std::string> request_overrides(const BakeRequest& request);
// Checks values a parser cannot produce (enum values out of range, a non-positive river area).
void check_request_values(const BakeRequest& request);
// The map's grid before engine snapping: the preset's world, or width x height, and origin.
GridSpec request_grid(const BakeRequest& request, const Preset& preset);
// Creates the directory (and parents); Error(io) otherwise. StagedOutputs probes that it is
// writable.
void prepare_output_dir(const std::filesystem::path& dir);

// ---------------------------------------------------------------------------------------------
// Height and hydrology outputs (height_outputs.cpp): png16, raw16, exr, normals, relief
// preview, rivers, lakes, flow; written concurrently. `raw_warning` receives write_raw16's.

struct HeightOutputsPlan {
  OutputFormats formats;
  bool relief_preview = false;  // preview requested and not replaced by the biome preview
  HeightRange range;
  PreviewParams preview;
};
HeightOutputsPlan plan_height_outputs(const BakeRequest& request, const Preset& preset);
std::vector<WrittenFile> write_height_outputs(const HeightOutputsPlan& plan, const Field2D& heights,
                                              const Hydrology& hydro, const ExecContext& ctx,
                                              const std::filesystem::path& dir,
                                              const std::string& base, std::string& raw_warning);

// ---------------------------------------------------------------------------------------------
// Meshes (mesh_outputs.cpp): glb / obj, whole or tiled, optionally simplified.

struct MeshPlan {
  bool glb = false, obj = false;
  int concurrent_tiles = 1;  // tiles built at once (check_budget's answer for the workers)
  TilePlan tiles;
  bool simplify = false;
  SimplifyParams simplify_params;
  bool any() const { return glb || obj; }
};
// Checks lod, tiles, the simplification error and the GLB size before any height exists.
MeshPlan plan_meshes(const BakeRequest& request, const GridSpec& grid,
                     const std::filesystem::path& dir, const std::string& base);
// Tiles are built and written in parallel on ctx.threads workers; the files and the summary do
// not depend on the thread count.
std::vector<WrittenFile> write_meshes(const MeshPlan& plan, const Field2D& heights,
                                      const std::filesystem::path& dir, const std::string& base,
                                      BakeMeshSummary& summary, const ExecContext& ctx);

// ---------------------------------------------------------------------------------------------
// Engine targets (engine_targets.cpp)

// Adjusts the map size to what the engine accepts, before generation; returns the warning, or
// "". Throws Error when the engine cannot take the map (Unreal beyond 8129).
std::string snap_size_for_engine(Engine engine, GridSpec& grid);
// Unity terrains per side of a --engine unity map (square, 2^n + 1 samples): the map is cut into
// this many terrains of unity_terrain_cells(grid) cells per side sharing their border samples
// (Unity's heightmaps hold at most 4097 samples per side).
int unity_terrains_per_side(const GridSpec& grid);
int unity_terrain_cells(const GridSpec& grid);
// The engine's heightmap(s) and "<base>_<engine>.json" import settings.
std::vector<WrittenFile> write_engine_target(Engine engine, const Field2D& heights,
                                             const HeightRange& range,
                                             const std::filesystem::path& dir,
                                             const std::string& base, const ExecContext& ctx);

// ---------------------------------------------------------------------------------------------
// Surface outputs (surface_outputs.cpp): splat maps, biome-id map, scatter, biome preview.

struct SurfacePlan {
  bool splat = false, biomes = false, scatter = false, biome_preview = false;
  SurfaceParams params;
  // The meshes the scatter sits on: the level-0 mesh of each of mesh_tiles x mesh_tiles tiles
  // (--tiles; checked by plan_meshes).
  int mesh_tiles = 1;
  // --engine unity: Unity control maps per Unity terrain (unity_terrains_per_side).
  bool unity_terrains = false;
  // BakeRequest::whole_map_hydrology: the map's hydrology feeds moisture, scatter and preview
  // water. Otherwise the outputs are functions of location only.
  bool whole_map_hydrology = false;
  bool any() const { return splat || biomes || scatter || biome_preview; }
};
// Parses the preset's surface section (only when a surface output is requested).
SurfacePlan plan_surface(const BakeRequest& request, const Preset& preset);
// What the surface stage measured, for the stats output: (name, value) in the preset's order.
struct SurfaceSummary {
  std::vector<std::pair<std::string, double>> biome_shares;     // share of cells dominant
  std::vector<std::pair<std::string, double>> splat_shares;     // mean layer weight (splat)
  std::vector<std::pair<std::string, double>> scatter_per_km2;  // instances per km^2 (scatter)
};
// ---------------------------------------------------------------------------------------------
// Height edits (world_edits.cpp).

// Error(invalid_argument) unless `grid` lies on the edits' lattice (no edits: nothing to check).
void check_edits_grid(const HeightEditSnapshot* edits, const GridSpec& grid);
// heights += the edits at every sample of `grid` (checked by check_edits_grid).
void add_edits(const HeightEditSnapshot* edits, const GridSpec& grid, std::span<float> heights);
// Every world layer of the request, before any work: height edits and paint on the map's
// lattice, paint of the preset's layer count, added instances of the preset's species (else
// Error(invalid_argument)).
void check_world_layers(const BakeRequest& request, const Preset& preset, const GridSpec& grid);
// The paint over `splat` (the map's weights; checked by check_world_layers). nullptr: none.
void apply_paint(const SplatPaintSnapshot* paint, SplatMap& splat);

// hydro: the map's hydrology; used only with plan.whole_map_hydrology (then required).
// world: the request's edits (heights: added to the heights of the margin beyond the map;
// instance overrides applied to the scatter; paint over the splat weights).
std::vector<WrittenFile> write_surface_outputs(const SurfacePlan& plan, const Preset& preset,
                                               const CompiledGraph& graph, const Field2D& heights,
                                               const Hydrology* hydro, const BakeRequest& world,
                                               const ExecContext& ctx,
                                               const std::filesystem::path& dir,
                                               const std::string& base,
                                               SurfaceSummary* summary = nullptr);

// ---------------------------------------------------------------------------------------------
// Terrain statistics (stats_outputs.cpp): <base>_stats.json and <base>_stats.png.

std::vector<WrittenFile> write_stats_outputs(const Field2D& heights, const Preset& preset,
                                             const SurfaceSummary& surface, const ExecContext& ctx,
                                             const std::filesystem::path& dir,
                                             const std::string& base);

// ---------------------------------------------------------------------------------------------
// Perspective render (perspective_outputs.cpp): <base>_perspective.png.

struct PerspectivePlan {
  bool on = false;
  PerspectiveParams params;
};
// Checks the size and camera (and that they are at their defaults without the format).
PerspectivePlan plan_perspective(const BakeRequest& request, const Preset& preset);
// hydro: the map's hydrology when computed (lakes and rivers drawn as water), else nullptr.
std::vector<WrittenFile> write_perspective(const PerspectivePlan& plan, const Field2D& heights,
                                           const Hydrology* hydro, const ExecContext& ctx,
                                           const std::filesystem::path& dir,
                                           const std::string& base);

// ---------------------------------------------------------------------------------------------
// Budget (budget.cpp): memory, work, files and scatter instances estimated from the request;
// Error(limit) naming the estimate and the cap (terrane/bake.hpp, "Budget").
// Mesh tiles are built in parallel, each holding its mesh while it is written: returns how many
// tiles may be in flight at once, at most `workers` (and the tile count), fewer where more would
// not fit the memory limit (1 when even one does not fit, which is then refused).
int check_budget(const BakeRequest& request, const Preset& preset, const GridSpec& grid,
                 const MeshPlan& meshes, const SurfacePlan& surface, bool hydrology,
                 int workers = 1);

}  // namespace terrane::bake_detail
