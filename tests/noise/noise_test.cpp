// Noise framework and the Perlin / value / cubic value bases: determinism (SIMD targets, thread
// counts, region splits, point API), statistics, continuity, far-origin precision, fractals,
// warp and parameter validation. Basis-specific suites live in their own files.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <source_location>
#include <string_view>

#include "support/expect_error.hpp"
#include "support/float_bits.hpp"
#include "support/test_rng.hpp"
#include "terrane/noise.hpp"

namespace terrane {
namespace {

const NoiseType kTypes[] = {NoiseType::perlin, NoiseType::value, NoiseType::value_cubic};
const FractalType kFractals[] = {FractalType::none, FractalType::fbm, FractalType::ridged,
                                 FractalType::billow, FractalType::pingpong};

struct SimdGuard {
  ~SimdGuard() { set_simd_target(SimdTarget::best); }
};

std::vector<float> fill(const NoiseParams& p, const GridSpec& g, int threads = 0) {
  std::vector<float> out(g.sample_count());
  noise_fill(p, g, out, ExecContext{.threads = threads});
  return out;
}

NoiseParams params(NoiseType t, FractalType f = FractalType::none, double freq = 0.02) {
  NoiseParams p;
  p.type = t;
  p.fractal = f;
  p.frequency = freq;
  p.octaves = 5;
  p.seed = 42;
  return p;
}

const GridSpec kOddGrid{
    .width = 257, .height = 193, .spacing_m = 0.7, .origin_x_m = -311.25, .origin_z_m = 1234.5};

// At frequency 0.25 the samples of this grid lie on lattice lines every fourth row and column, on
// both sides of zero, where noise values are zeros: tests compare bits, so their signs count.
const GridSpec kLatticeGrid{
    .width = 143, .height = 9, .spacing_m = 1.0, .origin_x_m = -64.0, .origin_z_m = -4.0};

// Variant 0 of a case: its parameters on kOddGrid; variant v > 0: on kLatticeGrid at frequency
// 0.25 with seed v.
struct GridCase {
  NoiseParams p;
  const GridSpec& grid;
};
GridCase grid_case(const NoiseParams& base, int variant) {
  if (variant == 0) return {base, kOddGrid};
  NoiseParams p = base;
  p.frequency = 0.25;
  p.seed = std::uint64_t(variant);
  return {p, kLatticeGrid};
}

TEST(Noise, BitIdenticalAcrossSimdTargets2D) {
  SimdGuard guard;
  const auto targets = supported_simd_targets();
  ASSERT_GE(targets.size(), 1u);
  for (NoiseType t : kTypes) {
    for (FractalType f : kFractals) {
      NoiseParams p = params(t, f);
      p.weighted_strength = f == FractalType::fbm ? 0.5 : 0.0;
      std::vector<std::vector<float>> results;
      for (SimdTarget s : targets) {
        set_simd_target(s);
        results.push_back(fill(p, kOddGrid));
      }
      for (std::size_t k = 1; k < results.size(); ++k) {
        ASSERT_EQ(test::float_bits(results[k]), test::float_bits(results[0]))
            << to_string(t) << " " << to_string(f) << " target " << to_string(targets[k])
            << " differs from " << to_string(targets[0]);
      }
    }
  }
}

// A row without displacement takes the row-prepared path where the basis has one (Perlin: the
// row-invariant z work done once per row), a row with zero displacements the general path that
// prepares nothing: both must give the same bits, for every basis, fractal and SIMD target.
TEST(Noise, ZeroDisplacementGivesTheUndisplacedRowOnEveryPath) {
  const std::vector<float> zero(std::size_t(kOddGrid.width), 0.0f);
  const std::vector<float> negative_zero(zero.size(), -0.0f);
  // Every basis with every fractal, and cellular with every distance and return (its prepared
  // rows dispatch on both).
  std::vector<NoiseParams> cases;
  for (NoiseType t : {NoiseType::perlin, NoiseType::value, NoiseType::value_cubic,
                      NoiseType::cellular, NoiseType::opensimplex2, NoiseType::opensimplex2s}) {
    for (FractalType f : kFractals) {
      NoiseParams p = params(t, f);
      p.weighted_strength = f == FractalType::none ? 0.0 : 0.4;
      cases.push_back(p);
    }
  }
  for (CellularDistance d :
       {CellularDistance::euclidean, CellularDistance::manhattan, CellularDistance::chebyshev}) {
    for (CellularReturn r : {CellularReturn::f1, CellularReturn::f2, CellularReturn::f2_minus_f1,
                             CellularReturn::cell_value}) {
      NoiseParams p = params(NoiseType::cellular, FractalType::none);
      p.cellular_distance = d;
      p.cellular_return = r;
      cases.push_back(p);
    }
  }
  // Bits, not values: -0 and +0 compare equal as floats (kLatticeGrid).
  for (SimdTarget s : supported_simd_targets()) {
    for (const NoiseParams& base : cases) {
      // On the lattice grid, 16 seeds: a zero's sign shows in the output only where the lerps
      // carry it through (a few lattice points in a hundred).
      for (int variant = 0; variant < 17; ++variant) {
        const auto [p, g] = grid_case(base, variant);
        const NoiseGridSampler sampler(p, g, s);
        std::vector<float> plain(std::size_t(g.width)), displaced(std::size_t(g.width));
        for (int j : {0, 1, 4, 96, g.height - 1}) {
          if (j >= g.height) continue;
          sampler.row(j, 0, plain);
          sampler.row(j, 0, displaced, zero.data(), zero.data());
          ASSERT_EQ(test::float_bits(plain), test::float_bits(displaced))
              << to_string(p.type) << " " << to_string(p.fractal) << " (cellular "
              << int(p.cellular_distance) << "/" << int(p.cellular_return) << ") on "
              << to_string(s) << ", row " << j << " of a " << g.width << "-wide grid";
          // A row that starts mid-grid (odd start, a tail shorter than a vector).
          const std::span<float> part(plain.data(), 37);
          sampler.row(j, 101, part);
          ASSERT_EQ(test::float_bits(part),
                    test::float_bits(std::span<const float>(displaced).subspan(101, 37)));
          // Negative zeros are no displacement either (WarpGridSampler passes both as none).
          sampler.row(j, 0, plain);
          sampler.row(j, 0, displaced, negative_zero.data(), negative_zero.data());
          ASSERT_EQ(test::float_bits(plain), test::float_bits(displaced))
              << "-0 displacements, " << to_string(p.type);
          // The pair kernels (a domain warp's layers: fractal none) likewise.
          if (p.fractal == FractalType::none) {
            std::vector<float> plain_b(plain.size()), displaced_b(plain.size());
            sampler.row_pair(j, 0, plain, plain_b);
            for (const std::vector<float>* z : {&zero, &negative_zero}) {
              sampler.row_pair(j, 0, displaced, displaced_b, z->data(), z->data());
              ASSERT_EQ(test::float_bits(plain), test::float_bits(displaced))
                  << "pair a, " << to_string(p.type);
              ASSERT_EQ(test::float_bits(plain_b), test::float_bits(displaced_b))
                  << "pair b, " << to_string(p.type);
            }
          }
        }
      }
    }
  }
}

// A warped row whose displacements keep every lattice fraction small splits them with
// NormalizeSmall (fractal-inl.h, WarpFitsSmall), any other row with Normalize. The same row with
// one sample displaced by 1e30 (or NaN) takes the general path: every other sample must have the
// same bits, for every basis, fractal and SIMD target, single rows and pairs, on lattice lines
// (zeros) too.
TEST(Noise, WarpedRowsHaveTheSameBitsOnTheSmallAndTheGeneralPath) {
  std::vector<NoiseParams> cases;
  for (NoiseType t : {NoiseType::perlin, NoiseType::value, NoiseType::value_cubic,
                      NoiseType::cellular, NoiseType::opensimplex2, NoiseType::opensimplex2s}) {
    for (FractalType f : kFractals) {
      for (double weighted : {0.0, 0.4}) {
        NoiseParams p = params(t, f);
        p.weighted_strength = f == FractalType::none ? 0.0 : weighted;
        cases.push_back(p);
      }
    }
  }
  test::TestRng rng(7);
  for (SimdTarget s : supported_simd_targets()) {
    for (const NoiseParams& base : cases) {
      for (int variant = 0; variant < 5; ++variant) {
        const auto [p, g] = grid_case(base, variant);
        const bool on_lattice = variant > 0;
        const std::size_t w = std::size_t(g.width);
        // Displacements up to +-3000 m (beyond the grid's extent), whole multiples of 4 m on
        // the lattice grid so that samples stay on lattice lines, and -0 among them.
        std::vector<float> dx(w), dz(w);
        for (std::size_t i = 0; i < w; ++i) {
          const double u = rng.uniform(-1.0, 1.0), v = rng.uniform(-1.0, 1.0);
          dx[i] = on_lattice ? float(4 * std::lround(u * 750)) : float(u * 3000.0);
          dz[i] = on_lattice ? float(4 * std::lround(v * 750)) : float(v * 3000.0);
          if (i % 17 == 3) dx[i] = -0.0f;
        }
        const NoiseGridSampler sampler(p, g, s);
        for (float wild : {1e30f, std::numeric_limits<float>::quiet_NaN()}) {
          std::vector<float> gx = dx, gz = dz;
          gx[w - 1] = wild;
          std::vector<float> small(w), general(w);
          for (int j : {0, 4, g.height - 1}) {
            sampler.row(j, 0, small, dx.data(), dz.data());
            sampler.row(j, 0, general, gx.data(), gz.data());
            const std::span<const float> sa(small.data(), w - 1), ga(general.data(), w - 1);
            ASSERT_EQ(test::float_bits(sa), test::float_bits(ga))
                << to_string(p.type) << " " << to_string(p.fractal) << " weighted "
                << p.weighted_strength << " on " << to_string(s) << ", row " << j;
            if (p.fractal == FractalType::none) {
              std::vector<float> small_b(w), general_b(w);
              sampler.row_pair(j, 0, small, small_b, dx.data(), dz.data());
              sampler.row_pair(j, 0, general, general_b, gx.data(), gz.data());
              ASSERT_EQ(test::float_bits(sa), test::float_bits(ga))
                  << "pair a, " << to_string(p.type) << " on " << to_string(s);
              ASSERT_EQ(test::float_bits(std::span<const float>(small_b.data(), w - 1)),
                        test::float_bits(std::span<const float>(general_b.data(), w - 1)))
                  << "pair b, " << to_string(p.type) << " on " << to_string(s);
            }
          }
        }
      }
    }
  }
}

// The 3D analogue: a volume row without displacement takes the row-prepared path where the basis
// has one (Perlin: y and z formed once per row), a row with zero displacements the general one.
// Bits compared, on a grid whose samples include lattice lines (zeros).
TEST(Noise, ZeroDisplacementGivesTheUndisplacedVolumeRowOnEveryPath) {
  const GridSpec3 g{.size_x = 71,
                    .size_y = 9,
                    .size_z = 6,
                    .spacing_m = 1.0,
                    .origin_x_m = -32.0,
                    .origin_y_m = -4.0,
                    .origin_z_m = 4.0};
  const std::vector<float> zero(std::size_t(g.size_x), 0.0f);
  for (SimdTarget s : supported_simd_targets()) {
    for (NoiseType t : {NoiseType::perlin, NoiseType::value, NoiseType::value_cubic,
                        NoiseType::cellular, NoiseType::opensimplex2, NoiseType::opensimplex2s}) {
      for (FractalType f : kFractals) {
        for (std::uint64_t seed = 0; seed < 4; ++seed) {
          NoiseParams p = params(t, f, 0.25);
          p.seed = seed;
          p.weighted_strength = f == FractalType::none ? 0.0 : 0.4;
          const NoiseVolumeSampler sampler(p, g, s);
          std::vector<float> plain(zero.size()), displaced(zero.size());
          for (int k = 0; k < g.size_z; ++k) {
            for (int j = 0; j < g.size_y; ++j) {
              sampler.row(j, k, 0, plain);
              sampler.row(j, k, 0, displaced, zero.data(), zero.data(), zero.data());
              ASSERT_EQ(test::float_bits(plain), test::float_bits(displaced))
                  << to_string(t) << " " << to_string(f) << " seed " << seed << " on "
                  << to_string(s) << ", row " << j << ", " << k;
            }
          }
        }
      }
    }
  }
}

// Samples on lattice lines, where noise values are zeros: their signs are bits too, and every
// target must give the same ones (float == would not see a -0 for a +0).
TEST(Noise, LatticeZerosHaveTheSameSignOnEveryTarget) {
  SimdGuard guard;
  for (NoiseType t : {NoiseType::perlin, NoiseType::value, NoiseType::value_cubic,
                      NoiseType::cellular, NoiseType::opensimplex2, NoiseType::opensimplex2s}) {
    for (FractalType f : {FractalType::none, FractalType::fbm}) {
      for (std::uint64_t seed = 0; seed < 16; ++seed) {
        NoiseParams p = params(t, f, 0.25);
        p.seed = seed;
        std::vector<std::vector<std::uint32_t>> bits;
        for (SimdTarget s : supported_simd_targets()) {
          set_simd_target(s);
          const std::vector<float> v = fill(p, kLatticeGrid);
          bits.emplace_back(v.size());
          std::memcpy(bits.back().data(), v.data(), v.size() * sizeof(float));
        }
        for (std::size_t k = 1; k < bits.size(); ++k) {
          ASSERT_EQ(bits[k], bits[0]) << to_string(t) << " " << to_string(f) << " seed " << seed;
        }
      }
    }
  }
}

TEST(Noise, BitIdenticalAcrossSimdTargetsWarpedAnd3D) {
  SimdGuard guard;
  WarpParams w;
  w.fractal = WarpFractal::progressive;
  w.basis = NoiseType::perlin;
  const GridSpec3 g3{.size_x = 37, .size_y = 11, .size_z = 13, .spacing_m = 1.3, .origin_x_m = 5.5};
  for (NoiseType t : kTypes) {
    const NoiseParams p = params(t, FractalType::fbm);
    std::vector<std::vector<float>> warped, vol;
    for (SimdTarget s : supported_simd_targets()) {
      set_simd_target(s);
      warped.emplace_back(kOddGrid.sample_count());
      noise_fill_warped(p, w, kOddGrid, warped.back());
      vol.emplace_back(g3.sample_count());
      noise_fill3(p, g3, vol.back());
    }
    for (std::size_t k = 1; k < warped.size(); ++k) {
      EXPECT_EQ(test::float_bits(warped[k]), test::float_bits(warped[0])) << to_string(t);
      EXPECT_EQ(test::float_bits(vol[k]), test::float_bits(vol[0])) << to_string(t);
    }
  }
}

// ExecContext::simd overrides the process-wide target (here scalar) for one call; every target
// gives the same bytes, for every basis, the warped and the 3D fill.
TEST(Noise, ContextSimdTargetGivesIdenticalBytes) {
  SimdGuard guard;
  set_simd_target(SimdTarget::scalar);
  WarpParams w;
  w.fractal = WarpFractal::independent;
  const GridSpec3 g3{.size_x = 29, .size_y = 7, .size_z = 9, .spacing_m = 1.7, .origin_z_m = -9.5};
  for (NoiseType t : {NoiseType::perlin, NoiseType::opensimplex2, NoiseType::opensimplex2s,
                      NoiseType::value, NoiseType::value_cubic, NoiseType::cellular}) {
    const NoiseParams p = params(t, FractalType::fbm);
    const std::vector<float> ref = fill(p, kOddGrid);
    std::vector<float> ref_warped(kOddGrid.sample_count()), ref3(g3.sample_count());
    noise_fill_warped(p, w, kOddGrid, ref_warped);
    noise_fill3(p, g3, ref3);
    for (SimdTarget s : supported_simd_targets()) {
      SCOPED_TRACE(std::string(to_string(t)) + " on " + to_string(s));
      for (int threads : {1, 2}) {
        const ExecContext ctx{.threads = threads, .simd = s};
        std::vector<float> got(kOddGrid.sample_count()), warped(kOddGrid.sample_count()),
            vol(g3.sample_count());
        noise_fill(p, kOddGrid, got, ctx);
        noise_fill_warped(p, w, kOddGrid, warped, ctx);
        noise_fill3(p, g3, vol, ctx);
        EXPECT_EQ(test::float_bits(got), test::float_bits(ref));
        EXPECT_EQ(test::float_bits(warped), test::float_bits(ref_warped));
        EXPECT_EQ(test::float_bits(vol), test::float_bits(ref3));
      }
      // A sampler built for a fixed target: the same row whatever the process-wide setting.
      const NoiseGridSampler fixed(p, kOddGrid, s);
      set_simd_target(supported_simd_targets().front());
      std::vector<float> row(kOddGrid.width);
      fixed.row(11, 0, row);
      set_simd_target(SimdTarget::scalar);
      EXPECT_TRUE(std::equal(row.begin(), row.end(), ref.begin() + 11 * kOddGrid.width));
    }
  }
}

// A scratch reused across rows of different lengths gives the bits of per-call buffers.
TEST(Noise, WarpScratchReuseGivesSameBits) {
  for (WarpFractal f : {WarpFractal::none, WarpFractal::progressive, WarpFractal::independent}) {
    WarpParams w;
    w.fractal = f;
    const WarpGridSampler warp(w, kOddGrid);
    WarpScratch scratch;
    for (int n : {kOddGrid.width, 17, 1, 200}) {
      std::vector<float> ax(n, 0.5f), az(n, -2.0f), bx = ax, bz = az;
      warp.row(5, 0, ax, az);
      warp.row(5, 0, bx, bz, &scratch);
      EXPECT_EQ(ax, bx) << to_string(f) << " n " << n;
      EXPECT_EQ(az, bz) << to_string(f) << " n " << n;
    }
    EXPECT_GE(scratch.bytes(), std::size_t(kOddGrid.width) * 2 * sizeof(float));
  }
}

// row_from_rest is row on zeros, bit for bit, whatever the spans held on entry: every warp
// fractal (the first layer, or every layer of an independent warp, takes the undisplaced path),
// every basis a warp allows, every target, 2D and 3D, on a grid with lattice lines.
TEST(Warp, RowFromRestIsRowOnZeros) {
  const GridSpec g{
      .width = 75, .height = 9, .spacing_m = 1.0, .origin_x_m = -32.0, .origin_z_m = -4.0};
  const GridSpec3 v{.size_x = 75,
                    .size_y = 5,
                    .size_z = 3,
                    .spacing_m = 1.0,
                    .origin_x_m = -32.0,
                    .origin_y_m = -2.0,
                    .origin_z_m = 4.0};
  const std::size_t n = 75;
  for (SimdTarget s : supported_simd_targets()) {
    for (NoiseType t : {NoiseType::perlin, NoiseType::opensimplex2, NoiseType::opensimplex2s,
                        NoiseType::value, NoiseType::value_cubic}) {
      for (WarpFractal f :
           {WarpFractal::none, WarpFractal::progressive, WarpFractal::independent}) {
        WarpParams w;
        w.basis = t;
        w.fractal = f;
        w.octaves = f == WarpFractal::none ? 1 : 3;
        w.frequency = 0.25;  // lattice lines every fourth sample
        w.amplitude_m = 7.0;
        const std::string what =
            std::string(to_string(t)) + " " + to_string(f) + " on " + to_string(s);
        const WarpGridSampler warp(w, g, s);
        for (int j : {0, 3, 8}) {
          std::vector<float> ax(n, 0.0f), az(n, 0.0f), bx(n, 123.0f), bz(n, -0.0f);
          warp.row(j, 0, ax, az);
          warp.row_from_rest(j, 0, bx, bz);
          ASSERT_EQ(test::float_bits(ax), test::float_bits(bx)) << what << ", row " << j;
          ASSERT_EQ(test::float_bits(az), test::float_bits(bz)) << what << ", row " << j;
        }
        const WarpVolumeSampler warp3(w, v, s);
        for (int k = 0; k < v.size_z; ++k) {
          std::vector<float> a[3], b[3];
          for (int c = 0; c < 3; ++c) {
            a[c].assign(n, 0.0f);
            b[c].assign(n, 5.0f);
          }
          warp3.row(2, k, 0, a[0], a[1], a[2]);
          warp3.row_from_rest(2, k, 0, b[0], b[1], b[2]);
          for (int c = 0; c < 3; ++c)
            ASSERT_EQ(test::float_bits(a[c]), test::float_bits(b[c])) << what << ", 3D";
        }
      }
    }
  }
}

// A context that forces a target this CPU lacks is refused before any sample is written
// (Highway's test hook hides AVX2 and AVX-512).
TEST(Noise, ContextForcingAnUnsupportedTargetIsRefused) {
  (void)resolved_simd_target();
  struct Unmock {
    ~Unmock() { hwy::SetSupportedTargetsForTest(0); }
  } unmock;
  hwy::SetSupportedTargetsForTest(HWY_SSE4);
  const NoiseParams p = params(NoiseType::perlin);
  std::vector<float> out(kOddGrid.sample_count(), 7.0f);
  try {
    noise_fill(p, kOddGrid, out, ExecContext{.simd = SimdTarget::avx3});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'avx3' is not supported"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float v) { return v == 7.0f; }));
  std::vector<float> vol(8);
  EXPECT_THROW(noise_fill3(p, GridSpec3{.size_x = 2, .size_y = 2, .size_z = 2}, vol,
                           ExecContext{.simd = SimdTarget::avx2}),
               Error);
  EXPECT_THROW(NoiseGridSampler(p, kOddGrid, SimdTarget::avx2), Error);
  EXPECT_NO_THROW(noise_fill(p, kOddGrid, out, ExecContext{.simd = SimdTarget::sse4}));
}

TEST(Noise, BitIdenticalAcrossThreadCounts) {
  const GridSpec g{.width = 300, .height = 700};
  for (NoiseType t : kTypes) {
    const NoiseParams p = params(t, FractalType::fbm);
    const auto one = fill(p, g, 1);
    EXPECT_EQ(fill(p, g, 2), one);
    EXPECT_EQ(fill(p, g, 4), one);
  }
}

TEST(Noise, AnySplitIntoSubRectanglesGivesSameBits) {
  for (NoiseType t : kTypes) {
    const NoiseParams p = params(t, FractalType::ridged);
    const auto whole = fill(p, kOddGrid);
    std::vector<float> pieces(whole.size(), -7.0f);
    const int cuts_x[] = {0, 1, 50, 129, 257}, cuts_z[] = {0, 64, 65, 193};
    std::vector<std::pair<int, int>> order;
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 3; ++b) order.emplace_back(a, b);
    test::shuffle(order, 7 + std::uint64_t(t));
    for (auto [a, b] : order) {
      const int i0 = cuts_x[a], w = cuts_x[a + 1] - cuts_x[a];
      const int j0 = cuts_z[b], h = cuts_z[b + 1] - cuts_z[b];
      const GridSpec sub = kOddGrid.sub(i0, j0, w, h);
      const auto part = fill(p, sub);
      for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i)
          pieces[std::size_t(j0 + j) * 257 + i0 + i] = part[std::size_t(j) * w + i];
    }
    EXPECT_EQ(pieces, whole) << to_string(t);
  }
}

TEST(Noise, PointApiEqualsGrid) {
  for (NoiseType t : kTypes) {
    const NoiseParams p = params(t, FractalType::fbm);
    const auto grid = fill(p, kOddGrid);
    for (auto [i, j] : {std::pair{0, 0}, {17, 3}, {256, 192}, {100, 100}}) {
      EXPECT_EQ(noise_at(p, kOddGrid.x_m(i), kOddGrid.z_m(j)), grid[std::size_t(j) * 257 + i])
          << to_string(t) << " at " << i << "," << j;
    }
    const GridSpec3 g3{.size_x = 9, .size_y = 5, .size_z = 4, .spacing_m = 2.5, .origin_y_m = -3.0};
    std::vector<float> vol(g3.sample_count());
    noise_fill3(p, g3, vol);
    EXPECT_EQ(noise_at(p, g3.x_m(7), g3.y_m(2), g3.z_m(3)), vol[(3 * 5 + 2) * 9 + 7]);
  }
}

struct Stats {
  double mean, min, max;
  double var_dx, var_dz, var_diag1, var_diag2;
};

Stats stats(const std::vector<float>& v, int w, int h) {
  Stats s{0, 1e9, -1e9, 0, 0, 0, 0};
  double n = 0;
  for (float x : v) {
    s.mean += x;
    s.min = std::min<double>(s.min, x);
    s.max = std::max<double>(s.max, x);
  }
  s.mean /= double(v.size());
  for (int j = 0; j + 1 < h; ++j) {
    for (int i = 0; i + 1 < w; ++i) {
      auto at = [&](int a, int b) { return double(v[std::size_t(b) * w + a]); };
      const double dx = at(i + 1, j) - at(i, j), dz = at(i, j + 1) - at(i, j);
      const double d1 = at(i + 1, j + 1) - at(i, j), d2 = at(i, j + 1) - at(i + 1, j);
      s.var_dx += dx * dx;
      s.var_dz += dz * dz;
      s.var_diag1 += d1 * d1 / 2.0;  // squared distance is 2 along diagonals
      s.var_diag2 += d2 * d2 / 2.0;
      n += 1;
    }
  }
  s.var_dx /= n, s.var_dz /= n, s.var_diag1 /= n, s.var_diag2 /= n;
  return s;
}

TEST(Noise, StatisticsBoundsAndIsotropy) {
  const GridSpec g{.width = 1024, .height = 1024, .spacing_m = 1.0};
  for (NoiseType t : kTypes) {
    const NoiseParams p = params(t, FractalType::none, 0.05);
    const Stats s = stats(fill(p, g), g.width, g.height);
    EXPECT_GE(s.min, -1.0) << to_string(t);
    EXPECT_LE(s.max, 1.0) << to_string(t);
    EXPECT_NEAR(s.mean, 0.0, 0.05) << to_string(t);
    EXPECT_GE(std::max(-s.min, s.max), 0.5) << to_string(t) << ": normalisation wastes range";
    // No axis-aligned artefacts: the directional derivative variance agrees in 4 directions.
    const double ref = s.var_dx;
    for (double v : {s.var_dz, s.var_diag1, s.var_diag2}) {
      EXPECT_NEAR(v / ref, 1.0, 0.15) << to_string(t);
    }
  }
}

TEST(Noise, FractalsStayWithinUnitRange) {
  const GridSpec g{.width = 512, .height = 512, .spacing_m = 1.0};
  for (NoiseType t : kTypes) {
    for (FractalType f : kFractals) {
      for (double ws : {0.0, 1.0}) {
        NoiseParams p = params(t, f, 0.01);
        p.octaves = 8;
        p.gain = 0.6;
        p.weighted_strength = ws;
        const auto v = fill(p, g);
        const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
        EXPECT_GE(*mn, -1.0f) << to_string(t) << " " << to_string(f);
        EXPECT_LE(*mx, 1.0f) << to_string(t) << " " << to_string(f);
        EXPECT_GT(*mx - *mn, 0.3f) << to_string(t) << " " << to_string(f) << ": degenerate output";
      }
    }
  }
}

TEST(Noise, ContinuityLipschitzBound) {
  // Samples 0.005 lattice cells apart. Perlin's gradient is at most ~2.5 per lattice unit,
  // quintic value noise 2 * 1.875 = 3.75, cubic value 1.5 * 2 / 1.25^2 (Catmull-Rom slope):
  // L = 4 covers all; a seam or a wrong lattice cell shows as a jump of order 0.1..1.
  const double L = 4.0;
  const GridSpec g{.width = 400, .height = 50, .spacing_m = 0.1, .origin_x_m = -20.0};
  for (NoiseType t : kTypes) {
    const NoiseParams p = params(t, FractalType::none, 0.05);
    const auto v = fill(p, g);
    double worst = 0;
    for (int j = 0; j < g.height; ++j)
      for (int i = 0; i + 1 < g.width; ++i)
        worst = std::max(worst, std::fabs(double(v[j * 400 + i + 1]) - v[j * 400 + i]));
    EXPECT_LE(worst, L * 0.1 * 0.05) << to_string(t);
  }
}

TEST(Noise, FarOriginHasSameQuality) {
  for (NoiseType t : kTypes) {
    const NoiseParams p = params(t, FractalType::fbm, 0.05);
    const GridSpec near{.width = 512, .height = 512};
    GridSpec far = near;
    far.origin_x_m = 1e8;
    far.origin_z_m = -1e8;
    const Stats a = stats(fill(p, near), 512, 512), b = stats(fill(p, far), 512, 512);
    EXPECT_NEAR(b.var_dx / a.var_dx, 1.0, 0.1) << to_string(t);
    EXPECT_NEAR(b.var_dz / a.var_dz, 1.0, 0.1) << to_string(t);
    // Neighbouring samples 1 m apart at 1e8 m still differ smoothly (no float staircase).
    const auto v = fill(p, far);
    int equal_neighbours = 0;
    for (int i = 0; i + 1 < 512; ++i) equal_neighbours += v[i] == v[i + 1];
    EXPECT_LT(equal_neighbours, 5) << to_string(t);
  }
}

TEST(Noise, SeedsChangeTheField) {
  for (NoiseType t : kTypes) {
    NoiseParams a = params(t), b = params(t);
    b.seed = a.seed + 1;
    EXPECT_NE(fill(a, kOddGrid), fill(b, kOddGrid)) << to_string(t);
  }
}

// Golden hashes: the determinism contract across builds and machines. If a deliberate change
// alters the output, regenerate with: ctest -R Golden --output-on-failure (the message prints
// the new value) and say so in the commit message.
TEST(Noise, GoldenHashes) {
  const GridSpec g{.width = 64, .height = 64, .spacing_m = 1.5, .origin_x_m = 100.0};
  const std::pair<NoiseType, std::uint64_t> golden[] = {
      {NoiseType::perlin, 0x39edaf4d372a9eb7ull},
      {NoiseType::value, 0x5c8f489e4307d2f3ull},
      {NoiseType::value_cubic, 0x0ba6be2351e17be5ull},
  };
  for (auto [t, want] : golden) {
    const auto v = fill(params(t, FractalType::fbm), g);
    EXPECT_EQ(hash_floats(v), want) << to_string(t) << ": got 0x" << std::hex << hash_floats(v);
  }
}

TEST(Warp, DisplacementBoundedByAmplitudeAndDeterministic) {
  for (WarpFractal f : {WarpFractal::none, WarpFractal::progressive, WarpFractal::independent}) {
    WarpParams w;
    w.basis = NoiseType::perlin;
    w.fractal = f;
    w.amplitude_m = 30.0;
    const GridSpec g{.width = 128, .height = 128, .spacing_m = 2.0};
    WarpGridSampler s(w, g);
    std::vector<float> dx(128), dz(128);
    double max_d = 0, sum_sq = 0;
    for (int j = 0; j < 128; ++j) {
      std::fill(dx.begin(), dx.end(), 0.0f);
      std::fill(dz.begin(), dz.end(), 0.0f);
      s.row(j, 0, dx, dz);
      for (int i = 0; i < 128; ++i) {
        max_d = std::max({max_d, std::fabs(double(dx[i])), std::fabs(double(dz[i]))});
        sum_sq += double(dx[i]) * dx[i];
        float px, pz;
        if (i % 37 == 0) {
          warp_at(w, g.x_m(i), g.z_m(j), px, pz);
          ASSERT_EQ(px, dx[i]);
          ASSERT_EQ(pz, dz[i]);
        }
      }
    }
    EXPECT_LE(max_d, 30.0 * 1.0001) << to_string(f);
    EXPECT_GT(std::sqrt(sum_sq / (128 * 128)), 1.0) << to_string(f) << ": warp does nothing";
  }
}

TEST(Warp, WarpedFillMatchesManualComposition) {
  const NoiseParams p = params(NoiseType::perlin, FractalType::fbm);
  WarpParams w;
  w.basis = NoiseType::value;
  w.fractal = WarpFractal::independent;
  std::vector<float> out(kOddGrid.sample_count());
  noise_fill_warped(p, w, kOddGrid, out);
  NoiseGridSampler ns(p, kOddGrid);
  WarpGridSampler ws(w, kOddGrid);
  std::vector<float> dx(257, 0.0f), dz(257, 0.0f), row(257);
  ws.row(10, 0, dx, dz);
  ns.row(10, 0, row, dx.data(), dz.data());
  EXPECT_TRUE(std::equal(row.begin(), row.end(), out.begin() + 10 * 257));
  EXPECT_FALSE(std::equal(row.begin(), row.end(), fill(p, kOddGrid).begin() + 10 * 257));
}

// An Error(invalid_argument) holding every needle.
void expect_error(const std::function<void()>& f, std::initializer_list<std::string_view> needles,
                  std::source_location where = std::source_location::current()) {
  test::expect_error(f, ErrorCategory::invalid_argument, needles, where);
}

TEST(NoiseParams, ValidationNamesFieldValueAndRange) {
  NoiseParams p;
  p.octaves = 0;
  expect_error([&] { p.validate("graph.nodes.hills"); },
               {"graph.nodes.hills.octaves = 0 is outside the allowed range 1..16"});
  p.octaves = 40;
  expect_error([&] { p.validate(); }, {"noise.octaves = 40 is outside the allowed range 1..16"});
  p.octaves = 3;
  p.frequency = -1.0;
  expect_error([&] { p.validate(); },
               {"noise.frequency = -1 is outside the allowed range (0, 1000]"});
  p.frequency = std::nan("");
  expect_error([&] { p.validate(); },
               {"noise.frequency = nan is outside the allowed range (0, 1000]"});
  p.frequency = 0.01;
  p.cellular_jitter = 2.0;
  expect_error([&] { p.validate(); }, {"noise.jitter = 2 is outside the allowed range [0, 1]"});
  p.cellular_jitter = 1.0;
  p.lacunarity = 0.0;
  expect_error([&] { p.validate("n"); },
               {"n.lacunarity = 0 is outside the allowed range [0.1, 16]"});
  WarpParams w;
  w.basis = NoiseType::cellular;
  expect_error([&] { w.validate(); },
               {"warp.basis = cellular is not allowed for a warp (allowed: perlin, opensimplex2, "
                "opensimplex2s, value, value_cubic)"});
  w.basis = NoiseType::perlin;
  w.amplitude_m = -3.0;
  expect_error([&] { w.validate(); },
               {"warp.amplitude_m = -3 is outside the allowed range [0, 1000000]"});
  expect_error(
      [] { parse_noise_type("simplex"); },
      {"unknown noise type 'simplex' (allowed: perlin, opensimplex2, opensimplex2s, value, "
       "value_cubic, cellular)"});
  EXPECT_EQ(parse_fractal_type("pingpong"), FractalType::pingpong);
  std::vector<float> small(10);
  expect_error([&] { noise_fill(NoiseParams{}, GridSpec{.width = 4, .height = 4}, small); },
               {"noise_fill: output span has 10 samples, the grid needs 16"});
}

}  // namespace
}  // namespace terrane

