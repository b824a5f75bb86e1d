// Block chunks streamed around viewers (the pattern of Streamer, for voxel chunks).
//
// Frame thread (the owner): update() computes the wanted set (chunks whose centre is within the
// view cylinder of a viewer, ranked by distance to its look-ahead position), evicts resident
// chunks beyond the hysteresis distance, cancels queued jobs that are no longer wanted and
// queues the wanted chunks that are neither resident nor in flight while the budget allows.
// poll() takes finished chunks in (ready events) within its time and count budget.
// Workers: take the nearest queued job, generate the chunk and mesh it with their own scratch.
// The queue and the finished list are guarded by one mutex that neither side holds while
// generating or drawing; the owner's tables (resident, in flight, wanted) are its own.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "world/world_internal.hpp"

namespace terrane {
namespace {

struct KeyHash {
  std::size_t operator()(const BlockChunkKey& k) const { return std::size_t(hash(k)); }
};

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

void BlockStreamerParams::validate() const {
  auto fail = [](const std::string& m) {
    throw Error(ErrorCategory::invalid_argument, "block streamer: " + m);
  };
  if (!(std::isfinite(view_distance_m) && view_distance_m > 0.0 && view_distance_m <= 4096.0)) {
    fail("view_distance_m " + format_number(view_distance_m) + " must be in (0, 4096] m");
  }
  if (!(std::isfinite(vertical_distance_m) && vertical_distance_m > 0.0 &&
        vertical_distance_m <= 1e6)) {
    fail("vertical_distance_m " + format_number(vertical_distance_m) + " must be in (0, 1e6] m");
  }
  if (!(hysteresis >= 0.0 && hysteresis <= 1.0)) {
    fail("hysteresis " + format_number(hysteresis) + " must be in [0, 1]");
  }
  if (!(lookahead_s >= 0.0 && lookahead_s <= 10.0)) {
    fail("lookahead_s " + format_number(lookahead_s) + " must be in [0, 10] s");
  }
  if (budget_bytes < (std::size_t{1} << 20)) {
    fail("budget_bytes " + std::to_string(budget_bytes) + " must be at least 1 MiB");
  }
  if (threads < 0 || threads > 256)
    fail("threads " + std::to_string(threads) + " must be in 0..256");
  try {
    (void)resolved_simd_target(ExecContext{.simd = simd});
  } catch (const Error& e) {
    fail(std::string("simd: ") + e.what());
  }
}

std::size_t BlockChunkResident::bytes() const {
  return sizeof(BlockChunkResident) + blocks.bytes() - sizeof(BlockChunk) +
         (mesh.opaque.capacity() + mesh.translucent.capacity()) * sizeof(PackedQuad) +
         occupancy.capacity() * sizeof(std::uint64_t);
}

struct BlockStreamer::Impl {
  std::shared_ptr<const BlockWorldGenerator> gen;
  BlockStreamerParams p;
  double chunk_m = 0.0;
  std::int64_t cy_min = 0, cy_max = 0;

  // The edit layers a job generates with (nullptr: none), numbered by set_edits.
  struct Layers {
    std::shared_ptr<const HeightEditSnapshot> heights;
    std::shared_ptr<const BlockEditSnapshot> blocks;
    std::uint64_t epoch = 0;
  };

  // ---- shared with the workers (mutex)
  struct Job {
    BlockChunkKey key;
    double priority = 0.0;  // distance: smaller first
    bool replace = false;   // regenerates a resident chunk after set_edits
    Layers layers;
  };
  struct Done {
    BlockChunkKey key;
    std::unique_ptr<BlockChunkResident> chunk;
    std::exception_ptr error;
    bool replace = false;
    Layers layers;
  };
  std::mutex mutex;
  std::condition_variable cv;
  bool stopping = false;
  std::vector<Job> queue;  // sorted by priority, nearest last
  std::vector<Done> done;
  std::size_t running = 0;
  std::vector<std::thread> workers;

