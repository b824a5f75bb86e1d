// _terrane's stateful handles: the streamer and worlds. Both are "owner thread" handles in the
// C API (calls must not overlap); each Python object serialises its calls with a mutex, taken
// after the GIL is released for the long calls (poll, heights) and with the GIL held for the
// short ones, so that no thread ever waits for the mutex while another waits for the GIL.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "terrane_module.hpp"

namespace pyterrane {
namespace {

// The C API's two-call sizing into a vector: returns the last status; on TERRANE_OK the vector
// holds exactly *count elements.
template <class T, class Call>
terrane_status fetch(std::vector<T>& items, Call&& call) {
  size_t count = 0;
  terrane_status s = call(static_cast<T*>(nullptr), size_t{0}, &count);
  while (s == TERRANE_BUFFER_TOO_SMALL) {
    items.resize(count);
    s = call(items.data(), items.size(), &count);
  }
  if (s == TERRANE_OK) items.resize(count);
  return s;
}

class Streamer {
 public:
  Streamer(StreamerPtr handle, py::object preset)
      : handle_(std::move(handle)), preset_(std::move(preset)) {}
  // The live handle; raises InvalidArgumentError after close(). Call with mutex() held.
  terrane_streamer* get() const {
    if (!handle_) raise_status(TERRANE_INVALID_ARGUMENT, "the streamer is closed");
    return handle_.get();
  }
  // The handle or NULL (which the C API refuses) after close(), for calls without the GIL.
  terrane_streamer* raw() const { return handle_.get(); }
  std::mutex& mutex() { return mutex_; }
  // Raises for a failed status with the streamer's own message. Call with mutex() held.
  void check_call(terrane_status s) const {
    check(s, handle_ ? terrane_streamer_last_error(handle_.get()) : nullptr);
  }
  void close() {
    StreamerPtr handle;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      handle = std::move(handle_);
    }
    // Joining the workers may take a moment: without the GIL, and without the mutex (a thread
    // waiting for it may hold the GIL).
    py::gil_scoped_release nogil;
    handle.reset();
  }

 private:
  StreamerPtr handle_;
  py::object preset_;  // kept alive as long as the streamer
  std::mutex mutex_;
};

class World {
 public:
  World(WorldPtr handle, std::string path, bool read_only)
      : handle_(std::move(handle)), path_(std::move(path)), read_only_(read_only) {
    terrane_preset* raw = nullptr;
    const terrane_status s = terrane_world_preset(handle_.get(), &raw);
    PresetPtr preset(raw);
    check(s, terrane_world_last_error(handle_.get()));
    preset_ = py::cast(Preset(std::move(preset)));
  }
  terrane_world* get() const {
    if (!handle_) raise_status(TERRANE_INVALID_ARGUMENT, "the world is closed");
    return handle_.get();
  }
  terrane_world* raw() const { return handle_.get(); }
  std::mutex& mutex() { return mutex_; }
  void check_call(terrane_status s) const {
    check(s, handle_ ? terrane_world_last_error(handle_.get()) : nullptr);
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    handle_.reset();
  }
  const py::object& preset() const { return preset_; }
  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }

 private:
  WorldPtr handle_;
  py::object preset_;
  std::string path_;
  bool read_only_ = false;
  std::mutex mutex_;
};

py::array instance_array(const std::vector<terrane_instance>& items) {
  py::array a(instance_dtype(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(items.size())});
  if (!items.empty()) std::memcpy(a.mutable_data(), items.data(), items.size() * sizeof(items[0]));
  return a;
}

const char* event_kind_name(int32_t kind) {
  switch (kind) {
    case TERRANE_CHUNK_READY:
      return "ready";
    case TERRANE_CHUNK_EVICTED:
      return "evicted";
    case TERRANE_CHUNK_UPDATED:
      return "updated";
    default:
      return "unknown";
  }
}

