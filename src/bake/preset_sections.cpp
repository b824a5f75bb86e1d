// The preset's post list and surface section as bake reads them. These are the only uses of
// Preset::post_json, parse_region_ops() and parse_surface() in the bake module: when the preset
// is parsed once into typed sections (Preset::post, Preset::surface), each function below
// becomes a one-liner over those fields (the erode override can read "post" from
// Preset::canonical_json, which keeps the preset hash as it is).
#include <nlohmann/json.hpp>

#include "bake/bake_internal.hpp"

namespace terrane::bake_detail {

std::string erode_override(const Preset& preset, std::span<const RegionOpKind> kinds) {
  nlohmann::json post = nlohmann::json::parse(preset.post_json);  // an array (parse_preset)
  for (const RegionOpKind kind : kinds) {
    if (kind == RegionOpKind::graph) {
      throw Error(ErrorCategory::invalid_argument,
                  "--erode: 'graph' has no default (it needs its nodes); add {\"op\": \"graph\", "
                  "\"output\": ..., \"nodes\": {...}} to the preset's post list instead (see "
                  "docs/PRESETS.md); --erode accepts thermal, droplets, stream_power, blur");
    }
    post.push_back({{"op", to_string(kind)}});
  }
  return "post=" + post.dump();
}

std::vector<RegionOp> preset_post_ops(const Preset& preset) {
  return parse_region_ops(preset);
}

SurfaceParams preset_surface(const Preset& preset) {
  return parse_surface(preset);
}

}  // namespace terrane::bake_detail
