#include "options.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace terrane::view {

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "terrane-view: error: " << message << "\n";
  std::exit(1);
}

int parse_options(int argc, char** argv, Options& o) {
  CLI::App app{"terrane-view: fly over a preset's streamed world"};
  app.add_option("preset", o.preset, "builtin preset name or JSON file (default: default)");
  app.add_option("--set", o.overrides, "preset override a.b.c=value (repeatable)");
  app.add_option("--seed", o.seed, "world seed");
  app.add_flag("--offscreen", o.offscreen, "render without showing a window (CI, docs)");
  app.add_option("--size", o.size, "WIDTHxHEIGHT of the picture or window (default 1280x720)");
  app.add_option("--camera", o.camera, "x,y,z of the camera [m]")->delimiter(',')->expected(3);
  app.add_option("--above-ground", o.above_ground,
                 "put the camera this high above the ground (or the sea) at its x, z [m]")
      ->check(CLI::Range(0.5, 1.0e6));
  app.add_option("--look", o.look,
                 "yaw,pitch [deg]: yaw 0 looks along +Z, 90 along +X; pitch < 0 down")
      ->delimiter(',')
      ->expected(2);
  app.add_option("--velocity", o.velocity,
                 "vx,vy,vz [m/s]: the camera flies (1/30 s per frame offscreen)")
      ->delimiter(',')
      ->expected(3);
  app.add_option("--fov", o.fov_deg, "vertical field of view [deg]")
      ->check(CLI::Range(10.0, 120.0));
  app.add_option("--overlay", o.overlay, "none, lod, borders, slope, layers or biomes");
  app.add_flag("--wireframe", o.wireframe, "draw the triangles' edges");
  app.add_option("--frames", o.frames, "frames to render offscreen before the picture (default 1)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--screenshot", o.screenshot, "PNG to write (offscreen: after the last frame)");
  app.add_option("--stats", o.stats, "JSON file of frame timings (offscreen)");
  app.add_flag("--no-drain", o.no_drain, "take the picture without waiting for the view to load");
  app.add_flag("--preload", o.preload, "load the view at the start position before the frames");
  app.add_flag("--walk", o.walk, "walk 1.8 m above the ground");
  app.add_flag("--watch", o.watch, "reload the preset file when it changes");
  app.add_flag("--key-colour", o.key_colour, "magenta background, terrain only (crack tests)");
  app.add_option("--hide", o.hide, "layers to hide: terrain, water, scatter, sky, fog, blocks")
      ->delimiter(',');
  app.add_option("--grow", o.grow, "growth animation state 0..1 (1: full height)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--view", o.world.view_distance_m, "view distance [m]")
      ->check(CLI::Range(100.0, 1.0e6));
  app.add_option("--cells", o.world.cells, "cells per chunk side (power of two, 8..1024)");
  app.add_option("--threads", o.world.threads, "streamer worker threads (0: all cores)")
      ->check(CLI::Range(0, 256));
  app.add_option("--upload-budget-ms", o.world.upload_budget_ms,
                 "time per frame for uploading ready chunks outside the view [ms]")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--worker-priority", o.worker_priority,
                 "streamer workers: normal (default), low (nice 10) or background (SCHED_IDLE)")
      ->check(CLI::IsMember({"normal", "low", "background"}));
  app.add_option("--max-fps", o.max_fps, "interactive frame-rate cap (leaves the workers time)")
      ->check(CLI::Range(1.0, 1000.0));
  app.add_option("--edit-at-frame", o.edit_at_frame,
                 "interactive: apply the --edit assignments as panel edits at this frame")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--edit", o.edits, "a panel edit path=value for --edit-at-frame (repeatable)");
  app.add_flag("--blocks", o.world.blocks,
               "the preset's block world around the camera (its voxel section), the height "
               "field beyond it");
  app.add_option("--block-view", o.world.block_view_m,
                 "block world: horizontal view distance [m] (default 160)")
      ->check(CLI::Range(16.0, 4096.0));
  app.add_option("--block-vertical", o.world.block_vertical_m,
                 "block world: vertical range above and below the camera [m] (default 96)")
      ->check(CLI::Range(8.0, 4096.0));
  app.add_flag("!--no-block-ao", o.world.block_ao,
               "block world: mesh without ambient occlusion (comparisons)");
  app.add_option("--block-upload-budget-ms", o.world.block_upload_budget_ms,
                 "time per frame for uploading ready block chunks [ms]")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--drain-timeout", o.drain_timeout_s, "seconds to wait for the view to load")
      ->check(CLI::Range(1.0, 3600.0));
  CLI11_PARSE(app, argc, argv);
  o.world.worker_priority = o.worker_priority == "low"          ? WorkerPriority::low
                            : o.worker_priority == "background" ? WorkerPriority::background
                                                                : WorkerPriority::normal;

  if (std::sscanf(o.size.c_str(), "%dx%d", &o.width, &o.height) != 2 || o.width < 16 ||
      o.height < 16 || o.width > 8192 || o.height > 8192) {
    fail("--size '" + o.size + "' must be WIDTHxHEIGHT, each 16..8192");
  }
  {
    int k = 0;
    for (; k < kOverlayCount; ++k) {
      if (o.overlay == kOverlayNames[k]) break;
    }
    if (k == kOverlayCount) {
      fail("--overlay '" + o.overlay +
           "' must be one of none, lod, borders, slope, layers, biomes");
    }
    o.draw.overlay = Overlay(k);
  }
  for (const std::string& h : o.hide) {
    if (h == "terrain")
      o.draw.terrain = false;
    else if (h == "water")
      o.draw.water = false;
    else if (h == "scatter")
      o.draw.scatter = false;
    else if (h == "sky")
      o.draw.sky = false;
    else if (h == "fog")
      o.draw.fog = false;
    else if (h == "blocks")
      o.draw.blocks = false;
    else
      fail("--hide '" + h + "': the layers are terrain, water, scatter, sky, fog, blocks");
  }
  o.draw.wireframe = o.wireframe;
  o.draw.key_colour = o.key_colour;
  o.draw.grow = o.grow;
  // Interactive: --frames N closes the window after N frames (writing --screenshot first), so
  // tests and docs can run the panel too.
  o.interactive_frames = o.frames;
  if (o.frames < 0) o.frames = 1;
  return -1;
}

}  // namespace terrane::view
