// The terrane CLI's subcommands. Each is a thin layer over the library: parse options, call
// library functions, print results. Errors propagate as terrane::Error; main() prints
// "error: <message>" and exits 2.
#pragma once

#include <string>
#include <vector>

#include <filesystem>

#include "terrane/core.hpp"
#include "terrane/io.hpp"
#include "terrane/mesh.hpp"
#include "terrane/preset.hpp"
#include "terrane/surface.hpp"

namespace terrane {
struct Hydrology;
}

namespace terrane::cli {

struct GenerateOptions {
  std::string preset = "default";  // builtin name or path to a JSON file
  std::string out_dir = "out";
  std::vector<std::string> overrides;  // --set a.b=value
  bool has_seed = false;
  std::uint64_t seed = 0;
  bool has_size = false;
  int size = 0;  // used when has_size, else the preset's world.size
  bool has_width = false, has_height = false;
  int width = 0, height = 0;
  bool has_origin = false;
  double origin_x = 0.0, origin_z = 0.0;
  bool has_cell = false;
  double cell_m = 0.0;  // used when has_cell, else the preset's world.cell_size_m
  std::string formats = "png16,preview";
  std::string erode;             // --erode thermal,droplets,...: appended to the preset's post
  double river_area_m2 = 1.0e6;  // --river-area: drainage area of a river cell (rivers mask)
  int threads = 0;
  bool quiet = false;
  // Meshes (--formats glb,obj) and engine heightmaps (mesh_export.cpp, engine_export.cpp).
  int lod = 0;  // --lod: mesh level, samples every 2^lod cells
  bool has_simplify = false;
  double simplify_error_m = 0.0;   // --simplify-error
  int tiles = 1;                   // --tiles: tiles per side
  std::string engine;              // --engine: "", unity, unreal, godot
  std::string preview = "relief";  // --preview: relief | biomes (biome colours + scatter)
};

struct BenchOptions {
  std::string only;  // a single workload, e.g. "W2"; empty = all
  int repeats = 5;
  bool all_targets = false;
  int threads = 0;  // bench erosion: workers for the terrane runs (0 = all)
};

int run_generate(const GenerateOptions& opt);

// Creates and removes a probe file in `dir`; throws Error(io, message) when that fails, so an
// unwritable output fails before any work (generate.cpp).
void probe_writable(const std::filesystem::path& dir, const std::string& message);

// terrane stream (stream.cpp): a headless flight through the streamed world.
struct StreamOptions {
  std::string preset = "default";
  std::vector<std::string> overrides;
  bool has_seed = false;
  std::uint64_t seed = 0;
  std::string path = "line";  // line | circle | random
  double speed = 100.0;       // m/s
  double seconds = 20.0;
  double view_m = 2000.0;
  double budget_mb = 0.0;  // 0 = 256 MiB, 512 MiB with --surface
  int threads = 0;
  int cells = 128;
  double poll_ms = 0.25;  // poll() time budget per frame
  std::string csv;
  bool json = false;
  bool fast = false;                   // do not pace frames in real time
  bool surface = false;                // chunks carry splat weights and scatter
  std::string workers = "background";  // worker priority: normal | low | background
};
int run_stream(const StreamOptions& opt);

// A file written by generate: its name in the output directory and its sidecar format.
struct WrittenFile {
  std::string file;
  std::string format;
};

// Mesh exports: checked completely (lod, tiles, simplification error, GLB size) by
// plan_mesh_export before any height is generated.
struct MeshExportPlan {
  bool glb = false, obj = false;
  TilePlan tiles;
  bool simplify = false;
  SimplifyParams simplify_params;
};
MeshExportPlan plan_mesh_export(const GenerateOptions& opt, bool glb, bool obj,
                                const GridSpec& grid, const std::filesystem::path& dir,
                                const std::string& base);
std::vector<WrittenFile> write_mesh_exports(const MeshExportPlan& plan, const Field2D& heights,
                                            const std::filesystem::path& dir,
                                            const std::string& base, bool quiet);

// Engine targets: adjusts the map size to what the engine accepts (returning the warning, or
// ""), before generation; then writes the heightmap(s) and an import-settings JSON.
std::string snap_size_for_engine(const std::string& engine, GridSpec& grid);
std::vector<WrittenFile> write_engine_export(const std::string& engine, const Field2D& heights,
                                             const HeightRange& range,
                                             const std::filesystem::path& dir,
                                             const std::string& base);
// Surface exports (surface_export.cpp): splat maps, biome-id map, scatter, biome preview.
// plan_surface_export parses the preset's surface section before any work.
struct SurfaceExportPlan {
  bool splat = false, biomes = false, scatter = false, biome_preview = false;
  SurfaceParams params;
  bool any() const { return splat || biomes || scatter || biome_preview; }
};
SurfaceExportPlan plan_surface_export(const Preset& preset, bool splat, bool biomes, bool scatter,
                                      const std::string& preview);
std::vector<WrittenFile> write_surface_exports(const SurfaceExportPlan& plan, const Preset& preset,
                                               const CompiledGraph& graph, const Field2D& heights,
                                               const Hydrology* hydro, const ExecContext& ctx,
                                               const std::filesystem::path& dir,
                                               const std::string& base);
int run_presets();
int run_bench_noise(const BenchOptions& opt);
int run_bench_erosion(const BenchOptions& opt);

// A progress bar on stderr (only when stderr is a terminal); thread-safe, throttled.
class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();
  void update(double fraction);
  void finish();

 private:
  std::string label_;
  bool enabled_;
  int last_percent_ = -1;
  bool done_ = false;
};

}  // namespace terrane::cli
