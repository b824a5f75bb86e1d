// NavWorld: navmesh tiles streamed around points on worker threads, swapped into one Detour
// mesh per agent on the owner thread.
//
// Owner: update() re-centres when a point left the origin's range, computes the wanted tiles
// (squares within radius_m of a point, ranked by distance to its look-ahead position), removes
// tiles beyond (1 + hysteresis) * radius_m (cancelling their queued jobs) and queues the
// missing ones while the byte budget allows. poll() swaps finished tiles in. Workers take the
// nearest job and build it with the pure NavTileBuilder. The queue and the finished list are
// guarded by one mutex that neither side holds while building or adding tiles.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include <recastnavigation/DetourNavMesh.h>

#include "nav/nav_world_impl.hpp"
#include "terrane/schema.hpp"
#include "world/world_internal.hpp"

namespace terrane {
namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Distance from (x, z) to the square of tile `key`.
double tile_distance(const NavTileKey& key, double side, double x, double z) {
  const double x0 = double(key.tx) * side, z0 = double(key.tz) * side;
  const double dx = std::max({x0 - x, 0.0, x - (x0 + side)});
  const double dz = std::max({z0 - z, 0.0, z - (z0 + side)});
  return std::sqrt(dx * dx + dz * dz);
}

double border_m(const NavParams& p, int agent) {
  const NavAgent& a = p.agents[std::size_t(agent)];
  return double(int(std::ceil(a.radius_m / p.cell_size_m)) + 3) * p.cell_size_m;
}

}  // namespace

NavWorld::Impl::~Impl() {
  {
    std::lock_guard lock(m);
    stop = true;
    queue.clear();
  }
  cancel = true;
  work_cv.notify_all();
  for (std::thread& t : workers) t.join();
  for (dtNavMesh* mesh : meshes) dtFreeNavMesh(mesh);
}

void NavWorld::Impl::worker_loop() {
  world_detail::apply_worker_priority(params.worker_priority);
  for (;;) {
    Job job;
    {
      std::unique_lock lock(m);
      work_cv.wait(lock, [&] { return stop || !queue.empty(); });
      if (stop) return;
      job = queue.back();
      queue.pop_back();
      ++running;
    }
    Result r;
    r.slot = job.slot;
    r.generation = job.generation;
    try {
      auto tile = std::make_unique<NavTile>();
      ExecContext ctx;
      ctx.threads = 1;
      ctx.simd = params.simd;
      ctx.cancel = &cancel;
      builder->build(job.slot.agent, job.slot.key, job.origin, *tile, ctx);
      r.tile = std::move(tile);
    } catch (...) {
      r.error = std::current_exception();
    }
    {
      std::lock_guard lock(m);
      --running;
      finished.push_back(std::move(r));
    }
  }
}

NavWorld::NavWorld(std::shared_ptr<const NavTileBuilder> builder, const NavWorldParams& params)
    : builder_(std::move(builder)), params_(params) {
  if (builder_ == nullptr)
    throw Error(ErrorCategory::invalid_argument, "NavWorld: builder is null");
  params_.validate();
  const NavParams& np = builder_->params();
  const double side = np.tile_size_m();
  impl_ = std::make_unique<Impl>();
  Impl& w = *impl_;
  w.builder = builder_.get();
  w.params = params_;
  w.agents = int(np.agents.size());
  for (int a = 0; a < w.agents; ++a) {
    dtNavMesh* mesh = dtAllocNavMesh();
    dtNavMeshParams mp{};
    mp.orig[0] = mp.orig[1] = mp.orig[2] = 0.0f;
    mp.tileWidth = float(side);
    mp.tileHeight = float(side);
    mp.maxTiles = np.max_tiles;
    mp.maxPolys = kNavMaxPolysPerTile;
    if (mesh == nullptr || dtStatusFailed(mesh->init(&mp))) {
      dtFreeNavMesh(mesh);
      throw Error(ErrorCategory::internal, "NavWorld: dtNavMesh::init failed");
    }
    w.meshes.push_back(mesh);
  }
  const int threads =
      params_.threads > 0 ? params_.threads : std::max(1, int(std::thread::hardware_concurrency()));
  for (int t = 0; t < threads; ++t) w.workers.emplace_back([&w] { w.worker_loop(); });
}

