// The preset's "graph" section: JSON nodes -> GraphNode (types, references, defaults). Ranges and
// cycles are checked by Graph::validate (graph_validate.cpp) so hand-built graphs get them too.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>

#include "preset/preset_internal.hpp"

namespace terrane::preset_detail {
namespace {

// Reads the fields of one JSON object with precise messages.
class FieldReader {
 public:
  FieldReader(const json& obj, std::string_view source, std::string path)
      : obj_(obj), source_(source), path_(std::move(path)) {}

  std::string path(std::string_view key) const { return path_ + "." + std::string(key); }
  bool has(std::string_view key) const { return obj_.contains(key); }
  const json& at(std::string_view key) const { return obj_.at(std::string(key)); }

  [[noreturn]] void type_error(std::string_view key, std::string_view expected) const {
    fail(ErrorCategory::invalid_argument, source_, path(key),
         "expected " + std::string(expected) + ", got " + describe(at(key)));
  }

  void check_keys(const std::vector<std::string_view>& allowed, std::string_view what) const {
    for (auto it = obj_.begin(); it != obj_.end(); ++it) {
      const std::string& key = it.key();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string msg = "unknown key '" + key + "' in " + std::string(what);
      std::string_view guess = closest_name(key, allowed);
      if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
      msg += "; allowed keys: " + join_names(allowed);
      fail(ErrorCategory::invalid_argument, source_, path(key), msg);
    }
  }

  double number(std::string_view key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = at(key);
    if (!v.is_number()) type_error(key, "a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) type_error(key, "a finite number");
    return d;
  }

  int integer(std::string_view key, int fallback) const {
    if (!has(key)) return fallback;
    const json& v = at(key);
    if (!v.is_number_integer()) type_error(key, "an integer");
    if (v.is_number_unsigned() ? v.get<std::uint64_t>() > 1000000u
                               : std::llabs(v.get<std::int64_t>()) > 1000000) {
      fail(ErrorCategory::invalid_argument, source_, path(key),
           v.dump() + " is outside the allowed range -1000000..1000000");
    }
    return int(v.get<std::int64_t>());
  }

  std::uint64_t seed(std::string_view key, std::uint64_t fallback) const {
    if (!has(key)) return fallback;
    return parse_seed(at(key), source_, path(key));
  }

  std::string string(std::string_view key, std::string_view fallback) const {
    if (!has(key)) return std::string(fallback);
    const json& v = at(key);
    if (!v.is_string()) type_error(key, "a string");
    return v.get<std::string>();
  }

  bool boolean(std::string_view key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = at(key);
    if (!v.is_boolean()) type_error(key, "true or false");
    return v.get<bool>();
  }

  // [lo, hi] pair of numbers.
  void range(std::string_view key, double& lo, double& hi) const {
    if (!has(key)) return;
    const json& v = at(key);
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number()) {
      type_error(key, "an array of 2 numbers [lo, hi]");
    }
    lo = v[0].get<double>();
    hi = v[1].get<double>();
  }

  // Runs an enum parser from noise.hpp, prefixing its message with the JSON path.
  template <typename Parse>
  auto enum_value(std::string_view key, std::string_view fallback, Parse parse) const {
    const std::string name = string(key, fallback);
    try {
      return parse(name);
    } catch (const Error& e) {
      fail(ErrorCategory::invalid_argument, source_, path(key), e.what());
    }
  }

  static std::uint64_t parse_seed(const json& v, std::string_view source, const std::string& p) {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      std::uint64_t r = 0;
      bool ok = !s.empty() && s.size() <= 20;
      for (char c : s) {
        if (c < '0' || c > '9') {
          ok = false;
          break;
        }
        const std::uint64_t digit = std::uint64_t(c - '0');
        if (r > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
          ok = false;
          break;
        }
        r = r * 10 + digit;
      }
      if (ok) return r;
    }
    fail(ErrorCategory::invalid_argument, source, p,
         "expected a seed: an integer in 0..18446744073709551615 or a decimal string, got " +
             describe(v));
  }

