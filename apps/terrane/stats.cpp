// `terrane stats`: load a height grid (a preset through bake_heights(), a terrane output with
// its sidecar, or a .npy), compute_terrain_stats(), print a table or one JSON line.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "commands.hpp"
#include "terrane/bake.hpp"
#include "terrane/io.hpp"
#include "terrane/stats.hpp"

namespace terrane::cli {
namespace {

namespace fs = std::filesystem;

struct Loaded {
  Field2D heights;
  double cell_x_m = 1.0, cell_z_m = 1.0;
  std::optional<double> sea_level_m;
  std::string name;
};

std::string lower_extension(const fs::path& p) {
  std::string e = p.extension().string();
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

[[noreturn]] void fail(const std::string& message) {
  throw Error(ErrorCategory::invalid_argument, message);
}

void reject_preset_options(const StatsOptions& opt, const std::string& kind) {
  if (!opt.overrides.empty() || opt.has_seed || opt.has_size || opt.has_width || opt.has_height ||
      opt.graph_only) {
    fail(opt.input +
         ": --set, --seed, --size, --width, --height and --graph-only apply to "
         "presets, not to " +
         kind);
  }
}

// A terrane output next to its sidecar NAME.json (cell size, height range, sea level).
Loaded load_output(const StatsOptions& opt, const std::string& ext) {
  reject_preset_options(opt, "a height map file");
  if (opt.has_cell || opt.has_cell_z) fail(opt.input + ": the cell size comes from its sidecar");
  const fs::path input = opt.input;
  const fs::path sidecar_path = input.parent_path() / (input.stem().string() + ".json");
  std::ifstream in(sidecar_path);
  if (!in) {
    fail(input.string() + ": no sidecar " + sidecar_path.string() +
         " (a terrane output is read with the NAME.json written next to it; for other grids "
         "use a .npy with --cell)");
  }
  nlohmann::json side;
  try {
    side = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw Error(ErrorCategory::parse, sidecar_path.string() + ": " + e.what());
  }
  auto number = [&](const char* key) {
    const auto it = side.find(key);
    if (it == side.end() || !it->is_number()) {
      throw Error(ErrorCategory::parse,
                  sidecar_path.string() + ": missing number '" + std::string(key) + "'");
    }
    return it->get<double>();
  };
  Loaded out;
  out.cell_x_m = out.cell_z_m = number("spacing_m");
  out.sea_level_m = number("sea_level_m");
  out.name = input.stem().string();
  const HeightRange range{number("height_min_m"), number("height_max_m")};
  if (ext == ".png") {
    out.heights = read_png16(input, range, out.cell_x_m);
  } else if (ext == ".r16" || ext == ".raw") {
    const Image16 img = read_raw16(input, int(number("width")), int(number("height")));
    out.heights = image16_to_heights(img, range, out.cell_x_m);
  } else {
    out.heights = read_exr(input, out.cell_x_m);
  }
  return out;
}

Loaded load_npy(const StatsOptions& opt) {
  reject_preset_options(opt, "a .npy grid");
  if (!opt.has_cell) {
    fail(opt.input +
         ": a .npy grid needs --cell M (its cell size in metres; --cell-z M for the "
         "rows when the cells are not square)");
  }
  Loaded out;
  out.heights = read_npy(opt.input, opt.cell_m);
  out.cell_x_m = opt.cell_m;
  out.cell_z_m = opt.has_cell_z ? opt.cell_z_m : opt.cell_m;
  out.name = fs::path(opt.input).stem().string();
  return out;
}

Loaded load_preset(const StatsOptions& opt, const ExecContext& ctx) {
  if (opt.has_cell_z) fail("--cell-z applies to .npy grids (preset maps have square cells)");
  BakeRequest r;
  r.preset = opt.input;
  r.overrides = opt.overrides;
  if (opt.has_seed) r.seed = opt.seed;
  if (opt.has_size) r.size = opt.size;
  if (opt.has_cell) r.cell_m = opt.cell_m;
  if (opt.has_width) r.width = opt.width;
  if (opt.has_height) r.height = opt.height;
  Preset preset;
  Loaded out;
  out.heights = bake_heights(r, ctx, opt.graph_only, &preset);
  out.cell_x_m = out.cell_z_m = out.heights.grid.spacing_m;
  out.sea_level_m = preset.world.sea_level_m;
  out.name = preset.name.empty() ? "terrain" : preset.name;
  return out;
}

std::string fmt(const Stat& s, const char* format, double scale = 1.0) {
  if (!s.ok()) return "n/a (" + s.why + ")";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, *s.value * scale);
  return buf;
}

std::string fmt(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void print_table(const Loaded& in, const TerrainStats& s) {
  auto row = [](const char* label, const std::string& value) {
    std::printf("  %-34s %s\n", label, value.c_str());
  };
  std::printf("%s: %d x %d cells of %g x %g m, sea level %s\n", in.name.c_str(), s.width, s.height,
              s.cell_x_m, s.cell_z_m, s.sea_level_m ? fmt(*s.sea_level_m, "%g m").c_str() : "none");
  row("land fraction", fmt(s.land_fraction, "%.4f"));
  if (s.nodata_cells > 0) row("no-data (NaN) cells, excluded", std::to_string(s.nodata_cells));
  row("land heights", fmt(s.height_min_m, "%.2f") + " .. " + fmt(s.height_max_m, "%.2f m"));
  row("slope p10 / p50 / p90 [deg]", fmt(s.slope_p10_deg, "%.2f") + " / " +
                                         fmt(s.slope_p50_deg, "%.2f") + " / " +
                                         fmt(s.slope_p90_deg, "%.2f"));
  row("land below 15 / below 30 / above 45 deg", fmt(s.slope_lt15, "%.4f") + " / " +
                                                     fmt(s.slope_lt30, "%.4f") + " / " +
                                                     fmt(s.slope_gt45, "%.4f"));
  row(("walkable (slope <= " + fmt(s.agent_slope_deg, "%g") + " deg)").c_str(),
      fmt(s.walkable_share, "%.4f"));
  row("hypsometric integral", fmt(s.hypsometric_integral, "%.4f"));
  row(("local relief, " + fmt(s.relief_window_x_m, "%.0f") + " x " +
       fmt(s.relief_window_z_m, "%.0f") + " m window")
          .c_str(),
      fmt(s.local_relief_m, "%.2f m"));
  row(("spectral beta (" + fmt(s.beta_fit_min_m, "%.0f") + ".." + fmt(s.beta_fit_max_m, "%.0f") +
       " m)")
          .c_str(),
      fmt(s.beta, "%.3f"));
  row("profile beta", fmt(s.beta_profile, "%.3f"));
  row("drainage density [km/km^2]", fmt(s.drainage_density_km_per_km2, "%.4f"));
  row("channel cells", std::to_string(s.channel_cells));
  row("Hack's exponent h",
      fmt(s.hack_h, "%.3f") + " (" + std::to_string(s.hack_area_m2.size()) + " bins)");
  row("largest drainage area", fmt(s.max_drainage_area_m2 * 1e-6, "%.4f km^2"));
  row("land in depressions > 1 m", fmt(s.depression_share, "%.5f"));
  row("land below its spill level", fmt(s.pit_share, "%.5f"));
  row("deepest depression", fmt(s.max_depression_depth_m, "%.2f m"));
  row("computed in", fmt(s.elapsed_s, "%.3f s"));
}

}  // namespace

int run_stats(const StatsOptions& opt) {
  ExecContext ctx{.threads = opt.threads};
  const std::string ext = lower_extension(opt.input);
  Loaded in;
  if (ext == ".npy") {
    in = load_npy(opt);
  } else if (ext == ".png" || ext == ".r16" || ext == ".raw" || ext == ".exr") {
    in = load_output(opt, ext);
  } else {
    in = load_preset(opt, ctx);
  }
  if (opt.has_sea) in.sea_level_m = opt.sea_m;

  StatsGrid grid = stats_grid(in.heights);
  grid.cell_x_m = in.cell_x_m;
  grid.cell_z_m = in.cell_z_m;
  std::int64_t finite = 0, land = 0;
  for (const float v : in.heights.data) {
    if (std::isnan(v)) continue;
    ++finite;
    land += !in.sea_level_m || double(v) > *in.sea_level_m;
  }
  if (finite == 0) fail(opt.input + ": every cell is NaN (no-data); nothing to measure");
  if (land == 0) {
    fail(opt.input + ": no land: every cell is at or below the sea level " +
         fmt(*in.sea_level_m, "%g m") + " (give another --sea)");
  }
  if (grid.width < 3 || grid.height < 3) {
    fail(opt.input + ": the map is " + std::to_string(grid.width) + " x " +
         std::to_string(grid.height) + " cells; terrain statistics need at least 3 x 3");
  }
  StatsParams params;
  params.sea_level_m = in.sea_level_m;
  params.agent_slope_deg = opt.agent_slope_deg;
  const TerrainStats s = compute_terrain_stats(grid, params, ctx);
  if (opt.json) {
    std::printf("%s\n", terrain_stats_json(s, in.name).c_str());
  } else {
    print_table(in, s);
  }
  return 0;
}

}  // namespace terrane::cli