NavWorld::~NavWorld() = default;

namespace {

void remove_from_mesh(NavWorld::Impl& w, const NavSlot& slot, NavWorld::Impl::Entry& e) {
  if (e.ref != 0) {
    w.meshes[std::size_t(slot.agent)]->removeTile(dtTileRef(e.ref), nullptr, nullptr);
    e.ref = 0;
  }
  if (e.loaded) {
    w.events.push_back({NavEventKind::removed, slot.agent, slot.key});
    ++w.stats.removed;
  }
  e.loaded = false;
  e.tile.reset();
}

// Drops every tile and job, and moves the origin (the tiles are rebuilt by later updates).
void recentre(NavWorld::Impl& w, const NavTileKey& origin) {
  {
    std::lock_guard lock(w.m);
    w.stats.cancelled += w.queue.size();
    w.queue.clear();
  }
  for (auto& [slot, e] : w.entries) remove_from_mesh(w, slot, e);
  w.entries.clear();
  if (w.origin_set) ++w.stats.recentres;
  w.origin = origin;
  w.origin_set = true;
  ++w.epoch;
}

void push_job(NavWorld::Impl& w, const NavSlot& slot, NavWorld::Impl::Entry& e, double priority) {
  e.generation = w.next_generation++;
  e.in_flight = true;
  NavWorld::Impl::Job job{slot, w.origin, e.generation, priority};
  std::lock_guard lock(w.m);
  // Replace a queued job of the same slot (an older generation).
  for (auto& q : w.queue) {
    if (q.slot == slot) {
      q = job;
      return;
    }
  }
  w.queue.push_back(job);
}

void sort_queue(NavWorld::Impl& w) {
  std::lock_guard lock(w.m);
  std::stable_sort(w.queue.begin(), w.queue.end(),
                   [](const auto& a, const auto& b) { return a.priority > b.priority; });
}

std::size_t loaded_and_flight_bytes(const NavWorld::Impl& w) {
  std::size_t bytes = 0;
  for (const auto& [slot, e] : w.entries) {
    bytes += e.loaded ? e.bytes : 0;
    if (e.in_flight) bytes += w.estimate_bytes;
  }
  return bytes;
}

// Takes finished jobs in (owner thread), at most max_tiles and until max_ms has passed.
std::size_t swap_in(NavWorld::Impl& w, std::size_t max_tiles, double max_ms) {
  {
    std::lock_guard lock(w.m);
    for (auto& r : w.finished) w.ready.push_back(std::move(r));
    w.finished.clear();
  }
  const double start = now_ms();
  double add_ms = 0.0;
  std::size_t added = 0, used = 0;
  for (; used < w.ready.size() && added < max_tiles; ++used) {
    if (added > 0 && now_ms() - start >= max_ms) break;
    NavWorld::Impl::Result& r = w.ready[used];
    auto it = w.entries.find(r.slot);
    if (it == w.entries.end() || it->second.generation != r.generation) {
      ++w.stats.dropped;
      continue;
    }
    NavWorld::Impl::Entry& e = it->second;
    e.in_flight = false;
    if (r.error) {
      const bool cancelled = [&] {
        try {
          std::rethrow_exception(r.error);
        } catch (const Error& err) {
          return err.category() == ErrorCategory::cancelled;
        } catch (...) {
          return false;
        }
      }();
      if (!cancelled && !w.pending_error) w.pending_error = r.error;
      if (!e.loaded) w.entries.erase(it);
      continue;
    }
    const double t0 = now_ms();
    const bool was_loaded = e.loaded;
    if (e.ref != 0) {
      w.meshes[std::size_t(r.slot.agent)]->removeTile(dtTileRef(e.ref), nullptr, nullptr);
      e.ref = 0;
    }
    e.tile = std::move(r.tile);
    if (!e.tile->data.empty()) {
      dtTileRef ref = 0;
      const dtStatus st = w.meshes[std::size_t(r.slot.agent)]->addTile(
          e.tile->data.data(), int(e.tile->data.size()), 0, 0, &ref);
      if (dtStatusFailed(st)) {
        if (!w.pending_error) {
          w.pending_error = std::make_exception_ptr(Error(
              ErrorCategory::limit,
              "NavWorld: Detour refused tile (" + std::to_string(r.slot.key.tx) + ", " +
                  std::to_string(r.slot.key.tz) + ") of agent " + std::to_string(r.slot.agent) +
                  ((st & DT_OUT_OF_MEMORY) != 0 ? ": max_tiles tiles are loaded" : "")));
        }
        e.tile.reset();
        w.entries.erase(it);
        continue;
      }
      e.ref = ref;
    }
    add_ms += now_ms() - t0;
    e.loaded = true;
    e.bytes = e.tile->bytes();
    w.built_bytes_sum += e.bytes;
    ++w.built_count;
    w.estimate_bytes = std::size_t(w.built_bytes_sum / w.built_count);
    if (was_loaded) {
      e.rebuild = false;
      ++w.stats.rebuilt;
      w.events.push_back({NavEventKind::removed, r.slot.agent, r.slot.key});
    }
    w.events.push_back({NavEventKind::added, r.slot.agent, r.slot.key});
    ++w.stats.built;
    ++added;
  }
  w.ready.erase(w.ready.begin(), w.ready.begin() + std::ptrdiff_t(used));
  w.stats.last_poll_add_ms = add_ms;
  w.stats.max_poll_add_ms = std::max(w.stats.max_poll_add_ms, add_ms);
  if (w.pending_error) {
    std::exception_ptr e = w.pending_error;
    w.pending_error = nullptr;
    std::rethrow_exception(e);
  }
  return added;
}

}  // namespace

