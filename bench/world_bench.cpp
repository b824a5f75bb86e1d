// World benchmarks: chunk generation throughput (default preset, 128-cell chunks = 129 x 129
// vertices with a halo, normals and geomorph targets, no per-chunk indices as in the streamer)
// on 1 and 2 threads, and the queries. The streamer's per-frame cost in a flight is measured by
// `terrane stream` (it needs real-time pacing, not a tight loop).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "terrane/world.hpp"

namespace {

using namespace terrane;

std::shared_ptr<const ChunkGenerator> shared_generator() {
  static const auto gen = [] {
    ChunkSettings s;
    s.cells = 128;
    s.indices = false;
    return std::make_shared<const ChunkGenerator>(parse_preset(builtin_preset_json("default"), "default"), s);
  }();
  return gen;
}
const ChunkGenerator& generator() { return *shared_generator(); }

// Each iteration generates `threads` x 16 distinct level-0 chunks on `threads` std::threads,
// each chunk on its thread alone, as the streamer's workers do (distinct keys every iteration,
// so nothing is cached anywhere).
void BM_ChunkGeneration(benchmark::State& state) {
  const int threads = int(state.range(0));
  const ChunkGenerator& gen = generator();
  constexpr int kPerThread = 16;
  std::vector<ChunkData> out(static_cast<std::size_t>(threads));
  std::vector<ChunkScratch> scratch(static_cast<std::size_t>(threads));
  std::int64_t row = 0;
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (int k = 0; k < kPerThread; ++k) {
          gen.generate({k - 8, row * threads + t, 0}, {0, 0, 0, 0}, out[std::size_t(t)],
                       ExecContext{.threads = 1}, &scratch[std::size_t(t)]);
        }
      });
    }
    for (auto& th : pool) th.join();
    ++row;
  }
  state.counters["chunks_per_s"] =
      benchmark::Counter(double(state.iterations() * threads * kPerThread), benchmark::Counter::kIsRate);
  state.counters["chunks_per_s_per_core"] = benchmark::Counter(
      double(state.iterations() * kPerThread), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ChunkGeneration)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same with surface data (splat weights of every sample, scatter of level-0 chunks), on one
// thread. Arg 1: a ChunkScratch reused from chunk to chunk (the streamer's way); arg 0: none,
// so every chunk allocates its surface buffers afresh.
void BM_ChunkGenerationSurface(benchmark::State& state) {
  static const ChunkGenerator gen = [] {
    ChunkSettings s;
    s.cells = 128;
    s.indices = false;
    s.surface = true;
    return ChunkGenerator(parse_preset(builtin_preset_json("default"), "default"), s);
  }();
  const bool reuse = state.range(0) != 0;
  ChunkData out;
  ChunkScratch scratch;
  std::int64_t k = 0;
  std::size_t instances = 0;
  for (auto _ : state) {
    gen.generate({k % 16, k / 16, 0}, {0, 0, 0, 0}, out, ExecContext{.threads = 1},
                 reuse ? &scratch : nullptr);
    instances += out.scatter.size();
    ++k;
  }
  state.counters["chunks_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["instances_per_chunk"] = double(instances) / double(state.iterations());
  if (reuse) {
    state.counters["scratch_bytes"] = double(scratch.bytes());
    state.counters["scratch_bound"] = double(gen.scratch_bytes());
  }
}
BENCHMARK(BM_ChunkGenerationSurface)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);

// Queries: height_at at scattered points, and 1 km rays just under the preset's top (nothing
// skipped: every cell under the ray is walked).
void BM_HeightAt(benchmark::State& state) {
  const TerrainQuery q(shared_generator());
  double x = 12.3, z = -45.6, sum = 0.0;
  for (auto _ : state) {
    sum += q.height_at(x, z);
    x += 97.1;
    z += 13.7;
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_HeightAt)->Unit(benchmark::kMicrosecond);

void BM_Raycast1km(benchmark::State& state) {
  const TerrainQuery q(shared_generator());
  const double top = generator().graph().world().height_max_m - 1.0;
  double z = 0.0;
  std::size_t hits = 0;
  for (auto _ : state) {
    hits += q.raycast(0.0, top, z, 1.0, 0.0, 0.0, 1000.0).has_value() ? 1 : 0;
    z += 1000.0;
  }
  state.counters["hits"] = double(hits);
}
BENCHMARK(BM_Raycast1km)->Unit(benchmark::kMicrosecond);

// Scattered queries (the workload of the former unit test TerrainQueryTest.DISABLED_Cost, moved
// here because unit tests carry no timings): height_at at points spread uniformly over
// +-100 km, and 1 km horizontal rays at y = 1350 m (50 m under the preset's top, above most of
// the terrain: nearly every cell under the ray is walked) from scattered origins in scattered
// directions. Points come from a counter hash (no std distributions: DESIGN.md §1), so every
// call is at a new place.
double hashed_uniform(std::uint64_t stream, std::uint64_t k, double lo, double hi) {
  return lo + (hi - lo) * double(hash_combine(stream, k) >> 11) * (1.0 / 9007199254740992.0);
}

void BM_HeightAtScattered(benchmark::State& state) {
  const TerrainQuery q(shared_generator());
  std::uint64_t k = 0;
  double sum = 0.0;
  for (auto _ : state) {
    sum += q.height_at(hashed_uniform(1, k, -1e5, 1e5), hashed_uniform(2, k, -1e5, 1e5));
    ++k;
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_HeightAtScattered)->Unit(benchmark::kMicrosecond);

void BM_RaycastScattered1km(benchmark::State& state) {
  const TerrainQuery q(shared_generator());
  std::uint64_t k = 0;
  std::size_t hits = 0;
  for (auto _ : state) {
    const double a = hashed_uniform(3, k, 0.0, 6.283185307179586);
    hits += q.raycast(hashed_uniform(4, k, -1e5, 1e5), 1350.0, hashed_uniform(5, k, -1e5, 1e5),
                      std::cos(a), 0.0, std::sin(a), 1000.0)
                    .has_value()
                ? 1
                : 0;
    ++k;
  }
  state.counters["hit_fraction"] = double(hits) / double(state.iterations());
}
BENCHMARK(BM_RaycastScattered1km)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
