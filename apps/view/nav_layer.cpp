#include "nav_layer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "world_renderer.hpp"

namespace terrane::view {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kPathLift_m = 0.45;  // the drawn path above the ground
constexpr double kPathStep_m = 2.0;   // the drawn path follows the ground at this spacing
constexpr double kWalkerSpeed_m_s[4] = {1.4, 2.0, 2.6, 3.4};
constexpr float kWalkerColours[8][3] = {
    {0.95f, 0.25f, 0.20f}, {1.00f, 0.85f, 0.15f}, {0.20f, 0.55f, 1.00f}, {0.95f, 0.45f, 0.95f},
    {1.00f, 1.00f, 1.00f}, {0.10f, 0.95f, 0.85f}, {1.00f, 0.55f, 0.10f}, {0.55f, 0.35f, 1.00f}};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double distance_xz(double ax, double az, double bx, double bz) {
  return std::hypot(ax - bx, az - bz);
}

NavParams nav_params(const NavOptions& options) {
  NavParams p;
  if (!options.agents.empty()) p.agents = options.agents;
  return p;
}

}  // namespace

NavLayer::NavLayer(std::shared_ptr<const ChunkGenerator> generator, const NavOptions& options,
                   int threads, WorkerPriority priority,
                   std::shared_ptr<const HeightEditSnapshot> edits)
    : options_(options), generator_(generator), terrain_(generator, edits) {
  try {
    nav_terrain_ = std::make_shared<EditedNavTerrain>(generator, edits);
    builder_ = std::make_shared<const NavTileBuilder>(nav_terrain_, nav_params(options));
    NavWorldParams wp;
    wp.radius_m = options.radius_m;
    wp.threads = threads;
    wp.worker_priority = priority;
    world_ = std::make_unique<NavWorld>(builder_, wp);
    // set_points checks the radius against max_tiles: a point now, so a radius the navmesh
    // cannot hold fails here, named, rather than in the first frame (stream() sets the camera).
    const Viewer probe;
    world_->set_points({&probe, 1});
    for (int a = 0; a < int(builder_->params().agents.size()); ++a) {
      queries_.push_back(std::make_unique<NavQuery>(*world_, a));
    }
    if (options.crowd > 0) crowd_ = std::make_unique<NavCrowd>(*world_, 0, kNavCrowdCapacity);
    if (options.path) {
      const auto& p = *options.path;
      set_path(p[0], p[1], p[2], p[3]);
    }
  } catch (const Error& e) {
    // "--nav: agents[0] ('humanoid').max_slope_deg = 95 is outside ..." (not "--nav: nav: ...").
    std::string message = e.what();
    if (message.starts_with("nav: ")) message.erase(0, 5);
    throw Error(e.category(), "--nav: " + message);
  }
}

NavLayer::~NavLayer() = default;

double NavLayer::stream(const Camera& camera, const glm::dvec3& velocity) {
  const auto t0 = Clock::now();
  Viewer point;
  point.x_m = camera.x_m;
  point.z_m = camera.z_m;
  point.y_m = terrain_.height_at(camera.x_m, camera.z_m);
  const double speed = std::hypot(velocity.x, velocity.z);
  const double scale = speed > kMaxViewerSpeed ? kMaxViewerSpeed / speed : 1.0;
  point.vx_m_s = velocity.x * scale;
  point.vz_m_s = velocity.z * scale;
  world_->set_points({&point, 1});
  world_->update();
  world_->poll(PollBudget{.max_chunks = SIZE_MAX, .max_ms = 1.0});
  const auto events = world_->events();
  overlay_.take_events(*world_, events);
  tiles_changed_ = tiles_changed_ || !events.empty();
  stream_us_ = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  return stream_us_;
}

bool NavLayer::complete() const {
  const NavWorldStats s = world_->stats();
  return s.wanted > 0 && s.holes == 0 && s.queued == 0 && s.running == 0 &&
         world_->pending_rebuilds() == 0;
}

void NavLayer::set_edits(std::shared_ptr<const HeightEditSnapshot> edits,
                         const LatticeRect& changed) {
  terrain_ = TerrainQuery(generator_, edits);
  nav_terrain_->set_edits(std::move(edits));
  if (!changed.empty()) {
    const std::array<double, 4> box = edited_area_m(changed, generator_->cell_size_m());
    world_->invalidate(box[0], box[1], box[2], box[3]);
  }
  // The endpoints stay where they were picked, on the new ground.
  if (has_start_) start_[1] = terrain_.height_at(start_[0], start_[2]);
  if (has_end_) end_[1] = terrain_.height_at(end_[0], end_[2]);
  path_dirty_ = true;
}

