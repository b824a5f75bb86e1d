// Tests of the stats module (terrane/stats.hpp) on synthetic surfaces with known answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <numbers>
#include <vector>

#include "stats/stats_internal.hpp"
#include "support/expect_error.hpp"
#include "terrane/erosion.hpp"
#include "terrane/io.hpp"
#include "terrane/stats.hpp"

namespace terrane {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(StatsGrid, ViewsAField) {
  Field2D f(GridSpec{3, 2, 2.5});
  const StatsGrid g = stats_grid(f);
  EXPECT_EQ(g.width, 3);
  EXPECT_EQ(g.height, 2);
  EXPECT_EQ(g.heights.size(), 6U);
  EXPECT_EQ(g.cell_x_m, 2.5);
  EXPECT_EQ(g.cell_z_m, 2.5);
}

struct Surface {
  int w = 0, h = 0;
  std::vector<float> data;
  StatsGrid grid(double cx, double cz = 0.0) const {
    StatsGrid g;
    g.heights = data;
    g.width = w;
    g.height = h;
    g.cell_x_m = cx;
    g.cell_z_m = cz > 0.0 ? cz : cx;
    return g;
  }
};

template <class F>
Surface make(int w, int h, F f) {
  Surface s{w, h, std::vector<float>(std::size_t(w) * std::size_t(h))};
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i)
      s.data[std::size_t(j) * std::size_t(w) + std::size_t(i)] = float(f(i, j));
  }
  return s;
}

// Sum of random-phase cosines with amplitude k^(-beta / 2) on a periodic n x n grid: a surface
// whose radially averaged spectrum goes as k^-beta.
Surface fractal_surface(int n, double beta, std::uint64_t seed) {
  std::vector<double> z(std::size_t(n) * std::size_t(n), 0.0);
  const auto len = static_cast<std::size_t>(n);
  std::vector<double> cx(len), sx(len), cz(len), sz(len);
  const int kmax = n / 4;
  for (int kz = -kmax; kz <= kmax; ++kz) {
    for (int kx = 0; kx <= kmax; ++kx) {
      if (kx == 0 && kz <= 0) continue;  // half plane
      const double k = std::hypot(kx, kz);
      if (k < 1.0 || k > kmax) continue;
      const std::uint64_t hsh =
          mix64(seed ^ mix64(std::uint64_t(kx) * 4096u + std::uint64_t(kz + 4096)));
      const double phase = double(hsh >> 11) * 0x1.0p-53 * 2.0 * kPi;
      const double amp = std::pow(k, -beta / 2.0);
      for (int q = 0; q < n; ++q) {
        cx[std::size_t(q)] = std::cos(2 * kPi * kx * q / n);
        sx[std::size_t(q)] = std::sin(2 * kPi * kx * q / n);
        cz[std::size_t(q)] = std::cos(2 * kPi * kz * q / n + phase);
        sz[std::size_t(q)] = std::sin(2 * kPi * kz * q / n + phase);
      }
      for (int j = 0; j < n; ++j) {
        double* row = z.data() + std::size_t(j) * std::size_t(n);
        const double a = amp * cz[std::size_t(j)], b = amp * sz[std::size_t(j)];
        for (int i = 0; i < n; ++i) row[i] += a * cx[std::size_t(i)] - b * sx[std::size_t(i)];
      }
    }
  }
  Surface s{n, n, std::vector<float>(z.size())};
  for (std::size_t c = 0; c < z.size(); ++c) s.data[c] = float(500.0 + 2000.0 * z[c]);
  return s;
}

