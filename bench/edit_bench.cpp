// Height edits (issue 16) on 2 cores: a 50 m brush stroke at 1 m cells, alone, and through a
// Streamer to the moment every chunk it reaches (every level) is regenerated and swapped in
// (BM_StrokeToUpdatedChunks: apply + set_edits + update/poll until updates_pending is 0; the
// query answers with the stroke as soon as set_edits returns). The world: the default preset at
// 1 m cells, 64-cell chunks, a 400 m view, 2 workers, drained before timing. Each iteration
// strokes at a new place near the viewer, raising and lowering in turn.
// BM_PaintToUpdatedChunks: the same for a 50 m splat paint stroke (SplatPaint::apply +
// Streamer::set_paint), in a world with surface data (splat weights, biomes, scatter), each
// iteration painting another layer at a new place.
// BM_DigToUpdatedChunks: a 4 m dig (BlockEdits::apply + BlockStreamer::set_edits + update/poll
// until updates_pending is 0) in the default preset's block world around (64, 400, 64): 160 m
// view, 96 m vertical, 2 workers; each iteration digs a sphere at the ground (the height field
// under the blocks), or restores the one it dug, moving 9 m along x every two.
// Medians: --benchmark_repetitions=7 --benchmark_report_aggregates_only=true.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "terrane/edit.hpp"
#include "terrane/world.hpp"

namespace {

using namespace terrane;

const Preset& preset() {
  static const Preset p = parse_preset(builtin_preset_json("default"), "default",
                                       std::vector<std::string>{"world.cell_size_m=1"});
  return p;
}

HeightBrush stroke(std::int64_t k) {
  HeightBrush b;
  b.kind = k % 2 == 0 ? BrushKind::raise : BrushKind::lower;
  b.x_m = double(k % 5) * 23.0 - 46.0;
  b.z_m = double(k % 7) * 17.0 - 51.0;
  b.radius_m = 50.0;
  b.strength_m = 3.0;
  return b;
}

void BM_Stroke50m(benchmark::State& state) {
  const CompiledGraph graph = compile(preset());
  HeightEdits edits(1.0, 64);
  std::int64_t k = 0;
  for (auto _ : state) {
    const LatticeRect r = edits.apply(stroke(k++), graph);
    benchmark::DoNotOptimize(r);
  }
  state.counters["tiles"] = double(edits.current().tile_count());
}
BENCHMARK(BM_Stroke50m)->Unit(benchmark::kMicrosecond);

// The benchmarks' world around a viewer at the origin, every wanted chunk resident.
std::unique_ptr<Streamer> drained_streamer(bool surface) {
  StreamerParams p;
  p.chunk.cells = 64;
  p.chunk.surface = surface;
  p.view_distance_m = 400.0;
  p.threads = 2;
  p.worker_priority = WorkerPriority::normal;
  auto s = std::make_unique<Streamer>(preset(), p);
  const Viewer v{};
  s->set_viewers({&v, 1});
  for (int frame = 0; frame < 200000 && !s->stats().view_complete; ++frame) {
    s->update();
    s->poll();
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return s;
}

// Polls until the last edit's chunks are all swapped in; returns how many were updated.
double settle(Streamer& s, std::uint64_t before) {
  do {
    s.update();
    s.poll();
  } while (s.stats().updates_pending > 0);
  return double(s.stats().updated - before);
}

void BM_StrokeToUpdatedChunks(benchmark::State& state) {
  const std::unique_ptr<Streamer> s = drained_streamer(false);
  HeightEdits edits(1.0, 64);
  std::int64_t k = 0;
  double chunks = 0.0;
  for (auto _ : state) {
    const std::uint64_t before = s->stats().updated;
    const LatticeRect r = edits.apply(stroke(k++), s->generator().graph());
    s->set_edits(edits.snapshot(), r);
    chunks += settle(*s, before);
  }
  state.counters["chunks_per_stroke"] = chunks / double(state.iterations());
}
BENCHMARK(BM_StrokeToUpdatedChunks)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_PaintToUpdatedChunks(benchmark::State& state) {
  const std::unique_ptr<Streamer> s = drained_streamer(true);
  const int layers = int(preset().surface.layers.size());
  SplatPaint paint(1.0, 64, layers);
  std::int64_t k = 0;
  double chunks = 0.0;
  for (auto _ : state) {
    const std::uint64_t before = s->stats().updated;
    const HeightBrush at = stroke(k);
    SplatBrush b;
    b.layer = int(k++ % layers);
    b.x_m = at.x_m;
    b.z_m = at.z_m;
    b.radius_m = 50.0;
    b.strength = 0.5;
    const LatticeRect r = paint.apply(b);
    s->set_paint(paint.snapshot(), r);
    chunks += settle(*s, before);
  }
  state.counters["chunks_per_stroke"] = chunks / double(state.iterations());
}
BENCHMARK(BM_PaintToUpdatedChunks)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_DigToUpdatedChunks(benchmark::State& state) {
  static const Preset blocks = parse_preset(builtin_preset_json("default"), "default");
  BlockStreamerParams p;
  p.view_distance_m = 160.0;
  p.vertical_distance_m = 96.0;
  p.threads = 2;
  p.worker_priority = WorkerPriority::normal;
  BlockStreamer s(blocks, p);
  const Viewer v{.x_m = 64.0, .y_m = 400.0, .z_m = 64.0};
  s.set_viewers({&v, 1});
  for (int frame = 0; frame < 400000 && !s.stats().view_complete; ++frame) {
    s.update();
    s.poll();
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  const VoxelParams& vp = blocks.voxel;
  const TerrainQuery ground(std::make_shared<const ChunkGenerator>(blocks, ChunkSettings{}));
  BlockEdits edits(vp.block_size_m, vp.chunk_size, int(vp.palette.types.size()));
  std::int64_t k = 0;
  double chunks = 0.0;
  for (auto _ : state) {
    const std::uint64_t before = s.stats().updated;
    // Dig a sphere at the ground, then restore it: each stroke changes blocks.
    const double x = 20.0 + double((k / 2) % 10) * 9.0;
    BlockBrush dig;
    dig.kind = k % 2 == 0 ? BlockBrushKind::dig : BlockBrushKind::restore;
    dig.x_m = x;
    dig.y_m = ground.height_at(x, 64.0);
    dig.z_m = 64.0;
    dig.radius_m = 4.0;
    ++k;
    edits.apply(dig);
    s.set_edits(nullptr, edits.snapshot());
    do {
      s.update();
      s.poll();
    } while (s.stats().updates_pending > 0);
    chunks += double(s.stats().updated - before);
  }
  state.counters["chunks_per_dig"] = chunks / double(state.iterations());
  state.counters["resident"] = double(s.stats().resident);
}
BENCHMARK(BM_DigToUpdatedChunks)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
