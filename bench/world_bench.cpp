// World benchmarks: chunk generation throughput (default preset, 128-cell chunks = 129 x 129
// vertices with a halo, normals and geomorph targets, no per-chunk indices as in the streamer)
// on 1 and 2 threads, and the owner thread's update + poll cost of a Streamer in a flight.
#include <benchmark/benchmark.h>

#include <atomic>
#include <thread>
#include <vector>

#include "terrane/world.hpp"

namespace {

using namespace terrane;

const ChunkGenerator& generator() {
  static const ChunkGenerator gen = [] {
    ChunkSettings s;
    s.cells = 128;
    s.indices = false;
    return ChunkGenerator(parse_preset(builtin_preset_json("default"), "default"), s);
  }();
  return gen;
}

// Each iteration generates `threads` x 16 distinct level-0 chunks on `threads` std::threads
// (distinct keys every iteration, so nothing is cached anywhere).
void BM_ChunkGeneration(benchmark::State& state) {
  const int threads = int(state.range(0));
  const ChunkGenerator& gen = generator();
  constexpr int kPerThread = 16;
  std::vector<ChunkData> out(static_cast<std::size_t>(threads));
  std::int64_t row = 0;
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (int k = 0; k < kPerThread; ++k) {
          gen.generate({k - 8, row * threads + t, 0}, {0, 0, 0, 0}, out[std::size_t(t)]);
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

}  // namespace

BENCHMARK_MAIN();
