// Chunk meshes: validity, exhaustive crack-freeness across LOD pairs, skirts, border normals,
// geomorph targets, reuse without allocation, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "mesh_test_util.hpp"

namespace terrane {
namespace {

using namespace mesh_test;

const GridSpec kWorld{.spacing_m = 1.0};

// Every surface triangle is non-degenerate and counter-clockwise seen from +Y; the surface is a
// disk exactly tiling the chunk square (each inner edge shared by two triangles in opposite
// directions, edges used once lie on the chunk border, projected area = square's area); skirts
// face away from the chunk.
void expect_valid_chunk(const Mesh& m, double side_m, const std::string& what) {
  ASSERT_NO_THROW(m.validate(what)) << what;
  double area = 0.0;
  std::set<std::pair<std::uint32_t, std::uint32_t>> directed;
  for (std::size_t k = 0; k < m.surface_index_count; k += 3) {
    const P3 a = world_pos(m, m.index(k)), b = world_pos(m, m.index(k + 1)),
             c = world_pos(m, m.index(k + 2));
    const double cy = cross_y(a, b, c);
    ASSERT_GT(cy, 0.0) << what << ": triangle " << k / 3 << " is not counter-clockwise from above";
    area += cy / 2.0;
    for (int e = 0; e < 3; ++e) {
      const std::uint32_t u = m.index(k + std::size_t(e)), v = m.index(k + std::size_t((e + 1) % 3));
      ASSERT_TRUE(directed.insert({u, v}).second) << what << ": directed edge used twice";
    }
  }
  EXPECT_NEAR(area, side_m * side_m, 1e-6 * side_m * side_m) << what;
  for (const auto& [u, v] : directed) {
    if (directed.count({v, u}) != 0U) continue;
    const P3 a = world_pos(m, u), b = world_pos(m, v);
    const double x0 = m.origin_x_m, z0 = m.origin_z_m;
    const bool on_border = (a[0] == x0 && b[0] == x0) || (a[0] == x0 + side_m && b[0] == x0 + side_m) ||
                           (a[2] == z0 && b[2] == z0) || (a[2] == z0 + side_m && b[2] == z0 + side_m);
    ASSERT_TRUE(on_border) << what << ": an open edge inside the chunk (a hole)";
  }
  const double cx = m.origin_x_m + side_m / 2, cz = m.origin_z_m + side_m / 2;
  for (std::size_t k = m.surface_index_count; k < m.index_count(); k += 3) {
    const P3 a = world_pos(m, m.index(k)), b = world_pos(m, m.index(k + 1)),
             c = world_pos(m, m.index(k + 2));
    const P3 n = cross(a, b, c);
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    ASSERT_GT(len, 1e-9) << what << ": degenerate skirt triangle";
    const double out_x = (a[0] + b[0] + c[0]) / 3 - cx, out_z = (a[2] + b[2] + c[2]) / 3 - cz;
    EXPECT_GT(n[0] * out_x + n[2] * out_z, 0.0) << what << ": skirt triangle faces inwards";
    EXPECT_NEAR(n[1], 0.0, 1e-9 * len) << what << ": skirt triangle is not vertical";
  }
}

TEST(ChunkMesh, ValidForEveryLevelAndEdgeMask) {
  const int cells = 16;
  const StitchTable table(cells);
  const Field2D h = chunk_heights(kWorld, cells, 3, -2);
  Mesh m;
  int meshes = 0;
  for (int lod = 0; lod <= table.levels(); ++lod) {
    const int k = table.levels() - lod + 1;  // choices of d per edge
    for (int mask = 0; mask < k * k * k * k; ++mask) {
      ChunkMeshParams p;
      p.lod = lod;
      int rest = mask;
      for (int e = 0; e < 4; ++e, rest /= k) p.coarser_neighbour[std::size_t(e)] = rest % k;
      p.skirts = mask % 2 == 1;
      build_chunk_mesh(h, p, table, m);
      expect_valid_chunk(m, cells, "lod " + std::to_string(lod) + " mask " + std::to_string(mask));
      const std::size_t n = std::size_t(cells >> lod) + 1;
      EXPECT_EQ(m.vertex_count(), n * n + (p.skirts ? 4 * n : 0));
      ++meshes;
    }
  }
  EXPECT_EQ(meshes, 625 + 256 + 81 + 16 + 1);
}

TEST(ChunkMesh, IndexWidthFollowsVertexCount) {
  Mesh m;
  const StitchTable t128(128), t256(256);
  build_chunk_mesh(chunk_heights(kWorld, 128, 0, 0), {}, t128, m);
  EXPECT_FALSE(m.uses_32bit_indices());
  EXPECT_EQ(m.vertex_count(), 129u * 129u);
  EXPECT_EQ(m.index_count(), 128u * 128u * 6u);
  build_chunk_mesh(chunk_heights(kWorld, 256, 0, 0), {}, t256, m);
  EXPECT_TRUE(m.uses_32bit_indices());
  EXPECT_TRUE(m.indices16.empty());
  EXPECT_EQ(m.vertex_count(), 257u * 257u);
  expect_valid_chunk(m, 256, "256 cells");
}

// Neighbour offsets and the shared line, per direction from chunk A to chunk B.
struct Direction {
  Edge a_edge, b_edge;
  int dx, dz;
  int axis;  // 0: the shared line has constant x, 2: constant z
};
const Direction kDirections[] = {
    {Edge::east, Edge::west, 1, 0, 0},
    {Edge::west, Edge::east, -1, 0, 0},
    {Edge::south, Edge::north, 0, 1, 2},
    {Edge::north, Edge::south, 0, -1, 2},
};

struct Pair {
  Mesh a, b;
  double line;  // world coordinate of the shared line
};

void build_pair(const StitchTable& table, const GridSpec& world, const Direction& d, int la, int lb,
                bool stitch, bool skirts, double depth, Pair& out) {
  const int cells = table.cells();
  const std::int64_t ax = 2, az = -1;
  const Field2D ha = chunk_heights(world, cells, ax, az);
  const Field2D hb = chunk_heights(world, cells, ax + d.dx, az + d.dz);
  ChunkMeshParams pa, pb;
  pa.lod = la;
  pb.lod = lb;
  if (stitch) {
    pa.coarser_neighbour[std::size_t(d.a_edge)] = std::max(0, lb - la);
    pb.coarser_neighbour[std::size_t(d.b_edge)] = std::max(0, la - lb);
  }
  pa.skirts = pb.skirts = skirts;
  pa.skirt_depth_m = pb.skirt_depth_m = depth;
  build_chunk_mesh(ha, pa, table, out.a);
  build_chunk_mesh(hb, pb, table, out.b);
  const std::int64_t line_index = (d.axis == 0 ? ax : az) * cells +
                                  ((d.dx > 0 || d.dz > 0) ? cells : 0);
  out.line = d.axis == 0 ? world.x_m(line_index) : world.z_m(line_index);
}

TEST(ChunkMesh, CrackFreeForEveryLevelPairInAllDirections) {
  for (const int cells : {16, 32}) {
    const StitchTable table(cells);
    Pair pr;
    for (const Direction& d : kDirections) {
      for (int la = 0; la <= table.levels(); ++la) {
        for (int lb = 0; lb <= table.levels(); ++lb) {
          build_pair(table, kWorld, d, la, lb, true, false, 1.0, pr);
          const std::string what = "cells " + std::to_string(cells) + " edge " +
                                   to_string(d.a_edge) + " lods " + std::to_string(la) + "/" +
                                   std::to_string(lb);
          const auto sa = border_segments(pr.a, d.axis, pr.line);
          const auto sb = border_segments(pr.b, d.axis, pr.line);
          // The same segments, endpoints bit-identical in world space: no cracks, no T-junctions.
          ASSERT_EQ(sa, sb) << what;
          const std::size_t along = d.axis == 0 ? 2 : 0;
          const double start = d.axis == 0 ? pr.a.origin_z_m : pr.a.origin_x_m;
          ASSERT_EQ(sa.size(), std::size_t(cells >> std::max(la, lb))) << what;
          // The segments cover the whole edge without gaps or overlaps.
          ASSERT_EQ(sa.front().a[along], start) << what;
          ASSERT_EQ(sa.back().b[along], start + cells) << what;
          for (std::size_t k = 1; k < sa.size(); ++k) ASSERT_EQ(sa[k].a, sa[k - 1].b) << what;
          // Rasterised along the edge: both meshes have the same height at every sample.
          for (int t = 0; t <= 8 * cells; ++t) {
            const double x = start + t / 8.0;
            ASSERT_EQ(polyline_height(sa, d.axis, x), polyline_height(sb, d.axis, x)) << what;
          }
        }
      }
    }
  }
}

TEST(ChunkMesh, SeamsAreExactAtNonDyadicSpacing) {
  // With spacing 0.3 m the world sum origin + local is not exact, but every attribute of a shared
  // vertex is: height, normal, world UV, and the along-edge local coordinate.
  const GridSpec world{.spacing_m = 0.3, .origin_x_m = 1000.1, .origin_z_m = -77.7};
  const StitchTable table(16);
  Pair pr;
  build_pair(table, world, kDirections[0], 1, 1, true, false, 1.0, pr);
  const std::size_t row = 9;
  for (std::size_t j = 0; j < row; ++j) {
    const std::size_t va = j * row + (row - 1), vb = j * row;
    EXPECT_EQ(pr.a.positions[3 * va + 1], pr.b.positions[3 * vb + 1]);
    EXPECT_EQ(pr.a.positions[3 * va + 2], pr.b.positions[3 * vb + 2]);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(pr.a.normals[3 * va + c], pr.b.normals[3 * vb + c]);
    for (int c = 0; c < 2; ++c) EXPECT_EQ(pr.a.uv_world[2 * va + c], pr.b.uv_world[2 * vb + c]);
    EXPECT_EQ(pr.a.morph_y[va], pr.b.morph_y[vb]);
  }
  EXPECT_EQ(pr.b.origin_x_m, world.x_m(3 * 16));
}

TEST(ChunkMesh, SkirtsCoverTheGapsOfUnstitchedNeighbours) {
  const int cells = 16;
  const StitchTable table(cells);
  const double depth = 25.0;
  double largest_gap = 0.0;
  Pair pr;
  for (const Direction& d : kDirections) {
    for (int la = 0; la <= table.levels(); ++la) {
      for (int lb = 0; lb <= table.levels(); ++lb) {
        build_pair(table, kWorld, d, la, lb, false, true, depth, pr);
        const std::string what = std::string("edge ") + to_string(d.a_edge) + " lods " +
                                 std::to_string(la) + "/" + std::to_string(lb);
        const std::size_t along = d.axis == 0 ? 2 : 0;
        const double start = d.axis == 0 ? pr.a.origin_z_m : pr.a.origin_x_m;
        for (const Mesh* m : {&pr.a, &pr.b}) {
          // Every border segment has a skirt quad below it: two skirt triangles using its two
          // ends and their copies depth metres lower.
          std::set<std::array<double, 3>> skirt_points;
          for (std::size_t k = m->surface_index_count; k < m->index_count(); ++k) {
            skirt_points.insert(world_pos(*m, m->index(k)));
          }
          for (const Segment& s : border_segments(*m, d.axis, pr.line)) {
            for (P3 p : {s.a, s.b}) {
              ASSERT_EQ(skirt_points.count(p), 1u) << what;
              p[1] = double(float(p[1]) - float(depth));
              ASSERT_EQ(skirt_points.count(p), 1u) << what << ": no skirt below a border vertex";
            }
          }
        }
        const auto sa = border_segments(pr.a, d.axis, pr.line);
        const auto sb = border_segments(pr.b, d.axis, pr.line);
        for (int t = 0; t <= 8 * cells; ++t) {
          const double x = start + t / 8.0;
          const double gap = std::abs(polyline_height(sa, d.axis, x) - polyline_height(sb, d.axis, x));
          largest_gap = std::max(largest_gap, gap);
          // The higher surface's skirt reaches below the lower one: the gap is closed.
          ASSERT_LE(gap, depth) << what << " at " << x;
        }
        (void)along;
      }
    }
  }
  EXPECT_GT(largest_gap, 0.5) << "unstitched neighbours at different levels should leave gaps";
}

TEST(ChunkMesh, BorderNormalsAndWorldUvsMatchNeighboursAtAnyLevel) {
  const int cells = 16;
  const StitchTable table(cells);
  Pair pr;
  for (const Direction& d : kDirections) {
    for (int la = 0; la <= table.levels(); ++la) {
      for (int lb = 0; lb <= table.levels(); ++lb) {
        build_pair(table, kWorld, d, la, lb, true, false, 1.0, pr);
        int shared = 0;
        for (std::size_t va = 0; va < pr.a.vertex_count(); ++va) {
          const P3 p = world_pos(pr.a, va);
          if (p[std::size_t(d.axis)] != pr.line) continue;
          const long vb = find_vertex(pr.b, p[0], p[2], pr.b.vertex_count());
          if (vb < 0) continue;
          ++shared;
          const std::size_t b = std::size_t(vb);
          ASSERT_EQ(world_pos(pr.b, b), p);
          for (std::size_t c = 0; c < 3; ++c) ASSERT_EQ(pr.a.normals[3 * va + c], pr.b.normals[3 * b + c]);
          for (std::size_t c = 0; c < 2; ++c) ASSERT_EQ(pr.a.uv_world[2 * va + c], pr.b.uv_world[2 * b + c]);
          if (la == lb) {
            ASSERT_EQ(pr.a.morph_y[va], pr.b.morph_y[b]);
          }
        }
        EXPECT_EQ(shared, (cells >> std::max(la, lb)) + 1);
      }
    }
  }
}

// Height of the surface of `m` at (x, z), by barycentric interpolation in the triangle that
// contains the point (in double).
double surface_height(const Mesh& m, double x, double z) {
  for (std::size_t k = 0; k < m.surface_index_count; k += 3) {
    const P3 a = world_pos(m, m.index(k)), b = world_pos(m, m.index(k + 1)),
             c = world_pos(m, m.index(k + 2));
    const double area = cross_y(a, b, c);
    const P3 p{x, 0.0, z};
    const double wa = cross_y(p, b, c) / area, wb = cross_y(a, p, c) / area,
                 wc = cross_y(a, b, p) / area;
    if (wa >= 0 && wb >= 0 && wc >= 0) return wa * a[1] + wb * b[1] + wc * c[1];
  }
  ADD_FAILURE() << "(" << x << ", " << z << ") is outside the mesh";
  return 0.0;
}

TEST(ChunkMesh, GeomorphAtFactorOneIsTheNextLevelSurface) {
  const int cells = 32;
  const StitchTable table(cells);
  const Field2D h = chunk_heights(kWorld, cells, -5, 7);
  Mesh fine, coarse;
  for (int lod = 0; lod < table.levels(); ++lod) {
    ChunkMeshParams pf, pc;
    pf.lod = lod;
    pc.lod = lod + 1;
    build_chunk_mesh(h, pf, table, fine);
    build_chunk_mesh(h, pc, table, coarse);
    double worst = 0.0;
    for (std::size_t v = 0; v < fine.vertex_count(); ++v) {
      const P3 p = world_pos(fine, v);
      const double target = surface_height(coarse, p[0], p[2]);
      // morph factor k = 1: y + 1 * (morph_y - y) = morph_y.
      const double diff = std::abs(double(fine.morph_y[v]) - target);
      worst = std::max(worst, diff);
      ASSERT_LE(diff, 4e-6 * (1.0 + std::abs(target))) << "lod " << lod << " vertex " << v;
    }
    // Even vertices are shared with the coarser level and keep their height exactly.
    const std::size_t row = std::size_t(cells >> lod) + 1;
    for (std::size_t j = 0; j < row; j += 2) {
      for (std::size_t i = 0; i < row; i += 2) {
        ASSERT_EQ(fine.morph_y[j * row + i], fine.positions[3 * (j * row + i) + 1]);
      }
    }
  }
  ChunkMeshParams top;
  top.lod = table.levels();
  build_chunk_mesh(h, top, table, coarse);
  for (std::size_t v = 0; v < coarse.vertex_count(); ++v) {
    EXPECT_EQ(coarse.morph_y[v], coarse.positions[3 * v + 1]);
  }
}

TEST(ChunkMesh, RebuildIsDeterministicAndReusesStorage) {
  const StitchTable table(64);
  const Field2D h1 = chunk_heights(kWorld, 64, 0, 0), h2 = chunk_heights(kWorld, 64, 1, 0);
  ChunkMeshParams p;
  p.lod = 1;
  p.coarser_neighbour = {1, 0, 2, 0};
  p.skirts = true;
  Mesh a, b;
  build_chunk_mesh(h1, p, table, a);
  build_chunk_mesh(h2, p, table, b);  // b gets the other chunk first, then is overwritten
  const float* storage = b.positions.data();
  build_chunk_mesh(h1, p, table, b);
  EXPECT_EQ(b.positions.data(), storage);  // no reallocation
  EXPECT_EQ(a.positions, b.positions);
  EXPECT_EQ(a.normals, b.normals);
  EXPECT_EQ(a.uv_local, b.uv_local);
  EXPECT_EQ(a.uv_world, b.uv_world);
  EXPECT_EQ(a.morph_y, b.morph_y);
  EXPECT_EQ(a.indices16, b.indices16);
}

TEST(ChunkMesh, BadInputIsRejectedWithPreciseMessages) {
  const StitchTable table(128);
  const Field2D h = chunk_heights(kWorld, 128, 0, 0);
  Mesh m;
  ChunkMeshParams p;
  p.lod = 8;
  EXPECT_EQ(error_of([&] { build_chunk_mesh(h, p, table, m); }),
            "lod 8 is beyond the levels of a chunk of 128 cells (allowed 0..7)");
  p.lod = -1;
  EXPECT_EQ(error_of([&] { build_chunk_mesh(h, p, table, m); }),
            "lod -1 is beyond the levels of a chunk of 128 cells (allowed 0..7)");
  p.lod = 5;
  p.coarser_neighbour[std::size_t(Edge::north)] = 3;
  EXPECT_EQ(error_of([&] { build_chunk_mesh(h, p, table, m); }),
            "coarser_neighbour[north] 3 is outside 0..2 (lod 5 of 7)");
  p = {};
  p.skirts = true;
  p.skirt_depth_m = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(error_of([&] { build_chunk_mesh(h, p, table, m); }),
            "skirt_depth_m nan must be > 0 and finite");
  p = {};
  p.morph_parent_quadrant = 4;
  EXPECT_EQ(error_of([&] { build_chunk_mesh(h, p, table, m); }),
            "morph_parent_quadrant 4 must be -1, or 0..3 with lod 0 (lod is 0)");
  p.morph_parent_quadrant = 2;
  p.lod = 1;
  EXPECT_EQ(error_of([&] { build_chunk_mesh(h, p, table, m); }),
            "morph_parent_quadrant 2 must be -1, or 0..3 with lod 0 (lod is 1)");
  const Field2D small = chunk_heights(kWorld, 64, 0, 0);
  EXPECT_EQ(error_of([&] { build_chunk_mesh(small, {}, table, m); }),
            "build_chunk_mesh: heights are 67 x 67 (4489 samples); a chunk of 128 cells needs "
            "131 x 131 (its vertices plus a 1-sample halo, see chunk_height_grid)");
  EXPECT_EQ(error_of([] { StitchTable t(96); }),
            "chunk cells 96 is not a power of two in [1, 4096]");
  EXPECT_EQ(error_of([] { StitchTable t(8192); }),
            "chunk cells 8192 is not a power of two in [1, 4096]");
}

}  // namespace
}  // namespace terrane
