// terrane-view and the edit layers beside the heights (issue 16): a world file's splat paint is
// drawn where it was painted and nowhere else.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "terrane/edit.hpp"
#include "terrane/preset.hpp"
#include "terrane/store.hpp"
#include "view/view_support.hpp"

namespace {

using namespace terrane_view_test;

// brush_test.cpp's scene: default at 1 m cells, 60 m above the ground at the origin, looking
// along +Z 25 degrees down (the view's centre meets the ground about 130 m ahead).
const std::string kView = " --size 480x270 --camera 0,448,0 --look 0,-25 --hide scatter";
const std::string kScene = "default --set world.cell_size_m=1" + kView;

// Share of the pixels of a box (fractions of the picture) that differ by more than `tolerance`
// (RGB summed) between a and b.
double changed(const Shot& a, const Shot& b, double x0, double x1, double y0, double y1,
               int tolerance = 24) {
  std::size_t n = 0, all = 0;
  for (int y = int(y0 * a.height); y < int(y1 * a.height); ++y) {
    for (int x = int(x0 * a.width); x < int(x1 * a.width); ++x) {
      const unsigned char *p = a.at(x, y), *q = b.at(x, y);
      n += std::abs(p[0] - q[0]) + std::abs(p[1] - q[1]) + std::abs(p[2] - q[2]) > tolerance;
      ++all;
    }
  }
  return double(n) / double(std::max<std::size_t>(all, 1));
}

// Pixels of a box near the snow layer's white (240, 244, 248): the grass, forest and rock of the
// scene are far darker.
std::size_t white(const Shot& s, double x0, double x1, double y0, double y1) {
  std::size_t n = 0;
  for (int y = int(y0 * s.height); y < int(y1 * s.height); ++y) {
    for (int x = int(x0 * s.width); x < int(x1 * s.width); ++x) {
      const unsigned char* p = s.at(x, y);
      n += p[0] > 170 && p[1] > 170 && p[2] > 170;
    }
  }
  return n;
}

class EditLayersTest : public ViewTest {};

// A world file with one paint stroke of the default preset's snow (layer 7) at full strength,
// 30 m around (0, 130) straight ahead: the middle of the picture turns white, its edges and the
// sky stay as they are.
TEST_F(EditLayersTest, WorldFilesPaintIsDrawnUnderTheStrokeOnly) {
  const std::string file = (dir_ / "paint.terrane").string();
  {
    const std::string set[] = {"world.cell_size_m=1"};
    const terrane::Preset preset = terrane::load_preset("default", set);
    terrane::WorldStore store = terrane::WorldStore::create(file, preset);
    terrane::SplatPaint paint(preset.world.cell_size_m, store.info().tile_cells,
                              int(preset.surface.layers.size()));
    terrane::SplatBrush brush;
    brush.x_m = 0.0;
    brush.z_m = 130.0;
    brush.radius_m = 30.0;
    brush.strength = 1.0;
    brush.layer = 7;
    ASSERT_EQ(preset.surface.layers[7].name, "snow");
    ASSERT_FALSE(paint.apply(brush).empty());
    terrane::WorldEdits edits;
    edits.paint = paint.snapshot();
    store.commit(edits, "a snow stroke");
  }
  const Shot base = render(kScene);
  ASSERT_EQ(base.rc, 0) << base.log;
  const Shot painted = render(file + kView);
  ASSERT_EQ(painted.rc, 0) << painted.log;
  EXPECT_EQ(painted.stats.value("gl_errors", -1), 0);

  // The stroke lies a little below the picture's middle: 60 m across, 130 m on.
  EXPECT_GT(white(painted, 0.42, 0.58, 0.4, 0.65), white(base, 0.42, 0.58, 0.4, 0.65) + 1000)
      << "the paint is not drawn";
  EXPECT_GT(changed(base, painted, 0.46, 0.54, 0.54, 0.6), 0.8);
  EXPECT_LT(changed(base, painted, 0.0, 0.2, 0.0, 1.0), 0.001) << "the left edge changed";
  EXPECT_LT(changed(base, painted, 0.8, 1.0, 0.0, 1.0), 0.001) << "the right edge changed";
  EXPECT_LT(changed(base, painted, 0.0, 1.0, 0.0, 0.12), 0.001) << "the sky changed";
  EXPECT_LT(changed(base, painted, 0.0, 1.0, 0.9, 1.0), 0.001) << "the near ground changed";
}

}  // namespace
