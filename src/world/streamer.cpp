// The streamer: LOD selection around viewers, a prioritised and cancellable job queue on its own
// worker threads, an LRU cache of chunk buffers within a byte budget, and a visible set in which
// a resident ancestor covers every area whose finer chunks are not ready yet.
//
// Ownership. Chunk buffers live in a fixed array of slots sized from the budget at construction
// (budget / chunk bytes). A slot is free, queued (in the shared job queue), running (a worker
// owns its buffer), done (in the completion queue) or resident (in the cache). Only the owner's
// thread moves slots between states, except queued -> running (a worker, under the queue's
// mutex) and running -> done (a worker, under the completion mutex). Critical sections are a few
// hundred instructions, and the owner only ever try_locks: when a worker holds a mutex (or was
// preempted holding it), update() schedules next frame and poll() delivers next frame, so the
// owner's thread never waits for a worker.
//
// Memory. Resident + in-flight slots never exceed the budget by construction; a slot's buffers
// are allocated by the worker that first fills it and reused afterwards, so the process holds at
// most budget bytes of chunk data whatever the flight. Each worker owns one ChunkScratch (surface
// data's working memory), whose bound ChunkGenerator::scratch_bytes() is reserved from the
// budget before the slots are counted. update()/poll() allocate nothing: every table is sized at
// construction.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "world/world_internal.hpp"

namespace terrane {

using world_detail::KeyMap;
using world_detail::LodGeometry;
using world_detail::Selection;
using world_detail::SelNode;

namespace {

enum class SlotState : std::uint8_t { free, queued, running, done, resident };

// The edit layers a chunk is generated with (nullptr: none).
struct EditLayers {
  std::shared_ptr<const HeightEditSnapshot> heights;
  std::shared_ptr<const InstanceEditSnapshot> instances;
  std::shared_ptr<const SplatPaintSnapshot> paint;
};

struct Slot {
  ChunkData data;
  ChunkKey key;
  std::atomic<SlotState> state{SlotState::free};
  bool failed = false;          // generation threw (message in Impl::error_)
  std::uint64_t last_used = 0;  // frame it was last wanted or visible (LRU)
  std::atomic<bool> cancel{false};
  // The edits the job generates with (set by the owner before the job is queued, or while it
  // is queued, under the queue mutex).
  EditLayers layers;
  // A replacement: the resident slot whose chunk this job regenerates after set_edits (not in
  // by_key; -1 for an ordinary job).
  int replaces = -1;
  bool stale = false;  // generated with edits older than the current ones: dropped when done
};

// Whether the height grid of `key` (with its halo) samples a lattice vertex of `r`: a multiple
// of the level's step inside both ranges. A level-0 chunk also reads the heights `reach` cells
// around it for its scatter (ChunkGenerator::scatter_reach_cells), all of them.
bool grid_touches(const ChunkKey& key, int cells, const LatticeRect& r, std::int64_t reach) {
  if (r.empty()) return false;
  const std::int64_t step = std::int64_t{1} << key.level;
  const std::int64_t halo = key.level == 0 ? std::max<std::int64_t>(1, reach) : 1;
  auto axis = [&](std::int64_t c, std::int64_t lo_r, std::int64_t hi_r) {
    const std::int64_t lo = std::max(lo_r, (c * cells - halo) * step);
    const std::int64_t hi = std::min(hi_r, (c * cells + cells + halo) * step);
    if (lo > hi) return false;
    const std::int64_t first = lo >= 0 ? (lo + step - 1) / step * step : -((-lo) / step) * step;
    return first <= hi;
  };
  return axis(key.cx, r.i0, r.i1) && axis(key.cz, r.j0, r.j1);
}

struct QueuedJob {
  int slot = -1;
  double priority = 0.0;  // lower first
};

std::string mib(std::size_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", double(bytes) / 1048576.0);
  return buf;
}

std::string metres(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g m", v);
  return buf;
}

constexpr std::size_t kMaxSelectionNodes = 1 << 15;
constexpr std::size_t kMaxSlots = 1 << 16;

}  // namespace

void StreamerParams::validate() const {
  chunk.validate();
  auto fail = [](const std::string& m) { throw Error(ErrorCategory::invalid_argument, m); };
  if (!(std::isfinite(view_distance_m) && view_distance_m > 0.0 && view_distance_m <= 1.0e6)) {
    fail("view_distance_m " + metres(view_distance_m) + " must be in (0, 1e6] m");
  }
  if (!(std::isfinite(lod0_distance_m) && lod0_distance_m >= 0.0)) {
    fail("lod0_distance_m " + metres(lod0_distance_m) +
         " must be 0 (automatic) or a positive distance");
  }
  if (!(std::isfinite(hysteresis) && hysteresis >= 0.0 && hysteresis <= 1.0)) {
    fail("hysteresis " + std::to_string(hysteresis) + " must be in [0, 1]");
  }
  if (!(std::isfinite(lookahead_s) && lookahead_s >= 0.0 && lookahead_s <= 60.0)) {
    fail("lookahead_s " + std::to_string(lookahead_s) + " must be in [0, 60] s");
  }
  if (threads < 0 || threads > 256)
    fail("threads " + std::to_string(threads) + " must be in 0..256");
  try {
    (void)resolved_simd_target(ExecContext{.simd = simd});
  } catch (const Error& e) {
    fail(std::string("simd: ") + e.what());
  }
}

namespace world_detail {

void apply_worker_priority(WorkerPriority priority) {
  switch (priority) {
    case WorkerPriority::normal:
      break;
    case WorkerPriority::low:
      (void)setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), 10);
      break;
    case WorkerPriority::background: {
      sched_param sp{};
      (void)sched_setscheduler(0, SCHED_IDLE, &sp);
      break;
    }
  }
}

}  // namespace world_detail