void NavLayer::pick(const std::array<double, 3>& point) {
  if (!has_start_ || has_end_) {
    start_ = point;
    has_start_ = true;
    has_end_ = false;
  } else {
    end_ = point;
    has_end_ = true;
  }
  path_dirty_ = true;
}

void NavLayer::set_path(double x0_m, double z0_m, double x1_m, double z1_m) {
  start_ = {x0_m, terrain_.height_at(x0_m, z0_m), z0_m};
  end_ = {x1_m, terrain_.height_at(x1_m, z1_m), z1_m};
  has_start_ = has_end_ = true;
  path_dirty_ = true;
}

void NavLayer::clear_path() {
  has_start_ = has_end_ = false;
  path_found_ = false;
  path_ = NavPath{};
  path_line_.clear();
}

void NavLayer::copy_path_from(const NavLayer& other) {
  has_start_ = other.has_start_;
  has_end_ = other.has_end_;
  start_ = other.start_;
  end_ = other.end_;
  path_dirty_ = true;
}

void NavLayer::find_path(int agent) {
  path_agent_ = agent;
  path_dirty_ = false;
  path_line_.clear();
  if (!has_start_ || !has_end_) {
    path_found_ = false;
    return;
  }
  path_ = queries_[std::size_t(agent)]->path(start_, end_);
  path_found_ = true;
  // Drawn draped over the ground (the straight path's corners are on the polygons, whose
  // flat faces cut through bumps between them).
  for (std::size_t i = 0; i + 1 < path_.points.size(); ++i) {
    const auto& a = path_.points[i];
    const auto& b = path_.points[i + 1];
    const double len = distance_xz(a[0], a[2], b[0], b[2]);
    const int steps = std::max(1, int(std::ceil(len / kPathStep_m)));
    for (int s = 0; s < steps + (i + 2 == path_.points.size() ? 1 : 0); ++s) {
      const double u = double(s) / steps;
      const double x = a[0] + (b[0] - a[0]) * u, z = a[2] + (b[2] - a[2]) * u;
      const double y = std::max(a[1] + (b[1] - a[1]) * u, terrain_.height_at(x, z));
      path_line_.push_back({x, y + kPathLift_m, z});
    }
  }
}

bool NavLayer::retarget(Walker& w, const std::array<double, 3>& from, double centre_x,
                        double centre_z) {
  NavQuery& q = *queries_[0];
  for (int attempt = 0; attempt < 4; ++attempt) {
    NavLocation t;
    if (q.random_point(from, options_.radius_m * 0.5, mix(seed_++), t) != NavStatus::ok) continue;
    if (distance_xz(t.x_m, t.z_m, centre_x, centre_z) > options_.radius_m * 0.8) continue;
    if (!crowd_->set_target(w.id, t.x_m, t.y_m, t.z_m)) continue;
    w.target = {t.x_m, t.y_m, t.z_m};
    w.idle_s = 0.0;
    ++retargets_;
    return true;
  }
  return false;
}

void NavLayer::spawn(const Camera& camera) {
  NavQuery& q = *queries_[0];
  NavLocation centre;
  if (q.nearest(camera.x_m, terrain_.height_at(camera.x_m, camera.z_m), camera.z_m, centre, 24.0) !=
      NavStatus::ok) {
    return;
  }
  NavLocation p;
  const std::uint64_t seed = mix(seed_++);
  if (q.random_point({centre.x_m, centre.y_m, centre.z_m}, options_.radius_m * 0.6, seed, p) !=
      NavStatus::ok) {
    return;
  }
  const int id = crowd_->add(p.x_m, p.y_m, p.z_m, kWalkerSpeed_m_s[seed % 4]);
  if (id < 0) return;
  Walker w;
  w.id = id;
  if (!retarget(w, {p.x_m, p.y_m, p.z_m}, camera.x_m, camera.z_m)) {
    crowd_->remove(id);
    return;
  }
  walkers_.push_back(w);
}