TEST(TerrainStats, TiltedPlaneHasExactSlopeAndHalfHypsometry) {
  const double g = 0.3;
  const Surface s = make(80, 70, [&](int i, int) { return 100.0 + g * 10.0 * i; });
  const TerrainStats t = compute_terrain_stats(s.grid(10.0));
  const double want = std::atan(g) * 180.0 / kPi;
  ASSERT_TRUE(t.slope_p50_deg.ok()) << t.slope_p50_deg.why;
  EXPECT_NEAR(*t.slope_p10_deg.value, want, 1e-4);
  EXPECT_NEAR(*t.slope_p50_deg.value, want, 1e-4);
  EXPECT_NEAR(*t.slope_p90_deg.value, want, 1e-4);
  EXPECT_EQ(*t.slope_lt15.value, 0.0);  // 16.7 degrees
  EXPECT_EQ(*t.slope_lt30.value, 1.0);
  EXPECT_EQ(*t.slope_gt45.value, 0.0);
  EXPECT_NEAR(t.slope_histogram[16], 1.0, 1e-12);
  EXPECT_NEAR(*t.hypsometric_integral.value, 0.5, 1e-6);
  ASSERT_EQ(t.hypsometric_curve.size(), 101U);
  EXPECT_NEAR(t.hypsometric_curve[50], 0.5, 0.02);
  EXPECT_EQ(*t.depression_share.value, 0.0);
  EXPECT_EQ(*t.pit_share.value, 0.0);
  EXPECT_EQ(t.max_depression_depth_m, 0.0);
  EXPECT_EQ(t.land_fraction, 1.0);
  EXPECT_EQ(t.land_cells, 80 * 70);
}

TEST(TerrainStats, NonSquareCellsUseEachAxisSpacing) {
  // dh/dx = 1 (x cells of 2 m), dh/dz = 1 (z cells of 5 m): slope atan(sqrt(2)).
  const Surface s = make(40, 40, [](int i, int j) { return 2.0 * i + 5.0 * j; });
  const TerrainStats t = compute_terrain_stats(s.grid(2.0, 5.0));
  EXPECT_NEAR(*t.slope_p50_deg.value, std::atan(std::sqrt(2.0)) * 180.0 / kPi, 1e-4);
  EXPECT_NEAR(t.relief_window_x_m, 2.0 * 501, 1e-9);  // r = 250 cells, window 501 cells
  EXPECT_NEAR(t.relief_window_z_m, 5.0 * 201, 1e-9);
}

TEST(TerrainStats, WalkableShareFollowsTheAgentSlope) {
  const double g = std::tan(40.0 * kPi / 180.0);
  const Surface s = make(32, 32, [&](int, int j) { return g * j; });
  StatsParams p;
  p.agent_slope_deg = 45.0;
  EXPECT_EQ(*compute_terrain_stats(s.grid(1.0), p).walkable_share.value, 1.0);
  p.agent_slope_deg = 35.0;
  EXPECT_EQ(*compute_terrain_stats(s.grid(1.0), p).walkable_share.value, 0.0);
}

TEST(TerrainStats, FractalSurfaceGivesItsSpectralExponent) {
  for (const double beta : {2.0, 3.0}) {
    const Surface s = fractal_surface(256, beta, 7);
    const TerrainStats t = compute_terrain_stats(s.grid(10.0));
    ASSERT_TRUE(t.beta.ok()) << t.beta.why;
    EXPECT_NEAR(*t.beta.value, beta, 0.15) << "beta " << beta;
    EXPECT_DOUBLE_EQ(t.beta_fit_min_m, 80.0);
    EXPECT_DOUBLE_EQ(t.beta_fit_max_m, 640.0);
    ASSERT_TRUE(t.beta_profile.ok()) << t.beta_profile.why;
    EXPECT_FALSE(t.spectrum_power.empty());
  }
}

TEST(TerrainStats, BowlIsOneDepressionOfKnownDepthAndShare) {
  // A flat plain at 100 m with a cone 6 m deep, radius 12 cells: the pit fills to 100 m.
  const int n = 61, c = 30;
  const double depth = 6.0, radius = 12.0;
  auto cone = [&](int i, int j) {
    const double r = std::hypot(i - c, j - c);
    return r < radius ? depth * (1.0 - r / radius) : 0.0;
  };
  const Surface s = make(n, n, [&](int i, int j) { return 100.0 - cone(i, j); });
  std::int64_t deep = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) deep += float(100.0) - float(100.0 - cone(i, j)) > 0.01f;
  }
  const TerrainStats t = compute_terrain_stats(s.grid(5.0));
  EXPECT_NEAR(t.max_depression_depth_m, depth, 1e-4);
  EXPECT_NEAR(*t.depression_share.value, double(deep) / (n * n), 1e-12);
  EXPECT_NEAR(*t.pit_share.value, double(deep) / (n * n), 1e-12);
  // Shallower than the depression depth threshold: not counted, but still a pit.
  StatsParams p;
  p.depression_depth_m = 10.0;
  const TerrainStats u = compute_terrain_stats(s.grid(5.0), p);
  EXPECT_EQ(*u.depression_share.value, 0.0);
  EXPECT_GT(*u.pit_share.value, 0.0);
}

