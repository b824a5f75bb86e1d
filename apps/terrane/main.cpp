// terrane: command-line front end. Subcommands live in their own files (commands.hpp).
#include <signal.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "number_options.hpp"
#include "terrane/core.hpp"
#include "terrane/io.hpp"
#include "terrane/world.hpp"

namespace {

// "X,Z" → two doubles.
bool parse_origin(const std::string& s, double& x, double& z) {
  std::istringstream in(s);
  char comma = 0;
  return bool(in >> x >> comma >> z) && comma == ',' && in.peek() == EOF;
}

}  // namespace

namespace {

int run_cli(int argc, char** argv) {
  using namespace terrane;
  CLI::App app{"terrane: procedural terrain — noise, presets, height maps"};
  app.require_subcommand(1);
  std::string simd = "";
  app.add_option("--simd", simd,
                 "force a SIMD target: scalar|sse4|avx2|avx3|best (default: "
                 "TERRANE_SIMD or best); outputs are identical on every target");

  cli::GenerateOptions gen;
  std::string origin;
  auto* g = app.add_subcommand("generate", "generate a height map and its outputs from a preset");
  g->add_option("preset", gen.preset,
                "built-in preset name, path to a preset JSON file, or a world file (its preset "
                "with its edits: terrane world)")
      ->capture_default_str();
  g->add_option("-o,--out", gen.out_dir, "output directory (created if missing)")
      ->capture_default_str();
  auto* seed_opt = g->add_option("--seed", gen.seed, "world seed (overrides the preset's)")
                       ->check(cli::unsigned64());
  auto* size_opt =
      g->add_option("--size", gen.size, "map size in samples per side (default: preset world.size)")
          ->check(cli::integer_in(1, kMaxGridSide));
  auto* width_opt = g->add_option("--width", gen.width, "map width in samples (with --height)")
                        ->check(cli::integer_in(1, kMaxGridSide));
  auto* height_opt = g->add_option("--height", gen.height, "map height in samples (with --width)")
                         ->check(cli::integer_in(1, kMaxGridSide));
  g->add_option("--origin", origin, "world position of sample (0,0) in metres: X,Z");
  auto* cell_opt = g->add_option("--cell", gen.cell_m,
                                 "sample spacing in metres (default: preset world.cell_size_m)")
                       ->check(cli::real_in(0.0, 10000.0, true));
  g->add_option("--set", gen.overrides, "override a preset field: a.b.c=value (repeatable)");
  g->add_option("--formats", gen.formats,
                "comma-separated outputs: png16,raw16,exr,normals,preview, hydrology masks "
                "rivers,lakes,flow (16-bit PNGs), meshes glb,obj, surface splat,biomes,scatter, "
                "stats (NAME_stats.json + NAME_stats.png chart sheet), "
                "perspective (a rendered view, NAME_perspective.png) (a JSON sidecar is always "
                "written)")
      ->capture_default_str();
  g->add_option("--erode", gen.erode,
                "append region operations with their defaults to the preset's post list: "
                "thermal,droplets,stream_power,blur (applied in the order given)");
  g->add_option("--river-area", gen.river_area_m2,
                "drainage area in m^2 from which a cell counts as river (rivers output)")
      ->check(cli::real_in(0.0, cli::kUnbounded, true))
      ->capture_default_str();
  g->add_option("--max-memory", gen.max_memory_gib,
                "refuse the bake up front when its estimated memory exceeds this many GiB")
      ->check(cli::real_in(0.0625, 4096.0))
      ->capture_default_str();
  g->add_flag("--whole-map-hydrology", gen.whole_map_hydrology,
              "surface outputs (splat, biomes, scatter, --preview biomes) use this map's rivers "
              "and lakes (moisture, water): NOT seamless across maps or tiles; default: only "
              "the sea below sea level, a function of location");
  g->add_option("--lod", gen.lod, "mesh level of detail: glb/obj sample every 2^L cells")
      ->capture_default_str()
      ->check(cli::integer_in(0, 16));
  auto* simplify_opt = g->add_option("--simplify-error", gen.simplify_error_m,
                                     "simplify glb/obj meshes to this max error in metres (> 0); "
                                     "tile borders are kept exact")
                           ->check(cli::real_in(0.0, cli::kUnbounded, true));
  g->add_option("--tiles", gen.tiles,
                "split glb/obj meshes into N x N tiles NAME_x{i}_z{j}.* plus NAME_tiles.json; N "
                "must divide the map's cells")
      ->capture_default_str()
      ->check(cli::integer_in(1, kMaxGridSide - 1));
  g->add_option("--engine", gen.engine,
                "also write a heightmap for an engine's terrain importer: unity (RAW16, 2^n+1), "
                "unreal (PNG16, recommended sizes), godot (EXR for Terrain3D); see README");
  g->add_option("--preview", gen.preview,
                "preview picture: relief (hypsometric tint) or biomes (biome colours with "
                "scatter points; implies the preview output)")
      ->capture_default_str();
  g->add_option("--perspective-size", gen.perspective_size,
                "size of the perspective picture, WIDTHxHEIGHT (16..8192 each)")
      ->capture_default_str();
  g->add_option("--camera", gen.camera,
                "perspective camera: auto (from the south-west corner, 32 degrees down, framing "
                "the map) or x,y,z,yaw,pitch[,fov]: eye in metres, heading from +X towards +Z, "
                "pitch (< 0 looks down) and vertical field of view (default 40) in degrees")
      ->capture_default_str();
  g->add_option("--threads", gen.threads, "worker threads (0 = all cores)")
      ->check(cli::integer_in(0, kMaxThreads))
      ->capture_default_str();
  g->add_option("--mode", gen.mode,
                "heightmap (the default) or voxel: a box of the preset's block world (voxel "
                "section) as NAME_blocks.vox (MagicaVoxel), NAME_blocks.glb and "
                "NAME_blocks.json; --size/--width/--height count blocks (default 256), "
                "--origin places the box's corner, --formats vox,glb")
      ->capture_default_str();
  g->add_option("--y-range", gen.y_range,
                "voxel mode: world block rows LO,HI of the box (default: the box's terrain, "
                "24 blocks below its lowest surface to 12 above its highest)");
  g->add_flag("-q,--quiet", gen.quiet, "no progress bar");
  g->add_flag("--timings", gen.timings,
              "print each stage's wall-clock and CPU time (CPU / wall = cores kept busy) and peak "
              "memory, and the whole run's peak memory per sample");
  g->add_option("--simd", simd, "force a SIMD target (see top-level --simd)");

  cli::StreamOptions st;
  auto* sc = app.add_subcommand("stream",
                                "fly a viewer through the streamed world (headless) and "
                                "report frame costs, throughput, memory, holes and cracks");
  sc->add_option("preset", st.preset, "built-in preset name or path to a preset JSON file")
      ->capture_default_str();
  sc->add_option("--set", st.overrides, "override a preset field: a.b.c=value (repeatable)");
  auto* st_seed = sc->add_option("--seed", st.seed, "world seed (overrides the preset's)")
                      ->check(cli::unsigned64());
  sc->add_option("--path", st.path, "viewer path: line | circle | random")->capture_default_str();
  sc->add_option("--speed", st.speed, "viewer speed in m/s")
      ->capture_default_str()
      ->check(cli::real_in(0.0, kMaxViewerSpeed));
  sc->add_option("--seconds", st.seconds, "simulated seconds (60 frames each)")
      ->capture_default_str()
      ->check(cli::real_in(0.0, 86400.0, true));
  sc->add_option("--view", st.view_m, "view distance in metres")
      ->capture_default_str()
      ->check(cli::real_in(0.0, 1.0e6, true));
  sc->add_option("--budget", st.budget_mb,
                 "chunk memory budget in MiB (default 256; with --surface 512, or 256 plus the "
                 "workers' scratch if more)")
      ->check(cli::real_in(0.0, 1048576.0));
  sc->add_option("--threads", st.threads, "worker threads (0 = all cores)")
      ->check(cli::integer_in(0, kMaxThreads))
      ->capture_default_str();
  sc->add_option("--cells", st.cells, "cells per chunk side (power of two, 8..1024)")
      ->capture_default_str()
      ->check(cli::integer_in(8, 1024));
  sc->add_option("--poll-ms", st.poll_ms, "poll() time budget per frame in ms")
      ->capture_default_str()
      ->check(cli::real_in(0.0, 1000.0, true));
  sc->add_option("--csv", st.csv, "write one row per frame to this CSV file");
  sc->add_flag("--json", st.json, "print only the summary JSON line");
  sc->add_flag("--fast", st.fast, "do not pace frames in real time (stress test)");
  sc->add_flag("--surface", st.surface, "chunks also carry splat weights and scatter instances");
  sc->add_option("--workers", st.workers,
                 "worker scheduling: background (SCHED_IDLE) | low (nice 10) | normal")
      ->capture_default_str();

  cli::StatsOptions so;
  auto* ss = app.add_subcommand(
      "stats",
      "terrain statistics (slopes, hypsometry, relief, spectrum, drainage) of a preset's "
      "map, a terrane output (PNG16/RAW16/EXR with its NAME.json) or a .npy grid");
  ss->add_option("input", so.input,
                 "built-in preset name, preset JSON, NAME.png|.r16|.exr next to NAME.json, or a "
                 "2-D float .npy (with --cell)")
      ->capture_default_str();
  ss->add_option("--set", so.overrides, "override a preset field: a.b.c=value (repeatable)");
  auto* ss_seed =
      ss->add_option("--seed", so.seed, "world seed (presets)")->check(cli::unsigned64());
  auto* ss_size = ss->add_option("--size", so.size, "map size in samples per side (presets)")
                      ->check(cli::integer_in(1, kMaxGridSide));
  auto* ss_width = ss->add_option("--width", so.width, "map width in samples (with --height)")
                       ->check(cli::integer_in(1, kMaxGridSide));
  auto* ss_height = ss->add_option("--height", so.height, "map height in samples (with --width)")
                        ->check(cli::integer_in(1, kMaxGridSide));
  auto* ss_cell = ss->add_option("--cell", so.cell_m,
                                 "cell size in metres (presets: spacing; .npy: along x, required)")
                      ->check(cli::real_in(0.0, 10000.0, true));
  auto* ss_cell_z =
      ss->add_option("--cell-z", so.cell_z_m, ".npy: cell size along z (rows) when not square")
          ->check(cli::real_in(0.0, 10000.0, true));
  auto* ss_sea = ss->add_option("--sea", so.sea_m,
                                "sea level in metres (land is above it); default: the preset's or "
                                "sidecar's, none for .npy")
                     ->check(cli::real_in(-1.0e9, 1.0e9));
  ss->add_flag("--graph-only", so.graph_only,
               "presets: skip the post operations (the heights the streamed world evaluates)");
  ss->add_option("--agent-slope", so.agent_slope_deg, "walkable slope limit in degrees")
      ->check(cli::real_in(0.0, 90.0))
      ->capture_default_str();
  ss->add_flag("--json", so.json, "print one JSON line (keys as in docs/REALISM.md)");
  ss->add_option("--threads", so.threads, "worker threads (0 = all cores)")
      ->check(cli::integer_in(0, kMaxThreads))
      ->capture_default_str();

  // terrane nav / terrane path (nav.cpp, path.cpp; docs/NAV.md).
  cli::NavOptions nav, pth;
  const auto add_nav_common = [](CLI::App* c, cli::NavOptions& o) {
    c->add_option("preset", o.preset, "built-in preset name or path to a preset JSON file")
        ->capture_default_str();
    c->add_option("--set", o.overrides, "override a preset field: a.b.c=value (repeatable)");
    c->add_option("--agent", o.agents,
                  "agent: radius=M,height=M,climb=M,slope=DEG[,drop=M][,name=N] (any subset; "
                  "default radius=0.5,height=2,climb=0.6,slope=40,drop=3,name=humanoid)")
        ->allow_extra_args(false);
    c->add_option("--cell-size", o.cell_size_m,
                  "navmesh voxel side in metres (tile side = cell size x tile cells must divide "
                  "the chunk side)")
        ->check(cli::real_in(0.0, 100.0, true))
        ->capture_default_str();
    c->add_option("--tile-cells", o.tile_cells, "navmesh tile side in voxels")
        ->check(cli::integer_in(16, 512))
        ->capture_default_str();
    c->add_option("--threads", o.threads, "worker threads (0 = all cores)")
        ->check(cli::integer_in(0, kMaxThreads))
        ->capture_default_str();
    return c->add_option("--seed", o.seed, "world seed (overrides the preset's)")
        ->check(cli::unsigned64());
  };
  auto* nv = app.add_subcommand(
      "nav",
      "build the navmesh tiles of every agent over a region and write NAME_AGENT.navtiles "
      "(Detour tiles), NAME_AGENT.obj and NAME_nav.json (docs/NAV.md)");
  auto* nv_seed = add_nav_common(nv, nav);
  nv->add_option("--region", nav.region, "the box to cover, x0,z0,x1,z1 in metres")->required();
  nv->add_option("-o,--out", nav.out_dir, "output directory (created if missing)")
      ->capture_default_str();
  nv->add_flag("-q,--quiet", nav.quiet, "no progress bar");
  auto* pt = app.add_subcommand(
      "path",
      "print the path of an agent between two points as JSON (exit 0: ok or partial, 1: no "
      "path, e.g. no_start or no_target; docs/NAV.md)");
  auto* pt_seed = add_nav_common(pt, pth);
  pt->add_option("--from", pth.from, "start x,z in metres")->required();
  pt->add_option("--to", pth.to, "target x,z in metres")->required();
  pt->add_option("--margin", pth.margin_m,
                 "metres of navmesh around the two points' bounding box (the path stays inside)")
      ->check(cli::real_in(0.0, 4096.0))
      ->capture_default_str();

  // terrane world new | edit | info (world.cpp; docs/EDIT.md).
  cli::WorldOptions wo;
  auto* w = app.add_subcommand("world", "world files: a preset plus the edits made to it");
  w->require_subcommand(1);
  auto* wn = w->add_subcommand("new", "create a world file for a preset (no edits yet)");
  wn->add_option("file", wo.file, "the world file to create")->required();
  wn->add_option("--preset", wo.preset, "built-in preset name or path to a preset JSON file")
      ->capture_default_str();
  wn->add_option("--set", wo.overrides, "override a preset field: a.b.c=value (repeatable)");
  auto* wn_seed = wn->add_option("--seed", wo.seed, "world seed (overrides the preset's)")
                      ->check(cli::unsigned64());
  wn->add_flag("--overwrite", wo.overwrite, "replace an existing file");
  wn->add_option("--tile-cells", wo.tile_cells,
                 "vertices per side of a stored chunk of height edits")
      ->check(cli::integer_in(8, 1024))
      ->capture_default_str();
  auto* we = w->add_subcommand(
      "edit",
      "apply brush strokes and commit them together: --brush KIND --at X,Z [--radius M] "
      "[--strength S] [--falloff F] [--target M] [--noise-frequency F] [--noise-seed N] (height "
      "brushes), --brush dig|fill|restore --at X,Y,Z [--radius M] [--block NAME] (block "
      "brushes), --brush fell|regrow --at X,Z [--radius M] [--regrow S] and --brush plant --at "
      "X,Z --species NAME [--yaw D] (scatter instances), --brush paint --at X,Z --layer NAME "
      "[--radius M] [--strength S] [--falloff F] and --brush unpaint (splat paint), repeatable "
      "(each --brush starts a stroke), or --edits FILE.json");
  we->add_option("file", wo.file, "the world file")->required();
  constexpr int kBrushOptions = 13;
  std::vector<std::string> brush_values[kBrushOptions];
  const char* brush_names[kBrushOptions] = {
      "brush",      "at",    "radius",  "strength", "falloff", "target", "noise-frequency",
      "noise-seed", "block", "species", "yaw",      "regrow",  "layer"};
  const char* brush_help[kBrushOptions] = {
      "start a stroke: raise | lower | smooth | flatten | noise (the height layer), dig | fill | "
      "restore (a sphere of blocks), fell | plant | regrow (scatter instances), paint | unpaint "
      "(splat paint)",
      "the stroke's centre: X,Z in metres (height brushes), X,Y,Z (block brushes)",
      "its radius in metres (default 10; block brushes 3)",
      "metres for raise/lower/noise, a fraction 0..1 for smooth/flatten/paint/unpaint (default 1)",
      "where the falloff starts, a fraction of the radius (default 0.5)",
      "flatten's height in metres (default 0)",
      "the noise brush's frequency in 1/m (default 0.01)",
      "the noise brush's seed (default 1337)",
      "fill's block, a name of the world's palette (stone, dirt, glass, ...)",
      "plant's species, a name of the preset's scatter species",
      "plant's yaw in degrees (default 0)",
      "fell's regrowth: the felled instances come back after S seconds of game time (default "
      "0: never)",
      "paint's splat layer, a name of the preset's surface layers (grass, rock, ...)"};
  std::vector<CLI::Option*> brush_options;
  for (int k = 0; k < kBrushOptions; ++k) {
    brush_options.push_back(
        we->add_option(std::string("--") + brush_names[k], brush_values[k], brush_help[k])
            ->allow_extra_args(false));
  }
  we->add_option("--edits", wo.edits_json,
                 "a JSON list of strokes [{\"brush\": \"raise\", \"at\": [x, z], \"radius\": 20, "
                 "...}], applied after the command line's");
  we->add_option("-m,--message", wo.message, "the commit's log line (default: the strokes)");
  we->add_flag("--accept-generator-change", wo.accept_generator_change,
               "edit a world whose base terrain this terrane generates differently");
  auto* wi = w->add_subcommand("info", "print a world's preset, generator, edits and log");
  wi->add_option("file", wo.file, "the world file")->required();
  wi->add_flag("--json", wo.json, "one JSON object");
  wi->add_flag("--check", wo.check, "run SQLite's integrity check and decode every chunk");
  wi->add_option("--log", wo.log, "log entries to print, newest last")
      ->check(cli::integer_in(0, 1000000))
      ->capture_default_str();

  app.add_subcommand("presets", "list the built-in presets");

  cli::BenchOptions bench;
  auto* b = app.add_subcommand("bench", "run a benchmark and print one JSON line per workload");
  auto* bn = b->add_subcommand("noise", "noise workloads W1..W5 (docs/PERFORMANCE.md)");
  b->require_subcommand(1);
  bn->add_option("--workload", bench.only, "run only this workload (W1..W5)");
  bn->add_option("--repeats", bench.repeats, "timed runs per workload; the median is printed")
      ->check(cli::integer_in(1, 1000))
      ->capture_default_str();
  bn->add_flag("--all-targets", bench.all_targets, "repeat for every supported SIMD target");
  bn->add_option("--simd", simd, "force a SIMD target (see top-level --simd)");
  cli::BenchOptions bench_e;
  bench_e.repeats = 3;
  auto* be = b->add_subcommand("erosion",
                               "erosion workloads: droplets (with the plain baseline), "
                               "thermal, stream power (docs/PERFORMANCE.md)");
  be->add_option("--workload", bench_e.only, "run only this method: droplets|thermal|stream_power");
  be->add_option("--repeats", bench_e.repeats, "timed runs per workload; the median is printed")
      ->check(cli::integer_in(1, 1000))
      ->capture_default_str();
  be->add_option("--threads", bench_e.threads, "worker threads of the terrane runs (0 = all)")

      ->check(cli::integer_in(0, kMaxThreads))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }

