// Google Benchmark for the noise hot paths (workloads W1..W5 of docs/PERFORMANCE.md), for each
// supported SIMD target. `terrane bench noise` runs the same workloads and prints JSON lines.
#include <benchmark/benchmark.h>

#include <vector>

#include "terrane/noise.hpp"

namespace {
using namespace terrane;

NoiseParams fbm6() {
  NoiseParams p;
  p.type = NoiseType::opensimplex2;
  p.fractal = FractalType::fbm;
  p.octaves = 6;
  p.frequency = 0.005;
  return p;
}

const GridSpec kMap{.width = 1024, .height = 1024};

void run2(benchmark::State& state, const NoiseParams& p, int threads, const WarpParams* warp) {
  const SimdTarget target = supported_simd_targets()[std::size_t(state.range(0))];
  set_simd_target(target);
  state.SetLabel(to_string(target));
  std::vector<float> out(kMap.sample_count());
  for (auto _ : state) {
    if (warp != nullptr) {
      noise_fill_warped(p, *warp, kMap, out, ExecContext{.threads = threads});
    } else {
      noise_fill(p, kMap, out, ExecContext{.threads = threads});
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(kMap.sample_count()));
  set_simd_target(SimdTarget::best);
}

void W1_Perlin2D(benchmark::State& s) {
  NoiseParams p;
  p.type = NoiseType::perlin;
  p.frequency = 0.01;
  run2(s, p, 1, nullptr);
}
void W2_OpenSimplex2Fbm6(benchmark::State& s) { run2(s, fbm6(), 1, nullptr); }
void W2_OpenSimplex2Fbm6_2Threads(benchmark::State& s) { run2(s, fbm6(), 2, nullptr); }
void W4_CellularF1(benchmark::State& s) {
  NoiseParams p;
  p.type = NoiseType::cellular;
  p.frequency = 0.02;
  run2(s, p, 1, nullptr);
}
void W5_WarpThenFbm(benchmark::State& s) {
  WarpParams w;
  w.basis = NoiseType::opensimplex2;
  w.amplitude_m = 30.0;
  run2(s, fbm6(), 1, &w);
}
void W3_Perlin3D(benchmark::State& state) {
  const SimdTarget target = supported_simd_targets()[std::size_t(state.range(0))];
  set_simd_target(target);
  state.SetLabel(to_string(target));
  const GridSpec3 vol{.size_x = 128, .size_y = 128, .size_z = 128};
  NoiseParams p;
  p.type = NoiseType::perlin;
  p.frequency = 0.02;
  std::vector<float> out(vol.sample_count());
  for (auto _ : state) {
    noise_fill3(p, vol, out, ExecContext{.threads = 1});
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(vol.sample_count()));
  set_simd_target(SimdTarget::best);
}

void Targets(benchmark::internal::Benchmark* b) {
  for (std::size_t k = 0; k < supported_simd_targets().size(); ++k) b->Arg(std::int64_t(k));
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(W1_Perlin2D)->Apply(Targets);
BENCHMARK(W2_OpenSimplex2Fbm6)->Apply(Targets);
BENCHMARK(W2_OpenSimplex2Fbm6_2Threads)->Apply(Targets);
BENCHMARK(W3_Perlin3D)->Apply(Targets);
BENCHMARK(W4_CellularF1)->Apply(Targets);
BENCHMARK(W5_WarpThenFbm)->Apply(Targets);

}  // namespace

BENCHMARK_MAIN();