TEST(TerrainStats, VValleyDrainsTheWholeMapThroughItsMouth) {
  // Sides falling 0.5 per cell toward the axis i = 20, the axis falling toward row 0.
  const int w = 41, h = 60;
  const double cell = 30.0;
  const Surface s = make(
      w, h, [&](int i, int j) { return 0.5 * cell * std::abs(i - 20) + 0.1 * cell * j + 10.0; });
  const TerrainStats t = compute_terrain_stats(s.grid(cell));
  EXPECT_NEAR(t.max_drainage_area_m2, double(w) * h * cell * cell, 1e-6);
  ASSERT_TRUE(t.drainage_density_km_per_km2.ok()) << t.drainage_density_km_per_km2.why;
  // Channels (>= 1e5 m^2 = 111 cells) only on the axis, from j = h - 1 down to j = 1 (row 0 is
  // the outlet): the axis cell at row j gathers its row's 41 cells... and the rows above.
  EXPECT_GT(t.channel_cells, 0);
  EXPECT_LE(t.channel_cells, h);
  EXPECT_EQ(*t.depression_share.value, 0.0);
  ASSERT_TRUE(t.hack_h.ok()) << t.hack_h.why;
}

TEST(TerrainStats, LocalReliefOfAStep) {
  // A 100 m step at i = 75 with 10 m cells: the window is 101 cells (r = 50), so the cells with
  // 25 <= i <= 124 see the step. 150 wide: two thirds do (median 100); 300 wide: a third (0).
  for (const auto& [width, want] : {std::pair{150, 100.0}, std::pair{300, 0.0}}) {
    const Surface s = make(width, 120, [&](int i, int) { return i >= 75 ? 100.0 : 0.0; });
    const TerrainStats t = compute_terrain_stats(s.grid(10.0));
    ASSERT_TRUE(t.local_relief_m.ok()) << t.local_relief_m.why;
    EXPECT_EQ(*t.local_relief_m.value, want) << "width " << width;
    EXPECT_DOUBLE_EQ(t.relief_window_x_m, 1010.0);
  }
}

TEST(TerrainStats, SmallGridSaysWhichStatisticsItCannotGive) {
  const Surface s = make(16, 16, [](int i, int j) { return std::sin(i * 0.7) * 10 + j; });
  const TerrainStats t = compute_terrain_stats(s.grid(10.0));
  EXPECT_TRUE(t.slope_p50_deg.ok());
  EXPECT_FALSE(t.beta.ok());
  EXPECT_NE(t.beta.why.find("16 x 16"), std::string::npos) << t.beta.why;
  EXPECT_NE(t.beta.why.find("at least 64"), std::string::npos) << t.beta.why;
  EXPECT_FALSE(t.local_relief_m.ok());  // 101-cell window on a 16-cell map
  EXPECT_NE(t.local_relief_m.why.find("relief window"), std::string::npos);
  EXPECT_FALSE(t.drainage_density_km_per_km2.ok());  // 25600 m^2 in all
  EXPECT_NE(t.drainage_density_km_per_km2.why.find("channel area"), std::string::npos);
  EXPECT_FALSE(t.hack_h.ok());
  const std::string json = terrain_stats_json(t, "tiny");
  EXPECT_NE(json.find("\"beta\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"why\": {"), std::string::npos) << json;
}

