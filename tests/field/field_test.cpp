#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <vector>

#include "support/expect_error.hpp"
#include "terrane/core.hpp"
#include "terrane/curve.hpp"
#include "terrane/field.hpp"

namespace terrane {
namespace {

// A deterministic, rough test terrain: a pure function of the global sample index, so a
// halo'd chunk can be generated independently of the whole map.
float terrain(std::int64_t gi, std::int64_t gj) {
  const double x = double(gi), z = double(gj);
  const double smooth = 40.0 * std::sin(x * 0.05) * std::cos(z * 0.031) + 0.3 * x - 0.2 * z;
  const double rough = unit_float(hash_combine(std::uint64_t(gi), std::uint64_t(gj))) * 6.0;
  return float(smooth + rough);
}

Field2D make_field(const GridSpec& g) {
  Field2D f(g);
  for (int j = 0; j < g.height; ++j) {
    for (int i = 0; i < g.width; ++i) f.at(i, j) = terrain(g.index_x0 + i, g.index_z0 + j);
  }
  return f;
}

bool bit_equal(const Field2D& a, const Field2D& b) {
  return a.grid.width == b.grid.width && a.grid.height == b.grid.height &&
         a.data.size() == b.data.size() &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

GridSpec grid(int w, int h, double spacing = 1.0) {
  return GridSpec{.width = w, .height = h, .spacing_m = spacing};
}

TEST(MinMax, FindsExtremaAndRejectsNaN) {
  Field2D f = make_field(grid(37, 23));
  f.at(5, 7) = -1234.5f;
  f.at(36, 22) = 9876.25f;
  const MinMax mm = min_max(f);
  EXPECT_EQ(mm.min, -1234.5f);
  EXPECT_EQ(mm.max, 9876.25f);

  f.at(11, 13) = std::numeric_limits<float>::quiet_NaN();
  try {
    min_max(f);
    FAIL() << "NaN accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("(11, 13)"), std::string::npos) << e.what();
  }
  test::expect_error_eq([] { min_max(Field2D{}); }, ErrorCategory::invalid_argument,
                        "min_max: field is empty or its data size 0 does not match its grid 0 x 0");
  test::expect_error_eq([&] { min_max(f); }, ErrorCategory::invalid_argument,
                        "min_max: sample (11, 13) is NaN; heights must be numbers");
}

TEST(Remap, MapsClampsAndFlips) {
  Field2D f(grid(4, 1));
  f.data = {-10.0f, 0.0f, 50.0f, 120.0f};
  remap(f, 0.0, 100.0, 0.0, 1.0, /*clamp=*/false);
  EXPECT_FLOAT_EQ(f.data[0], -0.1f);
  EXPECT_FLOAT_EQ(f.data[1], 0.0f);
  EXPECT_FLOAT_EQ(f.data[2], 0.5f);
  EXPECT_FLOAT_EQ(f.data[3], 1.2f);

  f.data = {-10.0f, 0.0f, 50.0f, 120.0f};
  remap(f, 0.0, 100.0, 200.0, 100.0, /*clamp=*/true);  // reversed target range
  EXPECT_FLOAT_EQ(f.data[0], 200.0f);
  EXPECT_FLOAT_EQ(f.data[1], 200.0f);
  EXPECT_FLOAT_EQ(f.data[2], 150.0f);
  EXPECT_FLOAT_EQ(f.data[3], 100.0f);

  test::expect_error_eq([&] { remap(f, 3.0, 3.0, 0.0, 1.0, false); },
                        ErrorCategory::invalid_argument,
                        "remap: source range [3, 3] is empty; from_lo must differ "
                        "from from_hi");
  test::expect_error_eq(
      [&] { remap(f, 0.0, std::numeric_limits<double>::infinity(), 0.0, 1.0, false); },
      ErrorCategory::invalid_argument,
      "remap: range bounds must be finite, got from [0, inf] to [0, 1]");
}

TEST(ApplyCurve, PassesThroughPointsAndIsMonotone) {
  const std::vector<CurvePoint> pts = {{0.0, 0.0}, {10.0, 2.0}, {20.0, 18.0}, {30.0, 20.0}};
  const MonotoneCurve curve(pts);
  Field2D f(grid(61, 1));
  for (int i = 0; i < 61; ++i) f.at(i, 0) = float(i) * 0.5f - 0.25f;
  f.at(0, 0) = -5.0f;   // below the first point: constant
  f.at(60, 0) = 99.0f;  // above the last point: constant
  Field2D g = f;
  apply_curve(g, curve);
  EXPECT_EQ(g.at(0, 0), 0.0f);
  EXPECT_EQ(g.at(60, 0), 20.0f);
  for (int i = 1; i < 61; ++i) EXPECT_GE(g.at(i, 0), g.at(i - 1, 0)) << i;
  Field2D knots(grid(3, 1));
  knots.data = {10.0f, 20.0f, 30.0f};
  apply_curve(knots, curve);
  EXPECT_NEAR(knots.data[0], 2.0f, 1e-5f);
  EXPECT_NEAR(knots.data[1], 18.0f, 1e-5f);
  EXPECT_NEAR(knots.data[2], 20.0f, 1e-5f);
}

TEST(GaussianBlur, PreservesConstantField) {
  Field2D f(grid(50, 40, 0.5));
  std::fill(f.data.begin(), f.data.end(), 123.25f);
  Field2D out;
  gaussian_blur(f, 2.0, out);
  ASSERT_EQ(out.data.size(), f.data.size());
  for (float v : out.data) EXPECT_NEAR(v, 123.25f, 123.25f * 1e-6f);
}

TEST(GaussianBlur, PreservesMeanAndSmooths) {
  // Periodic-ish content: whole periods of a sine in both directions, plus a constant.
  const int n = 128;
  Field2D f(grid(n, n));
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      f.at(i, j) = float(100.0 + 30.0 * std::sin(2.0 * std::numbers::pi * i * 4 / n) *
                                     std::cos(2.0 * std::numbers::pi * j * 2 / n));
    }
  }
  Field2D out;
  gaussian_blur(f, 1.5, out);
  double mean_in = 0.0, mean_out = 0.0, var_in = 0.0, var_out = 0.0;
  for (std::size_t k = 0; k < f.data.size(); ++k) {
    mean_in += f.data[k];
    mean_out += out.data[k];
  }
  mean_in /= double(f.data.size());
  mean_out /= double(f.data.size());
  for (std::size_t k = 0; k < f.data.size(); ++k) {
    var_in += (f.data[k] - mean_in) * (f.data[k] - mean_in);
    var_out += (out.data[k] - mean_out) * (out.data[k] - mean_out);
  }
  EXPECT_NEAR(mean_out, mean_in, 0.05);
  EXPECT_LT(var_out, var_in);        // a low-pass filter removes energy
  EXPECT_GT(var_out, 0.5 * var_in);  // but a 32-sample period survives sigma = 1.5
}

TEST(GaussianBlur, HaloPiecesJoinBitExactly) {
  const double sigma = 2.3, spacing = 0.75;
  const int r = gaussian_radius_cells(sigma, spacing);
  ASSERT_EQ(r, 10);
  const GridSpec whole_grid{.width = 220,
                            .height = 150,
                            .spacing_m = spacing,
                            .origin_x_m = 5.0,
                            .index_x0 = 1000,
                            .index_z0 = -70};
  const Field2D whole = make_field(whole_grid);
  Field2D blurred;
  gaussian_blur(whole, sigma, blurred);
  // Pieces of 40 x 30 interior samples, generated independently with their halo, in an odd
  // order; every piece lies at least r from the big field's border.
  int pieces = 0;
  for (int pj : {3, 1, 2}) {
    for (int pi : {2, 4, 1, 3}) {
      const int i0 = pi * 40, j0 = pj * 30;
      const Field2D piece = make_field(whole_grid.sub(i0 - r, j0 - r, 40 + 2 * r, 30 + 2 * r));
      Field2D out;
      gaussian_blur_halo(piece, sigma, out);
      ASSERT_EQ(out.grid.width, 40);
      ASSERT_EQ(out.grid.height, 30);
      EXPECT_EQ(out.grid.index_x0, whole_grid.index_x0 + i0);
      for (int j = 0; j < 30; ++j) {
        for (int i = 0; i < 40; ++i) {
          const float a = out.at(i, j), b = blurred.at(i0 + i, j0 + j);
          ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0)
              << "piece " << pi << "," << pj << " at " << i << "," << j;
        }
      }
      ++pieces;
    }
  }
  EXPECT_EQ(pieces, 12);
}