 private:
  const json& obj_;
  std::string_view source_;
  std::string path_;
};

struct ParseState {
  std::map<std::string, int, std::less<>> index;  // node id -> position in Graph::nodes
  std::string_view source;
  std::string path;  // the graph section's JSON path ("graph", "post[2]")
};

NodeInput read_input(const ParseState& st, std::string_view key, const json& v,
                     const std::string& path) {
  if (v.is_number()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) {
      fail(ErrorCategory::invalid_argument, st.source, path, "constant must be finite");
    }
    return NodeInput{.node = -1, .constant = d};
  }
  if (v.is_string()) {
    const std::string& id = v.get_ref<const std::string&>();
    auto it = st.index.find(id);
    if (it == st.index.end()) {
      std::vector<std::string_view> ids;
      for (const auto& [name, _] : st.index) ids.push_back(name);
      std::string msg = "unknown node '" + id + "'";
      std::string_view guess = closest_name(id, ids);
      if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
      msg += "; nodes: " + join_names(ids);
      fail(ErrorCategory::invalid_argument, st.source, path, msg);
    }
    return NodeInput{.node = it->second};
  }
  fail(ErrorCategory::invalid_argument, st.source, path,
       "expected a node id (string) or a constant (number) for '" + std::string(key) + "', got " +
           describe(v));
}

NodeInput required_input(const FieldReader& r, const ParseState& st, std::string_view key) {
  if (!r.has(key)) {
    fail(ErrorCategory::invalid_argument, st.source, r.path(key),
         "missing required input '" + std::string(key) + "' (a node id or a number)");
  }
  return read_input(st, key, r.at(key), r.path(key));
}

void read_noise(GraphNode& n, const NodeTypeSpec& spec, const FieldReader& r,
                const std::string& id) {
  NoiseParams& p = n.noise;
  if (spec.is_basis) {
    p.type = parse_noise_type(spec.name);
    p.fractal = r.enum_value("fractal", "none", parse_fractal_type);
  } else {
    p.type = r.enum_value("noise", "opensimplex2", parse_noise_type);
    p.fractal = spec.implied_fractal;
  }
  // Default seed offset: a hash of the node id, so that two nodes never share a noise field
  // unless asked to.
  p.seed = r.seed("seed", hash_bytes(id.data(), id.size()));
  p.frequency = r.number("frequency", p.frequency);
  p.octaves = r.integer("octaves", p.octaves);
  p.lacunarity = r.number("lacunarity", p.lacunarity);
  p.gain = r.number("gain", p.gain);
  p.weighted_strength = r.number("weighted_strength", p.weighted_strength);
  p.pingpong_strength = r.number("pingpong_strength", p.pingpong_strength);
  if (p.type == NoiseType::cellular) {
    p.cellular_distance = r.enum_value("cellular_distance", "euclidean", parse_cellular_distance);
    p.cellular_return = r.enum_value("cellular_return", "f1", parse_cellular_return);
    p.cellular_jitter = r.number("jitter", p.cellular_jitter);
  }
}

void read_warp(GraphNode& n, const FieldReader& r, const ParseState& st, const std::string& id) {
  n.inputs = {required_input(r, st, "source")};
  WarpParams& w = n.warp;
  w.basis = r.enum_value("basis", "opensimplex2", parse_noise_type);
  w.seed = r.seed("seed", hash_bytes(id.data(), id.size()));
  w.frequency = r.number("frequency", w.frequency);
  w.amplitude_m = r.number("amplitude_m", w.amplitude_m);
  w.fractal = r.enum_value("fractal", "none", parse_warp_fractal);
  w.octaves = r.integer("octaves", w.octaves);
  w.lacunarity = r.number("lacunarity", w.lacunarity);
  w.gain = r.number("gain", w.gain);
}

void read_variadic(GraphNode& n, const FieldReader& r, const ParseState& st) {
  if (r.has("inputs")) {
    if (r.has("a") || r.has("b")) {
      fail(ErrorCategory::invalid_argument, st.source, r.path("inputs"),
           "give either 'a' and 'b' or 'inputs', not both");
    }
    const json& list = r.at("inputs");
    if (!list.is_array() || list.size() < 2) {
      r.type_error("inputs", "an array of at least 2 node ids or numbers");
    }
    for (std::size_t k = 0; k < list.size(); ++k) {
      n.inputs.push_back(
          read_input(st, "inputs", list[k], r.path("inputs") + "[" + std::to_string(k) + "]"));
    }
    return;
  }
  n.inputs = {required_input(r, st, "a"), required_input(r, st, "b")};
}

