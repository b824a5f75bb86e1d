#include "panel.hpp"

#include <imgui.h>

#include <cstdio>
#include <nlohmann/json.hpp>

namespace terrane::view {

std::vector<std::string> PresetSource::overrides() const {
  std::vector<std::string> all = cli_overrides;
  for (const auto& [path, value] : edits) all.push_back(path + "=" + value);
  return all;
}

Preset PresetSource::load() const {
  return load_preset(name_or_path, overrides());
}

namespace {

// One editable field of a graph node: numbers, integers and booleans (node references,
// strings and nested objects are shown, not edited).
bool edit_value(const std::string& label, nlohmann::json& value, std::string& out) {
  bool changed = false;
  if (value.is_boolean()) {
    bool b = value.get<bool>();
    if (ImGui::Checkbox(label.c_str(), &b)) {
      out = b ? "true" : "false";
      changed = true;
    }
  } else if (value.is_number_integer()) {
    long long v = value.get<long long>();
    if (ImGui::InputScalar(label.c_str(), ImGuiDataType_S64, &v, nullptr, nullptr, nullptr,
                           ImGuiInputTextFlags_EnterReturnsTrue)) {
      out = std::to_string(v);
      changed = true;
    }
  } else if (value.is_number()) {
    double v = value.get<double>();
    const double speed = std::max(std::abs(v) * 0.005, 1e-5);
    if (ImGui::DragScalar(label.c_str(), ImGuiDataType_Double, &v, float(speed), nullptr, nullptr,
                          "%.6g")) {
      char text[64];
      std::snprintf(text, sizeof text, "%.9g", v);
      out = text;
      changed = true;
    }
  } else if (value.is_string()) {
    ImGui::Text("%s: %s", label.c_str(), value.get<std::string>().c_str());
  } else {
    ImGui::TextDisabled("%s: %s", label.c_str(), value.dump().substr(0, 60).c_str());
  }
  return changed;
}

// The navmesh: on/off, what streams, whose overlay, the path between the picked points.
void draw_nav_section(PanelState& state, const FrameReport& report, PanelRequests& req) {
  if (!ImGui::CollapsingHeader("Navigation", report.has_nav ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
    return;
  }
  bool on = report.has_nav;
  if (ImGui::Checkbox("navmesh around the camera", &on)) req.toggle_nav = true;
  if (!report.has_nav) return;
  const NavReport& n = report.nav;
  const NavWorldStats& w = n.world;
  ImGui::Text("tiles: %zu loaded, %zu holes, %zu queued, %zu building (%.0f m radius)", w.loaded,
              w.holes, w.queued, w.running, n.radius_m);
  ImGui::Text("polygons: %zu, drop links %zu; %.1f MiB, %.1f MiB GPU", n.overlay.polygons,
              n.overlay.off_mesh_links, double(w.loaded_bytes) / 1048576.0,
              double(n.overlay.gpu_bytes) / 1048576.0);
  ImGui::Text("frame thread: %.0f us; poll add %.2f ms last, %.2f ms max", n.stream_us,
              w.last_poll_add_ms, w.max_poll_add_ms);
  DrawSettings& d = state.draw;
  ImGui::Checkbox("overlay", &d.nav);
  ImGui::SameLine();
  ImGui::Checkbox("crowd", &d.nav_crowd);
  ImGui::SameLine();
  ImGui::Text("(%d walking)", n.crowd_agents);
  int agent = d.nav_agent;
  ImGui::RadioButton("all##navagent", &agent, -1);
  for (int k = 0; k < int(n.agent_names.size()); ++k) {
    ImGui::SameLine();
    ImGui::RadioButton((n.agent_names[std::size_t(k)] + "##navagent" + std::to_string(k)).c_str(),
                       &agent, k);
  }
  d.nav_agent = agent;
  ImGui::TextDisabled("left-click the ground: the path's start, then its end");
  if (n.has_start) ImGui::Text("from %.1f, %.1f, %.1f", n.start[0], n.start[1], n.start[2]);
  if (n.has_end) ImGui::Text("to   %.1f, %.1f, %.1f", n.end[0], n.end[1], n.end[2]);
  if (n.path_found) {
    ImGui::Text("path (%s): %s, %.1f m, %zu corners, %zu polygons",
                n.agent_names[std::size_t(n.path_agent)].c_str(), to_string(n.path.status),
                n.path.length_m, n.path.points.size(), n.path.polys.size());
  }
  if (n.has_start && ImGui::Button("Clear path")) req.clear_path = true;
}

}  // namespace

PanelRequests draw_panel(PanelState& state, PresetSource& source, const Preset& preset,
                         const Camera& camera, const FrameReport& report) {
  PanelRequests req;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(440, 640), ImGuiCond_FirstUseEver);
  ImGui::Begin("terrane");
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  state.rect = {pos.x, pos.y, pos.x + size.x, pos.y + size.y};

