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
  if (s.edit_tiles > 0) {
    char edits[17];
    std::snprintf(edits, sizeof edits, "%016" PRIx64, s.edits_hash);
    j["edits"] = {{"source", s.edits_source}, {"tiles", s.edit_tiles}, {"hash", edits}};
  }
  const std::string text = j.dump(2) + "\n";
  write_file_atomic(path, std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace terrane
