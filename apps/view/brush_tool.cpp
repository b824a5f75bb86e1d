#include "brush_tool.hpp"

#include <algorithm>
#include <limits>

#include "session.hpp"

namespace terrane::view {

const char* to_string(EditLayer layer) {
  switch (layer) {
    case EditLayer::heights:
      return "heights";
    case EditLayer::blocks:
      return "blocks";
    case EditLayer::instances:
      return "instances";
    case EditLayer::paint:
      return "paint";
  }
  return "?";
}

const char* to_string(InstanceKind kind) {
  switch (kind) {
    case InstanceKind::fell:
      return "fell";
    case InstanceKind::plant:
      return "plant";
    case InstanceKind::regrow:
      return "regrow";
  }
  return "?";
}

HeightBrush BrushSettings::at(double x_m, double z_m) const {
  HeightBrush b;
  b.kind = kind;
  b.x_m = x_m;
  b.z_m = z_m;
  b.radius_m = radius_m;
  b.strength_m = strength_m;
  b.falloff_start = falloff_start;
  b.target_m = target_m;
  b.noise.frequency = noise_frequency;
  return b;
}

BlockBrush BrushSettings::block_at(double x_m, double y_m, double z_m) const {
  BlockBrush b;
  b.kind = block_kind;
  b.x_m = x_m;
  b.y_m = y_m;
  b.z_m = z_m;
  b.radius_m = radius_m;
  b.block = std::uint16_t(std::clamp(block, 0, 65535));
  return b;
}

SplatBrush BrushSettings::paint_at(double x_m, double z_m) const {
  SplatBrush b;
  b.kind = paint_kind;
  b.x_m = x_m;
  b.z_m = z_m;
  b.radius_m = radius_m;
  b.strength = paint_strength;
  b.falloff_start = falloff_start;
  b.layer = paint_layer;
  return b;
}

LatticeRect tiles_rect(const HeightEditSnapshot& edits) {
  LatticeRect r;
  if (edits.empty()) return r;
  const std::int64_t t = edits.tile_cells();
  r.i0 = r.j0 = std::numeric_limits<std::int64_t>::max();
  r.i1 = r.j1 = std::numeric_limits<std::int64_t>::min();
  for (const auto& [key, tile] : edits.tiles()) {
    r.i0 = std::min(r.i0, key.first * t);
    r.j0 = std::min(r.j0, key.second * t);
    r.i1 = std::max(r.i1, key.first * t + t - 1);
    r.j1 = std::max(r.j1, key.second * t + t - 1);
  }
  return r;
}

LatticeRect rect_union(const LatticeRect& a, const LatticeRect& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.i0, b.i0), std::min(a.j0, b.j0), std::max(a.i1, b.i1), std::max(a.j1, b.j1)};
}

ToolLayers empty_layers(const Preset& preset, int tile_cells) {
  const double cell_m = preset.world.cell_size_m;
  return ToolLayers{HeightEdits(cell_m, tile_cells).current(),
                    BlockEdits(preset.voxel.block_size_m, preset.voxel.chunk_size,
                               int(preset.voxel.palette.types.size()))
                        .current(),
                    InstanceEdits(double(tile_cells) * cell_m).current(),
                    SplatPaint(cell_m, tile_cells, int(preset.surface.layers.size())).current()};
}

BrushTool::BrushTool(const ToolLayers& saved)
    : edits_(std::make_unique<HeightEdits>(saved.heights)),
      blocks_(std::make_unique<BlockEdits>(saved.blocks)),
      instances_(std::make_unique<InstanceEdits>(saved.instances)),
      paint_(std::make_unique<SplatPaint>(saved.paint)),
      snapshot_(edits_->snapshot()),
      block_snapshot_(blocks_->snapshot()),
      instance_snapshot_(instances_->snapshot()),
      paint_snapshot_(paint_->snapshot()),
      saved_(saved.heights.tiles()),
      saved_blocks_(saved.blocks.chunks()),
      saved_instances_(saved.instances.chunks()),
      saved_paint_(saved.paint.tiles()) {}

void BrushTool::begin_drag() {
  in_drag_ = true;
  drag_open_ = false;
}

void BrushTool::end_drag() {
  in_drag_ = drag_open_ = false;
}

