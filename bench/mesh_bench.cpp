// Google Benchmark for the mesh hot paths (docs/PERFORMANCE.md, "Meshes"):
//   ChunkMesh/N: a chunk of N cells ((N+1)^2 vertices: positions, normals, two UV sets,
//     geomorph, indices) from its halo'd heights, single thread, into a reused Mesh.
//     allocs_per_chunk counts operator new calls inside the timed loop (replaced below).
//   Simplify1025: a 1025^2 map tile to 1 m error. "terrane" = simplify_mesh (border locked,
//     then vertex-cache and vertex-fetch optimisation); "meshopt_raw" = meshopt_simplify alone on
//     the same raw grid without border locking (the baseline).
#include <benchmark/benchmark.h>
#include <meshoptimizer.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "terrane/mesh.hpp"
#include "terrane/noise.hpp"

namespace {
std::atomic<long long> g_allocations{0};
}  // namespace

// Counting allocator: every allocation in this program goes through here.
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {
using namespace terrane;

NoiseParams terrain_noise() {
  NoiseParams p;
  p.type = NoiseType::opensimplex2;
  p.fractal = FractalType::fbm;
  p.octaves = 6;
  p.frequency = 0.004;
  return p;
}

Field2D noise_heights(const GridSpec& g, float amplitude_m) {
  Field2D f(g);
  noise_fill(terrain_noise(), g, f.data, ExecContext{.threads = 1});
  for (float& v : f.data) v *= amplitude_m;
  return f;
}

void ChunkMesh(benchmark::State& state) {
  const int cells = int(state.range(0));
  const bool stitched = state.range(1) != 0;
  const StitchTable table(cells);
  const Field2D h = noise_heights(chunk_height_grid(GridSpec{}, cells, 3, 5), 200.0f);
  ChunkMeshParams p;
  if (stitched) p.coarser_neighbour = {1, 0, 2, 0};
  Mesh mesh;
  build_chunk_mesh(h, p, table, mesh);  // first build sizes the buffers
  const long long before = g_allocations.load();
  for (auto _ : state) {
    build_chunk_mesh(h, p, table, mesh);
    benchmark::DoNotOptimize(mesh.positions.data());
    benchmark::ClobberMemory();
  }
  const long long allocs = g_allocations.load() - before;
  state.counters["allocs_per_chunk"] = double(allocs) / double(state.iterations());
  state.counters["vertices/s"] = benchmark::Counter(
      double(state.iterations()) * double(mesh.vertex_count()), benchmark::Counter::kIsRate);
  state.counters["vertices"] = double(mesh.vertex_count());
}
BENCHMARK(ChunkMesh)->ArgsProduct({{128, 256}, {0, 1}})->ArgNames({"N", "stitched"})
    ->Unit(benchmark::kMicrosecond);

const Field2D& map1025() {
  static const Field2D f = noise_heights(GridSpec{.width = 1025, .height = 1025}, 200.0f);
  return f;
}

void Simplify1025(benchmark::State& state) {
  const bool ours = state.range(0) == 1;
  state.SetLabel(ours ? "terrane (locked border + cache/fetch opt)" : "meshopt_raw");
  Mesh raw;
  build_region_mesh(map1025(), {.cells_x = 1024, .cells_z = 1024}, raw);
  std::vector<std::uint32_t> indices(raw.index_count());
  for (std::size_t k = 0; k < indices.size(); ++k) indices[k] = raw.index(k);
  const float scale = meshopt_simplifyScale(raw.positions.data(), raw.vertex_count(), 12);
  std::vector<std::uint32_t> dst(indices.size());
  Mesh out;
  std::size_t triangles = 0;
  double error_m = 0.0;
  for (auto _ : state) {
    if (ours) {
      const SimplifyReport r = simplify_mesh(raw, {.max_error_m = 1.0}, out);
      triangles = r.triangles_after;
      error_m = r.error_m;
    } else {
      float err = 0.0f;
      triangles = meshopt_simplify(dst.data(), indices.data(), indices.size(), raw.positions.data(),
                                   raw.vertex_count(), 12, 0, float(1.0 / double(scale)), 0, &err) /
                  3;
      error_m = double(err) * double(scale);
    }
    benchmark::ClobberMemory();
  }
  state.counters["triangles_in"] = double(indices.size() / 3);
  state.counters["triangles_out"] = double(triangles);
  state.counters["error_m"] = error_m;
}
BENCHMARK(Simplify1025)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
