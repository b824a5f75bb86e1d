// A bake request's vocabulary (format, engine, preview and erode names) and its resolution
// into a preset, a grid and an output directory, all before any work.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "bake/bake_internal.hpp"
#include "terrane/world.hpp"

namespace terrane {

namespace {

constexpr OutputFormat kFormats[] = {
    OutputFormat::png16,   OutputFormat::raw16,  OutputFormat::exr,        OutputFormat::normals,
    OutputFormat::preview, OutputFormat::rivers, OutputFormat::lakes,      OutputFormat::flow,
    OutputFormat::glb,     OutputFormat::obj,    OutputFormat::splat,      OutputFormat::biomes,
    OutputFormat::scatter, OutputFormat::stats,  OutputFormat::perspective};

// The comma-separated items of `list`, empty ones skipped.
std::vector<std::string> split_list(std::string_view list) {
  std::vector<std::string> items;
  std::stringstream in{std::string(list)};
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

}  // namespace

const char* to_string(OutputFormat f) {
  switch (f) {
    case OutputFormat::png16:
      return "png16";
    case OutputFormat::raw16:
      return "raw16";
    case OutputFormat::exr:
      return "exr";
    case OutputFormat::normals:
      return "normals";
    case OutputFormat::preview:
      return "preview";
    case OutputFormat::rivers:
      return "rivers";
    case OutputFormat::lakes:
      return "lakes";
    case OutputFormat::flow:
      return "flow";
    case OutputFormat::glb:
      return "glb";
    case OutputFormat::obj:
      return "obj";
    case OutputFormat::splat:
      return "splat";
    case OutputFormat::biomes:
      return "biomes";
    case OutputFormat::scatter:
      return "scatter";
    case OutputFormat::stats:
      return "stats";
    case OutputFormat::perspective:
      return "perspective";
  }
  return "?";
}

OutputFormats parse_formats(std::string_view list) {
  OutputFormats out;
  for (const std::string& name : split_list(list)) {
    bool known = false;
    for (const OutputFormat f : kFormats) {
      if (name == to_string(f)) {
        out.insert(f);
        known = true;
      }
    }
    if (!known) {
      std::string allowed;
      for (const OutputFormat f : kFormats)
        allowed += (allowed.empty() ? "" : ", ") + std::string(to_string(f));
      throw Error(ErrorCategory::invalid_argument,
                  "--formats: unknown format '" + name + "' (allowed: " + allowed + ")");
    }
  }
  return out;
}

const char* to_string(Engine e) {
  switch (e) {
    case Engine::none:
      return "";
    case Engine::unity:
      return "unity";
    case Engine::unreal:
      return "unreal";
    case Engine::godot:
      return "godot";
  }
  return "?";
}

Engine parse_engine(std::string_view name) {
  for (const Engine e : {Engine::none, Engine::unity, Engine::unreal, Engine::godot}) {
    if (name == to_string(e)) return e;
  }
  throw Error(ErrorCategory::invalid_argument, "--engine: unknown engine '" + std::string(name) +
                                                   "' (allowed: unity, unreal, godot)");
}

const char* to_string(PreviewMode m) {
  switch (m) {
    case PreviewMode::relief:
      return "relief";
    case PreviewMode::biomes:
      return "biomes";
  }
  return "?";
}

PreviewMode parse_preview_mode(std::string_view name) {
  if (name == "relief") return PreviewMode::relief;
  if (name == "biomes") return PreviewMode::biomes;
  throw Error(ErrorCategory::invalid_argument,
              "--preview: unknown mode '" + std::string(name) + "' (allowed: relief, biomes)");
}

std::vector<RegionOpKind> parse_erode(std::string_view list) {
  std::vector<RegionOpKind> kinds;
  for (const std::string& name : split_list(list)) {
    try {
      kinds.push_back(parse_region_op_kind(name));
    } catch (const Error& e) {
      throw Error(ErrorCategory::invalid_argument, std::string("--erode: ") + e.what());
    }
  }
  return kinds;
}

std::uintmax_t BakeReport::total_bytes() const {
  std::uintmax_t total = 0;
  for (const BakedFile& f : files) total += f.bytes;
  return total;
}

namespace bake_detail {

namespace fs = std::filesystem;

Preset resolve_preset(const BakeRequest& request, std::span<const std::string> overrides) {
  if (const auto* name = std::get_if<std::string>(&request.preset)) {
    return load_preset(*name, overrides);
  }
  const Preset& loaded = std::get<Preset>(request.preset);
  if (overrides.empty()) return loaded;
  return apply_overrides(loaded, overrides);
}

std::vector<std::string> request_overrides(const BakeRequest& request) {
  std::vector<std::string> overrides = request.overrides;
  if (request.seed) overrides.push_back("seed=" + std::to_string(*request.seed));
  if (request.size) overrides.push_back("world.size=" + std::to_string(*request.size));
  if (request.cell_m) {
    std::ostringstream s;
    s.precision(17);
    s << "world.cell_size_m=" << *request.cell_m;
    overrides.push_back(s.str());
  }
  return overrides;
}

void check_request_values(const BakeRequest& request) {
  for (const OutputFormat f : request.formats) {
    if (int(f) < 0 || int(f) > int(OutputFormat::perspective)) {
      throw Error(ErrorCategory::invalid_argument,
                  "--formats: invalid OutputFormat value " + std::to_string(int(f)));
    }
  }
  for (const RegionOpKind k : request.erode) {
    if (int(k) < 0 || int(k) > int(RegionOpKind::breach)) {
      throw Error(ErrorCategory::invalid_argument,
                  "--erode: invalid RegionOpKind value " + std::to_string(int(k)));
    }
  }
  if (int(request.engine) < 0 || int(request.engine) > int(Engine::godot)) {
    throw Error(ErrorCategory::invalid_argument,
                "--engine: invalid Engine value " + std::to_string(int(request.engine)));
  }
  if (request.preview != PreviewMode::relief && request.preview != PreviewMode::biomes) {
    throw Error(ErrorCategory::invalid_argument,
                "--preview: invalid PreviewMode value " + std::to_string(int(request.preview)));
  }
  if (!(std::isfinite(request.river_area_m2) && request.river_area_m2 > 0.0)) {
    std::ostringstream s;
    s << "--river-area: " << request.river_area_m2 << " m^2 must be positive and finite";
    throw Error(ErrorCategory::invalid_argument, s.str());
  }
  const std::string& out = request.out_dir.native();
  if (out.empty() || out.find('\0') != std::string::npos) {
    throw Error(ErrorCategory::invalid_argument,
                "-o: the output directory must be a non-empty path without NUL bytes");
  }
}

GridSpec request_grid(const BakeRequest& request, const Preset& preset) {
  GridSpec grid = default_grid(preset.world);
  if (request.width.has_value() != request.height.has_value()) {
    throw Error(ErrorCategory::invalid_argument, "--width and --height must be given together");
  }
  if (request.width) {
    if (request.size) {
      throw Error(ErrorCategory::invalid_argument,
                  "--size cannot be combined with --width/--height");
    }
    grid.width = *request.width;
    grid.height = *request.height;
  }
  grid.origin_x_m = request.origin_x_m.value_or(grid.origin_x_m);
  grid.origin_z_m = request.origin_z_m.value_or(grid.origin_z_m);
  // Every sample must lie where positions are exact (the world's range; beyond it noise
  // coordinates lose their cell fraction and a map degenerates to a few distinct heights).
  const auto check_axis = [&](const char* axis, double origin, int samples) {
    const double far_end = origin + double(samples - 1) * grid.spacing_m;
    const double reach = std::max(std::fabs(origin), std::fabs(far_end));
    if (std::isfinite(origin) && reach <= kMaxWorldCoordinate) return;
    throw Error(ErrorCategory::invalid_argument,
                std::string("--origin: the map's ") + axis + " runs from " + format_number(origin) +
                    " to " + format_number(far_end) + " m, outside the precise world range [-" +
                    format_number(kMaxWorldCoordinate) + ", " + format_number(kMaxWorldCoordinate) +
                    "] m");
  };
  check_axis("x", grid.origin_x_m, grid.width);
  check_axis("z", grid.origin_z_m, grid.height);
  return grid;
}

void prepare_output_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw Error(ErrorCategory::io, "output directory '" + dir.string() + "' cannot be created: " +
                                       (ec ? ec.message() : std::string("not a directory")));
  }
}

}  // namespace bake_detail
}  // namespace terrane