void BrushTool::record(EditLayer layer, std::size_t added) {
  ++strokes_;
  ++strokes_since_save_;
  if (added == 0) return;
  // A new stroke drops the library's redo steps, so the drags to redo go too (on every layer:
  // redoing an older drag of another layer after this one would reorder the history).
  redo_groups_.clear();
  if (in_drag_ && drag_open_ && !undo_groups_.empty() && undo_groups_.back().layer == layer) {
    undo_groups_.back().steps += added;
  } else {
    undo_groups_.push_back({layer, added});
  }
  drag_open_ = in_drag_;
}

void BrushTool::publish_heights(Session& session, const LatticeRect& changed) {
  snapshot_ = edits_->snapshot();
  session.set_edits(snapshot_, changed);
}

void BrushTool::publish_blocks(Session& session) {
  block_snapshot_ = blocks_->snapshot();
  session.set_block_edits(block_snapshot_);
}

void BrushTool::publish_instances(Session& session, const InstanceChanges& changed) {
  instance_snapshot_ = instances_->snapshot();
  session.set_instance_edits(instance_snapshot_, changed);
}

void BrushTool::publish_paint(Session& session, const LatticeRect& changed) {
  paint_snapshot_ = paint_->snapshot();
  session.set_paint(paint_snapshot_, changed);
}

LatticeRect BrushTool::stroke(Session& session, std::span<const HeightBrush> brushes) {
  LatticeRect changed;
  try {
    for (const HeightBrush& brush : brushes) {
      const std::size_t before = edits_->undo_steps();
      changed = rect_union(changed, edits_->apply(brush, session.streamer().generator().graph()));
      record(EditLayer::heights, edits_->undo_steps() - before);
    }
  } catch (...) {
    publish_heights(session, changed);
    throw;
  }
  publish_heights(session, changed);
  return changed;
}

namespace {

BlockBox box_union(const BlockBox& a, const BlockBox& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::min(a.z0, b.z0),
          std::max(a.x1, b.x1), std::max(a.y1, b.y1), std::max(a.z1, b.z1)};
}

void append(InstanceChanges& to, const InstanceChanges& from) {
  to.at.insert(to.at.end(), from.at.begin(), from.at.end());
}

}  // namespace

BlockBox BrushTool::stroke(Session& session, std::span<const BlockBrush> brushes) {
  if (session.blocks() == nullptr) {
    throw Error(ErrorCategory::invalid_argument,
                "block strokes (dig, fill, restore) edit the block world: run with --blocks");
  }
  BlockBox changed;
  try {
    for (const BlockBrush& brush : brushes) {
      const std::size_t before = blocks_->undo_steps();
      changed = box_union(changed, blocks_->apply(brush));
      record(EditLayer::blocks, blocks_->undo_steps() - before);
    }
  } catch (...) {
    publish_blocks(session);
    throw;
  }
  if (!changed.empty()) publish_blocks(session);
  return changed;
}

InstanceChanges BrushTool::stroke(Session& session, std::span<const InstanceBrush> brushes) {
  InstanceChanges changed;
  try {
    for (const InstanceBrush& brush : brushes) {
      const std::size_t before = instances_->undo_steps();
      if (brush.kind == InstanceKind::fell) {
        const std::vector<ScatterInstance> near = session.streamer().generator().instances_near(
            brush.x_m, brush.z_m, brush.radius_m, snapshot_.get(), &instances_->current());
        append(changed, instances_->remove(near, brush.regrow_s));
      } else if (brush.kind == InstanceKind::plant) {
        ScatterInstance placed;
        placed.x_m = brush.x_m;
        placed.z_m = brush.z_m;
        placed.yaw_deg = brush.yaw_deg;
        placed.species = brush.species;
        append(changed, instances_->add(placed));
      } else {
        // Every override standing within the radius: felled, given a state or planted.
        std::vector<std::uint64_t> ids;
        const double r2 = brush.radius_m * brush.radius_m;
        for (const auto& [key, chunk] : instances_->current().chunks()) {
          for (const InstanceOverride& v : *chunk) {
            const double dx = v.x_m - brush.x_m, dz = v.z_m - brush.z_m;
            if (dx * dx + dz * dz <= r2) ids.push_back(v.id);
          }
        }
        append(changed, instances_->restore(ids));
      }
      record(EditLayer::instances, instances_->undo_steps() - before);
    }
  } catch (...) {
    publish_instances(session, changed);
    throw;
  }
  if (!changed.empty()) publish_instances(session, changed);
  return changed;
}

LatticeRect BrushTool::stroke(Session& session, std::span<const SplatBrush> brushes) {
  LatticeRect changed;
  try {
    for (const SplatBrush& brush : brushes) {
      const std::size_t before = paint_->undo_steps();
      changed = rect_union(changed, paint_->apply(brush));
      record(EditLayer::paint, paint_->undo_steps() - before);
    }
  } catch (...) {
    publish_paint(session, changed);
    throw;
  }
  if (!changed.empty()) publish_paint(session, changed);
  return changed;
}

