// The C API's streamer (terrane.h): terrane::Streamer behind a handle that also keeps the
// resident chunks by key (from the events) so callers name chunks by their keys.
#include <atomic>
#include <string>

#include "capi_internal.hpp"

using namespace terrane;
using terrane::capi::guarded;
using terrane::capi::require;

namespace terrane::capi {
namespace {

ChunkKey to_key(const terrane_chunk_key& k) {
  return ChunkKey{k.cx, k.cz, k.level};
}
terrane_chunk_key from_key(const ChunkKey& k) {
  return terrane_chunk_key{k.cx, k.cz, k.level};
}

// Takes the events not yet seen into the resident map.
void track_events(terrane_streamer& s) {
  const std::span<const ChunkEvent> events = s.streamer->events();
  for (std::size_t k = s.events_seen; k < events.size(); ++k) {
    const ChunkEvent& e = events[k];
    if (e.kind == ChunkEventKind::ready) {
      s.resident[e.key] = e.data;
    } else if (e.kind == ChunkEventKind::evicted) {
      s.resident.erase(e.key);
    }
  }
  s.events_seen = events.size();
}

const ChunkData& resident_chunk(const terrane_streamer& s, const terrane_chunk_key& key) {
  const auto it = s.resident.find(to_key(key));
  if (it == s.resident.end() || it->second == nullptr) {
    throw Error(ErrorCategory::invalid_argument,
                "chunk (" + std::to_string(key.cx) + ", " + std::to_string(key.cz) + ", level " +
                    std::to_string(key.level) + ") is not resident");
  }
  return *it->second;
}

template <class Body>
terrane_status on_streamer(const terrane_streamer* s, Body&& body) noexcept {
  return on_handle(s, "streamer", std::forward<Body>(body));
}

}  // namespace
}  // namespace terrane::capi