void read_curve(GraphNode& n, const FieldReader& r) {
  if (!r.has("points")) {
    n.points = {{-1.0, -1.0}, {1.0, 1.0}};
    return;
  }
  const json& pts = r.at("points");
  if (!pts.is_array()) r.type_error("points", "an array of [x, y] pairs");
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const json& p = pts[k];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
      r.type_error("points", "an array of [x, y] pairs (element " + std::to_string(k) + " is " +
                                 describe(p) + ")");
    }
    n.points.push_back({p[0].get<double>(), p[1].get<double>()});
  }
}

void read_terrace(GraphNode& n, const FieldReader& r, std::string_view source) {
  n.sharpness = r.number("sharpness", n.sharpness);
  if (r.has("levels")) {
    if (r.has("steps")) {
      fail(ErrorCategory::invalid_argument, source, r.path("steps"),
           "give either 'steps' or 'levels', not both");
    }
    const json& lv = r.at("levels");
    if (!lv.is_array()) r.type_error("levels", "an array of numbers");
    for (const json& v : lv) {
      if (!v.is_number()) r.type_error("levels", "an array of numbers");
      n.levels.push_back(v.get<double>());
    }
    return;
  }
  const int steps = r.integer("steps", 8);
  if (steps < 2 || steps > 256) {
    fail(ErrorCategory::invalid_argument, source, r.path("steps"),
         std::to_string(steps) + " is outside the allowed range 2..256");
  }
  for (int k = 0; k < steps; ++k) n.levels.push_back(-1.0 + 2.0 * double(k) / double(steps - 1));
}

GraphNode read_node(const std::string& id, const json& obj, const WorldSettings& world,
                    const ParseState& st) {
  const std::string path = st.path + ".nodes." + id;
  if (!obj.is_object()) {
    fail(ErrorCategory::invalid_argument, st.source, path,
         "expected an object with a \"type\", got " + describe(obj));
  }
  FieldReader r(obj, st.source, path);
  if (!r.has("type")) {
    fail(ErrorCategory::invalid_argument, st.source, path + ".type",
         "missing node type; allowed types: " + join_names(node_type_names()));
  }
  const std::string type = r.string("type", "");
  const NodeTypeSpec* spec = find_node_type(type);
  if (spec == nullptr) {
    std::string msg = "unknown node type '" + type + "'";
    std::string_view guess = closest_name(type, node_type_names());
    if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
    fail(ErrorCategory::invalid_argument, st.source, path + ".type",
         msg + "; allowed types: " + join_names(node_type_names()));
  }
  r.check_keys(node_keys(obj), "a '" + type + "' node");
  (void)r.string("comment", "");

  GraphNode n;
  n.id = id;
  n.type = type;
  n.kind = spec->kind;
  const double extent_m = double(world.size - 1) * world.cell_size_m;
  switch (spec->kind) {
    case NodeKind::noise:
      read_noise(n, *spec, r, id);
      break;
    case NodeKind::warp:
      read_warp(n, r, st, id);
      break;
    case NodeKind::constant:
      n.value = r.number("value", 0.0);
      break;
    case NodeKind::add:
    case NodeKind::mul:
    case NodeKind::min:
    case NodeKind::max:
      read_variadic(n, r, st);
      break;
    case NodeKind::sub:
      n.inputs = {required_input(r, st, "a"), required_input(r, st, "b")};
      break;
    case NodeKind::abs:
    case NodeKind::neg:
      n.inputs = {required_input(r, st, "input")};
      break;
    case NodeKind::clamp:
      n.inputs = {required_input(r, st, "input")};
      n.lo = r.number("lo", -1.0);
      n.hi = r.number("hi", 1.0);
      break;
    case NodeKind::scale_bias:
      n.inputs = {required_input(r, st, "input")};
      n.scale = r.number("scale", 1.0);
      n.bias = r.number("bias", 0.0);
      break;
    case NodeKind::pow:
      n.inputs = {required_input(r, st, "input")};
      n.exponent = r.number("exponent", 1.0);
      break;
    case NodeKind::blend:
      n.inputs = {required_input(r, st, "a"), required_input(r, st, "b"),
                  required_input(r, st, "t")};
      break;
    case NodeKind::select:
      n.inputs = {required_input(r, st, "a"), required_input(r, st, "b"),
                  required_input(r, st, "mask")};
      n.threshold = r.number("threshold", 0.0);
      n.falloff = r.number("falloff", 0.0);
      break;
    case NodeKind::curve:
      n.inputs = {required_input(r, st, "input")};
      read_curve(n, r);
      break;
    case NodeKind::terrace:
      n.inputs = {required_input(r, st, "input")};
      read_terrace(n, r, st.source);
      break;
    case NodeKind::radial_falloff:
      // Defaults centre the island on the world's default map.
      n.center_x_m = r.number("center_x_m", 0.5 * extent_m);
      n.center_z_m = r.number("center_z_m", 0.5 * extent_m);
      n.radius_m = r.number("radius_m", 0.25 * extent_m);
      n.falloff_m = r.number("falloff_m", 0.25 * extent_m);
      break;
    case NodeKind::remap:
      n.inputs = {required_input(r, st, "input")};
      r.range("from", n.from_lo, n.from_hi);
      r.range("to", n.to_lo, n.to_hi);
      n.clamp_output = r.boolean("clamp", false);
      break;
    case NodeKind::input:
      if (!r.has("name")) {
        fail(ErrorCategory::invalid_argument, st.source, r.path("name"),
             "missing required field 'name' (the input field to read, e.g. \"height\")");
      }
      n.input_name = r.string("name", "");
      break;
    case NodeKind::y:
      break;
  }
  return n;
}

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::uint64_t parse_seed_value(const json& v, std::string_view source, const std::string& path) {
  return FieldReader::parse_seed(v, source, path);
}