int32_t brush_kind(const std::string& kind) {
  static const std::pair<const char*, int32_t> kinds[] = {
      {"raise", TERRANE_BRUSH_RAISE},   {"lower", TERRANE_BRUSH_LOWER},
      {"smooth", TERRANE_BRUSH_SMOOTH}, {"flatten", TERRANE_BRUSH_FLATTEN},
      {"noise", TERRANE_BRUSH_NOISE},   {"dig", TERRANE_BRUSH_DIG},
      {"fill", TERRANE_BRUSH_FILL},     {"restore", TERRANE_BRUSH_RESTORE},
      {"paint", TERRANE_BRUSH_PAINT},   {"unpaint", TERRANE_BRUSH_UNPAINT},
      {"fell", TERRANE_BRUSH_FELL},     {"plant", TERRANE_BRUSH_PLANT},
      {"regrow", TERRANE_BRUSH_REGROW}};
  for (const auto& [name, value] : kinds) {
    if (kind == name) return value;
  }
  raise_status(TERRANE_INVALID_ARGUMENT,
               "brush kind '" + kind +
                   "' is not one of raise, lower, smooth, flatten, noise, dig, fill, restore, "
                   "paint, unpaint, fell, plant, regrow");
}

std::unique_ptr<Streamer> make_streamer(const py::object& preset, int32_t chunk_cells,
                                        double view_distance, double lod0_distance,
                                        uint64_t budget_bytes, int32_t threads, bool surface,
                                        int32_t worker_priority) {
  terrane_streamer_params p;
  terrane_streamer_params_init(&p);
  p.chunk_cells = chunk_cells;
  p.view_distance_m = view_distance;
  p.lod0_distance_m = lod0_distance;
  p.budget_bytes = budget_bytes;
  p.threads = threads;
  p.surface = surface ? 1 : 0;
  p.worker_priority = worker_priority;
  terrane_streamer* raw = nullptr;
  const terrane_status s = terrane_streamer_create(
      as<const Preset&>(preset, "preset must be a terrane.Preset").get(), &p, &raw);
  StreamerPtr handle(raw);
  check(s);
  return std::make_unique<Streamer>(std::move(handle), preset);
}

void set_viewers(Streamer& s, const py::iterable& viewers) {
  std::vector<terrane_viewer> list;
  for (const py::handle item : viewers) {
    const auto v = as<std::vector<double>>(item, "a viewer is (x, y, z) or (x, y, z, vx, vy, vz)");
    if (v.size() != 3 && v.size() != 6) {
      throw py::value_error("a viewer is (x, y, z) or (x, y, z, vx, vy, vz)");
    }
    terrane_viewer viewer{v[0], v[1], v[2], 0.0, 0.0, 0.0};
    if (v.size() == 6) {
      viewer.vx_m_s = v[3];
      viewer.vy_m_s = v[4];
      viewer.vz_m_s = v[5];
    }
    list.push_back(viewer);
  }
  std::lock_guard<std::mutex> lock(s.mutex());
  s.check_call(terrane_streamer_set_viewers(s.get(), list.data(), list.size()));
}

size_t poll(Streamer& s, uint32_t max_chunks, double max_ms) {
  {
    std::lock_guard<std::mutex> lock(s.mutex());
    s.get();  // raises when closed
  }
  size_t delivered = 0;
  terrane_status status = TERRANE_OK;
  std::string message;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(s.mutex());
    status = terrane_streamer_poll(s.raw(), max_chunks, max_ms, &delivered);
    if (status != TERRANE_OK) message = terrane_last_error();
  }
  check(status, message.c_str());
  return delivered;
}

py::list events(Streamer& s) {
  std::lock_guard<std::mutex> lock(s.mutex());
  std::vector<terrane_chunk_event> items;
  s.check_call(fetch(items, [&](terrane_chunk_event* out, size_t capacity, size_t* count) {
    return terrane_streamer_events(s.get(), out, capacity, count);
  }));
  py::list list;
  for (const terrane_chunk_event& e : items) {
    list.append(py::make_tuple(event_kind_name(e.kind), from_chunk_key(e.key)));
  }
  return list;
}

py::list visible(Streamer& s) {
  std::lock_guard<std::mutex> lock(s.mutex());
  std::vector<terrane_visible_chunk> items;
  s.check_call(fetch(items, [&](terrane_visible_chunk* out, size_t capacity, size_t* count) {
    return terrane_streamer_visible(s.get(), out, capacity, count);
  }));
  py::list list;
  for (const terrane_visible_chunk& v : items) {
    list.append(py::make_tuple(from_chunk_key(v.key),
                               py::make_tuple(v.stitch[0], v.stitch[1], v.stitch[2], v.stitch[3])));
  }
  return list;
}

