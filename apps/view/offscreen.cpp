// terrane-view --offscreen: frames into a framebuffer of --size (no window shown), the camera
// advancing by --velocity; the streamer drained before the picture unless --no-drain; the
// screenshot and the frame statistics (--stats, and one JSON line on stdout).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "app.hpp"
#include "brush_preview.hpp"
#include "gl_util.hpp"

namespace terrane::view {
namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t k = std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5));
  return v[k];
}

nlohmann::json nav_json(const NavReport& r) {
  const NavWorldStats& w = r.world;
  nlohmann::json j = {
      {"radius_m", r.radius_m},
      {"agents", r.agent_names},
      {"complete", r.complete},
      {"wanted", w.wanted},
      {"tiles_loaded", w.loaded},
      {"holes", w.holes},
      {"queued", w.queued},
      {"running", w.running},
      {"loaded_bytes", w.loaded_bytes},
      {"built", w.built},
      {"removed", w.removed},
      {"recentres", w.recentres},
      {"last_poll_add_ms", w.last_poll_add_ms},
      {"max_poll_add_ms", w.max_poll_add_ms},
      {"tiles_drawn", r.overlay.tiles},
      {"polygons", r.overlay.polygons},
      {"off_mesh_links", r.overlay.off_mesh_links},
      {"detail_triangles", r.overlay.triangles},
      {"bad_tiles", r.overlay.bad_tiles},
      {"gpu_bytes", r.overlay.gpu_bytes},
      {"crowd",
       {{"agents", r.crowd_agents}, {"wanted", r.crowd_wanted}, {"retargets", r.crowd_retargets}}}};
  if (r.path_found) {
    j["path"] = {{"agent", r.path_agent},
                 {"from", r.start},
                 {"to", r.end},
                 {"status", to_string(r.path.status)},
                 {"length_m", r.path.length_m},
                 {"points", r.path.points.size()},
                 {"polygons", r.path.polys.size()}};
  }
  return j;
}

}  // namespace

