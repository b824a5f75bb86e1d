// terrane-view: an interactive 3D viewer of a preset's streamed world (GLFW, OpenGL 3.3 core
// through libepoxy, Dear ImGui), and an offscreen renderer for CI and docs. The library knows
// nothing of GL: everything here goes through its public Streamer and TerrainQuery.
#include <epoxy/gl.h>
// epoxy first: GLFW must not include the system GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gl_util.hpp"
#include "panel.hpp"
#include "session.hpp"
#include "terrane/core.hpp"
#include "terrane/io.hpp"

namespace fs = std::filesystem;
using terrane::view::Camera;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string preset = "default";
  std::vector<std::string> overrides;
  std::optional<std::uint64_t> seed;
  bool offscreen = false;
  std::string size = "1280x720";
  int width = 1280, height = 720;
  std::vector<double> camera;  // x,y,z
  std::optional<double> above_ground;
  std::vector<double> look;    // yaw,pitch
  std::vector<double> velocity;
  double fov_deg = 60.0;
  std::string overlay = "none";
  bool wireframe = false;
  int frames = -1;
  std::string screenshot;
  std::string stats;
  bool no_drain = false;
  bool preload = false;
  bool walk = false;
  bool watch = false;
  bool key_colour = false;
  std::vector<std::string> hide;
  double grow = 1.0;
  double drain_timeout_s = 300.0;
  std::string worker_priority = "normal";
  double max_fps = 60.0;
  terrane::view::WorldOptions world;
};

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "terrane-view: error: " << message << "\n";
  std::exit(1);
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t k = std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5));
  return v[k];
}

void write_screenshot(const fs::path& path, int width, int height) {
  const std::vector<unsigned char> rgb = terrane::view::read_pixels_rgb(width, height);
  terrane::write_png8(path, width, height, 3, rgb);
}

fs::file_time_type mtime_or_min(const std::string& path) {
  std::error_code ec;
  const auto t = fs::last_write_time(path, ec);
  return ec ? fs::file_time_type::min() : t;
}

