// Google Benchmark for the erosion hot paths (docs/PERFORMANCE.md, "Erosion"). `terrane bench
// erosion` runs the same workloads once each and prints one JSON line per method.
#include <benchmark/benchmark.h>

#include <vector>

#include "droplet_baseline.hpp"
#include "erosion_workload.hpp"
#include "terrane/erosion.hpp"
#include "terrane/noise.hpp"
#include "terrane/preset.hpp"

namespace {
using namespace terrane;

DropletParams published(std::int64_t droplets) {
  DropletParams p;  // Lague's defaults: inertia 0.05, capacity 4, lifetime 30, radius 3, ...
  p.droplets = droplets;
  return p;
}

void Droplets1M_Baseline(benchmark::State& state) {
  const Field2D src = bench::erosion_bench_terrain(1024, 200.0);
  std::int64_t steps = 0;
  for (auto _ : state) {
    Field2D f = src;
    steps += bench::baseline_droplets(f, published(1000000));
    benchmark::DoNotOptimize(f.data.data());
  }
  state.counters["ns_per_step"] =
      benchmark::Counter(double(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void Droplets1M(benchmark::State& state) {
  const Field2D src = bench::erosion_bench_terrain(1024, 200.0);
  std::int64_t steps = 0;
  for (auto _ : state) {
    Field2D f = src;
    steps +=
        droplet_erosion(f, published(1000000), ExecContext{.threads = int(state.range(0))}).steps;
    benchmark::DoNotOptimize(f.data.data());
  }
  state.counters["ns_per_step"] =
      benchmark::Counter(double(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void Thermal1024(benchmark::State& state) {
  Field2D f = bench::erosion_bench_terrain(1024, 300.0);
  ThermalParams p;
  p.iterations = 20;
  for (auto _ : state) {
    thermal_erosion(f, p, ExecContext{.threads = int(state.range(0))});
    benchmark::DoNotOptimize(f.data.data());
  }
  state.SetItemsProcessed(state.iterations() * 20 * 1024 * 1024);
}

void StreamPowerStep1024(benchmark::State& state) {
  Field2D f = bench::erosion_bench_terrain(1024, 300.0);
  StreamPowerParams p;
  p.steps = 1;
  p.diffusivity_m2_per_yr = 0.01;
  StreamPowerScratch scratch;  // kept across steps, as a caller stepping the evolution would
  for (auto _ : state) {
    stream_power(f, p, nullptr, ExecContext{.threads = int(state.range(0))}, &scratch);
    benchmark::DoNotOptimize(f.data.data());
  }
}

}  // namespace

BENCHMARK(Droplets1M_Baseline)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Droplets1M)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Thermal1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(StreamPowerStep1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
