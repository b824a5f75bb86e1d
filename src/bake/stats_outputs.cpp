// The stats output of a bake (--formats stats): <base>_stats.json, the JSON line of
// `terrane stats --json` (terrain_stats_json) plus the surface stage's shares when it ran, and
// <base>_stats.png, the chart sheet (render_stats_charts). Land is above the preset's sea level.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>

#include "bake/bake_internal.hpp"
#include "terrane/stats.hpp"

namespace terrane::bake_detail {

namespace fs = std::filesystem;

std::vector<WrittenFile> write_stats_outputs(const Field2D& heights, const Preset& preset,
                                             const SurfaceSummary& surface, const ExecContext& ctx,
                                             const fs::path& dir, const std::string& base) {
  StatsParams params;
  params.sea_level_m = preset.world.sea_level_m;
  const TerrainStats stats = compute_terrain_stats(stats_grid(heights), params, ctx);
  auto doc = nlohmann::ordered_json::parse(terrain_stats_json(stats, base));
  doc.erase("elapsed_s");  // the file's bytes depend only on the request
  auto add = [&doc](const char* key, const std::vector<std::pair<std::string, double>>& values) {
    if (values.empty()) return;
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (const auto& [name, v] : values) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", v);  // as the statistics: 6 significant digits
      obj[name] = std::strtod(buf, nullptr);
    }
    doc[key] = std::move(obj);
  };
  add("biome_shares", surface.biome_shares);
  add("splat_layer_shares", surface.splat_shares);
  add("scatter_per_km2", surface.scatter_per_km2);
  const std::string text = doc.dump() + "\n";
  const std::string json_name = base + "_stats.json", png_name = base + "_stats.png";
  write_file_atomic(dir / json_name,
                    std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()));
  const ChartImage chart = render_stats_charts(stats, preset.name.empty() ? base : preset.name);
  write_png8(dir / png_name, chart.width, chart.height, 3, chart.rgb, ctx);
  return {{json_name, "stats_json"}, {png_name, "stats_png"}};
}

}  // namespace terrane::bake_detail
