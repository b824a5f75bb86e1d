// Queries on the navmesh (issue 15): connectivity against an independent flood fill of the
// walkable level-0 triangles, paths that keep off steep ground and cross tiles, one-way drop
// links, raycasts, random points and crowds.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "nav/nav_test_terrain.hpp"
#include "terrane/nav.hpp"
#include "terrane/preset.hpp"

namespace terrane {
namespace {

using test::PeriodicTerrain;

// The oracle: the level-0 triangles of a square region from (0, 0) (two per terrain cell, the
// world's diagonals), walkable where their slope is within the agent's; components over shared
// edges (union-find). Independent of Recast: heights straight from the NavTerrain.
class Oracle {
 public:
  Oracle(const NavTerrain& terrain, double size_m, double max_slope_deg)
      : s_(terrain.cell_size_m()), chunk_(terrain.chunk_cells()) {
    n_ = int(std::ceil(size_m / s_));
    h_.resize(std::size_t(n_ + 1) * std::size_t(n_ + 1));
    terrain.heights(0, 0, n_ + 1, n_ + 1, h_);
    parent_.resize(std::size_t(n_) * std::size_t(n_) * 2);
    std::iota(parent_.begin(), parent_.end(), 0);
    walkable_.resize(parent_.size());
    const double limit = std::cos(max_slope_deg * M_PI / 180.0);
    for (int j = 0; j < n_; ++j) {
      for (int i = 0; i < n_; ++i) {
        for (int t = 0; t < 2; ++t) walkable_[id(i, j, t)] = normal_y(i, j, t) > limit;
      }
    }
    for (int j = 0; j < n_; ++j) {
      for (int i = 0; i < n_; ++i) {
        join(id(i, j, 0), id(i, j, 1));  // the diagonal
        if (i + 1 < n_) join(tri_at_edge(i, j, 1), tri_at_edge(i + 1, j, 0));
        if (j + 1 < n_) join(tri_at_edge(i, j, 3), tri_at_edge(i, j + 1, 2));
      }
    }
  }
  bool walkable_at(double x, double z) const { return walkable_[tri(x, z)]; }
  bool connected(double ax, double az, double bx, double bz) {
    return find(tri(ax, az)) == find(tri(bx, bz));
  }
  // A non-walkable triangle or the region's edge within d metres.
  bool near_boundary(double x, double z, double d) const {
    for (double a = 0.0; a < 6.28; a += 0.39) {
      for (double r = 0.25; r <= d; r += 0.25) {
        const double px = x + r * std::cos(a), pz = z + r * std::sin(a);
        if (px < 0 || pz < 0 || px >= n_ * s_ || pz >= n_ * s_) return true;
        if (!walkable_[tri(px, pz)]) return true;
      }
    }
    return false;
  }
  // The height of the triangle under (x, z).
  double height(double x, double z) const {
    const int i = int(std::floor(x / s_)), j = int(std::floor(z / s_));
    const double u = x / s_ - i, v = z / s_ - j;
    const double h00 = at(i, j), h10 = at(i + 1, j), h01 = at(i, j + 1), h11 = at(i + 1, j + 1);
    if (main_diag(i, j))
      return u >= v ? h00 + u * (h10 - h00) + v * (h11 - h10)
                    : h00 + u * (h11 - h01) + v * (h01 - h00);
    return u + v <= 1.0 ? h00 + u * (h10 - h00) + v * (h01 - h00)
                        : h11 + (u - 1.0) * (h11 - h01) + (v - 1.0) * (h11 - h10);
  }

