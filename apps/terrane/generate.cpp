// `terrane generate`: options -> BakeRequest -> bake() (terrane/bake.hpp, which writes every file
// atomically) -> the summary line on stdout and the bake's warnings on stderr.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "commands.hpp"
#include "terrane/bake.hpp"
#include "terrane/store.hpp"

namespace terrane::cli {
namespace {

std::string format_bytes(std::uintmax_t n) {
  char buf[32];
  if (n >= (1u << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(n) / double(1u << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(n) / 1024.0);
  }
  return buf;
}

// --timings: one line per stage (with its peak memory), then the total and the whole run's
// peak memory per sample.
void print_timings(const std::vector<StageTiming>& stages, std::size_t samples) {
  double wall = 0.0, cpu = 0.0;
  // The kernel's counter holds the last stage's peak (the stage clock resets it).
  std::uint64_t peak = peak_resident_bytes();
  const double mib = double(1u << 20);
  std::printf("%-28s %10s %10s %6s %10s\n", "stage", "wall s", "cpu s", "cores", "peak MiB");
  for (const StageTiming& s : stages) {
    std::printf("%-28s %10.3f %10.3f %6.2f", s.name.c_str(), s.wall_s, s.cpu_s,
                s.wall_s > 0.0 ? s.cpu_s / s.wall_s : 0.0);
    if (s.peak_rss_bytes != 0) {
      std::printf(" %10.1f\n", double(s.peak_rss_bytes) / mib);
    } else {
      std::printf(" %10s\n", "-");
    }
    wall += s.wall_s;
    cpu += s.cpu_s;
    peak = std::max(peak, s.peak_rss_bytes);
  }
  std::printf("%-28s %10.3f %10.3f %6.2f\n", "total", wall, cpu, wall > 0.0 ? cpu / wall : 0.0);
  if (peak != 0) {
    std::printf("peak memory %s, %.2f bytes per sample\n", format_bytes(peak).c_str(),
                double(peak) / double(std::max<std::size_t>(samples, 1)));
  }
}

BakeRequest to_request(const GenerateOptions& opt) {
  BakeRequest r;
  r.formats = parse_formats(opt.formats);
  r.preset = opt.preset;
  r.overrides = opt.overrides;
  if (opt.has_seed) r.seed = opt.seed;
  if (opt.has_size) r.size = opt.size;
  if (opt.has_cell) r.cell_m = opt.cell_m;
  if (opt.has_width) r.width = opt.width;
  if (opt.has_height) r.height = opt.height;
  if (opt.has_origin) {
    r.origin_x_m = opt.origin_x;
    r.origin_z_m = opt.origin_z;
  }
  r.erode = parse_erode(opt.erode);
  r.river_area_m2 = opt.river_area_m2;
  r.max_memory_bytes = std::uint64_t(opt.max_memory_gib * double(std::uint64_t{1} << 30));
  r.whole_map_hydrology = opt.whole_map_hydrology;
  r.stage_peaks = opt.timings;
  r.lod = opt.lod;
  if (opt.has_simplify) r.simplify_error_m = opt.simplify_error_m;
  r.tiles = opt.tiles;
  r.engine = parse_engine(opt.engine);
  r.preview = parse_preview_mode(opt.preview);
  parse_perspective_size(opt.perspective_size, r.perspective_width, r.perspective_height);
  r.camera = parse_camera(opt.camera);
  r.out_dir = opt.out_dir;
  return r;
}

bool parse_pair(const std::string& text, long long& a, long long& b) {
  char tail = 0;
  return std::sscanf(text.c_str(), "%lld,%lld%c", &a, &b, &tail) == 2;
}

// `world`: opt.preset names a world file, whose preset and height edits the blocks are made of.
int run_voxel(const GenerateOptions& opt, bool world) {
  const auto refuse = [](const char* option) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(option) +
                    " has no meaning with --mode voxel (it applies to height "
                    "maps)");
  };
  if (!opt.erode.empty()) refuse("--erode");
  if (opt.has_cell) refuse("--cell (the block size is voxel.block_size_m)");
  if (opt.lod != 0) refuse("--lod");
  if (opt.has_simplify) refuse("--simplify-error");
  if (opt.tiles != 1) refuse("--tiles");
  if (!opt.engine.empty()) refuse("--engine");
  if (opt.whole_map_hydrology) refuse("--whole-map-hydrology");
  VoxelBakeRequest r;
  r.preset = opt.preset;
  r.overrides = opt.overrides;
  if (opt.has_seed) r.seed = opt.seed;
  Preset preset;
  if (world) {
    WorldOpenOptions read;
    read.read_only = true;
    const WorldStore store = WorldStore::open(opt.preset, read);
    preset = store.preset();
    r.preset = preset;
    r.edits = std::make_shared<const HeightEditSnapshot>(store.height_edits());
    r.block_edits = std::make_shared<const BlockEditSnapshot>(store.block_edits());
    r.edits_source = "world " + opt.preset + ", commit " + std::to_string(store.info().commits);
  } else {
    preset = load_preset(opt.preset, opt.overrides);
  }
  if (opt.has_size) r.size_x = r.size_z = opt.size;
  if (opt.has_width != opt.has_height) {
    throw Error(ErrorCategory::invalid_argument, "--width and --height go together");
  }
  if (opt.has_width) {
    r.size_x = opt.width;
    r.size_z = opt.height;
  }
  const double bs = preset.voxel.block_size_m;
  if (opt.has_origin) {
    r.x0 = std::int64_t(std::floor(opt.origin_x / bs));
    r.z0 = std::int64_t(std::floor(opt.origin_z / bs));
  } else {
    r.x0 = -r.size_x / 2;
    r.z0 = -r.size_z / 2;
  }
  if (!opt.y_range.empty()) {
    long long lo = 0, hi = 0;
    if (!parse_pair(opt.y_range, lo, hi)) {
      throw Error(ErrorCategory::invalid_argument,
                  "--y-range '" + opt.y_range + "': expected two integers LO,HI (block rows)");
    }
    r.y0 = lo;
    r.y1 = hi;
  }
  if (opt.has_formats) {
    r.vox = r.glb = false;
    std::string list = opt.formats;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(',', start), list.size());
      const std::string f = list.substr(start, end - start);
      if (f == "vox") {
        r.vox = true;
      } else if (f == "glb") {
        r.glb = true;
      } else {
        throw Error(ErrorCategory::invalid_argument,
                    "--formats: '" + f + "' is not a voxel format; --mode voxel writes vox, glb");
      }
      start = end + 1;
    }
  }
  r.out_dir = opt.out_dir;
  ExecContext ctx{.threads = opt.threads};
  ctx.log = [](LogLevel level, std::string_view message) {
    if (level != LogLevel::warning) return;
    std::fprintf(stderr, "warning: %.*s\n", int(message.size()), message.data());
  };
  const VoxelBakeReport report = bake_voxel(r, ctx);
  std::string names;
  for (const BakedFile& f : report.files) {
    names += (names.empty() ? "" : ", ") + (r.out_dir / f.name).string();
  }
  std::printf(
      "%s (voxel): %d x %d x %d blocks at (%lld, %lld, %lld), %zu solid, seed %llu; generated in "
      "%.2f s, total %.2f s (%s); wrote %s\n",
      report.name.c_str(), report.region.size_x, report.region.size_y, report.region.size_z,
      static_cast<long long>(report.region.x0), static_cast<long long>(report.region.y0),
      static_cast<long long>(report.region.z0), report.solid_blocks,
      static_cast<unsigned long long>(report.seed), report.generation_s, report.total_s,
      format_bytes(report.total_bytes()).c_str(), names.c_str());
  return 0;
}

}  // namespace