void NavWorld::set_points(std::span<const Viewer> points) {
  world_detail::validate_viewers(points);
  const NavParams& np = builder_->params();
  const double side = np.tile_size_m();
  const double across = 2.0 * params_.radius_m * (1.0 + params_.hysteresis) / side + 2.0;
  if (!points.empty() && across * across > double(np.max_tiles)) {
    throw Error(ErrorCategory::invalid_argument,
                "NavWorld: radius_m = " + format_number(params_.radius_m) + " needs up to " +
                    std::to_string(std::int64_t(across * across)) + " tiles of " +
                    format_number(side) + " m per agent around a point; max_tiles is " +
                    std::to_string(np.max_tiles));
  }
  impl_->points.assign(points.begin(), points.end());
}

void NavWorld::update() {
  Impl& w = *impl_;
  w.events.clear();
  const double side = builder_->tile_size_m();
  if (!w.points.empty()) {
    const Viewer& p0 = w.points.front();
    bool far = !w.origin_set;
    for (const Viewer& p : w.points) {
      const double dx = p.x_m - double(w.origin.tx) * side, dz = p.z_m - double(w.origin.tz) * side;
      far = far || std::max(std::abs(dx), std::abs(dz)) > params_.recentre_distance_m;
    }
    if (far) recentre(w, builder_->tile_at(p0.x_m, p0.z_m));
  }
  // Wanted slots and their priorities.
  std::unordered_map<NavSlot, double, NavSlotHash> wanted;
  const double r = params_.radius_m;
  for (const Viewer& p : w.points) {
    const double ax = p.x_m + p.vx_m_s * params_.lookahead_s;
    const double az = p.z_m + p.vz_m_s * params_.lookahead_s;
    const NavTileKey lo = builder_->tile_at(p.x_m - r, p.z_m - r);
    const NavTileKey hi = builder_->tile_at(p.x_m + r, p.z_m + r);
    for (std::int64_t tz = lo.tz; tz <= hi.tz; ++tz) {
      for (std::int64_t tx = lo.tx; tx <= hi.tx; ++tx) {
        const NavTileKey key{tx, tz};
        if (tile_distance(key, side, p.x_m, p.z_m) > r) continue;
        const double pri = tile_distance(key, side, ax, az);
        for (int a = 0; a < w.agents; ++a) {
          auto [it, fresh] = wanted.try_emplace(NavSlot{a, key}, pri);
          if (!fresh) it->second = std::min(it->second, pri);
        }
      }
    }
  }
  // Remove what no point keeps (beyond the hysteresis distance), cancel its queued job.
  const double keep = r * (1.0 + params_.hysteresis);
  std::vector<NavSlot> gone;
  for (auto& [slot, e] : w.entries) {
    if (e.pinned || wanted.count(slot) != 0) continue;
    bool kept = false;
    for (const Viewer& p : w.points)
      kept = kept || tile_distance(slot.key, side, p.x_m, p.z_m) <= keep;
    if (kept) continue;
    gone.push_back(slot);
  }
  for (const NavSlot& slot : gone) {
    Impl::Entry& e = w.entries[slot];
    if (e.in_flight) {
      std::lock_guard lock(w.m);
      const auto q = std::find_if(w.queue.begin(), w.queue.end(),
                                  [&](const Impl::Job& j) { return j.slot == slot; });
      if (q != w.queue.end()) {
        w.queue.erase(q);
        ++w.stats.cancelled;
      }
    }
    remove_from_mesh(w, slot, e);
    w.entries.erase(slot);
  }
  // Queue the missing slots nearest first while the budget allows; re-rank queued jobs.
  std::vector<std::pair<double, NavSlot>> missing;
  for (const auto& [slot, pri] : wanted) {
    auto it = w.entries.find(slot);
    if (it == w.entries.end()) missing.emplace_back(pri, slot);
  }
  std::sort(missing.begin(), missing.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    if (a.second.key.tz != b.second.key.tz) return a.second.key.tz < b.second.key.tz;
    if (a.second.key.tx != b.second.key.tx) return a.second.key.tx < b.second.key.tx;
    return a.second.agent < b.second.agent;
  });
  std::size_t bytes = loaded_and_flight_bytes(w);
  for (const auto& [pri, slot] : missing) {
    if (bytes + w.estimate_bytes > params_.budget_bytes) break;
    push_job(w, slot, w.entries[slot], pri);
    bytes += w.estimate_bytes;
  }
  {
    std::lock_guard lock(w.m);
    for (auto& q : w.queue) {
      const auto it = wanted.find(q.slot);
      if (it != wanted.end()) q.priority = it->second;
    }
  }
  sort_queue(w);
  w.work_cv.notify_all();
  std::size_t holes = 0;
  for (const auto& [slot, pri] : wanted) {
    const auto it = w.entries.find(slot);
    holes += (it == w.entries.end() || !it->second.loaded) ? 1 : 0;
  }
  w.stats.wanted = wanted.size();
  w.stats.holes = holes;
}

