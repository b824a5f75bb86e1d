// terrane-view's window: the fly / walk camera, the ImGui panel, live preset edits and --watch
// (an invalid preset keeps the last valid world), the growth animation, screenshots, and the
// brush tool (B: the preview circle under the cursor, left-drag paints the panel's layer:
// heights, blocks under the cursor with --blocks, scatter instances, splat paint; Ctrl+Z / Ctrl+Y
// undo and redo a drag at a time across the layers, Ctrl+S saves every layer into the world
// file).
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app.hpp"
#include "brush_preview.hpp"
#include "panel.hpp"

namespace terrane::view {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A slow frame catches up on this many brush strokes at most (the rest are dropped).
constexpr int kMaxStrokesPerFrame = 8;

fs::file_time_type mtime_or_min(const std::string& path) {
  std::error_code ec;
  const auto t = fs::last_write_time(path, ec);
  return ec ? fs::file_time_type::min() : t;
}

// What the GLFW callbacks saw since the last frame (the window's user pointer).
struct Input {
  double scroll = 0.0;
  bool screenshot = false, reload = false, toggle_panel = false, toggle_walk = false;
  bool toggle_brush = false, undo = false, redo = false, save = false;
  // A left click outside the panel, at this cursor position (window coordinates): the
  // navmesh path's next point. Taken from the callback: a click can be shorter than a frame.
  std::optional<glm::dvec2> click;
  bool trace = false;  // --trace-input
};

// --trace-input: one line for each thing the window did with its input, so a script driving
// the window waits for the window (not for the clock) before its next step.
void trace(const Input& in, const std::string& line) {
  if (in.trace) std::cerr << "terrane-view: input: " << line << "\n";
}

Input& input_of(GLFWwindow* w) {
  return *static_cast<Input*>(glfwGetWindowUserPointer(w));
}

// The ground point under the cursor (window coordinates): the ray through the pixel against the
// level-0 surface (TerrainQuery::raycast, with the edits), within the view distance.
std::optional<RayHit> pick_ground(GLFWwindow* window, const Session& session, const Camera& camera,
                                  double mx, double my) {
  int ww = 0, wh = 0;
  glfwGetWindowSize(window, &ww, &wh);
  return session.pick(camera, ww, wh, mx, my);
}

std::optional<Session::BlockPick> pick_block(GLFWwindow* window, Session& session,
                                             const Camera& camera, double mx, double my) {
  int ww = 0, wh = 0;
  glfwGetWindowSize(window, &ww, &wh);
  return session.pick_block(camera, ww, wh, mx, my);
}

// The centre of a picked block (above: of the block above it), as a cursor point.
RayHit block_centre(Session& session, const Session::BlockPick& pick, bool above) {
  const double b = session.blocks()->generator().params().block_size_m;
  RayHit hit;
  hit.x_m = (double(pick.block[0]) + 0.5) * b;
  hit.y_m = (double(pick.block[1] + (above ? 1 : 0)) + 0.5) * b;
  hit.z_m = (double(pick.block[2]) + 0.5) * b;
  return hit;
}

// The brush's centre under the cursor: the ground, or with the block layer (--blocks) the centre
// of the hit block (fill: of the block above it), `block` the hit block.
std::optional<RayHit> pick_cursor(GLFWwindow* window, Session& session, const Camera& camera,
                                  double mx, double my, const BrushSettings& brush,
                                  std::optional<Session::BlockPick>& block) {
  block.reset();
  if (brush.layer != EditLayer::blocks || session.blocks() == nullptr) {
    return pick_ground(window, session, camera, mx, my);
  }
  block = pick_block(window, session, camera, mx, my);
  if (!block) return std::nullopt;
  return block_centre(session, *block, brush.block_kind == BlockBrushKind::fill);
}

// Why the preset cannot change now (empty: it can).
std::string preset_lock(const Editing& editing) {
  if (editing.file != nullptr) {
    return "The preset of " + editing.file->path() +
           " is stored with its edits: it cannot be edited here.";
  }
  if (editing.tool->has_edits()) {
    return "Brush edits sit on this preset's terrain: Discard edits (Brush) to edit the preset.";
  }
  return {};
}

}  // namespace

