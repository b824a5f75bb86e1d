// The C API's walking path (terrane.h): what `terrane path` does (apps/terrane/path.cpp), the
// navmesh tiles over the two points' box built on the caller's thread and its workers, then one
// NavQuery.
#include <algorithm>
#include <cmath>
#include <string>

#include "capi_internal.hpp"
#include "terrane/nav.hpp"

using namespace terrane;
using terrane::capi::guarded;
using terrane::capi::require;

extern "C" {

void terrane_nav_agent_init(terrane_nav_agent* agent) {
  if (agent == nullptr) return;
  const NavAgent defaults;
  agent->radius_m = defaults.radius_m;
  agent->height_m = defaults.height_m;
  agent->climb_m = defaults.max_climb_m;
  agent->slope_deg = defaults.max_slope_deg;
  agent->drop_m = defaults.max_drop_m;
}

terrane_status terrane_nav_path(const terrane_preset* preset, const terrane_nav_agent* agent,
                                double from_x_m, double from_z_m, double to_x_m, double to_z_m,
                                double margin_m, int32_t threads, double* points, size_t capacity,
                                size_t* count, terrane_path_result* result) {
  return guarded([&] {
    require(preset, "preset");
    require(result, "result");
    for (const double v : {from_x_m, from_z_m, to_x_m, to_z_m}) {
      if (!std::isfinite(v) || std::abs(v) > kMaxWorldCoordinate) {
        throw Error(ErrorCategory::invalid_argument,
                    "a path end point coordinate " + format_number(v) +
                        " is not finite or outside the world (|coordinate| <= 1099511627776 m)");
      }
    }
    if (!(margin_m >= 0.0 && margin_m <= 4096.0)) {
      throw Error(ErrorCategory::invalid_argument, "margin_m = " + format_number(margin_m) +
                                                       " is outside the allowed range 0..4096");
    }
    const double margin = margin_m == 0.0 ? 64.0 : margin_m;
    NavParams params;
    NavAgent a;
    if (agent != nullptr) {
      a.radius_m = agent->radius_m;
      a.height_m = agent->height_m;
      a.max_climb_m = agent->climb_m;
      a.max_slope_deg = agent->slope_deg;
      a.max_drop_m = agent->drop_m;
    }
    params.agents = {a};
    const std::shared_ptr<const ChunkGenerator>& generator = preset->generator;
    auto builder = std::make_shared<const NavTileBuilder>(make_nav_terrain(generator), params);
    const TerrainQuery terrain(generator);
    const std::array<double, 3> from{from_x_m, terrain.height_at(from_x_m, from_z_m), from_z_m};
    const std::array<double, 3> to{to_x_m, terrain.height_at(to_x_m, to_z_m), to_z_m};
    NavWorldParams wp;
    wp.threads = 1;
    NavWorld world(builder, wp);
    ExecContext ctx;
    ctx.threads = threads;
    world.build_region(std::min(from_x_m, to_x_m) - margin, std::min(from_z_m, to_z_m) - margin,
                       std::max(from_x_m, to_x_m) + margin, std::max(from_z_m, to_z_m) + margin,
                       ctx);
    const NavQuery query(world, 0);
    const NavPath path = query.path(from, to);
    const terrane_status s =
        capi::check_capacity(points, capacity, path.points.size(), count, "terrane_nav_path");
    if (s != TERRANE_OK) return s;
    for (std::size_t k = 0; k < path.points.size(); ++k) {
      points[3 * k + 0] = path.points[k][0];
      points[3 * k + 1] = path.points[k][1];
      points[3 * k + 2] = path.points[k][2];
    }
    terrane_path_result r{};
    switch (path.status) {
      case NavStatus::ok:
        r.status = TERRANE_PATH_OK;
        break;
      case NavStatus::partial:
        r.status = TERRANE_PATH_PARTIAL;
        break;
      case NavStatus::no_start:
        r.status = TERRANE_PATH_NO_START;
        break;
      case NavStatus::no_target:
        r.status = TERRANE_PATH_NO_TARGET;
        break;
      default:
        r.status = TERRANE_PATH_FAILED;
        break;
    }
    r.length_m = path.length_m;
    r.polygons = std::uint32_t(path.polys.size());
    *result = r;
    return TERRANE_OK;
  });
}

}  // extern "C"
