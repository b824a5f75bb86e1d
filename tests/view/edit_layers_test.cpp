// terrane-view and the edit layers beside the heights (issue 16): a world file's splat paint is
// drawn where it was painted and nowhere else; the brush tool's strokes on the other layers
// (fell, plant, dig in --blocks, paint) change what is drawn, undo gives the picture back,
// --save keeps every layer, bad specs are named.
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

// The scene with its scatter: level-0 chunks (the ones whose instances are drawn) reach about
// 100 m from the camera, so the instance strokes are near it.
const std::string kScatterScene =
    "default --set world.cell_size_m=1 --size 480x270 --camera 0,448,0 --look 0,-25";

// A fell removes the instances within its radius from the drawing; undone, every one is back.
TEST_F(EditLayersTest, FellThenUndoGivesTheOriginalInstances) {
  const Shot base = render(kScatterScene);
  ASSERT_EQ(base.rc, 0) << base.log;
  const Shot felled = render(kScatterScene + " --brush kind=fell,x=0,z=45,radius=25");
  ASSERT_EQ(felled.rc, 0) << felled.log;
  const Shot undone = render(kScatterScene + " --brush kind=fell,x=0,z=45,radius=25 --undo 1");
  ASSERT_EQ(undone.rc, 0) << undone.log;
  const int drawn = base.stats.value("instances", 0);
  ASSERT_GT(drawn, 50) << "no scatter in front of the camera";
  const nlohmann::json& e = felled.stats["edits"];
  const int removed = e.value("instances_removed", 0);
  EXPECT_GT(removed, 10) << e.dump();
  EXPECT_EQ(e.value("undo_steps", 0), 1);
  EXPECT_EQ(e.value("tiles", -1), 0) << "a fell is not a height edit";
  EXPECT_LT(felled.stats.value("instances", 0), drawn) << "the felled instances are drawn";
  EXPECT_GE(felled.stats.value("instances", 0), drawn - removed);
  EXPECT_EQ(undone.stats.value("instances", -1), drawn);
  EXPECT_EQ(undone.stats["edits"].value("instances_removed", -1), 0);
  EXPECT_EQ(undone.stats["edits"].value("redo_steps", -1), 1);
  EXPECT_FALSE(undone.stats["edits"].value("unsaved", true));
  EXPECT_EQ(differing_pixels(base, undone), 0u) << "undo did not give the base picture back";
}

// A plant adds one instance of the species, drawn where it stands.
TEST_F(EditLayersTest, PlantAddsOneDrawnInstance) {
  const Shot base = render(kScatterScene);
  ASSERT_EQ(base.rc, 0) << base.log;
  const Shot planted = render(kScatterScene + " --brush kind=plant,x=0,z=60,species=tree");
  ASSERT_EQ(planted.rc, 0) << planted.log;
  EXPECT_EQ(planted.stats["edits"].value("instances_added", 0), 1);
  EXPECT_EQ(planted.stats.value("instances", 0), base.stats.value("instances", -1) + 1);
  // The tree stands straight ahead, 60 m on: the picture changes around its middle column.
  EXPECT_GT(changed(base, planted, 0.4, 0.6, 0.3, 0.9), 0.002);
  EXPECT_LT(changed(base, planted, 0.0, 0.3, 0.0, 1.0), 0.001);
  EXPECT_LT(changed(base, planted, 0.7, 1.0, 0.0, 1.0), 0.001);
}

// --blocks: a dig on the ground ahead (the terrain ray-cast's point under the picture's middle,
// 35 m on) opens a pit in the block world; undone, the picture is the base's to the byte.
TEST_F(EditLayersTest, DigInTheBlockWorldAndUndoRestoresThePixels) {
  const std::string scene =
      "default --set world.cell_size_m=1 --blocks --size 480x270 --camera 0,0,0 "
      "--above-ground 20 --look 0,-30";
  const std::string dig = " --brush kind=dig,x=0,y=383,z=35,radius=6";
  const Shot base = render(scene);
  ASSERT_EQ(base.rc, 0) << base.log;
  const Shot dug = render(scene + dig);
  ASSERT_EQ(dug.rc, 0) << dug.log;
  const Shot undone = render(scene + dig + " --undo 1");
  ASSERT_EQ(undone.rc, 0) << undone.log;
  const nlohmann::json& e = dug.stats["edits"];
  EXPECT_GT(e.value("block_overrides", 0), 500) << e.dump();  // about 4/3 pi 6^3 = 905
  EXPECT_LT(e.value("block_overrides", 0), 1000) << e.dump();
  EXPECT_EQ(e.value("tiles", -1), 0);
  EXPECT_EQ(dug.stats.value("gl_errors", -1), 0);
  EXPECT_GT(changed(base, dug, 0.35, 0.65, 0.4, 0.8), 0.1) << "no pit in front of the camera";
  EXPECT_LT(changed(base, dug, 0.0, 1.0, 0.0, 0.1), 0.001) << "the sky changed";
  EXPECT_EQ(undone.stats["edits"].value("block_overrides", -1), 0);
  EXPECT_EQ(differing_pixels(base, undone), 0u) << "undo did not give the base picture back";
  // Without a block world a block stroke has nothing to edit.
  const Shot no_blocks = render("default --size 64x64" + dig);
  EXPECT_EQ(no_blocks.rc, 1) << no_blocks.log;
  EXPECT_NE(no_blocks.log.find("edit the block world: run with --blocks"), std::string::npos)
      << no_blocks.log;
}

