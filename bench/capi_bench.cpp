// The C API's cost over the C++ library (issue 17): the same height grid through terrane_heights
// (its checks and handle; the bindings call the same function in libterrane.so) and through
// terrane::evaluate, and what loading a preset costs through each (the C handle also compiles
// the graph and makes the surface generator).
// docs/PERFORMANCE.md "C API" has the figures.
#include <benchmark/benchmark.h>

#include <vector>

#include "terrane/graph.hpp"
#include "terrane/preset.hpp"
#include "terrane/terrane.h"

namespace {

constexpr int kSide = 512;

void BM_CApiHeights512(benchmark::State& state) {
  terrane_preset* p = nullptr;
  if (terrane_preset_load("default", nullptr, 0, &p) != TERRANE_OK) {
    state.SkipWithError(terrane_last_error());
    return;
  }
  std::vector<float> out(std::size_t(kSide) * kSide);
  for (auto _ : state) {
    terrane_heights(p, 0.0, 0.0, kSide, kSide, 0.0, 1, out.data(), out.size(), nullptr);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kSide * kSide);
  terrane_preset_free(p);
}
BENCHMARK(BM_CApiHeights512)->Unit(benchmark::kMillisecond);

void BM_CppHeights512(benchmark::State& state) {
  const terrane::CompiledGraph g = terrane::compile(terrane::load_preset("default"));
  terrane::GridSpec grid;
  grid.width = kSide;
  grid.height = kSide;
  grid.spacing_m = g.world().cell_size_m;
  std::vector<float> out(grid.sample_count());
  terrane::ExecContext ctx;
  ctx.threads = 1;
  for (auto _ : state) {
    terrane::evaluate(g, grid, out, ctx);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kSide * kSide);
}
BENCHMARK(BM_CppHeights512)->Unit(benchmark::kMillisecond);

void BM_CApiPresetLoad(benchmark::State& state) {
  for (auto _ : state) {
    terrane_preset* p = nullptr;
    terrane_preset_load("alpine", nullptr, 0, &p);
    terrane_preset_free(p);
  }
}
BENCHMARK(BM_CApiPresetLoad)->Unit(benchmark::kMicrosecond);

void BM_CppPresetLoad(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(terrane::load_preset("alpine"));
}
BENCHMARK(BM_CppPresetLoad)->Unit(benchmark::kMicrosecond);

}  // namespace
BENCHMARK_MAIN();
