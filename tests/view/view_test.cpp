// terrane-view offscreen: renders checked by statistics that hold on any conforming OpenGL
// implementation (issue 13): no crack shows the key colour below the terrain's silhouette,
// for cameras near and far from the origin and during a fast flight; the sky is above the
// ground; bad input fails with a clear message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "terrane/edit.hpp"
#include "terrane/preset.hpp"
#include "terrane/store.hpp"
#include "view/view_support.hpp"

namespace {

using namespace terrane_view_test;

bool is_key(const unsigned char* p) {
  return p[0] >= 250 && p[1] <= 5 && p[2] >= 250;
}

struct KeyReport {
  std::size_t below_silhouette = 0;  // key pixels under the topmost terrain pixel of their column
  double terrain_share = 0.0;
};

KeyReport key_report(const Shot& s) {
  KeyReport r;
  std::size_t terrain = 0;
  for (int x = 0; x < s.width; ++x) {
    bool below = false;
    for (int y = 0; y < s.height; ++y) {
      const bool key = is_key(s.at(x, y));
      if (!key) {
        below = true;
        ++terrain;
      } else if (below) {
        ++r.below_silhouette;
      }
    }
  }
  r.terrain_share = double(terrain) / (double(s.width) * s.height);
  return r;
}

void expect_no_cracks(const Shot& s, const std::string& what) {
  ASSERT_EQ(s.rc, 0) << what << "\n" << s.log;
  ASSERT_GT(s.width, 0) << what;
  const KeyReport r = key_report(s);
  EXPECT_EQ(r.below_silhouette, 0u) << what << ": key-colour pixels below the silhouette";
  EXPECT_GT(r.terrain_share, 0.3) << what << ": too little terrain in the picture to judge";
  EXPECT_GT(s.stats.value("chunks_drawn", 0), 8) << what;
}

TEST_F(ViewTest, NoCrackPixelsAcrossLodBordersNearTheOrigin) {
  for (const char* look : {"30,-14", "150,-10", "260,-18"}) {
    const Shot s = render(std::string("default --size 640x360 --cells 16 --view 6000 --key-colour "
                                      "--camera 0,0,0 --above-ground 80 --look ") +
                          look);
    expect_no_cracks(s, std::string("default, look ") + look);
  }
}

TEST_F(ViewTest, NoCrackPixelsWithManyLevelsInView) {
  const Shot s = render(
      "canyons --size 640x360 --cells 16 --view 20000 --key-colour "
      "--camera 5000,0,-3000 --above-ground 300 --look 120,-9");
  expect_no_cracks(s, "canyons, 20 km view");
  EXPECT_GT(s.stats.value("visible", 0), 40);
}

TEST_F(ViewTest, NoCrackPixelsAHundredMillionMetresOut) {
  const Shot s = render(
      "alpine --size 640x360 --cells 16 --view 6000 --key-colour "
      "--camera 100000000,0,100000000 --above-ground 150 --look 200,-12");
  expect_no_cracks(s, "alpine at 1e8 m");
}

// Camera-relative positions keep full precision far out: a camera 1e8 m from the origin moved
// sideways in steps of 0.5 m changes the picture at every step, by about as much each time.
// With world positions in float (6 m apart at 1e8) most steps would change nothing and one
// would jump.
TEST_F(ViewTest, CameraMovesSmoothlyAHundredMillionMetresOut) {
  std::vector<Shot> shots;
  for (const char* x : {"100000000", "100000000.5", "100000001", "100000001.5"}) {
    shots.push_back(render(std::string("alpine --size 320x180 --cells 16 --view 3000 --key-colour "
                                       "--camera ") +
                           x + ",2600,100000000 --look 0,-20"));
    ASSERT_EQ(shots.back().rc, 0) << shots.back().log;
  }
  std::vector<std::size_t> changed;
  for (std::size_t k = 1; k < shots.size(); ++k) {
    std::size_t n = 0;
    for (std::size_t b = 0; b < shots[k].rgb.size(); b += 3) {
      n += std::memcmp(&shots[k].rgb[b], &shots[k - 1].rgb[b], 3) != 0;
    }
    changed.push_back(n);
  }
  const auto [lo, hi] = std::minmax_element(changed.begin(), changed.end());
  EXPECT_GT(*lo, 100u) << "a 0.5 m step changed (almost) nothing";
  EXPECT_LT(*hi, 4 * *lo) << "the steps changed the picture unevenly: " << changed[0] << ", "
                          << changed[1] << ", " << changed[2];
}

TEST_F(ViewTest, NoCrackPixelsDuringAFastFlight) {
  // 2 s (60 frames in real time) at 5 km/s from a loaded view, photographed while chunks are
  // still loading.
  const Shot s = render(
      "default --size 640x360 --cells 16 --view 6000 --key-colour "
      "--camera 0,1700,0 --look 53,-16 --velocity 4000,0,3000 --frames 60 "
      "--preload --no-drain");
  expect_no_cracks(s, "fast flight");
  EXPECT_EQ(s.stats.value("frames", 0), 60);
}

TEST_F(ViewTest, SkyAboveGroundBelow) {
  const Shot s = render("default --size 640x360 --camera 0,0,0 --above-ground 120 --look 30,-6");
  ASSERT_EQ(s.rc, 0) << s.log;
  auto mean = [&](int y0, int y1) {
    double c[3] = {0, 0, 0};
    for (int y = y0; y < y1; ++y) {
      for (int x = 0; x < s.width; ++x) {
        for (int k = 0; k < 3; ++k) c[k] += s.at(x, y)[k];
      }
    }
    const double n = double(y1 - y0) * s.width;
    return std::array<double, 3>{c[0] / n, c[1] / n, c[2] / n};
  };
  const auto sky = mean(0, s.height / 8);
  const auto ground = mean(s.height * 3 / 4, s.height);
  EXPECT_GT(sky[2], sky[0] + 30.0) << "the top of the picture is not sky blue";
  EXPECT_GT(ground[1], ground[2] + 10.0) << "the bottom of the picture is not vegetated ground";
  EXPECT_TRUE(s.stats.value("view_complete", false));
  EXPECT_GT(s.stats.value("instances", 0), 0) << "no scatter instances drawn near the camera";
}

// Lakes and rivers come from the library's hydrology of the region around the camera: the same
// view with and without the water layer differs by water-coloured pixels (blue above red and
// green) in the lower half.
TEST_F(ViewTest, LakesAndRiversAroundTheCamera) {
  const std::string args = "alpine --size 480x270 --look 35,-22 --hide scatter";
  const Shot with = render(args);
  ASSERT_EQ(with.rc, 0) << with.log;
  const Shot without = render(args + ",water");
  ASSERT_EQ(without.rc, 0) << without.log;
  EXPECT_GT(with.stats.value("lakes", 0), 0);
  EXPECT_GT(with.stats.value("lake_cells", 0), 100);
  EXPECT_GT(with.stats.value("river_cells", 0), 10);
  auto watery = [](const Shot& s) {
    std::size_t n = 0;
    for (int y = s.height / 2; y < s.height; ++y) {
      for (int x = 0; x < s.width; ++x) {
        const unsigned char* p = s.at(x, y);
        n += p[2] > p[0] + 25 && p[2] > p[1] + 5;
      }
    }
    return n;
  };
  EXPECT_GT(watery(with), watery(without) + std::size_t(with.width) * 10)
      << "no more water in the picture with the water layer than without";
}

// A live edit of a graph parameter and the seed (the panel's path, scripted): the world is
// rebuilt with both overrides and its first view arrives (docs/PERFORMANCE.md has the time).
TEST_F(ViewTest, LiveEditRebuildsTheWorld) {
  const fs::path png = dir_ / "edit.png", log = dir_ / "log.txt";
  const std::string cmd = xvfb_run() + TERRANE_VIEW_PATH +
                          " default --size 640x360 --hide scatter --frames 200 --edit-at-frame 20"
                          " --edit graph.nodes.hills.frequency=0.0002 --edit seed=7 --screenshot " +
                          png.string() + " > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  const std::string text = read_text(log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
  EXPECT_NE(text.find("loaded default (2 overrides)"), std::string::npos) << text;
  EXPECT_NE(text.find("view of the new world after"), std::string::npos) << text;
}

// --watch: a preset file edited into an invalid state shows the error (panel and stderr) and the
// last valid world keeps rendering; fixing the file loads it again.
TEST_F(ViewTest, PresetEditedIntoAnInvalidStateKeepsTheLastWorld) {
  const fs::path preset = dir_ / "watched.json";
  fs::copy_file(fs::path(TERRANE_SOURCE_DIR) / "presets" / "default.json", preset);
  const std::string valid = read_text(preset);
  const fs::path broken = dir_ / "broken.json", fixed = dir_ / "fixed.json";
  std::ofstream(broken) << "{\"name\": \"watched\", \"graph\": ";
  // Another seed: "seed": N becomes "seed": 9N.
  const std::size_t seed = valid.find("\"seed\": ");
  ASSERT_NE(seed, std::string::npos);
  std::ofstream(fixed) << valid.substr(0, seed + 8) << '9' << valid.substr(seed + 8);
  const fs::path png = dir_ / "watch.png", log = dir_ / "log.txt";
  // Interactive mode (the panel), 420 frames at up to 60 a second (7 s or more). The file breaks
  // once the viewer says it is watching it, and is fixed once the viewer has said that the last
  // valid world keeps rendering: each step waits for the one before (up to 60 s), not for a
  // fixed time, which a slow machine or a sanitizer build overran (the broken file came and went
  // between two of the viewer's looks at it).
  const auto wait_for = [&](const std::string& what) {
    return "for i in $(seq 600); do grep -q \"" + what + "\" " + log.string() +
           " && break; sleep 0.1; done; ";
  };
  const std::string script = std::string(TERRANE_VIEW_PATH) + " " + preset.string() +
                             " --watch --size 800x450 --hide scatter --frames 420 --screenshot " +
                             png.string() + " & pid=$!; " + wait_for("terrane-view: watching") +
                             "cp " + broken.string() + " " + preset.string() + "; " +
                             wait_for("the last valid world keeps rendering") + "cp " +
                             fixed.string() + " " + preset.string() + "; wait $pid";
  const std::string cmd = xvfb_run() + "sh -c '" + script + "' > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  const std::string text = read_text(log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
  EXPECT_NE(text.find("(the last valid world keeps rendering)"), std::string::npos) << text;
  EXPECT_NE(text.find(preset.string()), std::string::npos) << text;
  EXPECT_NE(text.find("loaded " + preset.string()), std::string::npos) << text;
  // The world beside the panel: sky at the top, ground at the bottom.
  Shot s;
  read_png(png, s);
  ASSERT_GT(s.width, 20);
  const unsigned char* sky = s.at(s.width - 20, 10);
  const unsigned char* ground = s.at(s.width - 20, s.height - 10);
  EXPECT_GT(int(sky[2]), int(sky[0]) + 30) << "no sky beside the panel";
  EXPECT_GT(int(ground[1]), int(ground[2])) << "no ground beside the panel";
}

// --blocks: the preset's block world (its default voxel section) around the camera, drawn from
// the BlockStreamer's chunks once every wanted one is resident and on the GPU, and the height
// field beyond it. Against the same view without blocks the near field (the lower third)
// changes almost everywhere, the sky at the top does not, and the far terrain is still drawn.
TEST_F(ViewTest, BlockWorldNearTheCameraHeightFieldBeyond) {
  const std::string args =
      "default --size 480x270 --above-ground 20 --look 100,-16 --hide scatter --block-view 128";
  const Shot blocks = render(args + " --blocks");
  ASSERT_EQ(blocks.rc, 0) << blocks.log;
  const Shot plain = render(args);
  ASSERT_EQ(plain.rc, 0) << plain.log;
  EXPECT_EQ(blocks.stats.value("gl_errors", -1), 0) << blocks.log;
  ASSERT_TRUE(blocks.stats.contains("blocks")) << blocks.stats.dump();
  EXPECT_FALSE(plain.stats.contains("blocks"));
  const nlohmann::json& b = blocks.stats["blocks"];
  EXPECT_TRUE(b.value("view_complete", false)) << b.dump();
  EXPECT_EQ(b.value("holes", -1), 0) << b.dump();
  EXPECT_GT(b.value("resident", 0), 50) << b.dump();
  EXPECT_EQ(b.value("chunks_on_gpu", 0), b.value("resident", -1)) << b.dump();
  EXPECT_EQ(b.value("pending_uploads", -1), 0) << b.dump();
  EXPECT_GT(b.value("quads", 0), 10000) << b.dump();
  EXPECT_GT(b.value("quads_drawn", 0), 1000) << b.dump();
  EXPECT_GT(b.value("chunks_drawn", 0), 10) << b.dump();
  EXPECT_GT(b.value("gpu_bytes", 0), 8 * b.value("quads_drawn", 0)) << b.dump();
  EXPECT_GT(blocks.stats.value("chunks_drawn", 0), 8) << "the height field beyond is not drawn";
  // Share of the pixels of a box (fractions of the picture) that differ between the two.
  auto changed = [&](double x0, double x1, double y0, double y1) {
    const int w = blocks.width, h = blocks.height;
    std::size_t n = 0, all = 0;
    for (int y = int(y0 * h); y < int(y1 * h); ++y) {
      for (int x = int(x0 * w); x < int(x1 * w); ++x) {
        const unsigned char *p = blocks.at(x, y), *q = plain.at(x, y);
        n += std::abs(p[0] - q[0]) + std::abs(p[1] - q[1]) + std::abs(p[2] - q[2]) > 24;
        ++all;
      }
    }
    return double(n) / double(std::max<std::size_t>(all, 1));
  };
  EXPECT_GT(changed(0.0, 1.0, 0.67, 1.0), 0.5) << "the near field has no blocks";
  // Top right: sky, then the far hills (the height field, kilometres away) at the horizon.
  EXPECT_LT(changed(0.75, 1.0, 0.0, 0.1), 0.02) << "the sky changed";
  EXPECT_LT(changed(0.8, 1.0, 0.28, 0.36), 0.1) << "the far height field changed";
}

// Ambient occlusion, three ways: from each chunk's occupancy in the fragment shader (the
// default), baked into the quads, or none. Occupancy AO keeps the quads of no AO (faces merge
// by block type alone), while baked AO needs more (faces merge only with equal corners). Both
// darken the near field against no AO (inner corners), and they agree with each other: the
// same per-vertex values at every block corner, interpolated bilinearly in one and across the
// two triangles in the other.
TEST_F(ViewTest, BlockAmbientOcclusionDarkensInnerCorners) {
  const std::string args =
      "default --blocks --block-view 96 --size 480x270 --above-ground 6 --look 100,-12 "
      "--hide scatter";
  const Shot occupancy = render(args);
  ASSERT_EQ(occupancy.rc, 0) << occupancy.log;
  const Shot baked = render(args + " --block-ao baked");
  ASSERT_EQ(baked.rc, 0) << baked.log;
  const Shot flat = render(args + " --no-block-ao");
  ASSERT_EQ(flat.rc, 0) << flat.log;
  const auto quads = [](const Shot& s) { return s.stats["blocks"].value("quads", 0); };
  EXPECT_EQ(quads(occupancy), quads(flat));
  EXPECT_GT(quads(baked), quads(flat));
  auto brightness = [](const Shot& s) {
    double sum = 0.0;
    for (int y = s.height / 2; y < s.height; ++y) {
      for (int x = 0; x < s.width; ++x) sum += s.at(x, y)[0] + s.at(x, y)[1] + s.at(x, y)[2];
    }
    return sum / (double(s.height - s.height / 2) * s.width);
  };
  // Mean absolute difference per pixel (RGB summed) over the lower half.
  auto difference = [](const Shot& a, const Shot& b) {
    double sum = 0.0;
    for (int y = a.height / 2; y < a.height; ++y) {
      for (int x = 0; x < a.width; ++x) {
        for (int c = 0; c < 3; ++c) sum += std::abs(double(a.at(x, y)[c]) - double(b.at(x, y)[c]));
      }
    }
    return sum / (double(a.height - a.height / 2) * a.width);
  };
  const double b_occ = brightness(occupancy), b_baked = brightness(baked),
               b_flat = brightness(flat);
  EXPECT_LT(b_occ, b_flat - 2.0);
  EXPECT_LT(b_baked, b_flat - 2.0);
  EXPECT_LT(std::abs(b_occ - b_baked), 0.25 * (b_flat - b_baked));
  EXPECT_LT(difference(occupancy, baked), 0.5 * difference(flat, baked));
  std::printf(
      "AO brightness: occupancy %.2f, baked %.2f, none %.2f; |occupancy - baked| %.2f, "
      "|none - baked| %.2f per pixel\n",
      b_occ, b_baked, b_flat, difference(occupancy, baked), difference(flat, baked));
  EXPECT_EQ(occupancy.stats.value("gl_errors", -1), 0);
  EXPECT_EQ(baked.stats.value("gl_errors", -1), 0);
}

// A world file's block overrides in the block world: a stone sphere filled on the camera's axis
// turns the middle of the picture grey (its upper half: a tree stands in front of the lower), and
// nothing moves at the top of the sky.
TEST_F(ViewTest, BlockWorldShowsAWorldFilesBlockOverrides) {
  const fs::path world = dir_ / "w.world";
  {
    terrane::WorldStore w = terrane::WorldStore::create(world, terrane::load_preset("default"));
    terrane::BlockEdits blocks(w.block_edits());
    terrane::BlockBrush fill;
    fill.kind = terrane::BlockBrushKind::fill;
    fill.x_m = 64.0, fill.y_m = 394.0, fill.z_m = 54.0, fill.radius_m = 6.0;
    fill.block = 1;  // stone
    blocks.apply(fill);
    w.commit(terrane::WorldEdits{nullptr, blocks.snapshot()}, "a stone ball");
  }
  // 30 m from the camera along its axis (pitch -30 degrees).
  const std::string args =
      " --blocks --block-view 96 --size 480x270 --camera 64,409,28 --look 0,-30 --hide scatter";
  const Shot edited = render(world.string() + args);
  ASSERT_EQ(edited.rc, 0) << edited.log;
  const Shot plain = render("default" + args);
  ASSERT_EQ(plain.rc, 0) << plain.log;
  EXPECT_EQ(edited.stats.value("gl_errors", -1), 0) << edited.log;
  EXPECT_TRUE(edited.stats["blocks"].value("view_complete", false)) << edited.stats.dump();
  EXPECT_NE(edited.stats["blocks"].value("quads", 0), plain.stats["blocks"].value("quads", 0));
  // Share of grey pixels (channels within 24 of each other, not the sky) and of changed pixels
  // in a box of the picture (fractions of it).
  const auto share = [](const Shot& s, double x0, double x1, double y0, double y1, auto&& test) {
    std::size_t n = 0, all = 0;
    for (int y = int(y0 * s.height); y < int(y1 * s.height); ++y) {
      for (int x = int(x0 * s.width); x < int(x1 * s.width); ++x) {
        n += test(x, y) ? 1 : 0;
        ++all;
      }
    }
    return double(n) / double(std::max<std::size_t>(all, 1));
  };
  const auto grey = [](const Shot& s) {
    return [&s](int x, int y) {
      const unsigned char* p = s.at(x, y);
      const int hi = std::max({p[0], p[1], p[2]}), lo = std::min({p[0], p[1], p[2]});
      return hi - lo < 24 && hi < 200;
    };
  };
  const auto differ = [&](int x, int y) {
    const unsigned char *p = edited.at(x, y), *q = plain.at(x, y);
    return std::abs(p[0] - q[0]) + std::abs(p[1] - q[1]) + std::abs(p[2] - q[2]) > 24;
  };
  const double grey_edited = share(edited, 0.42, 0.58, 0.36, 0.52, grey(edited)),
               grey_plain = share(plain, 0.42, 0.58, 0.36, 0.52, grey(plain));
  std::printf("grey share in the middle: %.3f with the ball, %.3f without\n", grey_edited,
              grey_plain);
  EXPECT_GT(grey_edited, 0.6) << "no stone ball in the middle";
  EXPECT_LT(grey_plain, 0.2);
  EXPECT_GT(share(edited, 0.42, 0.58, 0.36, 0.52, differ), 0.6);
  EXPECT_LT(share(edited, 0.0, 1.0, 0.0, 0.05, differ), 0.02) << "the sky changed";
}

TEST_F(ViewTest, BlockWorldOptionsAreChecked) {
  const Shot view = render("default --blocks --block-view 5");
  EXPECT_NE(view.rc, 0);
  EXPECT_NE(view.log.find("--block-view"), std::string::npos) << view.log;
  const Shot ao = render("default --blocks --block-ao soft");
  EXPECT_NE(ao.rc, 0);
  EXPECT_NE(ao.log.find("--block-ao"), std::string::npos) << ao.log;
  const Shot hide = render("default --hide bricks");
  EXPECT_EQ(hide.rc, 1);
  EXPECT_NE(hide.log.find("blocks"), std::string::npos) << hide.log;
}

// --nav: the NavWorld streamed around the camera's ground position, drawn as an overlay of its
// polygons, with a path between two ground points and a few crowd agents walking. Against the
// same view without --nav the walkable ground in front of the camera (the lower half) changes,
// the sky does not; the bright path ribbon appears; --stats reports the tiles, the path and the
// crowd.
TEST_F(ViewTest, NavOverlayShowsWalkableAreaAndPath) {
  const std::string args =
      "default --size 480x270 --camera -390,0,-260 --above-ground 110 --look 20,-45 "
      "--hide scatter";
  const Shot nav = render(args +
                          " --nav --nav-path -440,-200,-320,-170 --nav-crowd 4 --preload "
                          "--frames 20");
  ASSERT_EQ(nav.rc, 0) << nav.log;
  const Shot plain = render(args);
  ASSERT_EQ(plain.rc, 0) << plain.log;
  EXPECT_EQ(nav.stats.value("gl_errors", -1), 0) << nav.log;
  EXPECT_FALSE(plain.stats.contains("nav"));
  ASSERT_TRUE(nav.stats.contains("nav")) << nav.stats.dump();
  const nlohmann::json& n = nav.stats["nav"];
  EXPECT_TRUE(n.value("complete", false)) << n.dump();
  EXPECT_EQ(n.value("holes", -1), 0) << n.dump();
  EXPECT_DOUBLE_EQ(n.value("radius_m", 0.0), 128.0);
  // 16 m tiles within 128 m of a point: about pi (128 + 8)^2 / 256.
  EXPECT_GT(n.value("tiles_loaded", 0), 200) << n.dump();
  EXPECT_EQ(n.value("tiles_drawn", 0), n.value("tiles_loaded", -1)) << n.dump();
  EXPECT_GE(n.value("polygons", 0), n.value("tiles_loaded", 0)) << n.dump();
  EXPECT_EQ(n.value("bad_tiles", -1), 0) << n.dump();
  EXPECT_GT(n.value("gpu_bytes", 0), 0) << n.dump();
  ASSERT_TRUE(n.contains("path")) << n.dump();
  const nlohmann::json& p = n["path"];
  EXPECT_EQ(p.value("status", std::string()), "ok") << p.dump();
  // At least the straight line between the two points (120 m, 30 m and 54 m of height apart).
  EXPECT_GT(p.value("length_m", 0.0), 127.0) << p.dump();
  EXPECT_LT(p.value("length_m", 0.0), 250.0) << p.dump();
  EXPECT_GE(p.value("points", 0), 2) << p.dump();
  EXPECT_EQ(n["crowd"].value("agents", 0), 4) << n.dump();
  EXPECT_GE(n["crowd"].value("retargets", 0), 4) << n.dump();

  auto changed = [&](double y0, double y1) {
    std::size_t k = 0, all = 0;
    for (int y = int(y0 * nav.height); y < int(y1 * nav.height); ++y) {
      for (int x = 0; x < nav.width; ++x) {
        const unsigned char *a = nav.at(x, y), *b = plain.at(x, y);
        k += std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]) > 24;
        ++all;
      }
    }
    return double(k) / double(std::max<std::size_t>(all, 1));
  };
  EXPECT_GT(changed(0.6, 1.0), 0.5) << "no overlay on the walkable ground in front";
  EXPECT_LT(changed(0.0, 0.1), 0.01) << "the sky changed";
  // The path ribbon's yellow (255, 235, 40): no terrain, overlay fill or edge is that bright.
  auto path_pixels = [](const Shot& s) {
    std::size_t k = 0;
    for (int y = 0; y < s.height; ++y) {
      for (int x = 0; x < s.width; ++x) {
        const unsigned char* c = s.at(x, y);
        k += c[0] >= 235 && c[1] >= 210 && c[2] <= 80;
      }
    }
    return k;
  };
  EXPECT_GT(path_pixels(nav), 300u) << "no path drawn";
  EXPECT_EQ(path_pixels(plain), 0u);
}

