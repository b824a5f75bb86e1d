// World files (issue 16): the commit of one brush stroke (a 50 m brush at 1 m cells, 128-cell
// chunks) with each durability, and the open of a world with 10,000 edited chunks (one 40 m
// stroke per chunk over a 100 x 100 chunk square: 12.8 km at 1 m cells, about 655 MB of deltas
// in memory once loaded). Counters: the compressed bytes of a commit and of an edited chunk.
// Files go to $TERRANE_BENCH_DIR (default: the current directory), which should be on the disk
// a game would save to: fsync on a tmpfs costs nothing.
// Medians: --benchmark_repetitions=7 --benchmark_report_aggregates_only=true.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "store/edit_blob.hpp"
#include "terrane/edit.hpp"
#include "terrane/store.hpp"

namespace {

using namespace terrane;
namespace fs = std::filesystem;

const Preset& preset() {
  static const Preset p = parse_preset(builtin_preset_json("default"), "default",
                                       std::vector<std::string>{"world.cell_size_m=1"});
  return p;
}

fs::path bench_file(const char* name) {
  const char* dir = std::getenv("TERRANE_BENCH_DIR");
  return fs::path(dir ? dir : ".") / name;
}

void remove_world(const fs::path& f) {
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(fs::path(f.string() + suffix));
}

void BM_CommitStroke(benchmark::State& state) {
  const auto durability = state.range(0) == 0 ? Durability::normal : Durability::full;
  const fs::path file = bench_file("bench_commit.world");
  remove_world(file);
  WorldCreateOptions options;
  options.durability = durability;
  WorldStore world = WorldStore::create(file, preset(), options);
  const CompiledGraph graph = compile(preset());
  HeightEdits edits(1.0, 128);
  std::int64_t k = 0;
  double bytes = 0.0, tiles = 0.0, slowest = 0.0;
  for (auto _ : state) {
    HeightBrush b;
    b.kind = k % 2 == 0 ? BrushKind::raise : BrushKind::noise;
    b.x_m = double(k % 9) * 97.0;
    b.z_m = double(k % 11) * 61.0;
    b.radius_m = 50.0;
    b.strength_m = 2.0;
    b.noise.frequency = 0.05;
    ++k;
    edits.apply(b, graph);
    const auto snap = edits.snapshot();
    const auto t0 = std::chrono::steady_clock::now();
    const WorldCommit c = world.commit(snap, "bench stroke");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s);
    slowest = std::max(slowest, s);
    bytes += double(c.bytes_written);
    tiles += double(c.tiles_written);
  }
  state.counters["bytes_per_commit"] = bytes / double(state.iterations());
  state.counters["tiles_per_commit"] = tiles / double(state.iterations());
  state.counters["slowest_us"] = slowest * 1e6;
  remove_world(file);
}
BENCHMARK(BM_CommitStroke)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("full_sync")
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// One 128^2 tile of a 50 m raise (smooth) or noise (rough) stroke, encoded and decoded.
HeightEditSnapshot::Tile stroke_tile(bool rough) {
  HeightEdits edits(1.0, 128);
  HeightBrush b;
  b.kind = rough ? BrushKind::noise : BrushKind::raise;
  b.x_m = 64.0, b.z_m = 64.0, b.radius_m = 50.0, b.strength_m = 2.0;
  b.noise.frequency = 0.05;
  edits.apply(b, compile(preset()));
  return *edits.current().tiles().at({0, 0});
}

void BM_EncodeHeightTile(benchmark::State& state) {
  const HeightEditSnapshot::Tile tile = stroke_tile(state.range(0) != 0);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto blob = store_detail::encode_height_tile(tile, 128);
    bytes = blob.size();
    benchmark::DoNotOptimize(blob.data());
  }
  state.counters["bytes"] = double(bytes);
}
BENCHMARK(BM_EncodeHeightTile)->Arg(0)->Arg(1)->ArgName("noise")->Unit(benchmark::kMicrosecond);

void BM_DecodeHeightTile(benchmark::State& state) {
  const auto blob = store_detail::encode_height_tile(stroke_tile(state.range(0) != 0), 128);
  for (auto _ : state) {
    const auto tile = store_detail::decode_height_tile(blob, 128, "bench");
    benchmark::DoNotOptimize(tile.data());
  }
}
BENCHMARK(BM_DecodeHeightTile)->Arg(0)->Arg(1)->ArgName("noise")->Unit(benchmark::kMicrosecond);

// The 10,000-chunk world, made once per process.
const fs::path& big_world() {
  static const fs::path file = [] {
    const fs::path f = bench_file("bench_open_10k.world");
    remove_world(f);
    WorldStore w = WorldStore::create(f, preset());
    const CompiledGraph graph = compile(preset());
    HeightEdits edits(1.0, 128);
    for (int cz = 0; cz < 100; ++cz) {
      for (int cx = 0; cx < 100; ++cx) {
        HeightBrush b;
        b.kind = (cx + cz) % 3 == 0 ? BrushKind::lower : BrushKind::raise;
        b.x_m = cx * 128.0 + 64.0 + double((cx * 7 + cz * 13) % 40) - 20.0;
        b.z_m = cz * 128.0 + 64.0 + double((cx * 11 + cz * 5) % 40) - 20.0;
        b.radius_m = 40.0;
        b.strength_m = 3.0;
        edits.apply(b, graph);
      }
    }
    w.commit(edits.current(), "10,000 strokes");
    return f;
  }();
  return file;
}

void BM_OpenWorld10k(benchmark::State& state) {
  const fs::path& file = big_world();
  std::size_t tiles = 0, bytes = 0;
  for (auto _ : state) {
    const WorldStore w = WorldStore::open(file);
    tiles = w.info().height_tiles;
    bytes = w.info().blob_bytes;
    benchmark::DoNotOptimize(w.height_edits().tile_count());
  }
  state.counters["edited_chunks"] = double(tiles);
  state.counters["bytes_per_chunk"] = double(bytes) / double(tiles);
}
BENCHMARK(BM_OpenWorld10k)->UseRealTime()->Unit(benchmark::kMillisecond);

// A 50 m raise stroke committed into the 10,000-chunk world (normal durability): the cost a
// large saved game pays per stroke, the walk over every edited chunk included.
void BM_CommitStrokeInto10kWorld(benchmark::State& state) {
  WorldStore world = WorldStore::open(big_world());
  const CompiledGraph graph = compile(preset());
  HeightEdits edits(world.height_edits());
  std::int64_t k = 0;
  double slowest = 0.0;
  for (auto _ : state) {
    HeightBrush b;
    b.kind = k % 2 == 0 ? BrushKind::raise : BrushKind::lower;
    b.x_m = double(k % 13) * 500.0 + 300.0;
    b.z_m = double(k % 7) * 900.0 + 500.0;
    b.radius_m = 50.0;
    b.strength_m = 1.0;
    ++k;
    edits.apply(b, graph);
    const auto snap = edits.snapshot();
    const auto t0 = std::chrono::steady_clock::now();
    world.commit(snap, "bench stroke");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s);
    slowest = std::max(slowest, s);
  }
  state.counters["slowest_us"] = slowest * 1e6;
}
BENCHMARK(BM_CommitStrokeInto10kWorld)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
