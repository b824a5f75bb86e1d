// Each built-in preset measured with compute_terrain_stats against the ranges real landscapes of
// its type have (issue 11's table, from the DEMs of docs/REALISM.md), at its default cell size
// and at 30 m. The full preset (graph + post operations) must be inside every range; the
// graph-only statistics (what the streamed world evaluates) are printed for the record.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "terrane/bake.hpp"
#include "terrane/stats.hpp"

namespace terrane {
namespace {

struct Bound {
  const char* what;
  Stat TerrainStats::*stat;
  double lo, hi;
};

struct Landscape {
  const char* type;
  std::vector<Bound> bounds;
};

using TS = TerrainStats;
constexpr double kAny = 1e9;

const Landscape kHills{"rolling hills",
                       {{"slope p10", &TS::slope_p10_deg, 2, 4},
                        {"slope p50", &TS::slope_p50_deg, 8, 14},
                        {"slope p90", &TS::slope_p90_deg, 19, 24},
                        {"share > 45 deg", &TS::slope_gt45, 0, 0.01},
                        {"relief 1 km", &TS::local_relief_m, 150, 210},
                        {"hypsometric integral", &TS::hypsometric_integral, 0.33, 0.40},
                        {"beta", &TS::beta, 2.9, 3.3},
                        {"drainage density", &TS::drainage_density_km_per_km2, 1.5, 2.6},
                        {"Hack h", &TS::hack_h, 0.45, 0.60},
                        {"depressions", &TS::depression_share, 0, 0.05}}};
const Landscape kMountains{"high mountains",
                           {{"slope p10", &TS::slope_p10_deg, 5, 22},
                            {"slope p50", &TS::slope_p50_deg, 22, 38},
                            {"slope p90", &TS::slope_p90_deg, 33, 50},
                            {"share > 45 deg", &TS::slope_gt45, 0, 0.22},
                            {"relief 1 km", &TS::local_relief_m, 350, 520},
                            {"hypsometric integral", &TS::hypsometric_integral, 0.33, 0.60},
                            {"beta", &TS::beta, 3.4, 4.0},
                            {"drainage density", &TS::drainage_density_km_per_km2, 1.9, 2.6},
                            {"Hack h", &TS::hack_h, 0.45, 0.60},
                            {"depressions", &TS::depression_share, 0, 0.02}}};
const Landscape kVolcanicIsland{"volcanic island land",
                                {{"slope p10", &TS::slope_p10_deg, 2, 9},
                                 {"slope p50", &TS::slope_p50_deg, 8, 22},
                                 {"slope p90", &TS::slope_p90_deg, 27, 35},
                                 {"share > 45 deg", &TS::slope_gt45, 0, 0.03},
                                 {"relief 1 km", &TS::local_relief_m, 160, 420},
                                 {"hypsometric integral", &TS::hypsometric_integral, 0.24, 0.45},
                                 {"beta", &TS::beta, 3.5, 4.4},
                                 {"drainage density", &TS::drainage_density_km_per_km2, 1.5, kAny},
                                 {"Hack h", &TS::hack_h, 0.38, 0.55},
                                 {"depressions", &TS::depression_share, 0, 0.015}}};
const Landscape kCanyons{"canyon / plateau",
                         {{"slope p10", &TS::slope_p10_deg, 2.5, 6.5},
                          {"slope p50", &TS::slope_p50_deg, 11, 23},
                          {"slope p90", &TS::slope_p90_deg, 32, 47},
                          {"share > 45 deg", &TS::slope_gt45, 0.03, 0.12},
                          {"relief 1 km", &TS::local_relief_m, 230, 410},
                          {"hypsometric integral", &TS::hypsometric_integral, 0.40, 0.50},
                          {"beta", &TS::beta, 2.6, 3.4},
                          {"drainage density", &TS::drainage_density_km_per_km2, 1.9, 2.3},
                          {"Hack h", &TS::hack_h, 0.48, 0.60},
                          {"depressions", &TS::depression_share, 0, 0.025}}};
const Landscape kDunes{"sand sea with dunes",
                       {{"slope p10", &TS::slope_p10_deg, 1, 5},
                        {"slope p50", &TS::slope_p50_deg, 5, 15},
                        {"slope p90", &TS::slope_p90_deg, 25, 34},
                        {"share > 45 deg", &TS::slope_gt45, 0, 0},
                        {"relief 1 km", &TS::local_relief_m, 10, 130},
                        {"hypsometric integral", &TS::hypsometric_integral, 0.25, 0.45},
                        {"depressions", &TS::depression_share, 0.05, 0.35}}};

TerrainStats measure(const std::string& preset, std::optional<double> cell_m, bool graph_only) {
  BakeRequest r;
  r.preset = preset;
  r.cell_m = cell_m;
  Preset resolved;
  const Field2D heights = bake_heights(r, {}, graph_only, &resolved);
  StatsParams sp;
  sp.sea_level_m = resolved.world.sea_level_m;
  return compute_terrain_stats(stats_grid(heights), sp);
}

std::string line(const TerrainStats& s, const Landscape& type) {
  std::string out;
  for (const Bound& b : type.bounds) {
    const Stat& st = s.*b.stat;
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s=%s", out.empty() ? "" : " ", b.what,
                  st.ok() ? std::to_string(*st.value).c_str() : "n/a");
    out += buf;
  }
  return out;
}

void expect_within(const std::string& preset, const Landscape& type) {
  for (const std::optional<double> cell : {std::optional<double>{}, std::optional<double>{30.0}}) {
    const std::string where = preset + (cell ? " at --cell 30" : " at its default cell size");
    const TerrainStats s = measure(preset, cell, false);
    for (const Bound& b : type.bounds) {
      const Stat& st = s.*b.stat;
      ASSERT_TRUE(st.ok()) << where << ": " << b.what << " not available: " << st.why;
      EXPECT_GE(*st.value, b.lo) << where << ": " << b.what << " (" << type.type << ")";
      EXPECT_LE(*st.value, b.hi) << where << ": " << b.what << " (" << type.type << ")";
    }
    const TerrainStats g = measure(preset, cell, true);
    std::printf("%s, graph only: %s\n", where.c_str(), line(g, type).c_str());
  }
}

TEST(PresetRealism, DefaultIsRollingHills) { expect_within("default", kHills); }
TEST(PresetRealism, AlpineIsHighMountains) { expect_within("alpine", kMountains); }
TEST(PresetRealism, RangesIsHighMountains) { expect_within("ranges", kMountains); }
TEST(PresetRealism, IslandsIsVolcanicIslandLand) { expect_within("islands", kVolcanicIsland); }
TEST(PresetRealism, CanyonsIsCanyonAndPlateau) { expect_within("canyons", kCanyons); }
TEST(PresetRealism, DunesIsASandSea) { expect_within("dunes", kDunes); }

// A preset built at a cell size far from its default still generates (erosion parameters are in
// metres); it need not look like its type there.
TEST(PresetRealism, EveryPresetGeneratesAtFineAndCoarseCells) {
  for (const std::string& name : builtin_preset_names()) {
    for (const double cell : {5.0, 100.0}) {
      BakeRequest r;
      r.preset = name;
      r.cell_m = cell;
      r.size = 129;
      EXPECT_NO_THROW((void)bake_heights(r)) << name << " --cell " << cell;
    }
  }
}

}  // namespace
}  // namespace terrane
