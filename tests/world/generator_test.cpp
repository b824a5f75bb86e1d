#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "terrane/world.hpp"

namespace terrane {
namespace {

Preset default_preset() { return parse_preset(builtin_preset_json("default"), "default"); }

TEST(ChunkKeyTest, AncestorIsFloorDivision) {
  EXPECT_EQ((ChunkKey{-1, -3, 0}.ancestor(1)), (ChunkKey{-1, -2, 1}));
  EXPECT_EQ((ChunkKey{5, 4, 2}.ancestor(2)), (ChunkKey{1, 1, 4}));
  for (int q = 0; q < 4; ++q) EXPECT_EQ((ChunkKey{-7, 3, 3}.child(q).ancestor(1)), (ChunkKey{-7, 3, 3}));
}

TEST(ChunkGeneratorTest, BytesMatchTheFormula) {
  for (bool indices : {true, false}) {
    ChunkSettings s;
    s.cells = 32;
    s.indices = indices;
    ChunkGenerator gen(default_preset(), s);
    ChunkData d;
    gen.generate({3, -2, 1}, {0, 1, 0, 2}, d);
    EXPECT_LE(d.bytes(), gen.chunk_bytes()) << indices;
    if (!indices) {
      EXPECT_EQ(d.bytes(), gen.chunk_bytes());
    }
    d.mesh.validate();
    ChunkData fresh;
    gen.generate({3, -2, 1}, {0, 0, 0, 0}, fresh);
    EXPECT_EQ(fresh.bytes(), gen.chunk_bytes()) << indices;
  }
}

TEST(ChunkGeneratorTest, IdenticalBytesForAnyOrderAndThread) {
  ChunkSettings s;
  s.cells = 32;
  const ChunkGenerator gen(default_preset(), s);
  std::vector<ChunkKey> keys;
  for (int l = 0; l < 3; ++l)
    for (int z = -2; z < 2; ++z)
      for (int x = -2; x < 2; ++x) keys.push_back({x, z, l});
  std::vector<std::uint64_t> ref(keys.size());
  ChunkData d;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    gen.generate(keys[k], {0, 0, 0, 0}, d);
    ref[k] = d.content_hash();
  }
  for (int threads : {2, 4}) {
    std::vector<std::size_t> order(keys.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), std::mt19937(unsigned(threads)));
    std::vector<std::uint64_t> got(keys.size());
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ChunkData local;
        for (std::size_t k = std::size_t(t); k < order.size(); k += std::size_t(threads)) {
          gen.generate(keys[order[k]], {0, 0, 0, 0}, local);
          got[order[k]] = local.content_hash();
        }
      });
    }
    for (auto& th : pool) th.join();
    EXPECT_EQ(got, ref) << threads << " threads";
  }
}

TEST(ChunkGeneratorTest, SharedVerticesOfDifferentLevelsAreBitIdentical) {
  ChunkSettings s;
  s.cells = 16;
  const ChunkGenerator gen(default_preset(), s);
  // A level-0 node and the level-1 node east of its parent: the level-0 node's east border
  // vertices at even positions are the level-1 node's west border vertices.
  ChunkData fine, coarse;
  const ChunkKey f{1, 2, 0};  // parent (0, 1, 1); east neighbour of the parent: (1, 1, 1)
  gen.generate(f, {0, 0, 0, 0}, fine);
  gen.generate({1, 1, 1}, {0, 0, 0, 0}, coarse);
  const int n = s.cells;
  // fine vertex (n, j) at world index (2n, 2n + j) of level 0 = coarse vertex (0, j') with
  // 2 * (n + j') = 2n + j  ->  j' = j / 2 for the lower half of the coarse edge... fine z index
  // = 2n + j (level 0), coarse z index at level 1 = n + j'; equal positions: 2n + j = 2(n + j').
  for (int j = 0; j <= n; j += 2) {
    const int jc = j / 2;
    EXPECT_EQ(fine.heights.at(n + 1, j + 1), coarse.heights.at(1, jc + 1)) << j;
    const double fx = fine.mesh.origin_x_m + double(fine.mesh.positions[3 * std::size_t(j * (n + 1) + n)]);
    const double cx = coarse.mesh.origin_x_m + double(coarse.mesh.positions[3 * std::size_t(jc * (n + 1))]);
    EXPECT_EQ(fx, cx);
  }
}

TEST(ChunkGeneratorTest, BigWorldChunksKeepTheirQuality) {
  ChunkSettings s;
  s.cells = 32;
  s.indices = false;
  const ChunkGenerator gen(default_preset(), s);
  const ChunkKey far = gen.key_at(1.0e8, -1.0e8, 0);
  ChunkData d;
  gen.generate(far, {0, 0, 0, 0}, d);
  EXPECT_NEAR(d.mesh.origin_x_m, 1.0e8, gen.chunk_size_m(0));
  // Vertex spacing stays exact in the chunk-relative floats.
  for (int i = 0; i <= s.cells; ++i) EXPECT_EQ(d.mesh.positions[3 * std::size_t(i)], float(i * gen.cell_size_m()));
  // Heights vary like near the origin (not a constant, not quantised to a few values).
  std::vector<float> h(d.heights.data);
  std::sort(h.begin(), h.end());
  const auto distinct = std::unique(h.begin(), h.end()) - h.begin();
  EXPECT_GT(distinct, std::ptrdiff_t(h.size() / 2));
}

