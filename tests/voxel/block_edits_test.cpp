// Block worlds on edited ground (BlockWorldGenerator::generate with height edits): the edits'
// deltas move the 2D surface the blocks are made from, nothing changes where they do not reach
// (without lakes), chunks generated alone still equal the region generated whole, a pit dug
// above sea level fills with a lake that holds its water, and no edits give the procedural
// bytes.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "support/edit_strokes.hpp"
#include "terrane/edit.hpp"
#include "terrane/preset.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace {

// The default preset on 1 m cells: the edit lattice of a block world of 1 m blocks.
const Preset& preset() {
  static const Preset p = [] {
    const std::string overrides[] = {"world.cell_size_m=1"};
    return load_preset("default", overrides);
  }();
  return p;
}

// The default block world (lakes, trees, caves) on 1 m cells.
const BlockWorldGenerator& default_generator() {
  static const BlockWorldGenerator g(preset().generator(), preset().surface, preset().voxel);
  return g;
}

// The first column found, searching outwards from the origin, whose ground lies in (lo, hi).
std::array<double, 2> column_where(float lo, float hi) {
  const CompiledGraph g = compile(preset());
  for (int r = 0; r < 64; ++r) {
    for (int k = 0; k < 8 * r + 1; ++k) {
      const double a = double(k) / double(8 * r + 1) * 6.283185307179586;
      const double x = std::round(64.0 * r * std::cos(a)), z = std::round(64.0 * r * std::sin(a));
      const float h = evaluate_at(g, x, z);
      if (h > lo && h < hi) return {x, z};
    }
  }
  return {0.0, 0.0};
}

// A land column well above sea level and below 300 m.
std::array<double, 2> land_at() {
  return column_where(float(preset().world.sea_level_m) + 40.0f, 300.0f);
}

// A heightfield block world: no density graph (d = height_m - y), no lakes, no trees, so a
// block is solid exactly where its row lies under the interpolated 2D surface.
VoxelParams heightfield_voxel() {
  VoxelParams v = preset().voxel;
  v.has_density = false;
  v.lakes = false;
  v.trees.clear();
  return v;
}

bool solid(const BlockPalette& p, std::uint16_t id) {
  return p.types[id].kind == BlockKind::opaque;
}

TEST(BlockEdits, ARaisedPlateauLiftsTheBlocksByItsHeightAndNothingElseChanges) {
  const BlockWorldGenerator gen(preset().generator(), preset().surface, heightfield_voxel());
  const auto [x, z] = land_at();
  // A flat raise of exactly 8 m (weight 1) within 40 m of the centre, falling to 0 at 80 m.
  HeightEdits edits(preset().world.cell_size_m, 128);
  const CompiledGraph base = compile(preset());
  edits.apply(test::height_brush(BrushKind::raise, x, z, 80.0, 8.0, 0.5), base);
  const HeightEditSnapshot& snap = edits.current();
  ASSERT_EQ(snap.delta_at(std::int64_t(x), std::int64_t(z)), 8.0f);  // 1 m cells: index = metres

  const float h = evaluate_at(base, x, z);
  const int n = 192, sy = 64;
  const std::int64_t x0 = std::int64_t(x) - n / 2, z0 = std::int64_t(z) - n / 2;
  const std::int64_t y0 = std::int64_t(std::floor(h)) - 24;
  BlockRegion before, after;
  gen.generate_region(x0, y0 - 8, z0, n, sy + 8, n, before, ExecContext{.threads = 2});
  gen.generate_region(x0, y0, z0, n, sy, n, after, ExecContext{.threads = 2}, &snap);
  const BlockPalette& pal = gen.palette();
  std::size_t compared = 0, lifted_wrong = 0, outside = 0, outside_wrong = 0;
  for (int c = 0; c < n; ++c) {
    for (int a = 0; a < n; ++a) {
      const double dx = double(x0 + a) + 0.5 - x, dz = double(z0 + c) + 0.5 - z;
      const double d = std::sqrt(dx * dx + dz * dz);
      for (int b = 0; b < sy; ++b) {
        // `before` starts 8 rows lower: its row b + 8 - 8 = b is world row y0 + b - 8.
        const std::uint16_t lifted = after.at(a, b, c);
        if (d < 40.0 - 8.0) {  // the plateau, less the lattice's reach (4 blocks) and a margin
          ++compared;
          lifted_wrong += solid(pal, lifted) != solid(pal, before.at(a, b, c));
        } else if (d > 80.0 + 8.0) {  // beyond the brush and the lattice's reach
          ++outside;
          outside_wrong += lifted != before.at(a, b + 8, c);
        }
      }
    }
  }
  EXPECT_GT(compared, 100000u);
  EXPECT_EQ(lifted_wrong, 0u) << "blocks on the plateau are not the ground 8 m lower, lifted";
  EXPECT_GT(outside, 100000u);
  EXPECT_EQ(outside_wrong, 0u) << "blocks beyond the brush changed";
}