  try {
    if (!simd.empty()) {
      try {
        set_simd_target(parse_simd_target(simd));
      } catch (const Error& e) {
        throw Error(e.category(), std::string("--simd: ") + e.what());
      }
    }
    if (g->parsed()) {
      gen.has_seed = seed_opt->count() > 0;
      gen.has_size = size_opt->count() > 0;
      gen.has_width = width_opt->count() > 0;
      gen.has_height = height_opt->count() > 0;
      gen.has_cell = cell_opt->count() > 0;
      gen.has_simplify = simplify_opt->count() > 0;
      gen.has_formats = g->get_option("--formats")->count() > 0;
      if (!origin.empty()) {
        if (!parse_origin(origin, gen.origin_x, gen.origin_z)) {
          throw Error(ErrorCategory::invalid_argument,
                      "--origin '" + origin + "': expected two numbers X,Z in metres");
        }
        gen.has_origin = true;
      }
      return cli::run_generate(gen);
    }
    if (sc->parsed()) {
      st.has_seed = st_seed->count() > 0;
      return cli::run_stream(st);
    }
    if (ss->parsed()) {
      so.has_seed = ss_seed->count() > 0;
      so.has_size = ss_size->count() > 0;
      so.has_width = ss_width->count() > 0;
      so.has_height = ss_height->count() > 0;
      so.has_cell = ss_cell->count() > 0;
      so.has_cell_z = ss_cell_z->count() > 0;
      so.has_sea = ss_sea->count() > 0;
      return cli::run_stats(so);
    }
    if (nv->parsed()) {
      nav.has_seed = nv_seed->count() > 0;
      return cli::run_nav(nav);
    }
    if (pt->parsed()) {
      pth.has_seed = pt_seed->count() > 0;
      return cli::run_path(pth);
    }
    if (w->parsed()) {
      wo.action = wn->parsed() ? "new" : we->parsed() ? "edit" : "info";
      wo.has_seed = wn_seed->count() > 0;
      // The stroke options in the order given: the k-th occurrence of an option is its k-th value.
      std::size_t seen[kBrushOptions] = {};
      for (const CLI::Option* o : we->parse_order()) {
        for (int k = 0; k < kBrushOptions; ++k) {
          if (o == brush_options[std::size_t(k)]) {
            wo.brush_settings.emplace_back(brush_names[k], brush_values[k][seen[k]++]);
          }
        }
      }
      return cli::run_world(wo);
    }
    if (app.got_subcommand("presets")) return cli::run_presets();
    if (bn->parsed()) return cli::run_bench_noise(bench);
    if (be->parsed()) return cli::run_bench_erosion(bench_e);
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}

// SIGINT, SIGTERM and SIGHUP are blocked in every thread (threads inherit the mask) and taken
// by one thread with sigwait: it removes what the run has not published (staging directories,
// temporaries: remove_unpublished_outputs waits for a publication in progress to finish), and
// exits with 128 + the signal's number, as a shell reports a process the signal killed.
void handle_interrupts() {
  static sigset_t signals;
  sigemptyset(&signals);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, sig);
  if (pthread_sigmask(SIG_BLOCK, &signals, nullptr) != 0) return;  // default actions then
  std::thread([] {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0) return;
    terrane::remove_unpublished_outputs();
    std::fprintf(stderr, "error: interrupted by %s; no output of this run was published\n",
                 sig == SIGINT    ? "SIGINT"
                 : sig == SIGTERM ? "SIGTERM"
                                  : "SIGHUP");
    std::_Exit(128 + sig);
  }).detach();
}

