// terrane-view's brush tool (issue 16): the user's edits as the library keeps them (a
// HeightEdits over the world generator's compiled graph, BlockEdits, InstanceEdits, SplatPaint),
// strokes handed to the session (Streamer::set_edits, the navmesh, the water; the block world;
// Streamer::set_instance_edits; Streamer::set_paint), undo and redo by drags across the layers,
// the saved state, and the --brush specs of scripted runs (brush_spec.cpp). No GL and no window
// here: brush_preview.hpp draws the circle, interactive.cpp turns the mouse into strokes.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/edit.hpp"
#include "terrane/preset.hpp"

namespace terrane::view {

class Session;

// The edit layer a brush works on (the panel's choice, a --brush spec's kind).
enum class EditLayer : std::uint8_t {
  heights,    // HeightEdits: raise, lower, smooth, flatten, noise
  blocks,     // BlockEdits (--blocks): dig, fill, restore a sphere of blocks
  instances,  // InstanceEdits: fell the scatter's instances, plant one, regrow the felled
  paint,      // SplatPaint: paint a splat layer, unpaint back to the procedural splat
};
const char* to_string(EditLayer layer);

enum class InstanceKind : std::uint8_t {
  fell,    // removes the instances within the radius (back after regrow_s > 0 seconds)
  plant,   // adds one instance of the species at the centre
  regrow,  // drops the overrides within the radius (the procedural instances again)
};
const char* to_string(InstanceKind kind);

// The parts of the brushes that the panel sets (the cursor gives the centre). Ids are the
// preset's: a block of the voxel palette, a species and a splat layer of its surface section.
struct BrushSettings {
  EditLayer layer = EditLayer::heights;
  BrushKind kind = BrushKind::raise;
  double radius_m = 20.0;         // [Units: m] [Limit: (0, 1e4]; blocks: (0, 64 blocks]]
  double strength_m = 0.25;       // per stroke: metres (raise, lower, noise) or a fraction
                                  // (smooth, flatten) [Limit: [0, 1e4]]
  double falloff_start = 0.5;     // [Limit: [0, 1]]
  double target_m = 0.0;          // flatten's height [Units: m]
  double noise_frequency = 0.05;  // the noise brush's noise [Units: 1/m] [Limit: (0, 1000]]
  double rate_hz = 30.0;          // strokes per second while the button is held [Limit: 1..120]
  BlockBrushKind block_kind = BlockBrushKind::dig;
  int block = 1;  // fill's block id
  InstanceKind instance_kind = InstanceKind::fell;
  int species = 0;
  double regrow_s = 0.0;  // fell: seconds until the instances come back (0: never)
  PaintKind paint_kind = PaintKind::paint;
  int paint_layer = 0;
  double paint_strength = 0.5;  // per stroke [Limit: [0, 1]]

  // The brushes of these settings centred at (x, z) (blocks: at (x, y, z)).
  HeightBrush at(double x_m, double z_m) const;
  BlockBrush block_at(double x_m, double y_m, double z_m) const;
  SplatBrush paint_at(double x_m, double z_m) const;
};

// An instance brush: fell or regrow around (x, z), or plant there.
struct InstanceBrush {
  InstanceKind kind = InstanceKind::fell;
  double x_m = 0.0, z_m = 0.0;  // [Units: m]
  double radius_m = 5.0;        // fell, regrow [Units: m] [Limit: (0, 1e4]]
  double regrow_s = 0.0;        // fell [Units: s] [Limit: [0, 1e12]]
  int species = 0;              // plant
  float yaw_deg = 0.0f;         // plant
};

// One --brush: a brush of one layer and how many times it is applied (one undo step for all of
// them). The names a spec gives (block, species, splat layer) are the preset's, looked up by
// resolve_brush_names once the preset is known.
struct BrushStroke {
  std::string spec;  // as given, for messages
  EditLayer layer = EditLayer::heights;
  HeightBrush brush;
  BlockBrush block;
  InstanceBrush instance;
  SplatBrush paint;
  std::string name;  // fill's block, plant's species, paint's layer ("" for the others)
  int repeat = 1;    // [Limit: 1..1000]
};

// Parses a --brush spec (x and z required; the others default to BrushSettings' values):
//   heights:   kind=raise|lower|smooth|flatten|noise,x,z[,radius,strength,falloff,target,
//              frequency,seed,repeat]
//   blocks:    kind=dig|fill|restore,x,y,z[,radius,block=NAME (fill),repeat]
//   instances: kind=fell|plant|regrow,x,z[,radius,regrow=S (fell),species=NAME (plant),
//              yaw (plant),repeat]
//   paint:     kind=paint|unpaint,x,z,layer=NAME (paint)[,radius,strength,falloff,repeat]
// Throws Error(invalid_argument) naming the spec, the key and the value, or the brush field and
// its range.
BrushStroke parse_brush_spec(std::string_view spec);
// Looks up the stroke's name in the preset (block: voxel palette; species; splat layer) and
// checks the brush against the world (block size and palette, layer count). Throws
// Error(invalid_argument) naming the spec and listing the preset's names.
void resolve_brush_names(BrushStroke& stroke, const Preset& preset);

// The lattice vertices of every tile a snapshot holds (a whole world's edits, for
// Streamer::set_edits when they are loaded at once); empty when it holds none.
LatticeRect tiles_rect(const HeightEditSnapshot& edits);
// The smallest rectangle holding both (either may be empty).
LatticeRect rect_union(const LatticeRect& a, const LatticeRect& b);

// The layers at the start of a tool: a world file's (saved) or none (every snapshot empty, of
// the world's cell, tile side, block world, instance chunk side and splat layer count).
struct ToolLayers {
  HeightEditSnapshot heights;
  BlockEditSnapshot blocks;
  InstanceEditSnapshot instances;
  SplatPaintSnapshot paint;
};
// Empty layers for a preset's world with height tiles of tile_cells. Throws as the layers do.
ToolLayers empty_layers(const Preset& preset, int tile_cells);

// The edits being made, on every layer, with one history of drags in the order made. Owned by
// the frame thread; the snapshots go to the session's workers.
class BrushTool {
 public:
  // Starts from these layers, which count as saved. Throws as the layers' edit classes do.
  explicit BrushTool(const ToolLayers& saved);