TEST(BlockEdits, EditedChunksAloneEqualTheEditedRegionAndNoEditsChangeNoByte) {
  const BlockWorldGenerator& gen = default_generator();
  const auto [x, z] = land_at();
  const CompiledGraph base = compile(preset());
  HeightEdits edits(preset().world.cell_size_m, 128);
  edits.apply(test::height_brush(BrushKind::raise, x + 10.0, z - 7.0, 30.0, 12.0), base);
  edits.apply(test::height_brush(BrushKind::lower, x - 20.0, z + 15.0, 25.0, 9.0), base);
  const HeightEditSnapshot snap = edits.current();
  const float h = evaluate_at(base, x, z);
  const std::int64_t cx0 = std::int64_t(std::floor(x / 32.0)) - 1,
                     cz0 = std::int64_t(std::floor(z / 32.0)) - 1,
                     cy0 = std::int64_t(std::floor(h / 32.0)) - 1;
  BlockRegion region;
  gen.generate_region(cx0 * 32, cy0 * 32, cz0 * 32, 3 * 32, 3 * 32, 3 * 32, region,
                      ExecContext{.threads = 2}, &snap);
  BlockRegion procedural, empty_edits;
  gen.generate_region(cx0 * 32, cy0 * 32, cz0 * 32, 3 * 32, 3 * 32, 3 * 32, procedural,
                      ExecContext{.threads = 2});
  const HeightEditSnapshot none;
  gen.generate_region(cx0 * 32, cy0 * 32, cz0 * 32, 3 * 32, 3 * 32, 3 * 32, empty_edits,
                      ExecContext{.threads = 1}, &none);
  EXPECT_EQ(empty_edits.blocks, procedural.blocks);
  EXPECT_NE(region.blocks, procedural.blocks);

  // One scratch for all: its column cache holds procedural columns first, and must not hand
  // them to the edited chunks (nor edited ones to the procedural chunks after).
  BlockScratch scratch;
  for (int pass = 0; pass < 3; ++pass) {
    const HeightEditSnapshot* e = pass == 1 ? &snap : nullptr;
    const BlockRegion& want = pass == 1 ? region : procedural;
    for (int a = 0; a < 3; ++a) {
      for (int c = 2; c >= 0; --c) {
        for (int b = 0; b < 3; ++b) {
          const BlockChunkKey key{cx0 + a, cy0 + b, cz0 + c};
          const SimdTarget t =
              supported_simd_targets()[std::size_t(a + b + c) % supported_simd_targets().size()];
          BlockChunkData data;
          gen.generate(key, data, &scratch, ExecContext{.simd = t}, e);
          for (int yy = 0; yy < 32; ++yy) {
            for (int zz = 0; zz < 32; ++zz) {
              for (int xx = 0; xx < 32; ++xx) {
                ASSERT_EQ(data.volume.at(xx + 1, yy + 1, zz + 1),
                          want.at(a * 32 + xx, b * 32 + yy, c * 32 + zz))
                    << "pass " << pass << " chunk (" << key.cx << ", " << key.cy << ", " << key.cz
                    << ") block " << xx << ", " << yy << ", " << zz;
              }
            }
          }
        }
      }
    }
  }

  // Edits of another cell size are refused.
  HeightEdits other(preset().world.cell_size_m * 2.0, 128);
  other.apply(test::height_brush(BrushKind::raise, x, z, 30.0, 2.0), base);
  BlockChunkData data;
  try {
    gen.generate({cx0, cy0, cz0}, data, nullptr, {}, &other.current());
    ADD_FAILURE() << "edits of another cell size were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("m cells for a world of"), std::string::npos) << e.what();
  }
}