TEST(ChunkGeneratorTest, BadInputIsRefusedPrecisely) {
  ChunkSettings s;
  s.cells = 100;
  EXPECT_THROW(ChunkGenerator(default_preset(), s), Error);
  try {
    ChunkGenerator(default_preset(), s);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("chunk.cells 100"), std::string::npos) << e.what();
  }
  s.cells = 16;
  const ChunkGenerator gen(default_preset(), s);
  ChunkData d;
  EXPECT_THROW(gen.generate({0, 0, kMaxChunkLevel + 1}, {0, 0, 0, 0}, d), Error);
  EXPECT_THROW(gen.generate({std::int64_t(1) << 40, 0, 0}, {0, 0, 0, 0}, d), Error);
  EXPECT_THROW(gen.generate({0, 0, 0}, {0, 5, 0, 0}, d), Error);
}

TEST(ChunkGeneratorTest, SurfaceDataIsSeamlessAndBounded) {
  ChunkSettings s;
  s.cells = 32;
  s.indices = false;
  s.surface = true;
  const ChunkGenerator gen(default_preset(), s);
  ChunkData a, b;
  gen.generate({4, -3, 0}, {0, 0, 0, 0}, a);
  gen.generate({5, -3, 0}, {0, 0, 0, 0}, b);  // east neighbour
  EXPECT_EQ(a.bytes(), gen.chunk_bytes());
  ASSERT_GT(a.splat_layers, 0);
  const int w = s.cells + 3;
  ASSERT_EQ(a.splat.size(), std::size_t(w) * std::size_t(w) * std::size_t(a.splat_layers));
  for (std::size_t c = 0; c < std::size_t(w) * std::size_t(w); ++c) {
    int sum = 0;
    for (int l = 0; l < a.splat_layers; ++l) sum += a.splat[c * std::size_t(a.splat_layers) + std::size_t(l)];
    ASSERT_EQ(sum, 255) << c;
  }
  // Shared border vertices: a's vertex (N, j) is b's vertex (0, j); compare their texels.
  for (int j = 0; j <= s.cells; ++j) {
    for (int l = 0; l < a.splat_layers; ++l) {
      const std::size_t ca = (std::size_t(j + 1) * std::size_t(w) + std::size_t(s.cells + 1)) * std::size_t(a.splat_layers);
      const std::size_t cb = (std::size_t(j + 1) * std::size_t(w) + 1) * std::size_t(a.splat_layers);
      ASSERT_EQ(a.splat[ca + std::size_t(l)], b.splat[cb + std::size_t(l)]) << j << " " << l;
    }
  }
  // Scatter: inside the node, and the two chunks together equal one query over both.
  const double size = gen.chunk_size_m(0);
  for (const ScatterInstance& p : a.scatter) {
    EXPECT_GE(p.x_m, 4 * size);
    EXPECT_LT(p.x_m, 5 * size);
    EXPECT_GE(p.z_m, -3 * size);
    EXPECT_LT(p.z_m, -2 * size);
  }
  std::vector<ScatterInstance> whole;
  scatter_chunk(gen.graph(), parse_surface(default_preset()), default_preset().seed, 4 * size,
                -3 * size, 6 * size, -2 * size, whole, {},
                nullptr);
  EXPECT_EQ(whole.size(), a.scatter.size() + b.scatter.size());
  EXPECT_GT(a.scatter.size() + b.scatter.size(), 0u);
  // Coarse nodes carry splat weights but no scatter.
  ChunkData c;
  gen.generate({0, 0, 2}, {0, 0, 0, 0}, c);
  EXPECT_TRUE(c.scatter.empty());
  EXPECT_FALSE(c.splat.empty());
}

ChunkGenerator surface_generator(int cells) {
  ChunkSettings s;
  s.cells = cells;
  s.surface = true;
  return ChunkGenerator(default_preset(), s);
}

// ExecContext::simd (here over a process-wide scalar) and ctx.threads change nothing.
TEST(ChunkGeneratorTest, ContextSimdTargetAndThreadsGiveIdenticalBytes) {
  struct Restore {
    ~Restore() { set_simd_target(SimdTarget::best); }
  } restore;
  set_simd_target(SimdTarget::scalar);
  const ChunkGenerator gen = surface_generator(32);
  for (const ChunkKey key : {ChunkKey{2, -3, 0}, ChunkKey{-1, 0, 1}}) {
    ChunkData ref;
    gen.generate(key, {0, 1, 0, 0}, ref, ExecContext{.threads = 1});
    for (SimdTarget t : supported_simd_targets()) {
      for (int threads : {1, 2}) {
        ChunkData d;
        ChunkScratch scratch;
        gen.generate(key, {0, 1, 0, 0}, d, ExecContext{.threads = threads, .simd = t}, &scratch);
        EXPECT_EQ(d.content_hash(), ref.content_hash()) << to_string(t) << " threads " << threads;
      }
    }
  }
}