extern "C" {

void terrane_streamer_params_init(terrane_streamer_params* params) {
  if (params == nullptr) return;
  *params = terrane_streamer_params{};
  params->chunk_cells = 128;
  params->view_distance_m = 2000.0;
}

terrane_status terrane_streamer_create(const terrane_preset* preset,
                                       const terrane_streamer_params* params,
                                       terrane_streamer** out) {
  return guarded([&] {
    require(out, "out");
    *out = nullptr;
    require(preset, "preset");
    require(params, "params");
    StreamerParams p;
    p.chunk.cells = params->chunk_cells;
    p.chunk.surface = params->surface != 0;
    p.view_distance_m = params->view_distance_m;
    p.lod0_distance_m = params->lod0_distance_m;
    p.budget_bytes = std::size_t(params->budget_bytes);
    p.threads = params->threads;
    switch (params->worker_priority) {
      case 0:
        p.worker_priority = WorkerPriority::background;
        break;
      case 1:
        p.worker_priority = WorkerPriority::low;
        break;
      case 2:
        p.worker_priority = WorkerPriority::normal;
        break;
      default:
        throw Error(ErrorCategory::invalid_argument,
                    "worker_priority = " + std::to_string(params->worker_priority) +
                        " is outside the allowed range 0..2 (background, low, normal)");
    }
    static std::atomic<std::uint64_t> next_serial{1};
    auto s = std::make_unique<terrane_streamer>();
    s->streamer = std::make_unique<Streamer>(preset->preset, p);
    s->serial = next_serial.fetch_add(1);
    *out = s.release();
    return TERRANE_OK;
  });
}

void terrane_streamer_free(terrane_streamer* streamer) {
  try {
    delete streamer;
  } catch (...) {
  }
}

const char* terrane_streamer_last_error(const terrane_streamer* streamer) {
  return streamer != nullptr ? streamer->last_error.c_str() : "streamer is NULL";
}

terrane_status terrane_streamer_set_viewers(terrane_streamer* streamer,
                                            const terrane_viewer* viewers, size_t count) {
  return capi::on_streamer(streamer, [&] {
    if (count > 0) require(viewers, "viewers");
    if (count > kMaxViewers) {
      throw Error(ErrorCategory::invalid_argument,
                  "count = " + std::to_string(count) + " viewers is above the limit of 64");
    }
    std::vector<Viewer> list(count);
    for (std::size_t k = 0; k < count; ++k) {
      const terrane_viewer& v = viewers[k];
      list[k] = Viewer{v.x_m, v.y_m, v.z_m, v.vx_m_s, v.vy_m_s, v.vz_m_s, std::nullopt};
    }
    streamer->streamer->set_viewers(list);
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_update(terrane_streamer* streamer) {
  return capi::on_streamer(streamer, [&] {
    streamer->events_seen = 0;
    streamer->streamer->update();
    capi::track_events(*streamer);
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_poll(terrane_streamer* streamer, uint32_t max_chunks, double max_ms,
                                     size_t* delivered) {
  return capi::on_streamer(streamer, [&] {
    if (!(max_ms >= 0.0 && max_ms <= 1.0e6)) {
      throw Error(ErrorCategory::invalid_argument,
                  "max_ms = " + format_number(max_ms) + " is outside the allowed range 0..1e6");
    }
    PollBudget budget;
    budget.max_chunks = max_chunks == 0 ? SIZE_MAX : std::size_t(max_chunks);
    budget.max_ms = max_ms;
    const std::size_t n = streamer->streamer->poll(budget);
    capi::track_events(*streamer);
    if (delivered != nullptr) *delivered = n;
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_events(const terrane_streamer* streamer, terrane_chunk_event* out,
                                       size_t capacity, size_t* count) {
  return capi::on_streamer(streamer, [&] {
    const std::span<const ChunkEvent> events = streamer->streamer->events();
    const terrane_status s =
        capi::check_capacity(out, capacity, events.size(), count, "terrane_streamer_events");
    if (s != TERRANE_OK) return s;
    for (std::size_t k = 0; k < events.size(); ++k) {
      out[k].kind = events[k].kind == ChunkEventKind::ready     ? TERRANE_CHUNK_READY
                    : events[k].kind == ChunkEventKind::evicted ? TERRANE_CHUNK_EVICTED
                                                                : TERRANE_CHUNK_UPDATED;
      out[k].key = capi::from_key(events[k].key);
    }
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_visible(const terrane_streamer* streamer,
                                        terrane_visible_chunk* out, size_t capacity,
                                        size_t* count) {
  return capi::on_streamer(streamer, [&] {
    const std::span<const VisibleChunk> visible = streamer->streamer->visible();
    const terrane_status s =
        capi::check_capacity(out, capacity, visible.size(), count, "terrane_streamer_visible");
    if (s != TERRANE_OK) return s;
    for (std::size_t k = 0; k < visible.size(); ++k) {
      out[k].key = capi::from_key(visible[k].key);
      for (int e = 0; e < 4; ++e) out[k].stitch[e] = visible[k].stitch[std::size_t(e)];
    }
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_get_stats(const terrane_streamer* streamer,
                                          terrane_streamer_stats* out) {
  return capi::on_streamer(streamer, [&] {
    require(out, "out");
    const StreamerStats st = streamer->streamer->stats();
    terrane_streamer_stats r{};
    r.desired = st.desired;
    r.queued = st.queued;
    r.running = st.running;
    r.resident_chunks = st.resident_chunks;
    r.resident_bytes = st.resident_bytes;
    r.budget_bytes = st.budget_bytes;
    r.visible = st.visible;
    r.holes = st.holes;
    r.generated = st.generated;
    r.evicted = st.evicted;
    r.updated = st.updated;
    r.view_complete = st.view_complete ? 1 : 0;
    *out = r;
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_chunk_info(const terrane_streamer* streamer, terrane_chunk_key key,
                                           terrane_chunk_info* out) {
  return capi::on_streamer(streamer, [&] {
    require(out, "out");
    const ChunkData& c = capi::resident_chunk(*streamer, key);
    terrane_chunk_info r{};
    r.vertices = std::uint32_t(c.mesh.vertex_count());
    r.instances = std::uint32_t(c.scatter.size());
    r.origin_x_m = c.mesh.origin_x_m;
    r.origin_z_m = c.mesh.origin_z_m;
    r.height_min_m = c.height_min_m;
    r.height_max_m = c.height_max_m;
    r.content_hash = c.content_hash();
    *out = r;
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_chunk_mesh(const terrane_streamer* streamer, terrane_chunk_key key,
                                           float* positions, float* normals, float* uvs,
                                           float* morph_y, size_t vertex_capacity, size_t* count) {
  return capi::on_streamer(streamer, [&] {
    const Mesh& m = capi::resident_chunk(*streamer, key).mesh;
    const std::size_t n = m.vertex_count();
    if (count != nullptr) *count = n;
    if (positions == nullptr && normals == nullptr && uvs == nullptr && morph_y == nullptr) {
      return TERRANE_OK;  // the count only
    }
    const float* any = positions != nullptr ? positions
                       : normals != nullptr ? normals
                       : uvs != nullptr     ? uvs
                                            : morph_y;
    const terrane_status s =
        capi::check_capacity(any, vertex_capacity, n, count, "terrane_streamer_chunk_mesh");
    if (s != TERRANE_OK) return s;
    auto copy = [&](float* dst, const std::vector<float>& src, std::size_t per_vertex) {
      if (dst == nullptr) return;
      if (src.size() == n * per_vertex) {
        std::copy(src.begin(), src.end(), dst);
      } else {
        std::fill(dst, dst + n * per_vertex, 0.0f);
      }
    };
    copy(positions, m.positions, 3);
    copy(normals, m.normals, 3);
    copy(uvs, m.uv_world, 2);
    copy(morph_y, m.morph_y, 1);
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_indices(const terrane_streamer* streamer, const int32_t stitch[4],
                                        uint32_t* out, size_t capacity, size_t* count) {
  return capi::on_streamer(streamer, [&] {
    require(stitch, "stitch");
    const StitchTable& table = streamer->streamer->generator().stitch_table();
    std::size_t n = table.interior(0).size();
    for (int e = 0; e < 4; ++e) {
      if (stitch[e] < 0 || stitch[e] > table.levels()) {
        throw Error(ErrorCategory::invalid_argument,
                    "stitch[" + std::to_string(e) + "] = " + std::to_string(stitch[e]) +
                        " is outside the allowed range 0.." + std::to_string(table.levels()));
      }
      n += table.edge(0, Edge(e), stitch[e]).size();
    }
    const terrane_status s =
        capi::check_capacity(out, capacity, n, count, "terrane_streamer_indices");
    if (s != TERRANE_OK) return s;
    uint32_t* p = std::copy(table.interior(0).begin(), table.interior(0).end(), out);
    for (int e = 0; e < 4; ++e) {
      const auto piece = table.edge(0, Edge(e), stitch[e]);
      p = std::copy(piece.begin(), piece.end(), p);
    }
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_chunk_instances(const terrane_streamer* streamer,
                                                terrane_chunk_key key, terrane_instance* out,
                                                size_t capacity, size_t* count) {
  return capi::on_streamer(streamer, [&] {
    const std::vector<ScatterInstance>& scatter = capi::resident_chunk(*streamer, key).scatter;
    const terrane_status s = capi::check_capacity(out, capacity, scatter.size(), count,
                                                  "terrane_streamer_chunk_instances");
    if (s != TERRANE_OK) return s;
    for (std::size_t k = 0; k < scatter.size(); ++k) capi::copy_instance(scatter[k], out[k]);
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_query(const terrane_streamer* streamer, terrane_query** out) {
  return capi::on_streamer(streamer, [&] {
    require(out, "out");
    *out = nullptr;
    auto q = std::make_unique<terrane_query>();
    q->query = std::make_shared<const TerrainQuery>(streamer->streamer->query());
    *out = q.release();
    return TERRANE_OK;
  });
}

}  // extern "C"