namespace terrane {
namespace {

TEST(NoiseGridSampler, RowPairFirstOutputEqualsRowAndSecondIsIndependent) {
  const NoiseType all[] = {NoiseType::perlin, NoiseType::opensimplex2, NoiseType::opensimplex2s,
                           NoiseType::value,  NoiseType::value_cubic,  NoiseType::cellular};
  SimdGuard guard;
  for (NoiseType t : all) {
    const NoiseParams p = params(t, FractalType::none, 0.03);
    const NoiseGridSampler s(p, kOddGrid);
    std::vector<float> a(200), b(200), single(200), dx(200), dz(200);
    for (int k = 0; k < 200; ++k) {
      dx[k] = float(k % 17) - 8.0f;
      dz[k] = float(k % 5) * 3.0f;
    }
    std::vector<float> first_b;
    for (SimdTarget target : supported_simd_targets()) {
      set_simd_target(target);
      s.row_pair(7, 31, a, b, dx.data(), dz.data());
      s.row(7, 31, single, dx.data(), dz.data());
      EXPECT_EQ(test::float_bits(a), test::float_bits(single)) << to_string(t);
      if (first_b.empty()) first_b = b;
      EXPECT_EQ(test::float_bits(b), test::float_bits(first_b))
          << to_string(t) << " " << to_string(target);
    }
    double corr = 0, va = 0, vb = 0;
    for (int k = 0; k < 200; ++k) {
      corr += double(a[k]) * b[k];
      va += double(a[k]) * a[k];
      vb += double(b[k]) * b[k];
    }
    EXPECT_GT(vb, 0.01 * va) << to_string(t) << ": second output degenerate";
    EXPECT_LT(std::fabs(corr) / std::sqrt(va * vb), 0.6) << to_string(t) << ": outputs correlated";
  }
}

}  // namespace
}  // namespace terrane
