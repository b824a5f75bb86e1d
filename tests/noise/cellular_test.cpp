// Cellular (Worley) noise: SIMD-target bit-equality, ranges, a scalar brute-force reference of
// the feature-point formula (catches search-window bugs), continuity, isotropy, grid / point /
// sub-grid agreement, far-origin statistics and golden hashes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "noise/kernel_args.hpp"
#include "terrane/core.hpp"
#include "terrane/noise.hpp"

namespace terrane {
namespace {

namespace nd = noise_detail;

constexpr std::array<CellularDistance, 3> kDistances = {
    CellularDistance::euclidean, CellularDistance::manhattan, CellularDistance::chebyshev};
constexpr std::array<CellularReturn, 4> kReturns = {CellularReturn::f1, CellularReturn::f2,
                                                    CellularReturn::f2_minus_f1,
                                                    CellularReturn::cell_value};

NoiseParams cell_params(CellularDistance d, CellularReturn r, double frequency = 0.05) {
  NoiseParams p;
  p.type = NoiseType::cellular;
  p.seed = 4242;
  p.frequency = frequency;
  p.fractal = FractalType::none;
  p.cellular_distance = d;
  p.cellular_return = r;
  return p;
}

std::string name(const NoiseParams& p) {
  return std::string(to_string(p.cellular_distance)) + "/" + to_string(p.cellular_return) + "/" +
         to_string(p.fractal);
}

std::vector<float> fill2(const NoiseParams& p, const GridSpec& g) {
  std::vector<float> out(g.sample_count());
  noise_fill(p, g, out);
  return out;
}
std::vector<float> fill3(const NoiseParams& p, const GridSpec3& g) {
  std::vector<float> out(g.sample_count());
  noise_fill3(p, g, out);
  return out;
}

// Restores the SIMD target even when an assertion fails.
struct TargetGuard {
  ~TargetGuard() { set_simd_target(SimdTarget::best); }
};

// ---------------------------------------------------------------------------------------------
// Scalar reference of the kernel's definition (src/noise/cellular.cpp), in double.

// Multipliers of cellular.cpp (part of the determinism contract; the goldens pin them too).
constexpr std::uint32_t kMulB = 0x165667B1u;
constexpr std::uint32_t kMulC = 0x85EBCA6Bu;
constexpr std::uint32_t kMulD = 0xCC9E2D51u;

std::uint32_t octave0_seed(std::uint64_t seed) {
  return std::uint32_t(hash_combine(seed, 0) >> 32);
}
std::uint32_t hash2(std::uint32_t s, std::uint32_t xp, std::uint32_t zp) {
  std::uint32_t h = (s ^ (xp ^ zp)) * nd::kHashMul;
  return h ^ (h >> 15);
}
std::uint32_t hash3(std::uint32_t s, std::uint32_t xp, std::uint32_t yp, std::uint32_t zp) {
  std::uint32_t h = ((s ^ xp) ^ (yp ^ zp)) * nd::kHashMul;
  return h ^ (h >> 15);
}
// HashToUnit: 24 high bits to [-1, 1).
double unit(std::uint32_t h) {
  return double(h >> 8) / 8388608.0 - 1.0;
}

// The sampler's split of a lattice coordinate into a wrapping cell and a float fraction.
void split(double t, std::uint32_t& cell, double& frac) {
  const double fl = std::floor(t);
  frac = double(float(t - fl));
  cell = std::uint32_t(std::uint64_t(std::int64_t(fl)));
}

double radius(const NoiseParams& p) {
  return double(float(p.cellular_jitter * 0.4375));
}

// Output-map bounds D1 (F1) and D2 (F2, F2 - F1), re-derived here from the cell geometry.
double bound_f1(CellularDistance d, int dims, double r) {
  const double a = 0.5 + r;
  if (d == CellularDistance::manhattan) return dims * a;
  if (d == CellularDistance::chebyshev) return a;
  return std::sqrt(double(dims)) * a;
}
double bound_f2(CellularDistance d, int dims, double r) {
  const double a = 0.5 + r;
  if (d == CellularDistance::manhattan) return dims * a;
  if (d == CellularDistance::chebyshev) return 1.0 + r;
  const double face = (1.0 + r) * (1.0 + r) + (dims - 1) * r * r;
  return std::sqrt(dims == 2 ? face : std::max(3.0 * a * a, face));
}

double metric(CellularDistance d, const double* v, int dims) {
  double s = 0.0;
  for (int k = 0; k < dims; ++k) {
    if (d == CellularDistance::euclidean) s += v[k] * v[k];
    if (d == CellularDistance::manhattan) s += std::fabs(v[k]);
    if (d == CellularDistance::chebyshev) s = std::max(s, std::fabs(v[k]));
  }
  return d == CellularDistance::euclidean ? std::sqrt(s) : s;
}

struct RefResult {
  double f1 = std::numeric_limits<double>::infinity();
  double f2 = std::numeric_limits<double>::infinity();
  std::uint32_t h1 = 0;
};

// Brute force over the cells at Chebyshev offset <= reach from the sample's cell.
RefResult reference(const NoiseParams& p, int dims, const double* pos_m, int reach) {
  const std::uint32_t seed = octave0_seed(p.seed);
  const double r = radius(p);
  std::uint32_t cell[3];
  double frac[3];
  for (int k = 0; k < dims; ++k) split(pos_m[k] * p.frequency, cell[k], frac[k]);
  const std::uint32_t prime[3] = {nd::kPrimeX, dims == 3 ? nd::kPrimeY : nd::kPrimeZ, nd::kPrimeZ};
  const std::uint32_t mul[3] = {1u, kMulB, kMulC};
  RefResult res;
  const int side = 2 * reach + 1;
  const int cells = dims == 2 ? side * side : side * side * side;
  for (int c = 0; c < cells; ++c) {
    int off[3] = {0, 0, 0};
    int q = c;
    std::uint32_t lp[3] = {0u, 0u, 0u};
    for (int k = 0; k < dims; ++k) {
      off[k] = q % side - reach;
      q /= side;
      lp[k] = (cell[k] + std::uint32_t(off[k])) * prime[k];
    }
    const std::uint32_t h =
        dims == 2 ? hash2(seed, lp[0], lp[1]) : hash3(seed, lp[0], lp[1], lp[2]);
    double v[3];
    for (int k = 0; k < dims; ++k) v[k] = off[k] + 0.5 + r * unit(h * mul[k]) - frac[k];
    const double dist = metric(p.cellular_distance, v, dims);
    if (dist < res.f1) {
      res.f2 = res.f1;
      res.f1 = dist;
      res.h1 = h;
    } else if (dist < res.f2) {
      res.f2 = dist;
    }
  }
  return res;
}

// Kernel output mapped back to distances (cells).
double unmap(float v, double dmax) {
  return (double(v) + 1.0) * 0.5 * dmax;
}

double rand_unit(std::uint64_t k) {
  return double(mix64(k) >> 11) * 0x1.0p-53;
}

// ---------------------------------------------------------------------------------------------

TEST(cellular, BitIdenticalAcrossSimdTargets2D) {
  TargetGuard guard;
  const GridSpec g{.width = 257,
                   .height = 193,
                   .spacing_m = 0.731,
                   .origin_x_m = -1234.567,
                   .origin_z_m = 89.123,
                   .index_x0 = 3,
                   .index_z0 = -7};
  const auto targets = supported_simd_targets();
  ASSERT_GE(targets.size(), 1u);
  for (FractalType f : {FractalType::none, FractalType::fbm}) {
    for (CellularDistance d : kDistances) {
      for (CellularReturn r : kReturns) {
        NoiseParams p = cell_params(d, r);
        p.fractal = f;
        set_simd_target(targets.back());
        const std::vector<float> ref = fill2(p, g);
        for (float v : ref) ASSERT_TRUE(v >= -1.0f && v <= 1.0f) << name(p) << " " << v;
        for (SimdTarget t : targets) {
          set_simd_target(t);
          const std::vector<float> got = fill2(p, g);
          ASSERT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)))
              << name(p) << " differs on " << to_string(t);
        }
      }
    }
  }
}