  // Strokes between begin_drag() and end_drag() are one undo step (a stroke outside a drag is
  // one step of its own; a drag that changes layer starts a new step).
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
  // Block strokes, handed to the session's block world (Session::set_block_edits) once. Throws
  // Error(invalid_argument) without a block world (--blocks) or for a brush BlockEdits refuses.
  BlockBox stroke(Session& session, std::span<const BlockBrush> brushes);
  // Instance strokes (fell: ChunkGenerator::instances_near under the current edits, then
  // InstanceEdits::remove; plant: add; regrow: restore the ids of the overrides within the
  // radius), handed to the session (Session::set_instance_edits) once.
  InstanceChanges stroke(Session& session, std::span<const InstanceBrush> brushes);
  // Paint strokes, handed to the session (Session::set_paint) once.
  LatticeRect stroke(Session& session, std::span<const SplatBrush> brushes);
  // A --brush stroke: its brush `repeat` times as one undo step (names resolved first).
  void apply(Session& session, BrushStroke stroke);

  // Undoes (redoes) the newest drag, of whichever layer, and updates the session; false when
  // there is none.
  bool undo(Session& session);
  bool redo(Session& session);
  // Drops every edit and the history (the session gets the base back).
  void discard(Session& session);

  std::size_t undo_steps() const { return undo_groups_.size(); }  // drags
  std::size_t redo_steps() const { return redo_groups_.size(); }
  std::size_t strokes() const { return strokes_; }  // applied since the tool was made
  std::size_t strokes_since_save() const { return strokes_since_save_; }
  const HeightEditSnapshot& current() const { return edits_->current(); }
  const BlockEditSnapshot& blocks() const { return blocks_->current(); }
  const InstanceEditSnapshot& instances() const { return instances_->current(); }
  const SplatPaintSnapshot& paint() const { return paint_->current(); }
  std::shared_ptr<const HeightEditSnapshot> snapshot() const { return snapshot_; }
  std::shared_ptr<const BlockEditSnapshot> block_snapshot() const { return block_snapshot_; }
  std::shared_ptr<const InstanceEditSnapshot> instance_snapshot() const {
    return instance_snapshot_;
  }
  std::shared_ptr<const SplatPaintSnapshot> paint_snapshot() const { return paint_snapshot_; }
  // Any edit or any history: the edits sit on the preset's base, so the preset must not change.
  bool has_edits() const;
  // Some layer differs from the last mark_saved() (or from the layers the tool started with).
  // Exact: tiles and chunks are compared by identity, and undo puts the very ones back.
  bool unsaved() const;
  void mark_saved();

 private:
  struct Group {
    EditLayer layer = EditLayer::heights;
    std::size_t steps = 0;  // the layer's library steps
  };
  void record(EditLayer layer, std::size_t added);
  void publish_heights(Session& session, const LatticeRect& changed);
  void publish_blocks(Session& session);
  void publish_instances(Session& session, const InstanceChanges& changed);
  void publish_paint(Session& session, const LatticeRect& changed);
  // Undoes (undo) or redoes one group, updating the session.
  void replay(Session& session, const Group& group, bool undo);

  std::unique_ptr<HeightEdits> edits_;
  std::unique_ptr<BlockEdits> blocks_;
  std::unique_ptr<InstanceEdits> instances_;
  std::unique_ptr<SplatPaint> paint_;
  std::shared_ptr<const HeightEditSnapshot> snapshot_;
  std::shared_ptr<const BlockEditSnapshot> block_snapshot_;
  std::shared_ptr<const InstanceEditSnapshot> instance_snapshot_;
  std::shared_ptr<const SplatPaintSnapshot> paint_snapshot_;
  HeightEditSnapshot::TileMap saved_;
  BlockEditSnapshot::ChunkMap saved_blocks_;
  InstanceEditSnapshot::ChunkMap saved_instances_;
  SplatPaintSnapshot::TileMap saved_paint_;
  std::vector<Group> undo_groups_, redo_groups_;
  bool in_drag_ = false;
  bool drag_open_ = false;  // the newest undo group is the drag in progress
  std::size_t strokes_ = 0, strokes_since_save_ = 0;
};

}  // namespace terrane::view