TEST(TerrainStats, AllSeaHasNoLandStatistics) {
  const Surface s = make(70, 70, [](int i, int j) { return -10.0 + 0.01 * (i + j); });
  StatsParams p;
  p.sea_level_m = 0.0;
  const TerrainStats t = compute_terrain_stats(s.grid(10.0), p);
  EXPECT_EQ(t.land_cells, 0);
  EXPECT_EQ(t.land_fraction, 0.0);
  for (const Stat* st : {&t.slope_p50_deg, &t.hypsometric_integral, &t.local_relief_m,
                         &t.drainage_density_km_per_km2, &t.depression_share}) {
    EXPECT_FALSE(st->ok());
    EXPECT_EQ(st->why, "no land");
  }
}

TEST(TerrainStats, SeaCellsAreNotLand) {
  // West half sea (-5 m), east half land rising east.
  const Surface s = make(64, 64, [](int i, int) { return i < 32 ? -5.0 : 1.0 + (i - 32); });
  StatsParams p;
  p.sea_level_m = 0.0;
  const TerrainStats t = compute_terrain_stats(s.grid(10.0), p);
  EXPECT_EQ(t.land_fraction, 0.5);
  EXPECT_EQ(t.height_min_m, 1.0);
  EXPECT_EQ(t.height_max_m, 32.0);
}

TEST(TerrainStats, NaNCellsAreNoDataAndExcluded) {
  const double g = 0.2;
  Surface s = make(80, 80, [&](int i, int) { return g * 40.0 * i; });
  for (int j = 30; j < 40; ++j) {
    for (int i = 30; i < 40; ++i) s.data[std::size_t(j) * 80 + std::size_t(i)] = NAN;
  }
  const TerrainStats t = compute_terrain_stats(s.grid(40.0));
  EXPECT_EQ(t.nodata_cells, 100);
  EXPECT_EQ(t.land_cells, 80 * 80 - 100);
  EXPECT_EQ(t.land_fraction, 1.0);
  EXPECT_NEAR(*t.slope_p10_deg.value, std::atan(g) * 180.0 / kPi, 1e-4);
  EXPECT_NEAR(*t.slope_p90_deg.value, std::atan(g) * 180.0 / kPi, 1e-4);
  EXPECT_TRUE(t.beta.ok());
  EXPECT_TRUE(t.drainage_density_km_per_km2.ok());
  EXPECT_EQ(*t.depression_share.value, 0.0);  // water reaching no-data leaves the map
}

void expect_same(const Stat& a, const Stat& b, const char* what) {
  EXPECT_EQ(a.value.has_value(), b.value.has_value()) << what;
  if (a.value && b.value) {
    EXPECT_EQ(*a.value, *b.value) << what;  // bit-exact
  }
}

TEST(TerrainStats, ResultsDoNotDependOnTheThreadCount) {
  const Surface s = fractal_surface(128, 2.5, 11);
  StatsParams p;
  p.sea_level_m = 500.0;
  const TerrainStats a = compute_terrain_stats(s.grid(20.0), p, ExecContext{.threads = 1});
  for (const int threads : {2, 3, 8}) {
    const TerrainStats b = compute_terrain_stats(s.grid(20.0), p, ExecContext{.threads = threads});
    expect_same(a.slope_p10_deg, b.slope_p10_deg, "p10");
    expect_same(a.slope_p50_deg, b.slope_p50_deg, "p50");
    expect_same(a.walkable_share, b.walkable_share, "walkable");
    expect_same(a.hypsometric_integral, b.hypsometric_integral, "HI");
    expect_same(a.local_relief_m, b.local_relief_m, "relief");
    expect_same(a.beta, b.beta, "beta");
    expect_same(a.beta_profile, b.beta_profile, "beta_profile");
    expect_same(a.drainage_density_km_per_km2, b.drainage_density_km_per_km2, "Dd");
    expect_same(a.hack_h, b.hack_h, "hack");
    expect_same(a.depression_share, b.depression_share, "depressions");
    EXPECT_EQ(a.spectrum_power, b.spectrum_power);
    EXPECT_EQ(a.hack_length_m, b.hack_length_m);
    EXPECT_EQ(a.slope_histogram, b.slope_histogram);
  }
}

// numpy.median of a copy, by sorting.
double sorted_median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? double(v[m])
                           : double(v[m - 1]) + (double(v[m]) - double(v[m - 1])) * 0.5;
}

