// Block meshing (issue 14): greedy meshing of a 62^3 terrain chunk (64^3 padded), opaque only
// and with water (the translucent pass), on one core.
#include <benchmark/benchmark.h>

#include <cmath>

#include "terrane/voxel.hpp"

namespace {

using namespace terrane;

BlockPalette palette() {
  BlockPalette p;
  p.types = {{"air", BlockKind::air, true, {}},
             {"stone", BlockKind::opaque, true, {}},
             {"dirt", BlockKind::opaque, true, {}},
             {"grass", BlockKind::opaque, true, {}},
             {"water", BlockKind::liquid, true, {}}};
  return p;
}

// A height-field chunk: stone, 3 dirt, grass on top (heights 10..30 of 62), water to 22.
BlockVolume terrain(bool water) {
  BlockVolume v;
  v.size = 62;
  const int p = 64;
  v.blocks.assign(std::size_t(p) * p * p, 0);
  for (int z = 0; z < p; ++z) {
    for (int x = 0; x < p; ++x) {
      const int top = 20 + int(10.0 * std::sin(x * 0.11) * std::cos(z * 0.07));
      for (int y = 0; y < p; ++y) {
        std::uint16_t id = y > top       ? (water && y <= 22 ? 4 : 0)
                           : y == top    ? 3
                           : y > top - 4 ? 2
                                         : 1;
        v.blocks[(std::size_t(y) * p + std::size_t(z)) * p + std::size_t(x)] = id;
      }
    }
  }
  return v;
}

void BM_GreedyMeshTerrain(benchmark::State& state) {
  const BlockPalette pal = palette();
  const BlockVolume v = terrain(state.range(0) != 0);
  BlockMesh mesh;
  BlockMeshScratch scratch;
  for (auto _ : state) {
    build_block_mesh(v, pal, mesh, &scratch);
    benchmark::DoNotOptimize(mesh.opaque.data());
  }
  state.counters["quads"] = double(mesh.opaque.size() + mesh.translucent.size());
  state.counters["faces"] = double(mesh.exposed_faces);
  state.counters["quads_per_face"] =
      double(mesh.opaque.size() + mesh.translucent.size()) / double(mesh.exposed_faces);
}
BENCHMARK(BM_GreedyMeshTerrain)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
