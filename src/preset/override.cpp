// --set overrides: "a.b.c=value" applied to a preset document before validation.
#include <algorithm>
#include <string>

#include "preset/preset_internal.hpp"

namespace terrane::preset_detail {
namespace {

// Whether `text` has the syntax of a JSON number (json::accept refuses one that overflows).
bool looks_like_json_number(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > start;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (!digits()) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    parts.emplace_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::string prefix_of(const std::vector<std::string>& parts, std::size_t n) {
  std::string s;
  for (std::size_t k = 0; k < n; ++k) s += (k ? "." : "") + parts[k];
  return s;
}

bool parse_index(const std::string& s, std::size_t& index) {
  if (s.empty() || s.size() > 9) return false;
  index = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + std::size_t(c - '0');
  }
  return true;
}

template <class T>
void append(std::vector<std::string_view>& keys, std::span<const Field<T>> table) {
  for (const Field<T>& f : table) keys.push_back(f.key);
}

std::vector<std::string_view> noise_keys() {
  std::vector<std::string_view> keys = {"type", "fractal"};
  append(keys, NoiseParams::fields());
  return keys;
}

}  // namespace

std::vector<std::string_view> known_keys(const std::vector<std::string>& parts, std::size_t n,
                                         const json& parent) {
  // The path below the root with array indices as "#".
  std::vector<std::string_view> at;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t index = 0;
    at.push_back(parse_index(parts[k], index) ? std::string_view("#") : std::string_view(parts[k]));
  }
  // "*" matches any key, "#" an array index.
  auto is = [&](std::initializer_list<std::string_view> want) {
    return at.size() == want.size() &&
           std::equal(at.begin(), at.end(), want.begin(),
                      [](std::string_view a, std::string_view w) { return w == "*" || a == w; });
  };
  std::vector<std::string_view> keys;
  if (at.empty()) return root_keys();
  if (is({"world"})) return field_keys(WorldSettings::fields());
  if (is({"graph"})) return graph_keys();
  if (is({"graph", "nodes"}) || is({"post", "#", "nodes"})) {
    // The nodes that exist (a --set cannot add a node: its type would be missing).
    for (auto it = parent.begin(); it != parent.end(); ++it) keys.push_back(it.key());
    return keys;
  }
  if (is({"graph", "nodes", "*"}) || is({"post", "#", "nodes", "*"})) {
    return node_keys(parent);
  }
  if (is({"post", "#"})) {
    auto op = parent.find("op");
    if (op == parent.end() || !op->is_string()) return {"op"};
    try {
      keys = RegionOp::keys(parse_region_op_kind(op->get<std::string>()));
    } catch (const Error&) {
      return {"op"};
    }
    keys.insert(keys.begin(), "op");
    return keys;
  }
  if (is({"surface"})) {
    keys = {"climate", "blend", "layers", "species", "biomes", "rock_layer"};
    append(keys, SurfaceParams::fields());
    return keys;
  }
  if (is({"surface", "climate"})) {
    keys = {"temperature_noise", "moisture_noise"};
    append(keys, ClimateParams::fields());
    return keys;
  }
  if (is({"surface", "climate", "temperature_noise"}) ||
      is({"surface", "climate", "moisture_noise"}) || is({"surface", "layers", "#", "noise"}) ||
      is({"surface", "species", "#", "cluster_noise"})) {
    return noise_keys();
  }
  if (is({"surface", "blend"})) return field_keys(BiomeBlend::fields());
  if (is({"surface", "layers", "#"})) {
    keys = {"colour", "noise"};
    append(keys, SplatLayer::fields());
    return keys;
  }
  if (is({"surface", "species", "#"})) {
    keys = {"cluster_noise", "exclude"};
    append(keys, Species::fields());
    return keys;
  }
  if (is({"surface", "species", "#", "exclude", "#"})) {
    keys = {"species"};
    append(keys, SpeciesExclusion::fields());
    return keys;
  }
  if (is({"surface", "biomes", "#"})) {
    keys = {"colour", "splat", "scatter"};
    append(keys, Biome::fields());
    return keys;
  }
  if (is({"voxel"})) {
    keys = {"blocks", "top", "ores", "trees", "density"};
    append(keys, VoxelParams::fields());
    return keys;
  }
  return keys;
}

