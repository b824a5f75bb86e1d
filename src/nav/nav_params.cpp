// Agents and navmesh parameters: parsing and validation against Recast's limits.
#include <bit>
#include <charconv>
#include <cmath>
#include <string>

#include "terrane/nav.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

[[noreturn]] void bad(const std::string& what, double value, const std::string& why) {
  throw Error(ErrorCategory::invalid_argument,
              "nav: " + what + " = " + format_number(value) + " " + why);
}

void check_range(const std::string& what, double v, double lo, double hi, bool lo_open,
                 bool hi_open) {
  const bool ok = std::isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (!ok) {
    bad(what, v,
        std::string("is outside the allowed range ") + (lo_open ? "(" : "[") + format_number(lo) +
            ", " + format_number(hi) + (hi_open ? ")" : "]"));
  }
}

}  // namespace

const char* to_string(NavArea area) {
  switch (area) {
    case NavArea::ground:
      return "ground";
    case NavArea::steep:
      return "steep";
    case NavArea::shallow_water:
      return "shallow_water";
    case NavArea::deep_water:
      return "deep_water";
    case NavArea::road:
      return "road";
  }
  return "unknown";
}

const char* to_string(NavStatus status) {
  switch (status) {
    case NavStatus::ok:
      return "ok";
    case NavStatus::partial:
      return "partial";
    case NavStatus::no_start:
      return "no_start";
    case NavStatus::no_target:
      return "no_target";
    case NavStatus::not_loaded:
      return "not_loaded";
    case NavStatus::corridor_removed:
      return "corridor_removed";
    case NavStatus::out_of_range:
      return "out_of_range";
    case NavStatus::failed:
      return "failed";
  }
  return "unknown";
}

NavAgent parse_nav_agent(std::string_view spec, const NavAgent& base) {
  NavAgent a = base;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', pos), spec.size());
    const std::string_view item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) {
      if (end >= spec.size()) break;
      continue;
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw Error(ErrorCategory::invalid_argument, "nav agent: '" + std::string(item) +
                                                       "' is not key=value (keys: name, radius, " +
                                                       "height, climb, slope, drop)");
    }
    const std::string key(item.substr(0, eq));
    const std::string_view text = item.substr(eq + 1);
    if (key == "name") {
      if (text.empty()) throw Error(ErrorCategory::invalid_argument, "nav agent: empty name");
      a.name = std::string(text);
      continue;
    }
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) {
      throw Error(ErrorCategory::invalid_argument,
                  "nav agent: " + key + " = '" + std::string(text) + "' is not a number");
    }
    if (key == "radius") {
      a.radius_m = v;
    } else if (key == "height") {
      a.height_m = v;
    } else if (key == "climb") {
      a.max_climb_m = v;
    } else if (key == "slope") {
      a.max_slope_deg = v;
    } else if (key == "drop") {
      a.max_drop_m = v;
    } else {
      throw Error(
          ErrorCategory::invalid_argument,
          "nav agent: unknown key '" + key + "' (keys: name, radius, height, climb, slope, drop)");
    }
  }
  return a;
}

void NavParams::validate(const NavTerrain& terrain) const {
  check_range("cell_size_m", cell_size_m, 0.0, 100.0, true, false);
  check_range("cell_height_m", cell_height_m, 0.0, 100.0, true, false);
  check_range("tile_cells", double(tile_cells), 16.0, 512.0, false, false);
  check_range("steep_slope_deg", steep_slope_deg, 0.0, 90.0, true, true);
  check_range("wade_depth_m", wade_depth_m, 0.0, 1e4, false, false);
  check_range("max_edge_length_m", max_edge_length_m, 0.0, 1e4, false, false);
  check_range("max_simplification_error", max_simplification_error, 0.0, 100.0, false, false);
  check_range("min_region_cells", double(min_region_cells), 0.0, 1e8, false, false);
  check_range("merge_region_cells", double(merge_region_cells), 0.0, 1e8, false, false);
  if (detail_sample_distance != 0.0) {
    // Recast's rcBuildPolyMeshDetail divides by the sample distance and crashes below ~0.9
    // cells (its sample grid outgrows its fixed buffers).
    check_range("detail_sample_distance", detail_sample_distance, 0.9, 1000.0, false, false);
  }
  check_range("detail_max_error_m", detail_max_error_m, 0.0, 1e4, false, false);
  if (max_tiles < 64 || max_tiles > 4096 || !std::has_single_bit(unsigned(max_tiles))) {
    bad("max_tiles", double(max_tiles),
        "must be a power of two in 64..4096 (12 tile bits of a 32-bit poly ref)");
  }
  if (agents.empty() || agents.size() > 16) {
    bad("agents", double(agents.size()), "must be 1..16 agents");
  }
  const double side = tile_size_m();
  for (std::size_t k = 0; k < agents.size(); ++k) {
    const NavAgent& a = agents[k];
    const std::string p = "agents[" + std::to_string(k) + "] ('" + a.name + "').";
    check_range(p + "radius_m", a.radius_m, cell_size_m, side / 4.0, false, false);
    check_range(p + "height_m", a.height_m, 3.0 * cell_height_m, 1000.0, false, false);
    check_range(p + "max_climb_m", a.max_climb_m, 0.0, a.height_m, false, false);
    check_range(p + "max_slope_deg", a.max_slope_deg, 0.0, 90.0, true, true);
    check_range(p + "max_drop_m", a.max_drop_m, 0.0, 50.0, false, false);
    if (a.height_m / cell_height_m > 8000.0) {
      bad(p + "height_m", a.height_m, "is more than 8000 cell heights (Recast's 13-bit spans)");
    }
  }
  // Tiles must tile the chunks: chunk side / tile side a whole number (exact in double for
  // power-of-two ratios; otherwise within 1e-9 relative).
  const double chunk = double(terrain.chunk_cells()) * terrain.cell_size_m();
  const double ratio = chunk / side;
  if (std::abs(ratio - std::round(ratio)) > 1e-9 * ratio || std::round(ratio) < 1.0) {
    throw Error(ErrorCategory::invalid_argument,
                "nav: the tile side (tile_cells " + std::to_string(tile_cells) + " x cell_size_m " +
                    format_number(cell_size_m) + " = " + format_number(side) +
                    " m) does not divide the chunk side (" + format_number(chunk) + " m)");
  }
}

void NavWorldParams::validate() const {
  check_range("radius_m", radius_m, 0.0, 2048.0, true, false);
  check_range("hysteresis", hysteresis, 0.0, 1.0, false, false);
  check_range("lookahead_s", lookahead_s, 0.0, 10.0, false, false);
  if (budget_bytes < (std::size_t{1} << 20)) {
    bad("budget_bytes", double(budget_bytes), "is below the minimum of 1 MiB");
  }
  check_range("threads", double(threads), 0.0, 256.0, false, false);
  const double most = kNavMaxOriginDistance - radius_m * (1.0 + hysteresis);
  if (!(recentre_distance_m > 0.0) || !(recentre_distance_m <= most)) {
    bad("recentre_distance_m", recentre_distance_m,
        "is outside (0, " + format_number(most) +
            "]: kNavMaxOriginDistance minus the radius with its hysteresis");
  }
}

}  // namespace terrane