TEST(cellular, BitIdenticalAcrossSimdTargets3D) {
  TargetGuard guard;
  const GridSpec3 g{.size_x = 37,
                    .size_y = 13,
                    .size_z = 11,
                    .spacing_m = 0.913,
                    .origin_x_m = 77.77,
                    .origin_y_m = -3.3,
                    .origin_z_m = 1e5 + 0.1};
  const auto targets = supported_simd_targets();
  for (FractalType f : {FractalType::none, FractalType::fbm}) {
    for (CellularDistance d : kDistances) {
      for (CellularReturn r : kReturns) {
        NoiseParams p = cell_params(d, r, 0.11);
        p.fractal = f;
        set_simd_target(targets.back());
        const std::vector<float> ref = fill3(p, g);
        for (float v : ref) ASSERT_TRUE(v >= -1.0f && v <= 1.0f) << name(p) << " " << v;
        for (SimdTarget t : targets) {
          set_simd_target(t);
          const std::vector<float> got = fill3(p, g);
          ASSERT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)))
              << name(p) << " differs on " << to_string(t);
        }
      }
    }
  }
}

// F2 >= F1 everywhere (through the output maps), F2 - F1 >= -1, and the maps use their range.
TEST(cellular, RangesAndF2AtLeastF1) {
  const GridSpec g{.width = 300, .height = 300, .spacing_m = 0.5, .origin_x_m = 11.0};
  for (CellularDistance d : kDistances) {
    const double r = radius(cell_params(d, CellularReturn::f1));
    const std::vector<float> f1 = fill2(cell_params(d, CellularReturn::f1), g);
    const std::vector<float> f2 = fill2(cell_params(d, CellularReturn::f2), g);
    const std::vector<float> diff = fill2(cell_params(d, CellularReturn::f2_minus_f1), g);
    const std::vector<float> cv = fill2(cell_params(d, CellularReturn::cell_value), g);
    float lo = 1.0f, hi = -1.0f;
    for (std::size_t k = 0; k < f1.size(); ++k) {
      const double d1 = unmap(f1[k], bound_f1(d, 2, r));
      const double d2 = unmap(f2[k], bound_f2(d, 2, r));
      ASSERT_GE(d2, d1 - 1e-5) << to_string(d) << " sample " << k;
      ASSERT_GE(diff[k], -1.0f);
      ASSERT_NEAR(unmap(diff[k], bound_f2(d, 2, r)), d2 - d1, 1e-5);
      ASSERT_TRUE(cv[k] >= -1.0f && cv[k] < 1.0f);
      lo = std::min(lo, f1[k]);
      hi = std::max(hi, f1[k]);
    }
    EXPECT_LT(lo, -0.95f) << to_string(d);  // samples close to feature points
    EXPECT_GT(hi, 0.0f) << to_string(d);
  }
}