// The drainage statistics against a plain walk of what drainage_stats.cpp describes: the routing,
// each land cell of the border sent to its steepest lower neighbour on the filled surface, then
// Kahn's order over the changed receivers. The code under test walks the routing's parts in
// parallel and passes the border cells' trees on afterwards; both must give the same numbers.
TEST(TerrainStats, DrainageMatchesAWalkOverTheChangedRouting) {
  for (const double cz : {20.0, 30.0}) {
    const Surface s = fractal_surface(128, 3.0, 5);
    const StatsGrid g = s.grid(20.0, cz);
    StatsParams params;
    params.channel_area_m2 = 20.0 * 20.0 * 8.0;
    const TerrainStats got = compute_terrain_stats(g, params, ExecContext{.threads = 3});

    const int w = s.w, h = s.h;
    const std::size_t n = s.data.size();
    Field2D surface(GridSpec{w, h, std::sqrt(20.0 * cz)});
    surface.data = s.data;
    FlowRouting routing;
    compute_flow_routing(surface, RoutingParams{}, routing);
    std::vector<std::uint32_t> rcv = routing.receiver;
    int moved = 0;
    for (int j = 0; j < h; ++j) {
      for (int i = 0; i < w; ++i) {
        if (i != 0 && j != 0 && i != w - 1 && j != h - 1) continue;
        const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
        double best = 0.0;
        for (int dj = -1; dj <= 1; ++dj) {
          for (int di = -1; di <= 1; ++di) {
            const int ni = i + di, nj = j + dj;
            if ((di == 0 && dj == 0) || ni < 0 || nj < 0 || ni >= w || nj >= h) continue;
            const std::size_t nc = std::size_t(nj) * std::size_t(w) + std::size_t(ni);
            const double d = (double(routing.filled_m[c]) - double(routing.filled_m[nc])) /
                             std::hypot(di * 20.0, dj * cz);
            if (d > best) {
              best = d;
              rcv[c] = std::uint32_t(nc);
            }
          }
        }
        moved += rcv[c] != c;
      }
    }
    ASSERT_GT(moved, 50) << "the map must send many border cells inwards";
    auto step = [&](std::uint32_t c) {
      const std::uint32_t r = rcv[c];
      if (r == c) return 0.0;
      const bool dx = r % std::uint32_t(w) != c % std::uint32_t(w);
      const bool dz = r / std::uint32_t(w) != c / std::uint32_t(w);
      return dx && dz ? std::hypot(20.0, cz) : dx ? 20.0 : cz;
    };
    std::vector<std::uint32_t> donors(n, 0), queue;
    for (std::size_t c = 0; c < n; ++c) donors[rcv[c]] += rcv[c] != c;
    for (std::size_t c = 0; c < n; ++c) {
      if (donors[c] == 0) queue.push_back(std::uint32_t(c));
    }
    std::vector<double> area(n, 20.0 * cz), longest(n, 0.0);
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const std::uint32_t c = queue[q], r = rcv[c];
      if (r == c) continue;
      area[r] += area[c];
      longest[r] = std::max(longest[r], longest[c] + step(c));
      if (--donors[r] == 0) queue.push_back(r);
    }
    ASSERT_EQ(queue.size(), n);
    double max_area = 0.0, path_m = 0.0;
    std::int64_t channels = 0;
    std::map<int, std::vector<std::uint32_t>> bins;
    for (std::size_t c = 0; c < n; ++c) {
      max_area = std::max(max_area, area[c]);
      if (area[c] < params.channel_area_m2) continue;
      ++channels;
      path_m += step(std::uint32_t(c));
      if (longest[c] > 0.0)
        bins[int(std::floor(std::log10(area[c]) * 10.0))].push_back(std::uint32_t(c));
    }
    EXPECT_EQ(got.max_drainage_area_m2, max_area) << cz;
    EXPECT_EQ(got.channel_cells, channels) << cz;
    const double land_km2 = double(n) * 20.0 * cz * 1e-6;
    ASSERT_TRUE(got.drainage_density_km_per_km2.value) << cz;
    EXPECT_NEAR(*got.drainage_density_km_per_km2.value, path_m * 1e-3 / land_km2,
                1e-12 * path_m * 1e-3 / land_km2)
        << cz;
    ASSERT_EQ(got.hack_area_m2.size(), bins.size()) << cz;
    std::size_t b = 0;
    for (const auto& [bin, cells] : bins) {
      std::vector<float> a, l;
      for (const std::uint32_t c : cells) {
        a.push_back(float(area[c]));
        l.push_back(float(longest[c]));
      }
      EXPECT_EQ(got.hack_area_m2[b], sorted_median(a)) << cz << " bin " << bin;
      EXPECT_EQ(got.hack_length_m[b], sorted_median(l)) << cz << " bin " << bin;
      ++b;
    }
  }
}

