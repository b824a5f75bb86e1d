// Navmesh tiles (issue 15): the pure function (terrain, params, agent, tile, origin) -> bytes,
// its input, areas, drop links, and the refusals of bad parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "nav/nav_test_terrain.hpp"
#include "terrane/nav.hpp"
#include "terrane/preset.hpp"

namespace terrane {
namespace {

using test::PeriodicTerrain;

std::shared_ptr<const NavTileBuilder> periodic_builder(NavAgent agent = {}) {
  NavParams p;
  p.agents = {agent};
  return std::make_shared<const NavTileBuilder>(std::make_shared<PeriodicTerrain>(), p);
}

TEST(NavTile, BytesDependOnlyOnTheTileWhateverTheOrderOrThread) {
  const auto builder = periodic_builder();
  std::vector<NavTileKey> keys;
  for (std::int64_t tz = -2; tz < 6; ++tz) {
    for (std::int64_t tx = -2; tx < 6; ++tx) keys.push_back({tx, tz});
  }
  const NavTileKey origin{1, 1};
  std::vector<std::vector<std::uint8_t>> alone(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    NavTile t;
    builder->build(0, keys[k], origin, t);
    alone[k] = t.data;
  }
  // Shuffled, on two threads, each reusing one NavTile for several keys.
  std::vector<std::size_t> order(keys.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  std::vector<std::vector<std::uint8_t>> mixed(keys.size());
  auto run = [&](std::size_t first) {
    NavTile t;
    for (std::size_t n = first; n < order.size(); n += 2) {
      builder->build(0, keys[order[n]], origin, t);
      mixed[order[n]] = t.data;
    }
  };
  std::thread a(run, 0), b(run, 1);
  a.join();
  b.join();
  std::size_t non_empty = 0;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    EXPECT_EQ(alone[k], mixed[k]) << "tile " << keys[k].tx << ", " << keys[k].tz;
    non_empty += alone[k].empty() ? 0 : 1;
  }
  EXPECT_EQ(non_empty, keys.size());
}

TEST(NavTile, FarFromTheWorldOriginTheBytesAreTheSameRelativeToTheirOrigin) {
  // 1e8 m is 781250 periods of 128 m: the same terrain, the same cell diagonals.
  const auto builder = periodic_builder();
  const std::int64_t far = 100000000 / 16;  // tiles of 16 m
  for (const NavTileKey key : {NavTileKey{0, 0}, NavTileKey{3, -2}, NavTileKey{-5, 7}}) {
    NavTile near_tile, far_tile;
    builder->build(0, key, NavTileKey{0, 0}, near_tile);
    builder->build(0, NavTileKey{key.tx + far, key.tz + far}, NavTileKey{far, far}, far_tile);
    EXPECT_FALSE(near_tile.data.empty());
    EXPECT_EQ(near_tile.data, far_tile.data) << key.tx << ", " << key.tz;
  }
}

TEST(NavTile, InputIsTheLevelZeroTrianglesOfTheTileAndItsBorder) {
  const auto builder = periodic_builder();
  NavTileInput in;
  builder->input(0, NavTileKey{2, 1}, NavTileKey{0, 0}, in);
  // Border: ceil(0.5 / 0.25) + 3 = 5 cells of 0.25 m.
  EXPECT_EQ(in.border_size, 5);
  EXPECT_EQ(in.width, 64 + 10);
  EXPECT_FLOAT_EQ(in.bmin[0], 32.0f - 1.25f);
  EXPECT_FLOAT_EQ(in.bmax[2], 32.0f + 1.25f);
  ASSERT_EQ(in.triangles.size(), in.areas.size() * 3);
  // Every vertex is a lattice vertex with the terrain's height; triangles cover the box.
  const std::size_t nv = in.vertices.size() / 3;
  for (std::size_t v = 0; v < nv; ++v) {
    const double x = in.vertices[v * 3], z = in.vertices[v * 3 + 2];
    const auto gi = std::int64_t(std::llround(x / 2.0)), gj = std::int64_t(std::llround(z / 2.0));
    ASSERT_EQ(double(gi) * 2.0, x);
    ASSERT_EQ(in.vertices[v * 3 + 1], PeriodicTerrain::at(gi, gj));
  }
  double area = 0.0;
  for (std::size_t t = 0; t < in.areas.size(); ++t) {
    const float* a = &in.vertices[std::size_t(in.triangles[t * 3]) * 3];
    const float* b = &in.vertices[std::size_t(in.triangles[t * 3 + 1]) * 3];
    const float* c = &in.vertices[std::size_t(in.triangles[t * 3 + 2]) * 3];
    // Counter-clockwise seen from +Y: the normal's y is positive.
    const double ny =
        double(b[2] - a[2]) * double(c[0] - a[0]) - double(b[0] - a[0]) * double(c[2] - a[2]);
    ASSERT_GT(ny, 0.0);
    area += ny * 0.5;
  }
  EXPECT_GE(area, double(in.bmax[0] - in.bmin[0]) * double(in.bmax[2] - in.bmin[2]));
}

TEST(NavTile, AreasFollowSlopeAndWaterDepth) {
  auto terrain = std::make_shared<PeriodicTerrain>();
  terrain->sea_ = 0.3;  // the waves' troughs are shallow water, the rest dry
  NavParams p;
  p.wade_depth_m = 0.2;
  NavTileBuilder builder(terrain, p);
  NavTileInput in;
  std::array<int, kNavAreaCount> count{};
  for (std::int64_t tz = 0; tz < 8; ++tz) {
    for (std::int64_t tx = 0; tx < 8; ++tx) {
      builder.input(0, NavTileKey{tx, tz}, NavTileKey{0, 0}, in);
      for (std::uint8_t a : in.areas) ++count[a];
    }
  }
  EXPECT_GT(count[0], 0);  // the mesas' cliffs
  EXPECT_GT(count[int(NavArea::ground)], 0);
  EXPECT_GT(count[int(NavArea::shallow_water)], 0);
  EXPECT_GT(count[int(NavArea::deep_water)], 0);
}

TEST(NavTile, DropLinksLeadDownTheMesaCliffsOnly) {
  NavAgent jumper;
  jumper.max_drop_m = 7.0;
  NavAgent walker;
  walker.max_drop_m = 0.0;
  const auto with = periodic_builder(jumper);
  const auto without = periodic_builder(walker);
  int links = 0;
  NavTile t;
  for (std::int64_t tz = 0; tz < 8; ++tz) {
    for (std::int64_t tx = 0; tx < 8; ++tx) {
      with->build(0, NavTileKey{tx, tz}, NavTileKey{0, 0}, t);
      links += t.off_mesh_links;
      without->build(0, NavTileKey{tx, tz}, NavTileKey{0, 0}, t);
      EXPECT_EQ(t.off_mesh_links, 0);
    }
  }
  EXPECT_GT(links, 20);
}

TEST(NavTile, WorldTerrainTilesOfTheDefaultPreset) {
  const Preset preset = load_preset("default");
  auto generator = std::make_shared<const ChunkGenerator>(preset);
  NavTileBuilder builder(make_nav_terrain(generator), NavParams{});
  NavTileInput in;
  builder.input(0, NavTileKey{0, 0}, NavTileKey{0, 0}, in);
  // Heights are the world's: the level-0 surface at the lattice vertices.
  const TerrainQuery query(generator);
  for (std::size_t v = 0; v < in.vertices.size() / 3; ++v) {
    ASSERT_EQ(double(in.vertices[v * 3 + 1]),
              query.height_at(double(in.vertices[v * 3]), double(in.vertices[v * 3 + 2])));
  }
  NavTile t;
  builder.build(0, NavTileKey{0, 0}, NavTileKey{0, 0}, t);
  EXPECT_GT(t.polygons, 0);
  EXPECT_GT(t.walkable_area_m2, 0.0);
  EXPECT_LE(t.walkable_area_m2, 16.0 * 16.0 + 1e-6);
}

void expect_refused(const NavParams& p, const std::string& needle) {
  try {
    NavTileBuilder b(std::make_shared<PeriodicTerrain>(), p);
    ADD_FAILURE() << "accepted; expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(NavTile, BadParametersAreRefusedWithPreciseErrors) {
  NavParams p;
  p.agents[0].radius_m = 5.0;  // a tile is 16 m: at most 4 m
  expect_refused(p, "radius_m = 5 is outside the allowed range [0.25, 4]");
  p = NavParams{};
  p.agents[0].max_slope_deg = 90.0;
  expect_refused(p, "max_slope_deg = 90 is outside the allowed range (0, 90)");
  p.agents[0].max_slope_deg = 0.0;
  expect_refused(p, "max_slope_deg = 0");
  p = NavParams{};
  p.detail_sample_distance = 0.5;
  expect_refused(p, "detail_sample_distance = 0.5 is outside the allowed range [0.9, 1000]");
  p = NavParams{};
  p.tile_cells = 48;  // 12 m does not divide the 128 m chunk
  expect_refused(p, "does not divide the chunk side (128 m)");
  p = NavParams{};
  p.max_tiles = 5000;
  expect_refused(p, "max_tiles = 5000 must be a power of two in 64..4096");
  p = NavParams{};
  p.agents.clear();
  expect_refused(p, "agents = 0");
  p = NavParams{};
  p.agents[0].max_climb_m = 3.0;
  expect_refused(p, "max_climb_m = 3 is outside the allowed range [0, 2]");

  const auto builder = periodic_builder();
  NavTile t;
  EXPECT_THROW(builder->build(1, NavTileKey{0, 0}, NavTileKey{0, 0}, t), Error);
  try {
    builder->build(0, NavTileKey{600, 0}, NavTileKey{0, 0}, t);  // 9.6 km from the origin
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("from the navmesh origin tile (0, 0)"), std::string::npos)
        << e.what();
  }
}

TEST(NavTile, AgentSpecsParseAndRefuseWithTheKey) {
  const NavAgent a = parse_nav_agent("radius=0.4,height=1.8,climb=0.5,slope=35,drop=2,name=dwarf");
  EXPECT_EQ(a.name, "dwarf");
  EXPECT_DOUBLE_EQ(a.radius_m, 0.4);
  EXPECT_DOUBLE_EQ(a.height_m, 1.8);
  EXPECT_DOUBLE_EQ(a.max_climb_m, 0.5);
  EXPECT_DOUBLE_EQ(a.max_slope_deg, 35.0);
  EXPECT_DOUBLE_EQ(a.max_drop_m, 2.0);
  EXPECT_DOUBLE_EQ(parse_nav_agent("slope=30").radius_m, 0.5);
  for (const auto& [spec, needle] :
       std::vector<std::pair<std::string, std::string>>{{"radius=abc", "radius = 'abc'"},
                                                        {"speed=3", "unknown key 'speed'"},
                                                        {"radius", "is not key=value"},
                                                        {"slope=1e999", "slope = '1e999'"}}) {
    try {
      parse_nav_agent(spec);
      ADD_FAILURE() << spec;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace terrane