// At a feature point F1 = 0, i.e. -1 after the map.
TEST(cellular, F1IsMinusOneAtFeaturePoints) {
  for (CellularDistance d : kDistances) {
    const NoiseParams p = cell_params(d, CellularReturn::f1, 0.125);
    const std::uint32_t seed = octave0_seed(p.seed);
    const double r = radius(p);
    for (int cx = -20; cx < 20; cx += 3) {
      for (int cz = -9; cz < 30; cz += 5) {
        const std::uint32_t h =
            hash2(seed, std::uint32_t(cx) * nd::kPrimeX, std::uint32_t(cz) * nd::kPrimeZ);
        const double fx = cx + 0.5 + r * unit(h), fz = cz + 0.5 + r * unit(h * kMulB);
        EXPECT_NEAR(noise_at(p, fx / p.frequency, fz / p.frequency), -1.0f, 1e-5)
            << to_string(d) << " cell " << cx << "," << cz;
      }
    }
  }
}

// The kernel against a brute-force search of the 5x5 (7x7x7) neighbourhood in double, at
// random points and at points chosen where a plain 3x3 (3x3x3) search would be wrong.
void check_against_reference(int dims) {
  const int reach = dims == 2 ? 2 : 3;
  for (CellularDistance d : kDistances) {
    for (CellularReturn ret : kReturns) {
      const NoiseParams p = cell_params(d, ret, 0.037);
      const double r = radius(p);
      int checked = 0, hard = 0, near_ties = 0;
      const int n = dims == 2 ? 40000 : 4000;
      for (int k = 0; k < n; ++k) {
        double pos[3];
        for (int a = 0; a < 3; ++a) pos[a] = (rand_unit(std::uint64_t(k) * 3 + a) - 0.5) * 2e4;
        const RefResult full = reference(p, dims, pos, reach);
        const RefResult small = reference(p, dims, pos, 1);
        const bool miss = small.f1 != full.f1 || small.f2 != full.f2;
        // Every 10th random point, and every point where the 3x3 search is inexact.
        if (k % 10 != 0 && !miss) continue;
        hard += miss;
        ++checked;
        const float v =
            dims == 2 ? noise_at(p, pos[0], pos[1]) : noise_at(p, pos[0], pos[1], pos[2]);
        switch (ret) {
          case CellularReturn::f1:
            ASSERT_NEAR(unmap(v, bound_f1(d, dims, r)), full.f1, 1e-5) << name(p) << " k " << k;
            break;
          case CellularReturn::f2:
            ASSERT_NEAR(unmap(v, bound_f2(d, dims, r)), full.f2, 1e-5) << name(p) << " k " << k;
            break;
          case CellularReturn::f2_minus_f1:
            ASSERT_NEAR(unmap(v, bound_f2(d, dims, r)), full.f2 - full.f1, 1e-5)
                << name(p) << " k " << k;
            break;
          case CellularReturn::cell_value:
            if (double(v) != unit(full.h1 * kMulD)) {
              // Only a float near-tie between the two nearest points may pick the other cell.
              ASSERT_LT(full.f2 - full.f1, 1e-5) << name(p) << " k " << k;
              ++near_ties;
            }
            break;
        }
      }
      EXPECT_GT(checked, n / 20);
      EXPECT_LE(near_ties, 2);
      (void)hard;
    }
  }
}

