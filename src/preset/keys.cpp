// The preset schema (keys accepted by each section and node type) and message helpers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "preset/preset_internal.hpp"

namespace terrane::preset_detail {

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
      {"y", NodeKind::y},
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
  return {"name", "description", "seed", "world", "graph", "post", "surface", "voxel"};
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
    case NodeKind::y:
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

}  // namespace terrane::preset_detail
