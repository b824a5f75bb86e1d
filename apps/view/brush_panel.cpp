// The panel's "Brush" section: the brush mode, the layer it edits (heights, blocks, instances,
// paint) and the layer's kind, radius, strength, falloff, flatten target (typed, picked under
// the cursor, or the height where each drag starts), block, species or splat layer, the stroke
// rate, undo / redo, the edits held, and saving into the world file.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "panel.hpp"

namespace terrane::view {

namespace {

// A combo of names choosing an index (kept in range).
void name_combo(const char* label, int& index, const std::vector<std::string>& names) {
  if (names.empty()) {
    ImGui::TextDisabled("%s: none in the preset", label);
    return;
  }
  index = std::clamp(index, 0, int(names.size()) - 1);
  if (ImGui::BeginCombo(label, names[std::size_t(index)].c_str())) {
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (ImGui::Selectable(names[k].c_str(), int(k) == index)) index = int(k);
    }
    ImGui::EndCombo();
  }
}

// The layers beside the heights: false when the heights' controls follow.
bool draw_other_layer(BrushSettings& b, const Preset& preset, bool has_blocks) {
  if (b.layer == EditLayer::heights) return false;
  if (b.layer == EditLayer::blocks) {
    if (!has_blocks) ImGui::TextDisabled("the block world is off (start with --blocks)");
    int kind = int(b.block_kind);
    for (int k = 0; k < 3; ++k) {
      if (k > 0) ImGui::SameLine();
      ImGui::RadioButton(to_string(BlockBrushKind(k)), &kind, k);
    }
    b.block_kind = BlockBrushKind(kind);
    const double max_m = 64.0 * preset.voxel.block_size_m;
    float radius = float(std::min(b.radius_m, max_m));
    if (ImGui::SliderFloat("radius", &radius, float(0.5 * preset.voxel.block_size_m), float(max_m),
                           "%.1f m", ImGuiSliderFlags_Logarithmic)) {
      b.radius_m = radius;
    }
    if (b.block_kind == BlockBrushKind::fill) {
      std::vector<std::string> names;
      for (const BlockType& t : preset.voxel.palette.types) names.push_back(t.name);
      name_combo("block", b.block, names);
    }
    ImGui::TextDisabled("dig: around the block under the cursor; fill: the point above it");
  } else if (b.layer == EditLayer::instances) {
    int kind = int(b.instance_kind);
    for (int k = 0; k < 3; ++k) {
      if (k > 0) ImGui::SameLine();
      ImGui::RadioButton(to_string(InstanceKind(k)), &kind, k);
    }
    b.instance_kind = InstanceKind(kind);
    if (b.instance_kind == InstanceKind::plant) {
      std::vector<std::string> names;
      for (const Species& sp : preset.surface.species) names.push_back(sp.name);
      name_combo("species", b.species, names);
      ImGui::TextDisabled("a click plants one");
    } else {
      float radius = float(std::min(b.radius_m, 1e4));
      if (ImGui::SliderFloat("radius", &radius, 0.5f, 500.0f, "%.1f m",
                             ImGuiSliderFlags_Logarithmic)) {
        b.radius_m = radius;
      }
    }
    if (b.instance_kind == InstanceKind::fell) {
      ImGui::InputDouble("regrow after", &b.regrow_s, 10.0, 60.0, "%.0f s (0: never)");
      b.regrow_s = std::clamp(b.regrow_s, 0.0, 1e12);
    }
  } else {
    int kind = int(b.paint_kind);
    ImGui::RadioButton("paint", &kind, 0);
    ImGui::SameLine();
    ImGui::RadioButton("unpaint", &kind, 1);
    b.paint_kind = PaintKind(kind);
    if (b.paint_kind == PaintKind::paint) {
      std::vector<std::string> names;
      for (const SplatLayer& l : preset.surface.layers) names.push_back(l.name);
      name_combo("splat layer", b.paint_layer, names);
    }
    float radius = float(std::min(b.radius_m, 1e4));
    if (ImGui::SliderFloat("radius", &radius, 1.0f, 2000.0f, "%.1f m",
                           ImGuiSliderFlags_Logarithmic)) {
      b.radius_m = radius;
    }
    float strength = float(std::clamp(b.paint_strength, 0.0, 1.0));
    if (ImGui::SliderFloat("strength", &strength, 0.01f, 1.0f, "%.2f a stroke")) {
      b.paint_strength = strength;
    }
    float falloff = float(b.falloff_start);
    if (ImGui::SliderFloat("falloff from", &falloff, 0.0f, 1.0f, "%.2f of the radius")) {
      b.falloff_start = falloff;
    }
  }
  return true;
}

void draw_heights(PanelState& state, BrushSettings& b) {
  int kind = int(b.kind);
  for (int k = 0; k < 5; ++k) {
    if (k > 0) ImGui::SameLine();
    ImGui::RadioButton(to_string(BrushKind(k)), &kind, k);
  }
  b.kind = BrushKind(kind);
  float radius = float(b.radius_m);
  if (ImGui::SliderFloat("radius", &radius, 1.0f, 2000.0f, "%.1f m",
                         ImGuiSliderFlags_Logarithmic)) {
    b.radius_m = radius;
  }
  float strength = float(b.strength_m);
  const bool metres =
      b.kind == BrushKind::raise || b.kind == BrushKind::lower || b.kind == BrushKind::noise;
  if (metres) {
    if (ImGui::SliderFloat("strength", &strength, 0.01f, 50.0f, "%.2f m a stroke",
                           ImGuiSliderFlags_Logarithmic)) {
      b.strength_m = strength;
    }
  } else {
    strength = std::min(strength, 1.0f);
    if (ImGui::SliderFloat("strength", &strength, 0.01f, 1.0f, "%.2f a stroke")) {
      b.strength_m = strength;
    }
  }
  float falloff = float(b.falloff_start);
  if (ImGui::SliderFloat("falloff from", &falloff, 0.0f, 1.0f, "%.2f of the radius")) {
    b.falloff_start = falloff;
  }
  if (b.kind == BrushKind::flatten) {
    ImGui::InputDouble("target", &b.target_m, 1.0, 10.0, "%.2f m");
    if (ImGui::Button(state.pick_target ? "click the ground..." : "Pick height under the cursor")) {
      state.pick_target = !state.pick_target;
    }
    ImGui::SameLine();
    ImGui::Checkbox("where each drag starts", &state.target_from_drag);
  }
  if (b.kind == BrushKind::noise) {
    float frequency = float(b.noise_frequency);
    if (ImGui::SliderFloat("noise frequency", &frequency, 0.001f, 1.0f, "%.3f /m",
                           ImGuiSliderFlags_Logarithmic)) {
      b.noise_frequency = frequency;
    }
  }
}

void draw_common(PanelState& state, PanelRequests& req, const EditReport& e) {
  BrushSettings& b = state.brush;
  float rate = float(b.rate_hz);
  if (ImGui::SliderFloat("rate", &rate, 1.0f, 60.0f, "%.0f strokes/s")) b.rate_hz = rate;
  if (e.has_cursor) {
    ImGui::Text("cursor: %.1f, %.1f, %.1f%s", e.cursor[0], e.cursor[1], e.cursor[2],
                e.painting ? "  (painting)" : "");
  } else {
    ImGui::TextDisabled(state.brush_on ? "cursor: not on the ground" : "cursor: brush mode off");
  }

  ImGui::BeginDisabled(e.undo_steps == 0);
  if (ImGui::Button("Undo (Ctrl+Z)")) req.undo = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(e.redo_steps == 0);
  if (ImGui::Button("Redo (Ctrl+Y)")) req.redo = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::Text("%zu / %zu steps (a drag is one)", e.undo_steps, e.redo_steps);
  ImGui::Text("edits: %zu strokes, %zu tiles, %.1f MiB, deltas %.2f .. %.2f m", e.strokes, e.tiles,
              double(e.bytes) / 1048576.0, double(e.delta_lo_m), double(e.delta_hi_m));
  ImGui::Text("       %zu block overrides, %zu instance overrides, %zu paint tiles",
              e.block_overrides, e.instance_overrides, e.paint_tiles);

  if (!e.world_file.empty()) {
    ImGui::Text("world: %s%s", e.world_file.c_str(), e.unsaved ? " (unsaved)" : "");
  } else {
    char path[512];
    std::snprintf(path, sizeof path, "%s", state.save_path.c_str());
    if (ImGui::InputText("world file", path, sizeof path)) state.save_path = path;
  }
  ImGui::BeginDisabled(!e.unsaved || (e.world_file.empty() && state.save_path.empty()));
  if (ImGui::Button("Save (Ctrl+S)")) req.save = true;
  ImGui::EndDisabled();
  if (e.world_file.empty()) {
    ImGui::SameLine();
    ImGui::BeginDisabled(e.undo_steps == 0 && e.redo_steps == 0 && e.tiles == 0 &&
                         e.block_overrides == 0 && e.instance_overrides == 0 && e.paint_tiles == 0);
    if (ImGui::Button("Discard edits")) req.discard_edits = true;
    ImGui::EndDisabled();
  }
  if (!state.save_status.empty()) ImGui::TextWrapped("%s", state.save_status.c_str());
}

}  // namespace

void draw_brush_section(PanelState& state, const Preset& preset, const FrameReport& report,
                        PanelRequests& req) {
  const EditReport& e = report.edits;
  if (!ImGui::CollapsingHeader("Brush", state.brush_on ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
    return;
  }
  ImGui::Checkbox("brush mode (B): left-drag paints", &state.brush_on);
  BrushSettings& b = state.brush;
  int layer = int(b.layer);
  for (int k = 0; k < 4; ++k) {
    if (k > 0) ImGui::SameLine();
    ImGui::RadioButton(to_string(EditLayer(k)), &layer, k);
  }
  b.layer = EditLayer(layer);
  if (!draw_other_layer(b, preset, report.has_blocks)) draw_heights(state, b);
  draw_common(state, req, e);
}

}  // namespace terrane::view