py::dict stats(Streamer& s) {
  std::lock_guard<std::mutex> lock(s.mutex());
  terrane_streamer_stats st{};
  s.check_call(terrane_streamer_get_stats(s.get(), &st));
  py::dict d;
  d["desired"] = st.desired;
  d["queued"] = st.queued;
  d["running"] = st.running;
  d["resident_chunks"] = st.resident_chunks;
  d["resident_bytes"] = st.resident_bytes;
  d["budget_bytes"] = st.budget_bytes;
  d["visible"] = st.visible;
  d["holes"] = st.holes;
  d["generated"] = st.generated;
  d["evicted"] = st.evicted;
  d["updated"] = st.updated;
  d["view_complete"] = st.view_complete != 0;
  return d;
}

terrane_chunk_info chunk_info_raw(const Streamer& s, const terrane_chunk_key& key) {
  terrane_chunk_info info{};
  s.check_call(terrane_streamer_chunk_info(s.get(), key, &info));
  return info;
}

py::dict chunk_info(Streamer& s, const py::handle& key) {
  const terrane_chunk_key k = to_chunk_key(key);
  std::lock_guard<std::mutex> lock(s.mutex());
  const terrane_chunk_info info = chunk_info_raw(s, k);
  py::dict d;
  d["vertices"] = info.vertices;
  d["instances"] = info.instances;
  d["origin_x_m"] = info.origin_x_m;
  d["origin_z_m"] = info.origin_z_m;
  d["height_min_m"] = info.height_min_m;
  d["height_max_m"] = info.height_max_m;
  d["content_hash"] = info.content_hash;
  return d;
}

py::dict chunk_mesh(Streamer& s, const py::handle& key) {
  const terrane_chunk_key k = to_chunk_key(key);
  std::lock_guard<std::mutex> lock(s.mutex());
  size_t n = chunk_info_raw(s, k).vertices;
  terrane_status status = TERRANE_BUFFER_TOO_SMALL;
  py::array_t<float> positions, normals, uvs, morph_y;
  while (status == TERRANE_BUFFER_TOO_SMALL) {
    const auto rows = static_cast<py::ssize_t>(n);
    positions = py::array_t<float>({rows, py::ssize_t{3}});
    normals = py::array_t<float>({rows, py::ssize_t{3}});
    uvs = py::array_t<float>({rows, py::ssize_t{2}});
    morph_y = py::array_t<float>({rows});
    size_t count = 0;
    status =
        terrane_streamer_chunk_mesh(s.get(), k, positions.mutable_data(), normals.mutable_data(),
                                    uvs.mutable_data(), morph_y.mutable_data(), n, &count);
    if (status == TERRANE_BUFFER_TOO_SMALL) n = count;
  }
  s.check_call(status);
  py::dict d;
  d["positions"] = positions;
  d["normals"] = normals;
  d["uvs"] = uvs;
  d["morph_y"] = morph_y;
  return d;
}

py::array_t<uint32_t> indices(Streamer& s, std::array<int32_t, 4> stitch) {
  std::lock_guard<std::mutex> lock(s.mutex());
  std::vector<uint32_t> items;
  s.check_call(fetch(items, [&](uint32_t* out, size_t capacity, size_t* count) {
    return terrane_streamer_indices(s.get(), stitch.data(), out, capacity, count);
  }));
  return py::array_t<uint32_t>({static_cast<py::ssize_t>(items.size())}, items.data());
}

py::array chunk_instances(Streamer& s, const py::handle& key) {
  const terrane_chunk_key k = to_chunk_key(key);
  std::lock_guard<std::mutex> lock(s.mutex());
  std::vector<terrane_instance> items;
  s.check_call(fetch(items, [&](terrane_instance* out, size_t capacity, size_t* count) {
    return terrane_streamer_chunk_instances(s.get(), k, out, capacity, count);
  }));
  return instance_array(items);
}

void set_world(Streamer& s, World& w) {
  std::lock_guard<std::mutex> lock(s.mutex());
  std::lock_guard<std::mutex> world_lock(w.mutex());
  s.check_call(terrane_streamer_set_world(s.get(), w.get()));
}

Query streamer_query(const py::object& self) {
  Streamer& s = self.cast<Streamer&>();
  std::lock_guard<std::mutex> lock(s.mutex());
  terrane_query* raw = nullptr;
  const terrane_status status = terrane_streamer_query(s.get(), &raw);
  QueryPtr handle(raw);
  s.check_call(status);
  return Query(std::move(handle), py::none());  // it outlives the handle (terrane.h)
}

