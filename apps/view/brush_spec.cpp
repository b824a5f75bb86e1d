// terrane-view's --brush specs: one layer's brush as key=value pairs (the kind names the layer),
// parsed before the preset is known; the names they give (a block, a species, a splat layer)
// are looked up in the preset afterwards.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>

#include "brush_tool.hpp"

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

// The kind's layer and its keys (kind is always allowed).
struct KindInfo {
  EditLayer layer;
  std::string_view keys;
};

KindInfo kind_info(std::string_view spec, std::string_view kind) {
  if (parse_brush_kind(kind)) {
    return {EditLayer::heights, "x, z, radius, strength, falloff, target, frequency, seed, repeat"};
  }
  if (parse_block_brush_kind(kind)) {
    return {EditLayer::blocks,
            kind == "fill" ? "x, y, z, radius, block, repeat" : "x, y, z, radius, repeat"};
  }
  if (kind == "fell") return {EditLayer::instances, "x, z, radius, regrow, repeat"};
  if (kind == "plant") return {EditLayer::instances, "x, z, species, yaw, repeat"};
  if (kind == "regrow") return {EditLayer::instances, "x, z, radius, repeat"};
  if (parse_paint_kind(kind)) {
    return {EditLayer::paint, kind == "paint" ? "x, z, layer, radius, strength, falloff, repeat"
                                              : "x, z, radius, strength, falloff, repeat"};
  }
  refuse(spec, cat({"kind = '", kind,
                    "' must be raise, lower, smooth, flatten or noise (heights), dig, fill or "
                    "restore (blocks), fell, plant or regrow (instances), paint or unpaint "
                    "(splat paint)"}));
}

bool allowed(std::string_view keys, std::string_view key) {
  std::size_t pos = 0;
  while (pos < keys.size()) {
    const std::size_t end = std::min(keys.find(',', pos), keys.size());
    if (keys.substr(pos, end - pos) == key) return true;
    pos = end + 2;
  }
  return false;
}

std::string names(const std::vector<std::string>& all) {
  std::string out;
  for (const std::string& n : all) out.append(out.empty() ? "" : ", ").append(n);
  return out.empty() ? "none" : out;
}

}  // namespace

BrushStroke parse_brush_spec(std::string_view spec) {
  const BrushSettings defaults;
  BrushStroke s;
  s.spec = std::string(spec);
  s.brush = defaults.at(0.0, 0.0);
  s.block = defaults.block_at(0.0, 0.0, 0.0);
  s.block.radius_m = 3.0;
  s.paint = defaults.paint_at(0.0, 0.0);
  // The kind first: it says which keys the others may be.
  std::string_view kind = "raise";
  std::vector<std::pair<std::string_view, std::string_view>> items;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', pos), spec.size());
    const std::string_view item = spec.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      refuse(spec, cat({"'", item, "' is not key=value"}));
    }
    if (item.substr(0, eq) == "kind") {
      kind = item.substr(eq + 1);
    } else {
      items.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
  }
  const KindInfo info = kind_info(spec, kind);
  s.layer = info.layer;
  if (const auto k = parse_brush_kind(kind)) s.brush.kind = *k;
  if (const auto k = parse_block_brush_kind(kind)) s.block.kind = *k;
  if (const auto k = parse_paint_kind(kind)) s.paint.kind = *k;
  if (info.layer == EditLayer::instances) {
    s.instance.kind = kind == "fell"    ? InstanceKind::fell
                      : kind == "plant" ? InstanceKind::plant
                                        : InstanceKind::regrow;
  }
  bool has_x = false, has_y = false, has_z = false;
  for (const auto& [key, value] : items) {
    if (!allowed(info.keys, key)) {
      refuse(spec, cat({"unknown key '", key, "' for kind=", kind, " (kind, ", info.keys, ")"}));
    }
    if (key == "block" || key == "species" || key == "layer") {
      if (value.empty()) refuse(spec, cat({key, " = '' names nothing"}));
      s.name = std::string(value);
      continue;
    }
    if (key == "repeat") {
      const double v = number(spec, key, value);
      if (v < 1.0 || v > 1000.0 || v != std::floor(v)) {
        refuse(spec, cat({"repeat = ", value, " must be an integer in 1..1000"}));
      }
      s.repeat = int(v);
      continue;
    }
    if (key == "seed") {
      const double v = number(spec, key, value);
      if (v < 0.0 || v > 9007199254740992.0 || v != std::floor(v)) {
        refuse(spec, cat({"seed = ", value, " must be an integer in [0, 2^53]"}));
      }
      s.brush.noise.seed = std::uint64_t(v);
      continue;
    }
    const double v = number(spec, key, value);
    if (key == "x") {
      s.brush.x_m = s.block.x_m = s.instance.x_m = s.paint.x_m = v;
      has_x = true;
    } else if (key == "y") {
      s.block.y_m = v;
      has_y = true;
    } else if (key == "z") {
      s.brush.z_m = s.block.z_m = s.instance.z_m = s.paint.z_m = v;
      has_z = true;
    } else if (key == "radius") {
      s.brush.radius_m = s.block.radius_m = s.instance.radius_m = s.paint.radius_m = v;
    } else if (key == "strength") {
      s.brush.strength_m = s.paint.strength = v;
    } else if (key == "falloff") {
      s.brush.falloff_start = s.paint.falloff_start = v;
    } else if (key == "target") {
      s.brush.target_m = v;
    } else if (key == "frequency") {
      s.brush.noise.frequency = v;
    } else if (key == "regrow") {
      if (v < 0.0 || v > 1e12) refuse(spec, cat({"regrow = ", value, " must be in [0, 1e12] s"}));
      s.instance.regrow_s = v;
    } else if (key == "yaw") {
      s.instance.yaw_deg = float(v);
    }
  }
  if (s.layer == EditLayer::blocks) {
    if (!has_x || !has_y || !has_z) refuse(spec, "x, y and z (the centre [m]) are required");
  } else if (!has_x || !has_z) {
    refuse(spec, "x and z (the centre [m]) are required");
  }
  if (s.name.empty() && (kind == "plant" || kind == "paint")) {
    refuse(spec, kind == "plant" ? "species=NAME (the preset's species to plant) is required"
                                 : "layer=NAME (the preset's splat layer to paint) is required");
  }
  if (kind == "fill" && s.name.empty()) s.name = "stone";
  try {
    if (s.layer == EditLayer::heights) s.brush.validate();
    // The paint's layer and the block's size and palette are checked against the preset.
    if (s.layer == EditLayer::paint) s.paint.validate(64);
    if (s.layer == EditLayer::instances &&
        (!(s.instance.radius_m > 0.0) || s.instance.radius_m > 1e4)) {
      throw Error(
          ErrorCategory::invalid_argument,
          cat({"radius = ", std::to_string(s.instance.radius_m), " m is outside (0, 1e4] m"}));
    }
  } catch (const Error& e) {
    refuse(spec, e.what());
  }
  return s;
}