  ImGui::Text("frame %.2f ms  stream %.0f us  upload %.2f ms", report.frame_ms,
              report.times.stream_us, report.times.upload.ms);
  ImGui::Text("chunks: %zu resident, %zu in flight, %zu visible, %zu drawn",
              report.stream.resident_chunks, report.stream.queued + report.stream.running,
              report.stream.visible, report.times.draw.chunks_drawn);
  ImGui::Text("memory: %.0f MiB chunks, %.0f MiB GPU; %zu trees/rocks drawn",
              double(report.stream.resident_bytes) / 1048576.0,
              double(report.gpu_bytes) / 1048576.0, report.times.draw.instances);
  ImGui::Text("water: %zu lakes, %zu river cells in %.0f km (%.0f ms%s)", report.water.lakes,
              report.water.river_cells, report.water.region_m / 1000.0, report.water.compute_ms,
              report.water.computing ? ", updating" : "");
  if (report.has_blocks) {
    const BlockStreamerStats& b = report.blocks;
    ImGui::Text("blocks: %zu resident, %zu queued, %zu holes, %zu pending upload%s", b.resident,
                b.queued + b.running, b.holes, report.block_pending,
                b.view_complete ? "" : ", loading");
    ImGui::Text("quads: %zu resident, %zu drawn; %.1f MiB, %.1f MiB GPU", b.quads,
                report.times.block_draw.quads, double(b.resident_bytes) / 1048576.0,
                double(report.block_gpu_bytes) / 1048576.0);
  }
  ImGui::TextDisabled("%s", report.renderer.c_str());
  if (!state.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.4f, 0.35f, 1.0f));
    ImGui::TextWrapped("%s", state.error.c_str());
    ImGui::PopStyleColor();
  }

  // Near the top: with --nav or the brush it is what one looks at (open from the start then).
  draw_brush_section(state, preset, report, req);
  draw_nav_section(state, report, req);

  // Height edits sit on the preset's base terrain: while there are any (or a world file is
  // open, whose preset is stored with them), the preset cannot change.
  const bool locked = !state.preset_locked.empty();
  if (ImGui::CollapsingHeader("World", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (locked) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.3f, 1.0f));
      ImGui::TextWrapped("%s", state.preset_locked.c_str());
      ImGui::PopStyleColor();
    }
    ImGui::BeginDisabled(locked);
    const std::vector<std::string> names = builtin_preset_names();
    if (ImGui::BeginCombo("preset", source.name_or_path.c_str())) {
      for (const std::string& n : names) {
        if (ImGui::Selectable(n.c_str(), n == source.name_or_path)) {
          source.name_or_path = n;
          source.edits.clear();
          req.rebuild = true;
        }
      }
      ImGui::EndCombo();
    }
    char path[512];
    std::snprintf(path, sizeof path, "%s", state.path_input.c_str());
    if (ImGui::InputText("file", path, sizeof path)) state.path_input = path;
    ImGui::SameLine();
    if (ImGui::Button("Load") && !state.path_input.empty()) {
      source.name_or_path = state.path_input;
      source.edits.clear();
      req.rebuild = true;
    }
    unsigned long long seed = preset.seed;
    if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, nullptr, nullptr, nullptr,
                           ImGuiInputTextFlags_EnterReturnsTrue)) {
      source.edits["seed"] = std::to_string(seed);
      req.rebuild = true;
    }
    if (ImGui::Button("Reload")) req.rebuild = true;
    ImGui::SameLine();
    if (ImGui::Button("Reset edits")) {
      source.edits.clear();
      req.rebuild = true;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Grow")) req.grow = true;
    ImGui::SameLine();
    if (ImGui::Button("Screenshot")) req.screenshot = true;
  }

  if (ImGui::CollapsingHeader("Graph", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::BeginDisabled(locked);
    nlohmann::json doc = nlohmann::json::parse(preset.canonical_json, nullptr, false);
    if (doc.is_object() && doc.contains("graph") && doc["graph"].contains("nodes")) {
      for (auto& [id, node] : doc["graph"]["nodes"].items()) {
        const std::string type = node.value("type", std::string("?"));
        if (!ImGui::TreeNode(id.c_str(), "%s (%s)", id.c_str(), type.c_str())) continue;
        for (auto& [field, value] : node.items()) {
          if (field == "type") continue;
          std::string out;
          if (edit_value(field + "##" + id, value, out)) {
            source.edits["graph.nodes." + id + "." + field] = out;
            req.rebuild = true;
          }
        }
        ImGui::TreePop();
      }
    }
    ImGui::EndDisabled();
  }

  if (ImGui::CollapsingHeader("Layers and overlays", ImGuiTreeNodeFlags_DefaultOpen)) {
    DrawSettings& d = state.draw;
    ImGui::Checkbox("terrain", &d.terrain);
    ImGui::SameLine();
    ImGui::Checkbox("water", &d.water);
    ImGui::SameLine();
    ImGui::Checkbox("scatter", &d.scatter);
    ImGui::Checkbox("sky", &d.sky);
    ImGui::SameLine();
    ImGui::Checkbox("fog", &d.fog);
    ImGui::SameLine();
    ImGui::Checkbox("wireframe", &d.wireframe);
    ImGui::SameLine();
    ImGui::Checkbox("blocks", &d.blocks);
    int overlay = int(d.overlay);
    for (int k = 0; k < kOverlayCount; ++k) {
      if (k > 0 && k != 4) ImGui::SameLine();
      ImGui::RadioButton(kOverlayNames[k], &overlay, k);
    }
    d.overlay = Overlay(overlay);
    float walkable = float(d.walkable_deg);
    if (ImGui::SliderFloat("walkable limit", &walkable, 5.0f, 80.0f, "%.0f deg")) {
      d.walkable_deg = walkable;
    }
    float reach = float(d.scatter_distance_m);
    if (ImGui::SliderFloat("scatter distance", &reach, 100.0f, 5000.0f, "%.0f m")) {
      d.scatter_distance_m = reach;
    }
  }

  if (ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Text("x %.1f  y %.1f  z %.1f  yaw %.0f  pitch %.0f", camera.x_m, camera.y_m, camera.z_m,
                camera.yaw_deg, camera.pitch_deg);
    ImGui::Checkbox("walk (1.8 m above ground)", &state.walk);
    float speed = float(state.speed_m_s);
    if (ImGui::SliderFloat("speed", &speed, 1.0f, 5000.0f, "%.0f m/s",
                           ImGuiSliderFlags_Logarithmic)) {
      state.speed_m_s = speed;
    }
    ImGui::InputDouble("x##tp", &state.teleport[0], 0.0, 0.0, "%.1f");
    ImGui::InputDouble("z##tp", &state.teleport[1], 0.0, 0.0, "%.1f");
    if (ImGui::Button("Teleport")) req.teleport = glm::dvec2(state.teleport[0], state.teleport[1]);
    ImGui::TextDisabled("WASD move, QE down/up, right mouse look, wheel speed, shift sprint,");
    ImGui::TextDisabled("F1 panel, F2 walk, F5 reload, F12 screenshot, Esc quit,");
    ImGui::TextDisabled("B brush, Ctrl+Z undo, Ctrl+Y / Ctrl+Shift+Z redo, Ctrl+S save");
  }
  ImGui::End();
  return req;
}

}  // namespace terrane::view