TEST(cellular, MatchesBruteForce2D) {
  check_against_reference(2);
}
TEST(cellular, MatchesBruteForce3D) {
  check_against_reference(3);
}

// Lattice corners are where a plain 3x3 (3x3x3) window fails: scan many of them with the
// reference, and check the kernel's F1 and F2 at every corner where the plain window is wrong
// (this exercises the kernel's outer-ring search for every metric).
TEST(cellular, ExactAtHardCorners) {
  for (int dims : {2, 3}) {
    for (CellularDistance d : kDistances) {
      const NoiseParams p1 = cell_params(d, CellularReturn::f1, 0.125);  // corners exact in float
      NoiseParams p2 = p1;
      p2.cellular_return = CellularReturn::f2;
      const double r = radius(p1);
      const int side = dims == 2 ? 700 : 48;
      const int layers = dims == 2 ? 1 : 24;
      int hard1 = 0, hard2 = 0;
      for (int l = 0; l < layers; ++l) {
        for (int j = 0; j < side; ++j) {
          for (int i = 0; i < side; ++i) {
            double pos[3] = {(i - side / 2) / p1.frequency, (j - 333) / p1.frequency,
                             (l - 5) / p1.frequency};
            const RefResult full = reference(p1, dims, pos, dims == 2 ? 2 : 3);
            const RefResult small = reference(p1, dims, pos, 1);
            if (small.f1 == full.f1 && small.f2 == full.f2) continue;
            const float v1 =
                dims == 2 ? noise_at(p1, pos[0], pos[1]) : noise_at(p1, pos[0], pos[1], pos[2]);
            const float v2 =
                dims == 2 ? noise_at(p2, pos[0], pos[1]) : noise_at(p2, pos[0], pos[1], pos[2]);
            ASSERT_NEAR(unmap(v1, bound_f1(d, dims, r)), full.f1, 1e-5) << to_string(d);
            ASSERT_NEAR(unmap(v2, bound_f2(d, dims, r)), full.f2, 1e-5) << to_string(d);
            hard1 += small.f1 != full.f1;
            hard2 += small.f2 != full.f2;
          }
        }
      }
      std::printf(
          "[ info ] %dD %-9s corners where a plain 3^d search is wrong: F1 %d  F2 %d (of %d)\n",
          dims, to_string(d), hard1, hard2, side * side * layers);
      if (d == CellularDistance::manhattan) {
        EXPECT_GT(hard1 + hard2, 0);
      }
    }
  }
}

