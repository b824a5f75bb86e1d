#include "brush_tool.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "session.hpp"
#include "terrane/schema.hpp"

namespace terrane::view {
namespace {

// Appended piece by piece ("literal" + std::string trips GCC 12's -Wrestrict).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

[[noreturn]] void refuse(std::string_view spec, std::string_view why) {
  throw Error(ErrorCategory::invalid_argument, cat({"--brush '", spec, "': ", why}));
}

double number(std::string_view spec, std::string_view key, std::string_view text) {
  double v = 0.0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (first == last || ec != std::errc() || ptr != last || !std::isfinite(v)) {
    refuse(spec, cat({key, " = '", text, "' is not a finite number"}));
  }
  return v;
}

}  // namespace

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

BrushStroke parse_brush_spec(std::string_view spec) {
  const BrushSettings defaults;
  BrushStroke s;
  s.brush = defaults.at(0.0, 0.0);
  bool has_x = false, has_z = false;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', pos), spec.size());
    const std::string_view item = spec.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      refuse(spec, cat({"'", item, "' is not key=value"}));
    }
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "kind") {
      const auto kind = parse_brush_kind(value);
      if (!kind) {
        refuse(spec, cat({"kind = '", value, "' must be raise, lower, smooth, flatten or noise"}));
      }
      s.brush.kind = *kind;
    } else if (key == "x") {
      s.brush.x_m = number(spec, key, value);
      has_x = true;
    } else if (key == "z") {
      s.brush.z_m = number(spec, key, value);
      has_z = true;
    } else if (key == "radius") {
      s.brush.radius_m = number(spec, key, value);
    } else if (key == "strength") {
      s.brush.strength_m = number(spec, key, value);
    } else if (key == "falloff") {
      s.brush.falloff_start = number(spec, key, value);
    } else if (key == "target") {
      s.brush.target_m = number(spec, key, value);
    } else if (key == "frequency") {
      s.brush.noise.frequency = number(spec, key, value);
    } else if (key == "seed") {
      const double v = number(spec, key, value);
      if (v < 0.0 || v > 9007199254740992.0 || v != std::floor(v)) {
        refuse(spec, cat({"seed = ", value, " must be an integer in [0, 2^53]"}));
      }
      s.brush.noise.seed = std::uint64_t(v);
    } else if (key == "repeat") {
      const double v = number(spec, key, value);
      if (v < 1.0 || v > 1000.0 || v != std::floor(v)) {
        refuse(spec, cat({"repeat = ", value, " must be an integer in 1..1000"}));
      }
      s.repeat = int(v);
    } else {
      refuse(spec, cat({"unknown key '", key,
                        "' (kind, x, z, radius, strength, falloff, target, frequency, seed, "
                        "repeat)"}));
    }
  }
  if (!has_x || !has_z) refuse(spec, "x and z (the centre [m]) are required");
  try {
    s.brush.validate();
  } catch (const Error& e) {
    refuse(spec, e.what());
  }
  return s;
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

BrushTool::BrushTool(double cell_size_m, int tile_cells)
    : edits_(std::make_unique<HeightEdits>(cell_size_m, tile_cells)),
      snapshot_(edits_->snapshot()) {}

BrushTool::BrushTool(const HeightEditSnapshot& saved)
    : edits_(std::make_unique<HeightEdits>(saved)),
      snapshot_(edits_->snapshot()),
      saved_(saved.tiles()) {}

void BrushTool::begin_drag() {
  in_drag_ = true;
  drag_open_ = false;
}

void BrushTool::end_drag() {
  in_drag_ = drag_open_ = false;
}

void BrushTool::publish(Session& session, const LatticeRect& changed) {
  snapshot_ = edits_->snapshot();
  session.set_edits(snapshot_, changed);
}

LatticeRect BrushTool::stroke(Session& session, std::span<const HeightBrush> brushes) {
  LatticeRect changed;
  try {
    for (const HeightBrush& brush : brushes) {
      const std::size_t before = edits_->undo_steps();
      changed = rect_union(changed, edits_->apply(brush, session.streamer().generator().graph()));
      const std::size_t added = edits_->undo_steps() - before;
      if (added > 0) {
        // A new stroke drops the library's redo steps, so the drags to redo go too.
        redo_groups_.clear();
        if (in_drag_ && drag_open_ && !undo_groups_.empty()) {
          undo_groups_.back() += added;
        } else {
          undo_groups_.push_back(added);
        }
        drag_open_ = in_drag_;
      }
      ++strokes_;
      ++strokes_since_save_;
    }
  } catch (...) {
    publish(session, changed);
    throw;
  }
  publish(session, changed);
  return changed;
}

bool BrushTool::undo(Session& session) {
  if (undo_groups_.empty()) return false;
  end_drag();
  const std::size_t n = undo_groups_.back();
  undo_groups_.pop_back();
  LatticeRect changed;
  for (std::size_t k = 0; k < n; ++k) changed = rect_union(changed, edits_->undo());
  redo_groups_.push_back(n);
  publish(session, changed);
  return true;
}

bool BrushTool::redo(Session& session) {
  if (redo_groups_.empty()) return false;
  end_drag();
  const std::size_t n = redo_groups_.back();
  redo_groups_.pop_back();
  LatticeRect changed;
  for (std::size_t k = 0; k < n; ++k) changed = rect_union(changed, edits_->redo());
  undo_groups_.push_back(n);
  publish(session, changed);
  return true;
}

void BrushTool::discard(Session& session) {
  const LatticeRect changed = tiles_rect(current());
  const double cell_m = current().cell_size_m();
  const int tile_cells = current().tile_cells();
  edits_ = std::make_unique<HeightEdits>(cell_m, tile_cells);
  undo_groups_.clear();
  redo_groups_.clear();
  end_drag();
  publish(session, changed);
}

void BrushTool::mark_saved() {
  saved_ = current().tiles();
  strokes_since_save_ = 0;
}

}  // namespace terrane::view
