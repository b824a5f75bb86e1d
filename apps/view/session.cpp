#include "session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "brush_tool.hpp"

namespace terrane::view {

Session::Session(Preset preset, const WorldOptions& options,
                 std::shared_ptr<const HeightEditSnapshot> edits,
                 std::shared_ptr<const BlockEditSnapshot> blocks,
                 std::shared_ptr<const InstanceEditSnapshot> instances,
                 std::shared_ptr<const SplatPaintSnapshot> paint)
    : preset_(std::move(preset)),
      options_(options),
      edits_(std::move(edits)),
      block_edits_(std::move(blocks)),
      instances_(std::move(instances)),
      paint_(std::move(paint)) {
  StreamerParams params;
  params.chunk.cells = options.cells;
  params.chunk.surface = true;
  params.view_distance_m = options.view_distance_m;
  params.threads = options.threads;
  params.budget_bytes = 0;  // automatic: grows with the view
  params.worker_priority = options.worker_priority;
  streamer_ = std::make_unique<Streamer>(preset_, params);
  renderer_ = std::make_unique<WorldRenderer>(preset_, streamer_->generator(),
                                              streamer_->lod0_distance_m());
  water_ =
      std::make_unique<WaterLayer>(streamer_->shared_generator(), preset_, options.view_distance_m);
  if (options.blocks) {
    BlockStreamerParams bp;
    bp.view_distance_m = options.block_view_m;
    bp.vertical_distance_m = options.block_vertical_m;
    bp.threads = options.threads;
    bp.worker_priority = options.worker_priority;
    bp.ambient_occlusion = options.block_ao;
    blocks_ = std::make_unique<BlockStreamer>(preset_, bp);
    block_renderer_ = std::make_unique<BlockRenderer>(blocks_->generator(), bp.view_distance_m,
                                                      bp.ambient_occlusion);
    if (edits_ != nullptr || block_edits_ != nullptr) blocks_->set_edits(edits_, block_edits_);
  }
  if (edits_ != nullptr) {
    // Nothing is resident yet: the rectangle only has to cover the edits.
    streamer_->set_edits(edits_, tiles_rect(*edits_));
    water_->set_edits(edits_);
  }
  // A world file's instance overrides (felled trees, placed instances): nothing is resident yet.
  if (instances_ != nullptr && !instances_->empty()) streamer_->set_instance_edits(instances_, {});
  // A world file's splat paint, likewise before anything is resident.
  if (paint_ != nullptr && !paint_->empty()) streamer_->set_paint(paint_, {});
  set_nav(options.nav);
}

void Session::set_edits(std::shared_ptr<const HeightEditSnapshot> edits,
                        const LatticeRect& changed) {
  streamer_->set_edits(edits, changed);
  water_->set_edits(edits);
  if (nav_ != nullptr) nav_->set_edits(edits, changed);
  if (blocks_ != nullptr) blocks_->set_edits(edits, block_edits_);
  edits_ = std::move(edits);
}

void Session::set_block_edits(std::shared_ptr<const BlockEditSnapshot> blocks) {
  if (blocks_ != nullptr) blocks_->set_edits(edits_, blocks);
  block_edits_ = std::move(blocks);
}

void Session::set_instance_edits(std::shared_ptr<const InstanceEditSnapshot> instances,
                                 const InstanceChanges& changed) {
  streamer_->set_instance_edits(instances, changed);
  instances_ = std::move(instances);
}

void Session::set_paint(std::shared_ptr<const SplatPaintSnapshot> paint,
                        const LatticeRect& changed) {
  streamer_->set_paint(paint, changed);
  paint_ = std::move(paint);
}

void Session::set_nav(const NavOptions& options) {
  if (!options.on) {
    nav_.reset();
  } else if (nav_ == nullptr) {
    nav_ = std::make_unique<NavLayer>(streamer_->shared_generator(), options, options_.threads,
                                      options_.worker_priority, edits_);
  }
  options_.nav = options;
}

bool Session::view_complete() {
  const StreamerStats s = streamer_->stats();
  if (!s.view_complete || s.updates_pending > 0) return false;
  if (nav_ != nullptr && !nav_->complete()) return false;
  if (blocks_ == nullptr) return true;
  const BlockStreamerStats b = blocks_->stats();
  return b.view_complete && b.updates_pending == 0 && block_renderer_->pending() == 0;
}

void Session::flush_block_uploads(const Camera& camera) {
  if (block_renderer_ != nullptr) block_renderer_->upload(camera, -1.0);
}

FrameTimes Session::frame(const Camera& camera, const glm::dvec3& velocity, int width, int height,
                          const DrawSettings& settings, double dt_s) {
  FrameTimes t;
  t.stream_us = stream(camera, velocity, &t.nav_stream_us);
  t.upload = renderer_->upload(streamer_->visible(), options_.upload_budget_ms);
  // The block world: its chunks are drawn, and the height field leaves them out (the cover),
  // unless it is hidden. Key-colour pictures (crack tests) have no liquids, as they have no
  // sea.
  const bool blocks = block_renderer_ != nullptr && settings.blocks;
  BlockCover cover;
  if (block_renderer_ != nullptr) {
    t.block_upload = block_renderer_->upload(camera, options_.block_upload_budget_ms);
    cover = block_renderer_->update_cover(camera, blocks);
  }
  t.draw = renderer_->draw(camera, width, height, streamer_->visible(), settings,
                           options_.view_distance_m, cover);
  const FrameView view = frame_view(camera, width, height, options_.view_distance_m);
  const double fog = settings.fog && !settings.key_colour
                         ? WorldRenderer::fog_density(options_.view_distance_m)
                         : 0.0;
  if (blocks) t.block_draw = block_renderer_->draw_opaque(view, settings, float(fog));
  renderer_->draw_sea(camera, width, height, settings, options_.view_distance_m, cover);
  if (settings.water && !settings.key_colour) {
    water_->update(camera);
    water_->draw(view, float(fog), cover);
  }
  if (blocks) {
    const BlockDrawStats tr = block_renderer_->draw_translucent(view, settings, float(fog));
    t.block_draw.quads += tr.quads;
  }
  if (nav_ != nullptr) {
    nav_->advance(camera, dt_s, settings.nav_agent);
    if (!settings.key_colour) nav_->draw(view, camera, settings, float(fog), height);
  }
  return t;
}

double Session::stream(const Camera& camera, const glm::dvec3& velocity, double* nav_us) {
  const auto t0 = std::chrono::steady_clock::now();
  Viewer viewer;
  viewer.x_m = camera.x_m;
  viewer.y_m = camera.y_m;
  viewer.z_m = camera.z_m;
  const double speed = glm::length(velocity);
  const double scale = speed > kMaxViewerSpeed ? kMaxViewerSpeed / speed : 1.0;
  viewer.vx_m_s = velocity.x * scale;
  viewer.vy_m_s = velocity.y * scale;
  viewer.vz_m_s = velocity.z * scale;
  const glm::dvec3 f = camera.forward();
  if (std::abs(f.x) + std::abs(f.z) > 1e-6) {
    // The horizontal half-angle covering the screen's diagonal.
    viewer.frustum = ViewFrustum{f.x, f.z, std::min(3.14159, glm::radians(camera.fov_deg) * 1.2)};
  }
  streamer_->set_viewers({&viewer, 1});
  streamer_->update();
  streamer_->poll(PollBudget{.max_chunks = SIZE_MAX, .max_ms = 1.0});
  renderer_->take_events(streamer_->events());
  if (blocks_ != nullptr) {
    blocks_->set_viewers({&viewer, 1});
    blocks_->update();
    blocks_->poll(PollBudget{.max_chunks = SIZE_MAX, .max_ms = 1.0});
    block_renderer_->take_events(blocks_->events());
  }
  if (nav_ != nullptr) {
    const double us = nav_->stream(camera, velocity);
    if (nav_us != nullptr) *nav_us = us;
  }
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

double Session::ground_m(double x_m, double z_m) const {
  return streamer_->query().height_at(x_m, z_m);
}

namespace {

// The direction of the ray through pixel (px, py) (not normalised; zero when degenerate).
glm::dvec3 pixel_ray(const Camera& camera, int width, int height, double px, double py,
                     double view_distance_m) {
  if (width <= 0 || height <= 0) return glm::dvec3(0.0);
  const FrameView view = frame_view(camera, width, height, view_distance_m);
  const glm::mat4 inverse = glm::inverse(view.view_proj);
  const float nx = float(2.0 * px / width - 1.0), ny = float(1.0 - 2.0 * py / height);
  const glm::vec4 p_near = inverse * glm::vec4(nx, ny, -1.0f, 1.0f);
  const glm::vec4 p_far = inverse * glm::vec4(nx, ny, 1.0f, 1.0f);
  return glm::dvec3(p_far) / double(p_far.w) - glm::dvec3(p_near) / double(p_near.w);
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

}  // namespace

std::optional<RayHit> Session::pick(const Camera& camera, int width, int height, double px,
                                    double py) const {
  const glm::dvec3 dir = pixel_ray(camera, width, height, px, py, options_.view_distance_m);
  if (!(glm::length(dir) > 0.0)) return std::nullopt;
  return streamer_->query().raycast(camera.x_m, camera.y_m, camera.z_m, dir.x, dir.y, dir.z,
                                    options_.view_distance_m);
}

std::optional<Session::BlockPick> Session::pick_block(const Camera& camera, int width, int height,
                                                      double px, double py) {
  if (blocks_ == nullptr) return std::nullopt;
  glm::dvec3 dir = pixel_ray(camera, width, height, px, py, options_.view_distance_m);
  if (!(glm::length(dir) > 0.0)) return std::nullopt;
  dir = glm::normalize(dir);
  const BlockWorldGenerator& gen = blocks_->generator();
  const double b = gen.params().block_size_m;
  const std::int64_t n = gen.chunk_size();
  const std::vector<BlockType>& types = gen.palette().types;
  std::map<std::array<std::int64_t, 3>, const BlockChunk*> chunks;
  for (const BlockChunkResident* r : blocks_->resident()) {
    chunks[{r->key.cx, r->key.cy, r->key.cz}] = &r->blocks;
  }
  std::map<std::array<std::int64_t, 3>, std::vector<std::uint16_t>> decoded;
  // Amanatides and Woo's traversal of the blocks along the ray (block (i, j, k) spans
  // [i * b, (i + 1) * b) on each axis).
  const glm::dvec3 o(camera.x_m / b, camera.y_m / b, camera.z_m / b);
  std::array<std::int64_t, 3> cell{std::int64_t(std::floor(o.x)), std::int64_t(std::floor(o.y)),
                                   std::int64_t(std::floor(o.z))};
  std::array<std::int64_t, 3> step{};
  std::array<double, 3> t_max{}, t_delta{};
  for (int a = 0; a < 3; ++a) {
    const double d = dir[a], p = o[a];
    step[std::size_t(a)] = d > 0.0 ? 1 : -1;
    t_delta[std::size_t(a)] = d != 0.0 ? std::abs(1.0 / d) : 1e300;
    const double next = d > 0.0 ? std::floor(p) + 1.0 - p : p - std::floor(p);
    t_max[std::size_t(a)] = d != 0.0 ? next * t_delta[std::size_t(a)] : 1e300;
  }
  const double reach = options_.block_view_m / b;
  double t = 0.0;
  while (t <= reach) {
    const std::array<std::int64_t, 3> key{floor_div(cell[0], n), floor_div(cell[1], n),
                                          floor_div(cell[2], n)};
    if (const auto it = chunks.find(key); it != chunks.end()) {
      const BlockChunk& c = *it->second;
      std::uint16_t id = c.value;
      if (!c.uniform) {
        auto [d, fresh] = decoded.try_emplace(key);
        if (fresh) c.decode(d->second);
        const std::int64_t x = cell[0] - key[0] * n, y = cell[1] - key[1] * n,
                           z = cell[2] - key[2] * n;
        id = d->second[std::size_t((y * n + z) * n + x)];
      }
      if (id < types.size() && types[id].kind != BlockKind::air &&
          types[id].kind != BlockKind::liquid) {
        const glm::dvec3 at = (o + dir * t) * b;
        return BlockPick{cell, {at.x, at.y, at.z}};
      }
    }
    const int a =
        t_max[0] < t_max[1] ? (t_max[0] < t_max[2] ? 0 : 2) : (t_max[1] < t_max[2] ? 1 : 2);
    t = t_max[std::size_t(a)];
    t_max[std::size_t(a)] += t_delta[std::size_t(a)];
    cell[std::size_t(a)] += step[std::size_t(a)];
  }
  return std::nullopt;
}

}  // namespace terrane::view