// Documents how often a FastNoise-style 3x3 (3x3x3) window alone would be wrong at the default
// jitter (terrane's kernel searches further where needed, so it is exact).
TEST(cellular, MissRateOfPlainNeighbourhoodSearch) {
  for (int dims : {2, 3}) {
    for (CellularDistance d : kDistances) {
      const NoiseParams p = cell_params(d, CellularReturn::f1, 0.037);
      const int n = dims == 2 ? 200000 : 20000;
      int miss1 = 0, miss2 = 0;
      for (int k = 0; k < n; ++k) {
        double pos[3];
        for (int a = 0; a < 3; ++a) pos[a] = (rand_unit(std::uint64_t(k) * 3 + a + 7) - 0.5) * 2e4;
        const RefResult full = reference(p, dims, pos, dims == 2 ? 2 : 3);
        const RefResult small = reference(p, dims, pos, 1);
        miss1 += small.f1 != full.f1;
        miss2 += small.f2 != full.f2;
      }
      std::printf("[ info ] %dD %-9s plain 3^d search wrong: F1 %.4f%%  F2 %.4f%%\n", dims,
                  to_string(d), 100.0 * miss1 / n, 100.0 * miss2 / n);
      EXPECT_LT(miss1, n / 20);
    }
  }
}

// F1 and F2 are 1-Lipschitz in lattice units along an axis in all three metrics, so
// neighbouring samples differ by at most 2 * spacing * frequency / D in output units.
TEST(cellular, ContinuityLipschitz) {
  const GridSpec g{
      .width = 400, .height = 300, .spacing_m = 0.7, .origin_x_m = -55.5, .origin_z_m = 1000.25};
  for (CellularDistance d : kDistances) {
    for (CellularReturn ret : {CellularReturn::f1, CellularReturn::f2}) {
      const NoiseParams p = cell_params(d, ret, 0.05);
      const double r = radius(p);
      const double dmax = ret == CellularReturn::f1 ? bound_f1(d, 2, r) : bound_f2(d, 2, r);
      const double limit = 2.0 * g.spacing_m * p.frequency / dmax + 1e-5;
      const std::vector<float> v = fill2(p, g);
      for (int j = 0; j + 1 < g.height; ++j) {
        for (int i = 0; i + 1 < g.width; ++i) {
          const float c = v[std::size_t(j) * g.width + i];
          ASSERT_LE(std::fabs(double(v[std::size_t(j) * g.width + i + 1]) - c), limit)
              << name(p) << " at " << i << "," << j;
          ASSERT_LE(std::fabs(double(v[std::size_t(j + 1) * g.width + i]) - c), limit)
              << name(p) << " at " << i << "," << j;
        }
      }
    }
  }
}

// No axis-aligned artefacts: the variance of neighbour differences is the same along x, z and
// the diagonals (their squared step is twice as long, hence / 2).
TEST(cellular, IsotropicF1) {
  const GridSpec g{.width = 768, .height = 768, .spacing_m = 1.0, .origin_x_m = 3.5};
  const NoiseParams p = cell_params(CellularDistance::euclidean, CellularReturn::f1, 0.1);
  const std::vector<float> v = fill2(p, g);
  auto at = [&](int i, int j) { return double(v[std::size_t(j) * g.width + i]); };
  double sx = 0, sz = 0, sd1 = 0, sd2 = 0;
  std::size_t n = 0;
  for (int j = 0; j + 1 < g.height; ++j) {
    for (int i = 0; i + 1 < g.width; ++i) {
      const double c = at(i, j);
      sx += (at(i + 1, j) - c) * (at(i + 1, j) - c);
      sz += (at(i, j + 1) - c) * (at(i, j + 1) - c);
      sd1 += (at(i + 1, j + 1) - c) * (at(i + 1, j + 1) - c) / 2.0;
      sd2 += (at(i + 1, j) - at(i, j + 1)) * (at(i + 1, j) - at(i, j + 1)) / 2.0;
      ++n;
    }
  }
  const double ref = (sx + sz + sd1 + sd2) / 4.0;
  for (double s : {sx, sz, sd1, sd2}) EXPECT_NEAR(s / ref, 1.0, 0.15);
}