// A pit dug into land above sea level is a hollow of the edited 2D surface: the lake windows
// flood it, and the water stands in it at one level without ever facing air.
TEST(BlockEdits, APitDugAboveSeaLevelFillsWithALakeThatHoldsItsWater) {
  const BlockWorldGenerator& gen = default_generator();
  const auto [x, z] = land_at();
  const CompiledGraph base = compile(preset());
  HeightEdits edits(preset().world.cell_size_m, 128);
  edits.apply(test::height_brush(BrushKind::lower, x, z, 24.0, 12.0, 0.6), base);
  const HeightEditSnapshot& snap = edits.current();
  const float h = evaluate_at(base, x, z) - 12.0f;  // the pit's floor
  const int n = 64, sy = 48;
  const std::int64_t x0 = std::int64_t(x) - n / 2, z0 = std::int64_t(z) - n / 2;
  const std::int64_t y0 = std::int64_t(std::floor(h)) - 8;
  BlockRegion r;
  gen.generate_region(x0, y0, z0, n, sy, n, r, ExecContext{.threads = 2}, &snap);
  const std::uint16_t water = gen.block_id("water"), ice = gen.block_id("ice");
  const BlockPalette& pal = gen.palette();
  const auto liquid = [&](std::uint16_t id) { return id == water || id == ice; };
  // The pit's footprint: columns within its radius.
  const auto in_pit = [&](int a, int c) {
    const double dx = double(x0 + a) + 0.5 - x, dz = double(z0 + c) + 0.5 - z;
    return dx * dx + dz * dz < 24.0 * 24.0;
  };
  std::size_t lake_blocks = 0, against_air = 0;
  std::int64_t top_min = std::numeric_limits<std::int64_t>::max(),
               top_max = std::numeric_limits<std::int64_t>::min();
  for (int b = 1; b + 1 < sy; ++b) {
    for (int c = 1; c + 1 < n; ++c) {
      for (int a = 1; a + 1 < n; ++a) {
        if (!liquid(r.at(a, b, c))) continue;
        for (const auto& [da, db, dc] :
             {std::array<int, 3>{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}, {0, -1, 0}}) {
          if (pal.types[r.at(a + da, b + db, c + dc)].kind == BlockKind::air) ++against_air;
        }
        if (!in_pit(a, c)) continue;
        ++lake_blocks;
        if (pal.types[r.at(a, b + 1, c)].kind == BlockKind::air) {
          top_min = std::min(top_min, r.y0 + b);
          top_max = std::max(top_max, r.y0 + b);
        }
      }
    }
  }
  // Without the edits the pit's footprint holds no water.
  BlockRegion procedural;
  gen.generate_region(x0, y0, z0, n, sy, n, procedural, ExecContext{.threads = 2});
  std::size_t procedural_water = 0;
  for (int b = 0; b < sy; ++b) {
    for (int c = 0; c < n; ++c) {
      for (int a = 0; a < n; ++a)
        procedural_water += in_pit(a, c) && liquid(procedural.at(a, b, c));
    }
  }
  EXPECT_EQ(procedural_water, 0u);
  EXPECT_GT(lake_blocks, 500u) << "the pit holds no lake";
  EXPECT_EQ(against_air, 0u) << "lake water beside or above air";
  EXPECT_EQ(top_min, top_max) << "the lake's surface is not flat";
  RecordProperty("lake_blocks", std::to_string(lake_blocks));
}