// A paint stroke saved with --save (beside a fell: one commit of every layer) is the world
// file's paint: reopened, the paint and the instance overrides hash the same, the picture is the
// same, and nothing is unsaved. Another stroke on the opened world is warned about on exit.
TEST_F(EditLayersTest, SavedPaintRoundTripsThroughTheWorldFile) {
  const std::string file = (dir_ / "paint.terrane").string();
  const std::string strokes =
      " --brush kind=paint,x=0,z=130,radius=30,layer=snow,strength=1 --brush "
      "kind=fell,x=0,z=45,radius=10";
  const Shot saved = render(kScene + strokes + " --world " + file + " --save");
  ASSERT_EQ(saved.rc, 0) << saved.log;
  EXPECT_NE(saved.log.find("saved commit #1 to " + file), std::string::npos) << saved.log;
  const nlohmann::json& e = saved.stats["edits"];
  EXPECT_FALSE(e.value("unsaved", true));
  EXPECT_GT(e.value("paint_tiles", 0), 0) << e.dump();
  EXPECT_GT(e.value("instances_removed", 0), 0) << e.dump();
  {
    terrane::WorldStore store = terrane::WorldStore::open(file);
    ASSERT_NE(store.paint(), nullptr);
    EXPECT_EQ(store.paint()->content_hash(), e.value("paint_hash", std::uint64_t(0)));
    EXPECT_EQ(store.instance_edits().content_hash(), e.value("instance_hash", std::uint64_t(0)));
    EXPECT_EQ(store.paint()->painted_vertices(), e.value("painted_vertices", std::size_t(0)));
    EXPECT_EQ(store.log(10).size(), 1u) << "one commit for both layers";
  }
  const Shot opened = render(file + kView);
  ASSERT_EQ(opened.rc, 0) << opened.log;
  const nlohmann::json& o = opened.stats["edits"];
  EXPECT_EQ(o.value("paint_hash", std::uint64_t(0)), e.value("paint_hash", std::uint64_t(1)));
  EXPECT_EQ(o.value("instance_hash", std::uint64_t(0)), e.value("instance_hash", std::uint64_t(1)));
  EXPECT_EQ(o.value("undo_steps", -1), 0) << "stored edits are not undo steps";
  EXPECT_FALSE(o.value("unsaved", true));
  EXPECT_EQ(differing_pixels(saved, opened), 0u) << "the opened world is not the saved one";
  EXPECT_GT(white(opened, 0.42, 0.58, 0.4, 0.65), 1000u);

  const Shot more = render(file + kView + " --brush kind=unpaint,x=0,z=130,radius=10");
  ASSERT_EQ(more.rc, 0) << more.log;
  EXPECT_TRUE(more.stats["edits"].value("unsaved", false));
  EXPECT_NE(more.log.find("warning: the edits of 1 strokes"), std::string::npos) << more.log;
  EXPECT_NE(more.log.find("paint tiles) are not saved to " + file), std::string::npos) << more.log;
}

// One history across the layers, in the order the strokes were made: undoing two of three
// strokes (a hill, a paint stroke, a fell) takes the fell and the paint back and leaves the hill.
TEST_F(EditLayersTest, UndoFollowsTheOrderOfStrokesAcrossLayers) {
  const std::string strokes =
      " --brush kind=raise,x=0,z=130,radius=30,strength=10 --brush "
      "kind=paint,x=0,z=130,radius=30,layer=snow --brush kind=fell,x=0,z=45,radius=25";
  const Shot all = render(kScatterScene + strokes);
  ASSERT_EQ(all.rc, 0) << all.log;
  const Shot two = render(kScatterScene + strokes + " --undo 2");
  ASSERT_EQ(two.rc, 0) << two.log;
  const Shot hill = render(kScatterScene + " --brush kind=raise,x=0,z=130,radius=30,strength=10");
  ASSERT_EQ(hill.rc, 0) << hill.log;
  const nlohmann::json &a = all.stats["edits"], &t = two.stats["edits"];
  EXPECT_EQ(a.value("undo_steps", 0), 3) << a.dump();
  EXPECT_GT(a.value("paint_tiles", 0), 0);
  EXPECT_GT(a.value("instances_removed", 0), 0);
  EXPECT_EQ(t.value("undo_steps", 0), 1) << t.dump();
  EXPECT_EQ(t.value("redo_steps", 0), 2) << t.dump();
  EXPECT_GT(t.value("tiles", 0), 0) << "the hill was undone";
  EXPECT_EQ(t.value("paint_tiles", -1), 0);
  EXPECT_EQ(t.value("instances_removed", -1), 0);
  EXPECT_EQ(differing_pixels(hill, two), 0u) << "the picture is not the hill's alone";
}

