// terrain_stats_json(): the statistics as one JSON line, keyed like the reference measurements
// of real DEMs (docs/REALISM.md).
#include <cmath>
#include <cstdio>

#include "stats/stats_internal.hpp"
#include "terrane/stats.hpp"

namespace terrane {
namespace {

std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string pair(double a, double b) {
  std::string out = "[";
  out += number(a);
  out += ", ";
  out += number(b);
  out += "]";
  return out;
}

class Writer {
 public:
  void raw(std::string_view key, const std::string& value) {
    out_ += (out_.empty() ? "{" : ", ") + json_string(key) + ": " + value;
  }
  void num(std::string_view key, double v) { raw(key, number(v)); }
  void stat(std::string_view key, const Stat& s, double scale = 1.0) {
    raw(key, s.ok() ? number(*s.value * scale) : "null");
    if (!s.ok()) why_ += (why_.empty() ? "" : ", ") + json_string(key) + ": " + json_string(s.why);
  }
  std::string finish() {
    raw("why", "{" + why_ + "}");
    return out_ + "}";
  }

 private:
  std::string out_, why_;
};

}  // namespace

std::string terrain_stats_json(const TerrainStats& s, std::string_view name) {
  Writer w;
  if (!name.empty()) w.raw("name", json_string(name));
  w.num("rows", s.height);
  w.num("cols", s.width);
  w.num("cell_size_m", s.cell_x_m);
  if (s.cell_z_m != s.cell_x_m) w.num("cell_size_y_m", s.cell_z_m);
  w.raw("sea_level_m", s.sea_level_m ? number(*s.sea_level_m) : "null");
  w.num("land_fraction", s.land_fraction);
  w.num("height_min_m", s.height_min_m);
  w.num("height_max_m", s.height_max_m);
  w.stat("slope_p10_deg", s.slope_p10_deg);
  w.stat("slope_p50_deg", s.slope_p50_deg);
  w.stat("slope_p90_deg", s.slope_p90_deg);
  w.stat("slope_lt15", s.slope_lt15);
  w.stat("slope_lt30", s.slope_lt30);
  w.stat("slope_gt45", s.slope_gt45);
  w.stat("walkable_share", s.walkable_share);
  w.num("agent_slope_deg", s.agent_slope_deg);
  w.stat("hypsometric_integral", s.hypsometric_integral);
  w.stat("local_relief_1km_m", s.local_relief_m);
  w.raw("relief_window_m", pair(s.relief_window_x_m, s.relief_window_z_m));
  w.stat("beta", s.beta);
  w.stat("beta_profile", s.beta_profile);
  w.raw("beta_fit_wavelength_m", pair(s.beta_fit_min_m, s.beta_fit_max_m));
  w.stat("drainage_density_km_per_km2", s.drainage_density_km_per_km2);
  w.num("channel_cells", double(s.channel_cells));
  w.stat("hack_h", s.hack_h);
  w.num("hack_bins", double(s.hack_area_m2.size()));
  w.num("max_drainage_area_km2", s.max_drainage_area_m2 * 1e-6);
  w.stat("depression_share_gt1m", s.depression_share);
  w.stat("pit_share_any", s.pit_share);
  w.num("max_depression_depth_m", s.max_depression_depth_m);
  w.num("nodata_cells", double(s.nodata_cells));
  w.num("elapsed_s", s.elapsed_s);
  return w.finish();
}

}  // namespace terrane
