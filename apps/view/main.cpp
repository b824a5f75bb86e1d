// terrane-view: an interactive 3D viewer of a preset's streamed world (GLFW, OpenGL 3.3 core
// through libepoxy, Dear ImGui), and an offscreen renderer for CI and docs. The library knows
// nothing of GL: everything here goes through its public Streamer and TerrainQuery.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "app.hpp"
#include "gl_util.hpp"

namespace {

using namespace terrane::view;
using Clock = std::chrono::steady_clock;

// The starting camera: --camera, else over land near the origin; --above-ground, else half-way
// up to the preset's highest height; --look.
Camera start_camera(const Options& o, const terrane::Preset& preset, const Session* session) {
  Camera camera;
  camera.fov_deg = o.fov_deg;
  if (!o.camera.empty()) {
    camera.x_m = o.camera[0];
    camera.y_m = o.camera[1];
    camera.z_m = o.camera[2];
  }
  try {
    if (o.camera.empty()) {
      // Start over land: the nearest of rings of points around the origin whose ground is 20 m
      // above the sea (islands start at sea otherwise).
      const double sea = preset.world.sea_level_m;
      bool found = session->ground_m(0.0, 0.0) > sea + 20.0;
      for (int ring = 1; ring <= 60 && !found; ++ring) {
        for (int k = 0; k < 24 && !found; ++k) {
          const double a = 6.283185307179586 * k / 24.0, r = 500.0 * ring;
          if (session->ground_m(r * std::cos(a), r * std::sin(a)) > sea + 20.0) {
            camera.x_m = r * std::cos(a);
            camera.z_m = r * std::sin(a);
            found = true;
          }
        }
      }
    }
    if (o.above_ground || o.camera.empty()) {
      // By default half-way from the ground to the preset's highest height (at least 250 m up):
      // over mountains, 250 m above a valley floor looks into a wall. With --blocks 30 m up,
      // inside the block world's vertical range.
      const double ground =
          std::max(session->ground_m(camera.x_m, camera.z_m), preset.world.sea_level_m);
      const double up =
          o.world.blocks ? 30.0 : std::max(250.0, 0.5 * (preset.world.height_max_m - ground));
      camera.y_m = ground + o.above_ground.value_or(up);
    }
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (!o.look.empty()) {
    camera.yaw_deg = o.look[0];
    camera.pitch_deg = std::clamp(o.look[1], -89.0, 89.0);
  }
  return camera;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const int status = parse_options(argc, argv, o); status >= 0) return status;
  PresetSource source{o.preset, o.overrides, {}};
  if (o.seed) source.edits["seed"] = std::to_string(*o.seed);
  // The preset argument may be a world file (preset + seed + edits); --world FILE saves into one.
  OpenedWorld opened = open_world(o, source);
  const terrane::Preset& preset = opened.preset;
  Editing editing;
  editing.file = std::move(opened.file);
  if (o.save && editing.file == nullptr) {
    fail("--save needs a world file to save into: --world FILE, or a world file as the preset");
  }

  GLFWwindow* window = open_window(o);
  StartTimes start;
  start.t_start = Clock::now();
  std::unique_ptr<Session> session;
  try {
    editing.tool = editing.file != nullptr ? editing.file->make_tool() : make_unsaved_tool(preset);
    // Every layer as the tool holds it (a world file's edits, or none).
    session = std::make_unique<Session>(
        preset, o.world, editing.tool->snapshot(), editing.tool->block_snapshot(),
        editing.tool->instance_snapshot(), editing.tool->paint_snapshot());
  } catch (const std::exception& e) {
    fail(e.what());
  }
  start.session_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - start.t_start).count();
  start.renderer = context_description();
  const Camera camera = start_camera(o, preset, session.get());
  glm::dvec3 velocity(0.0);
  if (!o.velocity.empty()) velocity = {o.velocity[0], o.velocity[1], o.velocity[2]};
  return o.offscreen ? run_offscreen(o, window, std::move(session), std::move(editing), camera,
                                     velocity, start)
                     : run_interactive(o, window, std::move(source), std::move(session),
                                       std::move(editing), camera, velocity, start);
}
