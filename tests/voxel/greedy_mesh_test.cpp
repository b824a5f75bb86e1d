// Greedy block meshing (issue 14): the quads cover exactly the exposed faces of a brute-force
// culling, face by face, for random and adversarial volumes, with and without ambient
// occlusion and with given or computed column masks; every face's occlusion equals a
// brute-force computation, merged quads render exactly as their faces, chunk borders get the
// occlusion of one big volume; bad input is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
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

std::string label(const char* what, int a, int b) {
  std::string s(what);
  s += ' ';
  s += std::to_string(a);
  s += ' ';
  s += std::to_string(b);
  return s;
}

constexpr int kStep[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
// The (u, v) axes of a face direction's slice: x faces (z, y), y faces (x, z), z faces (x, y).
constexpr int kAxisU[3] = {2, 0, 0};
constexpr int kAxisV[3] = {1, 2, 1};

using Face = std::tuple<int, int, int, int, int>;  // x, y, z (interior), face, block
using FaceAo = std::map<Face, int>;                // -> occlusion, 2 bits per corner (c0 low)

bool opaque_at(const BlockVolume& v, const BlockPalette& pal, int x, int y, int z) {
  return pal.types[v.at(x, y, z)].kind == BlockKind::opaque;
}

// The classic per-vertex rule, corner by corner, for the face of padded block (x, y, z).
int brute_force_ao(const BlockVolume& v, const BlockPalette& pal, int x, int y, int z, int f) {
  const int axis = f / 2;
  const int front[3] = {x + kStep[f][0], y + kStep[f][1], z + kStep[f][2]};
  static constexpr int kDu[4] = {-1, 1, 1, -1}, kDv[4] = {-1, -1, 1, 1};
  int pattern = 0;
  for (int c = 0; c < 4; ++c) {
    const auto solid = [&](int du, int dv) {
      int q[3] = {front[0], front[1], front[2]};
      q[kAxisU[axis]] += du;
      q[kAxisV[axis]] += dv;
      return opaque_at(v, pal, q[0], q[1], q[2]) ? 1 : 0;
    };
    const int s1 = solid(kDu[c], 0), s2 = solid(0, kDv[c]), corner = solid(kDu[c], kDv[c]);
    const int ao = s1 != 0 && s2 != 0 ? 3 : s1 + s2 + corner;
    pattern |= ao << (2 * c);
  }
  return pattern;
}

// The rule of build_block_mesh, block by block; the occlusion is 0 without `ao`.
FaceAo brute_force_faces(const BlockVolume& v, const BlockPalette& pal, bool ao = true) {
  FaceAo faces;
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
          if (visible)
            faces[{x - 1, y - 1, z - 1, f, a}] = ao ? brute_force_ao(v, pal, x, y, z, f) : 0;
        }
      }
    }
  }
  return faces;
}

int quad_pattern(const PackedQuad& q) {
  return int((q.bits >> 49) & 0xFFu);
}

// Rasterises quads back to faces, each with its quad's occlusion; a face covered twice is an
// error.
FaceAo quad_faces(const std::vector<PackedQuad>& quads, std::size_t& overlaps,
                  std::array<int, 3> offset = {0, 0, 0}) {
  FaceAo faces;
  for (const PackedQuad& q : quads) {
    const int f = int(q.face());
    for (int b = 0; b < q.h(); ++b) {
      for (int a = 0; a < q.w(); ++a) {
        int c[3] = {q.x() + offset[0], q.y() + offset[1], q.z() + offset[2]};
        c[kAxisU[f / 2]] += a;
        c[kAxisV[f / 2]] += b;
        if (!faces.emplace(Face{c[0], c[1], c[2], f, q.block()}, quad_pattern(q)).second) {
          ++overlaps;
        }
      }
    }
  }
  return faces;
}