 private:
  double at(int i, int j) const {
    return h_[std::size_t(j) * std::size_t(n_ + 1) + std::size_t(i)];
  }
  bool main_diag(int i, int j) const {
    const int li = ((i % chunk_) + chunk_) % chunk_, lj = ((j % chunk_) + chunk_) % chunk_;
    return (2 * li + 1 < chunk_) == (2 * lj + 1 < chunk_);
  }
  // Corners: 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1). Main: tri 0 = {0,1,3}, tri 1 = {0,3,2};
  // other: tri 0 = {0,1,2}, tri 1 = {1,3,2}.
  double normal_y(int i, int j, int t) const {
    static const int kMain[2][3] = {{0, 1, 3}, {0, 3, 2}}, kOther[2][3] = {{0, 1, 2}, {1, 3, 2}};
    const int* c = main_diag(i, j) ? kMain[t] : kOther[t];
    double p[3][3];
    for (int k = 0; k < 3; ++k) {
      const int dx = c[k] & 1, dz = c[k] >> 1;
      p[k][0] = (i + dx) * s_;
      p[k][2] = (j + dz) * s_;
      p[k][1] = at(i + dx, j + dz);
    }
    const double ax = p[1][0] - p[0][0], ay = p[1][1] - p[0][1], az = p[1][2] - p[0][2];
    const double bx = p[2][0] - p[0][0], by = p[2][1] - p[0][1], bz = p[2][2] - p[0][2];
    const double nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
    return std::abs(ny) / std::sqrt(nx * nx + ny * ny + nz * nz);
  }
  // The triangle of cell (i, j) holding edge e: 0 west (x = 0), 1 east, 2 north (z = 0), 3 south.
  std::size_t tri_at_edge(int i, int j, int e) const {
    if (main_diag(i, j)) return id(i, j, (e == 1 || e == 2) ? 0 : 1);
    return id(i, j, (e == 0 || e == 2) ? 0 : 1);
  }
  std::size_t id(int i, int j, int t) const { return (std::size_t(j) * n_ + i) * 2 + t; }
  std::size_t tri(double x, double z) const {
    const int i = int(std::floor(x / s_)), j = int(std::floor(z / s_));
    const double u = x / s_ - i, v = z / s_ - j;
    // Main diagonal (0,0)-(1,1): tri 0 where u >= v; other (1,0)-(0,1): tri 0 where u+v <= 1.
    const int t = main_diag(i, j) ? (u >= v ? 0 : 1) : (u + v <= 1.0 ? 0 : 1);
    return id(i, j, t);
  }
  void join(std::size_t a, std::size_t b) {
    if (!walkable_[a] || !walkable_[b]) return;
    parent_[find(a)] = find(b);
  }
  std::size_t find(std::size_t a) {
    while (parent_[a] != a) a = parent_[a] = parent_[parent_[a]];
    return a;
  }
  double s_;
  int chunk_;
  int n_ = 0;
  std::vector<float> h_;
  std::vector<std::size_t> parent_;
  std::vector<char> walkable_;
};

// The terrain's height near (x, z) (bilinear between the cell's corners: within a few
// decimetres of the triangles, enough to pick the right storey for a nearest-point search).
double surface_y(double x, double z) {
  const int i = int(std::floor(x / 2.0)), j = int(std::floor(z / 2.0));
  const double u = x / 2.0 - i, v = z / 2.0 - j;
  return (1 - u) * (1 - v) * PeriodicTerrain::at(i, j) +
         u * (1 - v) * PeriodicTerrain::at(i + 1, j) + (1 - u) * v * PeriodicTerrain::at(i, j + 1) +
         u * v * PeriodicTerrain::at(i + 1, j + 1);
}

struct Region {
  std::shared_ptr<const NavTileBuilder> builder;
  std::unique_ptr<NavWorld> world;
};

Region periodic_region(double size_m, NavAgent agent) {
  NavParams p;
  p.agents = {agent};
  Region r;
  r.builder = std::make_shared<const NavTileBuilder>(std::make_shared<PeriodicTerrain>(), p);
  NavWorldParams wp;
  wp.threads = 2;
  r.world = std::make_unique<NavWorld>(r.builder, wp);
  r.world->build_region(0.0, 0.0, size_m, size_m);
  return r;
}

// Random pairs of points on walkable triangles: connected by the oracle <=> a complete path on
// the navmesh (endpoints snapped to it from the surface height). Returns the agreement rate;
// every disagreement must have an endpoint within 2 m of a slope or region boundary.
double connectivity_agreement(std::shared_ptr<const NavTerrain> terrain, double size,
                              const NavAgent& agent, int pairs_wanted, int& connected,
                              const char* name) {
  NavParams p;
  p.agents = {agent};
  auto builder = std::make_shared<const NavTileBuilder>(terrain, p);
  NavWorldParams wp;
  wp.threads = 2;
  NavWorld world(builder, wp);
  world.build_region(0.0, 0.0, size, size);
  NavQuery query(world);
  Oracle oracle(*terrain, size, agent.max_slope_deg);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> coord(1.0, size - 1.0);
  int pairs = 0, agree = 0, disagree_near = 0;
  connected = 0;
  while (pairs < pairs_wanted) {
    const double ax = coord(rng), az = coord(rng), bx = coord(rng), bz = coord(rng);
    if (!oracle.walkable_at(ax, az) || !oracle.walkable_at(bx, bz)) continue;
    ++pairs;
    const bool truth = oracle.connected(ax, az, bx, bz);
    NavLocation la, lb;
    const NavStatus sa = query.nearest(ax, oracle.height(ax, az), az, la, 2.0);
    const NavStatus sb = query.nearest(bx, oracle.height(bx, bz), bz, lb, 2.0);
    bool mesh = false;
    if (sa == NavStatus::ok && sb == NavStatus::ok) {
      mesh = query.path({la.x_m, la.y_m, la.z_m}, {lb.x_m, lb.y_m, lb.z_m}).status == NavStatus::ok;
    }
    connected += truth ? 1 : 0;
    if (mesh == truth) {
      ++agree;
      continue;
    }
    const bool near = oracle.near_boundary(ax, az, 2.0) || oracle.near_boundary(bx, bz, 2.0);
    disagree_near += near ? 1 : 0;
    EXPECT_TRUE(near) << name << ": (" << ax << ", " << az << ") - (" << bx << ", " << bz
                      << "): oracle " << truth << ", navmesh " << mesh;
  }
  const double rate = double(agree) / pairs;
  std::printf(
      "connectivity (%s): %d of %d pairs agree (%.2f%%), %d connected by the oracle, %d "
      "disagreements, all near a boundary\n",
      name, agree, pairs, 100.0 * rate, connected, disagree_near);
  return rate;
}

TEST(NavPath, ConnectivityAgreesWithAFloodFillOfTheWalkableTriangles) {
  NavAgent agent;
  agent.max_drop_m = 0.0;  // no one-way links: connectivity is symmetric
  int connected = 0;
  EXPECT_GE(connectivity_agreement(std::make_shared<PeriodicTerrain>(), 256.0, agent, 400,
                                   connected, "periodic mesas"),
            0.99);
  EXPECT_GT(connected, 40);
  EXPECT_LT(connected, 400);  // mesa B's top is cut off
}

TEST(NavPath, ConnectivityOnTheAlpinePresetAgreesWithTheFloodFill) {
  // 30 m cells: steep faces over 40 degrees split the walkable valleys and shoulders.
  const Preset preset = load_preset("alpine");
  auto terrain = make_nav_terrain(std::make_shared<const ChunkGenerator>(preset));
  NavAgent agent;
  agent.max_drop_m = 0.0;
  int connected = 0;
  EXPECT_GE(connectivity_agreement(terrain, 640.0, agent, 300, connected, "alpine"), 0.99);
  EXPECT_GT(connected, 0);
}

TEST(NavPath, PathsKeepOffSteepGroundAndCrossTileBorders) {
  NavAgent agent;
  agent.max_drop_m = 0.0;
  Region r = periodic_region(256.0, agent);
  NavQuery query(*r.world);
  const double limit = std::cos(agent.max_slope_deg * M_PI / 180.0);
  // Slope of the level-0 triangle under (x, z), from the terrain's own heights.
  auto normal_y = [](double x, double z) {
    const int i = int(std::floor(x / 2.0)), j = int(std::floor(z / 2.0));
    const double u = x / 2.0 - i, v = z / 2.0 - j;
    const int n = 64, li = ((i % n) + n) % n, lj = ((j % n) + n) % n;
    const bool main = (2 * li + 1 < n) == (2 * lj + 1 < n);
    const double h00 = PeriodicTerrain::at(i, j), h10 = PeriodicTerrain::at(i + 1, j);
    const double h01 = PeriodicTerrain::at(i, j + 1), h11 = PeriodicTerrain::at(i + 1, j + 1);
    double dx, dz;
    if (main) {
      if (u >= v) {
        dx = h10 - h00, dz = h11 - h10;
      } else {
        dx = h11 - h01, dz = h01 - h00;
      }
    } else if (u + v <= 1.0) {
      dx = h10 - h00, dz = h01 - h00;
    } else {
      dx = h11 - h01, dz = h11 - h10;
    }
    dx /= 2.0, dz /= 2.0;
    return 1.0 / std::sqrt(1.0 + dx * dx + dz * dz);
  };
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> coord(2.0, 254.0);
  int paths = 0, long_paths = 0;
  double samples = 0, off_walkable = 0;
  while (paths < 60) {
    NavLocation a, b;
    const double ax = coord(rng), az = coord(rng), bx = coord(rng), bz = coord(rng);
    if (query.nearest(ax, surface_y(ax, az), az, a, 2.0) != NavStatus::ok) continue;
    if (query.nearest(bx, surface_y(bx, bz), bz, b, 2.0) != NavStatus::ok) continue;
    const NavPath p = query.path({a.x_m, a.y_m, a.z_m}, {b.x_m, b.y_m, b.z_m});
    if (p.status != NavStatus::ok) continue;
    ++paths;
    long_paths += std::hypot(b.x_m - a.x_m, b.z_m - a.z_m) > 48.0 ? 1 : 0;
    for (std::size_t k = 1; k < p.points.size(); ++k) {
      const auto& s = p.points[k - 1];
      const auto& e = p.points[k];
      const double len = std::hypot(e[0] - s[0], e[2] - s[2]);
      for (double t = 0.0; t <= len; t += 0.25) {
        const double x = s[0] + (e[0] - s[0]) * t / std::max(len, 1e-9);
        const double z = s[2] + (e[2] - s[2]) * t / std::max(len, 1e-9);
        ++samples;
        if (normal_y(x, z) > limit) continue;
        ++off_walkable;
        // Off walkable ground only within the agent's radius of it.
        bool near = false;
        for (double ang = 0.0; ang < 6.28 && !near; ang += 0.2) {
          near = normal_y(x + agent.radius_m * std::cos(ang), z + agent.radius_m * std::sin(ang)) >
                 limit;
        }
        EXPECT_TRUE(near) << "path point (" << x << ", " << z << ") on steep ground";
      }
    }
  }
  std::printf(
      "paths: %d, %d longer than 3 tiles; %.0f samples, %.0f on steep triangles (all within "
      "the radius of walkable ground)\n",
      paths, long_paths, samples, off_walkable);
  EXPECT_GT(long_paths, 10);
}

TEST(NavPath, DropLinksAreOneWayAndUnreachableTargetsArePartial) {
  NavAgent agent;
  agent.max_drop_m = 7.0;
  Region r = periodic_region(128.0, agent);
  NavQuery query(*r.world);
  // Mesa B's top (6 m, cliffs all round) at (88, 88); the ground below at (88, 60).
  NavLocation top, below;
  ASSERT_EQ(query.nearest(88.0, 6.0, 88.0, top, 2.0), NavStatus::ok);
  ASSERT_EQ(query.nearest(88.0, 0.0, 60.0, below, 2.0), NavStatus::ok);
  EXPECT_NEAR(top.y_m, 6.0, 0.7);
  const NavPath down = query.path({top.x_m, top.y_m, top.z_m}, {below.x_m, below.y_m, below.z_m});
  EXPECT_EQ(down.status, NavStatus::ok);
  const NavPath up = query.path({below.x_m, below.y_m, below.z_m}, {top.x_m, top.y_m, top.z_m});
  EXPECT_EQ(up.status, NavStatus::partial);
  ASSERT_FALSE(up.points.empty());
  EXPECT_GT(std::hypot(up.points.back()[0] - top.x_m, up.points.back()[2] - top.z_m), 10.0);
  // Without drop links, the top is an island.
  NavAgent walker;
  walker.max_drop_m = 0.0;
  Region w = periodic_region(128.0, walker);
  NavQuery wq(*w.world);
  EXPECT_EQ(wq.path({top.x_m, top.y_m, top.z_m}, {below.x_m, below.y_m, below.z_m}).status,
            NavStatus::partial);
  // Outside the loaded tiles and beyond the origin's range.
  EXPECT_EQ(query.path({top.x_m, top.y_m, top.z_m}, {500.0, 0.0, 500.0}).status,
            NavStatus::not_loaded);
  EXPECT_EQ(query.path({1e5, 0.0, 0.0}, {1.0, 0.0, 1.0}).status, NavStatus::out_of_range);
}

TEST(NavPath, RaycastsStopAtCliffsAndRandomPointsAreReachableAndRepeatable) {
  NavAgent agent;
  agent.max_drop_m = 0.0;
  Region r = periodic_region(128.0, agent);
  NavQuery query(*r.world);
  // Toward mesa B's cliff from the south: a hit before the centre.
  const NavRaycast ray = query.raycast({88.0, 0.0, 60.0}, {88.0, 0.0, 100.0});
  ASSERT_EQ(ray.status, NavStatus::ok);
  EXPECT_TRUE(ray.hit);
  EXPECT_LT(60.0 + 40.0 * ray.fraction, 88.0 - 20.0 + 1.0);
  const NavRaycast free_ray = query.raycast({100.0, 0.0, 10.0}, {120.0, 0.0, 12.0});
  EXPECT_EQ(free_ray.status, NavStatus::ok);
  EXPECT_FALSE(free_ray.hit);
  NavLocation p1, p2;
  ASSERT_EQ(query.random_point({100.0, 0.0, 10.0}, 30.0, 99, p1), NavStatus::ok);
  ASSERT_EQ(query.random_point({100.0, 0.0, 10.0}, 30.0, 99, p2), NavStatus::ok);
  EXPECT_EQ(p1.x_m, p2.x_m);
  EXPECT_EQ(p1.z_m, p2.z_m);
  EXPECT_EQ(query.path({100.0, 0.0, 10.0}, {p1.x_m, p1.y_m, p1.z_m}).status, NavStatus::ok);
  EXPECT_THROW(query.random_point({100.0, 0.0, 10.0}, -1.0, 1, p1), Error);
  EXPECT_THROW(NavQuery(*r.world, 3), Error);
}

TEST(NavPath, CrowdAgentsWalkToTheirTargets) {
  NavAgent agent;
  agent.max_drop_m = 0.0;
  Region r = periodic_region(128.0, agent);
  NavCrowd crowd(*r.world, 0, 8);
  const int a = crowd.add(100.0, 0.0, 10.0, 3.0);
  const int b = crowd.add(10.0, 0.0, 100.0, 3.0);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_EQ(crowd.add(88.0, 100.0, 88.0), -1);  // far above the mesh: not on it
  ASSERT_TRUE(crowd.set_target(a, 110.0, 0.0, 60.0));
  ASSERT_TRUE(crowd.set_target(b, 60.0, 0.0, 110.0));
  for (int step = 0; step < 30 * 40; ++step) crowd.update(1.0 / 30.0);
  const NavCrowdAgentState sa = crowd.state(a), sb = crowd.state(b);
  EXPECT_LT(std::hypot(sa.x_m - 110.0, sa.z_m - 60.0), 1.5);
  EXPECT_LT(std::hypot(sb.x_m - 60.0, sb.z_m - 110.0), 1.5);
  EXPECT_EQ(crowd.size(), 2);
  EXPECT_THROW(crowd.set_target(7, 0, 0, 0), Error);
}

TEST(NavPath, DefaultPresetPathAcrossTiles) {
  const Preset preset = load_preset("default");
  auto generator = std::make_shared<const ChunkGenerator>(preset);
  auto builder = std::make_shared<const NavTileBuilder>(make_nav_terrain(generator), NavParams{});
  NavWorldParams wp;
  wp.threads = 2;
  NavWorld world(builder, wp);
  world.build_region(0.0, 0.0, 160.0, 160.0);
  NavQuery query(world);
  const TerrainQuery tq(generator);
  const NavPath p =
      query.path({8.0, tq.height_at(8.0, 8.0), 8.0}, {150.0, tq.height_at(150.0, 140.0), 140.0});
  ASSERT_EQ(p.status, NavStatus::ok);
  EXPECT_GE(p.length_m, std::hypot(142.0, 132.0) - 1e-6);
  for (const auto& pt : p.points) EXPECT_NEAR(pt[1], tq.height_at(pt[0], pt[2]), 0.5);
}

}  // namespace
}  // namespace terrane