int run_interactive(const Options& o, GLFWwindow* window, PresetSource source,
                    std::unique_ptr<Session> session, Editing editing, Camera camera,
                    glm::dvec3 velocity, const StartTimes& start) {
  const std::string& renderer_name = start.renderer;
  Input input;
  input.trace = o.trace_input;
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
    if (button != GLFW_MOUSE_BUTTON_LEFT || action != GLFW_PRESS) return;
    if (ImGui::GetIO().WantCaptureMouse) {
      trace(input_of(w), "click on the panel");
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
    if ((mods & GLFW_MOD_CONTROL) != 0) {
      const bool shift = (mods & GLFW_MOD_SHIFT) != 0;
      if (key == GLFW_KEY_Z && !shift) in.undo = true;
      if (key == GLFW_KEY_Y || (key == GLFW_KEY_Z && shift)) in.redo = true;
      if (key == GLFW_KEY_S) in.save = true;
      return;
    }
    if (key == GLFW_KEY_B) in.toggle_brush = true;
    if (key == GLFW_KEY_F12) in.screenshot = true;
    if (key == GLFW_KEY_F5) in.reload = true;
    if (key == GLFW_KEY_F1) in.toggle_panel = true;
    if (key == GLFW_KEY_F2) in.toggle_walk = true;
    if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(w, GLFW_TRUE);
  });

  PanelState panel;
  panel.draw = o.draw;
  panel.walk = o.walk;
  panel.path_input = fs::exists(o.preset) && editing.file == nullptr ? o.preset : std::string();
  panel.brush = o.brush;
  panel.brush_on = !o.brushes.empty();
  BrushPreview preview;
  bool painting = false;  // a left drag of the brush is in progress
  int drag_strokes = 0;   // stroke batches handed to the world in this drag
  std::optional<glm::ivec2> traced_cursor;  // --trace-input: the cursor's last traced pixel
  int traced_ground = -1;  // and whether the brush found ground under it (1, 0; -1: not traced)
  auto next_stroke = Clock::now();
  std::optional<glm::dvec2> last_stroke;  // x, z of the drag's last stroke
  std::optional<RayHit> cursor;           // the ground under the cursor in brush mode
  // The block under the cursor (the block layer, --blocks); cursor is then its centre (fill: the
  // centre of the block above it).
  std::optional<Session::BlockPick> block_cursor;
  // --brush strokes in the window too (one undo step each), before the first frame.
  try {
    for (const BrushStroke& s : o.brushes) {
      editing.tool->begin_drag();
      editing.tool->apply(*session, s);
      editing.tool->end_drag();
    }
    for (int k = 0; k < o.undo; ++k) editing.tool->undo(*session);
    if (!o.brushes.empty()) {
      // The panel's block, species and splat layer: the last --brush's (its names resolve, as
      // apply resolved them).
      BrushStroke last = o.brushes.back();
      resolve_brush_names(last, session->preset());
      panel.brush.block = last.block.block;
      panel.brush.species = last.instance.species;
      panel.brush.paint_layer = last.paint.layer;
    }
  } catch (const std::exception& e) {
    fail(e.what());
  }
  bool show_panel = true;
  bool dirty = false;
  bool rebuilt = false;  // a rebuilt world whose first view is pending, built at rebuilt_at
  Clock::time_point rebuilt_at = Clock::now();
  auto last_rebuild = Clock::now();
  auto watched = mtime_or_min(source.name_or_path);
  auto last_watch = Clock::now();
  // Said once the file's current state is taken: changes from here on are seen (the screenshot
  // test waits for this line before it edits the file).
  if (o.watch) {
    std::cerr << "terrane-view: watching " << source.name_or_path
              << " (reloaded within a second of a change)\n";
  }
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

    // Camera: right mouse to look, WASD/QE to move, wheel for speed, shift to sprint; none of
    // them while the brush paints (the stroke stays under the cursor).
    double mx = 0.0, my = 0.0;
    glfwGetCursorPos(window, &mx, &my);
    if (frame_count == 0) trace(input, "first frame");
    if (const glm::ivec2 px(int(std::lround(mx)), int(std::lround(my))); px != traced_cursor) {
      traced_cursor = px;
      trace(input, "cursor " + std::to_string(px.x) + "," + std::to_string(px.y));
    }
    if (input.toggle_brush) {
      panel.brush_on = !panel.brush_on;
      input.toggle_brush = false;
      trace(input, panel.brush_on ? "brush on" : "brush off");
    }
    BrushTool& tool = *editing.tool;
    const auto end_drag = [&] {
      painting = false;
      tool.end_drag();
      trace(input, "drag ended after " + std::to_string(drag_strokes) + " strokes");
    };
    if (painting &&
        (!panel.brush_on || glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) != GLFW_PRESS)) {
      end_drag();
    }
    // ImGui's WantCaptureMouse is a frame old: a click right after the cursor moved onto the
    // panel would still reach the world, so the panel's last rectangle decides too.
    if (!show_panel) panel.rect = {0.0f, 0.0f, 0.0f, 0.0f};
    if (input.click && panel.covers(input.click->x, input.click->y)) {
      input.click.reset();
      trace(input, "click on the panel");
    }
    cursor.reset();
    block_cursor.reset();
    if (panel.brush_on &&
        (painting || (!ImGui::GetIO().WantCaptureMouse && !panel.covers(mx, my)))) {
      try {
        cursor = pick_cursor(window, *session, camera, mx, my, panel.brush, block_cursor);
      } catch (const std::exception& e) {
        panel.error = e.what();
      }
      if (int(cursor.has_value()) != traced_ground) {
        traced_ground = int(cursor.has_value());
        trace(input, cursor ? "ground under the cursor" : "no ground under the cursor");
      }
    } else {
      traced_ground = -1;
    }
    // A left click in brush mode: the flatten target when picking it, else a drag begins.
    if (input.click && panel.brush_on) {
      if (cursor && panel.pick_target) {
        panel.brush.target_m = cursor->y_m;
        panel.pick_target = false;
      } else if (cursor) {
        painting = true;
        drag_strokes = 0;
        last_stroke.reset();
        tool.begin_drag();
        if (panel.target_from_drag) panel.brush.target_m = cursor->y_m;
        next_stroke = now;
        trace(input, "drag begun");
      } else {
        trace(input, "click with no ground under the cursor");
      }
      input.click.reset();
    }
    // Strokes at a fixed rate whatever the frame rate: the ones due since the last frame (at
    // most kMaxStrokesPerFrame), spread along the cursor's way from the last stroke, handed to
    // the world together.
    if (painting && cursor && now >= next_stroke) {
      const auto period = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / std::clamp(panel.brush.rate_hz, 1.0, 120.0)));
      int due = 1;
      while (due < kMaxStrokesPerFrame && next_stroke + due * period <= now) ++due;
      const glm::dvec2 to(cursor->x_m, cursor->z_m);
      const glm::dvec2 from = last_stroke.value_or(to);
      const BrushSettings& b = panel.brush;
      try {
        if (b.layer == EditLayer::heights) {
          std::vector<HeightBrush> strokes;
          for (int k = 1; k <= due; ++k) {
            const glm::dvec2 p = from + (to - from) * (double(k) / due);
            strokes.push_back(b.at(p.x, p.y));
          }
          tool.stroke(*session, strokes);
        } else if (b.layer == EditLayer::paint) {
          std::vector<SplatBrush> strokes;
          for (int k = 1; k <= due; ++k) {
            const glm::dvec2 p = from + (to - from) * (double(k) / due);
            strokes.push_back(b.paint_at(p.x, p.y));
          }
          tool.stroke(*session, strokes);
        } else if (b.layer == EditLayer::instances) {
          // Plant: one instance a click; fell and regrow along the way.
          std::vector<InstanceBrush> strokes;
          for (int k = 1; k <= due; ++k) {
            if (b.instance_kind == InstanceKind::plant && (last_stroke || k > 1)) break;
            const glm::dvec2 p = from + (to - from) * (double(k) / due);
            InstanceBrush ib;
            ib.kind = b.instance_kind;
            ib.x_m = p.x;
            ib.z_m = p.y;
            ib.radius_m = b.radius_m;
            ib.regrow_s = b.regrow_s;
            ib.species = b.species;
            strokes.push_back(ib);
          }
          if (!strokes.empty()) tool.stroke(*session, strokes);
        } else {
          // Blocks: the block under the cursor now (a dug block is not hit again: the next
          // stroke reaches the one behind it).
          if (block_cursor) {
            const RayHit c =
                block_centre(*session, *block_cursor, b.block_kind == BlockBrushKind::fill);
            tool.stroke(*session, std::vector<BlockBrush>{b.block_at(c.x_m, c.y_m, c.z_m)});
          }
        }
      } catch (const std::exception& e) {
        panel.error = e.what();
      }
      last_stroke = to;
      next_stroke = std::max(next_stroke + due * period, now);
      ++drag_strokes;
    }
    const bool rmb = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS &&
                     !ImGui::GetIO().WantCaptureMouse && !painting;
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
          session->nav()->pick({hit->x_m, hit->y_m, hit->z_m});
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
    const bool ctrl = glfwGetKey(window, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS ||
                      glfwGetKey(window, GLFW_KEY_RIGHT_CONTROL) == GLFW_PRESS;
    if (!ImGui::GetIO().WantCaptureKeyboard && !painting && !ctrl) {
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
      // Kept above the (edited) ground, once the drag is over.
      const double ground = session->ground_m(camera.x_m, camera.z_m);
      if (!painting) camera.y_m = panel.walk ? ground + 1.8 : std::max(camera.y_m, ground + 1.0);
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
    if (panel.brush_on && cursor) {
      try {
        const FrameView view = frame_view(camera, std::max(fw, 1), std::max(fh, 1),
                                          session->options().view_distance_m);
        const double fog =
            panel.draw.fog ? WorldRenderer::fog_density(session->options().view_distance_m) : 0.0;
        preview.draw(view, camera, session->streamer().query(), cursor->x_m, cursor->z_m,
                     panel.brush, std::max(fh, 1), float(fog));
      } catch (const std::exception& e) {
        panel.error = e.what();
      }
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
    {
      EditReport& r = report.edits;
      const HeightEditSnapshot& e = tool.current();
      r.undo_steps = tool.undo_steps();
      r.redo_steps = tool.redo_steps();
      r.strokes = tool.strokes();
      r.tiles = e.tile_count();
      r.block_overrides = tool.blocks().override_count();
      r.instance_overrides = tool.instances().override_count();
      r.paint_tiles = tool.paint().tile_count();
      r.bytes = e.bytes();
      r.delta_lo_m = e.delta_lo();
      r.delta_hi_m = e.delta_hi();
      r.unsaved = tool.unsaved();
      r.world_file = editing.file != nullptr ? editing.file->path() : std::string();
      r.painting = painting;
      r.has_cursor = cursor.has_value();
      if (cursor) r.cursor = {cursor->x_m, cursor->y_m, cursor->z_m};
    }
    panel.preset_locked = preset_lock(editing);

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
    // Undo / redo a drag at a time (a drag in progress ends first), save, discard.
    if (req.undo || input.undo || req.redo || input.redo || req.discard_edits) {
      if (painting) end_drag();
      try {
        if (req.undo || input.undo) {
          tool.undo(*session);
          trace(input, "undo");
        }
        if (req.redo || input.redo) {
          tool.redo(*session);
          trace(input, "redo");
        }
        if (req.discard_edits && editing.file == nullptr) tool.discard(*session);
      } catch (const std::exception& e) {
        panel.error = e.what();
      }
    }
    if (req.save || input.save) {
      try {
        if (editing.file == nullptr && !panel.save_path.empty()) {
          if (fs::exists(panel.save_path)) {
            throw Error(ErrorCategory::io, panel.save_path + " exists: choose a new file name");
          }
          editing.file =
              WorldFile::create(panel.save_path, session->preset(), tool.current().tile_cells());
        }
        if (editing.file == nullptr) {
          panel.save_status = "no world file: type one under Brush (or start with --world FILE)";
        } else if (editing.file->info().tile_cells != tool.current().tile_cells()) {
          panel.save_status = "the world file's tiles are " +
                              std::to_string(editing.file->info().tile_cells) +
                              " cells, the edits' " + std::to_string(tool.current().tile_cells());
        } else {
          panel.save_status = editing.file->save(tool);
        }
      } catch (const std::exception& e) {
        panel.save_status = std::string("not saved: ") + e.what();
      }
      std::cerr << "terrane-view: " << panel.save_status << "\n";
    }
    input.undo = input.redo = input.save = false;
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
    // The preset cannot change under edits (or a world file's stored preset): refused, said.
    if (dirty && !panel.preset_locked.empty()) {
      dirty = false;
      panel.error = "preset not reloaded: " + panel.preset_locked;
      std::cerr << "terrane-view: " << panel.error << "\n";
    }
    // Live edits rebuild at most every 0.3 s; an invalid preset keeps the last valid world.
    if (dirty && std::chrono::duration<double>(now - last_rebuild).count() > 0.3) {
      dirty = false;
      last_rebuild = now;
      try {
        const auto t_load = Clock::now();
        Preset next_preset = source.load();
        // No edits (the lock above): a fresh tool on the new preset's cell.
        auto next_tool = make_unsaved_tool(next_preset);
        auto next = std::make_unique<Session>(std::move(next_preset), world);
        editing.tool = std::move(next_tool);
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
  if (const std::string w = unsaved_warning(*editing.tool, editing.file.get()); !w.empty()) {
    std::cerr << "terrane-view: warning: " << w << "\n";
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
