// `terrane bench erosion`: the erosion workloads of docs/PERFORMANCE.md, one JSON line per method.
// The droplet line carries the plain single-threaded baseline (bench/droplet_baseline.hpp)
// measured in the same run, on the same map, with the same parameters, and the ratio.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "droplet_baseline.hpp"
#include "erosion_workload.hpp"
#include "terrane/erosion.hpp"
#include "terrane/noise.hpp"

namespace terrane::cli {
namespace {

template <class F>
double median_seconds(int repeats, F&& run) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int run_bench_erosion(const BenchOptions& opt) {
  const auto want = [&](const char* name) { return opt.only.empty() || opt.only == name; };
  if (!opt.only.empty() && !want("droplets") && !want("thermal") && !want("stream_power")) {
    throw Error(ErrorCategory::invalid_argument,
                "--workload '" + opt.only + "' (allowed: droplets, thermal, stream_power)");
  }
  const ExecContext ctx{.threads = opt.threads};
  const int threads = opt.threads;
  if (want("droplets")) {
    const Field2D src = bench::erosion_bench_terrain(1024, 200.0);
    DropletParams p;  // published parameters (Lague's defaults)
    p.droplets = 1000000;
    std::int64_t steps = 0, base_steps = 0;
    const double base_s = median_seconds(opt.repeats, [&] {
      Field2D f = src;
      base_steps = bench::baseline_droplets(f, p);
    });
    const double s = median_seconds(opt.repeats, [&] {
      Field2D f = src;
      steps = droplet_erosion(f, p, ctx).steps;
    });
    std::printf("{\"method\":\"droplets\",\"workload\":\"1M droplets, 1024^2, lifetime 30, radius 3\","
                "\"threads\":%d,\"seconds\":%.4f,\"ns_per_step\":%.2f,\"steps\":%lld,"
                "\"baseline_seconds\":%.4f,\"baseline_ns_per_step\":%.2f,\"speedup_vs_baseline\":%.3f,"
                "\"repeats\":%d}\n",
                threads, s, s * 1e9 / double(steps), static_cast<long long>(steps), base_s,
                base_s * 1e9 / double(base_steps), base_s / s, opt.repeats);
    std::fflush(stdout);
  }
  if (want("thermal")) {
    Field2D f = bench::erosion_bench_terrain(1024, 300.0);
    ThermalParams p;
    p.iterations = 50;
    const double s = median_seconds(opt.repeats, [&] { thermal_erosion(f, p, ctx); });
    std::printf("{\"method\":\"thermal\",\"workload\":\"1024^2, 50 iterations, talus 35 deg\","
                "\"threads\":%d,\"seconds\":%.4f,\"ns_per_cell_iteration\":%.3f,\"repeats\":%d}\n",
                threads, s, s * 1e9 / (1024.0 * 1024.0 * 50.0), opt.repeats);
    std::fflush(stdout);
  }
  if (want("stream_power")) {
    Field2D f = bench::erosion_bench_terrain(1024, 300.0);
    StreamPowerParams p;
    p.steps = 1;
    p.diffusivity_m2_per_yr = 0.01;
    std::int64_t pits = 0;
    // One scratch for every step, as a caller stepping the evolution would keep it: the figure
    // is a step's work, not the first touch of its 35 bytes per cell of working memory.
    StreamPowerScratch scratch;
    const double s = median_seconds(
        opt.repeats, [&] { pits += stream_power(f, p, nullptr, ctx, &scratch).depressions; });
    std::printf("{\"method\":\"stream_power\",\"workload\":\"1024^2, one step: routing, "
                "basin-graph depression routing, accumulation, incision, diffusion\",\"threads\":%d,"
                "\"seconds_per_step\":%.4f,\"pits_seen\":%lld,\"repeats\":%d}\n",
                threads, s, static_cast<long long>(pits), opt.repeats);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace terrane::cli
