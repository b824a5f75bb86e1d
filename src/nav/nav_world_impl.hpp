// NavWorld's state, shared with the queries and crowds of the nav module (nav_query.cpp,
// nav_crowd.cpp read the meshes, the origin and the epoch; only nav_world.cpp changes them).
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "nav/nav_internal.hpp"

class dtNavMesh;

namespace terrane {

struct NavSlot {
  int agent = 0;
  NavTileKey key;
  friend bool operator==(const NavSlot&, const NavSlot&) = default;
};
struct NavSlotHash {
  std::size_t operator()(const NavSlot& s) const {
    std::uint64_t h = std::uint64_t(s.key.tx) * 0x9E3779B97F4A7C15ull;
    h ^= std::uint64_t(s.key.tz) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
    h ^= std::uint64_t(s.agent) * 0xBF58476D1CE4E5B9ull;
    return std::size_t(h ^ (h >> 31));
  }
};

struct NavWorld::Impl {
  struct Entry {
    std::unique_ptr<NavTile> tile;  // loaded (its data is in the Detour mesh)
    std::uint64_t ref = 0;          // dtTileRef; 0 = not in the mesh (none yet, or empty tile)
    std::uint64_t generation = 0;   // of the latest job; older results are dropped
    bool loaded = false;            // a build has been swapped in (tile may be empty)
    bool in_flight = false;         // a job is queued or running
    bool rebuild = false;           // in flight after invalidate() while loaded
    bool pinned = false;            // from build_region: streaming never evicts it
    std::size_t bytes = 0;
  };
  struct Job {
    NavSlot slot;
    NavTileKey origin;
    std::uint64_t generation = 0;
    double priority = 0.0;  // smaller first
  };
  struct Result {
    NavSlot slot;
    std::uint64_t generation = 0;
    std::unique_ptr<NavTile> tile;
    std::exception_ptr error;
  };

  const NavTileBuilder* builder = nullptr;
  NavWorldParams params;
  int agents = 0;
  std::vector<dtNavMesh*> meshes;
  NavTileKey origin;
  bool origin_set = false;
  std::uint64_t epoch = 1;
  std::uint64_t next_generation = 1;
  std::unordered_map<NavSlot, Entry, NavSlotHash> entries;
  std::vector<Viewer> points;
  std::vector<NavTileEvent> events;
  NavWorldStats stats;
  std::size_t estimate_bytes = 32 << 10;  // per in-flight tile, the mean of built ones
  std::uint64_t built_bytes_sum = 0, built_count = 0;
  std::vector<Result> ready;  // taken from the workers, not yet swapped in (owner only)
  std::exception_ptr pending_error;

  // Shared with the workers.
  std::mutex m;
  std::condition_variable work_cv;
  std::vector<Job> queue;  // sorted: the next job at the back
  std::vector<Result> finished;
  std::size_t running = 0;
  bool stop = false;
  std::atomic<bool> cancel{false};
  std::vector<std::thread> workers;

  ~Impl();
  void worker_loop();
};

}  // namespace terrane
