// Block worlds: the voxel section, volume graphs, chunk generation as a pure function (seams,
// order, threads, SIMD targets), materials, caves with entrances, no floating blocks, trees
// crossing chunk borders, compact storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <random>
#include <string>

#include "support/float_bits.hpp"
#include "terrane/erosion.hpp"
#include "terrane/preset.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace {

std::int64_t floor_div_test(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

const Preset& default_preset() {
  static const Preset p = load_preset("default");
  return p;
}

const BlockWorldGenerator& default_generator() {
  static const BlockWorldGenerator g(default_preset().generator(), default_preset().surface,
                                     default_preset().voxel);
  return g;
}

// A column whose 2D surface is above sea level and below 300 m: the search starts at the origin.
std::array<std::int64_t, 2> land_column() {
  const Preset& p = default_preset();
  const CompiledGraph g = compile(p);
  for (int r = 0; r < 64; ++r) {
    for (int k = 0; k < 8 * r + 1; ++k) {
      const double a = double(k) / double(8 * r + 1) * 6.283185307179586;
      const double x = 64.0 * r * std::cos(a), z = 64.0 * r * std::sin(a);
      const float h = evaluate_at(g, x + 0.5, z + 0.5);
      if (h > float(p.world.sea_level_m) + 20.0f && h < 300.0f) {
        return {std::int64_t(x), std::int64_t(z)};
      }
    }
  }
  return {0, 0};
}

TEST(VolumeGraph, YNodeAndHeightInputGiveTheLinearDensity) {
  const Preset p = load_preset("default");
  Graph g = parse_graph_section(
      R"({"output": "d", "nodes": {"h": {"type": "input", "name": "height_m"},
          "y": {"type": "y"}, "d": {"type": "sub", "a": "h", "b": "y"}}})",
      p.world, "test", "voxel.density");
  const std::string_view names[] = {"height_m"};
  const CompiledGraph c = compile_volume(g, p.world, 1, "test", names);
  GridSpec3 g3{.size_x = 3, .size_y = 4, .size_z = 2, .spacing_m = 2.0};
  g3.origin_y_m = -3.0;
  std::vector<float> heights = {1, 2, 3, 4, 5, 6};  // [k * 3 + i]
  std::vector<float> out(g3.sample_count());
  const InputField in{"height_m", heights};
  evaluate_volume(c, g3, out, {}, std::span<const InputField>(&in, 1));
  for (int k = 0; k < 2; ++k) {
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(out[(std::size_t(k) * 4 + std::size_t(j)) * 3 + std::size_t(i)],
                  heights[std::size_t(k) * 3 + std::size_t(i)] - float(g3.y_m(j)));
      }
    }
  }
  // A plane graph refuses y; the plane evaluator refuses a volume program and vice versa.
  EXPECT_NE(message_of([&] {
              (void)compile(g, p.world, 1, "test", names);
            }).find("a 'y' node reads the height of a 3D sample"),
            std::string::npos);
  std::vector<float> plane(4);
  EXPECT_NE(message_of([&] {
              evaluate(c, GridSpec{.width = 2, .height = 2}, plane);
            }).find("compiled for volumes"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)parse_preset(R"({"graph": {"output": "y", "nodes": {"y": {"type": "y"}}}})",
                                 "test");
            }).find("test: graph.nodes.y: a 'y' node reads the height of a 3D sample"),
            std::string::npos);
}