std::unique_ptr<World> world_create(const py::object& path, const Preset& preset, bool overwrite) {
  const std::string file = fspath(path);
  terrane_world* raw = nullptr;
  terrane_status s = TERRANE_OK;
  {
    py::gil_scoped_release nogil;
    s = terrane_world_create(file.c_str(), preset.get(), overwrite ? 1 : 0, &raw);
  }
  WorldPtr handle(raw);
  check(s);
  return std::make_unique<World>(std::move(handle), file, false);
}

std::unique_ptr<World> world_open(const py::object& path, bool read_only) {
  const std::string file = fspath(path);
  terrane_world* raw = nullptr;
  terrane_status s = TERRANE_OK;
  {
    py::gil_scoped_release nogil;
    s = terrane_world_open(file.c_str(), read_only ? 1 : 0, &raw);
  }
  WorldPtr handle(raw);
  check(s);
  return std::make_unique<World>(std::move(handle), file, read_only);
}

py::dict world_info(World& w) {
  std::lock_guard<std::mutex> lock(w.mutex());
  terrane_world_info info{};
  w.check_call(terrane_world_get_info(w.get(), &info));
  py::dict d;
  d["seed"] = info.seed;
  d["preset_hash"] = info.preset_hash;
  d["commits"] = info.commits;
  d["cell_size_m"] = info.cell_size_m;
  d["height_tiles"] = info.height_tiles;
  d["block_overrides"] = info.block_overrides;
  d["painted_vertices"] = info.painted_vertices;
  d["instance_overrides"] = info.instance_overrides;
  d["pending_strokes"] = info.pending_strokes;
  return d;
}

bool world_apply(World& w, const std::string& kind, double x, double z, double y,
                 const py::object& radius, double strength, double falloff_start, double target,
                 const py::object& block, const py::object& layer, const py::object& species,
                 double regrow_s, double yaw_deg) {
  terrane_brush b;
  terrane_brush_init(&b, brush_kind(kind));
  b.x_m = x;
  b.y_m = y;
  b.z_m = z;
  if (!radius.is_none()) b.radius_m = as<double>(radius, "radius");
  b.strength = strength;
  b.falloff_start = falloff_start;
  b.target_m = target;
  const std::string block_name = block.is_none() ? std::string() : as<std::string>(block, "block");
  const std::string layer_name = layer.is_none() ? std::string() : as<std::string>(layer, "layer");
  if (!block.is_none()) b.block = block_name.c_str();
  if (!layer.is_none()) b.layer = layer_name.c_str();
  const std::string species_name =
      species.is_none() ? std::string() : as<std::string>(species, "species");
  if (!species.is_none()) b.species = species_name.c_str();
  b.regrow_s = regrow_s;
  b.yaw_deg = yaw_deg;
  std::lock_guard<std::mutex> lock(w.mutex());
  int32_t changed = 0;
  w.check_call(terrane_world_apply(w.get(), &b, &changed));
  return changed != 0;
}

py::array world_heights(World& w, double x0, double z0, int64_t width, int64_t height, double cell,
                        int32_t threads, const py::object& out) {
  {
    std::lock_guard<std::mutex> lock(w.mutex());
    w.get();  // raises when closed
  }
  std::string message;
  return fill_grid(
      width, height, out,
      [&](int32_t wi, int32_t he, float* data, size_t capacity, size_t* count) {
        std::lock_guard<std::mutex> lock(w.mutex());
        const terrane_status s =
            terrane_world_heights(w.raw(), x0, z0, wi, he, cell, threads, data, capacity, count);
        if (s != TERRANE_OK) message = terrane_last_error();
        return s;
      },
      [&] { return message.c_str(); });
}

Query world_query(const py::object& self) {
  World& w = self.cast<World&>();
  std::lock_guard<std::mutex> lock(w.mutex());
  terrane_query* raw = nullptr;
  const terrane_status status = terrane_world_query(w.get(), &raw);
  QueryPtr handle(raw);
  w.check_call(status);
  return Query(std::move(handle), py::none());  // it outlives the handle (terrane.h)
}

}  // namespace

