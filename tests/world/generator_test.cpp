#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "support/expect_error.hpp"
#include "support/test_rng.hpp"
#include "terrane/field.hpp"
#include "terrane/world.hpp"

namespace terrane {
namespace {

Preset default_preset() {
  return parse_preset(builtin_preset_json("default"), "default");
}

TEST(ChunkKeyTest, AncestorIsFloorDivision) {
  EXPECT_EQ((ChunkKey{-1, -3, 0}.ancestor(1)), (ChunkKey{-1, -2, 1}));
  EXPECT_EQ((ChunkKey{5, 4, 2}.ancestor(2)), (ChunkKey{1, 1, 4}));
  for (int q = 0; q < 4; ++q)
    EXPECT_EQ((ChunkKey{-7, 3, 3}.child(q).ancestor(1)), (ChunkKey{-7, 3, 3}));
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
    test::shuffle(order, std::uint64_t(threads));
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
    const double fx =
        fine.mesh.origin_x_m + double(fine.mesh.positions[3 * std::size_t(j * (n + 1) + n)]);
    const double cx =
        coarse.mesh.origin_x_m + double(coarse.mesh.positions[3 * std::size_t(jc * (n + 1))]);
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
  for (int i = 0; i <= s.cells; ++i)
    EXPECT_EQ(d.mesh.positions[3 * std::size_t(i)], float(i * gen.cell_size_m()));
  // Heights vary like near the origin (not a constant, not quantised to a few values).
  std::vector<float> h(d.heights.data);
  std::sort(h.begin(), h.end());
  const auto distinct = std::unique(h.begin(), h.end()) - h.begin();
  EXPECT_GT(distinct, std::ptrdiff_t(h.size() / 2));
}

TEST(ChunkGeneratorTest, BadInputIsRefusedPrecisely) {
  using test::expect_error;
  ChunkSettings s;
  s.cells = 100;
  expect_error([&] { ChunkGenerator(default_preset(), s); }, ErrorCategory::invalid_argument,
               {"chunk.cells 100", "must be a power of two in [8, 1024]"});
  s.cells = 4;
  expect_error([&] { ChunkGenerator(default_preset(), s); }, ErrorCategory::invalid_argument,
               {"chunk.cells 4", "[8, 1024]"});
  s.cells = 16;
  const ChunkGenerator gen(default_preset(), s);
  ChunkData d;
  expect_error(
      [&] {
        gen.generate({0, 0, kMaxChunkLevel + 1}, {0, 0, 0, 0}, d);
      },
      ErrorCategory::invalid_argument, {"chunk (0, 0, level 21)", "level must be in 0..20"});
  expect_error(
      [&] {
        gen.generate({std::int64_t(1) << 40, 0, 0}, {0, 0, 0, 0}, d);
      },
      ErrorCategory::invalid_argument,
      {"chunk (1099511627776, 0, level 0)", "beyond the world limit of 1099511627776"});
  expect_error(
      [&] {
        gen.generate({0, 0, 0}, {0, 5, 0, 0}, d);
      },
      ErrorCategory::invalid_argument, {"coarser_neighbour[", "5", "0..4"});
}

// Bit patterns of every field of an instance, for byte-for-byte comparison with readable output.
std::string bits_of(const ScatterInstance& p) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "species %d x %a z %a y %a yaw %a scale_xz %a scale_y %a normal (%a, %a, %a)",
                p.species, p.x_m, p.z_m, double(p.y_m), double(p.yaw_deg), double(p.scale_xz),
                double(p.scale_y), double(p.normal[0]), double(p.normal[1]), double(p.normal[2]));
  return buf;
}

// Sorted by (species, z, x) and then every other field: a deterministic order for comparing
// instance sets that were produced in different orders.
void sort_instances(std::vector<ScatterInstance>& v) {
  auto key = [](const ScatterInstance& p) {
    return std::tuple(p.species, p.z_m, p.x_m, p.y_m, p.yaw_deg, p.scale_xz, p.scale_y, p.normal);
  };
  std::sort(v.begin(), v.end(),
            [&](const ScatterInstance& a, const ScatterInstance& b) { return key(a) < key(b); });
}

// The same instances, byte for byte (every field: position doubles, y, yaw, scales, normal,
// species), in any order.
void expect_same_instances(std::vector<ScatterInstance> got, std::vector<ScatterInstance> want) {
  sort_instances(got);
  sort_instances(want);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(std::memcmp(&got[k], &want[k], sizeof(ScatterInstance)), 0)
        << "instance " << k << ": got " << bits_of(got[k]) << ", want " << bits_of(want[k]);
  }
}