TEST(GaussianBlur, RejectsBadParameters) {
  Field2D f = make_field(grid(16, 16));
  Field2D out;
  using test::expect_error;
  expect_error([&] { gaussian_blur(f, -1.0, out); }, ErrorCategory::invalid_argument,
               {"gaussian blur: sigma -1 m must be finite and >= 0"});
  expect_error([&] { gaussian_blur(f, std::nan(""), out); }, ErrorCategory::invalid_argument,
               {"gaussian blur: sigma nan m must be finite and >= 0"});
  expect_error([&] { gaussian_blur(f, 1.0, f); }, ErrorCategory::invalid_argument,
               {"gaussian_blur: input and output must be different fields"});
  try {
    gaussian_blur(f, 1e6, out);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::limit);
  }
  expect_error([&] { gaussian_blur(f, 1e6, out); }, ErrorCategory::limit,
               {"gaussian blur: sigma 1000000 m at spacing 1 m needs a radius of "
                "3000000 cells; the allowed range is 0..2048"});
  // A halo of 3 cells needs more than 6 samples per side.
  expect_error([&] { gaussian_blur_halo(make_field(grid(6, 20)), 1.0, out); },
               ErrorCategory::invalid_argument,
               {"gaussian_blur_halo: input 6 x 20 is too small for a halo of 3 cells on each side; "
                "each side must exceed 6"});
  gaussian_blur(f, 0.0, out);
  EXPECT_TRUE(bit_equal(f, out));
}