std::size_t NavWorld::poll(const PollBudget& budget) {
  return swap_in(*impl_, budget.max_chunks, budget.max_ms);
}

std::span<const NavTileEvent> NavWorld::events() const {
  return impl_->events;
}

void NavWorld::build_region(double x0_m, double z0_m, double x1_m, double z1_m,
                            const ExecContext& ctx) {
  Impl& w = *impl_;
  const std::vector<NavTileKey> keys = builder_->region_tiles(x0_m, z0_m, x1_m, z1_m);
  if (w.points.empty()) {
    const NavTileKey centre = builder_->region_origin(x0_m, z0_m, x1_m, z1_m);
    if (!w.origin_set || !(centre == w.origin)) recentre(w, centre);
  }
  const double side = builder_->tile_size_m();
  for (const NavTileKey& k : {keys.front(), NavTileKey{keys.back().tx + 1, keys.back().tz + 1}}) {
    const double d =
        std::max(std::abs(double(k.tx - w.origin.tx)), std::abs(double(k.tz - w.origin.tz))) * side;
    if (d > kNavMaxOriginDistance) {
      throw Error(ErrorCategory::limit,
                  "NavWorld::build_region: the box reaches " + format_number(d) +
                      " m from the navmesh origin; at most " +
                      format_number(kNavMaxOriginDistance) + " m (Detour's float positions)");
    }
  }
  // Build on the caller and ctx's workers, then swap in on this (the owner) thread.
  const std::size_t per_agent = keys.size();
  const std::size_t total = per_agent * std::size_t(w.agents);
  std::vector<Impl::Result> results(total);
  parallel_for(ctx, std::int64_t(total), 1, [&](std::int64_t b, std::int64_t e) {
    ExecContext one;
    one.threads = 1;
    one.simd = params_.simd;
    one.cancel = ctx.cancel;
    for (std::int64_t i = b; i < e; ++i) {
      Impl::Result& r = results[std::size_t(i)];
      r.slot = NavSlot{int(std::size_t(i) / per_agent), keys[std::size_t(i) % per_agent]};
      auto tile = std::make_unique<NavTile>();
      builder_->build(r.slot.agent, r.slot.key, w.origin, *tile, one);
      r.tile = std::move(tile);
    }
  });
  throw_if_cancelled(ctx);
  for (Impl::Result& r : results) {
    Impl::Entry& e = w.entries[r.slot];
    e.pinned = true;
    e.generation = w.next_generation++;  // a streamed job of this slot in flight is now stale
    r.generation = e.generation;
    w.ready.push_back(std::move(r));
  }
  swap_in(w, SIZE_MAX, 1e300);
  // A queued streaming job of a pinned slot is stale now; its entry is in place.
  std::lock_guard lock(w.m);
  w.queue.erase(std::remove_if(w.queue.begin(), w.queue.end(),
                               [&](const Impl::Job& j) {
                                 const auto it = w.entries.find(j.slot);
                                 return it != w.entries.end() &&
                                        it->second.generation != j.generation;
                               }),
                w.queue.end());
}