// One scratch reused over chunks of every kind in random order gives the bytes of per-call
// buffers, and never holds more than scratch_bytes(), which is not a gross overestimate.
TEST(ChunkGeneratorTest, ScratchReuseGivesSameBytesWithinItsBound) {
  for (int cells : {16, 64}) {
    SCOPED_TRACE(cells);
    const ChunkGenerator gen = surface_generator(cells);
    ASSERT_GT(gen.scratch_bytes(), 0u);
    std::vector<ChunkKey> keys;
    for (int k = 0; k < 12; ++k) keys.push_back(ChunkKey{k % 4 - 2, k / 4 - 5, 0});
    keys.push_back(ChunkKey{7, 7, 2});
    keys.push_back(ChunkKey{-100000, 3, 0});
    keys.push_back(ChunkKey{1, 1, 1});
    std::mt19937 rng(5);  // test-only randomness for the order
    std::shuffle(keys.begin(), keys.end(), rng);
    ChunkScratch scratch;
    ChunkData reused;
    std::size_t most = 0;
    for (const ChunkKey& key : keys) {
      ChunkData fresh;
      gen.generate(key, {0, 0, 0, 0}, fresh);
      gen.generate(key, {0, 0, 0, 0}, reused, ExecContext{.threads = 1}, &scratch);
      EXPECT_EQ(reused.content_hash(), fresh.content_hash()) << key.cx << " " << key.cz;
      most = std::max(most, scratch.bytes());
      EXPECT_LE(scratch.bytes(), gen.scratch_bytes());
    }
    EXPECT_GT(most, gen.scratch_bytes() / 2);
  }
  ChunkSettings plain;
  plain.cells = 16;
  const ChunkGenerator no_surface(default_preset(), plain);
  EXPECT_EQ(no_surface.scratch_bytes(), 0u);
  ChunkScratch scratch;
  ChunkData d;
  no_surface.generate({0, 0, 0}, {0, 0, 0, 0}, d, {}, &scratch);
  EXPECT_EQ(scratch.bytes(), 0u);
}

TEST(ChunkGeneratorTest, CancellationIsReportedAsCancelled) {
  const ChunkGenerator gen = surface_generator(16);
  std::atomic<bool> stop{true};
  ChunkData d;
  try {
    gen.generate({0, 0, 0}, {0, 0, 0, 0}, d, ExecContext{.cancel = &stop});
    FAIL() << "expected cancellation";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::cancelled) << e.what();
  }
}

// The surface of a mesh at world (x, z): the triangle of its surface indices containing the
// point, interpolated (brute force).
double mesh_surface_at(const Mesh& m, double x, double z) {
  for (std::size_t t = 0; t + 2 < m.surface_index_count; t += 3) {
    double px[3], py[3], pz[3];
    for (int k = 0; k < 3; ++k) {
      const std::size_t v = m.index(t + std::size_t(k));
      px[k] = m.origin_x_m + double(m.positions[3 * v]);
      py[k] = double(m.positions[3 * v + 1]);
      pz[k] = m.origin_z_m + double(m.positions[3 * v + 2]);
    }
    const double d = (pz[1] - pz[2]) * (px[0] - px[2]) + (px[2] - px[1]) * (pz[0] - pz[2]);
    const double a = ((pz[1] - pz[2]) * (x - px[2]) + (px[2] - px[1]) * (z - pz[2])) / d;
    const double b = ((pz[2] - pz[0]) * (x - px[2]) + (px[0] - px[2]) * (z - pz[2])) / d;
    const double c = 1.0 - a - b;
    if (a >= -1e-9 && b >= -1e-9 && c >= -1e-9) return a * py[0] + b * py[1] + c * py[2];
  }
  return std::nan("");
}

TEST(ChunkGeneratorTest, GeomorphTargetsAreTheParentNodesSurface) {
  ChunkSettings s;
  s.cells = 16;
  const ChunkGenerator gen(default_preset(), s);
  for (const ChunkKey parent : {ChunkKey{3, -2, 2}, ChunkKey{-1, -1, 1}}) {
    ChunkData p;
    gen.generate(parent, {0, 0, 0, 0}, p);
    for (int q = 0; q < 4; ++q) {
      ChunkData c;
      gen.generate(parent.child(q), {0, 0, 0, 0}, c);
      const Mesh& m = c.mesh;
      int checked = 0;
      for (std::size_t v = 0; v < m.vertex_count(); ++v) {
        const double x = m.origin_x_m + double(m.positions[3 * v]);
        const double z = m.origin_z_m + double(m.positions[3 * v + 2]);
        const double want = mesh_surface_at(p.mesh, x, z);
        ASSERT_FALSE(std::isnan(want));
        EXPECT_NEAR(double(m.morph_y[v]), want, 1e-3) << "quadrant " << q << " vertex " << v;
        ++checked;
      }
      EXPECT_EQ(checked, (s.cells + 1) * (s.cells + 1));
    }
  }
}

}  // namespace
}  // namespace terrane