TEST(VolumeGraph, ThreeDWarpAndNoiseAreIdenticalAcrossThreadsTargetsAndSplits) {
  const Preset& p = default_preset();
  const std::string_view names[] = {"height_m"};
  const CompiledGraph c = compile_volume(p.voxel.density, p.world, p.seed, p.source, names);
  GridSpec3 g3{.size_x = 37, .size_y = 9, .size_z = 11, .spacing_m = 4.0};
  g3.index_x0 = -1000003, g3.index_y0 = -5, g3.index_z0 = 77;
  std::vector<float> heights(std::size_t(37) * 11);
  for (std::size_t k = 0; k < heights.size(); ++k) heights[k] = float(k % 23) * 1.5f;
  const InputField in{"height_m", heights};
  std::vector<float> ref(g3.sample_count());
  evaluate_volume(c, g3, ref, ExecContext{.threads = 1}, std::span<const InputField>(&in, 1));
  for (SimdTarget t : supported_simd_targets()) {
    std::vector<float> got(g3.sample_count());
    evaluate_volume(c, g3, got, ExecContext{.threads = 2, .simd = t},
                    std::span<const InputField>(&in, 1));
    EXPECT_EQ(test::float_bits(got), test::float_bits(ref)) << to_string(t);
  }
  // A sub-box (x 5..20, y 2..6, z 3..9) has the same values at the same positions.
  GridSpec3 sub = g3;
  sub.size_x = 16, sub.size_y = 5, sub.size_z = 7;
  sub.index_x0 += 5, sub.index_y0 += 2, sub.index_z0 += 3;
  std::vector<float> sub_heights;
  for (int k = 0; k < 7; ++k) {
    for (int i = 0; i < 16; ++i)
      sub_heights.push_back(heights[std::size_t(k + 3) * 37 + std::size_t(i + 5)]);
  }
  const InputField sin{"height_m", sub_heights};
  std::vector<float> part(sub.sample_count());
  evaluate_volume(c, sub, part, {}, std::span<const InputField>(&sin, 1));
  for (int k = 0; k < 7; ++k) {
    for (int j = 0; j < 5; ++j) {
      for (int i = 0; i < 16; ++i) {
        ASSERT_EQ(part[(std::size_t(k) * 5 + std::size_t(j)) * 16 + std::size_t(i)],
                  ref[(std::size_t(k + 3) * 9 + std::size_t(j + 2)) * 37 + std::size_t(i + 5)]);
      }
    }
  }
}

TEST(VolumeNoise, WarpedRowEqualsTheNoiseAtTheDisplacedPositions) {
  NoiseParams p;
  p.frequency = 0.05;
  p.fractal = FractalType::fbm;
  p.octaves = 3;
  for (NoiseType type : {NoiseType::perlin, NoiseType::opensimplex2, NoiseType::value}) {
    p.type = type;
    GridSpec3 g{.size_x = 21, .size_y = 3, .size_z = 2, .spacing_m = 1.0};
    const NoiseVolumeSampler s(p, g);
    std::vector<float> dx(21), dy(21), dz(21), out(21);
    for (int i = 0; i < 21; ++i) {
      dx[std::size_t(i)] = 0.37f * float(i % 5);
      dy[std::size_t(i)] = -1.25f + 0.1f * float(i);
      dz[std::size_t(i)] = 2.5f;
    }
    s.row(1, 1, 0, out, dx.data(), dy.data(), dz.data());
    for (int i = 0; i < 21; ++i) {
      const double x = g.x_m(i) + dx[std::size_t(i)], y = g.y_m(1) + dy[std::size_t(i)],
                   z = g.z_m(1) + dz[std::size_t(i)];
      EXPECT_NEAR(out[std::size_t(i)], noise_at(p, x, y, z), 2e-5) << to_string(type) << " " << i;
    }
    // Zero displacement is bit-identical to the unwarped row.
    std::vector<float> zero(21, 0.0f), plain(21);
    s.row(2, 0, 0, out, zero.data(), zero.data(), zero.data());
    s.row(2, 0, 0, plain);
    EXPECT_EQ(out, plain);
  }
}