// Block overrides: inside a dug sphere every block is what fills empty space there (air on
// land, the sea's water under the sea), inside a filled one the fill's block; every other block
// of the box keeps its generated bits; a chunk generated alone has the region's blocks in its
// interior and in its padding (so the mesher sees the neighbours' overrides); and overrides of
// another block world are refused.
TEST(BlockEdits, OverridesReplaceTheGeneratedBlocksInsideTheirSpheresOnly) {
  const BlockWorldGenerator& gen = default_generator();
  const CompiledGraph base = compile(preset());
  const float sea = float(preset().world.sea_level_m);
  const auto land = land_at();
  const auto ocean = column_where(-1e9f, sea - 30.0f);
  const std::uint16_t water = gen.block_id("water"), glass = gen.block_id("glass");
  const VoxelParams& vp = preset().voxel;
  for (const auto& [x, z] : {land, ocean}) {
    const bool wet = evaluate_at(base, x, z) < sea;
    const double ground = double(evaluate_at(base, x, z));
    BlockEdits blocks(vp.block_size_m, vp.chunk_size, int(vp.palette.types.size()));
    BlockBrush dig;
    dig.kind = BlockBrushKind::dig;
    dig.x_m = x, dig.y_m = ground - 2.0, dig.z_m = z, dig.radius_m = 7.0;
    blocks.apply(dig);
    BlockBrush fill = dig;
    fill.kind = BlockBrushKind::fill;
    fill.x_m = x + 9.0, fill.y_m = ground + 6.0, fill.radius_m = 4.0, fill.block = glass;
    blocks.apply(fill);
    const BlockEditSnapshot& snap = blocks.current();

    // Three chunks a side around the dig.
    const std::int64_t cx0 = std::int64_t(std::floor(x / 32.0)) - 1,
                       cy0 = std::int64_t(std::floor((ground - 2.0) / 32.0)) - 1,
                       cz0 = std::int64_t(std::floor(z / 32.0)) - 1;
    const int n = 96;
    BlockRegion procedural, edited;
    gen.generate_region(cx0 * 32, cy0 * 32, cz0 * 32, n, n, n, procedural,
                        ExecContext{.threads = 2});
    gen.generate_region(cx0 * 32, cy0 * 32, cz0 * 32, n, n, n, edited, ExecContext{.threads = 2},
                        nullptr, &snap);
    std::size_t dug = 0, solid_before = 0, filled = 0, kept = 0;
    for (int b = 0; b < n; ++b) {
      for (int c = 0; c < n; ++c) {
        for (int a = 0; a < n; ++a) {
          const std::int64_t bx = cx0 * 32 + a, by = cy0 * 32 + b, bz = cz0 * 32 + c;
          const std::uint16_t o = snap.at(bx, by, bz), was = procedural.at(a, b, c),
                              now = edited.at(a, b, c);
          if (o == kKeepBlock) {
            ++kept;
            ASSERT_EQ(now, was) << "block " << bx << ", " << by << ", " << bz;
          } else if (o == kDugBlock) {
            ++dug;
            solid_before += solid(gen.palette(), was) ? 1 : 0;
            // The sea lies far above the dig's top row: no ice; on land, nothing but air.
            ASSERT_EQ(now, wet && (double(by) + 0.5) < double(sea) ? water : 0)
                << "block " << bx << ", " << by << ", " << bz;
          } else {
            ++filled;
            ASSERT_EQ(now, glass);
          }
        }
      }
    }
    EXPECT_GT(dug, 1300u);  // 4/3 pi 7^3 = 1437
    EXPECT_GT(solid_before, dug / 3) << "the dig should reach into the ground";
    EXPECT_GT(filled, 200u);
    EXPECT_GT(kept, std::size_t(n) * n * n - 2000);

    // Each chunk alone: interior and padding are the region's (the border chunks' outer
    // padding lies outside the region).
    BlockScratch scratch;
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) {
        for (int c = 0; c < 3; ++c) {
          BlockChunkData data;
          gen.generate({cx0 + a, cy0 + b, cz0 + c}, data, &scratch, {}, nullptr, &snap);
          for (int yy = 0; yy < 34; ++yy) {
            for (int zz = 0; zz < 34; ++zz) {
              for (int xx = 0; xx < 34; ++xx) {
                const int ra = a * 32 + xx - 1, rb = b * 32 + yy - 1, rc = c * 32 + zz - 1;
                if (ra < 0 || rb < 0 || rc < 0 || ra >= n || rb >= n || rc >= n) continue;
                ASSERT_EQ(data.volume.at(xx, yy, zz), edited.at(ra, rb, rc))
                    << "chunk (" << a << ", " << b << ", " << c << ") padded block " << xx << ", "
                    << yy << ", " << zz;
              }
            }
          }
        }
      }
    }
  }

  // Overrides of another block world: 16-block chunks for a world of 32.
  BlockEdits other(vp.block_size_m, 16, int(vp.palette.types.size()));
  BlockChunkData data;
  try {
    gen.generate({0, 0, 0}, data, nullptr, {}, nullptr, &other.current());
    ADD_FAILURE() << "overrides of another chunk size were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("chunks of 16"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace terrane
