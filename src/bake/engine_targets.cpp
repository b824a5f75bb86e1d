// Engine targets of a bake (--engine unity|unreal|godot): heightmaps in the form each engine's
// terrain importer expects, plus NAME_<engine>.json with the numbers to type into the import
// dialog (README, "Meshes and engine import").
//   unity:  RAW16 little-endian, square of side 2^n + 1 (the map is snapped up before generation),
//           split into tiles of at most 4097 samples sharing their borders.
//   unreal: PNG16 spanning the preset's height range over all 65536 values (the png16 samples),
//           with the Z scale (percent) and actor Z location that map it back to metres, of a
//           size from Unreal's recommended landscape sizes (snapped up before generation).
//   godot:  OpenEXR heights in metres (Terrain3D importer, scale 1, offset 0).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "bake/bake_internal.hpp"

namespace terrane::bake_detail {
namespace {

namespace fs = std::filesystem;

constexpr int kUnityMaxSide = 4097;
// Unreal Engine's recommended landscape sizes (vertices per side), "Landscape Technical Guide".
constexpr int kUnrealSizes[] = {127, 253, 505, 1009, 2017, 4033, 8129};

void write_json(const fs::path& path, const nlohmann::json& doc) {
  const std::string text = doc.dump(2) + "\n";
  write_file_atomic(path, std::as_bytes(std::span<const char>(text.data(), text.size())));
}

Image16 crop(const Image16& img, int i0, int j0, int side) {
  Image16 out;
  out.width = out.height = side;
  out.samples.resize(std::size_t(side) * std::size_t(side));
  for (int j = 0; j < side; ++j) {
    const auto* src = img.samples.data() + std::size_t(j0 + j) * std::size_t(img.width) + i0;
    std::copy(src, src + side, out.samples.data() + std::size_t(j) * std::size_t(side));
  }
  return out;
}

}  // namespace

int unity_terrains_per_side(const GridSpec& grid) {
  return (grid.width - 1 + kUnityMaxSide - 2) / (kUnityMaxSide - 1);
}

int unity_terrain_cells(const GridSpec& grid) {
  return (grid.width - 1) / unity_terrains_per_side(grid);
}

std::string snap_size_for_engine(Engine engine, GridSpec& grid) {
  const int want = std::max(grid.width, grid.height);
  int side = want;
  if (engine == Engine::none || engine == Engine::godot) return {};
  if (engine == Engine::unity) {
    side = 33;
    while (side < want) side = (side - 1) * 2 + 1;
  } else {
    side = 0;
    for (int s : kUnrealSizes) {
      if (s >= want) {
        side = s;
        break;
      }
    }
    if (side == 0) {
      throw Error(ErrorCategory::invalid_argument,
                  "--engine unreal: a map of " + std::to_string(grid.width) + " x " +
                      std::to_string(grid.height) +
                      " samples is larger than Unreal's largest recommended landscape size, 8129");
    }
  }
  if (side == grid.width && side == grid.height) return {};
  const std::string warning =
      std::string("--engine ") + to_string(engine) + ": map size " + std::to_string(grid.width) +
      " x " + std::to_string(grid.height) + " snapped to " + std::to_string(side) + " x " +
      std::to_string(side) +
      (engine == Engine::unity
           ? " (Unity terrains are squares of side 2^n + 1)"
           : " (Unreal's recommended landscape sizes: 127, 253, 505, 1009, 2017, "
             "4033, 8129)");
  grid.width = grid.height = side;
  return warning;
}

std::vector<WrittenFile> write_engine_target(Engine engine, const Field2D& heights,
                                             const HeightRange& range, const fs::path& dir,
                                             const std::string& base, const ExecContext& ctx) {
  std::vector<WrittenFile> written;
  if (engine == Engine::none) return written;
  const std::string name = to_string(engine);
  const GridSpec& g = heights.grid;
  nlohmann::json settings = {{"engine", name},         {"width", g.width},
                             {"height", g.height},     {"spacing_m", g.spacing_m},
                             {"origin_x_m", g.x_m(0)}, {"origin_z_m", g.z_m(0)}};
  if (engine == Engine::unity) {
    const Image16 img = heights_to_image16(heights, range);
    const int tiles = unity_terrains_per_side(g);
    const int side = unity_terrain_cells(g) + 1;
    nlohmann::json files = nlohmann::json::array();
    for (int tz = 0; tz < tiles; ++tz) {
      for (int tx = 0; tx < tiles; ++tx) {
        const std::string file = tiles == 1 ? base + "_unity.r16"
                                            : base + "_unity_x" + std::to_string(tx) + "_z" +
                                                  std::to_string(tz) + ".r16";
        write_raw16(dir / file, crop(img, tx * (side - 1), tz * (side - 1), side));
        written.push_back({file, "unity_raw16"});
        files.push_back({{"path", file},
                         {"tx", tx},
                         {"tz", tz},
                         {"position_x_m", double(tx * (side - 1)) * g.spacing_m},
                         {"position_z_m", double(tz * (side - 1)) * g.spacing_m},
                         {"control_maps", (tiles == 1 ? base : file.substr(0, file.size() - 4)) +
                                              "_splat<k>.png (format splat)"}});
      }
    }
    settings["files"] = files;
    settings["heightmap_resolution"] = side;
    // One control-map texel per heightmap cell (format splat): a power of two, as Unity wants.
    settings["alphamap_resolution"] = side - 1;
    settings["byte_order"] = "Windows";
    settings["depth"] = "Bit 16";
    settings["terrain_size_x_m"] = double(side - 1) * g.spacing_m;
    settings["terrain_size_z_m"] = double(side - 1) * g.spacing_m;
    settings["terrain_height_m"] = range.height_max_m - range.height_min_m;
    settings["terrain_position_y_m"] = range.height_min_m;
  } else if (engine == Engine::unreal) {
    // Unreal reads a 16-bit value v as z = location_z + (v - 32768) / 128 * z_scale (z in cm,
    // z_scale in percent: 100 spans 512 m about the actor's Z). The preset's height range (the
    // one png16 and the sidecar use, so every map of the world shares it) goes onto all 65536
    // values: v = round((h - min) / (max - min) * 65535), the PNG16 samples themselves, hence
    // z_scale = (max - min) * 12800 / 65535 % and location_z = min + 32768 / 65535 * (max - min).
    const double span_m = range.height_max_m - range.height_min_m;
    const double z_scale = span_m * 12800.0 / 65535.0;
    const double location_z_m = range.height_min_m + 32768.0 * span_m / 65535.0;
    const Image16 img = heights_to_image16(heights, range, ctx);
    const std::string file = base + "_unreal.png";
    write_png16(dir / file, img, ctx);
    written.push_back({file, "unreal_png16"});
    settings["files"] = {{{"path", file}}};
    settings["scale_x_percent"] = g.spacing_m * 100.0;
    settings["scale_y_percent"] = g.spacing_m * 100.0;
    settings["scale_z_percent"] = z_scale;
    settings["location_z_cm"] = location_z_m * 100.0;
    settings["value_0_height_m"] = range.height_min_m;
    settings["value_65535_height_m"] = range.height_max_m;
    settings["height_m_per_value"] = span_m / 65535.0;
  } else if (engine == Engine::godot) {
    const std::string file = base + "_godot.exr";
    write_exr(dir / file, heights, ctx);
    written.push_back({file, "godot_exr"});
    settings["files"] = {{{"path", file}}};
    settings["height_scale"] = 1.0;
    settings["height_offset_m"] = 0.0;
    settings["vertex_spacing_m"] = g.spacing_m;
  }
  const std::string json_file = base + "_" + name + ".json";
  write_json(dir / json_file, settings);
  written.push_back({json_file, name + "_import_settings"});
  return written;
}

}  // namespace terrane::bake_detail