// The --nav options are checked before anything streams, each with a message naming it.
TEST_F(ViewTest, NavOptionsAreChecked) {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"--nav --nav-radius -1", "--nav-radius -1: the navmesh radius must be in (0, 2048] m"},
      {"--nav --nav-radius 1000", "--nav: NavWorld: radius_m = 1000 needs up to"},
      {"--nav --nav-path 1,2,3", "--nav-path '1,2,3' must be x0,z0,x1,z1: four numbers [m]"},
      {"--nav --nav-path 1,2,x,4", "--nav-path '1,2,x,4' must be x0,z0,x1,z1"},
      {"--nav --nav-agent radius=0.5,hieght=2",
       "--nav-agent 'radius=0.5,hieght=2': nav agent: unknown key 'hieght'"},
      {"--nav --nav-agent slope=95",
       "--nav: agents[0] ('agent0').max_slope_deg = 95 is outside the allowed range (0, 90)"},
      {"--nav --nav-crowd 40", "--nav-crowd 40 must be 0..16"},
      {"--nav --nav-show 2", "--nav-show '2' must be all or an agent index 0..0"},
  };
  for (const Case& c : cases) {
    const Shot s = render(std::string("default --size 64x64 ") + c.args);
    EXPECT_EQ(s.rc, 1) << c.args << "\n" << s.log;
    EXPECT_NE(s.log.find(c.message), std::string::npos) << c.args << "\n" << s.log;
  }
}

