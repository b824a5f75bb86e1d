// terrane-view's command line: the options, their checks, and fail() for fatal errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "brush_tool.hpp"
#include "session.hpp"
#include "world_renderer.hpp"

namespace terrane::view {

struct Options {
  std::string preset = "default";
  std::vector<std::string> overrides;
  std::optional<std::uint64_t> seed;
  bool offscreen = false;
  std::string size = "1280x720";
  int width = 1280, height = 720;
  std::vector<double> camera;  // x,y,z
  std::optional<double> above_ground;
  std::vector<double> look;  // yaw,pitch
  std::vector<double> velocity;
  double fov_deg = 60.0;
  std::string overlay = "none";
  bool wireframe = false;
  int frames = -1;
  std::string screenshot;
  std::string stats;
  bool no_drain = false;
  bool preload = false;
  bool walk = false;
  bool watch = false;
  bool key_colour = false;
  std::vector<std::string> hide;
  double grow = 1.0;
  double drain_timeout_s = 300.0;
  std::string worker_priority = "normal";
  double max_fps = 60.0;
  bool trace_input = false;  // interactive: one stderr line per input the window acts on
  WorldOptions world;
  int edit_at_frame = -1;          // interactive: apply `edits` as panel edits at this frame
  std::vector<std::string> edits;  // "graph.nodes.hills.frequency=0.0002"
  DrawSettings draw;               // from --overlay, --hide, --wireframe, --key-colour, --grow
  int interactive_frames = -1;     // interactive --frames: close after N frames (-1: never)
  // --nav and its options (into world.nav and draw.nav_agent once checked).
  std::optional<double> nav_radius;
  std::vector<std::string> nav_agents;
  std::string nav_path;
  std::optional<int> nav_crowd;
  std::string nav_show;
  // World files and the brush tool (issue 16).
  bool preset_given = false;  // the preset argument, --set or --seed was given
  std::string world_file;     // --world FILE (or the preset argument, a world file)
  bool save = false;          // offscreen: commit the edits into the world file
  std::vector<std::string> brush_specs;
  std::vector<BrushStroke> brushes;  // --brush, parsed, in order
  int undo = 0;                      // offscreen: undo this many --brush steps after them
  std::vector<double> brush_cursor;  // px,py: the preview circle under this pixel
  BrushSettings brush;               // the panel's brush at the start: the last --brush's
};

// Parses and checks the command line into `o`. Returns -1 to go on, otherwise the exit status
// (0 after --help, 1 or more for a bad option, the message printed).
int parse_options(int argc, char** argv, Options& o);

// Prints "terrane-view: error: <message>" and exits with status 1.
[[noreturn]] void fail(const std::string& message);

}  // namespace terrane::view
