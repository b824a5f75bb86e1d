// The streamed navmesh (issue 15): tiles around points, eviction, budget, invalidate() and
// rebuilds in place, build_region's limits, re-centring and far-origin paths.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "nav/nav_test_terrain.hpp"
#include "terrane/edit.hpp"
#include "terrane/nav.hpp"
#include "terrane/preset.hpp"

namespace terrane {
namespace {

using test::PeriodicTerrain;

std::shared_ptr<const NavTileBuilder> periodic_builder() {
  return std::make_shared<const NavTileBuilder>(std::make_shared<PeriodicTerrain>(), NavParams{});
}

using KeySet = std::set<std::pair<std::int64_t, std::int64_t>>;

KeySet loaded_set(const NavWorld& w) {
  KeySet s;
  for (const NavTileKey& k : w.loaded_tiles(0)) s.insert({k.tx, k.tz});
  return s;
}

// update + poll until nothing is missing or in flight (at most 60 s).
void settle(NavWorld& w) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    w.update();
    w.poll(PollBudget{SIZE_MAX, 1e9});
    const NavWorldStats s = w.stats();
    if (s.holes == 0 && s.queued == 0 && s.running == 0 && w.pending_rebuilds() == 0) return;
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "did not settle";
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(NavWorld, StreamsExactlyTheTilesWithinTheRadiusAndEvictsBeyondHysteresis) {
  NavWorldParams wp;
  wp.radius_m = 40.0;
  wp.threads = 2;
  NavWorld world(periodic_builder(), wp);
  Viewer v;
  v.x_m = 5.0;
  v.z_m = 9.0;
  world.set_points(std::span(&v, 1));
  settle(world);
  KeySet want;
  for (std::int64_t tz = -4; tz <= 4; ++tz) {
    for (std::int64_t tx = -4; tx <= 4; ++tx) {
      const double dx = std::max({double(tx) * 16.0 - v.x_m, 0.0, v.x_m - double(tx + 1) * 16.0});
      const double dz = std::max({double(tz) * 16.0 - v.z_m, 0.0, v.z_m - double(tz + 1) * 16.0});
      if (std::hypot(dx, dz) <= wp.radius_m) want.insert({tx, tz});
    }
  }
  EXPECT_EQ(loaded_set(world), want);
  EXPECT_EQ(world.stats().holes, 0u);
  EXPECT_EQ(world.stats().loaded, want.size());

  // 30 m east: tiles within 50 m (the hysteresis) stay, the rest go.
  v.x_m += 30.0;
  world.set_points(std::span(&v, 1));
  settle(world);
  std::size_t removed = 0;
  for (const NavTileEvent& e : world.events()) removed += e.kind == NavEventKind::removed ? 1 : 0;
  for (const auto& [tx, tz] : loaded_set(world)) {
    const double dx = std::max({double(tx) * 16.0 - v.x_m, 0.0, v.x_m - double(tx + 1) * 16.0});
    const double dz = std::max({double(tz) * 16.0 - v.z_m, 0.0, v.z_m - double(tz + 1) * 16.0});
    EXPECT_LE(std::hypot(dx, dz), wp.radius_m * (1.0 + wp.hysteresis));
  }
  EXPECT_GT(world.stats().removed, 0u);
  (void)removed;
}

TEST(NavWorld, InvalidateRebuildsExactlyTheTilesItTouchesInPlace) {
  NavWorldParams wp;
  wp.threads = 2;
  NavWorld world(periodic_builder(), wp);
  world.build_region(0.0, 0.0, 64.0, 64.0);
  ASSERT_EQ(world.loaded_tiles(0).size(), 16u);
  NavQuery query(world);
  const NavPath before = query.path({4.0, 0.0, 4.0}, {60.0, 0.0, 6.0});
  ASSERT_EQ(before.status, NavStatus::ok);

  // A 17.5 m x 6 m box: tiles whose square plus the 1.25 m border overlaps it.
  const double x0 = 14.0, z0 = 14.0, x1 = 31.5, z1 = 20.0;
  KeySet expected;
  for (std::int64_t tz = 0; tz < 4; ++tz) {
    for (std::int64_t tx = 0; tx < 4; ++tx) {
      const double b = 1.25;
      if (double(tx) * 16 - b < x1 && x0 < double(tx + 1) * 16 + b && double(tz) * 16 - b < z1 &&
          z0 < double(tz + 1) * 16 + b) {
        expected.insert({tx, tz});
      }
    }
  }
  ASSERT_EQ(expected.size(), 6u);
  world.update();  // starts a new list of events (no points: the region's tiles stay)
  EXPECT_EQ(world.invalidate(x0, z0, x1, z1), expected.size());
  EXPECT_EQ(world.pending_rebuilds(), expected.size());
  // The old tiles serve until the new ones are in: the tiles stay loaded meanwhile.
  EXPECT_EQ(world.loaded_tiles(0).size(), 16u);
  KeySet added;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (world.pending_rebuilds() > 0) {
    world.poll(PollBudget{SIZE_MAX, 1e9});
    for (const NavTileEvent& e : world.events()) {
      if (e.kind == NavEventKind::added) added.insert({e.key.tx, e.key.tz});
    }
    ASSERT_LT(std::chrono::steady_clock::now(), give_up);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // poll() appends to the events of the last update(): collect them all.
  added.clear();
  for (const NavTileEvent& e : world.events()) {
    if (e.kind == NavEventKind::added) added.insert({e.key.tx, e.key.tz});
  }
  EXPECT_EQ(added, expected);
  EXPECT_EQ(world.stats().rebuilt, expected.size());
  EXPECT_EQ(world.loaded_tiles(0).size(), 16u);
  // The same terrain: the path is the same after the rebuild.
  const NavPath after = query.path({4.0, 0.0, 4.0}, {60.0, 0.0, 6.0});
  EXPECT_EQ(after.points, before.points);
  // Rebuilt tiles got new poly refs: the old corridor reports the removal.
  std::size_t first = 99;
  EXPECT_EQ(query.check(before, &first), NavStatus::corridor_removed);
  EXPECT_LT(first, before.polys.size());
  EXPECT_EQ(query.check(after), NavStatus::ok);
}

TEST(NavWorld, PathsFarFromTheWorldOriginEqualThePathsNearItTranslated) {
  // 1e8 m is a whole number of the terrain's 128 m periods.
  const double off = 1.0e8;
  NavWorldParams wp;
  wp.threads = 2;
  NavWorld near_world(periodic_builder(), wp), far_world(periodic_builder(), wp);
  near_world.build_region(0.0, 0.0, 128.0, 128.0);
  far_world.build_region(off, off, off + 128.0, off + 128.0);
  EXPECT_EQ(far_world.origin_x_m() - near_world.origin_x_m(), off);
  NavQuery nq(near_world), fq(far_world);
  int compared = 0;
  for (const auto& [a, b] : std::vector<std::pair<std::array<double, 3>, std::array<double, 3>>>{
           {{4, 0, 4}, {120, 0, 100}}, {{100, 0, 10}, {10, 0, 110}}, {{64, 0, 64}, {3, 0, 90}}}) {
    const NavPath np = nq.path(a, b);
    const NavPath fp = fq.path({a[0] + off, a[1], a[2] + off}, {b[0] + off, b[1], b[2] + off});
    ASSERT_EQ(np.status, fp.status);
    ASSERT_EQ(np.points.size(), fp.points.size());
    for (std::size_t i = 0; i < np.points.size(); ++i) {
      EXPECT_EQ(fp.points[i][0] - off, np.points[i][0]);
      EXPECT_EQ(fp.points[i][1], np.points[i][1]);
      EXPECT_EQ(fp.points[i][2] - off, np.points[i][2]);
    }
    EXPECT_EQ(np.length_m, fp.length_m);
    compared += np.status == NavStatus::ok ? 1 : 0;
  }
  EXPECT_GE(compared, 2);
}

TEST(NavWorld, RecentresWhenThePointTravelsFarAndReportsOldPaths) {
  NavWorldParams wp;
  wp.radius_m = 24.0;
  wp.recentre_distance_m = 200.0;
  wp.threads = 2;
  NavWorld world(periodic_builder(), wp);
  Viewer v;
  world.set_points(std::span(&v, 1));
  settle(world);
  NavQuery query(world);
  const NavPath p = query.path({1, 0, 1}, {20, 0, 3});
  ASSERT_EQ(p.status, NavStatus::ok);
  const std::uint64_t epoch = world.epoch();
  v.x_m = 1000.0;
  world.set_points(std::span(&v, 1));
  settle(world);
  EXPECT_EQ(world.epoch(), epoch + 1);
  EXPECT_EQ(world.stats().recentres, 1u);
  EXPECT_EQ(world.origin_x_m(), 992.0);  // the tile under the point: 62 * 16 m
  EXPECT_EQ(query.check(p), NavStatus::corridor_removed);
  const NavPath q = query.path({1001, 0, 1}, {1020, 0, 3});
  EXPECT_EQ(q.status, NavStatus::ok);
  EXPECT_EQ(query.path({1, 0, 1}, {20, 0, 3}).status, NavStatus::not_loaded);
}

TEST(NavWorld, TheBudgetHoldsBackTheFarthestTiles) {
  NavWorldParams wp;
  wp.radius_m = 64.0;
  wp.threads = 1;
  wp.budget_bytes = std::size_t{1} << 20;
  NavWorld world(periodic_builder(), wp);
  Viewer v;
  world.set_points(std::span(&v, 1));
  world.update();
  const NavWorldStats s = world.stats();
  // 1 MiB at the first estimate of 32 KiB a tile: 32 tiles in flight of the wanted ones.
  EXPECT_GT(s.wanted, 32u);
  EXPECT_LE(s.queued + s.running, 32u);
  EXPECT_EQ(s.holes, s.wanted);
}

TEST(NavWorld, RegionsOverTheTileLimitAndBadParamsAreRefused) {
  NavWorld world(periodic_builder(), NavWorldParams{});
  try {
    world.build_region(0.0, 0.0, 2048.0, 2048.0);  // 16384 tiles
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::limit);
    EXPECT_NE(std::string(e.what()).find("needs 16384 tiles of 16 m per agent; at most "
                                         "max_tiles = 4096"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(world.build_region(0.0, 0.0, 0.0, 10.0), Error);
  NavWorldParams bad;
  bad.radius_m = -1.0;
  EXPECT_THROW(NavWorld(periodic_builder(), bad), Error);
  bad = NavWorldParams{};
  bad.recentre_distance_m = 9000.0;
  EXPECT_THROW(NavWorld(periodic_builder(), bad), Error);
  bad = NavWorldParams{};
  bad.radius_m = 2000.0;  // 250 x 250 tiles around a point: refused once points stream
  NavWorld tool(periodic_builder(), bad);
  tool.build_region(0.0, 0.0, 32.0, 32.0);  // a tool that never streams is not bothered
  EXPECT_EQ(tool.loaded_tiles(0).size(), 4u);
  try {
    Viewer v;
    tool.set_points(std::span(&v, 1));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("max_tiles is 4096"), std::string::npos) << e.what();
  }
}

// Height edits (issue 16): a bump raised on the default world with EditedNavTerrain and
// invalidate(edited_area_m(...)) rebuilds exactly the tiles whose rasterised area reaches the
// cells around the stroke, each as a fresh build on the edited terrain makes it (polygons,
// walkable area), the others untouched; undo brings the first tiles back.
// poll until every invalidated tile is in place again (at most 60 s); no update(), so the
// pinned region stays as it is.
void rebuild(NavWorld& w) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (w.pending_rebuilds() > 0) {
    w.poll(PollBudget{SIZE_MAX, 1e9});
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "did not rebuild";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(NavWorld, EditedTerrainRebuildsTheTilesTheStrokeReaches) {
  auto generator = std::make_shared<const ChunkGenerator>(load_preset("default"));
  auto terrain = std::make_shared<EditedNavTerrain>(generator);
  auto builder = std::make_shared<const NavTileBuilder>(terrain, NavParams{});
  NavWorldParams wp;
  wp.threads = 2;
  NavWorld world(builder, wp);
  // A region much wider than a cell of the world (30 m in `default`), so that some tiles lie
  // beyond the cells around the stroke.
  world.build_region(0.0, 0.0, 192.0, 192.0);
  // What a tile's build produced (Detour writes its links into the loaded bytes, so those are
  // not compared).
  using Summary = std::pair<int, double>;  // polygons, walkable area
  auto tiles = [&] {
    std::map<std::pair<std::int64_t, std::int64_t>, Summary> m;
    for (const NavTileKey& k : world.loaded_tiles(0)) {
      const NavTile* t = world.tile(0, k);
      m[{k.tx, k.tz}] = {t->polygons, t->walkable_area_m2};
    }
    return m;
  };
  const auto before = tiles();
  ASSERT_EQ(before.size(), 144u);

  const double cell = generator->cell_size_m();
  HeightEdits edits(cell, generator->settings().cells);
  HeightBrush b;
  b.kind = BrushKind::raise;  // a 40 m bump over the vertex at (3, 3) cells
  b.x_m = 3.0 * cell, b.z_m = 3.0 * cell, b.radius_m = 1.5 * cell, b.strength_m = 40.0;
  const LatticeRect r = edits.apply(b, generator->graph());
  ASSERT_FALSE(r.empty());
  terrain->set_edits(edits.snapshot());
  const std::array<double, 4> box = edited_area_m(r, cell);
  world.update();
  const std::size_t marked = world.invalidate(box[0], box[1], box[2], box[3]);
  EXPECT_GT(marked, 0u);
  EXPECT_LT(marked, before.size());
  rebuild(world);
  const auto after = tiles();
  ASSERT_EQ(after.size(), before.size());
  const double border = 0.5 + 3.0 * 0.25;  // agent radius + 3 cells (NavTileBuilder's border)
  std::size_t changed = 0, reached_count = 0;
  for (const auto& [key, summary] : after) {
    const double x0 = double(key.first) * 16.0 - border, x1 = double(key.first + 1) * 16.0 + border;
    const double z0 = double(key.second) * 16.0 - border,
                 z1 = double(key.second + 1) * 16.0 + border;
    const bool reached = !(x1 <= box[0] || box[2] <= x0 || z1 <= box[1] || box[3] <= z0);
    NavTile fresh;
    builder->build(0, NavTileKey{key.first, key.second}, world.origin(), fresh);
    EXPECT_EQ(summary, Summary(fresh.polygons, fresh.walkable_area_m2))
        << key.first << ", " << key.second;
    if (!reached) {
      EXPECT_EQ(summary, before.at(key)) << key.first << ", " << key.second;
    } else {
      ++reached_count;
      changed += summary != before.at(key);
    }
  }
  EXPECT_EQ(reached_count, marked);
  EXPECT_GT(changed, 0u);
  // The surface the tiles were built from is the edited one.
  const TerrainQuery edited_query(generator, edits.snapshot()), base_query(generator);
  EXPECT_NEAR(edited_query.height_at(b.x_m, b.z_m), base_query.height_at(b.x_m, b.z_m) + 40.0,
              1e-3);

  // Undo: the first tiles again.
  edits.undo();
  terrain->set_edits(edits.snapshot());
  world.update();
  world.invalidate(box[0], box[1], box[2], box[3]);
  rebuild(world);
  EXPECT_EQ(tiles(), before);
}

}  // namespace
}  // namespace terrane