// The parallel selection gives the values nth_element gives on the compacted array.
TEST(StatsRankSelect, MatchesNthElementWithoutTheNaNs) {
  std::vector<float> values;
  std::uint64_t state = 7;
  for (int k = 0; k < 600'000; ++k) {
    state = mix64(state + 1);
    const int kind = int(state % 16);
    const float v = float(double(state >> 11) * 0x1.0p-53 * 200.0 - 50.0);
    values.push_back(kind == 0   ? std::numeric_limits<float>::quiet_NaN()
                     : kind == 1 ? 3.25f  // many equal values
                     : kind == 2 ? (state & 64 ? 0.0f : -0.0f)
                                 : v);
  }
  std::vector<float> finite;
  for (const float v : values) {
    if (!std::isnan(v)) finite.push_back(v);
  }
  for (const int threads : {1, 3}) {
    const ExecContext ctx{.threads = threads};
    const stats_detail::RankSelect select(values, ctx);
    ASSERT_EQ(select.count(), finite.size());
    for (const std::size_t k : {std::size_t(0), std::size_t(1), finite.size() / 10,
                                finite.size() / 2, finite.size() / 2 + 1, finite.size() - 1}) {
      std::vector<float> copy = finite;
      std::nth_element(copy.begin(), copy.begin() + std::ptrdiff_t(k), copy.end());
      EXPECT_EQ(select.kth(k), copy[k]) << k;
    }
    for (const double p : {0.0, 10.0, 50.0, 90.0, 100.0}) {
      std::vector<float> copy = finite;
      EXPECT_EQ(select.percentile(p), stats_detail::percentile(copy, p)) << p;
    }
  }
  const std::vector<float> none(10, std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(stats_detail::RankSelect(none, ExecContext{}).count(), 0u);
}

TEST(TerrainStats, RejectsBadInput) {
  const Surface s = make(8, 8, [](int i, int) { return double(i); });
  StatsGrid g = s.grid(1.0);
  g.width = 9;
  test::expect_error([&] { compute_terrain_stats(g); }, ErrorCategory::invalid_argument,
                     {"64 heights", "9 x 8 needs 72"});
  StatsParams p;
  p.agent_slope_deg = 95.0;
  test::expect_error([&] { compute_terrain_stats(s.grid(1.0), p); },
                     ErrorCategory::invalid_argument, {"agent_slope_deg 95"});
  test::expect_error([&] { compute_terrain_stats(s.grid(0.0)); }, ErrorCategory::invalid_argument,
                     {"cell size 0"});
}

TEST(StatsCharts, RendersASheet) {
  const Surface s = fractal_surface(128, 3.0, 3);
  const TerrainStats t = compute_terrain_stats(s.grid(30.0));
  const ChartImage img = render_stats_charts(t, "fractal");
  if (const char* dump = std::getenv("TERRANE_CHART_DUMP")) {  // for looking at it
    write_png8(dump, img.width, img.height, 3, img.rgb);
  }
  EXPECT_GT(img.width, 0);
  EXPECT_GT(img.height, 0);
  ASSERT_EQ(img.rgb.size(), std::size_t(img.width) * std::size_t(img.height) * 3);
  std::size_t dark = 0;
  for (std::size_t k = 0; k < img.rgb.size(); k += 3) dark += img.rgb[k] < 100;
  EXPECT_GT(dark, 1000U);  // axes, labels and curves were drawn
}

}  // namespace
}  // namespace terrane
