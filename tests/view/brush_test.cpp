// terrane-view's brush tool (issue 16), offscreen: --brush strokes change the picture where the
// hill they raise stands and nowhere else, an undone stroke gives the base picture back to the
// byte, a stroke after the view is loaded (regenerated resident chunks, `updated` events) gives
// the picture of a stroke made before it, the preview circle is drawn under --brush-cursor, a
// pit dug on land fills with a lake, world files keep the edits, bad input is named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "view/view_support.hpp"

namespace {

using namespace terrane_view_test;

// default at 1 m cells (its 30 m lattice would give a brush of tens of metres a handful of
// vertices), the camera 60 m above the ground at the origin (388 m), looking along +Z 25 degrees
// down: the view's centre meets the ground about 130 m ahead.
const std::string kScene =
    "default --set world.cell_size_m=1 --size 480x270 --camera 0,448,0 --look 0,-25";
// A hill 40 m high and 40 m in radius (flat top within 20 m) straight ahead, on the camera's
// x = 0: it stands in the middle columns of the picture.
const std::string kHill = " --brush kind=raise,x=0,z=130,radius=40,strength=40";

class BrushTest : public ViewTest {};

TEST_F(BrushTest, RaisedHillChangesThePictureWhereItStandsAndUndoGivesTheBaseBack) {
  const Shot base = render(kScene);
  ASSERT_EQ(base.rc, 0) << base.log;
  const Shot hill = render(kScene + kHill);
  ASSERT_EQ(hill.rc, 0) << hill.log;
  const Shot undone = render(kScene + kHill + " --undo 1");
  ASSERT_EQ(undone.rc, 0) << undone.log;
  EXPECT_EQ(base.stats["edits"].value("tiles", -1), 0);
  const nlohmann::json& e = hill.stats["edits"];
  EXPECT_EQ(e.value("strokes", 0), 1) << e.dump();
  EXPECT_EQ(e.value("undo_steps", 0), 1) << e.dump();
  EXPECT_GT(e.value("tiles", 0), 0) << e.dump();
  EXPECT_FLOAT_EQ(e.value("delta_hi_m", 0.0f), 40.0f) << e.dump();
  EXPECT_EQ(hill.stats.value("gl_errors", -1), 0);

  // The hill spans about +-16 degrees of the +-46 degree horizontal field around the centre,
  // from a little below the picture's middle to its top third (its top is 40 m up, 130 m on).
  EXPECT_GT(changed(base, hill, 0.42, 0.58, 0.35, 0.6), 0.8) << "no hill in front of the camera";
  EXPECT_LT(changed(base, hill, 0.0, 0.15, 0.0, 1.0), 0.01) << "the left edge changed";
  EXPECT_LT(changed(base, hill, 0.85, 1.0, 0.0, 1.0), 0.01) << "the right edge changed";
  EXPECT_LT(changed(base, hill, 0.0, 1.0, 0.0, 0.12), 0.001) << "the sky changed";
  // Undo: the deltas are the bits from before the stroke, so every chunk, the water and the
  // picture are the base's.
  EXPECT_EQ(undone.stats["edits"].value("undo_steps", -1), 0);
  EXPECT_EQ(undone.stats["edits"].value("redo_steps", -1), 1);
  EXPECT_EQ(undone.stats["edits"].value("tiles", -1), 0);
  EXPECT_EQ(differing_pixels(base, undone), 0u) << "undo did not give the base picture back";
}

// After --preload the stroke meets resident chunks: the streamer regenerates those it touches
// (all levels, swapped in together, `updated` events) and the renderer uploads them again. The
// picture is the one of the same stroke made before anything was loaded.
TEST_F(BrushTest, StrokeOnALoadedViewRegeneratesTheChunksItTouches) {
  const Shot before = render(kScene + kHill);
  ASSERT_EQ(before.rc, 0) << before.log;
  const Shot after = render(kScene + kHill + " --preload");
  ASSERT_EQ(after.rc, 0) << after.log;
  EXPECT_EQ(before.stats["edits"].value("chunks_updated", -1), 0);
  EXPECT_GT(after.stats["edits"].value("chunks_updated", 0), 0) << after.stats.dump();
  EXPECT_TRUE(after.stats.value("view_complete", false));
  EXPECT_EQ(differing_pixels(before, after), 0u)
      << "the regenerated chunks differ from chunks generated with the edits";
  // And undone on the loaded view: the base again.
  const Shot base = render(kScene);
  ASSERT_EQ(base.rc, 0) << base.log;
  const Shot undone = render(kScene + kHill + " --undo 1 --preload");
  ASSERT_EQ(undone.rc, 0) << undone.log;
  EXPECT_EQ(differing_pixels(base, undone), 0u);
}

// --nav on a loaded view: the stroke rebuilds the navmesh tiles it reaches in place
// (EditedNavTerrain::set_edits + NavWorld::invalidate), and the overlay then shows the navmesh of
// the edited ground, as a navmesh built on it from the start does: none on the hill's walls,
// some on its top. (Translucent tiles blend in the order of a hash map, so the two pictures are
// compared with a tolerance.)
TEST_F(BrushTest, NavmeshIsRebuiltOnTheEditedGround) {
  const std::string args = kScene + " --hide scatter --nav --nav-radius 200";
  const Shot plain = render(args + " --preload");
  ASSERT_EQ(plain.rc, 0) << plain.log;
  const Shot fresh = render(args + kHill);
  ASSERT_EQ(fresh.rc, 0) << fresh.log;
  const Shot rebuilt = render(args + kHill + " --preload");
  ASSERT_EQ(rebuilt.rc, 0) << rebuilt.log;
  const nlohmann::json &p = plain.stats["nav"], &f = fresh.stats["nav"], &r = rebuilt.stats["nav"];
  EXPECT_TRUE(r.value("complete", false)) << r.dump();
  EXPECT_EQ(f.value("built", 0), p.value("built", -1)) << "the same tiles, built once";
  EXPECT_GT(r.value("built", 0), p.value("built", 0)) << "no tile rebuilt after the stroke";
  EXPECT_EQ(r.value("tiles_loaded", 0), f.value("tiles_loaded", -1));
  // Around the hill (without the rebuild: 5.5% of this box and 1.2% of the picture differ,
  // where the old navmesh's tiles stay in the ground and none lies on the top).
  EXPECT_LT(changed(fresh, rebuilt, 0.3, 0.7, 0.2, 0.7), 0.02)
      << "the rebuilt navmesh is not the one of the edited ground";
  EXPECT_LT(changed(fresh, rebuilt, 0.0, 1.0, 0.0, 1.0), 0.005);
  EXPECT_GT(changed(plain, rebuilt, 0.42, 0.58, 0.35, 0.6), 0.8);
}

// --brush-cursor: the brush preview under a pixel, as the window draws it in brush mode: the
// ground under the pixel (the terrain ray-cast on the edited surface) and an orange circle
// around it (raise), drawn only there.
TEST_F(BrushTest, PreviewCircleIsDrawnAroundTheGroundUnderTheCursor) {
  const std::string args = kScene + " --hide scatter";
  const Shot plain = render(args);
  ASSERT_EQ(plain.rc, 0) << plain.log;
  const Shot cursor = render(args + " --brush-cursor 240,200");
  ASSERT_EQ(cursor.rc, 0) << cursor.log;
  ASSERT_TRUE(cursor.stats.contains("brush_cursor")) << cursor.stats.dump();
  const nlohmann::json& c = cursor.stats["brush_cursor"];
  ASSERT_TRUE(c.value("hit", false)) << c.dump();
  // On the camera's x, a little nearer than the view's centre, on the ground.
  const double x = c["at"][0], y = c["at"][1], z = c["at"][2];
  EXPECT_NEAR(x, 0.0, 1.0);
  EXPECT_GT(z, 60.0);
  EXPECT_LT(z, 130.0);
  EXPECT_GT(y, 340.0);
  EXPECT_LT(y, 440.0);
  // The raise brush's orange (255, 165, 30): neither the grass, the sky nor the water has it.
  auto orange = [](const Shot& s, int& x0, int& x1, int& y0, int& y1) {
    std::size_t n = 0;
    x0 = y0 = 1 << 30, x1 = y1 = -1;
    for (int py = 0; py < s.height; ++py) {
      for (int px = 0; px < s.width; ++px) {
        const unsigned char* p = s.at(px, py);
        if (p[0] >= 220 && p[1] >= 120 && p[1] <= 200 && p[2] <= 90) {
          ++n;
          x0 = std::min(x0, px), x1 = std::max(x1, px), y0 = std::min(y0, py),
          y1 = std::max(y1, py);
        }
      }
    }
    return n;
  };
  int x0, x1, y0, y1;
  EXPECT_EQ(orange(plain, x0, x1, y0, y1), 0u);
  EXPECT_GT(orange(cursor, x0, x1, y0, y1), 300u) << "no preview circle";
  // The circle (20 m radius, the default brush) is around the cursor: its box holds the pixel
  // and is about symmetric left and right of it.
  EXPECT_LT(x0, 240);
  EXPECT_GT(x1, 240);
  EXPECT_LT(y0, 200);
  EXPECT_GT(y1, 200);
  EXPECT_LT(std::abs((x0 + x1) / 2 - 240), 6) << x0 << ".." << x1;
  // Nothing else changed: the sky and the picture's edges.
  EXPECT_LT(changed(plain, cursor, 0.0, 1.0, 0.0, 0.12), 0.001);
  EXPECT_LT(changed(plain, cursor, 0.0, 0.15, 0.0, 1.0), 0.001);
}

// Water reads the edits: a pit 12 m deep dug on land (its rim above the ground around) is a
// depression that the hydrology floods: one more lake, about as wide as the pit.
TEST_F(BrushTest, PitDugOnLandFillsWithALake) {
  const Shot base = render(kScene);
  ASSERT_EQ(base.rc, 0) << base.log;
  const Shot pit = render(kScene + " --brush kind=lower,x=0,z=130,radius=30,strength=12");
  ASSERT_EQ(pit.rc, 0) << pit.log;
  EXPECT_EQ(pit.stats.value("lakes", 0), base.stats.value("lakes", 0) + 1);
  // The floor (15 m across at full depth) and part of the slopes are under water.
  const int cells = pit.stats.value("lake_cells", 0) - base.stats.value("lake_cells", 0);
  EXPECT_GT(cells, 700) << "no lake in the pit";
  EXPECT_LT(cells, 3000) << "more water than the pit holds";
  // Seen from above, the middle of the picture turns blue.
  auto blue = [](const Shot& s) {
    std::size_t n = 0;
    for (int y = int(0.4 * s.height); y < int(0.7 * s.height); ++y) {
      for (int x = int(0.4 * s.width); x < int(0.6 * s.width); ++x) {
        const unsigned char* p = s.at(x, y);
        n += p[2] > p[0] + 25 && p[2] > p[1] + 5;
      }
    }
    return n;
  };
  EXPECT_GT(blue(pit), blue(base) + 500) << "the lake is not drawn";
}

// --world FILE creates a world file for the preset; --save commits the strokes into it; the file
// given as the preset opens its preset (with its --set) and its edits: the same picture.
// Strokes on an opened world are a new commit; unsaved ones are warned about on exit.
TEST_F(BrushTest, WorldFileKeepsTheEdits) {
  const std::string file = (dir_ / "hill.terrane").string();
  const std::string view = " --size 480x270 --camera 0,448,0 --look 0,-25";
  const Shot saved = render(kScene + kHill + " --world " + file + " --save");
  ASSERT_EQ(saved.rc, 0) << saved.log;
  EXPECT_NE(saved.log.find("created " + file + " for preset 'default'"), std::string::npos)
      << saved.log;
  EXPECT_NE(saved.log.find("saved commit #1 to " + file), std::string::npos) << saved.log;
  EXPECT_FALSE(saved.stats["edits"].value("unsaved", true));
  const Shot opened = render(file + view);
  ASSERT_EQ(opened.rc, 0) << opened.log;
  const nlohmann::json& e = opened.stats["edits"];
  EXPECT_EQ(e.value("world_file", std::string()), file);
  EXPECT_EQ(e.value("tiles", 0), saved.stats["edits"].value("tiles", -1)) << e.dump();
  EXPECT_FLOAT_EQ(e.value("delta_hi_m", 0.0f), 40.0f);
  EXPECT_EQ(e.value("undo_steps", -1), 0) << "stored edits are not undo steps";
  EXPECT_FALSE(e.value("unsaved", true));
  EXPECT_EQ(differing_pixels(saved, opened), 0u) << "the opened world is not the saved one";

  // Another stroke on the opened world, saved: commit 2; one more, not saved: a warning.
  const std::string pit = " --brush kind=lower,x=60,z=200,radius=20,strength=5";
  const Shot second = render(file + view + pit + " --save");
  ASSERT_EQ(second.rc, 0) << second.log;
  EXPECT_NE(second.log.find("saved commit #2 to " + file), std::string::npos) << second.log;
  const Shot third = render(file + view + pit);
  ASSERT_EQ(third.rc, 0) << third.log;
  EXPECT_TRUE(third.stats["edits"].value("unsaved", false));
  EXPECT_NE(third.log.find("warning: the edits of 1 strokes"), std::string::npos) << third.log;
  EXPECT_NE(third.log.find("are not saved to " + file), std::string::npos) << third.log;
  EXPECT_FLOAT_EQ(third.stats["edits"].value("delta_lo_m", 0.0f), -10.0f) << "2 pits, 5 m each";

  // The world's preset is stored with its edits: another preset, --set or a second file refused.
  const Shot other = render("alpine --size 64x64 --world " + file);
  EXPECT_EQ(other.rc, 1) << other.log;
  EXPECT_NE(other.log.find("holds preset 'default'"), std::string::npos) << other.log;
  const Shot set = render(file + " --size 64x64 --set world.cell_size_m=2");
  EXPECT_EQ(set.rc, 1) << set.log;
  EXPECT_NE(set.log.find("is a world file: its preset and seed are stored"), std::string::npos)
      << set.log;
  const fs::path text = dir_ / "notes.txt";
  std::ofstream(text) << "not a world\n";
  const Shot not_world = render("default --size 64x64 --world " + text.string());
  EXPECT_EQ(not_world.rc, 1) << not_world.log;
  EXPECT_NE(not_world.log.find("exists and is not a world file"), std::string::npos)
      << not_world.log;
}

// The window, driven by xdotool (skipped where it is not installed): B, a left drag, a click on
// a line of text of the panel right after moving onto it (the panel's, not a stroke: ImGui
// learns where the mouse is a frame late), Ctrl+S; Ctrl+Z undoes the whole drag (the second
// commit deletes every chunk the first wrote), Ctrl+Y and Ctrl+Z again leave nothing unsaved,
// so Esc closes without a warning. Each step waits for the window's trace of the one before.
TEST_F(BrushTest, WindowDragIsOneUndoStep) {
  if (std::system("command -v xdotool > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xdotool is not installed";
  }
  const std::string file = (dir_ / "drag.terrane").string();
  const std::string body =
      std::string(TERRANE_VIEW_PATH) + " default --set world.cell_size_m=1 --world " + file +
      " --size 800x450 --camera 0,448,0 --look 0,-25 --hide scatter --frames 100000"
      " --trace-input & pid=$!\n"
      "xdotool search --sync --onlyvisible --name terrane windowfocus\n"
      "await 'input: first frame'\n"
      "xdotool mousemove 620 280; await 'input: cursor 620,280'\n"
      "xdotool key b; await 'input: brush on'; await 'input: ground under the cursor'\n"
      "xdotool mousedown 1; await 'input: drag begun'\n"
      "xdotool mousemove 660 290; await 'input: cursor 660,290'\n"
      "xdotool mouseup 1; await 'input: drag ended'\n"
      "xdotool mousemove 250 290; await 'input: cursor 250,290'\n"
      "xdotool click 1; await 'input: click on the panel'\n"
      // Two more frames (a cursor line each): ImGui holds the click's press for a frame, and
      // while it holds it (moving the panel) it takes the keyboard, so Ctrl+S would be its.
      "xdotool mousemove 251 290; await 'input: cursor 251,290'\n"
      "xdotool mousemove 252 290; await 'input: cursor 252,290'\n"
      "xdotool key ctrl+s; await 'saved commit #1'\n"
      "xdotool key ctrl+z; await 'input: undo'\n"
      "xdotool key ctrl+s; await 'saved commit #2'\n"
      "xdotool key ctrl+y; await 'input: redo'\n"
      "xdotool key ctrl+z; await 'input: undo' 2\n"
      "xdotool key Escape; wait $pid";
  std::string text;
  ASSERT_EQ(drive_window(body, dir_ / "log.txt", text), 0) << text;
  EXPECT_EQ(text.find("click with no ground"), std::string::npos) << text;
  EXPECT_NE(text.find("input: drag ended after "), std::string::npos) << text;
  EXPECT_EQ(text.find("input: drag ended after 0 strokes"), std::string::npos) << text;
  EXPECT_EQ(text.find("input: drag begun", text.find("input: drag ended")), std::string::npos)
      << "the click on the panel began a drag\n"
      << text;
  const std::size_t first = text.find("saved commit #1 to " + file + ": ");
  ASSERT_NE(first, std::string::npos) << text;
  const int written = std::atoi(text.c_str() + first + 21 + file.size());
  EXPECT_GT(written, 0) << text;
  EXPECT_NE(text.find("saved commit #2 to " + file + ": 0 chunks written, " +
                      std::to_string(written) + " deleted"),
            std::string::npos)
      << "Ctrl+Z did not undo the whole drag\n"
      << text;
  EXPECT_EQ(text.find("warning:"), std::string::npos) << text;
}

TEST_F(BrushTest, BadBrushOptionsAreNamed) {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"--brush kind=raise,x=0", "--brush 'kind=raise,x=0': x and z (the centre [m]) are required"},
      {"--brush kind=dug,x=0,z=0", "kind = 'dug' must be raise, lower, smooth, flatten or noise"},
      {"--brush x=0,z=0,size=3", "unknown key 'size' for kind=raise"},
      {"--brush x=0,z=0,radius=abc", "radius = 'abc' is not a finite number"},
      {"--brush x=0,z=0,radius=0", "radius"},
      {"--brush x=0,z=0,repeat=0", "repeat = 0 must be an integer in 1..1000"},
      {"--brush x=0,z=0 --undo 2", "--undo 2: there are only 1 --brush steps to undo"},
      {"--save", "--save needs a world file"},
  };
  for (const Case& c : cases) {
    const Shot s = render(std::string("default --size 64x64 ") + c.args);
    EXPECT_EQ(s.rc, 1) << c.args << "\n" << s.log;
    EXPECT_NE(s.log.find(c.message), std::string::npos) << c.args << "\n" << s.log;
  }
}

}  // namespace
