// Navigation (issue 15), one process, the default preset:
// - BM_TileVsBareRecast: 16 m tiles (0.25 m cells, 64 x 64) built by NavTileBuilder::build and
//   by bare Recast + Detour on exactly the same triangles (NavTileBuilder::input, built once
//   outside the timing for the baseline), alternating A B A B per tile; counters: median ms of
//   each and terrane's overhead (terrane / bare - 1).
// - BM_EditRebuild: invalidate a 10 m x 10 m box of a loaded 64 m region and poll until the
//   rebuilt tiles are in place (NavWorld, 2 workers): wall time per edit.
// - BM_PathQuery256: a path between points 256 m apart (NavQuery::path) on a loaded region.
// - BM_Flight100: a viewer at 100 m/s for 10 s at 60 frames/s (radius 256 m, 2 workers,
//   1 ms poll budget); counters: the share of frames whose 200 m walkable radius is fully loaded
//   (after the first second), the owner-thread add cost per poll (median, max).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "recast_baseline.hpp"
#include "terrane/preset.hpp"

namespace {

using namespace terrane;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Setup {
  std::shared_ptr<const ChunkGenerator> generator;
  std::shared_ptr<const NavTileBuilder> builder;
  Setup() {
    generator = std::make_shared<const ChunkGenerator>(load_preset("default"));
    builder = std::make_shared<const NavTileBuilder>(make_nav_terrain(generator), NavParams{});
  }
};
const Setup& setup() {
  static const Setup s;
  return s;
}

void BM_TileVsBareRecast(benchmark::State& state) {
  const NavTileBuilder& b = *setup().builder;
  std::vector<NavTileKey> keys;
  for (std::int64_t tz = 0; tz < 4; ++tz) {
    for (std::int64_t tx = 0; tx < 4; ++tx) keys.push_back({tx * 37 - 60, tz * 23 + 5});
  }
  std::vector<NavTileInput> inputs(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) b.input(0, keys[k], NavTileKey{0, 0}, inputs[k]);
  std::vector<double> ours, bare;
  std::vector<unsigned char> areas;
  NavTile tile;
  std::size_t k = 0;
  for (auto _ : state) {
    const NavTileKey& key = keys[k % keys.size()];
    auto t0 = Clock::now();
    b.build(0, key, NavTileKey{0, 0}, tile);
    ours.push_back(ms_since(t0));
    t0 = Clock::now();
    benchmark::DoNotOptimize(bench::bare_recast_tile(inputs[k % keys.size()], areas));
    bare.push_back(ms_since(t0));
    ++k;
  }
  const double a = median(ours), c = median(bare);
  state.counters["terrane_ms"] = a;
  state.counters["bare_recast_ms"] = c;
  state.counters["overhead"] = a / c - 1.0;
}
BENCHMARK(BM_TileVsBareRecast)->Unit(benchmark::kMillisecond)->MinTime(3.0);

void BM_EditRebuild(benchmark::State& state) {
  NavWorldParams wp;
  wp.threads = 2;
  // The owner waits here (a game's next frames would): normal priority, so the two workers get
  // both cores rather than the yielding owner.
  wp.worker_priority = WorkerPriority::normal;
  NavWorld world(setup().builder, wp);
  world.build_region(0.0, 0.0, 64.0, 64.0);
  std::vector<double> times;
  double tiles = 0;
  int n = 0;
  for (auto _ : state) {
    const double x = 10.0 + 3.0 * (n % 5), z = 12.0 + 2.0 * (n % 7);
    ++n;
    const auto t0 = Clock::now();
    tiles += double(world.invalidate(x, z, x + 10.0, z + 10.0));
    while (world.pending_rebuilds() > 0) {
      world.poll(PollBudget{SIZE_MAX, 1e9});
      if (world.pending_rebuilds() > 0) std::this_thread::yield();
    }
    times.push_back(ms_since(t0));
  }
  state.counters["edit_ms_median"] = median(times);
  state.counters["tiles_per_edit"] = tiles / n;
}
BENCHMARK(BM_EditRebuild)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_PathQuery256(benchmark::State& state) {
  NavWorldParams wp;
  wp.threads = 2;
  NavWorld world(setup().builder, wp);
  world.build_region(-16.0, -16.0, 208.0, 208.0);
  NavQuery query(world);
  const TerrainQuery tq(setup().generator);
  const std::array<double, 3> a{0.0, tq.height_at(0.0, 0.0), 0.0};
  const std::array<double, 3> b{181.0, tq.height_at(181.0, 181.0), 181.0};  // 256 m
  NavPath p;
  for (auto _ : state) {
    p = query.path(a, b);
    benchmark::DoNotOptimize(p.points.data());
  }
  state.counters["ok"] = p.status == NavStatus::ok ? 1 : 0;
  state.counters["length_m"] = p.length_m;
  state.counters["polys"] = double(p.polys.size());
}
BENCHMARK(BM_PathQuery256)->Unit(benchmark::kMicrosecond);

void BM_Flight100(benchmark::State& state) {
  for (auto _ : state) {
    NavWorldParams wp;
    wp.threads = 2;
    wp.radius_m = 256.0;
    wp.worker_priority = WorkerPriority(state.range(0));
    NavWorld world(setup().builder, wp);
    const double side = setup().builder->tile_size_m();
    Viewer v;
    v.vx_m_s = 100.0;
    const int frames = 600;
    int ready_frames = 0, counted = 0;
    std::vector<double> add_ms;
    const auto start = Clock::now();
    for (int f = 0; f < frames; ++f) {
      const auto frame_start = start + std::chrono::microseconds(std::int64_t(f) * 16667);
      std::this_thread::sleep_until(frame_start);
      v.x_m = 100.0 * f / 60.0;
      world.set_points(std::span(&v, 1));
      world.update();
      world.poll(PollBudget{SIZE_MAX, 1.0});
      add_ms.push_back(world.stats().last_poll_add_ms);
      if (f < 60) continue;
      ++counted;
      bool ready = true;
      for (double dz = -200.0; dz <= 200.0 && ready; dz += side) {
        for (double dx = -200.0; dx <= 200.0 && ready; dx += side) {
          if (dx * dx + dz * dz > 200.0 * 200.0) continue;
          ready = world.loaded(0, v.x_m + dx, v.z_m + dz);
        }
      }
      ready_frames += ready ? 1 : 0;
    }
    state.counters["ready_200m_share"] = double(ready_frames) / counted;
    state.counters["add_ms_median"] = median(add_ms);
    state.counters["add_ms_max"] = *std::max_element(add_ms.begin(), add_ms.end());
    std::sort(add_ms.begin(), add_ms.end());
    state.counters["add_ms_p99"] = add_ms[add_ms.size() * 99 / 100];
    state.counters["poll_ms_max"] = world.stats().max_poll_add_ms;
    state.counters["tiles_built"] = double(world.stats().built);
  }
}
BENCHMARK(BM_Flight100)
    ->ArgName("priority")  // 0 normal, 1 low, 2 background
    ->Arg(0)
    ->Arg(2)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