TEST(cellular, PointGridAndSubGridAgree) {
  const GridSpec g{.width = 131,
                   .height = 77,
                   .spacing_m = 0.37,
                   .origin_x_m = 5000.3,
                   .origin_z_m = -77.9,
                   .index_x0 = -11,
                   .index_z0 = 4};
  for (CellularDistance d : kDistances) {
    for (CellularReturn ret : kReturns) {
      NoiseParams p = cell_params(d, ret, 0.09);
      p.fractal = FractalType::fbm;
      const std::vector<float> whole = fill2(p, g);
      for (int k = 0; k < 40; ++k) {
        const int i = int(mix64(std::uint64_t(k)) % 131u),
                  j = int(mix64(std::uint64_t(k) + 99) % 77u);
        const float v = noise_at(p, g.x_m(i), g.z_m(j));
        ASSERT_EQ(0, std::memcmp(&v, &whole[std::size_t(j) * g.width + i], sizeof v)) << name(p);
      }
      const int cuts[][4] = {{0, 0, 131, 1}, {5, 3, 17, 9}, {100, 60, 31, 17}, {1, 1, 1, 1}};
      for (const auto& c : cuts) {
        const GridSpec s = g.sub(c[0], c[1], c[2], c[3]);
        const std::vector<float> part = fill2(p, s);
        for (int j = 0; j < c[3]; ++j) {
          ASSERT_EQ(0, std::memcmp(&part[std::size_t(j) * c[2]],
                                   &whole[std::size_t(j + c[1]) * g.width + c[0]],
                                   std::size_t(c[2]) * sizeof(float)))
              << name(p) << " sub " << c[0] << "," << c[1];
        }
      }
    }
  }
  const GridSpec3 g3{.size_x = 19,
                     .size_y = 5,
                     .size_z = 6,
                     .spacing_m = 0.8,
                     .origin_x_m = -3.0,
                     .origin_y_m = 12.5,
                     .origin_z_m = 0.25};
  for (CellularReturn ret : kReturns) {
    const NoiseParams p = cell_params(CellularDistance::euclidean, ret, 0.2);
    const std::vector<float> whole = fill3(p, g3);
    for (int k = 0; k < 6; ++k) {
      for (int j = 0; j < 5; ++j) {
        for (int i = 0; i < 19; i += 3) {
          const float v = noise_at(p, g3.x_m(i), g3.y_m(j), g3.z_m(k));
          ASSERT_EQ(0, std::memcmp(&v, &whole[(std::size_t(k) * 5 + j) * 19 + i], sizeof v));
        }
      }
    }
  }
}

// Rows without warp keep the 3x3 window of the current cell column for the next vectors
// (Column2 in cellular.cpp). With many samples per cell most vectors take it, and every sample
// must have the bits of a lone point, which never does (its row has one vector), on every
// target, for every distance and return, also where columns change mid-vector and where a row
// starts mid-cell.
TEST(cellular, RowColumnCacheHasThePointBits) {
  TargetGuard guard;
  const GridSpec g{.width = 203,
                   .height = 9,
                   .spacing_m = 0.25,
                   .origin_x_m = -31.3,
                   .origin_z_m = 7.9,
                   .index_x0 = 5,
                   .index_z0 = -2};
  for (SimdTarget t : supported_simd_targets()) {
    set_simd_target(t);
    for (FractalType f : {FractalType::none, FractalType::fbm}) {
      for (CellularDistance d : kDistances) {
        for (CellularReturn ret : kReturns) {
          NoiseParams p = cell_params(d, ret, 0.05);  // 80 samples per cell
          p.fractal = f;
          p.octaves = 3;
          const std::vector<float> whole = fill2(p, g);
          for (int j = 0; j < g.height; ++j) {
            for (int i = 0; i < g.width; ++i) {
              const float v = noise_at(p, g.x_m(i), g.z_m(j));
              ASSERT_EQ(0, std::memcmp(&v, &whole[std::size_t(j) * g.width + i], sizeof v))
                  << name(p) << " on " << to_string(t) << " at " << i << "," << j;
            }
          }
        }
      }
    }
  }
}