TEST(BlockWorld, BadSectionsAreRefusedWithPreciseMessages) {
  EXPECT_NE(message_of([] { (void)load_preset("default", {{"voxel={\"chunk_size\": 24}"}}); })
                .find("voxel.chunk_size: 24 is not an allowed chunk size: a power of two 8, 16 or "
                      "32"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              (void)load_preset("default", {{"voxel={\"density_step\": 3}"}});
            }).find("voxel.density_step: 3 is not allowed"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              (void)load_preset(
                  "default", {{"voxel={\"top\": [{\"biome\": \"forest\", \"top\": \"moss\"}]}"}});
            }).find("voxel.top[0].top: unknown block 'moss'"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              (void)load_preset(
                  "default", {{"voxel={\"top\": [{\"biome\": \"jungle\", \"top\": \"grass\"}]}"}});
            }).find("voxel.top[0].biome: unknown biome 'jungle'"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              (void)load_preset("default", {{"voxel={\"blocks\": [{\"name\": \"stone\", \"kind\": "
                                             "\"rock\"}]}"}});
            }).find("unknown block kind 'rock'"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              (void)load_preset("default", {{"voxel={\"density\": {\"output\": \"d\", \"nodes\": "
                                             "{\"d\": {\"type\": \"input\", \"name\": \"h\"}}}}"}});
            }).find("unknown input 'h'"),
            std::string::npos);
}

TEST(BlockWorld, DensitiesThatAreEverywhereSolidOrEmptyAreWarned) {
  EXPECT_TRUE(default_generator().warnings().empty());
  for (const char* value : {"-1", "1"}) {
    const Preset p = load_preset(
        "default", {{std::string("voxel={\"density\": {\"output\": \"c\", \"nodes\": {\"c\": "
                                 "{\"type\": \"constant\", \"value\": ") +
                     value + "}}}}"}});
    const BlockWorldGenerator g(p.generator(), p.surface, p.voxel);
    ASSERT_EQ(g.warnings().size(), 1u);
    EXPECT_NE(
        g.warnings()[0].find(value[0] == '-' ? "every probe is empty" : "every probe is solid"),
        std::string::npos)
        << g.warnings()[0];
  }
}

// Water fills every non-solid block below sea level; where the column is colder than
// ice_below_c its top water block is ice.
TEST(BlockWorld, SeaIsWaterUnderIceWhereCold) {
  for (const bool cold : {false, true}) {
    std::vector<std::string> set;
    if (cold) set.push_back("surface={\"climate\": {\"temperature_mean_c\": -30}}");
    const Preset p = load_preset("default", set);
    const BlockWorldGenerator g(p.generator(), p.surface, p.voxel);
    const CompiledGraph g2 = compile(p);
    std::int64_t x = 0, z = 0;
    for (int k = 0; k < 4000; ++k) {
      const double xx = 300.0 * (k % 63) - 9000.0, zz = 300.0 * (k / 63) - 9000.0;
      if (evaluate_at(g2, xx + 0.5, zz + 0.5) < float(p.world.sea_level_m) - 20.0f) {
        x = std::int64_t(xx), z = std::int64_t(zz);
        break;
      }
    }
    BlockRegion r;
    const std::int64_t sea_row = std::int64_t(std::floor(p.world.sea_level_m)) - 1;
    g.generate_region(x, sea_row - 3, z, 8, 6, 8, r, {});
    const std::uint16_t water = g.block_id("water"), ice = g.block_id("ice");
    for (int c = 0; c < 8; ++c) {
      for (int a = 0; a < 8; ++a) {
        EXPECT_EQ(r.at(a, 3, c), cold ? ice : water) << "the top sea block";
        EXPECT_EQ(r.at(a, 2, c), water);
        EXPECT_EQ(r.at(a, 4, c), 0) << "air above the sea";
      }
    }
  }
}

TEST(BlockWorld, CompactChunksDecodeToTheirBlocks) {
  const BlockWorldGenerator& gen = default_generator();
  const auto [x, z] = land_column();
  BlockScratch scratch;
  BlockChunkData data;
  std::vector<std::uint16_t> ids;
  int uniform = 0, mixed = 0;
  for (std::int64_t cy = -8; cy <= 12; ++cy) {
    const BlockChunkKey key{x / 32, cy, z / 32};
    gen.generate(key, data, &scratch);
    data.chunk.decode(ids);
    const int S = 32, P = 34;
    for (int yy = 0; yy < S; ++yy) {
      for (int zz = 0; zz < S; ++zz) {
        for (int xx = 0; xx < S; ++xx) {
          ASSERT_EQ(ids[(std::size_t(yy) * S + std::size_t(zz)) * S + std::size_t(xx)],
                    data.volume.blocks[(std::size_t(yy + 1) * P + std::size_t(zz + 1)) * P +
                                       std::size_t(xx + 1)]);
        }
      }
    }
    (data.chunk.uniform ? uniform : mixed) += 1;
    if (data.chunk.uniform) {
      EXPECT_LE(data.chunk.bytes(), sizeof(BlockChunk));
    }
  }
  EXPECT_GT(uniform, 0);  // air far above, (ore-free) stone far below... or water
  EXPECT_GT(mixed, 0);
}