using world_detail::apply_worker_priority;

struct Streamer::Impl {
  const ChunkGenerator& gen;
  LodGeometry geo;
  std::size_t chunk_bytes = 0;
  std::size_t scratch_bound = 0;  // per worker: ChunkGenerator::scratch_bytes()
  std::size_t minimum = 0;        // minimum_bytes() at construction
  int threads = 1;
  WorkerPriority worker_priority = WorkerPriority::background;
  SimdTarget simd = SimdTarget::best;
  std::size_t max_queue = 0;

  // Slots and the cache (owner thread, apart from the documented transitions).
  std::unique_ptr<Slot[]> slots;
  std::size_t slot_count = 0;
  std::vector<int> free_slots;  // stack
  KeyMap by_key;                // key -> slot, for every non-free slot
  std::size_t in_use = 0;
  std::size_t peak_in_use = 0;

  // Selection and visible set (owner thread).
  std::vector<Viewer> viewers;
  Selection sel[2];
  int cur = 0;
  KeyMap visible_index;
  std::vector<VisibleChunk> visible;
  std::vector<ChunkEvent> events;
  std::vector<QueuedJob> candidates;
  std::uint64_t frame = 0;
  std::size_t holes = 0;
  bool complete = false;
  StreamerStats counters;

  // Shared with workers.
  std::mutex queue_mutex;
  std::condition_variable queue_cv;
  std::vector<QueuedJob> queue;            // capacity max_queue
  std::atomic<std::size_t> queued_now{0};  // queue.size(), readable without the mutex
  bool stopping = false;
  std::mutex done_mutex;
  std::vector<int> done;  // capacity slot_count
  // Edits (owner thread): the current snapshot, the resident slots waiting for a replacement
  // job, the replacement jobs in flight and the finished ones held until all are done.
  EditLayers edits;
  std::vector<std::pair<int, ChunkKey>> refresh_pending;
  // Per slot: whether refresh_pending holds (slot, pending_key[slot]) (so set_edits need not
  // search it), and scratch for schedule_refresh: whether a replacement job in flight already
  // covers the slot. Both slot_count long; they keep the edit bookkeeping O(slots) a frame.
  std::vector<std::uint8_t> pending_mark, replaced_in_flight;
  std::vector<ChunkKey> pending_key;
  std::size_t refresh_in_flight = 0;
  std::vector<int> refresh_done;
  std::optional<Error> error;  // first generation error, category kept (under done_mutex)
  // Per worker: its scratch (only that worker touches it) and the bytes it held after its
  // latest job (read by stats()).
  std::unique_ptr<ChunkScratch[]> scratch;
  std::unique_ptr<std::atomic<std::size_t>[]> scratch_used;
  std::vector<std::thread> workers;

  Impl(const ChunkGenerator& g, const StreamerParams& p) : gen(g) {
    geo.chunk_m = gen.chunk_size_m(0);
    geo.lod0_m = p.lod0_distance_m > 0.0 ? p.lod0_distance_m : 2.0 * geo.chunk_m;
    geo.view_m = p.view_distance_m;
    geo.hysteresis = p.hysteresis;
    geo.lookahead_s = p.lookahead_s;
    geo.max_stitch = chunk_levels(gen.settings().cells);
    geo.root_level = 0;
    while (geo.root_level < kMaxChunkLevel && std::ldexp(geo.lod0_m, geo.root_level) < geo.view_m) {
      ++geo.root_level;
    }
    if (p.lod0_distance_m > 0.0 && p.lod0_distance_m < geo.chunk_m) {
      throw Error(ErrorCategory::invalid_argument,
                  "lod0_distance_m " + metres(p.lod0_distance_m) +
                      " must be 0 (automatic) or at least the level-0 chunk size " +
                      metres(geo.chunk_m));
    }
    chunk_bytes = gen.chunk_bytes();
    scratch_bound = gen.scratch_bytes();
    threads = p.threads > 0 ? p.threads : std::max(1, int(std::thread::hardware_concurrency()));
    worker_priority = p.worker_priority;
    simd = p.simd;
    max_queue = std::size_t(8 * threads + 8);
    for (Selection& s : sel) s.init(kMaxSelectionNodes);

    minimum = minimum_bytes();
    // 0: automatic, 1.5 times the minimum (at least 256 MiB): grows with the workers' scratch.
    const std::size_t budget_bytes = p.budget_bytes != 0
                                         ? p.budget_bytes
                                         : std::max(std::size_t{256} << 20, minimum + minimum / 2);
    if (budget_bytes < minimum) {
      const std::size_t reserved = std::size_t(threads) * scratch_bound;
      throw Error(ErrorCategory::invalid_argument,
                  "budget " + mib(budget_bytes) + " is too small: a view of " + metres(geo.view_m) +
                      " with " + std::to_string(gen.settings().cells) + "-cell chunks of " +
                      mib(chunk_bytes) + " needs at least " + mib(minimum) + " (" +
                      std::to_string((minimum - reserved) / chunk_bytes) + " chunks including " +
                      std::to_string(threads) + " in flight" +
                      (reserved > 0 ? ", plus " + mib(reserved) + " of worker scratch" : "") + ")");
    }
    slot_count =
        std::min(kMaxSlots, (budget_bytes - std::size_t(threads) * scratch_bound) / chunk_bytes);
    slots = std::make_unique<Slot[]>(slot_count);
    pending_mark.assign(slot_count, 0);
    replaced_in_flight.assign(slot_count, 0);
    pending_key.assign(slot_count, ChunkKey{});
    free_slots.reserve(slot_count);
    for (std::size_t i = slot_count; i-- > 0;) free_slots.push_back(int(i));
    by_key.init(slot_count);
    visible_index.init(kMaxSelectionNodes);
    visible.reserve(kMaxSelectionNodes);
    events.reserve(4 * slot_count + 16);
    candidates.reserve(kMaxSelectionNodes);
    queue.reserve(max_queue);
    done.reserve(slot_count);
    viewers.reserve(kMaxViewers);
    counters.budget_bytes = budget_bytes;
    counters.chunk_bytes = chunk_bytes;
    scratch = std::make_unique<ChunkScratch[]>(std::size_t(threads));
    scratch_used = std::make_unique<std::atomic<std::size_t>[]>(std::size_t(threads));
    for (int t = 0; t < threads; ++t) workers.emplace_back([this, t] { work(t); });
  }

