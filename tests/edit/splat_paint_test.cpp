// Splat paint (issue 16): premultiplied amounts per lattice vertex, the compositing law of a
// stroke, the painted weights over compute_splat's, coarser grids reading the shared vertices,
// undo and redo to the same bits, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "support/edit_strokes.hpp"
#include "support/expect_error.hpp"
#include "terrane/edit.hpp"

namespace terrane {
namespace {

constexpr int kLayers = 3;

// A splat map on a lattice grid with every cell's weights (0.5, 0.3, 0.2).
SplatMap flat_splat(const GridSpec& g) {
  SplatMap s;
  s.grid = g;
  s.layer_count = kLayers;
  const std::size_t n = g.sample_count();
  s.weights.resize(n * kLayers);
  const float w[kLayers] = {0.5f, 0.3f, 0.2f};
  for (int l = 0; l < kLayers; ++l) {
    for (std::size_t c = 0; c < n; ++c) s.weights[std::size_t(l) * n + c] = w[l];
  }
  return s;
}

GridSpec lattice(int width, std::int64_t i0, std::int64_t j0, double spacing) {
  return GridSpec{.width = width,
                  .height = width,
                  .spacing_m = spacing,
                  .origin_x_m = 0.0,
                  .origin_z_m = 0.0,
                  .index_x0 = i0,
                  .index_z0 = j0};
}

// The smoothstep falloff of edit.hpp's brushes, as a reference.
double falloff(double radius, double start, double d) {
  if (d >= radius) return 0.0;
  if (d <= start * radius) return 1.0;
  const double t = (radius - d) / (radius - start * radius);
  return t * t * (3.0 - 2.0 * t);
}

TEST(SplatPaint, StrokesCompositeAsPremultipliedAlpha) {
  SplatPaint p(1.0, 16, kLayers);  // small tiles: strokes span several, negative indices too
  const SplatBrush a = test::paint_brush(2, -4.5, 3.25, 12.0, 0.6, 0.25);
  const SplatBrush b = test::paint_brush(0, 2.0, -1.0, 9.0, 0.8);
  EXPECT_EQ(p.apply(a), (LatticeRect{-16, -8, 7, 15}));
  EXPECT_FALSE(p.apply(b).empty());
  EXPECT_EQ(p.undo_steps(), 2u);
  // Every vertex follows a <- a (1 - s) + s e_L, stroke after stroke, in float as stored.
  std::size_t both = 0;
  for (std::int64_t j = -25; j <= 25; ++j) {
    for (std::int64_t i = -25; i <= 25; ++i) {
      float want[kLayers] = {0.0f, 0.0f, 0.0f};
      for (const SplatBrush* s : {&a, &b}) {
        const double w = s->strength * falloff(s->radius_m, s->falloff_start,
                                               std::hypot(double(i) - s->x_m, double(j) - s->z_m));
        if (w == 0.0) continue;
        for (int l = 0; l < kLayers; ++l) {
          want[l] = float(double(want[l]) * (1.0 - w) + (l == s->layer ? w : 0.0));
        }
      }
      double sum = 0.0;
      for (int l = 0; l < kLayers; ++l) {
        ASSERT_EQ(p.current().amount_at(i, j, l), want[l]) << i << ", " << j << " layer " << l;
        sum += double(want[l]);
      }
      ASSERT_LE(sum, 1.0 + 1e-6);
      if (want[0] > 0.0f && want[2] > 0.0f) ++both;
    }
  }
  EXPECT_GT(both, 20u);  // the strokes overlap: the second one composited over the first
  // Inside the full-weight core of a stroke of strength 1, the layer is all there is.
  SplatPaint q(1.0, 16, kLayers);
  q.apply(test::paint_brush(1, 0.0, 0.0, 6.0, 1.0, 0.5));
  EXPECT_EQ(q.current().amount_at(1, 2, 1), 1.0f);
  EXPECT_EQ(q.current().amount_at(1, 2, 0), 0.0f);
  EXPECT_EQ(q.current().amount_at(6, 0, 1), 0.0f);
}

TEST(SplatPaint, PaintedWeightsSumToOneAndUnpaintedCellsKeepTheirBits) {
  SplatPaint p(2.0, 32, kLayers);
  p.apply(test::paint_brush(2, 40.0, 40.0, 20.0, 0.7));
  const GridSpec g = lattice(65, 0, 0, 2.0);  // 0..128 m
  const SplatMap before = flat_splat(g);
  SplatMap after = before;
  p.current().apply_to(after);
  const std::size_t n = g.sample_count();
  std::size_t painted = 0;
  for (int gj = 0; gj < g.height; ++gj) {
    for (int gi = 0; gi < g.width; ++gi) {
      const std::size_t c = std::size_t(gj) * std::size_t(g.width) + std::size_t(gi);
      const double d = std::hypot(2.0 * gi - 40.0, 2.0 * gj - 40.0);
      double sum = 0.0;
      for (int l = 0; l < kLayers; ++l) sum += after.weights[std::size_t(l) * n + c];
      EXPECT_NEAR(sum, 1.0, 1e-6);
      if (d >= 20.0) {
        for (int l = 0; l < kLayers; ++l) {
          ASSERT_EQ(after.weights[std::size_t(l) * n + c], before.weights[std::size_t(l) * n + c]);
        }
        continue;
      }
      ++painted;
      // w_l (1 - A) + a_l, with only layer 2 painted: the others shrink in proportion.
      const float a = p.current().amount_at(gi, gj, 2);
      EXPECT_NEAR(after.weights[2 * n + c], 0.2 * (1.0 - a) + a, 1e-6);
      EXPECT_NEAR(after.weights[0 * n + c], 0.5 * (1.0 - a), 1e-6);
      EXPECT_GT(after.weights[2 * n + c], 0.2f);
    }
  }
  EXPECT_GT(painted, 250u);
}

TEST(SplatPaint, CoarserGridsReadTheSharedVertices) {
  SplatPaint p(1.0, 16, kLayers);
  p.apply(test::paint_brush(1, 10.0, -6.0, 15.0, 0.9));
  SplatMap fine = flat_splat(lattice(33, -8, -24, 1.0));
  SplatMap coarse = flat_splat(lattice(17, -4, -12, 2.0));  // every other vertex of `fine`
  p.current().apply_to(fine);
  p.current().apply_to(coarse);
  for (int l = 0; l < kLayers; ++l) {
    for (int j = 0; j < 17; ++j) {
      for (int i = 0; i < 17; ++i) {
        ASSERT_EQ(coarse.weights[std::size_t(l) * 289 + std::size_t(j * 17 + i)],
                  fine.weights[std::size_t(l) * 1089 + std::size_t(2 * j * 33 + 2 * i)]);
      }
    }
  }
  SplatMap off = flat_splat(GridSpec{.width = 4, .height = 4, .spacing_m = 1.5});
  test::expect_error([&] { p.current().apply_to(off); }, ErrorCategory::invalid_argument,
                     {"splat paint", "not on the level-0 lattice"});
  SplatMap two;
  two.grid = lattice(4, 0, 0, 1.0);
  two.layer_count = 2;
  two.weights.assign(32, 0.5f);
  test::expect_error([&] { p.current().apply_to(two); }, ErrorCategory::invalid_argument,
                     {"3 layers", "2 layers"});
}

TEST(SplatPaint, UnpaintUndoAndRedoGiveTheBitsBack) {
  SplatPaint p(1.0, 16, kLayers);
  p.apply(test::paint_brush(0, 0.0, 0.0, 10.0, 0.5));
  const SplatPaintSnapshot one = p.current();
  p.apply(test::paint_brush(2, 3.0, 1.0, 8.0, 0.75));
  const SplatPaintSnapshot two = p.current();
  EXPECT_NE(one.content_hash(), two.content_hash());
  // Unpaint at strength 1 with a core wider than everything painted: no tile is left.
  SplatBrush wipe;
  wipe.kind = PaintKind::unpaint;
  wipe.radius_m = 40.0;
  wipe.falloff_start = 1.0;
  EXPECT_FALSE(p.apply(wipe).empty());
  EXPECT_TRUE(p.current().empty());
  EXPECT_EQ(p.current().painted_vertices(), 0u);
  // Unpaint where nothing is painted changes nothing and makes no step.
  EXPECT_TRUE(p.apply(wipe).empty());
  EXPECT_EQ(p.undo_steps(), 3u);
  EXPECT_FALSE(p.undo().empty());
  EXPECT_EQ(p.current().content_hash(), two.content_hash());
  EXPECT_FALSE(p.undo().empty());
  EXPECT_EQ(p.current().content_hash(), one.content_hash());
  EXPECT_FALSE(p.redo().empty());
  EXPECT_EQ(p.current().content_hash(), two.content_hash());
  for (const auto& [key, tile] : two.tiles()) {
    ASSERT_EQ(*p.current().tiles().at(key), *tile);
  }
  // A snapshot made from the tiles (the store's loader) is the same layer.
  const SplatPaintSnapshot copy(1.0, 16, kLayers, two.tiles());
  EXPECT_EQ(copy.content_hash(), two.content_hash());
  EXPECT_EQ(copy.painted_vertices(), two.painted_vertices());
}

TEST(SplatPaint, BadInputIsRefusedAndChangesNothing) {
  SplatPaint p(1.0, 16, kLayers);
  p.apply(test::paint_brush(0, 0.0, 0.0, 5.0, 0.5));
  const std::uint64_t hash = p.current().content_hash();
  const auto refused = [&](SplatBrush b, std::initializer_list<std::string_view> needles) {
    test::expect_error([&] { p.apply(b); }, ErrorCategory::invalid_argument, needles);
    EXPECT_EQ(p.current().content_hash(), hash);
    EXPECT_EQ(p.undo_steps(), 1u);
  };
  refused(test::paint_brush(0, std::nan(""), 0.0, 5.0, 0.5), {"brush.x_m"});
  refused(test::paint_brush(0, 0.0, 0.0, 0.0, 0.5), {"brush.radius_m"});
  refused(test::paint_brush(0, 0.0, 0.0, 2e4, 0.5), {"brush.radius_m"});
  refused(test::paint_brush(0, 0.0, 0.0, 5.0, 1.5), {"brush.strength"});
  refused(test::paint_brush(0, 0.0, 0.0, 5.0, -0.1), {"brush.strength"});
  refused(test::paint_brush(3, 0.0, 0.0, 5.0, 0.5), {"brush.layer", "0..2"});
  refused(test::paint_brush(0, 2e12, 0.0, 5.0, 0.5), {"brush.x_m"});
  SplatPaint fine(0.01, 16, kLayers);
  test::expect_error([&] { fine.apply(test::paint_brush(0, 0.0, 0.0, 1e3, 0.5)); },
                     ErrorCategory::limit, {"2^26"});
  test::expect_error([] { SplatPaint(1.0, 16, 0); }, ErrorCategory::invalid_argument,
                     {"layers = 0"});
  test::expect_error([] { SplatPaint(0.0, 16, 3); }, ErrorCategory::invalid_argument,
                     {"splat paint", "cell_size_m"});
  // The loader's checks: a tile of another size, an amount outside [0, 1], sums over 1.
  const auto tiles = [](std::vector<float> v) {
    return SplatPaintSnapshot::TileMap{
        {{0, 0}, std::make_shared<const SplatPaintSnapshot::Tile>(v)}};
  };
  const std::size_t n = 16 * 16 * kLayers;
  test::expect_error(
      [&] { SplatPaintSnapshot(1.0, 16, kLayers, tiles(std::vector<float>(n - 1))); },
      ErrorCategory::invalid_argument, {"tile (0, 0)", "amounts"});
  std::vector<float> bad(n, 0.0f);
  bad[4] = 1.25f;
  test::expect_error([&] { SplatPaintSnapshot(1.0, 16, kLayers, tiles(bad)); },
                     ErrorCategory::invalid_argument, {"outside [0, 1]"});
  bad[4] = std::nanf("");
  test::expect_error([&] { SplatPaintSnapshot(1.0, 16, kLayers, tiles(bad)); },
                     ErrorCategory::invalid_argument, {"outside [0, 1]"});
  bad[3] = bad[4] = bad[5] = 0.5f;
  test::expect_error([&] { SplatPaintSnapshot(1.0, 16, kLayers, tiles(bad)); },
                     ErrorCategory::invalid_argument, {"sum to", "more than 1"});
  EXPECT_EQ(parse_paint_kind("unpaint"), PaintKind::unpaint);
  EXPECT_FALSE(parse_paint_kind("raise").has_value());
}

}  // namespace
}  // namespace terrane
