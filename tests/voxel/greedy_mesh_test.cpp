// Greedy block meshing (issue 14): the quads cover exactly the exposed faces of a brute-force
// culling, face by face, for random and adversarial volumes; bad input is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "support/expect_error.hpp"
#include "terrane/core.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace {

// 0 air, 1 stone, 2 dirt, 3 grass (opaque); 4 water (liquid), 5 glass (transparent, cull_same),
// 6 leaves (transparent, faces against leaves drawn).
BlockPalette test_palette() {
  BlockPalette p;
  p.types = {{"air", BlockKind::air, true, {}},
             {"stone", BlockKind::opaque, true, {}},
             {"dirt", BlockKind::opaque, true, {}},
             {"grass", BlockKind::opaque, true, {}},
             {"water", BlockKind::liquid, true, {}},
             {"glass", BlockKind::transparent, true, {}},
             {"leaves", BlockKind::transparent, false, {}}};
  return p;
}

BlockVolume empty_volume(int size) {
  BlockVolume v;
  v.size = size;
  const std::size_t p = std::size_t(size + 2);
  v.blocks.assign(p * p * p, 0);
  return v;
}

void put(BlockVolume& v, int x, int y, int z, std::uint16_t id) {
  const std::size_t p = std::size_t(v.padded());
  v.blocks[(std::size_t(y) * p + std::size_t(z)) * p + std::size_t(x)] = id;
}

using Face = std::tuple<int, int, int, int, int>;  // x, y, z (interior), face, block

// The rule of build_block_mesh, block by block.
std::set<Face> brute_force_faces(const BlockVolume& v, const BlockPalette& pal) {
  static constexpr int kStep[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                      {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  std::set<Face> faces;
  for (int y = 1; y <= v.size; ++y) {
    for (int z = 1; z <= v.size; ++z) {
      for (int x = 1; x <= v.size; ++x) {
        const std::uint16_t a = v.at(x, y, z);
        const BlockType& ta = pal.types[a];
        if (ta.kind == BlockKind::air) continue;
        for (int f = 0; f < 6; ++f) {
          const std::uint16_t b = v.at(x + kStep[f][0], y + kStep[f][1], z + kStep[f][2]);
          const BlockType& tb = pal.types[b];
          bool visible;
          if (ta.kind == BlockKind::opaque) {
            visible = tb.kind != BlockKind::opaque;
          } else {
            visible = tb.kind != BlockKind::opaque && !(ta.cull_same && a == b);
          }
          if (visible) faces.insert({x - 1, y - 1, z - 1, f, a});
        }
      }
    }
  }
  return faces;
}

// Rasterises quads back to faces; a face covered twice is an error.
std::set<Face> quad_faces(const std::vector<PackedQuad>& quads, std::size_t& overlaps) {
  std::set<Face> faces;
  for (const PackedQuad& q : quads) {
    const int f = int(q.face());
    for (int b = 0; b < q.h(); ++b) {
      for (int a = 0; a < q.w(); ++a) {
        int x = q.x(), y = q.y(), z = q.z();
        switch (f / 2) {
          case 0:
            z += a, y += b;
            break;  // (u, v) = (z, y)
          case 1:
            x += a, z += b;
            break;  // (x, z)
          default:
            x += a, y += b;
            break;  // (x, y)
        }
        if (!faces.insert({x, y, z, f, q.block()}).second) ++overlaps;
      }
    }
  }
  return faces;
}

void expect_exact_cover(const BlockVolume& v, const BlockPalette& pal, const std::string& what) {
  BlockMesh mesh;
  build_block_mesh(v, pal, mesh);
  const std::set<Face> expected = brute_force_faces(v, pal);
  std::size_t overlaps = 0;
  std::set<Face> got = quad_faces(mesh.opaque, overlaps);
  const std::set<Face> translucent = quad_faces(mesh.translucent, overlaps);
  EXPECT_EQ(overlaps, 0u) << what;
  for (const Face& f : translucent) {
    EXPECT_NE(pal.types[std::size_t(std::get<4>(f))].kind, BlockKind::opaque) << what;
    got.insert(f);
  }
  for (const PackedQuad& q : mesh.opaque) {
    ASSERT_EQ(pal.types[q.block()].kind, BlockKind::opaque) << what;
  }
  EXPECT_EQ(got.size(), expected.size()) << what;
  EXPECT_TRUE(got == expected) << what;
  EXPECT_EQ(mesh.exposed_faces, expected.size()) << what;
  EXPECT_LE(mesh.opaque.size() + mesh.translucent.size(), expected.size()) << what;
}

TEST(GreedyMeshTest, CoversExactlyTheExposedFacesOfRandomVolumes) {
  const BlockPalette pal = test_palette();
  for (int size : {1, 2, 7, 31, 62}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      BlockVolume v = empty_volume(size);
      std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + std::uint64_t(size);
      for (std::uint16_t& b : v.blocks) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const int r = int(state >> 59);  // 0..31
        b = r < 14 ? 0 : std::uint16_t(1 + (r % 6));
      }
      expect_exact_cover(v, pal,
                         "random size " + std::to_string(size) + " seed " + std::to_string(seed));
    }
  }
}