  ~Impl() {
    {
      std::lock_guard lock(queue_mutex);
      stopping = true;
      for (std::size_t i = 0; i < slot_count; ++i) slots[i].cancel.store(true);
    }
    queue_cv.notify_all();
    for (std::thread& t : workers) t.join();
  }

  // The largest in-view selection of one viewer (leaves and roots) over 8 x 8 positions across
  // a root, with every split at its hysteresis distance, plus a quarter for positions between
  // the samples, plus the workers' jobs.
  std::size_t minimum_bytes() {
    LodGeometry worst = geo;
    worst.lod0_m = geo.lod0_m * (1.0 + geo.hysteresis);
    KeyMap none;
    none.init(1);
    std::size_t most = 0;
    const double root = geo.node_size(geo.root_level);
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) {
        Viewer v;
        v.x_m = root * (0.0625 + 0.125 * a);
        v.z_m = root * (0.0625 + 0.125 * b);
        world_detail::select_lod(worst, {&v, 1}, none, sel[0]);
        most = std::max(most, sel[0].leaves.size() + sel[0].roots.size());
      }
    }
    return (most + (most + 3) / 4 + std::size_t(threads)) * chunk_bytes +
           std::size_t(threads) * scratch_bound;
  }

  // ---- workers

  void work(int worker) {
    // The owner's frame thread must win the core at once (with as many workers as cores, a
    // worker at the same priority delays it by a time slice; even at nice 19 a worker woken by
    // update() may preempt it, as the scheduler credits sleepers). Linux only; failures (e.g. a
    // sandbox refusing the call) leave the default priority.
    apply_worker_priority(worker_priority);
    for (;;) {
      int s = -1;
      {
        std::unique_lock lock(queue_mutex);
        queue_cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (stopping) return;
        std::size_t best = 0;
        for (std::size_t i = 1; i < queue.size(); ++i) {
          if (queue[i].priority < queue[best].priority) best = i;
        }
        s = queue[best].slot;
        queue[best] = queue.back();
        queue.pop_back();
        slots[std::size_t(s)].state = SlotState::running;
        queued_now.store(queue.size(), std::memory_order_relaxed);
      }
      Slot& slot = slots[std::size_t(s)];
      slot.failed = false;
      std::optional<Error> failure;
      ChunkScratch& own = scratch[std::size_t(worker)];
      try {
        ExecContext ctx;
        ctx.threads = 1;
        ctx.cancel = &slot.cancel;
        ctx.simd = simd;
        gen.generate(slot.key, {0, 0, 0, 0}, slot.data, ctx, &own, slot.layers.heights.get(),
                     slot.layers.instances.get(), slot.layers.paint.get());
      } catch (const Error& e) {
        slot.failed = true;
        // A cancellation is not an error (the flag may already be cleared again: the owner
        // un-cancels a job that is wanted again; the slot then comes back failed and is redone).
        if (e.category() != ErrorCategory::cancelled) failure = e;
      } catch (const std::exception& e) {
        slot.failed = true;
        failure = Error(ErrorCategory::internal, e.what());
      }
      scratch_used[std::size_t(worker)].store(own.bytes(), std::memory_order_relaxed);
      {
        std::lock_guard lock(done_mutex);
        if (failure && !error) error = std::move(failure);
        slot.state = SlotState::done;
        done.push_back(s);
      }
    }
  }

  // ---- owner thread

  bool resident(const ChunkKey& key) const {
    const int* s = by_key.find(key);
    return s != nullptr && slots[std::size_t(*s)].state == SlotState::resident;
  }
  const Selection& selection() const { return sel[cur]; }
  bool wanted(const ChunkKey& key) const { return selection().index.contains(key); }

  void release(int s) {
    Slot& slot = slots[std::size_t(s)];
    if (slot.replaces < 0) by_key.erase(slot.key);  // a replacement is not in by_key
    slot.state = SlotState::free;
    slot.cancel.store(false, std::memory_order_relaxed);
    slot.layers = {};
    slot.replaces = -1;
    slot.stale = false;
    free_slots.push_back(s);
    --in_use;
  }

  // ---- edits (owner thread)

  void set_edits(std::shared_ptr<const HeightEditSnapshot> next, const LatticeRect& changed) {
    edits.heights = std::move(next);
    const int cells = gen.settings().cells;
    const std::int64_t reach = gen.scatter_reach_cells();
    mark_touched([&](const ChunkKey& key) { return grid_touches(key, cells, changed, reach); });
  }

  // Paint changes the splat weights of the samples it lies on only: no scatter reach.
  void set_paint(std::shared_ptr<const SplatPaintSnapshot> next, const LatticeRect& changed) {
    edits.paint = std::move(next);
    const int cells = gen.settings().cells;
    mark_touched([&](const ChunkKey& key) { return grid_touches(key, cells, changed, 0); });
  }

  void set_instance_edits(std::shared_ptr<const InstanceEditSnapshot> next,
                          const InstanceChanges& changed) {
    edits.instances = std::move(next);
    if (changed.empty()) return;
    const double size = gen.chunk_size_m(0);
    mark_touched([&](const ChunkKey& key) {
      if (key.level != 0) return false;
      const double x0 = double(key.cx) * size, z0 = double(key.cz) * size;
      const double x1 = double(key.cx + 1) * size, z1 = double(key.cz + 1) * size;
      for (const auto& [x, z] : changed.at) {
        if (x >= x0 && x < x1 && z >= z0 && z < z1) return true;
      }
      return false;
    });
  }

  // After new edits: every slot whose chunk `touched` says reads a change takes them (queued),
  // is redone (running, done, or a held replacement) or gets a replacement (resident).
  template <class Touched>
  void mark_touched(const Touched& touched) {
    std::lock_guard lock(queue_mutex);  // queued jobs take the new snapshots
    for (std::size_t i = 0; i < slot_count; ++i) {
      Slot& sl = slots[i];
      const SlotState st = sl.state.load(std::memory_order_relaxed);
      if (st == SlotState::free || !touched(sl.key)) continue;
      if (st == SlotState::queued) {
        sl.layers = edits;
      } else if (st == SlotState::running || st == SlotState::done) {
        sl.stale = true;  // dropped when delivered (a replacement is queued again)
      } else if (sl.replaces >= 0) {
        sl.stale = true;  // a finished replacement held for its group: redone
      } else {
        add_pending(int(i), sl.key);
      }
    }
  }

  // Adds (slot, key) to refresh_pending unless it is there already.
  void add_pending(int r, const ChunkKey& key) {
    if (pending_mark[std::size_t(r)] != 0 && pending_key[std::size_t(r)] == key) return;
    pending_mark[std::size_t(r)] = 1;
    pending_key[std::size_t(r)] = key;
    refresh_pending.emplace_back(r, key);
  }

  // Queues a replacement job for each resident slot waiting for one (first of all jobs), as far
  // as free slots and the queue allow. Under queue_mutex.
  std::size_t schedule_refresh() {
    if (refresh_pending.empty()) return 0;
    std::size_t added = 0;
    std::size_t kept = 0;
    // The slots already replaced by a job in flight with the current edits: one pass.
    std::fill(replaced_in_flight.begin(), replaced_in_flight.end(), std::uint8_t{0});
    for (std::size_t i = 0; i < slot_count; ++i) {
      const Slot& sl = slots[i];
      if (sl.replaces >= 0 && !sl.stale && sl.state != SlotState::free) {
        replaced_in_flight[std::size_t(sl.replaces)] = 1;
      }
    }
    for (const auto& [r, key] : refresh_pending) {
      // The entry leaves the list unless it is kept below.
      if (pending_key[std::size_t(r)] == key) pending_mark[std::size_t(r)] = 0;
      const Slot& target = slots[std::size_t(r)];
      if (target.state.load(std::memory_order_relaxed) != SlotState::resident ||
          !(target.key == key)) {
        continue;  // evicted meanwhile
      }
      // Already replaced by a job in flight with the current edits: nothing to add.
      if (replaced_in_flight[std::size_t(r)] != 0) continue;
      int s = -1;
      if (queue.size() < max_queue) {
        if (!free_slots.empty()) {
          s = free_slots.back();
          free_slots.pop_back();
        } else {
          s = evict_one(frame);               // a chunk neither drawn nor wanted this frame
          if (s >= 0) free_slots.pop_back();  // evict_one pushed it
        }
      }
      if (s == r) s = -1;  // the target itself was the stale one: nothing left to refresh
      if (s < 0) {
        if (target.state.load(std::memory_order_relaxed) == SlotState::resident) {
          refresh_pending[kept++] = {r, key};  // next frame
          pending_mark[std::size_t(r)] = 1;
          pending_key[std::size_t(r)] = key;
        }
        continue;
      }
      Slot& sl = slots[std::size_t(s)];
      sl.key = target.key;
      sl.replaces = r;
      sl.stale = false;
      sl.layers = edits;
      sl.last_used = frame;
      sl.cancel.store(false, std::memory_order_relaxed);
      sl.state = SlotState::queued;
      ++in_use;
      ++refresh_in_flight;
      queue.push_back(QueuedJob{s, -1.0});
      replaced_in_flight[std::size_t(r)] = 1;
      ++added;
    }
    refresh_pending.resize(kept);
    return added;
  }

  // A finished replacement job: held until the whole group is done, or dropped.
  void take_replacement(int s) {
    Slot& slot = slots[std::size_t(s)];
    --refresh_in_flight;
    const int r = slot.replaces;
    const Slot& target = slots[std::size_t(r)];
    const bool alive = target.state.load(std::memory_order_relaxed) == SlotState::resident &&
                       target.key == slot.key;
    if (slot.failed || slot.stale || !alive) {
      if (alive) add_pending(r, target.key);
      release(s);
      ++counters.dropped;
      return;
    }
    refresh_done.push_back(s);
  }

  // Swaps the held replacements in together once none is pending or in flight.
  bool swap_replacements() {
    if (refresh_done.empty() || refresh_in_flight > 0 || !refresh_pending.empty()) return false;
    for (const int s : refresh_done) {
      Slot& slot = slots[std::size_t(s)];
      if (slot.stale) {  // edited again after it finished: its target is pending once more
        release(s);
        continue;
      }
      Slot& target = slots[std::size_t(slot.replaces)];
      if (target.state.load(std::memory_order_relaxed) == SlotState::resident &&
          target.key == slot.key) {
        std::swap(target.data, slot.data);
        events.push_back(ChunkEvent{ChunkEventKind::updated, target.key, &target.data});
        ++counters.updated;
      }
      release(s);
    }
    refresh_done.clear();
    return true;
  }

  void push_visible(const ChunkKey& key) {
    const int s = *by_key.find(key);
    slots[std::size_t(s)].last_used = frame;
    visible_index.put(key, int(visible.size()));
    visible.push_back(VisibleChunk{key, {0, 0, 0, 0}, &slots[std::size_t(s)].data});
  }

  double view_distance(const ChunkKey& key) const {
    double d = INFINITY;
    for (const Viewer& v : viewers)
      d = std::min(d, world_detail::node_distance(geo, key, v.x_m, v.z_m));
    return d;
  }

  // Covers `key` (not resident) with resident descendants down to `depth` levels.
  bool cover_from_descendants(const ChunkKey& key, int depth) {
    if (depth == 0 || key.level == 0) return false;
    const std::size_t mark = visible.size();
    for (int q = 0; q < 4; ++q) {
      const ChunkKey c = key.child(q);
      if (!(view_distance(c) < geo.view_m)) continue;
      if (resident(c)) {
        push_visible(c);
      } else if (!cover_from_descendants(c, depth - 1)) {
        unwind(mark);
        return false;
      }
    }
    return true;
  }

  void unwind(std::size_t mark) {
    while (visible.size() > mark) {
      visible_index.erase(visible.back().key);
      visible.pop_back();
    }
  }

  // Appends a cover of node `id` to the visible set. Strict: all or nothing. Best effort: covers
  // what it can and counts the selected leaves left uncovered in `holes`.
  bool emit(int id, bool best_effort) {
    const SelNode& n = selection().nodes[std::size_t(id)];
    if (n.leaf) {
      if (resident(n.key)) {
        push_visible(n.key);
        return true;
      }
      if (cover_from_descendants(n.key, 2)) return true;
      if (best_effort) ++holes;
      return false;
    }
    const std::size_t mark = visible.size();
    bool ok = true;
    for (int q = 0; q < 4 && ok; ++q) {
      if (n.child[q] >= 0) ok = emit(n.child[q], false);
    }
    if (ok) return true;
    unwind(mark);
    if (resident(n.key)) {
      push_visible(n.key);
      return true;
    }
    if (best_effort) {
      for (int q = 0; q < 4; ++q) {
        if (n.child[q] >= 0) emit(n.child[q], true);
      }
    }
    return false;
  }

  // Levels coarser the visible neighbour across edge e of `key` is (0: same level, finer, or
  // none), found by walking up the levels.
  int coarser_by(const ChunkKey& key, Edge e) const {
    const ChunkKey nb = world_detail::neighbour(key, e);
    for (int up = 0; key.level + up <= geo.root_level; ++up) {
      if (visible_index.contains(nb.ancestor(up))) return up;
    }
    return 0;
  }

  // Removes the visible nodes inside `area` (compacting the visible set and its index).
  void remove_inside(const ChunkKey& area) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < visible.size(); ++i) {
      const ChunkKey& k = visible[i].key;
      if (k.level <= area.level && k.ancestor(area.level - k.level) == area) continue;
      visible[kept++] = visible[i];
    }
    visible.resize(kept);
    visible_index.clear();
    for (std::size_t i = 0; i < visible.size(); ++i) visible_index.put(visible[i].key, int(i));
  }

  // Makes the visible set a restricted quadtree: no neighbour more than max_stitch levels
  // coarser, so every edge is one the stitch table bridges. The selection is balanced
  // (select_lod), but the fallback covers of a loading view are not: a resident ancestor stands
  // in for a subtree whose chunks are not ready, next to a neighbour that is already fine. Each
  // violation is resolved on the finer side: the region of the fine node max_stitch levels below
  // the coarse one is drawn by its first resident ancestor instead (which replaces every visible
  // node inside it), or, when none is resident, left out (counted in holes). Never refines, so it
  // terminates: every step replaces nodes by a strictly coarser one or removes them.
  void restrict_visible() {
    const int k = geo.max_stitch;
    bool dropped = false;
    for (bool changed = true; changed;) {
      changed = false;
      std::size_t i = 0;
      while (i < visible.size()) {
        const ChunkKey key = visible[i].key;
        int d = 0;
        for (int e = 0; e < 4 && d <= k; ++e) d = coarser_by(key, Edge(e));
        if (d <= k) {
          ++i;
          continue;
        }
        const ChunkKey area = key.ancestor(d - k);
        std::optional<ChunkKey> cover;
        for (int up = 0; area.level + up <= geo.root_level; ++up) {
          if (resident(area.ancestor(up))) {
            cover = area.ancestor(up);
            break;
          }
        }
        // Compaction keeps the order: the nodes from i on that were not removed are still at i
        // or later (some may be skipped this sweep; the next one checks them).
        remove_inside(cover ? *cover : area);
        if (cover) {
          push_visible(*cover);
        } else {
          dropped = true;
        }
        changed = true;
      }
    }
    if (dropped) count_holes();
  }

  // Whether `key` is drawn by visible nodes: itself or an ancestor, or (like
  // cover_from_descendants) its in-view descendants down to `depth` levels.
  bool drawn(const ChunkKey& key, int depth) const {
    for (int up = 0; key.level + up <= geo.root_level; ++up) {
      if (visible_index.contains(key.ancestor(up))) return true;
    }
    return covered_below(key, depth);
  }
  bool covered_below(const ChunkKey& key, int depth) const {
    if (depth == 0 || key.level == 0) return false;
    for (int q = 0; q < 4; ++q) {
      const ChunkKey c = key.child(q);
      if (!(view_distance(c) < geo.view_m)) continue;
      if (!visible_index.contains(c) && !covered_below(c, depth - 1)) return false;
    }
    return true;
  }

  // holes = the selected leaves the visible set does not draw.
  void count_holes() {
    holes = 0;
    for (const ChunkKey& leaf : selection().leaves) {
      if (!drawn(leaf, 2)) ++holes;
    }
  }

  void rebuild_visible() {
    visible.clear();
    visible_index.clear();
    holes = 0;
    for (int r : selection().roots) {
      if (!emit(r, false)) emit(r, true);
    }
    restrict_visible();
    // Stitch masks: the coarser neighbour across each edge (at most max_stitch levels, above).
    for (VisibleChunk& v : visible) {
      for (int e = 0; e < 4; ++e) v.stitch[std::size_t(e)] = coarser_by(v.key, Edge(e));
    }
    complete = holes == 0 && visible.size() == selection().leaves.size();
    if (complete) {
      for (const ChunkKey& k : selection().leaves) {
        if (!visible_index.contains(k)) {
          complete = false;
          break;
        }
      }
    }
  }

  double priority(const ChunkKey& key, bool in_view) const {
    // Holes first (in view and nothing resident above it), then by distance, favouring the
    // frustum and the direction of travel.
    bool covered = false;
    for (int up = 0; key.level + up <= geo.root_level; ++up) {
      if (resident(key.ancestor(up))) {
        covered = true;
        break;
      }
    }
    const double size = geo.node_size(key.level);
    const double cx = (double(key.cx) + 0.5) * size;
    const double cz = (double(key.cz) + 0.5) * size;
    double best = INFINITY;
    for (const Viewer& v : viewers) {
      double d = world_detail::node_distance(geo, key, v.x_m, v.z_m);
      const double tx = cx - v.x_m, tz = cz - v.z_m;
      const double tl = std::sqrt(tx * tx + tz * tz);
      if (v.frustum && tl > 0.0) {
        const ViewFrustum& f = *v.frustum;
        const double fl = std::sqrt(f.forward_x * f.forward_x + f.forward_z * f.forward_z);
        const double c = (tx * f.forward_x + tz * f.forward_z) / (tl * fl);
        const double margin = std::asin(std::min(1.0, 0.7072 * size / tl));
        if (std::acos(std::clamp(c, -1.0, 1.0)) > f.half_angle_rad + margin) d *= 2.0;
      }
      const double speed = std::sqrt(v.vx_m_s * v.vx_m_s + v.vz_m_s * v.vz_m_s);
      if (speed > 0.1 && tl > 0.0) d *= 1.0 - 0.25 * (tx * v.vx_m_s + tz * v.vz_m_s) / (tl * speed);
      best = std::min(best, d);
    }
    return (in_view && !covered ? 0.0 : 1.0e15) + best;
  }

  // Frees the least recently used resident slot used before frame `before` (in-view nodes and
  // the visible set are marked with the current frame, prefetched roots with the previous one).
  int evict_one(std::uint64_t before) {
    int victim = -1;
    for (std::size_t i = 0; i < slot_count; ++i) {
      const Slot& s = slots[i];
      if (s.state != SlotState::resident || s.last_used >= before) continue;
      if (victim < 0 || s.last_used < slots[std::size_t(victim)].last_used) victim = int(i);
    }
    if (victim < 0) return -1;
    events.push_back(ChunkEvent{ChunkEventKind::evicted, slots[std::size_t(victim)].key, nullptr});
    ++counters.evicted;
    release(victim);
    return victim;
  }

  void update() {
    ++frame;
    events.clear();
    const int prev = cur;
    cur ^= 1;
    world_detail::select_lod(geo, viewers, sel[prev].split, sel[cur]);
    const Selection& s = selection();
    // Pinned this frame: what is in view. Prefetched roots rank just below: only stale cache
    // entries are evicted for them, and in-view work may evict them.
    for (const SelNode& n : s.nodes) {
      if (int* slot = by_key.find(n.key))
        slots[std::size_t(*slot)].last_used = n.in_view ? frame : frame - 1;
    }

    // Flag running jobs that are no longer wanted (queued ones are cancelled below).
    for (std::size_t i = 0; i < slot_count; ++i) {
      Slot& sl = slots[i];
      const SlotState st = sl.state.load(std::memory_order_relaxed);
      if ((st == SlotState::queued || st == SlotState::running || st == SlotState::done) &&
          sl.replaces < 0) {
        // A job wanted again before it finished is un-cancelled (if its worker already gave
        // up, the slot comes back failed and is dropped). Stale jobs (older edits) stop.
        // Replacements always run: their chunk is drawn until they are swapped in.
        sl.cancel.store(!wanted(sl.key) || sl.stale, std::memory_order_relaxed);
      }
    }

    rebuild_visible();  // marks what is drawn as used this frame (not evictable)

    // Candidates: wanted, not resident, not in flight.
    candidates.clear();
    for (std::size_t i = 0; i < s.nodes.size(); ++i) {
      const SelNode& n = s.nodes[i];
      if (!n.leaf && n.in_view) continue;  // internal nodes are covered by their children
      if (by_key.find(n.key) != nullptr) continue;
      candidates.push_back(QueuedJob{int(i), priority(n.key, n.in_view)});
    }
    // Internal in-view roots: they are the fallback cover, request them too.
    for (int r : s.roots) {
      const SelNode& n = s.nodes[std::size_t(r)];
      if (n.leaf || by_key.find(n.key) != nullptr) continue;
      candidates.push_back(QueuedJob{r, priority(n.key, true)});
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const QueuedJob& a, const QueuedJob& b) { return a.priority < b.priority; });

    std::size_t added = 0;
    // One try-locked section (when a worker holds the queue, all of this waits for next frame):
    // cancel queued jobs that are no longer wanted, re-prioritise the rest, add new ones.
    if (std::unique_lock lock(queue_mutex, std::try_to_lock); lock.owns_lock()) {
      for (std::size_t i = 0; i < queue.size();) {
        const int q = queue[i].slot;
        if (slots[std::size_t(q)].replaces < 0 && !wanted(slots[std::size_t(q)].key)) {
          queue[i] = queue.back();
          queue.pop_back();
          release(q);
          ++counters.cancelled;
        } else {
          ++i;
        }
      }
      for (QueuedJob& j : queue) {
        if (slots[std::size_t(j.slot)].replaces >= 0) continue;  // first of all, as queued
        const ChunkKey& k = slots[std::size_t(j.slot)].key;
        const int* id = s.index.find(k);
        j.priority = priority(k, s.nodes[std::size_t(*id)].in_view);
      }
      for (const QueuedJob& c : candidates) {
        if (queue.size() >= max_queue) break;
        int slot = -1;
        if (!free_slots.empty()) {
          slot = free_slots.back();
          free_slots.pop_back();
        } else {
          const bool in_view = s.nodes[std::size_t(c.slot)].in_view;
          slot = evict_one(in_view ? frame : frame - 1);
          if (slot < 0) {
            if (in_view) break;
            continue;  // a prefetch that finds no stale entry; in-view work may still fit
          }
          free_slots.pop_back();  // evict_one pushed it
        }
        Slot& sl = slots[std::size_t(slot)];
        sl.key = s.nodes[std::size_t(c.slot)].key;
        sl.layers = edits;
        sl.replaces = -1;
        sl.stale = false;
        sl.state = SlotState::queued;
        sl.last_used = s.nodes[std::size_t(c.slot)].in_view ? frame : frame - 1;
        sl.cancel.store(false, std::memory_order_relaxed);
        by_key.put(sl.key, slot);
        ++in_use;
        queue.push_back(QueuedJob{slot, c.priority});
        ++added;
      }
      added += schedule_refresh();
      queued_now.store(queue.size(), std::memory_order_relaxed);
    }
    peak_in_use = std::max(peak_in_use, in_use);
    if (added > 0) queue_cv.notify_all();
  }

  std::size_t poll(const PollBudget& budget) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    std::size_t delivered = 0;
    bool changed = false;
    for (;;) {
      if (delivered >= budget.max_chunks) break;
      if (std::chrono::duration<double, std::milli>(clock::now() - start).count() >= budget.max_ms)
        break;
      int s = -1;
      {
        std::unique_lock lock(done_mutex, std::try_to_lock);
        if (!lock.owns_lock()) break;  // a worker is handing a chunk over: next frame
        if (error) {
          const Error first = std::move(*error);
          error.reset();
          throw Error(first.category(), std::string("chunk generation failed: ") + first.what());
        }
        if (done.empty()) break;
        s = done.back();
        done.pop_back();
      }
      Slot& slot = slots[std::size_t(s)];
      if (slot.replaces >= 0) {
        take_replacement(s);
        continue;
      }
      if (slot.failed || slot.stale || slot.cancel.load(std::memory_order_relaxed) ||
          !wanted(slot.key)) {
        release(s);
        ++counters.dropped;
        continue;
      }
      slot.state = SlotState::resident;
      slot.last_used = frame;
      events.push_back(ChunkEvent{ChunkEventKind::ready, slot.key, &slot.data});
      ++counters.generated;
      ++delivered;
      changed = true;
    }
    if (swap_replacements()) changed = true;
    if (changed) rebuild_visible();
    return delivered;
  }

  StreamerStats stats() {
    StreamerStats st = counters;
    st.desired = selection().nodes.size();
    st.queued = queued_now.load(std::memory_order_relaxed);
    std::size_t res = 0, flight = 0;
    for (std::size_t i = 0; i < slot_count; ++i) {
      const SlotState state = slots[i].state.load(std::memory_order_relaxed);
      if (state == SlotState::resident) ++res;
      if (state == SlotState::running || state == SlotState::done) ++flight;
    }
    st.resident_chunks = res;
    st.running = flight;
    st.resident_bytes = in_use * chunk_bytes;
    st.scratch_bytes = 0;
    for (int t = 0; t < threads; ++t) {
      st.scratch_bytes += scratch_used[std::size_t(t)].load(std::memory_order_relaxed);
    }
    st.visible = visible.size();
    st.updates_pending = refresh_pending.size() + refresh_in_flight + refresh_done.size();
    st.holes = holes;
    st.view_complete = complete;
    return st;
  }
};