// The padded volume of every chunk equals the blocks of the region at those positions:
// borders (and the trees and caves crossing them) are the neighbours' blocks exactly.
TEST(BlockWorld, ChunksInAnyOrderAndThreadCountEqualTheRegionGeneratedWhole) {
  const BlockWorldGenerator& gen = default_generator();
  const auto [x, z] = land_column();
  const CompiledGraph g2 = compile(default_preset());
  const float h = evaluate_at(g2, double(x) + 0.5, double(z) + 0.5);
  const std::int64_t cx0 = x / 32 - 1, cz0 = z / 32 - 1,
                     cy0 = std::int64_t(std::floor(h / 32.0)) - 1;
  BlockRegion region;
  gen.generate_region(cx0 * 32 - 1, cy0 * 32 - 1, cz0 * 32 - 1, 3 * 32 + 2, 3 * 32 + 2, 3 * 32 + 2,
                      region, ExecContext{.threads = 2});
  BlockRegion again;
  gen.generate_region(cx0 * 32 - 1, cy0 * 32 - 1, cz0 * 32 - 1, 3 * 32 + 2, 3 * 32 + 2, 3 * 32 + 2,
                      again, ExecContext{.threads = 1});
  ASSERT_EQ(region.blocks, again.blocks);
  std::vector<BlockChunkKey> keys;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      for (int c = 0; c < 3; ++c) keys.push_back({cx0 + a, cy0 + b, cz0 + c});
    }
  }
  std::mt19937 rng(7);
  std::shuffle(keys.begin(), keys.end(), rng);
  BlockScratch scratch;  // shared: its column cache must not change anything
  std::size_t logs = 0, leaves = 0, water = 0, air = 0;
  const std::uint16_t log_id = gen.block_id("log"), leaves_id = gen.block_id("leaves"),
                      water_id = gen.block_id("water");
  for (const BlockChunkKey& key : keys) {
    BlockChunkData data;
    const SimdTarget t = supported_simd_targets()[std::size_t(key.cx + key.cy + key.cz) %
                                                  supported_simd_targets().size()];
    gen.generate(key, data, &scratch, ExecContext{.simd = t});
    const int P = 34;
    for (int y = 0; y < P; ++y) {
      for (int zz = 0; zz < P; ++zz) {
        for (int xx = 0; xx < P; ++xx) {
          const std::int64_t rx = (key.cx - cx0) * 32 + xx, ry = (key.cy - cy0) * 32 + y,
                             rz = (key.cz - cz0) * 32 + zz;
          const std::uint16_t want = region.at(int(rx), int(ry), int(rz));
          ASSERT_EQ(data.volume.at(xx, y, zz), want)
              << "chunk (" << key.cx << ", " << key.cy << ", " << key.cz << ") padded block (" << xx
              << ", " << y << ", " << zz << ")";
        }
      }
    }
  }
  for (std::uint16_t b : region.blocks) {
    logs += b == log_id;
    leaves += b == leaves_id;
    water += b == water_id;
    air += b == 0;
  }
  EXPECT_GT(air, 0u);
  RecordProperty("logs", std::to_string(logs));
  RecordProperty("leaves", std::to_string(leaves));
  RecordProperty("water", std::to_string(water));
}