// The window, driven by xdotool (skipped where it is not installed): started on the paint layer
// (the last --brush is a paint stroke, so the panel's layer and splat layer are its), B and a
// left drag paint snow under the cursor, Ctrl+S saves both; Ctrl+Z undoes the drag, Ctrl+S
// again: the file's paint is then the --brush stroke's alone.
TEST_F(EditLayersTest, WindowDragPaintsTheChosenLayer) {
  if (std::system("command -v xdotool > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xdotool is not installed";
  }
  const std::string file = (dir_ / "drag.terrane").string();
  const std::string stroke = " --brush kind=paint,x=0,z=130,radius=20,layer=snow,strength=1";
  const std::string body =
      std::string(TERRANE_VIEW_PATH) + " default --set world.cell_size_m=1 --world " + file +
      " --size 800x450 --camera 0,448,0 --look 0,-25 --hide scatter --frames 100000" + stroke +
      " --trace-input & pid=$!\n"
      "xdotool search --sync --onlyvisible --name terrane windowfocus\n"
      "await 'input: first frame'\n"
      "xdotool mousemove 620 280; await 'input: cursor 620,280'\n"
      "await 'input: ground under the cursor'\n"
      "xdotool mousedown 1; await 'input: drag begun'\n"
      "xdotool mousemove 660 300; await 'input: cursor 660,300'\n"
      "xdotool mouseup 1; await 'input: drag ended'\n"
      "xdotool key ctrl+s; await 'saved commit #1'\n"
      "xdotool key ctrl+z; await 'input: undo'\n"
      "xdotool key ctrl+s; await 'saved commit #2'\n"
      "xdotool key Escape; wait $pid";
  std::string text;
  ASSERT_EQ(drive_window(body, dir_ / "window_log.txt", text), 0) << text;
  EXPECT_NE(text.find("saved commit #1 to " + file), std::string::npos) << text;
  EXPECT_NE(text.find("saved commit #2 to " + file), std::string::npos) << text;
  // The drag painted: undone, the second commit writes or deletes the tiles it changed.
  EXPECT_EQ(text.find("saved commit #2 to " + file + ": 0 chunks written, 0 deleted"),
            std::string::npos)
      << "the drag painted nothing\n"
      << text;
  EXPECT_EQ(text.find("warning:"), std::string::npos) << text;
  const Shot alone = render(kScene + stroke);
  ASSERT_EQ(alone.rc, 0) << alone.log;
  terrane::WorldStore store = terrane::WorldStore::open(file);
  ASSERT_NE(store.paint(), nullptr);
  EXPECT_EQ(store.paint()->content_hash(),
            alone.stats["edits"].value("paint_hash", std::uint64_t(0)))
      << "Ctrl+Z did not undo the drag's paint";
  EXPECT_EQ(store.log(10).size(), 2u);
}

TEST_F(EditLayersTest, BadLayerSpecsAreNamed) {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"--brush kind=dig,x=0,z=0",
       "--brush 'kind=dig,x=0,z=0': x, y and z (the centre [m]) "
       "are required"},
      {"--brush kind=fill,x=0,y=0,z=0,block=marble --blocks",
       "block = 'marble' is not a block of the preset's palette (air, stone"},
      {"--brush kind=dig,x=0,y=0,z=0,block=stone", "unknown key 'block' for kind=dig"},
      {"--brush kind=dig,x=0,y=0,z=0,radius=500 --blocks", "radius"},
      {"--brush kind=plant,x=0,z=0", "species=NAME (the preset's species to plant) is required"},
      {"--brush kind=plant,x=0,z=0,species=oak",
       "species = 'oak' is not a species of the preset (tree, bush, boulder)"},
      {"--brush kind=fell,x=0,z=0,regrow=-1", "regrow = -1 must be in [0, 1e12] s"},
      {"--brush kind=fell,x=0,z=0,radius=0", "radius = 0.000000 m is outside (0, 1e4] m"},
      {"--brush kind=fell,x=0,z=0,species=tree", "unknown key 'species' for kind=fell"},
      {"--brush kind=paint,x=0,z=0", "layer=NAME (the preset's splat layer to paint) is required"},
      {"--brush kind=paint,x=0,z=0,layer=lava",
       "layer = 'lava' is not a splat layer of the preset (seabed, sand, grass"},
      {"--brush kind=paint,x=0,z=0,layer=snow,strength=2", "strength"},
      {"--brush kind=unpaint,x=0,z=0,layer=snow", "unknown key 'layer' for kind=unpaint"},
      {"--brush kind=fel,x=0,z=0",
       "kind = 'fel' must be raise, lower, smooth, flatten or noise "
       "(heights), dig, fill or restore (blocks), fell, plant or "
       "regrow (instances), paint or unpaint (splat paint)"},
  };
  for (const Case& c : cases) {
    const Shot s = render(std::string("default --size 64x64 ") + c.args);
    EXPECT_EQ(s.rc, 1) << c.args << "\n" << s.log;
    EXPECT_NE(s.log.find(c.message), std::string::npos) << c.args << "\n" << s.log;
  }
}

}  // namespace
