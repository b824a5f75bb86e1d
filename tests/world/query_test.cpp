#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support/expect_error.hpp"
#include "support/test_rng.hpp"
#include "terrane/world.hpp"

namespace terrane {
namespace {

Preset default_preset(std::vector<std::string> overrides = {}) {
  return parse_preset(builtin_preset_json("default"), "default", overrides);
}

std::shared_ptr<const ChunkGenerator> make_generator(int cells,
                                                     std::vector<std::string> overrides = {}) {
  ChunkSettings s;
  s.cells = cells;
  s.geomorph = false;
  return std::make_shared<const ChunkGenerator>(default_preset(std::move(overrides)), s);
}

using Rng = test::TestRng;  // counter-based inputs (no std distributions: docs/DESIGN.md §1)

// A level-0 chunk's surface triangles in world coordinates (double).
struct Triangle {
  std::array<std::array<double, 3>, 3> v;
};

std::vector<Triangle> chunk_triangles(const ChunkData& d) {
  std::vector<Triangle> out;
  const Mesh& m = d.mesh;
  for (std::size_t k = 0; k + 2 < m.surface_index_count; k += 3) {
    Triangle t;
    for (std::size_t c = 0; c < 3; ++c) {
      const std::size_t v = m.index(k + c);
      t.v[c] = {m.origin_x_m + double(m.positions[3 * v]),
                m.origin_y_m + double(m.positions[3 * v + 1]),
                m.origin_z_m + double(m.positions[3 * v + 2])};
    }
    out.push_back(t);
  }
  return out;
}

// Barycentric coordinates of (x, z) in the triangle's XZ projection, computed relative to its
// first vertex (keeps precision 1e8 m from the origin).
std::array<double, 3> barycentric(const Triangle& t, double x, double z) {
  const double ax = t.v[1][0] - t.v[0][0], az = t.v[1][2] - t.v[0][2];
  const double bx = t.v[2][0] - t.v[0][0], bz = t.v[2][2] - t.v[0][2];
  const double px = x - t.v[0][0], pz = z - t.v[0][2];
  const double det = ax * bz - az * bx;
  const double l1 = (px * bz - pz * bx) / det;
  const double l2 = (ax * pz - az * px) / det;
  return {1.0 - l1 - l2, l1, l2};
}

std::array<double, 3> unit_up_normal(const Triangle& t) {
  const double e1[3] = {t.v[1][0] - t.v[0][0], t.v[1][1] - t.v[0][1], t.v[1][2] - t.v[0][2]};
  const double e2[3] = {t.v[2][0] - t.v[0][0], t.v[2][1] - t.v[0][1], t.v[2][2] - t.v[0][2]};
  std::array<double, 3> n{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                          e1[0] * e2[1] - e1[1] * e2[0]};
  const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  const double sign = n[1] < 0.0 ? -1.0 : 1.0;
  for (double& c : n) c *= sign / len;
  return n;
}

// Möller–Trumbore (T. Möller, B. Trumbore, JGT 1997) in double, relative to the ray origin;
// a small tolerance on the barycentrics so that hits on shared edges are not lost.
std::optional<double> intersect(const Triangle& t, const double o[3], const double d[3]) {
  double a[3], b[3], c[3];
  for (int k = 0; k < 3; ++k) {
    a[k] = t.v[0][std::size_t(k)] - o[k];
    b[k] = t.v[1][std::size_t(k)] - o[k];
    c[k] = t.v[2][std::size_t(k)] - o[k];
  }
  const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2],
                       d[0] * e2[1] - d[1] * e2[0]};
  const double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
  if (std::abs(det) < 1e-14) return std::nullopt;
  const double inv = 1.0 / det;
  const double s[3] = {-a[0], -a[1], -a[2]};
  const double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
  const double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2],
                       s[0] * e1[1] - s[1] * e1[0]};
  const double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
  const double eps = 1e-9;
  if (u < -eps || v < -eps || u + v > 1.0 + eps) return std::nullopt;
  const double t_hit = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
  if (t_hit < 0.0) return std::nullopt;
  return t_hit;
}