Streamer::Streamer(const Preset& preset, const StreamerParams& params) : params_(params) {
  params_.validate();
  params_.chunk.indices = false;
  generator_ = std::make_shared<const ChunkGenerator>(preset, params_.chunk);
  query_ = std::make_shared<const TerrainQuery>(generator_);
  impl_ = std::make_unique<Impl>(*generator_, params_);
}

Streamer::~Streamer() = default;

TerrainQuery Streamer::query() const {
  const std::lock_guard lock(query_mutex_);
  return *query_;
}

void Streamer::set_edits(std::shared_ptr<const HeightEditSnapshot> edits,
                         const LatticeRect& changed) {
  if (edits != nullptr && edits->cell_size_m() != generator_->cell_size_m()) {
    throw Error(ErrorCategory::invalid_argument,
                "set_edits: height edits of cell " + std::to_string(edits->cell_size_m()) +
                    " m on a world of cell " + std::to_string(generator_->cell_size_m()) + " m");
  }
  auto q = std::make_shared<const TerrainQuery>(generator_, edits);
  {
    const std::lock_guard lock(query_mutex_);
    query_ = std::move(q);
  }
  impl_->set_edits(std::move(edits), changed);
}

void Streamer::set_paint(std::shared_ptr<const SplatPaintSnapshot> paint,
                         const LatticeRect& changed) {
  if (paint != nullptr) generator_->check_paint(*paint);
  impl_->set_paint(std::move(paint), changed);
}