// A context of at least OpenGL 3.3 core on an invisible or visible window; clear errors for a
// missing display and an older OpenGL.
GLFWwindow* open_window(const Options& o) {
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  const bool has_display = (display != nullptr && *display != 0) || (wayland != nullptr && *wayland != 0);
  if (!has_display) {
    fail(std::string("no display (DISPLAY is not set): ") +
         (o.offscreen ? "offscreen rendering still needs an X server; "
                      : "to render without a screen, ") +
         "run under a virtual one, e.g. xvfb-run -a -s '-screen 0 1920x1080x24' terrane-view " +
         o.preset + " --offscreen --screenshot shot.png");
  }
  glfwSetErrorCallback([](int code, const char* text) {
    std::cerr << "terrane-view: GLFW error " << code << ": " << text << "\n";
  });
  if (glfwInit() == GLFW_FALSE) {
    fail("cannot initialise GLFW on display '" + std::string(display != nullptr ? display : "") +
         "'; without a usable display, run under xvfb-run");
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, o.offscreen ? GLFW_FALSE : GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(o.offscreen ? 64 : o.width, o.offscreen ? 64 : o.height,
                                        "terrane-view", nullptr, nullptr);
  if (window == nullptr) {
    // Say what the display offers instead.
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    std::string found = "no OpenGL context at all";
    if (GLFWwindow* probe = glfwCreateWindow(16, 16, "probe", nullptr, nullptr)) {
      glfwMakeContextCurrent(probe);
      found = "OpenGL " + terrane::view::context_description();
      glfwDestroyWindow(probe);
    }
    glfwTerminate();
    fail("terrane-view needs an OpenGL 3.3 core context; this display offers " + found);
  }
  glfwMakeContextCurrent(window);
  int major = 0, minor = 0;
  terrane::view::context_version(major, minor);
  if (major * 10 + minor < 33) {
    fail("terrane-view needs OpenGL 3.3 core; the context is " + terrane::view::context_description());
  }
  glfwSwapInterval(o.offscreen ? 0 : 1);
  return window;
}

struct Input {
  double scroll = 0.0;
  bool screenshot = false, reload = false, toggle_panel = false, toggle_walk = false;
};
Input g_input;

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"terrane-view: fly over a preset's streamed world"};
  app.add_option("preset", o.preset, "builtin preset name or JSON file (default: default)");
  app.add_option("--set", o.overrides, "preset override a.b.c=value (repeatable)");
  app.add_option("--seed", o.seed, "world seed");
  app.add_flag("--offscreen", o.offscreen, "render without showing a window (CI, docs)");
  app.add_option("--size", o.size, "WIDTHxHEIGHT of the picture or window (default 1280x720)");
  app.add_option("--camera", o.camera, "x,y,z of the camera [m]")->delimiter(',')->expected(3);
  app.add_option("--above-ground", o.above_ground,
                 "put the camera this high above the ground (or the sea) at its x, z [m]")
      ->check(CLI::Range(0.5, 1.0e6));
  app.add_option("--look", o.look, "yaw,pitch [deg]: yaw 0 looks along +Z, 90 along +X; pitch < 0 down")
      ->delimiter(',')
      ->expected(2);
  app.add_option("--velocity", o.velocity, "vx,vy,vz [m/s]: the camera flies (1/30 s per frame offscreen)")
      ->delimiter(',')
      ->expected(3);
  app.add_option("--fov", o.fov_deg, "vertical field of view [deg]")->check(CLI::Range(10.0, 120.0));
  app.add_option("--overlay", o.overlay, "none, lod, borders, slope, layers or biomes");
  app.add_flag("--wireframe", o.wireframe, "draw the triangles' edges");
  app.add_option("--frames", o.frames, "frames to render offscreen before the picture (default 1)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--screenshot", o.screenshot, "PNG to write (offscreen: after the last frame)");
  app.add_option("--stats", o.stats, "JSON file of frame timings (offscreen)");
  app.add_flag("--no-drain", o.no_drain, "take the picture without waiting for the view to load");
  app.add_flag("--preload", o.preload, "load the view at the start position before the frames");
  app.add_flag("--walk", o.walk, "walk 1.8 m above the ground");
  app.add_flag("--watch", o.watch, "reload the preset file when it changes");
  app.add_flag("--key-colour", o.key_colour, "magenta background, terrain only (crack tests)");
  app.add_option("--hide", o.hide, "layers to hide: terrain, water, scatter, sky, fog")->delimiter(',');
  app.add_option("--grow", o.grow, "growth animation state 0..1 (1: full height)")->check(CLI::Range(0.0, 1.0));
  app.add_option("--view", o.world.view_distance_m, "view distance [m]")->check(CLI::Range(100.0, 1.0e6));
  app.add_option("--cells", o.world.cells, "cells per chunk side (power of two, 8..1024)");
  app.add_option("--threads", o.world.threads, "streamer worker threads (0: all cores)")->check(CLI::Range(0, 256));
  app.add_option("--upload-budget-ms", o.world.upload_budget_ms,
                 "time per frame for uploading ready chunks outside the view [ms]")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--worker-priority", o.worker_priority,
                 "streamer workers: normal (default), low (nice 10) or background (SCHED_IDLE)")
      ->check(CLI::IsMember({"normal", "low", "background"}));
  app.add_option("--max-fps", o.max_fps, "interactive frame-rate cap (leaves the workers time)")
      ->check(CLI::Range(1.0, 1000.0));
  app.add_option("--drain-timeout", o.drain_timeout_s, "seconds to wait for the view to load")
      ->check(CLI::Range(1.0, 3600.0));
  CLI11_PARSE(app, argc, argv);
  o.world.worker_priority = o.worker_priority == "low"          ? terrane::WorkerPriority::low
                            : o.worker_priority == "background" ? terrane::WorkerPriority::background
                                                                : terrane::WorkerPriority::normal;

  if (std::sscanf(o.size.c_str(), "%dx%d", &o.width, &o.height) != 2 || o.width < 16 ||
      o.height < 16 || o.width > 8192 || o.height > 8192) {
    fail("--size '" + o.size + "' must be WIDTHxHEIGHT, each 16..8192");
  }
  terrane::view::DrawSettings draw;
  {
    int k = 0;
    for (; k < terrane::view::kOverlayCount; ++k) {
      if (o.overlay == terrane::view::kOverlayNames[k]) break;
    }
    if (k == terrane::view::kOverlayCount) {
      fail("--overlay '" + o.overlay + "' must be one of none, lod, borders, slope, layers, biomes");
    }
    draw.overlay = terrane::view::Overlay(k);
  }
  for (const std::string& h : o.hide) {
    if (h == "terrain") draw.terrain = false;
    else if (h == "water") draw.water = false;
    else if (h == "scatter") draw.scatter = false;
    else if (h == "sky") draw.sky = false;
    else if (h == "fog") draw.fog = false;
    else fail("--hide '" + h + "': the layers are terrain, water, scatter, sky, fog");
  }
  draw.wireframe = o.wireframe;
  draw.key_colour = o.key_colour;
  draw.grow = o.grow;
  // Interactive: --frames N closes the window after N frames (writing --screenshot first), so
  // tests and docs can run the panel too.
  const int interactive_frames = o.frames;
  if (o.frames < 0) o.frames = 1;

  terrane::view::PresetSource source{o.preset, o.overrides, {}};
  if (o.seed) source.edits["seed"] = std::to_string(*o.seed);
  terrane::Preset preset;
  try {
    preset = source.load();
  } catch (const std::exception& e) {
    fail(e.what());
  }

  GLFWwindow* window = open_window(o);
  const auto t_start = Clock::now();
  std::unique_ptr<terrane::view::Session> session;
  try {
    session = std::make_unique<terrane::view::Session>(preset, o.world);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  const double session_ms = std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
  const std::string renderer_name = terrane::view::context_description();

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
      // over mountains, 250 m above a valley floor looks into a wall.
      const double ground =
          std::max(session->ground_m(camera.x_m, camera.z_m), preset.world.sea_level_m);
      camera.y_m = ground + o.above_ground.value_or(
                                std::max(250.0, 0.5 * (preset.world.height_max_m - ground)));
    }
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (!o.look.empty()) {
    camera.yaw_deg = o.look[0];
    camera.pitch_deg = std::clamp(o.look[1], -89.0, 89.0);
  }
  glm::dvec3 velocity(0.0);
  if (!o.velocity.empty()) velocity = {o.velocity[0], o.velocity[1], o.velocity[2]};

  std::vector<double> frame_ms, stream_us, upload_ms;
  std::size_t forced = 0;
  terrane::view::FrameTimes last{};

  if (o.offscreen) {
    auto target = std::make_unique<terrane::view::OffscreenTarget>(o.width, o.height);
    target->bind();
    // Offscreen frames advance the camera by 1/30 s each; while it flies they are also paced
    // at 30 per second of real time, so the streamer's workers see a real flight.
    const double dt = 1.0 / 30.0;
    const bool paced = glm::length(velocity) > 0.0;
    // Milliseconds from the session's start to the first view without holes, and to the
    // complete view (every selected chunk resident and visible).
    double first_view_ms = -1.0, complete_view_ms = -1.0;
    auto note_view = [&] {
      const terrane::StreamerStats st = session->streamer().stats();
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
      if (first_view_ms < 0.0 && st.visible > 0 && st.holes == 0) first_view_ms = ms;
      if (complete_view_ms < 0.0 && st.view_complete) complete_view_ms = ms;
    };
    auto step = [&] {
      const auto t0 = Clock::now();
      if (o.walk) camera.y_m = session->ground_m(camera.x_m, camera.z_m) + 1.8;
      last = session->frame(camera, velocity, o.width, o.height, draw);
      glFinish();
      note_view();
      frame_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      stream_us.push_back(last.stream_us);
      upload_ms.push_back(last.upload.ms);
      forced += last.upload.forced;
      camera.x_m += velocity.x * dt;
      camera.y_m += velocity.y * dt;
      camera.z_m += velocity.z * dt;
      if (paced) std::this_thread::sleep_until(t0 + std::chrono::microseconds(33333));
    };
    // Streams without drawing until the view is complete: llvmpipe's rasteriser threads would
    // otherwise take the cores from the streamer's background-priority workers.
    auto drain = [&] {
      const auto t0 = Clock::now();
      while (!session->streamer().stats().view_complete) {
        if (std::chrono::duration<double>(Clock::now() - t0).count() > o.drain_timeout_s) {
          fail("the view did not finish loading within " + std::to_string(o.drain_timeout_s) + " s");
        }
        session->stream(camera, glm::dvec3(0.0));
        note_view();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    };
    try {
      if (o.preload) drain();
      for (int f = 0; f < o.frames; ++f) step();
      if (!o.no_drain) {
        const glm::dvec3 keep = velocity;
        velocity = glm::dvec3(0.0);
        drain();
        step();  // the complete view, drawn
        velocity = keep;
      }
    } catch (const std::exception& e) {
      fail(e.what());
    }
    if (!o.screenshot.empty()) {
      try {
        write_screenshot(o.screenshot, o.width, o.height);
      } catch (const std::exception& e) {
        fail(e.what());
      }
    }
    const terrane::StreamerStats s = session->streamer().stats();
    nlohmann::json j = {
        {"renderer", renderer_name},
        {"size", {o.width, o.height}},
        {"frames", frame_ms.size()},
        {"frame_ms_p50", percentile(frame_ms, 0.5)},
        {"frame_ms_p99", percentile(frame_ms, 0.99)},
        {"fps_p50", 1000.0 / std::max(percentile(frame_ms, 0.5), 1e-6)},
        {"stream_us_p50", percentile(stream_us, 0.5)},
        {"stream_us_p99", percentile(stream_us, 0.99)},
        {"upload_ms_p50", percentile(upload_ms, 0.5)},
        {"upload_ms_p99", percentile(upload_ms, 0.99)},
        {"upload_budget_ms", o.world.upload_budget_ms},
        {"session_ms", session_ms},
        {"first_view_ms", first_view_ms},
        {"complete_view_ms", complete_view_ms},
        {"forced_uploads", forced},
        {"chunks_drawn", last.draw.chunks_drawn},
        {"triangles", last.draw.triangles},
        {"instances", last.draw.instances},
        {"visible", s.visible},
        {"resident_chunks", s.resident_chunks},
        {"view_complete", s.view_complete},
        {"gpu_bytes", session->renderer().gpu_bytes()},
        {"camera", {camera.x_m, camera.y_m, camera.z_m}}};
    if (!o.stats.empty()) {
      std::ofstream(o.stats) << j.dump(2) << "\n";
    }
    std::cout << j.dump() << "\n";
    session.reset();
    target.reset();
    glfwDestroyWindow(window);
    glfwTerminate();
    return 0;
  }

  // Interactive.
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  glfwSetScrollCallback(window, [](GLFWwindow* w, double dx, double dy) {
    ImGui_ImplGlfw_ScrollCallback(w, dx, dy);
    if (!ImGui::GetIO().WantCaptureMouse) g_input.scroll += dy;
  });
  glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int scancode, int action, int mods) {
    ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods);
    if (action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) return;
    if (key == GLFW_KEY_F12) g_input.screenshot = true;
    if (key == GLFW_KEY_F5) g_input.reload = true;
    if (key == GLFW_KEY_F1) g_input.toggle_panel = true;
    if (key == GLFW_KEY_F2) g_input.toggle_walk = true;
    if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(w, GLFW_TRUE);
  });

  terrane::view::PanelState panel;
  panel.draw = draw;
  panel.walk = o.walk;
  panel.path_input = fs::exists(o.preset) ? o.preset : std::string();
  bool show_panel = true;
  bool dirty = false;
  auto last_rebuild = Clock::now();
  auto watched = mtime_or_min(source.name_or_path);
  auto last_watch = Clock::now();
  double grow_t = -1.0;  // growth animation time, < 0 when not running
  int shot = 0;
  int frame_count = 0;
  double last_x = 0.0, last_y = 0.0;
  bool looking = false;
  auto previous = Clock::now();
  terrane::view::FrameReport report;
  report.renderer = renderer_name;

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
    panel.speed_m_s = std::clamp(panel.speed_m_s * std::pow(1.25, g_input.scroll), 1.0, 20000.0);
    g_input.scroll = 0.0;
    if (g_input.toggle_walk) panel.walk = !panel.walk;
    if (g_input.toggle_panel) show_panel = !show_panel;
    g_input.toggle_walk = g_input.toggle_panel = false;
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
      report.times = session->frame(camera, velocity, std::max(fw, 1), std::max(fh, 1), panel.draw);
    } catch (const std::exception& e) {
      panel.error = e.what();
    }
    report.stream = session->streamer().stats();
    report.gpu_bytes = session->renderer().gpu_bytes();

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    terrane::view::PanelRequests req;
    if (show_panel) req = draw_panel(panel, source, session->preset(), camera, report);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frame_count;
    const bool last_frame = interactive_frames > 0 && frame_count >= interactive_frames;
    if (last_frame) glfwSetWindowShouldClose(window, GLFW_TRUE);
    if (g_input.screenshot || req.screenshot || (last_frame && !o.screenshot.empty())) {
      const std::string name = last_frame && !o.screenshot.empty()
                                   ? o.screenshot
                                   : "terrane-view-" + std::to_string(++shot) + ".png";
      try {
        write_screenshot(name, fw, fh);
        std::cerr << "terrane-view: wrote " << name << "\n";
      } catch (const std::exception& e) {
        panel.error = e.what();
      }
      g_input.screenshot = false;
    }
    glfwSwapBuffers(window);
    report.frame_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::this_thread::sleep_until(now + std::chrono::microseconds(std::int64_t(1e6 / o.max_fps)));

    if (req.grow) grow_t = 0.0, panel.draw.grow = 0.0;
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
    if (req.rebuild || g_input.reload) dirty = true;
    g_input.reload = false;
    // Live edits rebuild at most every 0.3 s; an invalid preset keeps the last valid world.
    if (dirty && std::chrono::duration<double>(now - last_rebuild).count() > 0.3) {
      dirty = false;
      last_rebuild = now;
      try {
        const auto t_load = Clock::now();
        auto next = std::make_unique<terrane::view::Session>(source.load(), o.world);
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