TEST(Normals, PlaneMatchesAnalyticNormal) {
  // h = a x + b z (+ c) on a grid of spacing s; the normal is normalize(-a, 1, -b) everywhere.
  const double a = 0.37, b = -1.25, s = 2.0;
  GridSpec g = grid(12, 9, s);
  Field2D h(g);
  for (int j = 0; j < g.height; ++j) {
    for (int i = 0; i < g.width; ++i) h.at(i, j) = float(a * i * s + b * j * s + 10.0);
  }
  Normals n;
  normals(h, n);
  ASSERT_EQ(n.x.grid.width, 10);
  ASSERT_EQ(n.x.grid.height, 7);
  const double len = std::sqrt(a * a + 1.0 + b * b);
  for (std::size_t k = 0; k < n.x.data.size(); ++k) {
    EXPECT_NEAR(n.x.data[k], -a / len, 1e-5);
    EXPECT_NEAR(n.y.data[k], 1.0 / len, 1e-5);
    EXPECT_NEAR(n.z.data[k], -b / len, 1e-5);
    const double l2 = double(n.x.data[k]) * n.x.data[k] + double(n.y.data[k]) * n.y.data[k] +
                      double(n.z.data[k]) * n.z.data[k];
    EXPECT_NEAR(l2, 1.0, 1e-6);
  }
}

