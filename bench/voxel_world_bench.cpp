// Block chunk generation (issue 14) on one core: 32^3 chunks of the default preset's block world
// (2D base, the default density with overhangs, cheese caverns and spaghetti tunnels, materials,
// ores, trees). Workloads:
//   BM_SurfaceChunks: the 4 chunks of each of 4 x 4 chunk columns that hold the surface (the
//     expensive ones), with the columns' 2D data computed once per column as a streamer's
//     scratch does (it is amortised over these 4 chunks only, a pessimistic share).
//   BM_SurfaceChunksWithoutLakes: the same with voxel.lakes = false.
//   BM_ColumnStacks: whole vertical stacks (the world's vertical range) of 2 x 2 columns: what a
//     streamer generates around a viewer; also reports the bytes per resident chunk
//     (BlockChunk::bytes()) averaged over the stacks.
//   BM_BlockFlight: a BlockStreamer (view 192 m, vertical 96 m, 2 workers) around a viewer flying
//     at 20 m/s, 60 frames per simulated second, paced in real time: the average bytes per
//     resident chunk (blocks only, and with the packed-quad meshes), holes per frame.
// items_per_second = chunks per second. Medians: --benchmark_repetitions=9
// --benchmark_report_aggregates_only=true.
#include <benchmark/benchmark.h>

#include <cmath>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "terrane/preset.hpp"
#include "terrane/voxel.hpp"
#include "terrane/world.hpp"

namespace {

using namespace terrane;

struct World {
  Preset preset;
  BlockWorldGenerator gen;
  std::int64_t cx = 0, cz = 0, cy = 0;  // a land column and its surface chunk
  explicit World(const std::vector<std::string>& set = {})
      : preset(load_preset("default", set)), gen{preset.generator(), preset.surface, preset.voxel} {
    const CompiledGraph g = compile(preset);
    for (int r = 0; r < 64; ++r) {
      const double x = 256.0 * r, z = 128.0 * r;
      const float h = evaluate_at(g, x + 0.5, z + 0.5);
      if (h > float(preset.world.sea_level_m) + 20.0f && h < 400.0f) {
        cx = std::int64_t(x) / 32, cz = std::int64_t(z) / 32;
        cy = std::int64_t(std::floor(h / 32.0));
        return;
      }
    }
  }
};

World& world() {
  static World w;
  return w;
}

World& world_without_lakes() {
  static World w({"voxel.lakes=false"});
  return w;
}

void surface_chunks(benchmark::State& state, World& w) {
  BlockChunkData data;
  std::int64_t chunks = 0, round = 0;
  for (auto _ : state) {
    // A fresh area every round, so the column cache never carries over between rounds.
    const std::int64_t ox = w.cx + round * 8;
    ++round;
    for (std::int64_t a = 0; a < 4; ++a) {
      for (std::int64_t b = 0; b < 4; ++b) {
        BlockScratch scratch;
        for (std::int64_t c = -2; c < 2; ++c) {
          w.gen.generate({ox + a, w.cy + c, w.cz + b}, data, &scratch, ExecContext{.threads = 1});
          ++chunks;
        }
      }
    }
    benchmark::DoNotOptimize(data.chunk.packed.data());
  }
  state.SetItemsProcessed(chunks);
}

// Each round moves 256 blocks along x, half a lake tile, so a new column of lake windows (768 x
// 768 columns of 2D heights, flooded) is computed every other round; a streamer reuses a window
// for the 1024 surface chunks of its tile.
void BM_SurfaceChunks(benchmark::State& state) {
  surface_chunks(state, world());
}
BENCHMARK(BM_SurfaceChunks)->Unit(benchmark::kMillisecond);

// The same without lakes (voxel.lakes = false): the lakes' share of the time.
void BM_SurfaceChunksWithoutLakes(benchmark::State& state) {
  surface_chunks(state, world_without_lakes());
}
BENCHMARK(BM_SurfaceChunksWithoutLakes)->Unit(benchmark::kMillisecond);

void BM_ColumnStacks(benchmark::State& state) {
  World& w = world();
  const VoxelParams& v = w.gen.params();
  const std::int64_t y0 = v.min_y / 32, y1 = v.max_y / 32;
  BlockChunkData data;
  std::int64_t chunks = 0, round = 0;
  double bytes = 0.0, resident = 0.0, uniform = 0.0;
  for (auto _ : state) {
    const std::int64_t ox = w.cx + round * 4;
    ++round;
    for (std::int64_t a = 0; a < 2; ++a) {
      for (std::int64_t b = 0; b < 2; ++b) {
        BlockScratch scratch;
        for (std::int64_t c = y0; c <= y1; ++c) {
          w.gen.generate({ox + a, c, w.cz + b}, data, &scratch, ExecContext{.threads = 1});
          ++chunks;
          bytes += double(data.chunk.bytes());
          resident += 1.0;
          uniform += data.chunk.uniform ? 1.0 : 0.0;
        }
      }
    }
  }
  state.SetItemsProcessed(chunks);
  state.counters["bytes_per_chunk"] = bytes / resident;
  state.counters["uniform_share"] = uniform / resident;
  state.counters["chunks_per_stack"] = double(y1 - y0 + 1);
}
BENCHMARK(BM_ColumnStacks)->Unit(benchmark::kMillisecond);

void BM_BlockFlight(benchmark::State& state) {
  World& w = world();
  double block_bytes = 0.0, total_bytes = 0.0, samples = 0.0, holes = 0.0, frames = 0.0;
  for (auto _ : state) {
    BlockStreamerParams params;
    params.threads = 2;
    BlockStreamer s(w.preset, params);
    Viewer v;
    v.x_m = double(w.cx) * 32.0;
    v.z_m = double(w.cz) * 32.0;
    v.y_m = double(w.cy) * 32.0 + 40.0;
    v.vx_m_s = 20.0;
    const auto start = std::chrono::steady_clock::now();
    for (int f = 0; f < 60 * 20; ++f) {
      v.x_m += v.vx_m_s / 60.0;
      s.set_viewers({&v, 1});
      s.update();
      s.poll(PollBudget{.max_ms = 2.0});
      holes += double(s.stats().holes);
      frames += 1.0;
      if (f % 30 == 29) {
        double b = 0.0, t = 0.0;
        for (const BlockChunkResident* c : s.resident()) {
          b += double(c->blocks.bytes());
          t += double(c->bytes());
        }
        const double n = double(std::max<std::size_t>(1, s.resident().size()));
        block_bytes += b / n;
        total_bytes += t / n;
        samples += 1.0;
      }
      std::this_thread::sleep_until(start + std::chrono::microseconds(16667 * (f + 1)));
    }
  }
  state.counters["block_bytes_per_chunk"] = block_bytes / samples;
  state.counters["bytes_with_mesh_per_chunk"] = total_bytes / samples;
  state.counters["holes_per_frame"] = holes / frames;
}
BENCHMARK(BM_BlockFlight)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
