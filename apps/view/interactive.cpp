// terrane-view's window: the fly / walk camera, the ImGui panel, live preset edits and --watch
// (an invalid preset keeps the last valid world), the growth animation, screenshots.
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "app.hpp"
#include "panel.hpp"

namespace terrane::view {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

fs::file_time_type mtime_or_min(const std::string& path) {
  std::error_code ec;
  const auto t = fs::last_write_time(path, ec);
  return ec ? fs::file_time_type::min() : t;
}

// What the GLFW callbacks saw since the last frame (the window's user pointer).
struct Input {
  double scroll = 0.0;
  bool screenshot = false, reload = false, toggle_panel = false, toggle_walk = false;
  // A left click outside the panel, at this cursor position (window coordinates): the
  // navmesh path's next point. Taken from the callback: a click can be shorter than a frame.
  std::optional<glm::dvec2> click;
};

Input& input_of(GLFWwindow* w) {
  return *static_cast<Input*>(glfwGetWindowUserPointer(w));
}

// The ground point under the cursor (window coordinates): the ray through the pixel against the
// level-0 surface (TerrainQuery::raycast), within the view distance.
std::optional<std::array<double, 3>> pick_ground(GLFWwindow* window, Session& session,
                                                 const Camera& camera, double mx, double my) {
  int ww = 0, wh = 0, fw = 0, fh = 0;
  glfwGetWindowSize(window, &ww, &wh);
  glfwGetFramebufferSize(window, &fw, &fh);
  if (ww <= 0 || wh <= 0) return std::nullopt;
  const FrameView view =
      frame_view(camera, std::max(fw, 1), std::max(fh, 1), session.options().view_distance_m);
  const glm::mat4 inverse = glm::inverse(view.view_proj);
  const float nx = float(2.0 * mx / ww - 1.0), ny = float(1.0 - 2.0 * my / wh);
  const glm::vec4 p_near = inverse * glm::vec4(nx, ny, -1.0f, 1.0f);
  const glm::vec4 p_far = inverse * glm::vec4(nx, ny, 1.0f, 1.0f);
  const glm::dvec3 dir =
      glm::dvec3(p_far) / double(p_far.w) - glm::dvec3(p_near) / double(p_near.w);
  if (!(glm::length(dir) > 0.0)) return std::nullopt;
  const auto hit = session.streamer().query().raycast(
      camera.x_m, camera.y_m, camera.z_m, dir.x, dir.y, dir.z, session.options().view_distance_m);
  if (!hit) return std::nullopt;
  return std::array<double, 3>{hit->x_m, hit->y_m, hit->z_m};
}

}  // namespace