// Same volume, column masks computed by compute_block_columns.
BlockVolume with_columns(BlockVolume v, const BlockPalette& pal) {
  compute_block_columns(v, pal);
  return v;
}

void expect_same_mesh(const BlockMesh& a, const BlockMesh& b, const std::string& what) {
  ASSERT_EQ(a.opaque.size(), b.opaque.size()) << what;
  ASSERT_EQ(a.translucent.size(), b.translucent.size()) << what;
  EXPECT_EQ(a.exposed_faces, b.exposed_faces) << what;
  std::size_t differ = 0;
  for (std::size_t k = 0; k < a.opaque.size(); ++k) differ += a.opaque[k].bits != b.opaque[k].bits;
  for (std::size_t k = 0; k < a.translucent.size(); ++k) {
    differ += a.translucent[k].bits != b.translucent[k].bits;
  }
  EXPECT_EQ(differ, 0u) << what;
}

// The whole contract on one volume, with and without occlusion, with computed and given masks:
// exact cover, each face's occlusion, merged quads that render as their faces.
void expect_exact_cover(const BlockVolume& v, const BlockPalette& pal, const std::string& what) {
  const BlockVolume given = with_columns(v, pal);
  for (const bool ao : {false, true}) {
    const std::string tag = what + (ao ? " (ao)" : " (no ao)");
    BlockMesh mesh, mesh_given;
    build_block_mesh(v, pal, mesh, nullptr, BlockMeshOptions{ao});
    build_block_mesh(given, pal, mesh_given, nullptr, BlockMeshOptions{ao});
    expect_same_mesh(mesh, mesh_given, tag + ", given vs computed masks");

    const FaceAo expected = brute_force_faces(v, pal, ao);
    std::size_t overlaps = 0;
    FaceAo got = quad_faces(mesh.opaque, overlaps);
    const FaceAo translucent = quad_faces(mesh.translucent, overlaps);
    EXPECT_EQ(overlaps, 0u) << tag;
    for (const auto& [f, pattern] : translucent) {
      EXPECT_NE(pal.types[std::size_t(std::get<4>(f))].kind, BlockKind::opaque) << tag;
      got.emplace(f, pattern);
    }
    for (const PackedQuad& q : mesh.opaque) {
      ASSERT_EQ(pal.types[q.block()].kind, BlockKind::opaque) << tag;
    }
    ASSERT_EQ(got.size(), expected.size()) << tag;
    std::size_t wrong_face = 0, wrong_ao = 0;
    for (const auto& [f, pattern] : expected) {
      const auto it = got.find(f);
      if (it == got.end()) {
        ++wrong_face;
      } else if (it->second != pattern) {
        ++wrong_ao;
      }
    }
    EXPECT_EQ(wrong_face, 0u) << tag;
    EXPECT_EQ(wrong_ao, 0u) << tag << ": faces whose quad's occlusion is not their own";
    EXPECT_EQ(mesh.exposed_faces, expected.size()) << tag;
    EXPECT_LE(mesh.opaque.size() + mesh.translucent.size(), expected.size()) << tag;

    // Every face of a quad has the quad's pattern (checked above); a quad is only stretched
    // along an axis its pattern is constant along, so interpolating its corners gives each face
    // its own values.
    std::size_t stretched = 0;
    for (const std::vector<PackedQuad>* list : {&mesh.opaque, &mesh.translucent}) {
      for (const PackedQuad& q : *list) {
        if (!ao) {
          EXPECT_EQ(quad_pattern(q), 0) << tag;
          continue;
        }
        const bool along_u = q.occlusion(0) == q.occlusion(1) && q.occlusion(3) == q.occlusion(2);
        const bool along_v = q.occlusion(0) == q.occlusion(3) && q.occlusion(1) == q.occlusion(2);
        stretched += (q.w() > 1 && !along_u) + (q.h() > 1 && !along_v);
      }
    }
    EXPECT_EQ(stretched, 0u) << tag << ": quads stretched across an occlusion gradient";
  }
}