TEST(ChunkGeneratorTest, SurfaceDataIsSeamlessAndBounded) {
  ChunkSettings s;
  s.cells = 32;
  s.indices = false;
  s.surface = true;
  const Preset preset = default_preset();
  const ChunkGenerator gen(preset, s);
  ChunkData a, b;
  // Two land chunks with hundreds of instances each (a coast or sea chunk could have none).
  const std::int64_t cx = 3, cz = -1;
  gen.generate({cx, cz, 0}, {0, 0, 0, 0}, a);
  gen.generate({cx + 1, cz, 0}, {0, 0, 0, 0}, b);  // east neighbour
  EXPECT_EQ(a.bytes(), gen.chunk_bytes());
  ASSERT_EQ(a.splat_layers, int(preset.surface.layers.size()));
  const int n = s.cells;
  const int w = n + 3;
  const std::size_t layers = std::size_t(a.splat_layers);
  ASSERT_EQ(a.splat.size(), std::size_t(w) * std::size_t(w) * layers);
  ASSERT_EQ(b.splat.size(), a.splat.size());
  ASSERT_EQ(a.biome.size(), std::size_t(w) * std::size_t(w));
  ASSERT_EQ(b.biome.size(), a.biome.size());
  for (std::size_t c = 0; c < std::size_t(w) * std::size_t(w); ++c) {
    int sum = 0;
    for (std::size_t l = 0; l < layers; ++l) sum += a.splat[c * layers + l];
    ASSERT_EQ(sum, 255) << c;
  }
  // Shared border vertices: a's vertex (N, j) is b's vertex (0, j); compare their texels.
  for (int j = 0; j <= n; ++j) {
    for (std::size_t l = 0; l < layers; ++l) {
      const std::size_t ca = (std::size_t(j + 1) * std::size_t(w) + std::size_t(n + 1)) * layers;
      const std::size_t cb = (std::size_t(j + 1) * std::size_t(w) + 1) * layers;
      ASSERT_EQ(a.splat[ca + l], b.splat[cb + l]) << j << " " << l;
    }
  }
  // Every vertex texel of both chunks equals the surface computed over the two chunks as one
  // region (heights with the same one-sample halo around both), byte for byte.
  const SurfaceParams& params = preset.surface;
  const ClimateSources sources = compile_climate_sources(preset.generator(), params.climate);
  GridSpec both = gen.height_grid(a.key);
  both.width = 2 * n + 3;
  Field2D h(both);
  evaluate(gen.graph(), both, h.data);
  Climate climate;
  compute_climate(params.climate, preset.seed, h, {}, climate, {}, &sources);
  BiomeWeights biomes;
  compute_biome_weights(params, h, climate, biomes);
  Field2D slope(both);
  slope_deg_clamped(h, slope);
  SplatMap splat;
  compute_splat(params, preset.seed, h, slope, biomes, splat);
  std::vector<std::uint8_t> whole_splat;
  splat_to_u8(splat, whole_splat);
  ASSERT_EQ(std::size_t(splat.layer_count), layers);
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) {
      const std::size_t local = std::size_t(j + 1) * std::size_t(w) + std::size_t(i + 1);
      const std::size_t in_a = std::size_t(j + 1) * std::size_t(both.width) + std::size_t(i + 1);
      const std::size_t in_b = in_a + std::size_t(n);
      ASSERT_EQ(a.heights.data[local], h.data[in_a]) << i << ", " << j;
      ASSERT_EQ(b.heights.data[local], h.data[in_b]) << i << ", " << j;
      for (std::size_t l = 0; l < layers; ++l) {
        ASSERT_EQ(a.splat[local * layers + l], whole_splat[in_a * layers + l])
            << "chunk a vertex " << i << ", " << j << " layer " << l;
        ASSERT_EQ(b.splat[local * layers + l], whole_splat[in_b * layers + l])
            << "chunk b vertex " << i << ", " << j << " layer " << l;
      }
      // Dominant biomes (the viewer's biome overlay), likewise.
      ASSERT_EQ(a.biome[local], biomes.dominant[in_a]) << "chunk a vertex " << i << ", " << j;
      ASSERT_EQ(b.biome[local], biomes.dominant[in_b]) << "chunk b vertex " << i << ", " << j;
    }
  }
  // Scatter: inside the node, and the two chunks together hold exactly the instances of one
  // query over both.
  const double size = gen.chunk_size_m(0);
  const double x0 = double(cx) * size, z0 = double(cz) * size;
  for (const ScatterInstance& p : a.scatter) {
    EXPECT_GE(p.x_m, x0);
    EXPECT_LT(p.x_m, x0 + size);
    EXPECT_GE(p.z_m, z0);
    EXPECT_LT(p.z_m, z0 + size);
  }
  for (const ScatterInstance& p : b.scatter) {
    EXPECT_GE(p.x_m, x0 + size);
    EXPECT_LT(p.x_m, x0 + 2 * size);
    EXPECT_GE(p.z_m, z0);
    EXPECT_LT(p.z_m, z0 + size);
  }
  std::vector<ScatterInstance> whole;
  scatter_chunk(gen.graph(), params, preset.seed, x0, z0, x0 + 2 * size, z0 + size,
                gen.settings().cells, whole, {},
                &sources);
  EXPECT_EQ(whole.size(), a.scatter.size() + b.scatter.size());
  EXPECT_GT(a.scatter.size(), 100u);
  EXPECT_GT(b.scatter.size(), 100u);
  std::vector<ScatterInstance> parts = a.scatter;
  parts.insert(parts.end(), b.scatter.begin(), b.scatter.end());
  expect_same_instances(parts, whole);
  // The generator's own query (one thread) on all threads: the same bytes in the same order.
  std::vector<ScatterInstance> only_a;
  scatter_chunk(gen.graph(), params, preset.seed, x0, z0, x0 + size, z0 + size,
                gen.settings().cells, only_a, {},
                &sources);
  ASSERT_EQ(only_a.size(), a.scatter.size());
  EXPECT_EQ(std::memcmp(only_a.data(), a.scatter.data(), only_a.size() * sizeof(ScatterInstance)),
            0);
  // Coarse nodes carry splat weights but no scatter.
  ChunkData c;
  gen.generate({0, 0, 2}, {0, 0, 0, 0}, c);
  EXPECT_TRUE(c.scatter.empty());
  EXPECT_FALSE(c.splat.empty());
  ASSERT_EQ(c.splat_layers, a.splat_layers);
  ASSERT_EQ(c.splat.size(), a.splat.size());
  for (std::size_t t = 0; t < std::size_t(w) * std::size_t(w); ++t) {
    int sum = 0;
    for (std::size_t l = 0; l < layers; ++l) sum += c.splat[t * layers + l];
    ASSERT_EQ(sum, 255) << t;
  }
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
    test::shuffle(keys, 5);  // the order: counter-based, the same on every standard library
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