void BrushTool::apply(Session& session, BrushStroke s) {
  resolve_brush_names(s, session.preset());
  const std::size_t n = std::size_t(s.repeat);
  switch (s.layer) {
    case EditLayer::heights:
      stroke(session, std::vector<HeightBrush>(n, s.brush));
      break;
    case EditLayer::blocks:
      stroke(session, std::vector<BlockBrush>(n, s.block));
      break;
    case EditLayer::instances:
      stroke(session, std::vector<InstanceBrush>(n, s.instance));
      break;
    case EditLayer::paint:
      stroke(session, std::vector<SplatBrush>(n, s.paint));
      break;
  }
}

void BrushTool::replay(Session& session, const Group& g, bool undo) {
  switch (g.layer) {
    case EditLayer::heights: {
      LatticeRect changed;
      for (std::size_t k = 0; k < g.steps; ++k) {
        changed = rect_union(changed, undo ? edits_->undo() : edits_->redo());
      }
      publish_heights(session, changed);
      break;
    }
    case EditLayer::blocks:
      for (std::size_t k = 0; k < g.steps; ++k) undo ? blocks_->undo() : blocks_->redo();
      publish_blocks(session);
      break;
    case EditLayer::instances: {
      InstanceChanges changed;
      for (std::size_t k = 0; k < g.steps; ++k) {
        append(changed, undo ? instances_->undo() : instances_->redo());
      }
      publish_instances(session, changed);
      break;
    }
    case EditLayer::paint: {
      LatticeRect changed;
      for (std::size_t k = 0; k < g.steps; ++k) {
        changed = rect_union(changed, undo ? paint_->undo() : paint_->redo());
      }
      publish_paint(session, changed);
      break;
    }
  }
}

bool BrushTool::undo(Session& session) {
  if (undo_groups_.empty()) return false;
  end_drag();
  const Group g = undo_groups_.back();
  undo_groups_.pop_back();
  replay(session, g, true);
  redo_groups_.push_back(g);
  return true;
}

bool BrushTool::redo(Session& session) {
  if (redo_groups_.empty()) return false;
  end_drag();
  const Group g = redo_groups_.back();
  redo_groups_.pop_back();
  replay(session, g, false);
  undo_groups_.push_back(g);
  return true;
}

void BrushTool::discard(Session& session) {
  const LatticeRect changed = tiles_rect(current());
  InstanceChanges moved;
  for (const auto& [key, chunk] : instances().chunks()) {
    for (const InstanceOverride& v : *chunk) moved.at.push_back({v.x_m, v.z_m});
  }
  LatticeRect painted;
  for (const auto& [key, tile] : paint().tiles()) {
    const std::int64_t t = paint().tile_cells();
    painted = rect_union(
        painted, {key.first * t, key.second * t, key.first * t + t - 1, key.second * t + t - 1});
  }
  const bool had_blocks = !blocks().empty();
  edits_ = std::make_unique<HeightEdits>(current().cell_size_m(), current().tile_cells());
  blocks_ = std::make_unique<BlockEdits>(blocks().block_size_m(), blocks().chunk_size(),
                                         blocks().block_types());
  instances_ = std::make_unique<InstanceEdits>(instances().chunk_size_m());
  paint_ =
      std::make_unique<SplatPaint>(paint().cell_size_m(), paint().tile_cells(), paint().layers());
  undo_groups_.clear();
  redo_groups_.clear();
  end_drag();
  publish_heights(session, changed);
  if (had_blocks) publish_blocks(session);
  if (!moved.empty()) publish_instances(session, moved);
  if (!painted.empty()) publish_paint(session, painted);
}

bool BrushTool::has_edits() const {
  return !current().empty() || !blocks().empty() || !instances().empty() || !paint().empty() ||
         undo_steps() > 0 || redo_steps() > 0;
}

bool BrushTool::unsaved() const {
  return current().tiles() != saved_ || blocks().chunks() != saved_blocks_ ||
         instances().chunks() != saved_instances_ || paint().tiles() != saved_paint_;
}

void BrushTool::mark_saved() {
  saved_ = current().tiles();
  saved_blocks_ = blocks().chunks();
  saved_instances_ = instances().chunks();
  saved_paint_ = paint().tiles();
  strokes_since_save_ = 0;
}

}  // namespace terrane::view