int run_offscreen(const Options& o, GLFWwindow* window, std::unique_ptr<Session> session,
                  Editing editing, Camera camera, glm::dvec3 velocity, const StartTimes& start) {
  BrushTool& tool = *editing.tool;
  BrushPreview preview;
  std::optional<RayHit> cursor_hit;  // the ground under --brush-cursor, last frame
  std::string save_status;
  const auto t_start = start.t_start;
  const double session_ms = start.session_ms;
  const std::string& renderer_name = start.renderer;
  std::vector<double> frame_ms, stream_us, upload_ms, nav_stream_us;
  std::size_t forced = 0;
  terrane::view::FrameTimes last{};
  auto target = std::make_unique<OffscreenTarget>(o.width, o.height);
  target->bind();
  // Offscreen frames advance the camera by 1/30 s each; while it flies they are also paced
  // at 30 per second of real time, so the streamer's workers see a real flight.
  const double dt = 1.0 / 30.0;
  const bool paced = glm::length(velocity) > 0.0;
  // Milliseconds from the session's start to the first view without holes, and to the
  // complete view (every selected chunk resident and visible).
  double first_view_ms = -1.0, complete_view_ms = -1.0, block_complete_view_ms = -1.0;
  std::size_t block_uploads_forced = 0;
  auto streamers_complete = [&] {
    const StreamerStats st = session->streamer().stats();
    return st.view_complete && st.updates_pending == 0 &&
           (session->blocks() == nullptr || session->blocks()->stats().view_complete) &&
           (session->nav() == nullptr || session->nav()->complete());
  };
  auto note_view = [&] {
    const StreamerStats st = session->streamer().stats();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
    if (first_view_ms < 0.0 && st.visible > 0 && st.holes == 0) first_view_ms = ms;
    if (complete_view_ms < 0.0 && st.view_complete) complete_view_ms = ms;
    if (block_complete_view_ms < 0.0 && session->blocks() != nullptr &&
        session->blocks()->stats().view_complete) {
      block_complete_view_ms = ms;
    }
  };
  auto step = [&] {
    const auto t0 = Clock::now();
    if (o.walk) camera.y_m = session->ground_m(camera.x_m, camera.z_m) + 1.8;
    last = session->frame(camera, velocity, o.width, o.height, o.draw, dt);
    if (!o.brush_cursor.empty() && !o.draw.key_colour) {
      // The brush preview under the cursor, as the window draws it in brush mode.
      cursor_hit = session->pick(camera, o.width, o.height, o.brush_cursor[0], o.brush_cursor[1]);
      if (cursor_hit) {
        const FrameView view =
            frame_view(camera, o.width, o.height, session->options().view_distance_m);
        const double fog =
            o.draw.fog ? WorldRenderer::fog_density(session->options().view_distance_m) : 0.0;
        preview.draw(view, camera, session->streamer().query(), cursor_hit->x_m, cursor_hit->z_m,
                     o.brush, o.height, float(fog));
      }
    }
    glFinish();
    note_view();
    frame_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    stream_us.push_back(last.stream_us);
    nav_stream_us.push_back(last.nav_stream_us);
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
    while (!streamers_complete()) {
      if (std::chrono::duration<double>(Clock::now() - t0).count() > o.drain_timeout_s) {
        fail("the view did not finish loading within " + std::to_string(o.drain_timeout_s) + " s");
      }
      session->stream(camera, glm::dvec3(0.0));
      note_view();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Block chunks go to the GPU within a budget a frame; the picture shows them all.
    if (session->block_renderer() != nullptr) {
      block_uploads_forced += session->block_renderer()->pending();
      session->flush_block_uploads(camera);
    }
  };
  // --brush strokes (each one undo step), --undo, --save: after --preload's drain the strokes
  // regenerate resident chunks as a stroke in the window does.
  auto apply_brushes = [&] {
    for (const BrushStroke& s : o.brushes) {
      tool.begin_drag();
      tool.apply(*session, s);
      tool.end_drag();
    }
    for (int k = 0; k < o.undo; ++k) tool.undo(*session);
    if (o.save) {
      save_status = editing.file->save(tool);
      std::cerr << "terrane-view: " << save_status << "\n";
    }
  };
  try {
    if (o.preload) drain();
    apply_brushes();
    for (int f = 0; f < o.frames; ++f) step();
    if (!o.no_drain) {
      const glm::dvec3 keep = velocity;
      velocity = glm::dvec3(0.0);
      drain();
      session->finish_water(camera);
      step();  // the complete view, drawn
      velocity = keep;
    }
  } catch (const std::exception& e) {
    fail(e.what());
  }
  // GL errors raised by any frame (the tests expect none).
  int gl_errors = 0;
  for (GLenum e = glGetError(); e != GL_NO_ERROR && gl_errors < 100; e = glGetError()) {
    std::cerr << "terrane-view: GL error 0x" << std::hex << e << std::dec << "\n";
    ++gl_errors;
  }
  if (!o.screenshot.empty()) {
    try {
      write_screenshot(o.screenshot, o.width, o.height);
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  const StreamerStats s = session->streamer().stats();
  nlohmann::json j = {{"renderer", renderer_name},
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
                      {"lakes", session->water().stats().lakes},
                      {"lake_cells", session->water().stats().lake_cells},
                      {"river_cells", session->water().stats().river_cells},
                      {"water_ms", session->water().stats().compute_ms},
                      {"gl_errors", gl_errors},
                      {"camera", {camera.x_m, camera.y_m, camera.z_m}}};
  if (session->blocks() != nullptr) {
    const BlockStreamerStats b = session->blocks()->stats();
    const BlockRenderer& r = *session->block_renderer();
    j["blocks"] = {{"view_distance_m", o.world.block_view_m},
                   {"vertical_distance_m", o.world.block_vertical_m},
                   {"wanted", b.wanted},
                   {"resident", b.resident},
                   {"queued", b.queued},
                   {"running", b.running},
                   {"holes", b.holes},
                   {"view_complete", b.view_complete},
                   {"generated", b.generated},
                   {"evicted", b.evicted},
                   {"quads", b.quads},
                   {"resident_bytes", b.resident_bytes},
                   {"chunks_on_gpu", r.chunks_on_gpu()},
                   {"gpu_bytes", r.gpu_bytes()},
                   {"pending_uploads", r.pending()},
                   {"uploads_flushed", block_uploads_forced},
                   {"upload_budget_ms", o.world.block_upload_budget_ms},
                   {"chunks_drawn", last.block_draw.chunks_drawn},
                   {"chunks_culled", last.block_draw.chunks_culled},
                   {"quads_drawn", last.block_draw.quads},
                   {"complete_view_ms", block_complete_view_ms}};
  }
  if (session->nav() != nullptr) {
    j["nav"] = nav_json(session->nav()->report());
    j["nav"]["stream_us_p50"] = percentile(nav_stream_us, 0.5);
    j["nav"]["stream_us_p99"] = percentile(nav_stream_us, 0.99);
  }
  {
    const HeightEditSnapshot& e = tool.current();
    j["edits"] = {{"strokes", tool.strokes()},
                  {"undo_steps", tool.undo_steps()},
                  {"redo_steps", tool.redo_steps()},
                  {"tiles", e.tile_count()},
                  {"delta_lo_m", e.delta_lo()},
                  {"delta_hi_m", e.delta_hi()},
                  {"chunks_updated", s.updated},
                  {"block_overrides", tool.blocks().override_count()},
                  {"block_hash", tool.blocks().content_hash()},
                  {"instances_removed", tool.instances().count(InstanceChange::removed)},
                  {"instances_added", tool.instances().count(InstanceChange::added)},
                  {"instance_hash", tool.instances().content_hash()},
                  {"paint_tiles", tool.paint().tile_count()},
                  {"painted_vertices", tool.paint().painted_vertices()},
                  {"paint_hash", tool.paint().content_hash()},
                  {"unsaved", tool.unsaved()},
                  {"world_file", editing.file != nullptr ? editing.file->path() : std::string()},
                  {"saved", save_status}};
  }
  if (!o.brush_cursor.empty()) {
    j["brush_cursor"] = {{"hit", cursor_hit.has_value()}};
    if (cursor_hit) j["brush_cursor"]["at"] = {cursor_hit->x_m, cursor_hit->y_m, cursor_hit->z_m};
  }
  if (!o.stats.empty()) {
    std::ofstream(o.stats) << j.dump(2) << "\n";
  }
  std::cout << j.dump() << "\n";
  if (editing.file != nullptr) {
    if (const std::string w = unsaved_warning(tool, editing.file.get()); !w.empty()) {
      std::cerr << "terrane-view: warning: " << w << "\n";
    }
  }
  session.reset();
  target.reset();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}

}  // namespace terrane::view
