// JSON sidecar describing an export (docs/DESIGN.md §3: the metres <-> integer mapping, grid and
// provenance travel with the files).
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "io/io_internal.hpp"
#include "terrane/io.hpp"

#ifndef TERRANE_VERSION_STRING
#error "TERRANE_VERSION_STRING must be defined by the build (src/io/CMakeLists.txt)"
#endif

namespace terrane {

const char* terrane_version() {
  return TERRANE_VERSION_STRING;
}

void write_sidecar_json(const std::filesystem::path& path, const Sidecar& s) {
  GridSpec{.width = s.width,
           .height = s.height,
           .spacing_m = s.spacing_m,
           .origin_x_m = s.origin_x_m,
           .origin_z_m = s.origin_z_m}
      .validate(path.string() + ": sidecar grid");
  s.range.validate(path.string() + ": sidecar height range");
  if (!std::isfinite(s.sea_level_m)) {
    throw io_detail::file_error(ErrorCategory::invalid_argument, path,
                                "sea_level_m must be finite");
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, s.preset_hash);
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : s.files) files.push_back({{"path", f.path}, {"format", f.format}});
  nlohmann::json j = {{"width", s.width},
                      {"height", s.height},
                      {"spacing_m", s.spacing_m},
                      {"origin_x_m", s.origin_x_m},
                      {"origin_z_m", s.origin_z_m},
                      {"height_min_m", s.range.height_min_m},
                      {"height_max_m", s.range.height_max_m},
                      {"sea_level_m", s.sea_level_m},
                      {"seed", s.seed},
                      {"preset", s.preset},
                      {"preset_hash", hash},
                      {"files", files},
                      {"terrane_version", terrane_version()}};
  if (!s.warnings.empty()) j["warnings"] = s.warnings;
  if (s.edit_tiles > 0 || s.instance_chunks > 0 || s.paint_tiles > 0) {
    const auto hex = [](std::uint64_t v) {
      char buf[17];
      std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
      return std::string(buf);
    };
    nlohmann::json e = {{"source", s.edits_source}};
    if (s.edit_tiles > 0) {
      e["tiles"] = s.edit_tiles;
      e["hash"] = hex(s.edits_hash);
    }
    if (s.instance_chunks > 0) {
      e["instance_chunks"] = s.instance_chunks;
      e["instance_overrides"] = s.instance_overrides;
      e["instance_hash"] = hex(s.instance_hash);
    }
    if (s.paint_tiles > 0) {
      e["paint_tiles"] = s.paint_tiles;
      e["paint_hash"] = hex(s.paint_hash);
    }
    j["edits"] = e;
  }
  const std::string text = j.dump(2) + "\n";
  write_file_atomic(path, std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace terrane