TEST(Normals, ClampedEqualsHaloOfReplicatedBorder) {
  const Field2D h = make_field(grid(33, 21));
  Field2D padded(grid(35, 23));
  for (int j = 0; j < 23; ++j) {
    for (int i = 0; i < 35; ++i)
      padded.at(i, j) = h.at(std::clamp(i - 1, 0, 32), std::clamp(j - 1, 0, 20));
  }
  Normals a, b;
  normals_clamped(h, a);
  normals(padded, b);
  EXPECT_TRUE(bit_equal(a.x, b.x));
  EXPECT_TRUE(bit_equal(a.y, b.y));
  EXPECT_TRUE(bit_equal(a.z, b.z));
  // Flat field: straight up.
  Field2D flat(grid(5, 5));
  normals_clamped(flat, a);
  for (std::size_t k = 0; k < a.y.data.size(); ++k) {
    EXPECT_EQ(a.x.data[k], 0.0f);
    EXPECT_EQ(a.y.data[k], 1.0f);
  }
  test::expect_error(
      [&] { normals(make_field(grid(2, 10)), b); }, ErrorCategory::invalid_argument,
      {"normals: input 2 x 10 is too small; each side must be >= 3 (1-sample halo on each side)"});
}

TEST(Slope, RampOf45DegreesAndFlat) {
  const double s = 0.5;
  Field2D ramp(grid(10, 6, s));
  for (int j = 0; j < 6; ++j) {
    for (int i = 0; i < 10; ++i) ramp.at(i, j) = float(i * s);  // dh/dx = 1
  }
  Field2D out;
  slope_deg(ramp, out);
  ASSERT_EQ(out.grid.width, 8);
  for (float v : out.data) EXPECT_NEAR(v, 45.0f, 1e-4f);
  // Diagonal ramp, rise 1 per metre along x and z: |grad| = sqrt(2).
  for (int j = 0; j < 6; ++j) {
    for (int i = 0; i < 10; ++i) ramp.at(i, j) = float((i + j) * s);
  }
  slope_deg(ramp, out);
  for (float v : out.data)
    EXPECT_NEAR(v, float(std::atan(std::sqrt(2.0)) * 180.0 / std::numbers::pi), 1e-4f);
  Field2D flat(grid(4, 4));
  slope_deg_clamped(flat, out);
  ASSERT_EQ(out.grid.width, 4);
  for (float v : out.data) EXPECT_EQ(v, 0.0f);
}

TEST(Field, BitIdenticalForAnyThreadCount) {
  const Field2D h = make_field(grid(301, 177, 1.5));
  const std::vector<CurvePoint> pts = {{-100.0, -50.0}, {0.0, 0.0}, {100.0, 300.0}};
  const MonotoneCurve curve(pts);
  Field2D blur_ref, slope_ref, remap_ref = h, curve_ref = h;
  Normals n_ref;
  const ExecContext one{.threads = 1};
  gaussian_blur(h, 3.0, blur_ref, one);
  normals_clamped(h, n_ref, one);
  slope_deg_clamped(h, slope_ref, one);
  remap(remap_ref, -50.0, 150.0, 0.0, 1.0, true, one);
  apply_curve(curve_ref, curve, one);
  const MinMax mm_ref = min_max(h, one);
  for (int threads : {2, 3, 8, 0}) {
    const ExecContext ctx{.threads = threads};
    Field2D b, s, r = h, c = h;
    Normals n;
    gaussian_blur(h, 3.0, b, ctx);
    normals_clamped(h, n, ctx);
    slope_deg_clamped(h, s, ctx);
    remap(r, -50.0, 150.0, 0.0, 1.0, true, ctx);
    apply_curve(c, curve, ctx);
    EXPECT_TRUE(bit_equal(b, blur_ref)) << threads;
    EXPECT_TRUE(bit_equal(n.x, n_ref.x) && bit_equal(n.y, n_ref.y) && bit_equal(n.z, n_ref.z));
    EXPECT_TRUE(bit_equal(s, slope_ref)) << threads;
    EXPECT_TRUE(bit_equal(r, remap_ref)) << threads;
    EXPECT_TRUE(bit_equal(c, curve_ref)) << threads;
    const MinMax mm = min_max(h, ctx);
    EXPECT_EQ(mm.min, mm_ref.min);
    EXPECT_EQ(mm.max, mm_ref.max);
  }
}

}  // namespace
}  // namespace terrane