std::size_t NavWorld::invalidate(double x0_m, double z0_m, double x1_m, double z1_m) {
  Impl& w = *impl_;
  for (double v : {x0_m, z0_m, x1_m, z1_m}) {
    if (!std::isfinite(v)) {
      throw Error(ErrorCategory::invalid_argument,
                  "NavWorld::invalidate: coordinate " + format_number(v) + " is not finite");
    }
  }
  const double side = builder_->tile_size_m();
  std::size_t marked = 0;
  for (auto& [slot, e] : w.entries) {
    const double b = border_m(builder_->params(), slot.agent);
    const double tx0 = double(slot.key.tx) * side - b, tx1 = double(slot.key.tx + 1) * side + b;
    const double tz0 = double(slot.key.tz) * side - b, tz1 = double(slot.key.tz + 1) * side + b;
    if (tx1 <= x0_m || x1_m <= tx0 || tz1 <= z0_m || z1_m <= tz0) continue;
    if (e.loaded) e.rebuild = true;
    push_job(w, slot, e, -0.5);
    ++marked;
  }
  sort_queue(w);
  w.work_cv.notify_all();
  return marked;
}

std::size_t NavWorld::pending_rebuilds() const {
  std::size_t n = 0;
  for (const auto& [slot, e] : impl_->entries) n += e.rebuild ? 1 : 0;
  return n;
}

const NavTile* NavWorld::tile(int agent, const NavTileKey& key) const {
  const auto it = impl_->entries.find(NavSlot{agent, key});
  return it == impl_->entries.end() || !it->second.loaded ? nullptr : it->second.tile.get();
}

std::vector<NavTileKey> NavWorld::loaded_tiles(int agent) const {
  std::vector<NavTileKey> keys;
  for (const auto& [slot, e] : impl_->entries) {
    if (slot.agent == agent && e.loaded) keys.push_back(slot.key);
  }
  std::sort(keys.begin(), keys.end(), [](const NavTileKey& a, const NavTileKey& b) {
    return a.tz != b.tz ? a.tz < b.tz : a.tx < b.tx;
  });
  return keys;
}

bool NavWorld::loaded(int agent, double x_m, double z_m) const {
  return tile(agent, builder_->tile_at(x_m, z_m)) != nullptr;
}

NavTileKey NavWorld::origin() const {
  return impl_->origin;
}
double NavWorld::origin_x_m() const {
  return double(impl_->origin.tx) * builder_->tile_size_m();
}
double NavWorld::origin_z_m() const {
  return double(impl_->origin.tz) * builder_->tile_size_m();
}
std::uint64_t NavWorld::epoch() const {
  return impl_->epoch;
}

NavWorldStats NavWorld::stats() const {
  const Impl& w = *impl_;
  NavWorldStats s = w.stats;
  {
    std::lock_guard lock(const_cast<std::mutex&>(w.m));
    s.queued = w.queue.size();
    s.running = w.running + w.finished.size();
  }
  s.running += w.ready.size();
  s.loaded = 0;
  s.loaded_bytes = loaded_and_flight_bytes(w);
  for (const auto& [slot, e] : w.entries) s.loaded += e.loaded ? 1 : 0;
  return s;
}

}  // namespace terrane
