// `terrane bench noise`: the noise workloads of docs/PERFORMANCE.md, one JSON line each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "commands.hpp"
#include "terrane/noise.hpp"

namespace terrane::cli {
namespace {

struct Workload {
  const char* name;
  const char* what;
  int threads;
};

NoiseParams w2_fbm() {
  NoiseParams p;
  p.type = NoiseType::opensimplex2;
  p.fractal = FractalType::fbm;
  p.octaves = 6;
  p.lacunarity = 2.0;
  p.gain = 0.5;
  p.frequency = 0.005;
  return p;
}

// Runs one workload once; returns the samples it produced.
std::size_t run_once(const std::string& name, int threads, std::vector<float>& out) {
  const ExecContext ctx{.threads = threads};
  const GridSpec map{.width = 1024, .height = 1024};
  out.resize(map.sample_count());
  if (name == "W1") {
    NoiseParams p;
    p.type = NoiseType::perlin;
    p.frequency = 0.01;
    noise_fill(p, map, out, ctx);
    return map.sample_count();
  }
  if (name == "W2") {
    noise_fill(w2_fbm(), map, out, ctx);
    return map.sample_count();
  }
  if (name == "W3") {
    const GridSpec3 vol{.size_x = 128, .size_y = 128, .size_z = 128};
    NoiseParams p;
    p.type = NoiseType::perlin;
    p.frequency = 0.02;
    out.resize(vol.sample_count());
    noise_fill3(p, vol, out, ctx);
    return vol.sample_count();
  }
  if (name == "W4") {
    NoiseParams p;
    p.type = NoiseType::cellular;
    p.cellular_distance = CellularDistance::euclidean;
    p.cellular_return = CellularReturn::f1;
    p.frequency = 0.02;
    noise_fill(p, map, out, ctx);
    return map.sample_count();
  }
  // W5: OpenSimplex2 domain warp (amplitude 30 m) then W2's fBm.
  WarpParams w;
  w.basis = NoiseType::opensimplex2;
  w.amplitude_m = 30.0;
  w.frequency = 0.005;
  noise_fill_warped(w2_fbm(), w, map, out, ctx);
  return map.sample_count();
}

}  // namespace

int run_bench_noise(const BenchOptions& opt) {
  const Workload all[] = {{"W1", "2D Perlin, 1 octave, 1024^2", 1},
                          {"W2", "2D OpenSimplex2 fBm, 6 octaves, 1024^2", 1},
                          {"W3", "3D Perlin, 128^3", 1},
                          {"W4", "2D cellular F1 euclidean, 1024^2", 1},
                          {"W5", "OpenSimplex2 domain warp + W2, 1024^2", 1},
                          {"W2", "2D OpenSimplex2 fBm, 6 octaves, 1024^2", 2}};
  if (!opt.only.empty() && std::none_of(std::begin(all), std::end(all),
                                        [&](const Workload& w) { return opt.only == w.name; })) {
    throw Error(ErrorCategory::invalid_argument,
                "--workload '" + opt.only + "': expected W1, W2, W3, W4 or W5");
  }
  std::vector<SimdTarget> targets;
  if (opt.all_targets) {
    targets = supported_simd_targets();
  } else {
    targets = {resolved_simd_target()};
  }
  std::vector<float> out;
  for (SimdTarget t : targets) {
    set_simd_target(t);
    for (const Workload& w : all) {
      if (!opt.only.empty() && opt.only != w.name) continue;
      run_once(w.name, w.threads, out);  // warm-up: page faults, thread pool start
      std::vector<double> ms;
      std::size_t samples = 0;
      for (int r = 0; r < opt.repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        samples = run_once(w.name, w.threads, out);
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      const double median = ms[ms.size() / 2];
      std::printf(
          "{\"workload\":\"%s\",\"what\":\"%s\",\"threads\":%d,\"ns_per_sample\":%.3f,"
          "\"ms_per_map\":%.3f,\"simd\":\"%s\",\"repeats\":%d,\"hash\":\"%016llx\"}\n",
          w.name, w.what, w.threads, median * 1e6 / double(samples), median, to_string(t),
          opt.repeats, static_cast<unsigned long long>(hash_floats(out)));
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace terrane::cli