void Streamer::set_instance_edits(std::shared_ptr<const InstanceEditSnapshot> instances,
                                  const InstanceChanges& changed) {
  if (instances != nullptr) generator_->check_instance_edits(*instances);
  impl_->set_instance_edits(std::move(instances), changed);
}

namespace world_detail {

void validate_viewers(std::span<const Viewer> viewers) {
  if (viewers.size() > kMaxViewers) {
    throw Error(
        ErrorCategory::invalid_argument,
        std::to_string(viewers.size()) + " viewers: at most " + std::to_string(kMaxViewers));
  }
  for (std::size_t i = 0; i < viewers.size(); ++i) {
    const Viewer& v = viewers[i];
    const std::string who = "viewer " + std::to_string(i);
    const double p[3] = {v.x_m, v.y_m, v.z_m};
    for (double c : p) {
      if (!std::isfinite(c) || std::abs(c) > kMaxWorldCoordinate) {
        throw Error(ErrorCategory::invalid_argument,
                    who + ": position (" + std::to_string(v.x_m) + ", " + std::to_string(v.y_m) +
                        ", " + std::to_string(v.z_m) + ") must be finite and within " +
                        std::to_string(kMaxWorldCoordinate) + " m of the origin");
      }
    }
    const double speed = std::sqrt(v.vx_m_s * v.vx_m_s + v.vy_m_s * v.vy_m_s + v.vz_m_s * v.vz_m_s);
    if (!(speed <= kMaxViewerSpeed)) {
      throw Error(ErrorCategory::invalid_argument, who + ": speed " + std::to_string(speed) +
                                                       " m/s must be finite and at most " +
                                                       std::to_string(kMaxViewerSpeed) + " m/s");
    }
    if (v.frustum) {
      const ViewFrustum& f = *v.frustum;
      if (!(std::isfinite(f.forward_x) && std::isfinite(f.forward_z) &&
            (f.forward_x != 0.0 || f.forward_z != 0.0))) {
        throw Error(ErrorCategory::invalid_argument,
                    who + ": frustum forward direction must be finite and non-zero");
      }
      if (!(f.half_angle_rad > 0.0 && f.half_angle_rad <= 3.14159265358979323846)) {
        throw Error(ErrorCategory::invalid_argument, who + ": frustum half_angle_rad " +
                                                         std::to_string(f.half_angle_rad) +
                                                         " must be in (0, pi]");
      }
    }
  }
}

}  // namespace world_detail

void Streamer::set_viewers(std::span<const Viewer> viewers) {
  world_detail::validate_viewers(viewers);
  impl_->viewers.assign(viewers.begin(), viewers.end());
}

void Streamer::update() {
  impl_->update();
}
std::size_t Streamer::poll(const PollBudget& budget) {
  return impl_->poll(budget);
}
std::span<const ChunkEvent> Streamer::events() const {
  return impl_->events;
}
std::span<const VisibleChunk> Streamer::visible() const {
  return impl_->visible;
}
std::span<const ChunkKey> Streamer::selected() const {
  return impl_->selection().leaves;
}
StreamerStats Streamer::stats() const {
  return impl_->stats();
}
int Streamer::root_level() const {
  return impl_->geo.root_level;
}
double Streamer::lod0_distance_m() const {
  return impl_->geo.lod0_m;
}
std::size_t Streamer::minimum_budget_bytes() const {
  return impl_->minimum;
}

}  // namespace terrane
