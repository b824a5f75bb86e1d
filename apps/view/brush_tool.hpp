// terrane-view's brush tool (issue 16): the user's height edits as the library keeps them
// (a HeightEdits over the world generator's compiled graph), strokes handed to the session
// (Streamer::set_edits, the navmesh, the water), undo and redo by drags, the saved state, and
// the --brush specs of scripted runs. No GL and no window here: brush_preview.hpp draws the
// circle, interactive.cpp turns the mouse into strokes.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/edit.hpp"

namespace terrane::view {

class Session;

// The parts of a HeightBrush that the panel sets (the cursor gives the centre).
struct BrushSettings {
  BrushKind kind = BrushKind::raise;
  double radius_m = 20.0;         // [Units: m] [Limit: (0, 1e4]]
  double strength_m = 0.25;       // per stroke: metres (raise, lower, noise) or a fraction
                                  // (smooth, flatten) [Limit: [0, 1e4]]
  double falloff_start = 0.5;     // [Limit: [0, 1]]
  double target_m = 0.0;          // flatten's height [Units: m]
  double noise_frequency = 0.05;  // the noise brush's noise [Units: 1/m] [Limit: (0, 1000]]
  double rate_hz = 30.0;          // strokes per second while the button is held [Limit: 1..120]

  // The brush of these settings centred at (x, z).
  HeightBrush at(double x_m, double z_m) const;
};

// One --brush: a brush and how many times it is applied (one undo step for all of them).
struct BrushStroke {
  HeightBrush brush;
  int repeat = 1;  // [Limit: 1..1000]
};

// Parses "kind=raise,x=10,z=-4,radius=30,strength=5[,falloff=0.5,target=12,frequency=0.05,
// seed=3,repeat=4]" (x and z required; the others default to BrushSettings' values). Throws
// Error(invalid_argument) naming the key and the value, or the brush field and its range.
BrushStroke parse_brush_spec(std::string_view spec);

// The lattice vertices of every tile a snapshot holds (a whole world's edits, for
// Streamer::set_edits when they are loaded at once); empty when it holds none.
LatticeRect tiles_rect(const HeightEditSnapshot& edits);
// The smallest rectangle holding both (either may be empty).
LatticeRect rect_union(const LatticeRect& a, const LatticeRect& b);

// The edits being made. Owned by the frame thread; the snapshots go to the session's workers.
class BrushTool {
 public:
  // No edits: cell_size_m is the world's level-0 cell, tile_cells the tile side the world file
  // stores (WorldInfo::tile_cells). Throws as HeightEdits does.
  BrushTool(double cell_size_m, int tile_cells);
  // Starts from a world file's edits, which count as saved.
  explicit BrushTool(const HeightEditSnapshot& saved);

  // Strokes between begin_drag() and end_drag() are one undo step (a stroke outside a drag is
  // one step of its own).
  void begin_drag();
  void end_drag();
  bool dragging() const { return in_drag_; }

  // Applies the strokes in order over the session's base (its generator's compiled graph) and
  // the current edits, then hands the new snapshot and the vertices they changed to the session
  // once. Returns those vertices. Throws Error(invalid_argument) for a brush the library refuses
  // (the strokes before it stay applied and are handed over).
  LatticeRect stroke(Session& session, std::span<const HeightBrush> brushes);
  LatticeRect stroke(Session& session, const HeightBrush& brush) {
    return stroke(session, std::span<const HeightBrush>(&brush, 1));
  }
  // Undoes (redoes) the newest drag and updates the session; false when there is none.
  bool undo(Session& session);
  bool redo(Session& session);
  // Drops every edit and the history (the session gets the base back).
  void discard(Session& session);

  std::size_t undo_steps() const { return undo_groups_.size(); }  // drags
  std::size_t redo_steps() const { return redo_groups_.size(); }
  std::size_t strokes() const { return strokes_; }  // applied since the tool was made
  std::size_t strokes_since_save() const { return strokes_since_save_; }
  const HeightEditSnapshot& current() const { return edits_->current(); }
  std::shared_ptr<const HeightEditSnapshot> snapshot() const { return snapshot_; }
  // Any delta or any history: the edits sit on the preset's base, so the preset must not change.
  bool has_edits() const { return !current().empty() || undo_steps() > 0 || redo_steps() > 0; }
  // The deltas differ from the last mark_saved() (or from the world file's at the start; a tool
  // made without one starts saved with no edits). Exact: tiles are compared by identity, and
  // undo puts the very tiles back.
  bool unsaved() const { return current().tiles() != saved_; }
  void mark_saved();

 private:
  void publish(Session& session, const LatticeRect& changed);

  std::unique_ptr<HeightEdits> edits_;
  std::shared_ptr<const HeightEditSnapshot> snapshot_;
  HeightEditSnapshot::TileMap saved_;
  std::vector<std::size_t> undo_groups_, redo_groups_;  // library steps per drag
  bool in_drag_ = false;
  bool drag_open_ = false;  // the newest undo group is the drag in progress
  std::size_t strokes_ = 0, strokes_since_save_ = 0;
};

}  // namespace terrane::view