// Materials: top blocks have a non-solid block above, soil lies within soil_depth of a
// non-solid block, water above sea level only in lakes (never beside or above air), no solid
// block floats alone.
TEST(BlockWorld, MaterialRulesHoldAndNoBlockFloatsAlone) {
  const BlockWorldGenerator& gen = default_generator();
  const auto [x, z] = land_column();
  const CompiledGraph g2 = compile(default_preset());
  const float h = evaluate_at(g2, double(x) + 0.5, double(z) + 0.5);
  BlockRegion r;
  const int side = 96, tall = 96;
  const std::int64_t y0 = std::int64_t(std::floor(h)) - 48;
  gen.generate_region(x - side / 2, y0, z - side / 2, side, tall, side, r, {});
  const BlockPalette& pal = gen.palette();
  const VoxelParams& v = gen.params();
  std::vector<float> surface(std::size_t(side) * side);
  GridSpec cols{.width = side,
                .height = side,
                .spacing_m = 1.0,
                .origin_x_m = 0.5,
                .origin_z_m = 0.5,
                .index_x0 = x - side / 2,
                .index_z0 = z - side / 2};
  evaluate(g2, cols, surface);
  auto solid = [&](int a, int b, int c) {
    const BlockKind k = pal.types[r.at(a, b, c)].kind;
    return k == BlockKind::opaque;
  };
  const std::uint16_t grass = gen.block_id("grass"), stone = gen.block_id("stone"),
                      water = gen.block_id("water"), log_id = gen.block_id("log");
  std::size_t floating = 0, grass_count = 0, bad_top = 0, bad_water = 0;
  for (int b = 1; b + v.soil_depth + 2 < tall; ++b) {
    for (int c = 1; c + 1 < side; ++c) {
      for (int a = 1; a + 1 < side; ++a) {
        const std::uint16_t id = r.at(a, b, c);
        if (id == grass) {
          ++grass_count;
          if (solid(a, b + 1, c) && r.at(a, b + 1, c) != log_id) ++bad_top;
        }
        // Stone next to air above lies below the surface band (a cave floor).
        const bool in_band =
            double(r.y0 + b) + 0.5 >=
            double(surface[std::size_t(c) * side + std::size_t(a)]) - v.surface_band_m;
        if (id == stone && in_band) {
          for (int d = 1; d <= v.soil_depth; ++d) {
            if (pal.types[r.at(a, b + d, c)].kind == BlockKind::air) ++bad_top;
          }
        }
        if (id == grass && !in_band) ++bad_top;
        // Water above sea level is a lake's: it never faces air beside or below it.
        if (id == water && (double(r.y0 + b) + 0.5) >= default_preset().world.sea_level_m) {
          for (const auto& [da, db, dc] :
               {std::array<int, 3>{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}, {0, -1, 0}}) {
            if (pal.types[r.at(a + da, b + db, c + dc)].kind == BlockKind::air) ++bad_water;
          }
        }
        if (solid(a, b, c) && id != log_id && !solid(a - 1, b, c) && !solid(a + 1, b, c) &&
            !solid(a, b - 1, c) && !solid(a, b + 1, c) && !solid(a, b, c - 1) &&
            !solid(a, b, c + 1)) {
          ++floating;
        }
      }
    }
  }
  EXPECT_GT(grass_count, 0u);
  EXPECT_EQ(bad_top, 0u);
  EXPECT_EQ(bad_water, 0u);
  EXPECT_EQ(floating, 0u);
}

// A lake of the default preset's 2D terrain, found by the test's own Priority-Flood of a 1024 m
// square of land: the deepest cell of the largest lake at least 2 m deep that lies well inside
// the square and fits the overlap of two lake windows, its level, and the flooded surface of the
// whole square.
struct FoundLake {
  std::int64_t x = 0, z = 0;           // deepest cell (block column)
  int i0 = 0, j0 = 0, i1 = 0, j1 = 0;  // its bounding box in the square
  double level_m = 0.0;
  Field2D heights, filled;
};

