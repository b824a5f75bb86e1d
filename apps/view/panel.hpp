// The ImGui panel: preset picker, seed, the graph's node parameters (edited live as overrides of
// the preset), layer toggles, overlays, camera, growth animation and frame statistics.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "brush_tool.hpp"
#include "camera.hpp"
#include "session.hpp"
#include "world_renderer.hpp"

namespace terrane::view {

// What the panel asks the application to do this frame.
struct PanelRequests {
  bool rebuild = false;  // the preset, its overrides or the seed changed
  bool screenshot = false;
  bool grow = false;                   // start the growth animation
  std::optional<glm::dvec2> teleport;  // x, z
  bool toggle_nav = false;             // start or stop the navmesh (--nav)
  bool clear_path = false;
  // The brush tool.
  bool undo = false, redo = false, save = false, discard_edits = false;
};

// The preset being viewed, as a source (builtin name or file) and overrides in order: the
// command line's, then the panel's edits (one per parameter path, latest value).
struct PresetSource {
  std::string name_or_path;
  std::vector<std::string> cli_overrides;
  std::map<std::string, std::string> edits;  // "graph.nodes.base.frequency" -> "0.002"

  std::vector<std::string> overrides() const;
  Preset load() const;  // throws terrane::Error
};

struct PanelState {
  DrawSettings draw;
  bool walk = false;
  double speed_m_s = 120.0;
  std::string error;  // the last preset error, shown until a preset loads
  double teleport[2] = {0.0, 0.0};
  std::string path_input;
  // The brush tool: its mode (B), settings, and the flatten target's "pick under the cursor"
  // (the next left click sets the target instead of painting).
  bool brush_on = false;
  BrushSettings brush;
  bool pick_target = false;
  bool target_from_drag = false;  // flatten to the height where each drag starts
  std::string save_path;          // Save without a world file creates this one
  std::string save_status;        // the last save's line (or its error)
  // Why the preset cannot be edited now (a world file, or edits on its base); empty: it can.
  std::string preset_locked;
  // The panel's window as last drawn (x0, y0, x1, y1, window coordinates; empty when hidden):
  // a click that lands on it is the panel's, even in the frame ImGui has not seen it yet.
  std::array<float, 4> rect{0.0f, 0.0f, 0.0f, 0.0f};
  bool covers(double x, double y) const {
    return x >= rect[0] && x < rect[2] && y >= rect[1] && y < rect[3];
  }
};

// What the panel shows of the brush tool's edits.
struct EditReport {
  std::size_t undo_steps = 0, redo_steps = 0, strokes = 0, tiles = 0, bytes = 0;
  std::size_t block_overrides = 0, instance_overrides = 0, paint_tiles = 0;  // the other layers
  float delta_lo_m = 0.0f, delta_hi_m = 0.0f;
  bool unsaved = false;
  std::string world_file;  // empty: none
  bool painting = false;
  bool has_cursor = false;  // the cursor is on the ground
  std::array<double, 3> cursor{};
};

struct FrameReport {
  double frame_ms = 0.0;
  FrameTimes times;
  StreamerStats stream;
  std::size_t gpu_bytes = 0;
  WaterStats water;
  bool has_blocks = false;  // the session streams a block world (--blocks)
  BlockStreamerStats blocks;
  std::size_t block_gpu_bytes = 0, block_pending = 0;
  bool has_nav = false;  // the session streams a navmesh (--nav or the panel)
  NavReport nav;
  EditReport edits;
  std::string renderer;
};

// The panel's "Brush" section (brush_panel.cpp).
void draw_brush_section(PanelState& state, const Preset& preset, const FrameReport& report,
                        PanelRequests& req);

// Draws the panel (inside an ImGui frame) and returns the requests.
PanelRequests draw_panel(PanelState& state, PresetSource& source, const Preset& preset,
                         const Camera& camera, const FrameReport& report);

}  // namespace terrane::view