Graph parse_graph(const json& graph, const WorldSettings& world, std::string_view source,
                  const std::string& path) {
  FieldReader r(graph, source, path);
  r.check_keys(graph_keys(), "graph");
  if (!r.has("nodes")) {
    fail(ErrorCategory::invalid_argument, source, path + ".nodes",
         "missing: the graph needs a \"nodes\" object");
  }
  const json& nodes = r.at("nodes");
  if (!nodes.is_object() || nodes.empty()) {
    r.type_error("nodes", "a non-empty object of nodes by id");
  }
  if (nodes.size() > 1024) {
    fail(ErrorCategory::limit, source, path + ".nodes",
         std::to_string(nodes.size()) + " nodes is more than the limit of 1024");
  }
  ParseState st;
  st.source = source;
  st.path = path;
  for (auto it = nodes.begin(); it != nodes.end(); ++it) {
    if (!valid_id(it.key())) {
      fail(ErrorCategory::invalid_argument, source, path + ".nodes." + it.key(),
           "node ids are 1..64 characters from [A-Za-z0-9_-]");
    }
    st.index.emplace(it.key(), int(st.index.size()));
  }
  Graph g;
  g.path = path;
  for (auto it = nodes.begin(); it != nodes.end(); ++it) {
    g.nodes.push_back(read_node(it.key(), it.value(), world, st));
  }
  const std::string output = r.string("output", "output");
  auto out = st.index.find(output);
  if (out == st.index.end()) {
    std::vector<std::string_view> ids;
    for (const auto& [name, _] : st.index) ids.push_back(name);
    fail(ErrorCategory::invalid_argument, source, path + ".output",
         "unknown node '" + output + "'" + (r.has("output") ? "" : " (the default)") +
             "; nodes: " + join_names(ids));
  }
  g.output = out->second;
  return g;
}

}  // namespace terrane::preset_detail

namespace terrane {

Graph parse_graph_section(std::string_view json_text, const WorldSettings& world,
                          std::string_view source, std::string_view path) {
  const preset_detail::json doc = preset_detail::parse_json_text(json_text, source);
  if (!doc.is_object()) {
    preset_detail::fail(ErrorCategory::invalid_argument, source, path,
                        "expected an object {\"output\": id, \"nodes\": {...}}, got " +
                            preset_detail::describe(doc));
  }
  Graph g = preset_detail::parse_graph(doc, world, source, std::string(path));
  g.validate(source);
  return g;
}

}  // namespace terrane
