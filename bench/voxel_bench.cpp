// Block meshing (issue 14) on one core, for a 62^3 terrain chunk (64^3 padded): the column
// masks from the ids (compute_block_columns), and greedy meshing with precomputed masks, opaque
// terrain without ambient occlusion (the figure comparable to cgerikj/binary-greedy-meshing),
// with ambient occlusion and water (the translucent pass), and without masks (ids scanned).
// BM_GeneratedQuads/<preset>: 12 boxes of 64^3 generated blocks (62^3 meshed, padded) at the
// surface of the preset's block world (caves, overhangs, trees, lakes), meshed as a streamed
// chunk is (no AO in the quads: BlockAo::occupancy), with the quads per culled face over all 12.
// Medians: --benchmark_repetitions=9 --benchmark_report_aggregates_only=true.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

#include "terrane/preset.hpp"
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

void BM_BlockColumns(benchmark::State& state) {
  const BlockPalette pal = palette();
  BlockVolume v = terrain(true);
  for (auto _ : state) {
    compute_block_columns(v, pal);
    benchmark::DoNotOptimize(v.opaque_columns.data());
  }
}
BENCHMARK(BM_BlockColumns)->Unit(benchmark::kMicrosecond);

// Args: water, ambient occlusion, precomputed masks.
void BM_GreedyMeshTerrain(benchmark::State& state) {
  const BlockPalette pal = palette();
  BlockVolume v = terrain(state.range(0) != 0);
  if (state.range(2) != 0) compute_block_columns(v, pal);
  const BlockMeshOptions options{state.range(1) != 0};
  BlockMesh mesh;
  BlockMeshScratch scratch;
  for (auto _ : state) {
    build_block_mesh(v, pal, mesh, &scratch, options);
    benchmark::DoNotOptimize(mesh.opaque.data());
  }
  const double quads = double(mesh.opaque.size() + mesh.translucent.size());
  state.counters["quads"] = quads;
  state.counters["faces"] = double(mesh.exposed_faces);
  state.counters["quads_per_face"] = quads / double(mesh.exposed_faces);
}
BENCHMARK(BM_GreedyMeshTerrain)
    ->ArgNames({"water", "ao", "masks"})
    ->Args({0, 0, 1})  // comparable to binary-greedy-meshing
    ->Args({0, 1, 1})
    ->Args({1, 1, 1})  // the full mesh: AO and the translucent pass
    ->Args({1, 0, 1})
    ->Args({1, 1, 0})  // ids scanned by the mesher
    ->Unit(benchmark::kMicrosecond);

// 12 land boxes of a preset's block world: 64^3 blocks whose middle row is the 2D surface.
std::vector<BlockVolume> generated_boxes(const std::string& name) {
  const Preset preset = load_preset(name);
  const BlockWorldGenerator gen(preset.generator(), preset.surface, preset.voxel);
  const CompiledGraph g = compile(preset);
  std::vector<BlockVolume> boxes;
  for (int k = 0; boxes.size() < 12 && k < 4096; ++k) {
    const double x = 731.0 * (k % 16) - 5000.0, z = 977.0 * (k / 16) - 5000.0;
    const float h = evaluate_at(g, x + 0.5, z + 0.5);
    if (!(h > float(preset.world.sea_level_m) + 4.0f)) continue;
    BlockRegion r;
    gen.generate_region(std::int64_t(x) - 32, std::int64_t(std::floor(h)) - 32,
                        std::int64_t(z) - 32, 64, 64, 64, r, ExecContext{.threads = 1});
    BlockVolume v;
    v.size = 62;
    v.blocks = r.blocks;  // x fastest, then z, then y: the padded volume's order
    compute_block_columns(v, gen.palette());
    boxes.push_back(std::move(v));
  }
  return boxes;
}

void BM_GeneratedQuads(benchmark::State& state, const std::string& name) {
  const Preset preset = load_preset(name);
  const std::vector<BlockVolume> boxes = generated_boxes(name);
  const BlockPalette& pal = preset.voxel.palette;
  BlockMesh mesh;
  BlockMeshScratch scratch;
  double quads = 0.0, faces = 0.0;
  for (auto _ : state) {
    quads = faces = 0.0;
    for (const BlockVolume& v : boxes) {
      build_block_mesh(v, pal, mesh, &scratch, BlockMeshOptions{false});
      quads += double(mesh.opaque.size() + mesh.translucent.size());
      faces += double(mesh.exposed_faces);
    }
    benchmark::DoNotOptimize(mesh.opaque.data());
  }
  state.counters["boxes"] = double(boxes.size());
  state.counters["quads"] = quads;
  state.counters["faces"] = faces;
  state.counters["quads_per_face"] = quads / faces;
}
BENCHMARK_CAPTURE(BM_GeneratedQuads, default, std::string("default"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GeneratedQuads, alpine, std::string("alpine"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GeneratedQuads, canyons, std::string("canyons"))
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
