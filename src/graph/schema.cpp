// The preset schema (keys accepted by each section and node type) and message helpers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "graph/graph_internal.hpp"

namespace terrane {

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::noise:
      return "noise";
    case NodeKind::warp:
      return "warp";
    case NodeKind::constant:
      return "constant";
    case NodeKind::add:
      return "add";
    case NodeKind::sub:
      return "sub";
    case NodeKind::mul:
      return "mul";
    case NodeKind::min:
      return "min";
    case NodeKind::max:
      return "max";
    case NodeKind::abs:
      return "abs";
    case NodeKind::neg:
      return "neg";
    case NodeKind::clamp:
      return "clamp";
    case NodeKind::scale_bias:
      return "scale_bias";
    case NodeKind::pow:
      return "pow";
    case NodeKind::blend:
      return "blend";
    case NodeKind::select:
      return "select";
    case NodeKind::curve:
      return "curve";
    case NodeKind::terrace:
      return "terrace";
    case NodeKind::radial_falloff:
      return "radial_falloff";
    case NodeKind::remap:
      return "remap";
    case NodeKind::input:
      return "input";
  }
  return "unknown";
}

}  // namespace terrane

namespace terrane::graph_detail {

std::string located(std::string_view source, std::string_view path, std::string_view message) {
  std::string s(source);
  if (!path.empty()) {
    s += ": ";
    s += path;
  }
  s += ": ";
  s += message;
  return s;
}

void fail(ErrorCategory category, std::string_view source, std::string_view path,
          std::string_view message) {
  throw Error(category, located(source, path, message));
}

std::string format_number(double v) {
  char buf[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::isnan(v) || std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string describe(const json& v) {
  std::string dump = v.dump();
  if (dump.size() > 60) dump = dump.substr(0, 57) + "...";
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean " + dump;
    case json::value_t::string:
      return "string " + dump;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer " + dump;
    case json::value_t::number_float:
      return "number " + dump;
    case json::value_t::array:
      return "array " + dump;
    case json::value_t::object:
      return "object " + dump;
    default:
      return dump;
  }
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string_view closest(std::string_view key, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  std::size_t best_d = 3;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string join(const std::vector<std::string_view>& names) {
  std::string s;
  for (std::string_view n : names) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

const std::vector<NodeTypeSpec>& node_types() {
  static const std::vector<NodeTypeSpec> types = {
      {"perlin", NodeKind::noise, FractalType::none, true},
      {"opensimplex2", NodeKind::noise, FractalType::none, true},
      {"opensimplex2s", NodeKind::noise, FractalType::none, true},
      {"value", NodeKind::noise, FractalType::none, true},
      {"value_cubic", NodeKind::noise, FractalType::none, true},
      {"cellular", NodeKind::noise, FractalType::none, true},
      {"fbm", NodeKind::noise, FractalType::fbm},
      {"ridged", NodeKind::noise, FractalType::ridged},
      {"billow", NodeKind::noise, FractalType::billow},
      {"pingpong", NodeKind::noise, FractalType::pingpong},
      {"warp", NodeKind::warp},
      {"constant", NodeKind::constant},
      {"add", NodeKind::add},
      {"sub", NodeKind::sub},
      {"mul", NodeKind::mul},
      {"min", NodeKind::min},
      {"max", NodeKind::max},
      {"abs", NodeKind::abs},
      {"neg", NodeKind::neg},
      {"clamp", NodeKind::clamp},
      {"scale_bias", NodeKind::scale_bias},
      {"pow", NodeKind::pow},
      {"blend", NodeKind::blend},
      {"select", NodeKind::select},
      {"curve", NodeKind::curve},
      {"terrace", NodeKind::terrace},
      {"radial_falloff", NodeKind::radial_falloff},
      {"remap", NodeKind::remap},
      {"input", NodeKind::input},
  };
  return types;
}

const NodeTypeSpec* find_node_type(std::string_view name) {
  for (const NodeTypeSpec& t : node_types()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::vector<std::string_view> node_type_names() {
  std::vector<std::string_view> names;
  for (const NodeTypeSpec& t : node_types()) names.push_back(t.name);
  return names;
}

std::vector<std::string_view> root_keys() {
  return {"name", "description", "seed", "world", "graph", "post", "surface"};
}
std::vector<std::string_view> world_keys() {
  return {"cell_size_m", "height_min_m", "height_max_m", "sea_level_m", "size", "preview_palette"};
}
std::vector<std::string_view> graph_keys() {
  return {"output", "nodes"};
}

std::vector<std::string_view> node_keys(const NodeTypeSpec& spec, bool cellular) {
  std::vector<std::string_view> keys = {"type", "comment"};
  auto add = [&](std::initializer_list<std::string_view> more) {
    keys.insert(keys.end(), more.begin(), more.end());
  };
  switch (spec.kind) {
    case NodeKind::noise:
      add({"frequency", "seed", "octaves", "lacunarity", "gain", "weighted_strength"});
      if (spec.is_basis) add({"fractal", "pingpong_strength"});
      if (!spec.is_basis) add({"noise"});
      if (spec.implied_fractal == FractalType::pingpong) add({"pingpong_strength"});
      if (cellular) add({"cellular_distance", "cellular_return", "jitter"});
      break;
    case NodeKind::warp:
      add({"source", "basis", "frequency", "amplitude_m", "fractal", "octaves", "lacunarity",
           "gain", "seed"});
      break;
    case NodeKind::constant:
      add({"value"});
      break;
    case NodeKind::add:
    case NodeKind::mul:
    case NodeKind::min:
    case NodeKind::max:
      add({"a", "b", "inputs"});
      break;
    case NodeKind::sub:
      add({"a", "b"});
      break;
    case NodeKind::abs:
    case NodeKind::neg:
      add({"input"});
      break;
    case NodeKind::clamp:
      add({"input", "lo", "hi"});
      break;
    case NodeKind::scale_bias:
      add({"input", "scale", "bias"});
      break;
    case NodeKind::pow:
      add({"input", "exponent"});
      break;
    case NodeKind::blend:
      add({"a", "b", "t"});
      break;
    case NodeKind::select:
      add({"a", "b", "mask", "threshold", "falloff"});
      break;
    case NodeKind::curve:
      add({"input", "points"});
      break;
    case NodeKind::terrace:
      add({"input", "steps", "levels", "sharpness"});
      break;
    case NodeKind::radial_falloff:
      add({"center_x_m", "center_z_m", "radius_m", "falloff_m"});
      break;
    case NodeKind::remap:
      add({"input", "from", "to", "clamp"});
      break;
    case NodeKind::input:
      add({"name"});
      break;
  }
  return keys;
}

std::vector<std::string_view> node_keys(const json& node) {
  if (!node.is_object()) return {};
  auto type = node.find("type");
  if (type == node.end() || !type->is_string()) return {};
  const NodeTypeSpec* spec = find_node_type(type->get_ref<const std::string&>());
  if (spec == nullptr) return {};
  bool cellular = false;
  if (spec->kind == NodeKind::noise) {
    if (spec->is_basis) {
      cellular = spec->name == "cellular";
    } else {
      auto basis = node.find("noise");
      cellular = basis != node.end() && basis->is_string() && *basis == "cellular";
    }
  }
  return node_keys(*spec, cellular);
}

}  // namespace terrane::graph_detail