void resolve_brush_names(BrushStroke& s, const Preset& preset) {
  try {
    if (s.layer == EditLayer::blocks) {
      const std::vector<BlockType>& types = preset.voxel.palette.types;
      if (s.block.kind == BlockBrushKind::fill) {
        const auto it = std::find_if(types.begin(), types.end(),
                                     [&](const BlockType& t) { return t.name == s.name; });
        if (it == types.end()) {
          std::vector<std::string> all;
          for (const BlockType& t : types) all.push_back(t.name);
          refuse(s.spec, cat({"block = '", s.name, "' is not a block of the preset's palette (",
                              names(all), ")"}));
        }
        s.block.block = std::uint16_t(it - types.begin());
      }
      s.block.validate(preset.voxel.block_size_m, int(types.size()));
    } else if (s.layer == EditLayer::instances && s.instance.kind == InstanceKind::plant) {
      const std::vector<Species>& species = preset.surface.species;
      const auto it = std::find_if(species.begin(), species.end(),
                                   [&](const Species& sp) { return sp.name == s.name; });
      if (it == species.end()) {
        std::vector<std::string> all;
        for (const Species& sp : species) all.push_back(sp.name);
        refuse(s.spec,
               cat({"species = '", s.name, "' is not a species of the preset (", names(all), ")"}));
      }
      s.instance.species = int(it - species.begin());
    } else if (s.layer == EditLayer::paint) {
      const std::vector<SplatLayer>& layers = preset.surface.layers;
      if (s.paint.kind == PaintKind::paint) {
        const auto it = std::find_if(layers.begin(), layers.end(),
                                     [&](const SplatLayer& l) { return l.name == s.name; });
        if (it == layers.end()) {
          std::vector<std::string> all;
          for (const SplatLayer& l : layers) all.push_back(l.name);
          refuse(s.spec, cat({"layer = '", s.name, "' is not a splat layer of the preset (",
                              names(all), ")"}));
        }
        s.paint.layer = int(it - layers.begin());
      }
      s.paint.validate(int(layers.size()));
    }
  } catch (const Error& e) {
    if (std::string_view(e.what()).starts_with("--brush '")) throw;
    refuse(s.spec, e.what());
  }
}

}  // namespace terrane::view