// Checks 1 and 2 of a chunk: vertices bit-equal, interior points equal to the mesh triangle.
void check_chunk_surface(const ChunkGenerator& gen, const TerrainQuery& q, const ChunkKey& key,
                         Rng& rng, int points, const HeightEditSnapshot* edits = nullptr) {
  ChunkData d;
  gen.generate(key, {0, 0, 0, 0}, d, {}, nullptr, edits);
  const int n = gen.settings().cells;
  const double s = gen.cell_size_m();
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) {
      const double x = double(key.cx * n + i) * s;
      const double z = double(key.cz * n + j) * s;
      ASSERT_EQ(q.height_at(x, z), double(d.heights.at(i + 1, j + 1)))
          << "chunk (" << key.cx << ", " << key.cz << ") vertex " << i << ", " << j;
    }
  }
  const std::vector<Triangle> tris = chunk_triangles(d);
  ASSERT_EQ(tris.size(), std::size_t(2 * n * n));
  const double size = gen.chunk_size_m(0);
  for (int k = 0; k < points; ++k) {
    const double x = d.mesh.origin_x_m + rng.uniform(0.0, size);
    const double z = d.mesh.origin_z_m + rng.uniform(0.0, size);
    const Triangle* found = nullptr;
    std::array<double, 3> w{};
    for (const Triangle& t : tris) {
      w = barycentric(t, x, z);
      if (w[0] >= -1e-12 && w[1] >= -1e-12 && w[2] >= -1e-12) {
        found = &t;
        break;
      }
    }
    ASSERT_NE(found, nullptr) << x << ", " << z;
    const double y = w[0] * found->v[0][1] + w[1] * found->v[1][1] + w[2] * found->v[2][1];
    EXPECT_NEAR(q.height_at(x, z), y, 1e-4) << x << ", " << z;
    const auto want = unit_up_normal(*found);
    const auto got = q.normal_at(x, z);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(double(got[std::size_t(c)]), want[std::size_t(c)], 1e-5) << x << ", " << z;
    EXPECT_NEAR(double(got[0]) * got[0] + double(got[1]) * got[1] + double(got[2]) * got[2], 1.0,
                1e-6);
  }
}

TEST(TerrainQueryTest, HeightAtVerticesIsTheChunkSampleAndPointsLieOnTheMeshTriangles) {
  for (const auto& overrides :
       {std::vector<std::string>{}, std::vector<std::string>{"world.cell_size_m=0.7"}}) {
    for (int cells : {16, 32}) {
      const auto gen = make_generator(cells, overrides);
      const TerrainQuery q(gen);
      Rng rng{std::uint64_t(cells)};
      for (const ChunkKey key :
           {ChunkKey{0, 0, 0}, ChunkKey{-1, -1, 0}, ChunkKey{3, -7, 0}, ChunkKey{-40, 25, 0}}) {
        SCOPED_TRACE("cells " + std::to_string(cells) + " key " + std::to_string(key.cx) + "," +
                     std::to_string(key.cz) + (overrides.empty() ? "" : " " + overrides[0]));
        check_chunk_surface(*gen, q, key, rng, 200);
      }
    }
  }
}