const FoundLake& found_lake() {
  static const FoundLake f = [] {
    FoundLake out;
    const auto [x, z] = land_column();
    const int n = 1024;
    const GridSpec cols{.width = n,
                        .height = n,
                        .spacing_m = 1.0,
                        .origin_x_m = 0.5,
                        .origin_z_m = 0.5,
                        .index_x0 = x - n / 2,
                        .index_z0 = z - n / 2};
    out.heights = Field2D(cols);
    evaluate(compile(default_preset()), cols, out.heights.data);
    HydrologyParams hp;
    hp.routing.use_sea_level = true;
    hp.routing.sea_level_m = default_preset().world.sea_level_m;
    hp.min_lake_depth_m = 2.0;
    Hydrology hyd;
    compute_hydrology(out.heights, hp, hyd);
    out.filled = Field2D(cols);
    out.filled.data = hyd.routing.filled_m;
    std::int64_t best = 0;
    for (const Lake& l : hyd.lakes) {
      int i0 = n, j0 = n, i1 = 0, j1 = 0, di = 0, dj = 0;
      float deepest = 0.0f;
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
          if (hyd.lake_id[std::size_t(j) * n + std::size_t(i)] != l.id) continue;
          i0 = std::min(i0, i), i1 = std::max(i1, i + 1), j0 = std::min(j0, j),
          j1 = std::max(j1, j + 1);
          const float d = float(l.level_m) - out.heights.at(i, j);
          if (d > deepest) deepest = d, di = i, dj = j;
        }
      }
      const int most = 2 * default_preset().voxel.lake_margin;  // the windows' overlap
      if (i0 < 256 || j0 < 256 || i1 > n - 256 || j1 > n - 256 || i1 - i0 > most ||
          j1 - j0 > most) {
        continue;
      }
      if (l.cells > best) {
        best = l.cells;
        out.x = cols.index_x0 + di, out.z = cols.index_z0 + dj;
        out.i0 = i0, out.j0 = j0, out.i1 = i1, out.j1 = j1;
        out.level_m = l.level_m;
      }
    }
    return out;
  }();
  return f;
}

