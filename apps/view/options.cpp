#include "options.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "terrane/schema.hpp"

namespace terrane::view {
namespace {

// "x0,z0,x1,z1": four finite numbers, nothing else.
bool parse_numbers(const std::string& text, std::size_t count, std::vector<double>& out) {
  out.clear();
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    double v = 0.0;
    const char* first = text.data() + pos;
    const char* last = text.data() + end;
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (first == last || ec != std::errc() || ptr != last || !std::isfinite(v)) return false;
    out.push_back(v);
    pos = end + 1;
  }
  return out.size() == count;
}

// The --nav options into o.world.nav and o.draw.nav_agent; any of them turns --nav on.
void check_nav_options(Options& o) {
  NavOptions& nav = o.world.nav;
  nav.on = nav.on || o.nav_radius || !o.nav_agents.empty() || !o.nav_path.empty() || o.nav_crowd ||
           !o.nav_show.empty();
  if (o.nav_radius) {
    NavWorldParams wp;
    wp.radius_m = *o.nav_radius;
    try {
      wp.validate();
    } catch (const std::exception&) {
      fail("--nav-radius " + format_number(*o.nav_radius) +
           ": the navmesh radius must be in (0, 2048] m");
    }
    nav.radius_m = *o.nav_radius;
  }
  for (std::size_t k = 0; k < o.nav_agents.size(); ++k) {
    const std::string& spec = o.nav_agents[k];
    NavAgent base;
    base.name = "agent" + std::to_string(k);
    try {
      nav.agents.push_back(parse_nav_agent(spec, base));
    } catch (const std::exception& e) {
      fail("--nav-agent '" + spec + "': " + e.what());
    }
  }
  if (!o.nav_path.empty()) {
    std::vector<double> v;
    if (!parse_numbers(o.nav_path, 4, v)) {
      fail("--nav-path '" + o.nav_path + "' must be x0,z0,x1,z1: four numbers [m]");
    }
    nav.path = std::array<double, 4>{v[0], v[1], v[2], v[3]};
  }
  // A few walkers in the window; none in offscreen pictures unless asked.
  nav.crowd = o.nav_crowd.value_or(o.offscreen ? 0 : 8);
  if (nav.crowd < 0 || nav.crowd > kNavCrowdCapacity) {
    fail("--nav-crowd " + std::to_string(nav.crowd) + " must be 0.." +
         std::to_string(kNavCrowdCapacity) + " (the crowd's capacity)");
  }
  const int agents = nav.agents.empty() ? 1 : int(nav.agents.size());
  if (o.nav_show.empty() || o.nav_show == "0") {
    o.draw.nav_agent = 0;
  } else if (o.nav_show == "all") {
    o.draw.nav_agent = -1;
  } else {
    int k = -1;
    const auto [ptr, ec] =
        std::from_chars(o.nav_show.data(), o.nav_show.data() + o.nav_show.size(), k);
    if (ec != std::errc() || ptr != o.nav_show.data() + o.nav_show.size() || k < 0 || k >= agents) {
      fail("--nav-show '" + o.nav_show + "' must be all or an agent index 0.." +
           std::to_string(agents - 1));
    }
    o.draw.nav_agent = k;
  }
}

// --brush, --undo, --brush-cursor, --save.
void check_brush_options(Options& o) {
  for (const std::string& spec : o.brush_specs) {
    try {
      o.brushes.push_back(parse_brush_spec(spec));
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  if (std::size_t(o.undo) > o.brushes.size()) {
    fail("--undo " + std::to_string(o.undo) + ": there are only " +
         std::to_string(o.brushes.size()) + " --brush steps to undo");
  }
  if (!o.brushes.empty()) {
    const BrushStroke& last = o.brushes.back();
    const HeightBrush& b = last.brush;
    o.brush.layer = last.layer;
    o.brush.block_kind = last.block.kind;
    o.brush.instance_kind = last.instance.kind;
    o.brush.regrow_s = last.instance.regrow_s;
    o.brush.paint_kind = last.paint.kind;
    o.brush.paint_strength = last.paint.strength;
    o.brush.kind = b.kind;
    o.brush.radius_m = last.layer == EditLayer::blocks      ? last.block.radius_m
                       : last.layer == EditLayer::instances ? last.instance.radius_m
                       : last.layer == EditLayer::paint     ? last.paint.radius_m
                                                            : b.radius_m;
    o.brush.strength_m = b.strength_m;
    o.brush.falloff_start = b.falloff_start;
    o.brush.target_m = b.target_m;
    o.brush.noise_frequency = b.noise.frequency;
  }
  if (!o.brush_cursor.empty() &&
      (!std::isfinite(o.brush_cursor[0]) || !std::isfinite(o.brush_cursor[1]))) {
    fail("--brush-cursor must be two finite pixel coordinates px,py");
  }
  if (o.save && !o.offscreen) fail("--save is for --offscreen runs (the window saves with Ctrl+S)");
}

}  // namespace

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
  app.add_option("--hide", o.hide,
                 "layers to hide: terrain, water, scatter, sky, fog, blocks, nav (the overlay)")
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
  app.add_flag("--trace-input", o.trace_input,
               "interactive: print what the window did with its input on stderr, a line each "
               "(\"terrane-view: input: ...\"), for scripts that drive the window");
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
  app.add_option("--block-ao", o.world.block_ao,
                 "block world: ambient occlusion from each chunk's occupancy in the fragment "
                 "shader (occupancy, the default), baked into the quads (baked), or none")
      ->transform(
          CLI::CheckedTransformer(std::map<std::string, BlockAo>{{"occupancy", BlockAo::occupancy},
                                                                 {"baked", BlockAo::baked},
                                                                 {"none", BlockAo::none}},
                                  CLI::ignore_case));
  app.add_flag_callback(
      "--no-block-ao", [&o] { o.world.block_ao = BlockAo::none; },
      "block world: no ambient occlusion (as --block-ao none)");
  app.add_option("--block-upload-budget-ms", o.world.block_upload_budget_ms,
                 "time per frame for uploading ready block chunks [ms]")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_flag("--nav", o.world.nav.on,
               "a navmesh streamed around the camera (terrane's nav module): overlay, paths, "
               "crowd");
  app.add_option("--nav-radius", o.nav_radius,
                 "navmesh: tiles within this distance of the camera's ground position [m] "
                 "(default 128)");
  app.add_option("--nav-agent", o.nav_agents,
                 "navmesh agent radius=..,height=..,climb=..,slope=..[,drop=..,name=..] "
                 "(repeatable: one navmesh each; default one humanoid)");
  app.add_option("--nav-path", o.nav_path,
                 "x0,z0,x1,z1 [m]: the path between two ground points (within --nav-radius of "
                 "the camera)");
  app.add_option("--nav-crowd", o.nav_crowd,
                 "crowd agents walking on the first agent's navmesh, 0..16 (default 8 in the "
                 "window, 0 offscreen)");
  app.add_option("--nav-show", o.nav_show,
                 "whose navmesh the overlay shows and paths use: an agent index or all "
                 "(default 0)");
  app.add_option("--world", o.world_file,
                 "world file (preset + seed + edits) to save the brush's edits into: created "
                 "for the preset, or opened when it exists (a world file may also be given as "
                 "the preset)");
  app.add_flag("--save", o.save,
               "offscreen: commit the edits into the world file after the --brush strokes");
  app.add_option(
      "--brush", o.brush_specs,
      "a brush stroke of one layer: heights kind=raise|lower|smooth|flatten|noise,x=..,z=..[,"
      "radius=..,strength=..,falloff=..,target=..,frequency=..,seed=..]; blocks (--blocks) "
      "kind=dig|fill|restore,x=..,y=..,z=..[,radius=..,block=NAME]; instances "
      "kind=fell|plant|regrow,x=..,z=..[,radius=..,regrow=S,species=NAME,yaw=..]; paint "
      "kind=paint|unpaint,x=..,z=..[,layer=NAME,radius=..,strength=..,falloff=..]; each with "
      "[,repeat=..] (repeatable, applied in order before the frames, after --preload's drain; "
      "one undo step each)");
  app.add_option("--undo", o.undo, "undo the last N --brush steps after applying them")
      ->check(CLI::Range(0, 100000));
  app.add_option("--brush-cursor", o.brush_cursor,
                 "px,py: draw the brush preview under this pixel of the picture (offscreen)")
      ->delimiter(',')
      ->expected(2);
  app.add_option("--drain-timeout", o.drain_timeout_s, "seconds to wait for the view to load")
      ->check(CLI::Range(1.0, 3600.0));
  CLI11_PARSE(app, argc, argv);
  o.preset_given = app.count("preset") > 0 || !o.overrides.empty() || o.seed.has_value();
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
    else if (h == "nav")
      o.draw.nav = false;
    else
      fail("--hide '" + h + "': the layers are terrain, water, scatter, sky, fog, blocks, nav");
  }
  check_nav_options(o);
  check_brush_options(o);
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