  // ---- the owner's
  std::vector<Viewer> viewers;
  std::unordered_map<BlockChunkKey, std::unique_ptr<BlockChunkResident>, KeyHash> resident;
  std::unordered_set<BlockChunkKey, KeyHash> in_flight;  // queued or running or done
  std::unordered_map<BlockChunkKey, double, KeyHash> wanted;
  std::vector<BlockChunkEvent> events;
  Layers layers;  // the newest (set_edits)
  // The pending update: the resident chunks being regenerated, with their finished
  // replacements (nullptr until done on the newest layers).
  std::unordered_map<BlockChunkKey, std::unique_ptr<BlockChunkResident>, KeyHash> pending;
  std::vector<const BlockChunkResident*> resident_list;
  std::vector<std::unique_ptr<BlockChunkResident>> graveyard;  // evicted, freed next update
  std::size_t resident_bytes = 0;
  double chunk_estimate = 8192.0;  // running mean of a chunk's bytes, for in-flight jobs
  BlockStreamerStats stats;
  std::exception_ptr failure;

  void work() {
    world_detail::apply_worker_priority(p.worker_priority);
    BlockScratch scratch;
    BlockMeshScratch mesh_scratch;
    BlockChunkData data;
    const ExecContext ctx{.threads = 1, .simd = p.simd};
    const BlockMeshOptions options{.ambient_occlusion = p.ambient_occlusion == BlockAo::baked};
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mutex);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (stopping) return;
        job = std::move(queue.back());
        queue.pop_back();
        ++running;
      }
      Done d;
      d.key = job.key;
      d.replace = job.replace;
      try {
        gen->generate(job.key, data, &scratch, ctx, job.layers.heights.get(),
                      job.layers.blocks.get());
        auto chunk = std::make_unique<BlockChunkResident>();
        chunk->key = job.key;
        build_block_mesh(data.volume, gen->palette(), chunk->mesh, &mesh_scratch, options);
        chunk->mesh.opaque.shrink_to_fit();
        chunk->mesh.translucent.shrink_to_fit();
        if (p.ambient_occlusion == BlockAo::occupancy &&
            !(chunk->mesh.opaque.empty() && chunk->mesh.translucent.empty())) {
          chunk->occupancy = data.volume.opaque_columns;
        }
        chunk->blocks = std::move(data.chunk);
        data.chunk = BlockChunk{};
        d.chunk = std::move(chunk);
      } catch (...) {
        d.error = std::current_exception();
      }
      d.layers = std::move(job.layers);
      const std::lock_guard lock(mutex);
      --running;
      done.push_back(std::move(d));
    }
  }

  // Distance of a chunk's centre to the nearest viewer's look-ahead position, and whether it is
  // inside the cylinder scaled by `scale`.
  double distance(const BlockChunkKey& k, double scale, bool& inside) const {
    const double cx = (double(k.cx) + 0.5) * chunk_m, cy = (double(k.cy) + 0.5) * chunk_m,
                 cz = (double(k.cz) + 0.5) * chunk_m;
    double best = std::numeric_limits<double>::infinity();
    inside = false;
    for (const Viewer& v : viewers) {
      const double dx = cx - v.x_m, dz = cz - v.z_m, dy = cy - v.y_m;
      const double horizontal = std::sqrt(dx * dx + dz * dz);
      if (horizontal <= p.view_distance_m * scale &&
          std::fabs(dy) <= p.vertical_distance_m * scale + 0.5 * chunk_m) {
        inside = true;
      }
      const double lx = cx - (v.x_m + v.vx_m_s * p.lookahead_s),
                   ly = cy - (v.y_m + v.vy_m_s * p.lookahead_s),
                   lz = cz - (v.z_m + v.vz_m_s * p.lookahead_s);
      best = std::min(best, std::sqrt(lx * lx + ly * ly + lz * lz));
    }
    return best;
  }

  void update() {
    events.clear();
    graveyard.clear();
    // 1. The wanted set.
    wanted.clear();
    const int S = gen->chunk_size();
    for (const Viewer& v : viewers) {
      const std::int64_t x0 = std::int64_t(std::floor((v.x_m - p.view_distance_m) / chunk_m));
      const std::int64_t x1 = std::int64_t(std::floor((v.x_m + p.view_distance_m) / chunk_m));
      const std::int64_t z0 = std::int64_t(std::floor((v.z_m - p.view_distance_m) / chunk_m));
      const std::int64_t z1 = std::int64_t(std::floor((v.z_m + p.view_distance_m) / chunk_m));
      std::int64_t y0 = std::int64_t(std::floor((v.y_m - p.vertical_distance_m) / chunk_m));
      std::int64_t y1 = std::int64_t(std::floor((v.y_m + p.vertical_distance_m) / chunk_m));
      y0 = std::max(y0, cy_min);
      y1 = std::min(y1, cy_max);
      for (std::int64_t cz = z0; cz <= z1; ++cz) {
        for (std::int64_t cx = x0; cx <= x1; ++cx) {
          for (std::int64_t cy = y0; cy <= y1; ++cy) {
            const BlockChunkKey k{cx, cy, cz};
            if (wanted.count(k) != 0) continue;
            bool inside = false;
            const double d = distance(k, 1.0, inside);
            if (inside) wanted.emplace(k, d);
          }
        }
      }
    }
    (void)S;
    // 2. Eviction beyond the hysteresis distance.
    for (auto it = resident.begin(); it != resident.end();) {
      bool inside = false;
      (void)distance(it->first, 1.0 + p.hysteresis, inside);
      if (inside) {
        ++it;
        continue;
      }
      events.push_back({BlockEventKind::evicted, it->first, nullptr});
      pending.erase(it->first);
      resident_bytes -= it->second->bytes();
      graveyard.push_back(std::move(it->second));
      it = resident.erase(it);
      ++stats.evicted;
    }
    // 3. The queue: cancel the unwanted, re-rank, add the missing within the budget.
    std::vector<std::pair<double, BlockChunkKey>> missing;
    for (const auto& [k, d] : wanted) {
      if (resident.count(k) == 0 && in_flight.count(k) == 0) missing.push_back({d, k});
    }
    std::sort(missing.begin(), missing.end(), [](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      return std::tie(a.second.cx, a.second.cy, a.second.cz) <
             std::tie(b.second.cx, b.second.cy, b.second.cz);
    });
    {
      const std::lock_guard lock(mutex);
      std::vector<Job> kept;
      kept.reserve(queue.size() + missing.size());
      for (Job& j : queue) {
        if (j.replace) {  // kept while its chunk is resident (evicted: gone from pending)
          if (pending.count(j.key) != 0) kept.push_back(std::move(j));
          continue;
        }
        const auto w = wanted.find(j.key);
        if (w == wanted.end()) {
          in_flight.erase(j.key);
          ++stats.cancelled;
          continue;
        }
        j.priority = w->second;
        kept.push_back(j);
      }
      double committed = double(resident_bytes) + double(in_flight.size()) * chunk_estimate;
      for (const auto& [d, k] : missing) {
        if (committed + chunk_estimate > double(p.budget_bytes)) break;
        committed += chunk_estimate;
        kept.push_back({k, d, false, layers});
        in_flight.insert(k);
      }
      std::sort(kept.begin(), kept.end(), [](const Job& a, const Job& b) {
        if (a.replace != b.replace) return b.replace;                  // replacements last
        if (a.priority != b.priority) return a.priority > b.priority;  // nearest last
        return std::tie(a.key.cx, a.key.cy, a.key.cz) > std::tie(b.key.cx, b.key.cy, b.key.cz);
      });
      queue.swap(kept);
      stats.queued = queue.size();
      stats.running = running + done.size();
    }
    cv.notify_all();
    refresh();
  }

  std::size_t poll(const PollBudget& budget) {
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t delivered = 0;
    std::vector<Done> taken;
    {
      const std::lock_guard lock(mutex);
      const std::size_t n = std::min(budget.max_chunks, done.size());
      taken.reserve(n);
      for (std::size_t k = 0; k < n; ++k) taken.push_back(std::move(done[k]));
      done.erase(done.begin(), done.begin() + std::ptrdiff_t(n));
    }
    std::size_t k = 0;
    for (; k < taken.size(); ++k) {
      if (delivered > 0 &&
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() >
              budget.max_ms) {
        break;
      }
      Done& d = taken[k];
      if (d.replace) {
        take_replacement(d);
        continue;
      }
      in_flight.erase(d.key);
      if (d.error) {
        if (!failure) failure = d.error;
        continue;
      }
      if (d.layers.epoch != layers.epoch && !reads_same(d.key, d.layers, layers)) {
        ++stats.dropped;  // generated on older edits that differ here; update() queues it again
        continue;
      }
      if (wanted.count(d.key) == 0) {
        ++stats.dropped;
        continue;
      }
      const std::size_t bytes = d.chunk->bytes();
      chunk_estimate = 0.9 * chunk_estimate + 0.1 * double(bytes);
      resident_bytes += bytes;
      const BlockChunkResident* ptr = d.chunk.get();
      resident.emplace(d.key, std::move(d.chunk));
      events.push_back({BlockEventKind::ready, d.key, ptr});
      ++stats.generated;
      ++delivered;
    }
    if (k < taken.size()) {  // over the time budget: hand the rest back, in order
      const std::lock_guard lock(mutex);
      done.insert(done.begin(), std::make_move_iterator(taken.begin() + std::ptrdiff_t(k)),
                  std::make_move_iterator(taken.end()));
    }
    swap_in_update();
    refresh();
    if (failure) {
      std::exception_ptr f = failure;
      failure = nullptr;
      try {
        std::rethrow_exception(f);
      } catch (const Error& e) {
        throw Error(e.category(), std::string("block chunk generation failed: ") + e.what());
      } catch (const std::exception& e) {
        throw Error(ErrorCategory::internal,
                    std::string("block chunk generation failed: ") + e.what());
      }
    }
    return delivered;
  }

  bool reads_same(const BlockChunkKey& key, const Layers& a, const Layers& b) const {
    return gen->reads_same_edits(key, a.heights.get(), a.blocks.get(), b.heights.get(),
                                 b.blocks.get());
  }

  // A finished replacement: kept when it is of the newest layers and its chunk still pending;
  // one of older layers was queued again by set_edits.
  void take_replacement(Done& d) {
    if (d.error) {
      if (!failure) failure = d.error;
      return;
    }
    const auto it = pending.find(d.key);
    if (it == pending.end() || d.layers.epoch != layers.epoch) return;
    it->second = std::move(d.chunk);
  }

  // The pending update, once every replacement is done: each resident chunk takes its new
  // contents in place (the pointer the events gave stays valid).
  void swap_in_update() {
    if (pending.empty()) return;
    for (const auto& [key, chunk] : pending) {
      if (!chunk) return;
    }
    for (auto& [key, chunk] : pending) {
      BlockChunkResident& r = *resident.at(key);
      resident_bytes -= r.bytes();
      r = std::move(*chunk);
      resident_bytes += r.bytes();
      events.push_back({BlockEventKind::updated, key, &r});
      ++stats.updated;
    }
    pending.clear();
  }

  void set_edits(Layers next) {
    next.epoch = layers.epoch + 1;
    const Layers before = std::move(layers);
    layers = std::move(next);
    // The update: what was pending plus the resident chunks that read a changed part, all
    // regenerated on the new layers (a replacement done on older ones is stale).
    for (auto& [key, chunk] : pending) chunk.reset();
    for (const auto& [key, chunk] : resident) {
      if (pending.count(key) == 0 && !reads_same(key, before, layers))
        pending.emplace(key, nullptr);
    }
    {
      const std::lock_guard lock(mutex);
      std::erase_if(queue, [](const Job& j) { return j.replace; });
      for (Job& j : queue) j.layers = layers;
      std::vector<BlockChunkKey> keys;
      keys.reserve(pending.size());
      for (const auto& entry : pending) keys.push_back(entry.first);
      // Nearest first among the replacements (the queue's end is taken first).
      std::vector<std::pair<double, BlockChunkKey>> ranked;
      for (const BlockChunkKey& key : keys) {
        bool inside = false;
        ranked.push_back({distance(key, 1.0, inside), key});
      }
      std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        return std::tie(a.second.cx, a.second.cy, a.second.cz) >
               std::tie(b.second.cx, b.second.cy, b.second.cz);
      });
      for (const auto& [d, key] : ranked) queue.push_back({key, d, true, layers});
    }
    cv.notify_all();
    refresh();
  }

  void refresh() {
    resident_list.clear();
    std::size_t quads = 0;
    for (const auto& [k, c] : resident) {
      resident_list.push_back(c.get());
      quads += c->mesh.opaque.size() + c->mesh.translucent.size();
    }
    std::sort(resident_list.begin(), resident_list.end(),
              [](const BlockChunkResident* a, const BlockChunkResident* b) {
                return std::tie(a->key.cx, a->key.cy, a->key.cz) <
                       std::tie(b->key.cx, b->key.cy, b->key.cz);
              });
    stats.wanted = wanted.size();
    stats.resident = resident.size();
    stats.quads = quads;
    std::size_t holes = 0;
    for (const auto& [k, d] : wanted) holes += resident.count(k) == 0 ? 1 : 0;
    stats.holes = holes;
    stats.view_complete = holes == 0;
    stats.updates_pending = pending.size();
    stats.resident_bytes = resident_bytes + std::size_t(double(in_flight.size()) * chunk_estimate);
    {
      const std::lock_guard lock(mutex);
      stats.queued = queue.size();
      stats.running = running + done.size();
    }
  }
};