// Lakes above sea level: water fills the hollows of the 2D terrain up to a flat level, never
// stands against air beside or below it, never rises above the spill level of the whole
// 1024 m square (a window's lake drains at or below the true spill point), and the chunks that
// cut a lake agree with the region generated whole.
TEST(BlockWorld, LakesHoldTheirWaterInTheHollowsAndAgreeAcrossChunks) {
  const BlockWorldGenerator& gen = default_generator();
  const FoundLake& lake = found_lake();
  ASSERT_GT(lake.level_m, default_preset().world.sea_level_m) << "no lake found in the square";
  const std::uint16_t water = gen.block_id("water"), ice = gen.block_id("ice");
  const BlockPalette& pal = gen.palette();
  const int pad = 8;
  const int sx = lake.i1 - lake.i0 + 2 * pad, sz = lake.j1 - lake.j0 + 2 * pad;
  const std::int64_t x0 = lake.heights.grid.index_x0 + lake.i0 - pad,
                     z0 = lake.heights.grid.index_z0 + lake.j0 - pad;
  const std::int64_t level_row = std::int64_t(std::floor(lake.level_m));
  const std::int64_t y0 = level_row - 24;
  const int sy = 32;
  BlockRegion r;
  gen.generate_region(x0, y0, z0, sx, sy, sz, r, ExecContext{.threads = 2});
  std::size_t lake_blocks = 0, against_air = 0, above_spill = 0;
  std::int64_t top_row_min = std::numeric_limits<std::int64_t>::max(),
               top_row_max = std::numeric_limits<std::int64_t>::min();
  const double sea = default_preset().world.sea_level_m;
  auto liquid = [&](std::uint16_t id) { return id == water || id == ice; };
  for (int b = 1; b + 1 < sy; ++b) {
    for (int c = 1; c + 1 < sz; ++c) {
      for (int a = 1; a + 1 < sx; ++a) {
        const std::uint16_t id = r.at(a, b, c);
        const double yc = double(r.y0 + b) + 0.5;
        if (!liquid(id) || yc < sea) continue;
        ++lake_blocks;
        for (const auto& [da, db, dc] :
             {std::array<int, 3>{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}, {0, -1, 0}}) {
          if (pal.types[r.at(a + da, b + db, c + dc)].kind == BlockKind::air) ++against_air;
        }
        const int i = lake.i0 - pad + a, j = lake.j0 - pad + c;
        if (yc >= double(lake.filled.at(i, j))) ++above_spill;
        if (pal.types[r.at(a, b + 1, c)].kind == BlockKind::air) {
          top_row_min = std::min(top_row_min, r.y0 + b);
          top_row_max = std::max(top_row_max, r.y0 + b);
        }
      }
    }
  }
  EXPECT_GT(lake_blocks, 100u);
  EXPECT_EQ(against_air, 0u) << "lake water beside or above air";
  EXPECT_EQ(above_spill, 0u) << "lake water above the square's spill level";
  RecordProperty("lake_blocks", std::to_string(lake_blocks));
  RecordProperty("lake_level_m", std::to_string(lake.level_m));
  RecordProperty("lake_deepest_xz", std::to_string(lake.x) + ", " + std::to_string(lake.z));
  RecordProperty("top_rows", std::to_string(top_row_min) + ".." + std::to_string(top_row_max));
  // The deepest column holds water from its bed (the first row whose centre is above the 2D
  // surface) up to the top row under the level of the test's own flood: the lake is no wider
  // than the overlap of neighbouring lake windows, so one window holds all of it.
  const int da = int(lake.x - x0), dc = int(lake.z - z0);
  const float h_deep = lake.heights.at(int(lake.x - lake.heights.grid.index_x0),
                                       int(lake.z - lake.heights.grid.index_z0));
  const std::int64_t bed = std::int64_t(std::ceil(double(h_deep) - 0.5));
  const std::int64_t top = std::int64_t(std::ceil(lake.level_m - 0.5)) - 1;
  ASSERT_LT(bed, top);
  for (std::int64_t y = bed - 1; y <= top + 1; ++y) {
    const std::uint16_t id = r.at(da, int(y - y0), dc);
    if (y == bed - 1) {
      EXPECT_EQ(pal.types[id].kind, BlockKind::opaque) << "the lake bed";
    } else if (y <= top) {
      EXPECT_TRUE(liquid(id)) << "row " << y;
    } else {
      EXPECT_FALSE(liquid(id)) << "above the level";
    }
  }

  // Chunks generated alone (any order, shared scratch) equal the region.
  const std::int64_t cx0 = floor_div_test(x0, 32), cz0 = floor_div_test(z0, 32),
                     cx1 = floor_div_test(x0 + sx - 1, 32), cz1 = floor_div_test(z0 + sz - 1, 32),
                     cy0 = floor_div_test(y0, 32), cy1 = floor_div_test(y0 + sy - 1, 32);
  BlockScratch scratch;
  for (std::int64_t cy = cy0; cy <= cy1; ++cy) {
    for (std::int64_t cz = cz1; cz >= cz0; --cz) {
      for (std::int64_t cx = cx1; cx >= cx0; --cx) {
        BlockChunkData data;
        gen.generate({cx, cy, cz}, data, &scratch, {});
        for (int y = 0; y < 32; ++y) {
          for (int z = 0; z < 32; ++z) {
            for (int x = 0; x < 32; ++x) {
              const std::int64_t wx = cx * 32 + x - x0, wy = cy * 32 + y - y0,
                                 wz = cz * 32 + z - z0;
              if (wx < 0 || wy < 0 || wz < 0 || wx >= sx || wy >= sy || wz >= sz) continue;
              ASSERT_EQ(data.volume.at(x + 1, y + 1, z + 1), r.at(int(wx), int(wy), int(wz)))
                  << "chunk (" << cx << ", " << cy << ", " << cz << ") block " << x << ", " << y
                  << ", " << z;
            }
          }
        }
      }
    }
  }
}

