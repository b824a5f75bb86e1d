// _terrane: the Python bindings of terrane over its C API (include/terrane/terrane.h). This file
// holds the errors, presets, height grids, scatter, bakes, queries and paths; the streamer and
// worlds are in terrane_stateful.cpp. The public package is python/terrane/__init__.py.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "terrane_module.hpp"

namespace pyterrane {
namespace {

// terrane.Error and one subclass per status (borrowed: the module holds the references).
PyObject* g_error = nullptr;
PyObject* g_error_by_status[8] = {};

PyObject* new_error_type(py::module_& m, const char* name, const char* doc, PyObject* bases,
                         int32_t status) {
  const std::string qualified = std::string("terrane.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (type == nullptr) throw py::error_already_set();
  py::object owned = py::reinterpret_steal<py::object>(type);
  owned.attr("category") =
      status < 0 ? py::object(py::none()) : py::object(py::str(terrane_status_name(status)));
  owned.attr("status") = status < 0 ? py::object(py::none()) : py::object(py::int_(status));
  m.add_object(name, owned);
  return type;
}

}  // namespace

void register_errors(py::module_& m) {
  g_error = new_error_type(
      m, "Error",
      "A failed terrane call. Attributes: category (the C API's status name: 'invalid_argument',\n"
      "'parse', 'io', 'limit', 'internal', 'cancelled') and status (its number); str(error) is\n"
      "terrane's one-line message naming the argument, its value and the allowed range.",
      PyExc_Exception, -1);
  struct Sub {
    int32_t status;
    const char* name;
    PyObject* extra_base;
    const char* doc;
  };
  const Sub subs[] = {
      {TERRANE_INVALID_ARGUMENT, "InvalidArgumentError", PyExc_ValueError,
       "A value outside its range, or a closed handle (also a ValueError)."},
      {TERRANE_PARSE, "ParseError", PyExc_ValueError,
       "Malformed JSON or file contents (also a ValueError)."},
      {TERRANE_IO, "IoError", PyExc_OSError,
       "A file could not be read or written (also an OSError)."},
      {TERRANE_LIMIT, "LimitError", nullptr, "A request beyond a documented resource cap."},
      {TERRANE_INTERNAL, "InternalError", PyExc_RuntimeError,
       "A bug inside terrane: please report it with the message (also a RuntimeError)."},
      {TERRANE_CANCELLED, "CancelledError", nullptr, "The work was cancelled."},
  };
  for (const Sub& sub : subs) {
    py::tuple bases = sub.extra_base != nullptr
                          ? py::make_tuple(py::handle(g_error), py::handle(sub.extra_base))
                          : py::make_tuple(py::handle(g_error));
    g_error_by_status[sub.status] = new_error_type(m, sub.name, sub.doc, bases.ptr(), sub.status);
  }
}

void raise_status(int32_t status, std::string_view message) {
  PyObject* type = status > 0 && status < 8 && g_error_by_status[status] != nullptr
                       ? g_error_by_status[status]
                       : g_error;
  PyObject* text =
      PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (text == nullptr) throw py::error_already_set();
  py::object error = py::reinterpret_borrow<py::object>(type)(py::reinterpret_steal<py::str>(text));
  error.attr("category") = terrane_status_name(status);
  error.attr("status") = status;
  PyErr_SetObject(type, error.ptr());
  throw py::error_already_set();
}

std::string fspath(const py::handle& path) {
  py::object text = py::module_::import("os").attr("fspath")(path);
  if (!py::isinstance<py::str>(text)) throw py::type_error("paths must be str or os.PathLike");
  return text.cast<std::string>();
}

py::dtype instance_dtype() {
  py::list names;
  py::list formats;
  py::list offsets;
  auto field = [&](const char* name, const char* format, std::size_t offset) {
    names.append(name);
    formats.append(format);
    offsets.append(offset);
  };
  field("x", "<f8", offsetof(terrane_instance, x_m));
  field("z", "<f8", offsetof(terrane_instance, z_m));
  field("y", "<f4", offsetof(terrane_instance, y_m));
  field("yaw_deg", "<f4", offsetof(terrane_instance, yaw_deg));
  field("scale_xz", "<f4", offsetof(terrane_instance, scale_xz));
  field("scale_y", "<f4", offsetof(terrane_instance, scale_y));
  field("normal", "(3,)<f4", offsetof(terrane_instance, normal));
  field("species", "<i4", offsetof(terrane_instance, species));
  field("id", "<u8", offsetof(terrane_instance, id));
  field("state", "<u8", offsetof(terrane_instance, state));
  return py::dtype(names, formats, offsets, sizeof(terrane_instance));
}

terrane_chunk_key to_chunk_key(const py::handle& key) {
  const auto t = as<std::tuple<int64_t, int64_t, int32_t>>(key, "a chunk key is (cx, cz, level)");
  return terrane_chunk_key{std::get<0>(t), std::get<1>(t), std::get<2>(t)};
}

py::tuple from_chunk_key(const terrane_chunk_key& key) {
  return py::make_tuple(key.cx, key.cz, key.level);
}

Preset::Preset(PresetPtr handle) : handle_(std::move(handle)) {
  check(terrane_preset_get_info(handle_.get(), &info_));
}

namespace {

std::vector<const char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<const char*> pointers;
  pointers.reserve(strings.size());
  for (const std::string& s : strings) pointers.push_back(s.c_str());
  return pointers;
}

std::vector<std::string> override_list(std::vector<std::string> overrides, const py::object& seed) {
  if (!seed.is_none()) {
    if (!py::isinstance<py::int_>(seed)) throw py::type_error("seed must be an int or None");
    overrides.push_back("seed=" + py::str(seed).cast<std::string>());
  }
  return overrides;
}

Preset load_preset(const py::object& name_or_path, std::vector<std::string> overrides,
                   const py::object& seed) {
  const std::string name = fspath(name_or_path);
  const std::vector<std::string> list = override_list(std::move(overrides), seed);
  const std::vector<const char*> pointers = c_strings(list);
  terrane_preset* raw = nullptr;
  terrane_status s = TERRANE_OK;
  {
    py::gil_scoped_release nogil;
    s = terrane_preset_load(name.c_str(), pointers.data(), pointers.size(), &raw);
  }
  PresetPtr handle(raw);
  check(s);
  return Preset(std::move(handle));
}

Preset parse_preset(const std::string& json, const std::string& source,
                    std::vector<std::string> overrides, const py::object& seed) {
  const std::vector<std::string> list = override_list(std::move(overrides), seed);
  const std::vector<const char*> pointers = c_strings(list);
  terrane_preset* raw = nullptr;
  terrane_status s = TERRANE_OK;
  {
    py::gil_scoped_release nogil;
    s = terrane_preset_parse(json.data(), json.size(), source.c_str(), pointers.data(),
                             pointers.size(), &raw);
  }
  PresetPtr handle(raw);
  check(s);
  return Preset(std::move(handle));
}

py::list name_list(const Preset& p, int32_t count,
                   const char* (*name)(const terrane_preset*, size_t)) {
  py::list names;
  for (int32_t k = 0; k < count; ++k) {
    const char* n = name(p.get(), static_cast<size_t>(k));
    names.append(n != nullptr ? py::str(n) : py::str(""));
  }
  return names;
}

std::string preset_json(const Preset& p) {
  size_t count = 0;
  std::string text;
  terrane_status s = terrane_preset_json(p.get(), nullptr, 0, &count);
  while (s == TERRANE_BUFFER_TOO_SMALL) {
    text.resize(count);
    s = terrane_preset_json(p.get(), text.data(), text.size(), &count);
  }
  check(s);
  text.resize(count);
  return text;
}

py::array heights(const Preset& p, double x0, double z0, int64_t width, int64_t height, double cell,
                  int32_t threads, const py::object& out) {
  return fill_grid(
      width, height, out,
      [&](int32_t w, int32_t h, float* data, size_t capacity, size_t* count) {
        return terrane_heights(p.get(), x0, z0, w, h, cell, threads, data, capacity, count);
      },
      [] { return static_cast<const char*>(nullptr); });
}

py::array scatter(const Preset& p, double x0, double z0, double x1, double z1) {
  py::dtype dtype = instance_dtype();
  // A first guess at the count (0.05 per m^2, within 256 .. 2^18 instances: at most 16 MiB)
  // saves the second call of the C API's two-call sizing, which would scatter the area again.
  const double area = std::isfinite((x1 - x0) * (z1 - z0)) ? (x1 - x0) * (z1 - z0) : 0.0;
  size_t count = static_cast<size_t>(std::clamp(area * 0.05, 256.0, 262144.0));
  terrane_status s = TERRANE_BUFFER_TOO_SMALL;
  py::array result;
  while (s == TERRANE_BUFFER_TOO_SMALL) {
    result = py::array(dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(count)});
    auto* data = static_cast<terrane_instance*>(result.mutable_data());
    const size_t capacity = count;
    py::gil_scoped_release nogil;
    s = terrane_scatter(p.get(), x0, z0, x1, z1, data, capacity, &count);
  }
  check(s);
  if (static_cast<size_t>(result.size()) > count) {
    result = result[py::slice(0, static_cast<py::ssize_t>(count), 1)].attr("copy")();
  }
  return result;
}

// None, "a,b" or a sequence of names -> "" or "a,b".
std::string comma_list(const py::object& value) {
  if (value.is_none()) return {};
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  std::string joined;
  for (const py::handle item : value) {
    if (!joined.empty()) joined += ',';
    joined += as<std::string>(item, "a list of names");
  }
  return joined;
}

py::dict bake(const Preset& p, const py::object& out_dir, const py::object& formats,
              const py::object& engine, const py::object& erode, int32_t size, int32_t width,
              int32_t height, double cell, std::pair<double, double> origin, const py::object& seed,
              int32_t tiles, int32_t lod, int32_t threads) {
  terrane_bake_options o;
  terrane_bake_options_init(&o);
  const std::string dir = fspath(out_dir);
  const std::string formats_text = comma_list(formats);
  const std::string engine_text =
      engine.is_none() ? std::string() : as<std::string>(engine, "engine");
  const std::string erode_text = comma_list(erode);
  o.out_dir = dir.c_str();
  o.formats = formats.is_none() ? nullptr : formats_text.c_str();
  o.engine = engine_text.c_str();
  o.erode = erode.is_none() ? nullptr : erode_text.c_str();
  o.size = size;
  o.width = width;
  o.height = height;
  o.cell_m = cell;
  o.origin_x_m = origin.first;
  o.origin_z_m = origin.second;
  if (!seed.is_none()) {
    if (!py::isinstance<py::int_>(seed)) throw py::type_error("seed must be an int or None");
    if (seed.cast<py::int_>() < py::int_(0) || seed.cast<py::int_>() > py::int_(UINT64_MAX)) {
      raise_status(TERRANE_INVALID_ARGUMENT,
                   "seed " + py::str(seed).cast<std::string>() + " is outside 0..2^64-1");
    }
    o.has_seed = 1;
    o.seed = seed.cast<uint64_t>();
  }
  o.tiles = tiles;
  o.lod = lod;
  o.threads = threads;
  terrane_bake_result r{};
  terrane_status s = TERRANE_OK;
  {
    py::gil_scoped_release nogil;
    s = terrane_bake(p.get(), &o, &r);
  }
  check(s);
  py::dict d;
  d["files"] = r.files;
  d["bytes"] = r.bytes;
  d["warnings"] = r.warnings;
  d["width"] = r.width;
  d["height"] = r.height;
  d["generation_s"] = r.generation_s;
  d["total_s"] = r.total_s;
  return d;
}

// collections.namedtuple RayHit: a strong reference never released (a static py::object would
// be destroyed after the interpreter at exit).
PyObject* g_ray_hit = nullptr;

py::object raycast(const Query& q, std::array<double, 3> origin, std::array<double, 3> direction,
                   double max_distance) {
  int32_t hit = 0;
  terrane_ray_hit r{};
  terrane_status s = TERRANE_OK;
  {
    py::gil_scoped_release nogil;
    s = terrane_query_raycast(q.get(), origin.data(), direction.data(), max_distance, &hit, &r);
  }
  check(s);
  if (hit == 0) return py::none();
  return py::handle(g_ray_hit)(r.distance_m, py::make_tuple(r.x_m, r.y_m, r.z_m),
                               py::make_tuple(r.normal[0], r.normal[1], r.normal[2]));
}

const char* path_status_name(int32_t status) {
  switch (status) {
    case TERRANE_PATH_OK:
      return "ok";
    case TERRANE_PATH_PARTIAL:
      return "partial";
    case TERRANE_PATH_NO_START:
      return "no_start";
    case TERRANE_PATH_NO_TARGET:
      return "no_target";
    case TERRANE_PATH_FAILED:
      return "failed";
    default:
      return "unknown";
  }
}

terrane_nav_agent nav_agent(const py::object& agent) {
  terrane_nav_agent a;
  terrane_nav_agent_init(&a);
  if (agent.is_none()) return a;
  for (const auto item : as<py::dict>(agent, "agent")) {
    std::string key = as<std::string>(item.first, "agent keys");
    const auto value = as<double>(item.second, "agent values");
    if (key.size() > 2 && key.compare(key.size() - 2, 2, "_m") == 0) key.resize(key.size() - 2);
    if (key == "slope_deg") key = "slope";
    if (key == "radius")
      a.radius_m = value;
    else if (key == "height")
      a.height_m = value;
    else if (key == "climb")
      a.climb_m = value;
    else if (key == "slope")
      a.slope_deg = value;
    else if (key == "drop")
      a.drop_m = value;
    else
      throw py::value_error("unknown agent key '" + item.first.cast<std::string>() +
                            "' (radius, height, climb, slope, drop)");
  }
  return a;
}

py::dict nav_path(const Preset& p, std::pair<double, double> start, std::pair<double, double> end,
                  const py::object& agent, double margin, int32_t threads) {
  const terrane_nav_agent a = nav_agent(agent);
  // Room for 1024 points (the header asks for 256): a call with too small a buffer builds the
  // navmesh again.
  size_t capacity = 1024;
  size_t count = 0;
  terrane_path_result r{};
  py::array_t<double> points;
  terrane_status s = TERRANE_BUFFER_TOO_SMALL;
  while (s == TERRANE_BUFFER_TOO_SMALL) {
    points = py::array_t<double>({static_cast<py::ssize_t>(capacity), py::ssize_t{3}});
    double* data = points.mutable_data();
    py::gil_scoped_release nogil;
    s = terrane_nav_path(p.get(), &a, start.first, start.second, end.first, end.second, margin,
                         threads, data, capacity, &count, &r);
    if (s == TERRANE_BUFFER_TOO_SMALL) capacity = count;
  }
  check(s);
  py::dict d;
  d["status"] = path_status_name(r.status);
  d["points"] = py::array_t<double>({static_cast<py::ssize_t>(count), py::ssize_t{3}},
                                    points.data());  // a copy of the first count rows
  d["length_m"] = r.length_m;
  d["polygons"] = r.polygons;
  return d;
}

}  // namespace
}  // namespace pyterrane