TEST(cellular, FarOriginKeepsStatistics) {
  auto stats = [](const std::vector<float>& v, double& mean, double& sd) {
    double s = 0, s2 = 0;
    for (float x : v) {
      s += x;
      s2 += double(x) * x;
    }
    mean = s / double(v.size());
    sd = std::sqrt(s2 / double(v.size()) - mean * mean);
  };
  for (CellularReturn ret : kReturns) {
    const NoiseParams p = cell_params(CellularDistance::euclidean, ret, 0.1);
    double m0, s0, m1, s1;
    stats(fill2(p, GridSpec{.width = 512, .height = 512, .spacing_m = 0.5}), m0, s0);
    stats(fill2(p, GridSpec{.width = 512,
                            .height = 512,
                            .spacing_m = 0.5,
                            .origin_x_m = 1e8,
                            .origin_z_m = -1e8}),
          m1, s1);
    EXPECT_NEAR(s1 / s0, 1.0, 0.10) << to_string(ret);
    EXPECT_NEAR(m1, m0, 0.10 * s0) << to_string(ret);
  }
}

// Determinism goldens: FNV-1a of fixed 64x64 grids (any change to hashing, feature placement,
// search or maps shows up here).
TEST(cellular, GoldenHashes) {
  const GridSpec g{
      .width = 64, .height = 64, .spacing_m = 1.5, .origin_x_m = -40.25, .origin_z_m = 17.5};
  struct Golden {
    CellularDistance d;
    CellularReturn r;
    std::uint64_t hash;
  };
  const Golden goldens[] = {
      {CellularDistance::euclidean, CellularReturn::f1, 0xaaa315e0347672caull},
      {CellularDistance::euclidean, CellularReturn::f2, 0x2f975d625b851feeull},
      {CellularDistance::euclidean, CellularReturn::f2_minus_f1, 0xe1272b95eadc04d8ull},
      {CellularDistance::euclidean, CellularReturn::cell_value, 0x0e3c00bfb0c639ebull},
      {CellularDistance::manhattan, CellularReturn::f1, 0x667826cf3c6c98a2ull},
      {CellularDistance::manhattan, CellularReturn::f2_minus_f1, 0x5f240681bba729d6ull},
      {CellularDistance::chebyshev, CellularReturn::f1, 0x6fcee5ea6d5807b4ull},
      {CellularDistance::chebyshev, CellularReturn::cell_value, 0x07b33ab6e5ccb470ull},
  };
  for (const Golden& gold : goldens) {
    const NoiseParams p = cell_params(gold.d, gold.r, 0.07);
    EXPECT_EQ(hash_floats(fill2(p, g)), gold.hash)
        << name(p) << std::hex << " got 0x" << hash_floats(fill2(p, g));
  }
  NoiseParams p3 = cell_params(CellularDistance::euclidean, CellularReturn::f1, 0.07);
  p3.fractal = FractalType::fbm;
  const GridSpec3 g3{.size_x = 16,
                     .size_y = 16,
                     .size_z = 16,
                     .spacing_m = 1.5,
                     .origin_x_m = 2.5,
                     .origin_y_m = -8.0,
                     .origin_z_m = 30.0};
  EXPECT_EQ(hash_floats(fill3(p3, g3)), 0x82d81bf8c4f6c401ull)
      << std::hex << " got 0x" << hash_floats(fill3(p3, g3));
}

}  // namespace
}  // namespace terrane
