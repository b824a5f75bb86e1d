// OpenSimplex2 and OpenSimplex2S, 2D and 3D: determinism across SIMD targets and grid splits,
// range and normalisation, isotropy, continuity, far-origin precision, goldens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/noise.hpp"

namespace terrane {
namespace {

struct Expect {
  NoiseType type;
  // Lipschitz bounds per lattice unit (sup of the gradient bound, see the kernels' headers).
  double lipschitz2, lipschitz3;
  std::uint64_t golden2, golden3;
};

const Expect kExpect[] = {
    {NoiseType::opensimplex2, 9.57, 7.81, 0xB55E7E106946B820ull, 0xFD4B6351E2FC8A27ull},
    {NoiseType::opensimplex2s, 6.37, 7.97, 0xC58E380AB3C0BA8Bull, 0xC021A8284BFCF1E6ull},
};

void PrintTo(const Expect& e, std::ostream* os) {
  *os << to_string(e.type);
}

class OpenSimplex : public ::testing::TestWithParam<Expect> {
 protected:
  NoiseParams base(double frequency) const {
    NoiseParams p;
    p.type = GetParam().type;
    p.seed = 20240607;
    p.frequency = frequency;
    return p;
  }
};

// Restores SimdTarget::best even when an assertion fails midway.
struct SimdGuard {
  ~SimdGuard() { set_simd_target(SimdTarget::best); }
};

std::vector<float> fill2(const NoiseParams& p, const GridSpec& g) {
  std::vector<float> v(g.sample_count());
  noise_fill(p, g, v);
  return v;
}
std::vector<float> fill3(const NoiseParams& p, const GridSpec3& g) {
  std::vector<float> v(g.sample_count());
  noise_fill3(p, g, v);
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct Stats {
  double min = 1e30, max = -1e30, mean = 0.0;
};
Stats stats(const std::vector<float>& v) {
  Stats s;
  double sum = 0.0;
  for (float f : v) {
    s.min = std::min(s.min, double(f));
    s.max = std::max(s.max, double(f));
    sum += f;
  }
  s.mean = sum / double(v.size());
  return s;
}

// Mean squared difference between samples (i, j) and (i + di, j + dj) of a w x h grid.
double diff_var(const std::vector<float>& v, int w, int h, int di, int dj) {
  double sum = 0.0;
  long n = 0;
  for (int j = std::max(0, -dj); j < h - std::max(0, dj); ++j) {
    for (int i = std::max(0, -di); i < w - std::max(0, di); ++i) {
      const double d = double(v[std::size_t(j + dj) * w + (i + di)]) - v[std::size_t(j) * w + i];
      sum += d * d;
      ++n;
    }
  }
  return sum / double(n);
}

const GridSpec kOddGrid{
    .width = 257, .height = 193, .spacing_m = 0.73, .origin_x_m = -1234.567, .origin_z_m = 891.011};
const GridSpec3 kOddGrid3{.size_x = 67,
                          .size_y = 9,
                          .size_z = 11,
                          .spacing_m = 0.61,
                          .origin_x_m = -345.678,
                          .origin_y_m = 12.345,
                          .origin_z_m = 901.234};

TEST_P(OpenSimplex, BitIdenticalAcrossSimdTargets) {
  SimdGuard guard;
  NoiseParams single = base(0.031);
  NoiseParams fbm = single;
  fbm.fractal = FractalType::fbm;
  fbm.octaves = 5;
  NoiseParams ridged = fbm;
  ridged.fractal = FractalType::ridged;
  ridged.weighted_strength = 0.5;
  WarpParams warp;
  warp.basis = GetParam().type;
  warp.frequency = 0.011;
  warp.amplitude_m = 25.0;
  warp.fractal = WarpFractal::progressive;
  warp.octaves = 2;

  struct Outputs {
    std::vector<float> single, fbm, ridged, warped, single3, fbm3;
  };
  auto run = [&] {
    Outputs o;
    o.single = fill2(single, kOddGrid);
    o.fbm = fill2(fbm, kOddGrid);
    o.ridged = fill2(ridged, kOddGrid);
    o.warped.resize(kOddGrid.sample_count());
    noise_fill_warped(fbm, warp, kOddGrid, o.warped);
    o.single3 = fill3(single, kOddGrid3);
    o.fbm3 = fill3(fbm, kOddGrid3);
    return o;
  };
  set_simd_target(SimdTarget::scalar);
  const Outputs ref = run();
  for (SimdTarget t : supported_simd_targets()) {
    SCOPED_TRACE(to_string(t));
    set_simd_target(t);
    const Outputs o = run();
    EXPECT_TRUE(same_bits(o.single, ref.single));
    EXPECT_TRUE(same_bits(o.fbm, ref.fbm));
    EXPECT_TRUE(same_bits(o.ridged, ref.ridged));
    EXPECT_TRUE(same_bits(o.warped, ref.warped));
    EXPECT_TRUE(same_bits(o.single3, ref.single3));
    EXPECT_TRUE(same_bits(o.fbm3, ref.fbm3));
  }
  // The warp really moved the samples.
  EXPECT_FALSE(same_bits(ref.warped, ref.fbm));
}

// At low frequencies many vectors of a row lie wholly in one lattice cell, and OpenSimplex2 on
// 4-lane targets takes their gradients from a memo of that cell (OpenSimplex2Basis::Memo2), also
// in warped rows and in the warp's pair of noises. Every target must still give the scalar
// target's bits: here on rows of up to 190 samples per cell, with lattice points (origin 0: the
// sum there is an exact zero, which the memo hands back to the usual path), sub-grids that start
// mid-cell, and each warp layer kind (none and independent use the pair).
TEST_P(OpenSimplex, LowFrequencyRowsHaveTheBitsOfEveryTarget) {
  SimdGuard guard;
  const GridSpec g{.width = 211, .height = 23, .spacing_m = 0.5, .index_x0 = -40, .index_z0 = -3};
  NoiseParams fbm = base(0.0105);
  fbm.fractal = FractalType::fbm;
  fbm.octaves = 6;
  auto run = [&] {
    std::vector<std::vector<float>> out{fill2(fbm, g), fill2(fbm, g.sub(37, 5, 101, 7))};
    for (std::uint64_t seed = 1; seed <= 64; ++seed) {  // single layers keep the sign of a zero
      NoiseParams single = base(0.0105);
      single.seed = seed;
      out.push_back(fill2(single, g));
    }
    for (WarpFractal f : {WarpFractal::none, WarpFractal::independent, WarpFractal::progressive}) {
      WarpParams w;
      w.basis = GetParam().type;
      w.frequency = 0.004;
      w.amplitude_m = 3.0;
      w.fractal = f;
      w.octaves = 2;
      out.emplace_back(g.sample_count());
      noise_fill_warped(fbm, w, g, out.back());
      std::vector<float> dx(g.sample_count()), dz(g.sample_count());
      for (int j = 0; j < g.height; ++j) {
        for (int i = 0; i < g.width; i += 7) {
          warp_at(w, g.x_m(i), g.z_m(j), dx[std::size_t(j) * g.width + i],
                  dz[std::size_t(j) * g.width + i]);
        }
      }
      WarpGridSampler ws(w, g);
      std::vector<float> rx(g.width, 0.0f), rz(g.width, 0.0f);
      for (int j = 0; j < g.height; ++j) {
        std::fill(rx.begin(), rx.end(), 0.0f);
        std::fill(rz.begin(), rz.end(), 0.0f);
        ws.row(j, 0, rx, rz);
        for (int i = 0; i < g.width; i += 7) {
          EXPECT_EQ(rx[i], dx[std::size_t(j) * g.width + i])
              << to_string(f) << " " << i << "," << j;
          EXPECT_EQ(rz[i], dz[std::size_t(j) * g.width + i])
              << to_string(f) << " " << i << "," << j;
        }
        out.push_back(rx);
        out.push_back(rz);
      }
    }
    return out;
  };
  set_simd_target(SimdTarget::scalar);
  const auto ref = run();
  if (GetParam().type == NoiseType::opensimplex2) {
    EXPECT_EQ(ref[0][std::size_t(3) * g.width + 40], 0.0f);  // the lattice point at the origin
  }
  for (SimdTarget t : supported_simd_targets()) {
    SCOPED_TRACE(to_string(t));
    set_simd_target(t);
    const auto got = run();
    ASSERT_EQ(got.size(), ref.size());
    for (std::size_t k = 0; k < ref.size(); ++k) EXPECT_TRUE(same_bits(got[k], ref[k])) << k;
  }
}

TEST_P(OpenSimplex, RangeMeanAndNormalisation2D) {
  const GridSpec g{.width = 1024, .height = 1024, .spacing_m = 1.0, .origin_x_m = 3.5};
  const Stats s = stats(fill2(base(0.05), g));
  EXPECT_GE(s.min, -1.0);
  EXPECT_LE(s.max, 1.0);
  EXPECT_NEAR(s.mean, 0.0, 0.05);
  // The normalisation is the analytic bound; over ~2600 cells the extremes come close to it.
  EXPECT_GE(std::max(-s.min, s.max), 0.8);
}

TEST_P(OpenSimplex, RangeMeanAndNormalisation3D) {
  const GridSpec3 g{
      .size_x = 128, .size_y = 64, .size_z = 128, .spacing_m = 1.0, .origin_y_m = -7.25};
  const Stats s = stats(fill3(base(0.1), g));
  EXPECT_GE(s.min, -1.0);
  EXPECT_LE(s.max, 1.0);
  EXPECT_NEAR(s.mean, 0.0, 0.05);
  EXPECT_GE(std::max(-s.min, s.max), 0.8);
}

TEST_P(OpenSimplex, FractalsStayInRange) {
  const GridSpec g{.width = 300, .height = 200, .spacing_m = 2.0};
  for (FractalType f :
       {FractalType::fbm, FractalType::ridged, FractalType::billow, FractalType::pingpong}) {
    NoiseParams p = base(0.02);
    p.fractal = f;
    p.octaves = 6;
    p.weighted_strength = 0.3;
    const Stats s = stats(fill2(p, g));
    EXPECT_GE(s.min, -1.0) << to_string(f);
    EXPECT_LE(s.max, 1.0) << to_string(f);
  }
}

// Variance of neighbour differences along x, z and the two diagonals (halved: the diagonal
// step is sqrt2 longer and, for a smooth field at small spacing, the variance grows with the
// squared distance) agree: no axis-aligned artefacts.
TEST_P(OpenSimplex, IsotropicIn2D) {
  const int n = 1024;
  const std::vector<float> v =
      fill2(base(0.05), GridSpec{.width = n, .height = n, .origin_x_m = -17.0});
  const double vx = diff_var(v, n, n, 1, 0), vz = diff_var(v, n, n, 0, 1);
  const double vd1 = diff_var(v, n, n, 1, 1) / 2.0, vd2 = diff_var(v, n, n, 1, -1) / 2.0;
  const double lo = std::min({vx, vz, vd1, vd2}), hi = std::max({vx, vz, vd1, vd2});
  EXPECT_LT(hi / lo, 1.15) << vx << " " << vz << " " << vd1 << " " << vd2;
}

TEST_P(OpenSimplex, IsotropicIn3D) {
  const GridSpec3 g{.size_x = 96, .size_y = 96, .size_z = 96, .spacing_m = 1.0};
  const std::vector<float> v = fill3(base(0.08), g);
  auto at = [&](int i, int j, int k) { return double(v[(std::size_t(k) * 96 + j) * 96 + i]); };
  double sx = 0, sy = 0, sz = 0, sxz = 0, sxy = 0;
  double cnt = 0.0;
  for (int k = 0; k + 1 < 96; ++k) {
    for (int j = 0; j + 1 < 96; ++j) {
      for (int i = 0; i + 1 < 96; ++i) {
        const double c = at(i, j, k);
        sx += std::pow(at(i + 1, j, k) - c, 2);
        sy += std::pow(at(i, j + 1, k) - c, 2);
        sz += std::pow(at(i, j, k + 1) - c, 2);
        sxz += std::pow(at(i + 1, j, k + 1) - c, 2) / 2.0;
        sxy += std::pow(at(i + 1, j + 1, k) - c, 2) / 2.0;
        cnt += 1.0;
      }
    }
  }
  const double lo = std::min({sx, sy, sz, sxz, sxy}), hi = std::max({sx, sy, sz, sxz, sxy});
  EXPECT_LT(hi / lo, 1.15) << sx / cnt << " " << sy / cnt << " " << sz / cnt << " " << sxz / cnt
                           << " " << sxy / cnt;
}

// |v(p) - v(q)| <= L * frequency * |p - q| with L the analytic gradient bound (see the kernels'
// headers); 2e-5 covers float rounding.
TEST_P(OpenSimplex, LipschitzContinuous) {
  for (double h : {0.37, 0.05, 0.004, 2e-4}) {  // spacing in lattice units (spacing * frequency)
    SCOPED_TRACE(h);
    const double freq = 0.25;
    const int n = 512;
    const std::vector<float> v = fill2(
        base(freq), GridSpec{.width = n, .height = n, .spacing_m = h / freq, .origin_x_m = 5.5});
    const double bound2 = GetParam().lipschitz2 * h + 2e-5;
    double worst = 0.0;
    for (int j = 0; j + 1 < n; ++j) {
      for (int i = 0; i + 1 < n; ++i) {
        const double c = v[std::size_t(j) * n + i];
        worst = std::max({worst, std::fabs(v[std::size_t(j) * n + i + 1] - c),
                          std::fabs(v[std::size_t(j + 1) * n + i] - c)});
      }
    }
    EXPECT_LE(worst, bound2);
    // The bound is not vacuous (the finest grid covers too small an area to find the steepest
    // slope; it checks that there are no small jumps).
    if (h > 1e-3) {
      EXPECT_GT(worst, 0.3 * GetParam().lipschitz2 * h);
    }

    const GridSpec3 g3{
        .size_x = 128, .size_y = 32, .size_z = 32, .spacing_m = h / freq, .origin_z_m = -2.25};
    const std::vector<float> w = fill3(base(freq), g3);
    const double bound3 = GetParam().lipschitz3 * h + 2e-5;
    double worst3 = 0.0;
    for (std::size_t r = 0; r < w.size() / 128; ++r) {
      for (std::size_t i = 0; i + 1 < 128; ++i) {
        worst3 = std::max(worst3, double(std::fabs(w[r * 128 + i + 1] - w[r * 128 + i])));
      }
    }
    EXPECT_LE(worst3, bound3);
    if (h > 1e-3) {
      EXPECT_GT(worst3, 0.3 * GetParam().lipschitz3 * h);
    }
  }
}

TEST_P(OpenSimplex, PointApiMatchesGrid) {
  NoiseParams p = base(0.043);
  p.fractal = FractalType::fbm;
  p.octaves = 4;
  const std::vector<float> v = fill2(p, kOddGrid);
  for (auto [i, j] : {std::pair{0, 0}, {256, 192}, {17, 101}, {130, 3}, {255, 64}}) {
    EXPECT_EQ(noise_at(p, kOddGrid.x_m(i), kOddGrid.z_m(j)), v[std::size_t(j) * kOddGrid.width + i])
        << i << "," << j;
  }
  const std::vector<float> w = fill3(p, kOddGrid3);
  for (int k : {0, 5, 10}) {
    for (int i : {0, 31, 66}) {
      const int j = (i + k) % kOddGrid3.size_y;
      EXPECT_EQ(noise_at(p, kOddGrid3.x_m(i), kOddGrid3.y_m(j), kOddGrid3.z_m(k)),
                w[(std::size_t(k) * kOddGrid3.size_y + j) * kOddGrid3.size_x + i])
          << i << "," << j << "," << k;
    }
  }
}

TEST_P(OpenSimplex, SubGridsMatchWholeGrid) {
  NoiseParams p = base(0.027);
  p.fractal = FractalType::fbm;
  p.octaves = 3;
  const std::vector<float> whole = fill2(p, kOddGrid);
  struct Rect {
    int i0, j0, w, h;
  };
  for (Rect r : {Rect{0, 0, 101, 193}, Rect{101, 0, 156, 37}, Rect{101, 37, 156, 156},
                 Rect{37, 11, 1, 1}, Rect{3, 190, 254, 3}}) {
    const std::vector<float> part = fill2(p, kOddGrid.sub(r.i0, r.j0, r.w, r.h));
    for (int j = 0; j < r.h; ++j) {
      ASSERT_EQ(std::memcmp(&part[std::size_t(j) * r.w],
                            &whole[std::size_t(r.j0 + j) * kOddGrid.width + r.i0],
                            std::size_t(r.w) * sizeof(float)),
                0)
          << "rect " << r.i0 << "," << r.j0 << " row " << j;
    }
  }
  // 3D: a sub-box (integer index offsets) gives the same bits.
  const std::vector<float> whole3 = fill3(p, kOddGrid3);
  GridSpec3 box = kOddGrid3;
  box.index_x0 = 13, box.index_y0 = 2, box.index_z0 = 5;
  box.size_x = 41, box.size_y = 5, box.size_z = 6;
  const std::vector<float> part3 = fill3(p, box);
  for (int k = 0; k < box.size_z; ++k) {
    for (int j = 0; j < box.size_y; ++j) {
      for (int i = 0; i < box.size_x; ++i) {
        ASSERT_EQ(part3[(std::size_t(k) * box.size_y + j) * box.size_x + i],
                  whole3[(std::size_t(k + 5) * kOddGrid3.size_y + (j + 2)) * kOddGrid3.size_x +
                         (i + 13)]);
      }
    }
  }
}

// 10^8 m from the origin the noise is as detailed as at the origin (cells are split from the
// fraction in double before the float kernels run).
TEST_P(OpenSimplex, FarOriginKeepsStatistics) {
  const NoiseParams p = base(0.05);
  const int n = 1024;
  const double near = diff_var(fill2(p, GridSpec{.width = n, .height = n}), n, n, 1, 0);
  const double far =
      diff_var(fill2(p, GridSpec{.width = n, .height = n, .origin_x_m = 1e8, .origin_z_m = -1e8}),
               n, n, 1, 0);
  EXPECT_NEAR(far / near, 1.0, 0.10) << near << " " << far;

  const GridSpec3 g3{.size_x = 256, .size_y = 16, .size_z = 256};
  GridSpec3 f3 = g3;
  f3.origin_x_m = 1e8, f3.origin_y_m = 3e7, f3.origin_z_m = -1e8;
  const double near3 = diff_var(fill3(p, g3), 256, 16 * 256, 1, 0);
  const double far3 = diff_var(fill3(p, f3), 256, 16 * 256, 1, 0);
  EXPECT_NEAR(far3 / near3, 1.0, 0.10) << near3 << " " << far3;
}

TEST_P(OpenSimplex, SeedsAndOctavesDiffer) {
  const GridSpec g{.width = 64, .height = 64, .spacing_m = 1.5};
  NoiseParams a = base(0.05), b = a;
  b.seed = a.seed + 1;
  EXPECT_FALSE(same_bits(fill2(a, g), fill2(b, g)));
  const GridSpec3 g3{.size_x = 16, .size_y = 16, .size_z = 16, .spacing_m = 1.5};
  EXPECT_FALSE(same_bits(fill3(a, g3), fill3(b, g3)));
}

// Determinism goldens: these hashes change only when the algorithm intentionally changes.
TEST_P(OpenSimplex, Golden) {
  NoiseParams p = base(0.037);
  p.seed = 1337;
  const std::uint64_t h2 = hash_floats(fill2(
      p,
      GridSpec{
          .width = 64, .height = 64, .spacing_m = 1.0, .origin_x_m = -20.5, .origin_z_m = 7.25}));
  const std::uint64_t h3 = hash_floats(fill3(p, GridSpec3{.size_x = 64,
                                                          .size_y = 1,
                                                          .size_z = 64,
                                                          .spacing_m = 1.0,
                                                          .origin_x_m = -20.5,
                                                          .origin_y_m = 3.75,
                                                          .origin_z_m = 7.25}));
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%016llXull, 0x%016llXull", (unsigned long long)h2,
                (unsigned long long)h3);
  EXPECT_EQ(h2, GetParam().golden2) << "actual " << buf;
  EXPECT_EQ(h3, GetParam().golden3) << "actual " << buf;
}

INSTANTIATE_TEST_SUITE_P(Noise, OpenSimplex, ::testing::ValuesIn(kExpect),
                         [](const ::testing::TestParamInfo<Expect>& param_info) {
                           return std::string(to_string(param_info.param.type));
                         });

}  // namespace
}  // namespace terrane