void bind_streamer(py::module_& m) {
  py::class_<Streamer>(
      m, "Streamer",
      "The streamed world: chunks with LOD around moving viewers, generated by worker threads.\n"
      "Once a frame: set_viewers, update, poll; then read events() and visible(). None of these\n"
      "waits for a worker. Calls on one streamer are serialised (the C API's owner-thread rule).\n"
      "A context manager: close() (or leaving the with block) cancels and joins the workers.")
      .def(py::init(&make_streamer), py::arg("preset"), py::arg("chunk_cells") = 128,
           py::arg("view_distance") = 2000.0, py::arg("lod0_distance") = 0.0,
           py::arg("budget_bytes") = 0, py::arg("threads") = 0, py::arg("surface") = false,
           py::arg("worker_priority") = 0,
           "chunk_cells: cells per chunk side, a power of two in 8..1024; view_distance [m]: the\n"
           "visible disc's radius (at most 1e6); lod0_distance [m]: the level-0 band (0:\n"
           "automatic); budget_bytes: resident chunk bytes (0: automatic); threads: workers (0:\n"
           "all cores); surface: splat weights and scatter per chunk; worker_priority: 0\n"
           "background, 1 low, 2 normal.")
      .def("set_viewers", &set_viewers, py::arg("viewers"),
           "The viewers: a list of (x, y, z) or (x, y, z, vx, vy, vz) [m, m/s]; the velocity\n"
           "(at most 20000 m/s) is for look-ahead.")
      .def(
          "update",
          [](Streamer& s) {
            std::lock_guard<std::mutex> lock(s.mutex());
            s.check_call(terrane_streamer_update(s.get()));
          },
          "Decides the wanted chunks for the viewers and schedules their generation.")
      .def("poll", &poll, py::arg("max_chunks") = 0, py::arg("max_ms") = 1.0,
           "Takes at most max_chunks finished chunks (0: no limit) within max_ms milliseconds\n"
           "(without the GIL); returns how many were delivered.")
      .def("events", &events,
           "The events since the start of the last update, in order: a list of (kind, key)\n"
           "with kind 'ready', 'evicted' or 'updated' and key (cx, cz, level).")
      .def("visible", &visible,
           "The visible set after the last update or poll: a list of (key, stitch) with key\n"
           "(cx, cz, level) and stitch (-x, +x, -z, +z): how many levels coarser each neighbour\n"
           "is.")
      .def("stats", &stats,
           "Counters: desired, queued, running, resident_chunks, resident_bytes, budget_bytes,\n"
           "visible, holes, generated, evicted, updated, and view_complete (bool).")
      .def("chunk_info", &chunk_info, py::arg("key"),
           "A resident chunk's vertices, instances, origin_x_m, origin_z_m, height_min_m,\n"
           "height_max_m and content_hash (equal hashes, equal bytes). Raises\n"
           "InvalidArgumentError when the chunk is not resident.")
      .def("chunk_mesh", &chunk_mesh, py::arg("key"),
           "A resident chunk's vertex arrays (float32, relative to its origin): positions (n, 3),\n"
           "normals (n, 3), uvs (n, 2; world x, z wrapped at 4096 m) and morph_y (n,): the\n"
           "parent level's height at each vertex, for geomorphing.")
      .def("indices", &indices, py::arg("stitch") = std::array<int32_t, 4>{0, 0, 0, 0},
           "The triangle list (uint32, counter-clockwise seen from +y) of any chunk of this\n"
           "streamer drawn with the stitch mask: one index buffer per mask.")
      .def("chunk_instances", &chunk_instances, py::arg("key"),
           "A level-0 chunk's scatter instances (needs surface=True), as scatter() returns them.")
      .def("set_world", &set_world, py::arg("world"),
           "Streams the World's edits (heights, paint, scatter instances; its preset must be\n"
           "this streamer's world): later chunks are made with them, and the resident chunks that\n"
           "the strokes since the previous set_world touched are regenerated and swapped in\n"
           "together by a later poll ('updated' events). Call it after World.apply / undo to\n"
           "see strokes as they are made.")
      .def("query", &streamer_query,
           "A Query of the world with the streamer's current edits (usable from any thread).")
      .def("close", &Streamer::close, "Cancels and joins the workers; later calls raise.")
      .def("__enter__", [](const py::object& self) { return self; })
      .def("__exit__", [](Streamer& s, const py::args&) { s.close(); });
}