using namespace pyterrane;

PYBIND11_MODULE(_terrane, m) {
  m.doc() = "terrane's C API for Python (use the package terrane, not this module).";
  const uint32_t header_version =
      TERRANE_VERSION_MAJOR * 10000 + TERRANE_VERSION_MINOR * 100 + TERRANE_VERSION_PATCH;
  if (terrane_version_number() / 100 != header_version / 100) {
    throw py::import_error(std::string("libterrane ") + terrane_version() +
                           " does not match the version these bindings were built for");
  }
  register_errors(m);
  py::object ray_hit =
      py::module_::import("collections")
          .attr("namedtuple")("RayHit", py::make_tuple("distance_m", "point", "normal"));
  ray_hit.attr("__module__") = "terrane";
  ray_hit.attr("__doc__") =
      "A ray's first hit: distance_m along the normalised direction, point (x, y, z) [m] and the "
      "unit normal (x, y, z).";
  g_ray_hit = ray_hit.inc_ref().ptr();
  m.add_object("RayHit", ray_hit);
  m.attr("instance_dtype") = instance_dtype();

  m.def(
      "version", [] { return std::string(terrane_version()); },
      "The version of the loaded libterrane, e.g. '0.1.0'.");
  m.def(
      "builtin_presets",
      [] {
        std::vector<std::string> names;
        for (size_t k = 0, n = terrane_builtin_preset_count(); k < n; ++k) {
          names.emplace_back(terrane_builtin_preset_name(k));
        }
        return names;
      },
      "The names of the builtin presets ('default', 'alpine', ...).");

  py::class_<Preset>(m, "Preset",
                     "A preset: the whole description of a world (immutable). Make one with "
                     "load_preset or parse_preset.")
      .def_property_readonly(
          "name", [](const Preset& p) { return terrane_preset_name(p.get()); },
          "The preset's name.")
      .def_property_readonly(
          "seed", [](const Preset& p) { return p.info().seed; },
          "The world seed (after overrides).")
      .def_property_readonly(
          "hash", [](const Preset& p) { return p.info().hash; },
          "Hash of the canonical JSON: equal hashes, equal worlds.")
      .def_property_readonly(
          "cell_size_m", [](const Preset& p) { return p.info().cell_size_m; },
          "world.cell_size_m: the spacing of the world's lattice [m].")
      .def_property_readonly(
          "size", [](const Preset& p) { return p.info().size; },
          "world.size: samples per side of a bake.")
      .def_property_readonly(
          "height_min_m", [](const Preset& p) { return p.info().height_min_m; },
          "world.height_min_m [m].")
      .def_property_readonly(
          "height_max_m", [](const Preset& p) { return p.info().height_max_m; },
          "world.height_max_m [m].")
      .def_property_readonly(
          "sea_level_m", [](const Preset& p) { return p.info().sea_level_m; },
          "world.sea_level_m [m].")
      .def_property_readonly(
          "has_post", [](const Preset& p) { return p.info().has_post != 0; },
          "True when the preset has post operations (applied by bakes only).")
      .def_property_readonly(
          "splat_layers",
          [](const Preset& p) {
            return name_list(p, p.info().splat_layers, terrane_preset_layer_name);
          },
          "The names of the surface's splat layers, in order.")
      .def_property_readonly(
          "species",
          [](const Preset& p) {
            return name_list(p, p.info().species, terrane_preset_species_name);
          },
          "The names of the scatter species; scatter()'s 'species' field indexes this list.")
      .def_property_readonly("json", &preset_json,
                             "The canonical JSON (after overrides; sorted keys, compact).")
      .def("__repr__",
           [](const Preset& p) {
             return "<terrane.Preset '" + std::string(terrane_preset_name(p.get())) +
                    "' seed=" + std::to_string(p.info().seed) + ">";
           })
      .def("__eq__",
           [](const Preset& a, const py::object& b) -> py::object {
             if (!py::isinstance<Preset>(b))
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a.info().hash == b.cast<const Preset&>().info().hash);
           })
      .def("__hash__", [](const Preset& p) { return py::hash(py::int_(p.info().hash)); });

  m.def("load_preset", &load_preset, py::arg("name_or_path"),
        py::arg("overrides") = std::vector<std::string>(), py::arg("seed") = py::none(),
        "A builtin preset by name or a preset JSON file by path (str or os.PathLike).\n"
        "overrides: 'a.b.c=value' assignments applied in order (the CLI's --set); seed: an int\n"
        "appended as the override 'seed=N'. Raises terrane.Error: InvalidArgumentError for an\n"
        "unknown name or key, ParseError for malformed JSON, IoError for an unreadable file.");
  m.def("parse_preset", &parse_preset, py::arg("json_text"), py::arg("source") = "json",
        py::arg("overrides") = std::vector<std::string>(), py::arg("seed") = py::none(),
        "A preset from JSON text; source names it in messages. overrides and seed as "
        "load_preset.");

  m.def("heights", &heights, py::arg("preset"), py::arg("x0"), py::arg("z0"), py::arg("width"),
        py::arg("height"), py::arg("cell") = 0.0, py::arg("threads") = 0, py::kw_only(),
        py::arg("out") = py::none(),
        "Heights [m] of the world's surface on a grid: a float32 array of shape (height, width)\n"
        "whose element [j, i] is the height at x = x0 + i * cell, z = z0 + j * cell.\n"
        "cell 0: the preset's cell_size_m; threads 0: all cores (the values never depend on it).\n"
        "Seamless: any split of a region gives the same values bit for bit. terrane writes into\n"
        "the array directly (no copy), without the GIL; out: a writeable C-contiguous float32\n"
        "array of shape (height, width) to fill and return instead of a new one.\n"
        "Limits: 1..65536 samples per side, at most 2^30 samples, |x|, |z| <= 2^40 m.");
  m.def("scatter", &scatter, py::arg("preset"), py::arg("x0"), py::arg("z0"), py::arg("x1"),
        py::arg("z1"),
        "The preset's object instances whose position lies in [x0, x1) x [z0, z1) (at most\n"
        "65536 m per side), as a NumPy structured array of dtype terrane.instance_dtype: fields\n"
        "x, z (float64 [m]), y (float32, the surface height), yaw_deg, scale_xz, scale_y,\n"
        "normal (3 float32), species (int32 index into preset.species), id (uint64, stable\n"
        "across runs) and state (uint64).");
  m.def("bake", &bake, py::arg("preset"), py::arg("out_dir"), py::arg("formats") = py::none(),
        py::arg("engine") = py::none(), py::arg("erode") = py::none(), py::arg("size") = 0,
        py::arg("width") = 0, py::arg("height") = 0, py::arg("cell") = 0.0,
        py::arg("origin") = std::pair<double, double>(0.0, 0.0), py::arg("seed") = py::none(),
        py::arg("tiles") = 1, py::arg("lod") = 0, py::arg("threads") = 0,
        "What `terrane generate` does: the map with its post operations and every requested\n"
        "file under out_dir plus the JSON sidecar, written atomically. formats and erode: a\n"
        "comma list or a list of names ('png16', 'preview', 'glb'; 'thermal', 'droplets');\n"
        "engine: 'unity', 'unreal', 'godot' or None; size, width, height, cell: 0 for the\n"
        "preset's; origin (x, z) [m]; seed: None for the preset's. Returns a dict: files,\n"
        "bytes, warnings, width, height, generation_s, total_s.");

  py::class_<Query>(m, "Query",
                    "Exact answers on the level-0 surface of a world, whatever is loaded. Safe to\n"
                    "use from several threads at once.")
      .def(py::init([](const Preset& preset) {
             terrane_query* raw = nullptr;
             const terrane_status s = terrane_query_create(preset.get(), &raw);
             QueryPtr handle(raw);
             check(s);
             return Query(std::move(handle), py::none());
           }),
           py::arg("preset"), py::keep_alive<1, 2>(), "Queries of the preset's world (no edits).")
      .def(
          "height",
          [](const Query& q, double x, double z) {
            double h = 0;
            check(terrane_query_height(q.get(), x, z, &h));
            return h;
          },
          py::arg("x"), py::arg("z"), "The height [m] of the level-0 triangle under (x, z).")
      .def(
          "normal",
          [](const Query& q, double x, double z) {
            float n[3] = {0, 0, 0};
            check(terrane_query_normal(q.get(), x, z, n));
            return py::make_tuple(n[0], n[1], n[2]);
          },
          py::arg("x"), py::arg("z"), "The unit normal (x, y, z) of the surface at (x, z).")
      .def("raycast", &raycast, py::arg("origin"), py::arg("direction"),
           py::arg("max_distance") = 1000.0,
           "The first hit of the ray origin + t * direction / |direction|, 0 <= t <=\n"
           "max_distance (at most 1e6 m): a terrane.RayHit, or None when it hits nothing.");

  m.def("nav_path", &nav_path, py::arg("preset"), py::arg("start"), py::arg("end"),
        py::arg("agent") = py::none(), py::arg("margin") = 0.0, py::arg("threads") = 0,
        "The walking path `terrane path` finds from start (x, z) to end (x, z): navmesh tiles\n"
        "over their box plus margin [m] (0: 64 m, as the CLI) are built, then searched.\n"
        "agent: a dict with any of radius (0.5 m), height (2 m), climb (0.6 m), slope (40 deg),\n"
        "drop (3 m).\n"
        "Returns a dict: status ('ok', 'partial', 'no_start', 'no_target', 'failed': an\n"
        "unreachable target is a status, not an error), points (n, 3) float64 x, y, z,\n"
        "length_m and polygons.");

  bind_streamer(m);
  bind_world(m);
}