TEST(GreedyMeshTest, CoversExactlyTheExposedFacesOfAdversarialVolumes) {
  const BlockPalette pal = test_palette();
  const int n = 62;
  {  // empty
    const BlockVolume v = empty_volume(n);
    BlockMesh mesh;
    build_block_mesh(v, pal, mesh);
    EXPECT_TRUE(mesh.opaque.empty() && mesh.translucent.empty());
  }
  {  // full of stone, padding too: no face at all; interior only: six quads of 62 x 62
    BlockVolume v = empty_volume(n);
    std::fill(v.blocks.begin(), v.blocks.end(), 1);
    BlockMesh mesh;
    build_block_mesh(v, pal, mesh);
    EXPECT_TRUE(mesh.opaque.empty());
    v = empty_volume(n);
    for (int y = 1; y <= n; ++y) {
      for (int z = 1; z <= n; ++z) {
        for (int x = 1; x <= n; ++x) put(v, x, y, z, 1);
      }
    }
    build_block_mesh(v, pal, mesh);
    EXPECT_EQ(mesh.opaque.size(), 6u);
    expect_exact_cover(v, pal, "full interior");
  }
  {  // 3D checkerboard of stone and air: every face of every stone block, no merging possible
    BlockVolume v = empty_volume(n);
    for (int y = 1; y <= n; ++y) {
      for (int z = 1; z <= n; ++z) {
        for (int x = 1; x <= n; ++x) {
          if ((x + y + z) % 2 == 0) put(v, x, y, z, 1);
        }
      }
    }
    expect_exact_cover(v, pal, "checkerboard");
  }
  {  // a single block in the middle, and one in each corner
    BlockVolume v = empty_volume(n);
    put(v, 31, 31, 31, 2);
    for (int c = 0; c < 8; ++c) put(v, (c & 1) ? n : 1, (c & 2) ? n : 1, (c & 4) ? n : 1, 3);
    expect_exact_cover(v, pal, "single blocks");
  }
  {  // stripes of alternating types (merging only within a type)
    BlockVolume v = empty_volume(n);
    for (int y = 1; y <= 20; ++y) {
      for (int z = 1; z <= n; ++z) {
        for (int x = 1; x <= n; ++x) put(v, x, y, z, std::uint16_t(1 + (x / 3) % 3));
      }
    }
    expect_exact_cover(v, pal, "stripes");
  }
  {  // water next to glass, leaves next to leaves, water under stone, in the padding too
    BlockVolume v = empty_volume(8);
    for (int y = 0; y < 10; ++y) {
      for (int z = 0; z < 10; ++z) {
        for (int x = 0; x < 10; ++x) {
          const std::uint16_t id = y < 3 ? 1 : y < 6 ? (x < 5 ? 4 : 5) : (z < 4 ? 6 : 0);
          put(v, x, y, z, id);
        }
      }
    }
    expect_exact_cover(v, pal, "water, glass and leaves");
    BlockMesh mesh;
    build_block_mesh(v, pal, mesh);
    bool water_glass = false, glass_water = false, leaves_leaves = false;
    for (const PackedQuad& q : mesh.translucent) {
      // x faces on the plane between x = 3 (water, interior) and x = 4 (glass)
      if (q.block() == 4 && q.face() == BlockFace::pos_x && q.x() == 3) water_glass = true;
      if (q.block() == 5 && q.face() == BlockFace::neg_x && q.x() == 4) glass_water = true;
      if (q.block() == 6 && q.face() == BlockFace::pos_x) leaves_leaves = true;
    }
    EXPECT_TRUE(water_glass) << "no water face toward glass";
    EXPECT_TRUE(glass_water) << "no glass face toward water";
    EXPECT_TRUE(leaves_leaves) << "leaves (no cull_same) lost their inner faces";
  }
}

