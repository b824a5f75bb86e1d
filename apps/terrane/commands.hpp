// The terrane CLI's subcommands. Each is a thin layer over the library: parse options, call
// library functions, print results. Errors propagate as terrane::Error; main() prints
// "error: <message>" and exits 2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "terrane/core.hpp"

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
  std::string erode;                 // --erode thermal,droplets,...: appended to the preset's post
  double river_area_m2 = 1.0e6;      // --river-area: drainage area of a river cell (rivers mask)
  double max_memory_gib = 16.0;      // --max-memory: the bake's memory budget
  bool whole_map_hydrology = false;  // --whole-map-hydrology: surface outputs use the map's water
  int threads = 0;
  bool quiet = false;
  bool timings = false;  // --timings: a table of each stage's wall and CPU time on stdout
  // Meshes (--formats glb,obj) and engine heightmaps.
  int lod = 0;  // --lod: mesh level, samples every 2^lod cells
  bool has_simplify = false;
  double simplify_error_m = 0.0;   // --simplify-error
  int tiles = 1;                   // --tiles: tiles per side
  std::string engine;              // --engine: "", unity, unreal, godot
  std::string preview = "relief";  // --preview: relief | biomes (biome colours + scatter)
  // The perspective output (--formats perspective).
  std::string perspective_size = "1280x720";  // --perspective-size WxH
  std::string camera = "auto";                // --camera auto | x,y,z,yaw,pitch[,fov]
  // --mode voxel: a box of the block world (.vox, GLB, sidecar) instead of a height map.
  std::string mode = "heightmap";
  bool has_formats = false;
  std::string y_range;  // --y-range LO,HI in world block rows (voxel mode)
};

struct BenchOptions {
  std::string only;  // a single workload, e.g. "W2"; empty = all
  int repeats = 5;
  bool all_targets = false;
  int threads = 0;  // bench erosion: workers for the terrane runs (0 = all)
};

// Option parsing -> one bake() call (terrane/bake.hpp) -> the summary line on stdout and the
// bake's warnings on stderr.
int run_generate(const GenerateOptions& opt);

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

// terrane stats (stats.cpp): terrain statistics of a preset's map, a terrane output with its
// sidecar, or a .npy grid.
struct StatsOptions {
  std::string input = "default";  // preset name / preset JSON / NAME.png|.r16|.exr / .npy
  std::vector<std::string> overrides;
  bool has_seed = false;
  std::uint64_t seed = 0;
  bool has_size = false, has_width = false, has_height = false;
  int size = 0, width = 0, height = 0;
  bool has_cell = false, has_cell_z = false, has_sea = false;
  double cell_m = 0.0, cell_z_m = 0.0, sea_m = 0.0;
  bool graph_only = false;
  double agent_slope_deg = 45.0;
  bool json = false;
  int threads = 0;
};
int run_stats(const StatsOptions& opt);

// terrane nav and terrane path (nav.cpp, path.cpp; docs/NAV.md): navigation meshes of a
// preset's level-0 surface, one per agent, built by the nav module (terrane/nav.hpp).
struct NavOptions {
  std::string preset = "default";
  std::vector<std::string> overrides;
  bool has_seed = false;
  std::uint64_t seed = 0;
  std::vector<std::string> agents;  // --agent specs (parse_nav_agent); none: the default agent
  double cell_size_m = 0.25;        // --cell-size: Recast's voxel side
  int tile_cells = 64;              // --tile-cells: tile side in voxels
  int threads = 0;                  // 0 = all cores
  // nav
  std::string region;  // x0,z0,x1,z1
  std::string out_dir = "out";
  bool quiet = false;
  // path
  std::string from, to;  // x,z
  double margin_m = 64.0;
};
// Writes NAME_AGENT.navtiles, NAME_AGENT.obj per agent and NAME_nav.json into out_dir.
int run_nav(const NavOptions& opt);
// Prints the path as one JSON line; exit 0 for ok / partial, 1 for any other status.
int run_path(const NavOptions& opt);

// terrane world new | edit | info (world.cpp; docs/EDIT.md): world files (terrane/store.hpp).
struct WorldOptions {
  std::string action;  // new | edit | info
  std::string file;
  // new
  std::string preset = "default";
  std::vector<std::string> overrides;
  bool has_seed = false;
  std::uint64_t seed = 0;
  bool overwrite = false;
  int tile_cells = 128;
  // edit: the stroke options in command-line order, as (name without dashes, value); each
  // "brush" starts a stroke
  std::vector<std::pair<std::string, std::string>> brush_settings;
  std::string edits_json;  // --edits FILE.json
  std::string message;     // -m: the commit's log line (default: the strokes as JSON)
  bool accept_generator_change = false;
  // info
  bool json = false;
  bool check = false;
  int log = 10;
};
int run_world(const WorldOptions& opt);

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