// Issue 12, defect 8a: scatter heights were bilinear while the meshes are triangles (up to 27 cm
// off). A streamed chunk's instances now sit on its level-0 mesh: y is float(height_at) bit for
// bit, the aligned normal is normal_at's, and both agree with the chunk's own triangles.
TEST(ScatterTest, HeightIsTheExactTriangleHeight) {
  std::size_t checked = 0;
  for (const auto& overrides :
       {std::vector<std::string>{}, std::vector<std::string>{"world.cell_size_m=0.7"}}) {
    for (int cells : {16, 32}) {
      ChunkSettings cs;
      cs.cells = cells;
      cs.geomorph = false;
      cs.surface = true;
      const Preset preset = default_preset(overrides);
      const auto gen = std::make_shared<const ChunkGenerator>(preset, cs);
      const TerrainQuery q(gen);
      for (const ChunkKey key : {ChunkKey{0, 0, 0}, ChunkKey{-3, 2, 0}, ChunkKey{5, -1, 0}}) {
        ChunkData d;
        gen->generate(key, {0, 0, 0, 0}, d);
        const std::vector<Triangle> tris = chunk_triangles(d);
        for (const ScatterInstance& p : d.scatter) {
          ASSERT_EQ(p.y_m, float(q.height_at(p.x_m, p.z_m))) << p.x_m << ", " << p.z_m;
          if (preset.surface.species[std::size_t(p.species)].align_to_normal) {
            EXPECT_EQ(p.normal, q.normal_at(p.x_m, p.z_m)) << p.x_m << ", " << p.z_m;
          }
          bool on_mesh = false;
          for (const Triangle& t : tris) {
            const std::array<double, 3> w = barycentric(t, p.x_m, p.z_m);
            if (w[0] < -1e-12 || w[1] < -1e-12 || w[2] < -1e-12) continue;
            const double y = w[0] * t.v[0][1] + w[1] * t.v[1][1] + w[2] * t.v[2][1];
            EXPECT_NEAR(double(p.y_m), y, 1e-4 * (1.0 + std::abs(y))) << p.x_m << ", " << p.z_m;
            on_mesh = true;
            break;
          }
          EXPECT_TRUE(on_mesh) << p.x_m << ", " << p.z_m;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100u);
}

TEST(TerrainQueryTest, BigWorldsKeepExactHeightsAndTriangles) {
  const auto gen = make_generator(16);
  const TerrainQuery q(gen);
  Rng rng{99};
  for (const auto& [x, z] :
       {std::pair{1.0e8, 1.0e8}, std::pair{-1.0e8 - 37.0, 1.0e8 + 5.5}, std::pair{3.3e9, -2.1e9}}) {
    SCOPED_TRACE(std::to_string(x) + ", " + std::to_string(z));
    check_chunk_surface(*gen, q, gen->key_at(x, z, 0), rng, 100);
  }
}

// The reference: every triangle of the level-0 chunks under the ray's bounding box.
std::optional<double> brute_force_raycast(const ChunkGenerator& gen, const double o[3],
                                          const double d[3], double max_dist) {
  const double x1 = o[0] + d[0] * max_dist, z1 = o[2] + d[2] * max_dist;
  const ChunkKey a = gen.key_at(std::min(o[0], x1), std::min(o[2], z1), 0);
  const ChunkKey b = gen.key_at(std::max(o[0], x1), std::max(o[2], z1), 0);
  std::optional<double> best;
  ChunkData data;
  for (std::int64_t cz = a.cz; cz <= b.cz; ++cz) {
    for (std::int64_t cx = a.cx; cx <= b.cx; ++cx) {
      gen.generate({cx, cz, 0}, {0, 0, 0, 0}, data);
      for (const Triangle& t : chunk_triangles(data)) {
        const auto hit = intersect(t, o, d);
        if (hit && *hit <= max_dist && (!best || *hit < *best)) best = hit;
      }
    }
  }
  return best;
}

void check_random_rays(const ChunkGenerator& gen, const TerrainQuery& q, double cx, double cz,
                       std::uint64_t seed) {
  Rng rng{seed};
  int hits = 0, misses = 0;
  for (int k = 0; k < 60; ++k) {
    const double ox = cx + rng.uniform(-100.0, 100.0), oz = cz + rng.uniform(-100.0, 100.0);
    const double oy = q.height_at(ox, oz) + rng.uniform(0.5, 40.0);
    const double azimuth = rng.uniform(0.0, 6.283185307179586);
    // Mostly downward, from grazing to steep; every sixth ray points up.
    const double elevation = k % 6 == 5 ? rng.uniform(0.05, 1.5) : -rng.uniform(0.02, 1.4);
    const double len = rng.uniform(0.5, 3.0);  // directions need not be unit
    const double d[3] = {std::cos(elevation) * std::cos(azimuth), std::sin(elevation),
                         std::cos(elevation) * std::sin(azimuth)};
    const double o[3] = {ox, oy, oz};
    const double max_dist = rng.uniform(20.0, 150.0);
    const auto hit = q.raycast(ox, oy, oz, d[0] * len, d[1] * len, d[2] * len, max_dist);
    const auto ref = brute_force_raycast(gen, o, d, max_dist);
    SCOPED_TRACE("ray " + std::to_string(k));
    ASSERT_EQ(hit.has_value(), ref.has_value())
        << (ref ? *ref : -1.0) << " vs " << (hit ? hit->distance_m : -1.0);
    if (!hit) {
      ++misses;
      // The whole ray is above the surface.
      for (double t = 0.0; t <= max_dist; t += 0.1) {
        ASSERT_GT(oy + t * d[1], q.height_at(ox + t * d[0], oz + t * d[2]) - 1e-9) << t;
      }
      continue;
    }
    ++hits;
    EXPECT_NEAR(hit->distance_m, *ref, 1e-6);
    EXPECT_LE(hit->distance_m, max_dist);
    EXPECT_NEAR(hit->x_m, ox + hit->distance_m * d[0], 1e-6);
    EXPECT_NEAR(hit->z_m, oz + hit->distance_m * d[2], 1e-6);
    EXPECT_NEAR(hit->y_m, q.height_at(hit->x_m, hit->z_m), 1e-3);
    // No earlier intersection: every sample before the hit is above the surface.
    for (double t = 0.0; t < hit->distance_m - 1e-3; t += 0.1) {
      ASSERT_GT(oy + t * d[1], q.height_at(ox + t * d[0], oz + t * d[2]) - 1e-9) << t;
    }
    // The normal is the triangle's under the hit (away from the triangle's edges).
    const auto n = q.normal_at(hit->x_m, hit->z_m);
    const double dot = double(n[0]) * hit->normal[0] + double(n[1]) * hit->normal[1] +
                       double(n[2]) * hit->normal[2];
    EXPECT_GT(dot, 0.5);
    // A ray that stops short of the hit misses.
    if (hit->distance_m > 1e-3) {
      EXPECT_FALSE(q.raycast(ox, oy, oz, d[0], d[1], d[2], hit->distance_m * 0.999).has_value());
    }
  }
  EXPECT_GT(hits, 10);
  EXPECT_GT(misses, 5);
}

TEST(TerrainQueryTest, RaycastFindsTheFirstTriangleHit) {
  for (const auto& overrides :
       {std::vector<std::string>{}, std::vector<std::string>{"world.cell_size_m=0.7"}}) {
    const auto gen = make_generator(16, overrides);
    const TerrainQuery q(gen);
    check_random_rays(*gen, q, 0.0, 0.0, 1);
    check_random_rays(*gen, q, -3000.0, 1234.0, 2);
  }
}

TEST(TerrainQueryTest, RaycastInBigWorlds) {
  const auto gen = make_generator(16);
  const TerrainQuery q(gen);
  check_random_rays(*gen, q, 1.0e8, -1.0e8, 3);
  check_random_rays(*gen, q, -7.7e9, 2.5e9, 4);
}

TEST(TerrainQueryTest, VerticalRaysAndOriginsBelowTheSurface) {
  const auto gen = make_generator(16);
  const TerrainQuery q(gen);
  Rng rng{5};
  for (int k = 0; k < 50; ++k) {
    const double x = rng.uniform(-500.0, 500.0), z = rng.uniform(-500.0, 500.0);
    const double h = q.height_at(x, z);
    const auto down = q.raycast(x, h + 25.0, z, 0.0, -3.0, 0.0, 100.0);
    ASSERT_TRUE(down.has_value());
    EXPECT_NEAR(down->distance_m, 25.0, 1e-9);
    EXPECT_EQ(down->x_m, x);
    EXPECT_EQ(down->z_m, z);
    EXPECT_NEAR(down->y_m, h, 1e-9);
    const auto n = q.normal_at(x, z);
    EXPECT_EQ(down->normal, n);
    // Too short, or pointing up: no hit.
    EXPECT_FALSE(q.raycast(x, h + 25.0, z, 0.0, -1.0, 0.0, 24.9).has_value());
    EXPECT_FALSE(q.raycast(x, h + 0.01, z, 0.0, 1.0, 0.0, 1.0e5).has_value());
    // Origin below (or on) the surface: a hit at t = 0, whatever the direction.
    for (const auto& dir : {std::array<double, 3>{0, 1, 0}, std::array<double, 3>{1, 0.2, -1},
                            std::array<double, 3>{0, -1, 0}}) {
      const auto below = q.raycast(x, h - 0.5, z, dir[0], dir[1], dir[2], 10.0);
      ASSERT_TRUE(below.has_value());
      EXPECT_EQ(below->distance_m, 0.0);
      EXPECT_EQ(below->y_m, h - 0.5);
      EXPECT_EQ(below->normal, n);
    }
    const auto on = q.raycast(x, h, z, 1.0, 0.0, 0.0, 10.0);
    ASSERT_TRUE(on.has_value());
    EXPECT_EQ(on->distance_m, 0.0);
  }
  // From far above the slab [height_min_m, height_max_m]: the walk starts at its top.
  const double h0 = q.height_at(10.5, -20.25);
  const auto high = q.raycast(10.5, 5.0e5, -20.25, 0.0, -1.0, 0.0, 1.0e6);
  ASSERT_TRUE(high.has_value());
  EXPECT_NEAR(high->distance_m, 5.0e5 - h0, 1e-6);
  EXPECT_FALSE(q.raycast(10.5, 5.0e5, -20.25, 1.0, 0.0, 0.0, 1.0e6).has_value());
}

TEST(TerrainQueryTest, LongGrazingRayMatchesTheSampledSurface) {
  // 2 km nearly horizontal: the walk crosses hundreds of cells and several chunks.
  const auto gen = make_generator(32);
  const TerrainQuery q(gen);
  const double ox = 100.0, oz = -50.0;
  const double oy = q.height_at(ox, oz) + 3.0;
  const double d[3] = {0.8, -0.002, 0.6};
  const auto hit = q.raycast(ox, oy, oz, d[0], d[1], d[2], 2000.0);
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  const double end = hit ? hit->distance_m : 2000.0;
  for (double t = 0.0; t < end - 1e-3; t += 0.1) {
    ASSERT_GT(oy + t * d[1] / len, q.height_at(ox + t * d[0] / len, oz + t * d[2] / len) - 1e-9)
        << t;
  }
  if (hit) {
    EXPECT_NEAR(hit->y_m, q.height_at(hit->x_m, hit->z_m), 1e-3);
    // Just past the hit the ray is below the surface (it crosses, it does not graze).
    const double t = hit->distance_m + 0.5;
    EXPECT_LT(oy + t * d[1] / len, q.height_at(ox + t * d[0] / len, oz + t * d[2] / len) + 1e-3);
  }
}

// An Error(invalid_argument) naming the function, the argument, its value and what is allowed.
void expect_message(const std::function<void()>& f, std::initializer_list<std::string_view> needles,
                    std::source_location where = std::source_location::current()) {
  test::expect_error(f, ErrorCategory::invalid_argument, needles, where);
}

TEST(TerrainQueryTest, BadInputIsRefusedPrecisely) {
  const auto gen = make_generator(16);
  const TerrainQuery q(gen);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // The bound itself: see WorldBoundIsPrintedExactly.
  expect_message([&] { q.height_at(nan, 0.0); }, {"height_at: x_m = nan is not finite"});
  expect_message([&] { q.height_at(0.0, -inf); }, {"height_at: z_m = -inf is not finite"});
  expect_message([&] { q.height_at(0.0, 2.0e12); },
                 {"height_at: z_m = 2e+12 is outside the world [-"});
  expect_message([&] { q.normal_at(-1.5e12, 0.0); },
                 {"normal_at: x_m = -1.5e+12 is outside the world [-"});
  expect_message([&] { q.raycast(0, 0, 0, 0, 0, 0, 10); },
                 {"raycast: direction (0, 0, 0) is zero"});
  expect_message([&] { q.raycast(0, 0, 0, nan, -1, 0, 10); },
                 {"raycast: direction x = nan is not finite"});
  expect_message([&] { q.raycast(0, 0, 0, 0, -1, inf, 10); },
                 {"raycast: direction z = inf is not finite"});
  expect_message([&] { q.raycast(0, 0, 0, 0, -1, 0, -2.5); },
                 {"raycast: max_dist_m = -2.5 must be a finite number >= 0"});
  expect_message([&] { q.raycast(0, 0, 0, 0, -1, 0, nan); },
                 {"raycast: max_dist_m = nan must be a finite number >= 0"});
  expect_message([&] { q.raycast(0, 0, 0, 0, -1, 0, 2.0e6); },
                 {"raycast: max_dist_m = 2000000 is above kMaxRayDistance (1000000 m)"});
  expect_message([&] { q.raycast(0, nan, 0, 0, -1, 0, 1); },
                 {"raycast: origin y_m = nan is not finite"});
  expect_message([&] { q.raycast(3.0e12, 0, 0, 0, -1, 0, 1); },
                 {"raycast: origin x_m = 3e+12 is outside the world [-"});
  expect_message([&] { TerrainQuery bad(nullptr); }, {"TerrainQuery: the generator is null"});
  // Cell indices must stay exact in double: tiny cells limit the reach.
  const auto fine = make_generator(16, {"world.cell_size_m=0.00001"});
  const TerrainQuery qf(fine);
  expect_message([&] { qf.height_at(1.0e11, 0.0); },
                 {"height_at: x_m = 1e+11 is more than 2^52 cells of 1e-05 m from the origin"});
  EXPECT_TRUE(std::isfinite(qf.height_at(4.0e10, -4.0e10)));
  // The edge of the world is still answered, and tiny directions are normalised.
  EXPECT_TRUE(std::isfinite(q.height_at(kMaxWorldCoordinate, -kMaxWorldCoordinate)));
  const auto tiny = q.raycast(1.0, 1.0e4, 2.0, 0.0, -1e-300, 0.0, 1.0e6);
  ASSERT_TRUE(tiny.has_value());
  EXPECT_NEAR(tiny->y_m, q.height_at(1.0, 2.0), 1e-9);
}

struct Answers {
  std::vector<double> heights;
  std::vector<std::array<float, 3>> normals;
  std::vector<std::optional<RayHit>> hits;
};

Answers answer_all(const TerrainQuery& q, std::uint64_t seed) {
  Answers a;
  Rng rng{seed};
  for (int k = 0; k < 200; ++k) {
    const double x = rng.uniform(-2000.0, 2000.0), z = rng.uniform(-2000.0, 2000.0);
    a.heights.push_back(q.height_at(x, z));
    a.normals.push_back(q.normal_at(x, z));
    a.hits.push_back(q.raycast(x, a.heights.back() + 20.0, z, rng.uniform(-1, 1), -0.3,
                               rng.uniform(-1, 1), 200.0));
  }
  return a;
}

bool same(const Answers& a, const Answers& b) {
  if (a.heights != b.heights || a.normals != b.normals || a.hits.size() != b.hits.size())
    return false;
  for (std::size_t k = 0; k < a.hits.size(); ++k) {
    if (a.hits[k].has_value() != b.hits[k].has_value()) return false;
    if (!a.hits[k]) continue;
    const RayHit& x = *a.hits[k];
    const RayHit& y = *b.hits[k];
    if (x.distance_m != y.distance_m || x.x_m != y.x_m || x.y_m != y.y_m || x.z_m != y.z_m ||
        x.normal != y.normal) {
      return false;
    }
  }
  return true;
}

TEST(TerrainQueryTest, SameAnswersFromSeveralThreads) {
  const auto gen = make_generator(32);
  const TerrainQuery q(gen);
  const int threads = 4;
  std::vector<Answers> ref;
  for (int t = 0; t < threads; ++t) ref.push_back(answer_all(q, std::uint64_t(t % 2)));
  std::vector<Answers> got(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] { got[std::size_t(t)] = answer_all(q, std::uint64_t(t % 2)); });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_TRUE(same(got[std::size_t(t)], ref[std::size_t(t)])) << t;
}

// Scatter reads the height edits: a streamed chunk's instances stand on the edited ground (y is
// the edited query's height bit for bit, the aligned normal its normal), some moved with the
// brush, and an empty snapshot gives the same instances as no edits.
TEST(ScatterTest, InstancesStandOnTheEditedGround) {
  ChunkSettings cs;
  cs.cells = 32;
  cs.geomorph = false;
  cs.surface = true;
  const Preset preset = default_preset({});
  const auto gen = std::make_shared<const ChunkGenerator>(preset, cs);
  const double s = gen->cell_size_m();
  HeightEdits e(s, cs.cells);
  HeightBrush up;
  up.x_m = 16.0 * s, up.z_m = 16.0 * s, up.radius_m = 30.0 * s, up.strength_m = 6.0;
  e.apply(up, gen->graph());
  const auto snap = e.snapshot();
  const TerrainQuery edited(gen, snap), base(gen);
  std::size_t checked = 0, moved = 0;
  for (const ChunkKey key : {ChunkKey{0, 0, 0}, ChunkKey{-1, 0, 0}, ChunkKey{0, -1, 0}}) {
    ChunkData d;
    gen->generate(key, {0, 0, 0, 0}, d, {}, nullptr, snap.get());
    for (const ScatterInstance& p : d.scatter) {
      ASSERT_EQ(p.y_m, float(edited.height_at(p.x_m, p.z_m))) << p.x_m << ", " << p.z_m;
      if (preset.surface.species[std::size_t(p.species)].align_to_normal) {
        EXPECT_EQ(p.normal, edited.normal_at(p.x_m, p.z_m)) << p.x_m << ", " << p.z_m;
      }
      moved += p.y_m != float(base.height_at(p.x_m, p.z_m));
      ++checked;
    }
  }
  EXPECT_GT(checked, 50u);
  EXPECT_GT(moved, 20u);
  const auto empty = HeightEdits(s, cs.cells).snapshot();
  ChunkData plain, with_empty;
  gen->generate({0, 0, 0}, {0, 0, 0, 0}, plain);
  gen->generate({0, 0, 0}, {0, 0, 0, 0}, with_empty, {}, nullptr, empty.get());
  EXPECT_EQ(plain.content_hash(), with_empty.content_hash());
}

// Instance overrides (edit.hpp) read by the chunk generator: a removed instance is gone, a state
// is carried, a moved one leaves its chunk and stands in the next one under its id, an added one
// stands on the edited ground (y and aligned normal: the edited query's, bit for bit); every
// other instance keeps its bytes and order; instances_near sees the overrides; undo gives the
// procedural chunk back; a species the preset lacks is refused.
TEST(ScatterTest, InstanceOverridesChangeTheChunksScatter) {
  ChunkSettings cs;
  cs.cells = 32;
  cs.geomorph = false;
  cs.surface = true;
  const Preset preset = default_preset({});
  const auto gen = std::make_shared<const ChunkGenerator>(preset, cs);
  const double side = gen->chunk_size_m(0);
  HeightEdits h(gen->cell_size_m(), cs.cells);
  HeightBrush up;
  up.x_m = 8.0, up.z_m = 8.0, up.radius_m = 12.0, up.strength_m = 5.0;
  h.apply(up, gen->graph());
  const auto heights = h.snapshot();
  const TerrainQuery query(gen, heights);
  ChunkData d0, w0;
  gen->generate({0, 0, 0}, {0, 0, 0, 0}, d0, {}, nullptr, heights.get());
  gen->generate({-1, 0, 0}, {0, 0, 0, 0}, w0, {}, nullptr, heights.get());
  ASSERT_GE(d0.scatter.size(), 4u);
  const std::vector<ScatterInstance> base = d0.scatter;

  InstanceEdits e(side);
  e.remove({&base[0], 1});
  e.set_state({&base[1], 1}, 9);
  e.move(base[2], -0.25 * side, 0.5 * side, 45.0f);
  ScatterInstance placed;
  placed.x_m = 8.5, placed.z_m = 7.25, placed.species = int(preset.surface.species.size()) - 1;
  std::uint64_t added = 0;
  e.add(placed, 0.0, &added);
  const auto inst = e.snapshot();

  ChunkData d1, w1;
  gen->generate({0, 0, 0}, {0, 0, 0, 0}, d1, {}, nullptr, heights.get(), inst.get());
  gen->generate({-1, 0, 0}, {0, 0, 0, 0}, w1, {}, nullptr, heights.get(), inst.get());
  // d1 = base without [0] and [2], [1] with state 9, then the added instance.
  ASSERT_EQ(d1.scatter.size(), base.size() - 1);
  EXPECT_EQ(d1.scatter[0].id, base[1].id);
  EXPECT_EQ(d1.scatter[0].state, 9u);
  for (std::size_t k = 3; k < base.size(); ++k) {
    const ScatterInstance& a = d1.scatter[k - 2];
    const ScatterInstance& b = base[k];
    EXPECT_TRUE(a.id == b.id && a.x_m == b.x_m && a.z_m == b.z_m && a.y_m == b.y_m &&
                a.normal == b.normal && a.yaw_deg == b.yaw_deg && a.state == 0)
        << k;
  }
  const auto stands = [&](const ScatterInstance& p) {
    EXPECT_EQ(p.y_m, float(query.height_at(p.x_m, p.z_m))) << p.x_m << ", " << p.z_m;
    if (preset.surface.species[std::size_t(p.species)].align_to_normal) {
      EXPECT_EQ(p.normal, query.normal_at(p.x_m, p.z_m));
    } else {
      EXPECT_EQ(p.normal, (std::array<float, 3>{0.0f, 1.0f, 0.0f}));
    }
  };
  const ScatterInstance& a = d1.scatter.back();
  EXPECT_EQ(a.id, added);
  EXPECT_EQ(a.species, placed.species);
  stands(a);
  EXPECT_NE(a.y_m, float(TerrainQuery(gen).height_at(a.x_m, a.z_m)));  // on the raised ground
  ASSERT_EQ(w1.scatter.size(), w0.scatter.size() + 1);
  const ScatterInstance& m = w1.scatter.back();
  EXPECT_EQ(m.id, base[2].id);
  EXPECT_EQ(m.x_m, -0.25 * side);
  EXPECT_EQ(m.yaw_deg, 45.0f);
  EXPECT_EQ(m.scale_y, base[2].scale_y);
  stands(m);
  EXPECT_NE(d1.content_hash(), d0.content_hash());

  // instances_near: the overrides applied, within the radius only, each the chunk's instance
  // to the byte (it scatters without making the mesh or the splat).
  const auto near = gen->instances_near(8.0, 8.0, 3.0, heights.get(), inst.get());
  bool found_added = false;
  for (const ScatterInstance& p : near) {
    EXPECT_LE(std::hypot(p.x_m - 8.0, p.z_m - 8.0), 3.0);
    EXPECT_NE(p.id, base[0].id);
    found_added = found_added || p.id == added;
    EXPECT_EQ(std::count_if(d1.scatter.begin(), d1.scatter.end(),
                            [&](const ScatterInstance& q) {
                              return std::memcmp(&p, &q, sizeof p) == 0;
                            }),
              1)
        << p.id;
  }
  EXPECT_TRUE(found_added);
  std::size_t all = 0;
  for (const ScatterInstance& p : gen->instances_near(0.5 * side, 0.5 * side, 0.75 * side,
                                                      heights.get(), inst.get())) {
    all += p.x_m >= 0.0 && p.x_m < side && p.z_m >= 0.0 && p.z_m < side ? 1 : 0;
  }
  EXPECT_EQ(all, d1.scatter.size());  // the disc covers chunk (0, 0): all of its instances

  // Undo everything: the procedural (height-edited) chunks, same bytes.
  while (!e.undo().empty()) {
  }
  ChunkData d2;
  gen->generate({0, 0, 0}, {0, 0, 0, 0}, d2, {}, nullptr, heights.get(), e.snapshot().get());
  EXPECT_EQ(d2.content_hash(), d0.content_hash());

  placed.species = int(preset.surface.species.size());
  e.add(placed);
  const auto bad = e.snapshot();
  test::expect_error(
      [&] {
        gen->generate({0, 0, 0}, {0, 0, 0, 0}, d2, {}, nullptr, nullptr, bad.get());
      },
      ErrorCategory::invalid_argument, {"instance edits add species"});
}

// Height edits (edit.hpp) read by the world: each chunk of every level is its procedural heights
// plus the delta of each vertex, neighbours agree on their shared vertices, TerrainQuery
// answers with the edited surface (vertices, triangles, normals), a ray finds a hill raised
// above the preset's height_max_m, and an empty snapshot changes no byte.
TEST(EditedWorld, ChunksAndQueriesReadTheEdits) {
  const auto gen = make_generator(16);
  const double s = gen->cell_size_m();
  const int n = 16;
  HeightEdits e(s, n);
  HeightBrush up;
  up.x_m = 16.0 * s, up.z_m = 16.0 * s, up.radius_m = 6.0 * s, up.strength_m = 5.0;
  e.apply(up, gen->graph());
  HeightBrush down = up;
  down.kind = BrushKind::lower;
  down.x_m = -3.0 * s;
  e.apply(down, gen->graph());
  const auto snap = e.snapshot();

  auto generate = [&](const ChunkKey& key, const HeightEditSnapshot* edits) {
    ChunkData d;
    gen->generate(key, {0, 0, 0, 0}, d, {}, nullptr, edits);
    return d;
  };
  std::size_t changed = 0;
  for (const ChunkKey key :
       {ChunkKey{0, 0, 0}, ChunkKey{1, 0, 0}, ChunkKey{0, 1, 0}, ChunkKey{1, 1, 0},
        ChunkKey{-1, 0, 0}, ChunkKey{0, 0, 1}, ChunkKey{-1, -1, 1}, ChunkKey{0, 0, 2}}) {
    const ChunkData base = generate(key, nullptr), edited = generate(key, snap.get());
    const std::int64_t step = std::int64_t{1} << key.level;
    const GridSpec& g = edited.heights.grid;
    for (int j = 0; j < g.height; ++j) {
      for (int i = 0; i < g.width; ++i) {
        const float want = base.heights.at(i, j) +
                           snap->delta_at((g.index_x0 + i) * step, (g.index_z0 + j) * step);
        ASSERT_EQ(edited.heights.at(i, j), want) << key.level << ": " << i << ", " << j;
        changed += edited.heights.at(i, j) != base.heights.at(i, j);
      }
    }
    float lo = edited.heights.at(1, 1), hi = lo;
    for (int j = 1; j + 1 < g.height; ++j) {
      for (int i = 1; i + 1 < g.width; ++i) {
        lo = std::min(lo, edited.heights.at(i, j));
        hi = std::max(hi, edited.heights.at(i, j));
      }
    }
    EXPECT_EQ(edited.height_min_m, lo);
    EXPECT_EQ(edited.height_max_m, hi);
  }
  EXPECT_GT(changed, 100u);
  // Neighbours share their border vertices bit for bit (chunk (0, 0)'s east column is (1, 0)'s
  // west column), also where the brush crosses the border.
  const ChunkData a = generate({0, 0, 0}, snap.get()), b = generate({1, 0, 0}, snap.get());
  for (int j = 0; j < n + 3; ++j) {
    for (int k = 0; k < 3; ++k) ASSERT_EQ(a.heights.at(n + k, j), b.heights.at(k, j)) << j;
  }
  // The query answers with the edited surface.
  const TerrainQuery q(gen, snap);
  Rng rng{77};
  for (const ChunkKey key : {ChunkKey{0, 0, 0}, ChunkKey{1, 1, 0}, ChunkKey{-1, 0, 0}}) {
    check_chunk_surface(*gen, q, key, rng, 200, snap.get());
  }
  EXPECT_EQ(q.height_at(16.0 * s, 16.0 * s), double(a.heights.at(n + 1, n + 1)));
  EXPECT_NE(q.height_at(16.0 * s, 16.0 * s), TerrainQuery(gen).height_at(16.0 * s, 16.0 * s));

  // A hill raised far above height_max_m stops a ray that flies above the preset's slab.
  const WorldSettings& w = gen->graph().world();
  HeightEdits tall(s, n);
  HeightBrush tower;
  tower.x_m = 10.0 * s, tower.z_m = 0.0, tower.radius_m = 3.0 * s, tower.falloff_start = 0.9;
  tower.strength_m = 2.0 * (w.height_max_m - w.height_min_m);
  tall.apply(tower, gen->graph());
  const double y = w.height_max_m + 0.5 * tower.strength_m;
  const std::optional<RayHit> hit =
      TerrainQuery(gen, tall.snapshot()).raycast(0.0, y, 0.0, 1.0, 0.0, 0.0, 20.0 * s);
  ASSERT_TRUE(hit.has_value());
  EXPECT_GE(hit->x_m, 6.0 * s);  // on the tower's flank, below its full-height top
  EXPECT_LE(hit->x_m, 8.0 * s);
  EXPECT_FALSE(TerrainQuery(gen).raycast(0.0, y, 0.0, 1.0, 0.0, 0.0, 20.0 * s).has_value());

  // An empty snapshot is the procedural world, byte for byte.
  const HeightEdits none(s, n);
  const ChunkData p = generate({2, -3, 0}, nullptr), p2 = generate({2, -3, 0}, &none.current());
  EXPECT_EQ(p.heights.data, p2.heights.data);
  EXPECT_EQ(p.mesh.positions, p2.mesh.positions);
  EXPECT_EQ(p.mesh.normals, p2.mesh.normals);
  // Edits of another cell size are refused.
  HeightEdits other(2.0 * s, n);
  other.apply(up, gen->graph());
  test::expect_error(
      [&] {
        generate({0, 0, 0}, &other.current());
      },
      ErrorCategory::invalid_argument, {"height edits of cell"});
  test::expect_error([&] { TerrainQuery(gen, other.snapshot()); }, ErrorCategory::invalid_argument,
                     {"TerrainQuery: height edits of cell"});
}

TEST(TerrainQueryTest, WorldBoundIsPrintedExactly) {
  const TerrainQuery q(make_generator(16));
  test::expect_error([&] { q.height_at(1.0995116278e12, 0.0); }, ErrorCategory::invalid_argument,
                     {"height_at: x_m = 1.0995116278e+12", "[-1099511627776, 1099511627776] m"});
}

}  // namespace
}  // namespace terrane
