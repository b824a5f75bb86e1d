// JSON manifest of a tiled mesh export (NAME_tiles.json). Its keys never reuse a name of the
// sidecar NAME.json with another meaning: a key found in both (spacing_m, origin_x_m, origin_z_m,
// terrane_version) holds the same value; the rest are named for what they are (README, "Output
// files").
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "terrane/io.hpp"
#include "terrane/mesh.hpp"
#include "terrane/schema.hpp"

namespace terrane {

void write_tile_manifest(const std::filesystem::path& path, const TileManifest& m) {
  if (m.tiles < 1 || m.tile_cells_x < 1 || m.tile_cells_z < 1 ||
      !(std::isfinite(m.spacing_m) && m.spacing_m > 0.0)) {
    throw Error(ErrorCategory::invalid_argument,
                path.string() + ": manifest tiles " + std::to_string(m.tiles) + ", tile cells " +
                    std::to_string(m.tile_cells_x) + " x " + std::to_string(m.tile_cells_z) +
                    ", spacing " + format_number(m.spacing_m) + " m: all must be positive");
  }
  nlohmann::json files = nlohmann::json::array();
  for (const TileManifestEntry& e : m.tile_files) {
    files.push_back({{"tx", e.tx},
                     {"tz", e.tz},
                     {"tile_origin_x_m", e.tile_origin_x_m},
                     {"tile_origin_z_m", e.tile_origin_z_m},
                     {"path", e.path},
                     {"format", e.format},
                     {"triangles", e.triangles}});
  }
  const nlohmann::json doc = {
      {"tiles", m.tiles},
      {"tile_cells_x", m.tile_cells_x},
      {"tile_cells_z", m.tile_cells_z},
      {"tile_size_x_m", double(m.tile_cells_x) * m.spacing_m},
      {"tile_size_z_m", double(m.tile_cells_z) * m.spacing_m},
      {"lod", m.lod},
      {"spacing_m", m.spacing_m},
      {"origin_x_m", m.origin_x_m},
      {"origin_z_m", m.origin_z_m},
      {"mesh_height_min_m", m.mesh_height_min_m},
      {"mesh_height_max_m", m.mesh_height_max_m},
      {"simplify_error_m", m.simplify_error_m},
      {"tile_files", files},
      {"terrane_version", terrane_version()},
  };
  const std::string text = doc.dump(2) + "\n";
  write_file_atomic(path, std::as_bytes(std::span<const char>(text.data(), text.size())));
}

}  // namespace terrane