std::uint64_t next(std::uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return state >> 33;
}

TEST(GreedyMeshTest, CoversExactlyTheExposedFacesOfRandomVolumes) {
  const BlockPalette pal = test_palette();
  for (int size : {1, 2, 7, 31, 62}) {
    for (int seed = 1; seed <= (size == 62 ? 1 : 3); ++seed) {
      BlockVolume v = empty_volume(size);
      std::uint64_t state = std::uint64_t(seed) * 0x9E3779B97F4A7C15ull + std::uint64_t(size);
      for (std::uint16_t& b : v.blocks) {
        const int r = int(next(state) & 31u);
        b = r < 14 ? 0 : std::uint16_t(1 + (r % 6));
      }
      expect_exact_cover(v, pal, label("random size/seed", size, seed));
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
  {  // 3D checkerboards of stone and air, and of stone and water: no merging possible
    for (const std::uint16_t other : {std::uint16_t{0}, std::uint16_t{4}}) {
      BlockVolume v = empty_volume(n);
      for (int y = 0; y < n + 2; ++y) {
        for (int z = 0; z < n + 2; ++z) {
          for (int x = 0; x < n + 2; ++x) put(v, x, y, z, (x + y + z) % 2 == 0 ? 1 : other);
        }
      }
      expect_exact_cover(v, pal, label("checkerboard with", other, 0));
    }
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
  {  // palettes with one translucent type (with and without cull_same), no translucent type
    BlockPalette one = pal;
    one.types.resize(5);  // water is the only translucent type
    BlockPalette leaves_only = pal;
    leaves_only.types = {pal.types[0], pal.types[1], pal.types[6]};
    for (const BlockPalette* p : {&one, &leaves_only}) {
      const std::uint16_t last = std::uint16_t(p->types.size() - 1);
      BlockVolume v = empty_volume(12);
      std::uint64_t state = 7;
      for (std::uint16_t& b : v.blocks) b = std::uint16_t(next(state) % (last + 1u));
      expect_exact_cover(v, *p, label("palette of", int(p->types.size()), 0));
    }
  }
}

// A height-field chunk: stone, 3 dirt, grass on top, water up to a level; `slope` scales the
// frequencies (1: slopes up to 1.1 blocks per block).
BlockVolume terrain(int n, double slope = 1.0) {
  BlockVolume v = empty_volume(n);
  for (int z = 0; z < n + 2; ++z) {
    for (int x = 0; x < n + 2; ++x) {
      const int top = 20 + int(10.0 * std::sin(x * 0.11 * slope) * std::cos(z * 0.07 * slope));
      for (int y = 0; y < n + 2; ++y) {
        std::uint16_t id = y > top ? (y <= 22 ? 4 : 0) : y == top ? 3 : y > top - 4 ? 2 : 1;
        put(v, x, y, z, id);
      }
    }
  }
  return v;
}

bool mergeable_pattern(int pattern) {
  const int c0 = pattern & 3, c1 = pattern >> 2 & 3, c2 = pattern >> 4 & 3, c3 = pattern >> 6;
  return (c0 == c1 && c3 == c2) || (c0 == c3 && c1 == c2);
}

TEST(GreedyMeshTest, TerrainMergesToFewQuads) {
  const BlockPalette pal = test_palette();
  const BlockVolume steep = with_columns(terrain(62), pal);
  expect_exact_cover(steep, pal, "terrain");
  BlockMesh plain, occluded;
  build_block_mesh(steep, pal, plain, nullptr, BlockMeshOptions{false});
  build_block_mesh(steep, pal, occluded);
  const std::size_t plain_quads = plain.opaque.size() + plain.translucent.size();
  const std::size_t quads = occluded.opaque.size() + occluded.translucent.size();
  EXPECT_LE(double(plain_quads), 0.4 * double(plain.exposed_faces))
      << plain_quads << " quads for " << plain.exposed_faces << " faces";
  // With occlusion, a face whose pattern varies along both axes can merge with nothing (on
  // this steep terrain that is about a third of the faces): merging loses at most those.
  std::size_t lone = 0;
  for (const auto& [f, pattern] : brute_force_faces(steep, pal))
    lone += !mergeable_pattern(pattern);
  EXPECT_LE(quads, plain_quads + lone) << lone << " faces with an unmergeable pattern";
  // Gentle hills (slopes up to 0.5): under 0.4 quads per face with occlusion too.
  const BlockVolume hills = terrain(62, 0.45);
  build_block_mesh(hills, pal, occluded);
  const std::size_t hill_quads = occluded.opaque.size() + occluded.translucent.size();
  EXPECT_LE(double(hill_quads), 0.4 * double(occluded.exposed_faces))
      << hill_quads << " quads for " << occluded.exposed_faces << " faces";
}

// Column masks of the test palette, block by block.
TEST(GreedyMeshTest, ComputedColumnsMatchTheIds) {
  const BlockPalette pal = test_palette();
  for (int size : {1, 5, 8, 62}) {
    BlockVolume v = empty_volume(size);
    std::uint64_t state = std::uint64_t(size);
    for (std::uint16_t& b : v.blocks) {
      const std::uint64_t r = next(state);
      b = (r & 3u) != 0 ? std::uint16_t(r % 7u) : std::uint16_t((r >> 8) & 1u);  // and runs
    }
    compute_block_columns(v, pal);
    const int p = v.padded();
    ASSERT_EQ(v.opaque_columns.size(), std::size_t(p * p));
    ASSERT_EQ(v.translucent_columns.size(), std::size_t(p * p));
    std::size_t wrong = 0;
    for (int z = 0; z < p; ++z) {
      for (int x = 0; x < p; ++x) {
        std::uint64_t opaque = 0, translucent = 0;
        for (int y = 0; y < p; ++y) {
          const BlockKind k = pal.types[v.at(x, y, z)].kind;
          opaque |= std::uint64_t(k == BlockKind::opaque) << y;
          translucent |= std::uint64_t(k == BlockKind::transparent || k == BlockKind::liquid) << y;
        }
        wrong += v.opaque_columns[std::size_t(z * p + x)] != opaque;
        wrong += v.translucent_columns[std::size_t(z * p + x)] != translucent;
      }
    }
    EXPECT_EQ(wrong, 0u) << "size " << size;
  }
}

// One big volume against the same blocks meshed as 2 x 2 x 2 padded chunks: every face, its
// block and its occlusion, on the chunk borders too.
TEST(GreedyMeshTest, ChunkBordersGetTheOcclusionOfOneVolume) {
  const BlockPalette pal = test_palette();
  const auto world = [](int x, int y, int z) -> std::uint16_t {
    const int top = 12 + int(6.0 * std::sin(x * 0.5) * std::cos(z * 0.4));
    const std::uint32_t h =
        std::uint32_t(x) * 73856093u ^ std::uint32_t(y) * 19349663u ^ std::uint32_t(z) * 83492791u;
    if (y > top) return y <= 13 ? 4 : (h % 17u == 0 ? 5 : 0);
    return (h >> 3) % 11u == 0 ? 0 : std::uint16_t(1 + (h >> 7) % 3u);  // caves
  };
  const int n = 16;
  const auto fill = [&](int size, int ox, int oy, int oz) {
    BlockVolume v = empty_volume(size);
    for (int y = 0; y < size + 2; ++y) {
      for (int z = 0; z < size + 2; ++z) {
        for (int x = 0; x < size + 2; ++x)
          put(v, x, y, z, world(ox + x - 1, oy + y - 1, oz + z - 1));
      }
    }
    return v;
  };
  BlockMesh mesh;
  build_block_mesh(fill(2 * n, 0, 0, 0), pal, mesh);
  std::size_t overlaps = 0;
  FaceAo whole = quad_faces(mesh.opaque, overlaps);
  for (const auto& f : quad_faces(mesh.translucent, overlaps)) whole.insert(f);
  FaceAo pieces;
  std::size_t border_faces = 0;
  for (int c = 0; c < 8; ++c) {
    const std::array<int, 3> o = {(c & 1) * n, (c >> 1 & 1) * n, (c >> 2 & 1) * n};
    BlockMeshScratch scratch;
    build_block_mesh(with_columns(fill(n, o[0], o[1], o[2]), pal), pal, mesh, &scratch);
    for (const std::vector<PackedQuad>* list : {&mesh.opaque, &mesh.translucent}) {
      for (const auto& [f, pattern] : quad_faces(*list, overlaps, o)) {
        pieces.emplace(f, pattern);
        const int lo = std::min({std::get<0>(f) % n, std::get<1>(f) % n, std::get<2>(f) % n});
        const int hi = std::max({std::get<0>(f) % n, std::get<1>(f) % n, std::get<2>(f) % n});
        border_faces += (lo == 0 || hi == n - 1) && pattern != 0;
      }
    }
  }
  EXPECT_EQ(overlaps, 0u);
  EXPECT_GT(border_faces, 100u) << "the test world has too few occluded faces on chunk borders";
  EXPECT_EQ(whole.size(), pieces.size());
  EXPECT_TRUE(whole == pieces);
}

TEST(GreedyMeshTest, ScratchReuseGivesTheSameMesh) {
  const BlockPalette pal = test_palette();
  BlockMeshScratch scratch;
  for (int size : {62, 9, 62, 30}) {
    BlockVolume v = empty_volume(size);
    for (std::size_t k = 0; k < v.blocks.size(); ++k)
      v.blocks[k] = std::uint16_t((k * 7 + k / 13) % 7);
    for (const bool given : {false, true, false}) {
      const BlockVolume in = given ? with_columns(v, pal) : v;
      BlockMesh a, b;
      build_block_mesh(in, pal, a, &scratch);
      build_block_mesh(in, pal, b);
      expect_same_mesh(a, b, label("size/given", size, given));
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
  test::expect_error([&] { compute_block_columns(unknown, pal); }, ErrorCategory::invalid_argument,
                     {"block id 9 at (1, 2, 3)", "palette of 7 types"});
  EXPECT_TRUE(unknown.opaque_columns.empty());

  BlockVolume masks = with_columns(empty_volume(4), pal);
  masks.opaque_columns.pop_back();
  test::expect_error([&] { build_block_mesh(masks, pal, mesh); }, ErrorCategory::invalid_argument,
                     {"35 opaque_columns for size 4", "0 or (size + 2)^2 = 36"});
  masks.opaque_columns.clear();
  test::expect_error([&] { build_block_mesh(masks, pal, mesh); }, ErrorCategory::invalid_argument,
                     {"translucent_columns given without opaque_columns"});
  // Masks that contradict the ids where a face is drawn.
  masks = with_columns(empty_volume(4), pal);
  masks.opaque_columns[std::size_t(3 * 6 + 2)] |= std::uint64_t{1} << 2;  // (1, 1, 2): air
  test::expect_error([&] { build_block_mesh(masks, pal, mesh); }, ErrorCategory::invalid_argument,
                     {"opaque_columns say block (1, 1, 2) is opaque", "id 0 ('air')"});
  // With masks an id outside the palette is found where a face is drawn.
  BlockVolume bad_id = with_columns(empty_volume(4), pal);
  put(bad_id, 2, 3, 4, 9);
  bad_id.opaque_columns[std::size_t(4 * 6 + 2)] |= std::uint64_t{1} << 3;
  test::expect_error([&] { build_block_mesh(bad_id, pal, mesh); }, ErrorCategory::invalid_argument,
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