// Blocks of 8 MiB and more are mapped on their own, so that what a stage frees goes back to the
// system before the next stage allocates. glibc's default serves blocks up to 32 MiB (a map's
// basin-graph links, the writers' rows, a mesh tile's arrays) from its heaps once a block of
// that size has been freed, and keeps them there after they are freed: at 4097^2, `generate
// default` peaked about 25 MiB higher. A lower threshold saves little more and costs fresh page
// faults (breach 20% slower at 1 MiB; docs/PERFORMANCE.md, "Memory: the routing's order
// allocated late"). A process setting (the library leaves its caller's allocator alone); a
// GLIBC_TUNABLES that sets the threshold itself is left to decide.
void map_large_blocks() {
#if defined(__GLIBC__)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "mmap_threshold") != nullptr) return;
  mallopt(M_MMAP_THRESHOLD, 8 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  map_large_blocks();
  handle_interrupts();
  const int code = run_cli(argc, argv);
  // Output the user cannot read is a failure (a full disk, /dev/full, a closed pipe): stdout is
  // flushed here so that its error is seen, and reported like any other (issue 12, defect 13).
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    const int err = errno;
    std::fprintf(stderr, "error: writing to standard output failed: %s\n",
                 err != 0 ? std::strerror(err) : "unknown error");
    return code == 0 ? 2 : code;
  }
  return code;
}