int run_interactive(const Options& o, GLFWwindow* window, PresetSource source,
                    std::unique_ptr<Session> session, Camera camera, glm::dvec3 velocity,
                    const StartTimes& start) {
  const std::string& renderer_name = start.renderer;
  Input input;
  glfwSetWindowUserPointer(window, &input);
  // Interactive.
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  glfwSetScrollCallback(window, [](GLFWwindow* w, double dx, double dy) {
    ImGui_ImplGlfw_ScrollCallback(w, dx, dy);
    if (!ImGui::GetIO().WantCaptureMouse) input_of(w).scroll += dy;
  });
  glfwSetMouseButtonCallback(window, [](GLFWwindow* w, int button, int action, int mods) {
    ImGui_ImplGlfw_MouseButtonCallback(w, button, action, mods);
    if (button != GLFW_MOUSE_BUTTON_LEFT || action != GLFW_PRESS ||
        ImGui::GetIO().WantCaptureMouse) {
      return;
    }
    double x = 0.0, y = 0.0;
    glfwGetCursorPos(w, &x, &y);
    input_of(w).click = glm::dvec2(x, y);
  });
  glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int scancode, int action, int mods) {
    ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods);
    if (action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) return;
    Input& in = input_of(w);
    if (key == GLFW_KEY_F12) in.screenshot = true;
    if (key == GLFW_KEY_F5) in.reload = true;
    if (key == GLFW_KEY_F1) in.toggle_panel = true;
    if (key == GLFW_KEY_F2) in.toggle_walk = true;
    if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(w, GLFW_TRUE);
  });

  PanelState panel;
  panel.draw = o.draw;
  panel.walk = o.walk;
  panel.path_input = fs::exists(o.preset) ? o.preset : std::string();
  bool show_panel = true;
  bool dirty = false;
  bool rebuilt = false;  // a rebuilt world whose first view is pending, built at rebuilt_at
  Clock::time_point rebuilt_at = Clock::now();
  auto last_rebuild = Clock::now();
  auto watched = mtime_or_min(source.name_or_path);
  auto last_watch = Clock::now();
  double grow_t = -1.0;  // growth animation time, < 0 when not running
  int shot = 0;
  int frame_count = 0;
  double last_x = 0.0, last_y = 0.0;
  bool looking = false;
  auto previous = Clock::now();
  FrameReport report;
  report.renderer = renderer_name;
  WorldOptions world = o.world;  // for rebuilt worlds: the panel turns the navmesh on and off

  while (glfwWindowShouldClose(window) == GLFW_FALSE) {
    glfwPollEvents();
    const auto now = Clock::now();
    const double dt = std::min(std::chrono::duration<double>(now - previous).count(), 0.25);
    previous = now;

    // Camera: right mouse to look, WASD/QE to move, wheel for speed, shift to sprint.
    double mx = 0.0, my = 0.0;
    glfwGetCursorPos(window, &mx, &my);
    const bool rmb = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS &&
                     !ImGui::GetIO().WantCaptureMouse;
    if (rmb && looking) {
      camera.yaw_deg -= (mx - last_x) * 0.15;
      camera.pitch_deg = std::clamp(camera.pitch_deg - (my - last_y) * 0.15, -89.0, 89.0);
    }
    looking = rmb;
    last_x = mx;
    last_y = my;
    // Left click on the ground: the navmesh path's start, then its end.
    if (input.click && session->nav() != nullptr) {
      try {
        if (const auto hit =
                pick_ground(window, *session, camera, input.click->x, input.click->y)) {
          session->nav()->pick(*hit);
        }
      } catch (const std::exception& e) {
        panel.error = e.what();
      }
    }
    input.click.reset();
    panel.speed_m_s = std::clamp(panel.speed_m_s * std::pow(1.25, input.scroll), 1.0, 20000.0);
    input.scroll = 0.0;
    if (input.toggle_walk) panel.walk = !panel.walk;
    if (input.toggle_panel) show_panel = !show_panel;
    input.toggle_walk = input.toggle_panel = false;
    glm::dvec3 move(0.0);
    if (!ImGui::GetIO().WantCaptureKeyboard) {
      const glm::dvec3 f = camera.forward(), r = camera.right();
      const glm::dvec3 ground_f = glm::normalize(glm::dvec3(f.x, 0.0, f.z) + 1e-12);
      const glm::dvec3 fwd = panel.walk ? ground_f : f;
      if (glfwGetKey(window, GLFW_KEY_W) == GLFW_PRESS) move += fwd;
      if (glfwGetKey(window, GLFW_KEY_S) == GLFW_PRESS) move -= fwd;
      if (glfwGetKey(window, GLFW_KEY_D) == GLFW_PRESS) move += r;
      if (glfwGetKey(window, GLFW_KEY_A) == GLFW_PRESS) move -= r;
      if (glfwGetKey(window, GLFW_KEY_E) == GLFW_PRESS) move.y += 1.0;
      if (glfwGetKey(window, GLFW_KEY_Q) == GLFW_PRESS) move.y -= 1.0;
    }
    const bool sprint = glfwGetKey(window, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS;
    const double speed = (panel.walk ? 5.0 : panel.speed_m_s) * (sprint ? 5.0 : 1.0);
    velocity = glm::length(move) > 0.0 ? glm::normalize(move) * speed : glm::dvec3(0.0);
    camera.x_m = std::clamp(camera.x_m + velocity.x * dt, -1e11, 1e11);
    camera.y_m += velocity.y * dt;
    camera.z_m = std::clamp(camera.z_m + velocity.z * dt, -1e11, 1e11);
    try {
      const double ground = session->ground_m(camera.x_m, camera.z_m);
      camera.y_m = panel.walk ? ground + 1.8 : std::max(camera.y_m, ground + 1.0);
    } catch (const std::exception&) {
    }

    // Growth animation: 3 s, smoothstep.
    if (grow_t >= 0.0) {
      grow_t += dt;
      const double t = std::min(grow_t / 3.0, 1.0);
      panel.draw.grow = t * t * (3.0 - 2.0 * t);
      if (t >= 1.0) grow_t = -1.0;
    }

    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    const auto t0 = Clock::now();
    try {
      report.times =
          session->frame(camera, velocity, std::max(fw, 1), std::max(fh, 1), panel.draw, dt);
    } catch (const std::exception& e) {
      panel.error = e.what();
    }
    report.stream = session->streamer().stats();
    report.gpu_bytes = session->renderer().gpu_bytes();
    report.water = session->water().stats();
    report.has_blocks = session->blocks() != nullptr;
    if (report.has_blocks) {
      report.blocks = session->blocks()->stats();
      report.block_gpu_bytes = session->block_renderer()->gpu_bytes();
      report.block_pending = session->block_renderer()->pending();
    }
    report.has_nav = session->nav() != nullptr;
    if (report.has_nav) report.nav = session->nav()->report();

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    PanelRequests req;
    if (show_panel) req = draw_panel(panel, source, session->preset(), camera, report);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frame_count;
    // --frames N: close after N frames, but not before a rebuild that is due or whose first
    // view is pending has shown it (so a scripted edit is seen whatever the machine's speed).
    const bool last_frame =
        o.interactive_frames > 0 && frame_count >= o.interactive_frames && !dirty && !rebuilt;
    if (last_frame) glfwSetWindowShouldClose(window, GLFW_TRUE);
    if (input.screenshot || req.screenshot || (last_frame && !o.screenshot.empty())) {
      const std::string name = last_frame && !o.screenshot.empty()
                                   ? o.screenshot
                                   : "terrane-view-" + std::to_string(++shot) + ".png";
      try {
        write_screenshot(name, fw, fh);
        std::cerr << "terrane-view: wrote " << name << "\n";
      } catch (const std::exception& e) {
        panel.error = e.what();
      }
      input.screenshot = false;
    }
    glfwSwapBuffers(window);
    report.frame_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::this_thread::sleep_until(now + std::chrono::microseconds(std::int64_t(1e6 / o.max_fps)));

    if (req.grow) grow_t = 0.0, panel.draw.grow = 0.0;
    if (req.toggle_nav) {
      world.nav.on = !world.nav.on;
      try {
        session->set_nav(world.nav);
      } catch (const std::exception& e) {
        world.nav.on = false;
        panel.error = e.what();
      }
    }
    if (req.clear_path && session->nav() != nullptr) session->nav()->clear_path();
    if (req.teleport) {
      camera.x_m = req.teleport->x;
      camera.z_m = req.teleport->y;
      try {
        camera.y_m = std::max(session->ground_m(camera.x_m, camera.z_m),
                              session->preset().world.sea_level_m) +
                     250.0;
      } catch (const std::exception& e) {
        panel.error = e.what();
      }
    }
    if (o.watch && std::chrono::duration<double>(now - last_watch).count() > 0.5) {
      last_watch = now;
      const auto t = mtime_or_min(source.name_or_path);
      if (t != watched) {
        watched = t;
        dirty = true;
      }
    }
    if (req.rebuild || input.reload) dirty = true;
    input.reload = false;
    // --edit-at-frame: the panel's edit path, scripted (tests, figures).
    if (frame_count == o.edit_at_frame) {
      for (const std::string& e : o.edits) {
        const std::size_t eq = e.find('=');
        source.edits[e.substr(0, eq)] = eq == std::string::npos ? std::string() : e.substr(eq + 1);
      }
      dirty = true;
      last_rebuild = now - std::chrono::seconds(1);
    }
    // The first view without holes of a rebuilt world, reported once.
    if (rebuilt) {
      const StreamerStats st = session->streamer().stats();
      if (st.visible > 0 && st.holes == 0) {
        std::cerr << "terrane-view: view of the new world after "
                  << std::chrono::duration<double, std::milli>(Clock::now() - rebuilt_at).count()
                  << " ms\n";
        rebuilt = false;
      }
    }
    // Live edits rebuild at most every 0.3 s; an invalid preset keeps the last valid world.
    if (dirty && std::chrono::duration<double>(now - last_rebuild).count() > 0.3) {
      dirty = false;
      last_rebuild = now;
      try {
        const auto t_load = Clock::now();
        auto next = std::make_unique<Session>(source.load(), world);
        if (next->nav() != nullptr && session->nav() != nullptr) {
          next->nav()->copy_path_from(*session->nav());
        }
        rebuilt_at = t_load;
        rebuilt = true;
        session = std::move(next);
        panel.error.clear();
        std::cerr << "terrane-view: loaded " << source.name_or_path << " ("
                  << source.overrides().size() << " overrides) in "
                  << std::chrono::duration<double, std::milli>(Clock::now() - t_load).count()
                  << " ms\n";
      } catch (const std::exception& e) {
        panel.error = e.what();
        std::cerr << "terrane-view: " << e.what() << " (the last valid world keeps rendering)\n";
      }
    }
  }
  session.reset();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}

}  // namespace terrane::view