BlockStreamer::BlockStreamer(const Preset& preset, const BlockStreamerParams& params)
    : params_(params) {
  params.validate();
  generator_ =
      std::make_shared<const BlockWorldGenerator>(preset.generator(), preset.surface, preset.voxel);
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  m.gen = generator_;
  m.p = params;
  const int S = generator_->chunk_size();
  m.chunk_m = double(S) * preset.voxel.block_size_m;
  m.cy_min = floor_div(preset.voxel.min_y, S);
  m.cy_max = floor_div(preset.voxel.max_y, S);
  const int threads =
      params.threads > 0 ? params.threads : std::max(1, int(std::thread::hardware_concurrency()));
  for (int t = 0; t < threads; ++t) m.workers.emplace_back([&m] { m.work(); });
}

BlockStreamer::~BlockStreamer() {
  {
    const std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
    impl_->queue.clear();
  }
  impl_->cv.notify_all();
  for (std::thread& t : impl_->workers) t.join();
}

void BlockStreamer::set_viewers(std::span<const Viewer> viewers) {
  world_detail::validate_viewers(viewers);
  impl_->viewers.assign(viewers.begin(), viewers.end());
}
void BlockStreamer::set_edits(std::shared_ptr<const HeightEditSnapshot> heights,
                              std::shared_ptr<const BlockEditSnapshot> blocks) {
  generator_->check_edits(heights.get(), blocks.get());
  impl_->set_edits({std::move(heights), std::move(blocks), 0});
}
void BlockStreamer::update() {
  impl_->update();
}
std::size_t BlockStreamer::poll(const PollBudget& budget) {
  return impl_->poll(budget);
}
std::span<const BlockChunkEvent> BlockStreamer::events() const {
  return impl_->events;
}
std::span<const BlockChunkResident* const> BlockStreamer::resident() const {
  return impl_->resident_list;
}
BlockStreamerStats BlockStreamer::stats() const {
  return impl_->stats;
}

}  // namespace terrane
