// The panel's "Brush" section: the brush mode, its kind, radius, strength, falloff, flatten
// target (typed, picked under the cursor, or the height where each drag starts), the stroke
// rate, undo / redo, the edits held, and saving into the world file.
#include <imgui.h>

#include <cstdio>

#include "panel.hpp"

namespace terrane::view {

void draw_brush_section(PanelState& state, const FrameReport& report, PanelRequests& req) {
  const EditReport& e = report.edits;
  if (!ImGui::CollapsingHeader("Brush", state.brush_on ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
    return;
  }
  ImGui::Checkbox("brush mode (B): left-drag paints", &state.brush_on);
  BrushSettings& b = state.brush;
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
  if (report.has_blocks) ImGui::TextDisabled("the block world does not read edits yet");

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
    ImGui::BeginDisabled(e.undo_steps == 0 && e.redo_steps == 0 && e.tiles == 0);
    if (ImGui::Button("Discard edits")) req.discard_edits = true;
    ImGui::EndDisabled();
  }
  if (!state.save_status.empty()) ImGui::TextWrapped("%s", state.save_status.c_str());
}

}  // namespace terrane::view