void apply_override(json& doc, std::string_view assignment, std::string_view source) {
  // Messages quote the assignment, cut to 80 bytes (a --set value may be megabytes).
  const std::string quoted = assignment.size() <= 80
                                 ? std::string(assignment)
                                 : std::string(assignment.substr(0, 77)) + "...";
  const std::string where = std::string(source) + ": --set '" + quoted + "'";
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw Error(ErrorCategory::invalid_argument,
                where + ": expected path=value, e.g. graph.nodes.hills.octaves=5");
  }
  const std::string_view path = assignment.substr(0, eq);
  const std::string_view text = assignment.substr(eq + 1);
  // A value is JSON when it parses as JSON, otherwise a bare string (so name=alps works).
  // json::accept validates without building anything (and without recursion); a value that is
  // JSON is then read with the preset reader's checks (nesting bounded, duplicate keys refused).
  const bool is_json = json::accept(text.begin(), text.end());
  if (!is_json && looks_like_json_number(text)) {
    // JSON syntax that a double cannot hold (1e400): not quietly a string.
    throw Error(ErrorCategory::invalid_argument,
                where +
                    ": the number is beyond what a double holds (magnitude up to about "
                    "1.8e308)");
  }
  const json value = is_json ? parse_json_text(text, where) : json(std::string(text));
  if (value.is_string()) {
    try {
      (void)value.dump();  // a bare string is kept as given: its bytes must be UTF-8
    } catch (const json::type_error&) {
      throw Error(ErrorCategory::invalid_argument, where + ": the value is not valid UTF-8 text");
    }
  }

  const std::vector<std::string> parts = split_path(path);
  json* cur = &doc;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::string& key = parts[k];
    const bool last = k + 1 == parts.size();
    const std::string here = prefix_of(parts, k + 1);
    if (key.empty()) {
      throw Error(ErrorCategory::invalid_argument,
                  where + ": empty segment in path '" + std::string(path) + "'");
    }
    if (cur->is_array()) {
      std::size_t index = 0;
      if (!parse_index(key, index) || index >= cur->size()) {
        throw Error(ErrorCategory::invalid_argument,
                    where + ": " + here + ": '" + key + "' is not an index of " +
                        prefix_of(parts, k) + ", an array of " + std::to_string(cur->size()));
      }
      if (last) {
        (*cur)[index] = value;
        return;
      }
      cur = &(*cur)[index];
      continue;
    }
    if (!cur->is_object()) {
      throw Error(ErrorCategory::invalid_argument,
                  where + ": " + here + ": " + prefix_of(parts, k) + " is " + describe(*cur) +
                      ", which has no field '" + key + "'");
    }
    auto it = cur->find(key);
    if (it == cur->end()) {
      const std::vector<std::string_view> known = known_keys(parts, k, *cur);
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string msg = where + ": " + here + ": no such field";
        std::string_view guess = closest_name(key, known);
        if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
        if (!known.empty()) msg += "; fields here: " + join_names(known);
        throw Error(ErrorCategory::invalid_argument, msg);
      }
      // A known field that is not set yet: add it (objects on the way are created empty; a
      // list cannot be created one entry at a time).
      if (!last && (key == "post" || key == "layers" || key == "species" || key == "biomes" ||
                    key == "exclude")) {
        throw Error(ErrorCategory::invalid_argument,
                    where + ": " + here + ": not set in the preset (" +
                        (key == "post" ? std::string("no post operations")
                                       : std::string("the defaults apply")) +
                        "), so it has no entry '" + parts[k + 1] +
                        "'; give the whole list, e.g. --set " + here +
                        "=[...] (see docs/PRESETS.md)");
      }
      if (last) {
        (*cur)[key] = value;
        return;
      }
      (*cur)[key] = json::object();
      it = cur->find(key);
    }
    if (last) {
      *it = value;
      return;
    }
    cur = &*it;
  }
}

}  // namespace terrane::preset_detail
