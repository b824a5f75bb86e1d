// The C API's handles and its one way of turning C++ failures into statuses (src/capi, used by
// every file of the module; include/terrane/terrane.h is the interface).
#pragma once

#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/edit.hpp"
#include "terrane/preset.hpp"
#include "terrane/schema.hpp"
#include "terrane/store.hpp"
#include "terrane/terrane.h"
#include "terrane/world.hpp"

struct terrane_preset {
  terrane::Preset preset;
  // Made once with the preset, immutable and thread-safe: the compiled graph (heights), the
  // chunk generator of the default chunks (queries, paths) and the climate sources (scatter).
  std::shared_ptr<const terrane::CompiledGraph> graph;
  std::shared_ptr<const terrane::ChunkGenerator> generator;
  std::shared_ptr<const terrane::ClimateSources> climate;
};

struct terrane_query {
  std::shared_ptr<const terrane::TerrainQuery> query;
};

struct ChunkKeyHash {
  std::size_t operator()(const terrane::ChunkKey& k) const { return terrane::hash(k); }
};

struct terrane_streamer {
  std::unique_ptr<terrane::Streamer> streamer;
  // Resident chunks by key, kept from the events (ready adds, evicted removes).
  std::unordered_map<terrane::ChunkKey, const terrane::ChunkData*, ChunkKeyHash> resident;
  std::size_t events_seen = 0;  // of the current events() list
  std::uint64_t serial = 0;     // unique in the process (terrane_streamer_set_world)
  mutable std::string last_error;
};

struct terrane_world {
  std::unique_ptr<terrane::WorldStore> store;
  std::shared_ptr<const terrane::CompiledGraph> graph;
  terrane::HeightEdits heights;
  terrane::BlockEdits blocks;
  terrane::SplatPaint paint;
  terrane::InstanceEdits instances;
  // The level-0 chunks with their scatter (the instance brushes), made on first use.
  std::unique_ptr<terrane::ChunkGenerator> surface_generator;
  // The layer of every stroke applied since the open, newest last (undo takes them back in
  // that order): 0 heights, 1 blocks, 2 paint, 3 instances.
  std::vector<int> strokes;
  std::uint32_t pending = 0;
  bool read_only = false;
  // What the strokes changed since the last terrane_streamer_set_world to the streamer of serial
  // `synced` (0: none).
  std::uint64_t synced = 0;
  terrane::LatticeRect changed_heights, changed_paint;
  terrane::InstanceChanges changed_instances;
  mutable std::string last_error;
};

namespace terrane::capi {

// Records `message` as the calling thread's last error and returns `status`.
terrane_status fail(terrane_status status, const std::string& message);
terrane_status status_of(ErrorCategory category);

// Runs `body` (returning terrane_status), turning any exception into a status and the thread's
// last error (and `handle_error` when given: the handle's own message).
template <class Body>
terrane_status guarded(Body&& body, std::string* handle_error = nullptr) noexcept {
  terrane_status s = TERRANE_OK;
  std::string message;
  try {
    return body();
  } catch (const Error& e) {
    s = status_of(e.category());
    message = e.what();
  } catch (const std::bad_alloc&) {
    s = TERRANE_LIMIT;
    message = "out of memory";
  } catch (const std::exception& e) {
    s = TERRANE_INTERNAL;
    message = std::string("internal error: ") + e.what();
  } catch (...) {
    s = TERRANE_INTERNAL;
    message = "internal error: unknown exception";
  }
  try {
    if (handle_error != nullptr) *handle_error = message;
    return fail(s, message);
  } catch (...) {
    return s;
  }
}

// guarded() for a call on a handle with its own last message (a streamer, a world): a NULL
// handle is Error(invalid_argument) "<what> is NULL"; a failure is also the handle's message.
template <class Handle, class Body>
terrane_status on_handle(const Handle* h, const char* what, Body&& body) noexcept {
  if (h == nullptr) {
    return guarded([what]() -> terrane_status {
      throw Error(ErrorCategory::invalid_argument, std::string(what) + " is NULL");
    });
  }
  return guarded(std::forward<Body>(body), &h->last_error);
}

// Throws Error(invalid_argument) "<what> is NULL" when p is null.
template <class T>
void require(const T* p, const char* what) {
  if (p == nullptr) throw Error(ErrorCategory::invalid_argument, std::string(what) + " is NULL");
}

// The caller's buffer of `capacity` elements must hold `needed`: writes *count (when given) and
// returns TERRANE_OK, or TERRANE_BUFFER_TOO_SMALL with the thread's error set when it does not
// (or is NULL with needed > 0).
terrane_status check_capacity(const void* buffer, std::size_t capacity, std::size_t needed,
                              std::size_t* count, const char* what);

// heights of `graph` (+ `edits`) on the grid the C API describes (see terrane_heights).
terrane_status heights(const CompiledGraph& graph, const HeightEditSnapshot* edits,
                       double world_cell_m, double x0_m, double z0_m, std::int32_t width,
                       std::int32_t height, double cell_m, std::int32_t threads, float* out,
                       std::size_t capacity, std::size_t* count);

void copy_instance(const ScatterInstance& in, terrane_instance& out);

}  // namespace terrane::capi