void NavLayer::advance(const Camera& camera, double dt_s, int agent) {
  agent = std::clamp(agent, 0, int(queries_.size()) - 1);
  if (path_dirty_ || tiles_changed_ || agent != path_agent_) find_path(agent);
  tiles_changed_ = false;
  if (crowd_ == nullptr) return;
  // Walkers that left the loaded disc (the camera moved on) or fell off the navmesh go; the
  // others get a new target when they arrive or stay stuck.
  std::erase_if(walkers_, [&](Walker& w) {
    const NavCrowdAgentState s = crowd_->state(w.id);
    if (!s.active || distance_xz(s.x_m, s.z_m, camera.x_m, camera.z_m) > options_.radius_m) {
      crowd_->remove(w.id);
      return true;
    }
    const double speed = std::hypot(s.vx_m_s, s.vz_m_s);
    w.idle_s = speed < 0.2 ? w.idle_s + dt_s : 0.0;
    if (distance_xz(s.x_m, s.z_m, w.target[0], w.target[2]) < 1.5 || !s.has_target ||
        w.idle_s > 4.0) {
      retarget(w, {s.x_m, s.y_m, s.z_m}, camera.x_m, camera.z_m);
    }
    return false;
  });
  // Two new walkers a frame at most, near the camera, until there are enough.
  for (int k = 0; k < 2 && int(walkers_.size()) < options_.crowd; ++k) spawn(camera);
  crowd_->update(dt_s);
}

void NavLayer::draw(const FrameView& view, const Camera& camera, const DrawSettings& settings,
                    float fog, int height_px) {
  if (settings.nav) overlay_.draw_tiles(view, settings.nav_agent, fog);
  NavGeometry opaque, ribbon;
  opaque.origin_x_m = ribbon.origin_x_m = world_->origin_x_m();
  opaque.origin_z_m = ribbon.origin_z_m = world_->origin_z_m();
  const glm::dvec3 eye(camera.x_m, camera.y_m, camera.z_m);
  const double pixel =
      2.0 * std::tan(glm::radians(camera.fov_deg) * 0.5) / double(std::max(height_px, 1));
  auto at_least_pixels = [&](double metres, double px, double x, double y, double z) {
    return std::max(metres, px * pixel * glm::length(glm::dvec3(x, y, z) - eye));
  };
  if (crowd_ != nullptr && settings.nav_crowd) {
    const NavAgent& a = builder_->params().agents[0];
    for (const Walker& w : walkers_) {
      const NavCrowdAgentState s = crowd_->state(w.id);
      const double half = at_least_pixels(a.radius_m, 4.0, s.x_m, s.y_m, s.z_m);
      opaque.box(s.x_m, s.y_m, s.z_m, half, std::max(a.height_m, 3.0 * half),
                 kWalkerColours[std::size_t(w.id) % 8]);
    }
  }
  const float start_rgb[3] = {0.15f, 0.95f, 0.25f}, end_rgb[3] = {1.0f, 0.2f, 0.15f};
  for (int k = 0; k < 2; ++k) {
    if (!(k == 0 ? has_start_ : has_end_)) continue;
    const auto& p = k == 0 ? start_ : end_;
    const double half = at_least_pixels(0.4, 3.0, p[0], p[1], p[2]);
    opaque.box(p[0], p[1], p[2], half, 8.0 * half, k == 0 ? start_rgb : end_rgb);
  }
  // The path: bright yellow where it reaches the target, orange where it stops short.
  const std::uint8_t ok_rgba[4] = {255, 235, 40, 255}, short_rgba[4] = {255, 120, 30, 255};
  const std::uint8_t* rgba = path_.status == NavStatus::ok ? ok_rgba : short_rgba;
  for (std::size_t i = 0; i + 1 < path_line_.size(); ++i) {
    const auto& a = path_line_[i];
    ribbon.band(a, path_line_[i + 1], eye, at_least_pixels(0.25, 2.5, a[0], a[1], a[2]), rgba);
  }
  overlay_.draw_geometry(view, opaque, ribbon, fog);
}

NavReport NavLayer::report() const {
  NavReport r;
  r.world = world_->stats();
  r.overlay = overlay_.stats();
  for (const NavAgent& a : builder_->params().agents) r.agent_names.push_back(a.name);
  r.radius_m = options_.radius_m;
  r.stream_us = stream_us_;
  r.complete = complete();
  r.has_start = has_start_;
  r.has_end = has_end_;
  r.start = start_;
  r.end = end_;
  r.path_agent = path_agent_;
  r.path_found = path_found_;
  r.path = path_;
  r.crowd_agents = crowd_ == nullptr ? 0 : crowd_->size();
  r.crowd_wanted = options_.crowd;
  r.crowd_retargets = retargets_;
  return r;
}

}  // namespace terrane::view
