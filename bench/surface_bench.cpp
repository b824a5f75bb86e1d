// Google Benchmark for the surface hot paths (docs/PERFORMANCE.md, "Surface").
//   SplatAndBiomes/2048: biome weights + splat weights of a 2048^2 map, default surface (8
//     biomes, 8 layers), from precomputed heights, slope and climate; reports ns per cell per
//     layer.
//   Climate/2048: temperature + moisture of the same map.
//   ScatterForest: one forest species at 0.05 / m^2 (min distance 2 m) over 1024 m x 1024 m of
//     flat forest, from precomputed fields; reports accepted instances per second.
#include <benchmark/benchmark.h>

#include <vector>

#include "terrane/field.hpp"
#include "terrane/noise.hpp"
#include "terrane/preset.hpp"
#include "terrane/surface.hpp"

namespace {
using namespace terrane;

Field2D terrain(int side) {
  NoiseParams p;
  p.fractal = FractalType::fbm;
  p.octaves = 6;
  p.frequency = 2.0 / side;
  Field2D f(GridSpec{.width = side, .height = side, .spacing_m = 2.0});
  noise_fill(p, f.grid, f.data);
  for (float& v : f.data) v = 300.0f + 900.0f * v;
  return f;
}

int threads_arg(const benchmark::State& state) {
  return int(state.range(0));
}

void Climate2048(benchmark::State& state) {
  const SurfaceParams params = default_surface(WorldSettings{});
  const Field2D h = terrain(2048);
  Climate c;
  for (auto _ : state) {
    compute_climate(params.climate, 1, h, {}, c, ExecContext{.threads = threads_arg(state)});
    benchmark::DoNotOptimize(c.temperature_c.data.data());
  }
  state.counters["ns_per_cell"] = benchmark::Counter(
      double(h.grid.sample_count()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(Climate2048)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void SplatAndBiomes2048(benchmark::State& state) {
  const SurfaceParams params = default_surface(WorldSettings{});
  const Field2D h = terrain(2048);
  Climate c;
  compute_climate(params.climate, 1, h, {}, c);
  Field2D slope;
  slope_deg_clamped(h, slope);
  BiomeWeights bw;
  SplatMap sm;
  const ExecContext ctx{.threads = threads_arg(state)};
  for (auto _ : state) {
    compute_biome_weights(params, h, c, bw, ctx);
    compute_splat(params, 1, h, slope, bw, sm, ctx);
    benchmark::DoNotOptimize(sm.weights.data());
  }
  state.counters["ns_per_cell_layer"] = benchmark::Counter(
      double(h.grid.sample_count()) * double(params.layers.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(SplatAndBiomes2048)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void ScatterForest(benchmark::State& state) {
  SurfaceParams p = default_surface(WorldSettings{});
  p.species.resize(1);
  p.species[0] = Species{};
  p.species[0].name = "forest";
  p.species[0].density_per_m2 = 0.05;
  p.species[0].min_distance_m = 2.0;
  Biome forest;
  forest.name = "forest";
  forest.splat.assign(p.layers.size(), 1.0f);
  forest.scatter = {1.0f};
  p.biomes = {forest};
  Field2D h(
      GridSpec{.width = 1040, .height = 1040, .spacing_m = 1.0, .index_x0 = -8, .index_z0 = -8});
  std::fill(h.data.begin(), h.data.end(), 20.0f);
  Climate c;
  compute_climate(p.climate, 1, h, {}, c);
  BiomeWeights bw;
  compute_biome_weights(p, h, c, bw);
  std::vector<ScatterInstance> out;
  std::size_t accepted = 0;
  ScatterScratch scratch;  // reused, as a caller that scatters region after region does
  for (auto _ : state) {
    out.clear();
    scatter_region(p, 1, {&h, &bw, {}, {}}, 0.0, 0.0, 1024.0, 1024.0, out,
                   ExecContext{.threads = threads_arg(state)}, &scratch);
    accepted += out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["instances_per_s"] =
      benchmark::Counter(double(accepted), benchmark::Counter::kIsRate);
  state.counters["instances"] = double(out.size());
}
BENCHMARK(ScatterForest)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