void bind_world(py::module_& m) {
  py::class_<World>(
      m, "World",
      "A world file: a preset, its seed and persistent edits (`terrane world`, terrane-view).\n"
      "Make one with World.create or World.open. Edits apply at once to heights() and query()\n"
      "and reach the file at commit(). Calls on one world are serialised. A context manager:\n"
      "close() drops edits not committed.")
      .def_static("create", &world_create, py::arg("path"), py::arg("preset"),
                  py::arg("overwrite") = false,
                  "Creates a world file for the preset with no edits (overwrite: replace an\n"
                  "existing file) and opens it for editing.")
      .def_static("open", &world_open, py::arg("path"), py::arg("read_only") = false,
                  "Opens a world file (read_only: never written). Refuses a world whose\n"
                  "generator differs from this library's, or of a newer schema.")
      .def_property_readonly("preset", &World::preset,
                             "The world's Preset (with its recorded seed).")
      .def_property_readonly("path", &World::path, "The world file's path.")
      .def_property_readonly("read_only", &World::read_only, "True when opened read-only.")
      .def_property_readonly(
          "info", &world_info,
          "A dict: seed, preset_hash, commits, cell_size_m, height_tiles,\n"
          "block_overrides, painted_vertices, instance_overrides (as committed) and\n"
          "pending_strokes (since the last commit or open).")
      .def("apply", &world_apply, py::arg("kind"), py::arg("x"), py::arg("z"), py::arg("y") = 0.0,
           py::arg("radius") = py::none(), py::arg("strength") = 1.0,
           py::arg("falloff_start") = 0.5, py::arg("target") = 0.0, py::arg("block") = py::none(),
           py::arg("layer") = py::none(), py::arg("species") = py::none(),
           py::arg("regrow_s") = 0.0, py::arg("yaw_deg") = 0.0,
           "Applies a brush stroke at (x, z) (y: the centre of block brushes) and returns True\n"
           "when it changed anything. kind: 'raise', 'lower' (strength metres), 'smooth',\n"
           "'flatten' (towards target [m]; strength 0..1), 'noise' (strength metres), 'dig',\n"
           "'fill' (block: a palette name), 'restore', 'paint' (layer: a splat layer name),\n"
           "'unpaint', 'fell' (removes the scatter instances within the radius; they come back\n"
           "after regrow_s seconds, 0: never), 'plant' (one of `species` at the centre, turned by\n"
           "yaw_deg), 'regrow' (the generated instances again). radius [m]: None for the kind's\n"
           "default (10 m, 3 m for blocks); the weight is 1 within falloff_start * radius,\n"
           "falling smoothly to 0 at the radius.")
      .def(
          "undo",
          [](World& w) {
            std::lock_guard<std::mutex> lock(w.mutex());
            int32_t undone = 0;
            w.check_call(terrane_world_undo(w.get(), &undone));
            return undone != 0;
          },
          "Takes the newest stroke back; False when there was none.")
      .def(
          "commit",
          [](World& w, const py::object& description) {
            const std::string text =
                description.is_none() ? std::string() : as<std::string>(description, "description");
            std::lock_guard<std::mutex> lock(w.mutex());
            uint64_t seq = 0;
            w.check_call(terrane_world_commit(
                w.get(), description.is_none() ? nullptr : text.c_str(), &seq));
            return seq;
          },
          py::arg("description") = py::none(),
          "Writes every edit in one transaction with a one-line description; returns the\n"
          "commit's number. A read-only world raises InvalidArgumentError.")
      .def("heights", &world_heights, py::arg("x0"), py::arg("z0"), py::arg("width"),
           py::arg("height"), py::arg("cell") = 0.0, py::arg("threads") = 0, py::kw_only(),
           py::arg("out") = py::none(),
           "Heights of the edited world, as terrane.heights. With height edits the grid must lie\n"
           "on the world's lattice (cell a whole multiple of its cell size, x0 and z0 multiples\n"
           "of it).")
      .def("query", &world_query, "A Query of the edited world as it is now.")
      .def("close", &World::close, "Closes the world; edits not committed are lost.")
      .def("__enter__", [](const py::object& self) { return self; })
      .def("__exit__", [](World& w, const py::args&) { w.close(); });
}

}  // namespace pyterrane