int run_generate(const GenerateOptions& opt) {
  // A world file instead of a preset: its preset with its edits.
  const bool world = is_world_file(opt.preset);
  if (world) {
    const auto refuse = [&](const char* option) {
      throw Error(ErrorCategory::invalid_argument,
                  std::string(option) + " cannot change the preset of world " + opt.preset +
                      ": its edits sit on that preset's terrain (make a new world instead)");
    };
    if (!opt.overrides.empty()) refuse("--set");
    if (opt.has_seed) refuse("--seed");
    if (opt.has_cell) refuse("--cell");
  }
  if (opt.mode == "voxel") return run_voxel(opt, world);
  if (opt.mode != "heightmap") {
    throw Error(ErrorCategory::invalid_argument,
                "--mode '" + opt.mode + "': expected heightmap or voxel");
  }
  BakeRequest request = to_request(opt);
  if (world) {
    WorldOpenOptions read;
    read.read_only = true;
    const WorldStore store = WorldStore::open(opt.preset, read);
    request.preset = store.preset();
    request.edits = std::make_shared<const HeightEditSnapshot>(store.height_edits());
    request.instance_edits = store.instance_snapshot();
    request.paint = store.paint();
    request.edits_source =
        "world " + opt.preset + ", commit " + std::to_string(store.info().commits);
  }
  ProgressBar bar("generate", !opt.quiet);
  ExecContext ctx{.threads = opt.threads};
  ctx.progress = [&bar](double f) { bar.update(f); };
  // Warnings as they happen (they are also in report.warnings and the sidecar); the sink may be
  // called from workers.
  std::mutex log_mutex;
  ctx.log = [&log_mutex](LogLevel level, std::string_view message) {
    if (level != LogLevel::warning) return;
    const std::lock_guard<std::mutex> lock(log_mutex);
    std::fprintf(stderr, "warning: %.*s\n", int(message.size()), message.data());
  };
  const BakeReport report = bake(request, ctx);
  bar.finish();
  if (!opt.quiet && report.meshes) {
    const BakeMeshSummary& m = *report.meshes;
    const std::size_t tiles = std::size_t(m.tiles) * std::size_t(m.tiles);
    if (m.simplified) {
      std::printf(
          "meshes: %zu tile(s) at lod %d, %zu triangles simplified to %zu at max error "
          "%.3g m (reached %.3g m)\n",
          tiles, m.lod, m.triangles_in, m.triangles_out, m.simplify_error_m, m.reached_error_m);
    } else {
      std::printf("meshes: %zu tile(s) at lod %d, %zu triangles\n", tiles, m.lod, m.triangles_out);
    }
  }
  std::string names;
  for (const BakedFile& f : report.files) {
    names += (names.empty() ? "" : ", ") + (request.out_dir / f.name).string();
  }
  if (opt.timings) print_timings(report.stages, report.grid.sample_count());
  std::printf(
      "%s: %dx%d samples at %g m, seed %llu, heights %.1f..%.1f m; generated in %.2f s, "
      "total %.2f s (%s); wrote %s\n",
      report.name.c_str(), report.grid.width, report.grid.height, report.grid.spacing_m,
      static_cast<unsigned long long>(report.seed), report.range.height_min_m,
      report.range.height_max_m, report.generation_s, report.total_s,
      format_bytes(report.total_bytes()).c_str(), names.c_str());
  return 0;
}

}  // namespace terrane::cli
