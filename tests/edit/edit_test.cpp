// Height edits (issue 16, first part): brushes on the level-0 lattice, copy-on-write snapshots,
// undo and redo to the same bits, coarser grids reading the shared vertices, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "terrane/edit.hpp"
#include "terrane/preset.hpp"

namespace terrane {
namespace {

const CompiledGraph& base() {
  static const CompiledGraph g = compile(load_preset("default"));
  return g;
}

// All deltas of a snapshot over a box of vertices, row by row.
std::vector<float> deltas(const HeightEditSnapshot& s, std::int64_t i0, std::int64_t j0, int n) {
  std::vector<float> out;
  for (std::int64_t j = j0; j < j0 + n; ++j) {
    for (std::int64_t i = i0; i < i0 + n; ++i) out.push_back(s.delta_at(i, j));
  }
  return out;
}

// The current height (base + delta) of lattice vertex (i, j) at cell size `cell`.
float height(const HeightEditSnapshot& s, std::int64_t i, std::int64_t j, double cell) {
  const GridSpec g{.width = 1,
                   .height = 1,
                   .spacing_m = cell,
                   .origin_x_m = 0.0,
                   .origin_z_m = 0.0,
                   .index_x0 = i,
                   .index_z0 = j};
  std::vector<float> h(1);
  evaluate(base(), g, h);
  s.add_to(g, h);
  return h[0];
}

TEST(HeightEdits, RaiseFollowsTheFalloffAndUndoRestoresTheBits) {
  HeightEdits e(1.0, 16);  // small tiles: the stroke spans several, negative indices too
  HeightBrush b;
  b.kind = BrushKind::raise;
  b.x_m = -3.3, b.z_m = 7.6, b.radius_m = 20.0, b.strength_m = 2.0, b.falloff_start = 0.25;
  const LatticeRect r = e.apply(b, base());
  EXPECT_EQ(r, (LatticeRect{-23, -12, 16, 27}));
  const std::vector<float> after = deltas(e.current(), -30, -20, 60);
  for (std::int64_t j = -30; j < 40; ++j) {
    for (std::int64_t i = -40; i < 30; ++i) {
      const double d = std::hypot(double(i) - b.x_m, double(j) - b.z_m);
      const float v = e.current().delta_at(i, j);
      if (d >= 20.0) {
        ASSERT_EQ(v, 0.0f) << i << ", " << j;
      } else if (d <= 5.0) {
        ASSERT_EQ(v, 2.0f) << i << ", " << j;
      } else {
        ASSERT_GT(v, 0.0f) << i << ", " << j;
        ASSERT_LT(v, 2.0f) << i << ", " << j;
        // Monotone: a vertex farther out is raised no more than one further in.
        const double d2 =
            std::hypot(double(i + (double(i) < b.x_m ? 1 : -1)) - b.x_m, double(j) - b.z_m);
        if (d2 < d) {
          ASSERT_LE(v, e.current().delta_at(i + (double(i) < b.x_m ? 1 : -1), j) + 1e-6f);
        }
      }
    }
  }
  EXPECT_GT(e.current().tile_count(), 4u);
  EXPECT_EQ(e.undo_steps(), 1u);
  EXPECT_EQ(e.current().delta_lo(), 0.0f);
  EXPECT_EQ(e.current().delta_hi(), 2.0f);

  EXPECT_EQ(e.undo(), r);
  EXPECT_TRUE(e.current().empty()) << "undo of the only stroke leaves no tile";
  EXPECT_EQ(e.current().delta_hi(), 0.0f);
  EXPECT_EQ(e.current().delta_at(-3, 7), 0.0f);
  EXPECT_EQ(e.undo(), LatticeRect{}) << "nothing more to undo";
  EXPECT_EQ(e.redo(), r);
  EXPECT_EQ(deltas(e.current(), -30, -20, 60), after);
  EXPECT_EQ(e.redo(), LatticeRect{});

  // A new stroke after an undo drops the redo step.
  e.undo();
  b.kind = BrushKind::lower;
  e.apply(b, base());
  EXPECT_EQ(e.redo_steps(), 0u);
  EXPECT_EQ(e.current().delta_at(-3, 7), -2.0f);
}

TEST(HeightEdits, SnapshotsKeepTheirStateWhileTheOwnerEdits) {
  HeightEdits e(2.0, 32);
  HeightBrush b;
  b.x_m = 100.0, b.z_m = 50.0, b.radius_m = 30.0;
  e.apply(b, base());
  const std::shared_ptr<const HeightEditSnapshot> s = e.snapshot();
  const std::vector<float> before = deltas(*s, 30, 5, 60);
  b.strength_m = 5.0;
  e.apply(b, base());
  e.apply(b, base());
  EXPECT_EQ(deltas(*s, 30, 5, 60), before);
  EXPECT_NE(deltas(e.current(), 30, 5, 60), before);
  EXPECT_EQ(e.current().delta_at(50, 25), 11.0f);
  EXPECT_EQ(s->delta_at(50, 25), 1.0f);
}

TEST(HeightEdits, TheSameStrokesGiveTheSameBits) {
  std::vector<HeightBrush> strokes;
  for (int k = 0; k < 12; ++k) {
    HeightBrush b;
    b.kind = BrushKind(k % 5);
    b.x_m = 13.7 * k - 40.0, b.z_m = -9.1 * k + 3.0, b.radius_m = 6.0 + k;
    b.strength_m = b.kind == BrushKind::flatten || b.kind == BrushKind::smooth ? 0.5 : 1.5;
    b.target_m = 80.0;
    b.noise.frequency = 0.05;
    strokes.push_back(b);
  }
  HeightEdits a(0.5, 64), c(0.5, 64);
  for (const HeightBrush& b : strokes) a.apply(b, base());
  for (const HeightBrush& b : strokes) c.apply(b, base());
  EXPECT_EQ(deltas(a.current(), -150, -250, 400), deltas(c.current(), -150, -250, 400));
  // Undoing all of them leaves no edit.
  while (a.undo_steps() > 0) a.undo();
  EXPECT_TRUE(a.current().empty());
}

TEST(HeightEdits, FlattenReachesItsTargetAndSmoothLowersTheRoughness) {
  const double cell = 1.0;
  HeightEdits e(cell, 64);
  HeightBrush flat;
  flat.kind = BrushKind::flatten;
  flat.x_m = 400.0, flat.z_m = -200.0, flat.radius_m = 12.0, flat.falloff_start = 0.5;
  flat.target_m = 150.0;
  e.apply(flat, base());
  for (std::int64_t j = -205; j <= -195; ++j) {
    for (std::int64_t i = 395; i <= 405; ++i) {
      if (std::hypot(double(i) - 400.0, double(j) + 200.0) > 6.0) continue;
      EXPECT_NEAR(height(e.current(), i, j, cell), 150.0f, 1e-4) << i << ", " << j;
    }
  }
  // Noise, then smoothing: the noise's roughness (the mean squared difference between
  // neighbouring deltas inside the brush's full-weight disc) falls with every pass. (The base's
  // own slope is not roughness: the 3 x 3 mean keeps a plane.)
  HeightBrush rough;
  rough.kind = BrushKind::noise;
  rough.x_m = -600.0, rough.z_m = 300.0, rough.radius_m = 16.0, rough.strength_m = 3.0;
  rough.noise.frequency = 0.4;
  e.apply(rough, base());
  auto roughness = [&] {
    double sum = 0.0;
    for (std::int64_t j = 296; j <= 304; ++j) {
      for (std::int64_t i = -604; i <= -596; ++i) {
        const double d = double(e.current().delta_at(i + 1, j)) - e.current().delta_at(i, j);
        sum += d * d;
      }
    }
    return sum;
  };
  EXPECT_GT(roughness(), 1.0);
  double last = roughness();
  HeightBrush smooth = rough;
  smooth.kind = BrushKind::smooth;
  smooth.strength_m = 1.0;
  for (int pass = 0; pass < 4; ++pass) {
    e.apply(smooth, base());
    const double now = roughness();
    EXPECT_LT(now, last * 0.9) << "pass " << pass;
    last = now;
  }
}

TEST(HeightEdits, CoarserGridsReadTheSharedVertices) {
  HeightEdits e(1.0, 64);
  HeightBrush b;
  b.x_m = 37.0, b.z_m = -21.0, b.radius_m = 90.0, b.strength_m = 4.0, b.falloff_start = 0.1;
  e.apply(b, base());
  for (int level = 0; level <= 3; ++level) {
    const std::int64_t step = std::int64_t{1} << level;
    const GridSpec g{.width = 35,
                     .height = 35,
                     .spacing_m = double(step),
                     .origin_x_m = 0.0,
                     .origin_z_m = 0.0,
                     .index_x0 = -17,
                     .index_z0 = -20};
    std::vector<float> h(g.sample_count(), 1.0f);
    e.current().add_to(g, h);
    for (int gj = 0; gj < g.height; ++gj) {
      for (int gi = 0; gi < g.width; ++gi) {
        const float want =
            1.0f + e.current().delta_at((g.index_x0 + gi) * step, (g.index_z0 + gj) * step);
        ASSERT_EQ(h[std::size_t(gj) * 35 + std::size_t(gi)], want)
            << level << ": " << gi << ", " << gj;
      }
    }
  }
  const GridSpec off{.width = 4, .height = 4, .spacing_m = 3.0};
  std::vector<float> h(16);
  test::expect_error([&] { e.current().add_to(off, h); }, ErrorCategory::invalid_argument,
                     {"is not on the level-0 lattice"});
  const GridSpec shifted{.width = 4, .height = 4, .spacing_m = 1.0, .origin_x_m = 0.5};
  test::expect_error([&] { e.current().add_to(shifted, h); }, ErrorCategory::invalid_argument,
                     {"origin 0, 0"});
}

// add_sampled (block worlds): the deltas interpolated bilinearly at any point, the vertex's own
// delta at a vertex, and the height's own bits where no edit reaches.
TEST(HeightEdits, SampledDeltasAreBilinearAndExactAtTheVertices) {
  HeightEdits e(1.0, 64);
  HeightBrush b;
  b.kind = BrushKind::noise;
  b.x_m = 10.0, b.z_m = 5.0, b.radius_m = 40.0, b.strength_m = 6.0;
  b.noise.frequency = 0.05;
  e.apply(b, base());
  const HeightEditSnapshot& s = e.current();
  // On the lattice: what add_to adds.
  const GridSpec lattice{.width = 100, .height = 100, .index_x0 = -40, .index_z0 = -45};
  std::vector<float> a(lattice.sample_count(), 3.25f), c = a;
  s.add_to(lattice, a);
  s.add_sampled(lattice, c);
  EXPECT_EQ(a, c);
  // Block centres (half a cell off) and a grid of another spacing: the bilinear mean.
  for (const GridSpec& g : {GridSpec{.width = 90,
                           .height = 90,
                           .spacing_m = 1.0,
                           .origin_x_m = 0.5,
                           .origin_z_m = 0.5,
                           .index_x0 = -40,
                           .index_z0 = -45},
                            GridSpec{.width = 40,
                            .height = 30,
                            .spacing_m = 2.3,
                            .origin_x_m = -0.7,
                            .origin_z_m = 0.2,
                            .index_x0 = -17,
                            .index_z0 = -19}}) {
    std::vector<float> h(g.sample_count(), 3.25f);
    s.add_sampled(g, h);
    for (int j = 0; j < g.height; ++j) {
      for (int i = 0; i < g.width; ++i) {
        const double x = g.x_m(i), z = g.z_m(j);
        const std::int64_t i0 = std::int64_t(std::floor(x)), j0 = std::int64_t(std::floor(z));
        const double fx = x - double(i0), fz = z - double(j0);
        const double want =
            (1 - fx) * (1 - fz) * s.delta_at(i0, j0) + fx * (1 - fz) * s.delta_at(i0 + 1, j0) +
            (1 - fx) * fz * s.delta_at(i0, j0 + 1) + fx * fz * s.delta_at(i0 + 1, j0 + 1);
        ASSERT_NEAR(h[std::size_t(j) * std::size_t(g.width) + std::size_t(i)], 3.25 + want, 1e-5)
            << i << ", " << j;
      }
    }
  }
  // Far from the edits the bits stay, a negative zero included.
  const GridSpec far{.width = 8,
                     .height = 8,
                     .spacing_m = 1.0,
                     .origin_x_m = 0.5,
                     .index_x0 = 5000,
                     .index_z0 = 5000};
  std::vector<float> z(far.sample_count(), -0.0f);
  s.add_sampled(far, z);
  for (const float v : z) EXPECT_TRUE(std::signbit(v));
  std::vector<float> wrong(3);
  test::expect_error([&] { s.add_sampled(far, wrong); }, ErrorCategory::invalid_argument,
                     {"3 heights for a grid of 64 samples"});
}

TEST(HeightEdits, BadInputIsRefusedAndChangesNothing) {
  HeightEdits e(0.1, 64);
  HeightBrush b;
  b.radius_m = 0.0;
  test::expect_error([&] { e.apply(b, base()); }, ErrorCategory::invalid_argument,
                     {"brush.radius_m = 0 is outside the allowed range (0, 10000]"});
  b.radius_m = 5.0;
  b.x_m = std::nan("");
  test::expect_error([&] { e.apply(b, base()); }, ErrorCategory::invalid_argument, {"brush.x_m"});
  b.x_m = 2e12;
  test::expect_error([&] { e.apply(b, base()); }, ErrorCategory::invalid_argument, {"brush.x_m"});
  b.x_m = 0.0;
  b.falloff_start = 1.5;
  test::expect_error([&] { e.apply(b, base()); }, ErrorCategory::invalid_argument,
                     {"brush.falloff_start"});
  b.falloff_start = 0.5;
  b.radius_m = 1000.0;  // 2e4 x 2e4 vertices at 0.1 m
  test::expect_error([&] { e.apply(b, base()); }, ErrorCategory::limit, {"the limit is 2^26"});
  b.radius_m = 5.0;
  b.kind = BrushKind::noise;
  b.noise.octaves = 0;
  test::expect_error([&] { e.apply(b, base()); }, ErrorCategory::invalid_argument, {"brush.noise"});
  EXPECT_TRUE(e.current().empty());
  EXPECT_EQ(e.undo_steps(), 0u);
  test::expect_error([] { HeightEdits(0.0, 64); }, ErrorCategory::invalid_argument,
                     {"cell_size_m = 0"});
  test::expect_error([] { HeightEdits(1.0, 4); }, ErrorCategory::invalid_argument,
                     {"tile_cells = 4 is outside the allowed range 8..1024"});
  // A brush between the vertices covers none: no step.
  HeightEdits coarse(10.0, 8);
  HeightBrush tiny;
  tiny.x_m = 5.0, tiny.z_m = 5.0, tiny.radius_m = 1.0;
  EXPECT_TRUE(coarse.apply(tiny, base()).empty());
  EXPECT_EQ(coarse.undo_steps(), 0u);
}

// A snapshot built from stored tiles (the store's loader) keeps them and their bounds, starts a
// HeightEdits with no undo step, and refuses tiles that cannot be deltas of this lattice.
TEST(HeightEdits, SnapshotsFromStoredTiles) {
  using Tile = HeightEditSnapshot::Tile;
  HeightEditSnapshot::TileMap tiles;
  auto t = std::make_shared<Tile>(64, 0.0f);
  (*t)[9] = 2.5f, (*t)[10] = -1.0f;
  tiles[{-3, 7}] = t;
  const HeightEditSnapshot s(1.0, 8, tiles);
  EXPECT_EQ(s.tile_count(), 1u);
  EXPECT_EQ(s.delta_at(-3 * 8 + 1, 7 * 8 + 1), 2.5f);
  EXPECT_EQ(s.delta_lo(), -1.0f);
  EXPECT_EQ(s.delta_hi(), 2.5f);
  HeightEdits e(s);
  EXPECT_EQ(e.undo_steps(), 0u);
  EXPECT_EQ(e.current().tiles().at({-3, 7}), t);

  auto bad = [](std::shared_ptr<Tile> tile, std::int64_t ti = 0) {
    HeightEditSnapshot::TileMap m;
    m[{ti, 0}] = std::move(tile);
    return m;
  };
  test::expect_error([&] { HeightEditSnapshot(1.0, 8, bad(std::make_shared<Tile>(63))); },
                     ErrorCategory::invalid_argument, {"tile (0, 0) holds 63 deltas, not 8^2"});
  test::expect_error([&] { HeightEditSnapshot(1.0, 8, bad(nullptr)); },
                     ErrorCategory::invalid_argument, {"holds 0 deltas"});
  auto nan = std::make_shared<Tile>(64, 0.0f);
  (*nan)[3] = std::numeric_limits<float>::quiet_NaN();
  test::expect_error([&] { HeightEditSnapshot(1.0, 8, bad(nan)); }, ErrorCategory::invalid_argument,
                     {"not finite"});
  test::expect_error(
      [&] { HeightEditSnapshot(1.0, 8, bad(std::make_shared<Tile>(64), std::int64_t{1} << 40)); },
      ErrorCategory::invalid_argument, {"beyond the world's limit"});
  test::expect_error([&] { HeightEditSnapshot(1.0, 2, {}); }, ErrorCategory::invalid_argument,
                     {"tile_cells = 2"});
}

}  // namespace
}  // namespace terrane