TEST(GreedyMeshTest, TerrainMergesToFewQuads) {
  // A height-field chunk: stone, 3 dirt, grass on top, water up to a level.
  const BlockPalette pal = test_palette();
  const int n = 62;
  BlockVolume v = empty_volume(n);
  for (int z = 0; z < n + 2; ++z) {
    for (int x = 0; x < n + 2; ++x) {
      const int top = 20 + int(10.0 * std::sin(x * 0.11) * std::cos(z * 0.07));
      for (int y = 0; y < n + 2; ++y) {
        std::uint16_t id = y > top ? (y <= 22 ? 4 : 0) : y == top ? 3 : y > top - 4 ? 2 : 1;
        put(v, x, y, z, id);
      }
    }
  }
  expect_exact_cover(v, pal, "terrain");
  BlockMesh mesh;
  build_block_mesh(v, pal, mesh);
  const std::size_t quads = mesh.opaque.size() + mesh.translucent.size();
  EXPECT_LE(double(quads), 0.4 * double(mesh.exposed_faces))
      << quads << " quads for " << mesh.exposed_faces << " faces";
}

TEST(GreedyMeshTest, ScratchReuseGivesTheSameMesh) {
  const BlockPalette pal = test_palette();
  BlockMeshScratch scratch;
  for (int size : {62, 9, 62, 30}) {
    BlockVolume v = empty_volume(size);
    for (std::size_t k = 0; k < v.blocks.size(); ++k)
      v.blocks[k] = std::uint16_t((k * 7 + k / 13) % 7);
    BlockMesh a, b;
    build_block_mesh(v, pal, a, &scratch);
    build_block_mesh(v, pal, b);
    // The slice planes are left all zero for the next chunk (a face bit outside the merged
    // slices once stayed behind there).
    std::size_t left = 0;
    for (std::uint64_t w : scratch.planes) left += w != 0;
    EXPECT_EQ(left, 0u) << "size " << size;
    ASSERT_EQ(a.opaque.size(), b.opaque.size());
    ASSERT_EQ(a.translucent.size(), b.translucent.size());
    for (std::size_t k = 0; k < a.opaque.size(); ++k) EXPECT_EQ(a.opaque[k].bits, b.opaque[k].bits);
    for (std::size_t k = 0; k < a.translucent.size(); ++k) {
      EXPECT_EQ(a.translucent[k].bits, b.translucent[k].bits);
    }
  }
}

TEST(GreedyMeshTest, BadInputIsRefusedWithItsValue) {
  const BlockPalette pal = test_palette();
  BlockMesh mesh;
  BlockVolume big = empty_volume(63);
  test::expect_error([&] { build_block_mesh(big, pal, mesh); }, ErrorCategory::invalid_argument,
                     {"size 63 is outside 1..62"});
  BlockVolume wrong = empty_volume(8);
  wrong.blocks.pop_back();
  test::expect_error([&] { build_block_mesh(wrong, pal, mesh); }, ErrorCategory::invalid_argument,
                     {"999 blocks for size 8", "1000"});
  BlockVolume unknown = empty_volume(4);
  put(unknown, 2, 3, 4, 9);
  test::expect_error([&] { build_block_mesh(unknown, pal, mesh); }, ErrorCategory::invalid_argument,
                     {"block id 9 at (1, 2, 3)", "palette of 7 types"});
  BlockPalette bad = pal;
  bad.types[0].kind = BlockKind::opaque;
  test::expect_error([&] { bad.validate(); }, ErrorCategory::invalid_argument,
                     {"entry 0 ('air') must be air"});
  bad = pal;
  bad.types[5].name = "water";
  test::expect_error([&] { bad.validate(); }, ErrorCategory::invalid_argument,
                     {"entry 5 repeats the name 'water'"});
}

}  // namespace
}  // namespace terrane