TEST_F(ViewTest, NoDisplayNamesXvfbRun) {
  const fs::path log = dir_ / "log.txt";
  const std::string cmd = std::string("env -u DISPLAY -u WAYLAND_DISPLAY ") + TERRANE_VIEW_PATH +
                          " default > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  const std::string text = read_text(log);
  EXPECT_NE(text.find("no display"), std::string::npos) << text;
  EXPECT_NE(text.find("xvfb-run"), std::string::npos) << text;
}

TEST_F(ViewTest, OpenGlBelowThreeThreeSaysWhatTheDisplayOffers) {
  // Mesa can pretend to be an older OpenGL.
  const Shot s = render("default --size 64x64", "MESA_GL_VERSION_OVERRIDE=3.0");
  EXPECT_EQ(s.rc, 1) << s.log;
  EXPECT_NE(s.log.find("needs an OpenGL 3.3 core context"), std::string::npos) << s.log;
  EXPECT_NE(s.log.find("offers OpenGL 3.0"), std::string::npos) << s.log;
}

TEST_F(ViewTest, BadInputFailsWithAClearMessage) {
  const Shot missing = render("no_such_preset.json");
  EXPECT_EQ(missing.rc, 1);
  EXPECT_NE(missing.log.find("no_such_preset"), std::string::npos) << missing.log;
  const Shot overlay = render("default --overlay sparkles");
  EXPECT_EQ(overlay.rc, 1);
  EXPECT_NE(overlay.log.find("--overlay 'sparkles'"), std::string::npos) << overlay.log;
  const Shot size = render("default --size 10x10");
  EXPECT_EQ(size.rc, 1);
  EXPECT_NE(size.log.find("--size '10x10'"), std::string::npos) << size.log;
}

}  // namespace