TEST(BlockWorld, LakesCanBeTurnedOffAndBadLakeSettingsAreRefused) {
  const FoundLake& lake = found_lake();
  const Preset off = load_preset("default", std::vector<std::string>{"voxel.lakes=false"});
  const BlockWorldGenerator gen(off.generator(), off.surface, off.voxel);
  BlockRegion r;
  const std::int64_t top = std::int64_t(std::ceil(lake.level_m - 0.5)) - 1;
  gen.generate_region(lake.x, top - 8, lake.z, 1, 9, 1, r, {});
  for (int y = 0; y < 9; ++y) {
    EXPECT_NE(r.at(0, y, 0), gen.block_id("water")) << "row " << top - 8 + y;
  }
  EXPECT_NE(message_of([] {
              load_preset("default", std::vector<std::string>{"voxel.lake_tile=8"});
            }).find("voxel.lake_tile"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              load_preset("default",
                          std::vector<std::string>{"voxel.lake_tile=64", "voxel.lake_margin=65"});
            }).find("voxel.lake_margin: 65 is more than lake_tile (64)"),
            std::string::npos);
}

// Caves have entrances: a flood fill through non-solid blocks from the open sky above the
// region reaches a documented share of the cave air (non-solid blocks below their column's 2D
// surface by more than 4 m).
TEST(BlockWorld, CavesAreReachableFromTheSurface) {
  const BlockWorldGenerator& gen = default_generator();
  const Preset& p = default_preset();
  const auto [x, z] = land_column();
  const CompiledGraph g2 = compile(p);
  const float h = evaluate_at(g2, double(x) + 0.5, double(z) + 0.5);
  const int side = 160, tall = 128;
  const std::int64_t y0 = std::int64_t(std::floor(h)) - 96;
  BlockRegion r;
  gen.generate_region(x - side / 2, y0, z - side / 2, side, tall, side, r,
                      ExecContext{.threads = 2});
  const BlockPalette& pal = gen.palette();
  auto open = [&](int a, int b, int c) {
    return pal.types[r.at(a, b, c)].kind != BlockKind::opaque;
  };
  std::vector<float> surface(std::size_t(side) * side);
  GridSpec cols{.width = side,
                .height = side,
                .spacing_m = 1.0,
                .origin_x_m = 0.5,
                .origin_z_m = 0.5,
                .index_x0 = x - side / 2,
                .index_z0 = z - side / 2};
  evaluate(g2, cols, surface);
  std::vector<std::uint8_t> seen(r.block_count(), 0);
  std::deque<std::array<int, 3>> queue;
  auto idx = [&](int a, int b, int c) {
    return (std::size_t(b) * std::size_t(side) + std::size_t(c)) * std::size_t(side) +
           std::size_t(a);
  };
  for (int c = 0; c < side; ++c) {
    for (int a = 0; a < side; ++a) {
      if (open(a, tall - 1, c)) {
        seen[idx(a, tall - 1, c)] = 1;
        queue.push_back({a, tall - 1, c});
      }
    }
  }
  while (!queue.empty()) {
    const auto [a, b, c] = queue.front();
    queue.pop_front();
    const int n[6][3] = {{a - 1, b, c}, {a + 1, b, c}, {a, b - 1, c},
                         {a, b + 1, c}, {a, b, c - 1}, {a, b, c + 1}};
    for (const auto& q : n) {
      if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= side || q[1] >= tall || q[2] >= side)
        continue;
      const std::size_t k = idx(q[0], q[1], q[2]);
      if (seen[k] != 0 || !open(q[0], q[1], q[2])) continue;
      seen[k] = 1;
      queue.push_back({q[0], q[1], q[2]});
    }
  }
  std::size_t cave = 0, reached = 0;
  for (int b = 0; b < tall; ++b) {
    for (int c = 0; c < side; ++c) {
      for (int a = 0; a < side; ++a) {
        const double depth =
            double(surface[std::size_t(c) * side + std::size_t(a)]) - (double(r.y0 + b) + 0.5);
        if (depth <= 4.0 || !open(a, b, c)) continue;
        ++cave;
        reached += seen[idx(a, b, c)];
      }
    }
  }
  RecordProperty("cave_blocks", std::to_string(cave));
  RecordProperty("reached", std::to_string(reached));
  std::printf("cave air blocks %zu, reached from the sky %zu (%.1f%%)\n", cave, reached,
              cave ? 100.0 * double(reached) / double(cave) : 0.0);
  ASSERT_GT(cave, 1000u);
  EXPECT_GE(double(reached), 0.25 * double(cave));
}

}  // namespace
}  // namespace terrane
