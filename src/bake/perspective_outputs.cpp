// The perspective output of a bake (format perspective): <base>_perspective.png, the map seen
// by the request's camera (or the automatic one) with the preset's palette, sea level and the
// hydrology's lakes and rivers (terrane/stats.hpp).
#include "bake/bake_internal.hpp"

namespace terrane::bake_detail {

PerspectivePlan plan_perspective(const BakeRequest& request, const Preset& preset) {
  PerspectivePlan plan;
  plan.on = request.formats.count(OutputFormat::perspective) != 0U;
  const bool default_size = request.perspective_width == 1280 && request.perspective_height == 720;
  if (!plan.on) {
    if (!default_size || request.camera) {
      throw Error(ErrorCategory::invalid_argument,
                  std::string(request.camera ? "--camera" : "--perspective-size") +
                      " needs the perspective output (--formats ...,perspective)");
    }
    return plan;
  }
  PerspectiveParams& p = plan.params;
  p.width = request.perspective_width;
  p.height = request.perspective_height;
  const auto side = [](int v, const char* what) {
    if (v < kMinPerspectiveSide || v > kMaxPerspectiveSide) {
      throw Error(ErrorCategory::invalid_argument,
                  std::string("--perspective-size: ") + what + " " + std::to_string(v) +
                      " is outside the allowed range " + std::to_string(kMinPerspectiveSide) +
                      ".." + std::to_string(kMaxPerspectiveSide));
    }
  };
  side(p.width, "width");
  side(p.height, "height");
  if (request.camera) {
    try {
      request.camera->validate();
    } catch (const Error& e) {
      throw Error(e.category(), std::string("--camera: ") + e.what());
    }
    p.camera = request.camera;
  }
  p.palette.palette = parse_preview_palette(preset.world.preview_palette);
  p.palette.range = HeightRange{preset.world.height_min_m, preset.world.height_max_m};
  p.palette.sea_level_m = preset.world.sea_level_m;
  p.validate();
  return plan;
}

std::vector<WrittenFile> write_perspective(const PerspectivePlan& plan, const Field2D& heights,
                                           const Hydrology* hydro, const ExecContext& ctx,
                                           const std::filesystem::path& dir,
                                           const std::string& base) {
  if (!plan.on) return {};
  PerspectiveScene scene;
  scene.heights = &heights;
  if (hydro != nullptr) scene.water = PreviewWater{hydro->water_level_m.data, hydro->river};
  const std::string file = base + "_perspective.png";
  write_perspective_png(dir / file, scene, plan.params, ctx);
  return {{file, "perspective_png"}};
}

}  // namespace terrane::bake_detail
