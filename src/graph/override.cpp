// --set overrides: "a.b.c=value" applied to a preset document before validation.
#include <algorithm>
#include <string>

#include "graph/graph_internal.hpp"

namespace terrane::graph_detail {
namespace {

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

// Keys the schema knows for the object at parts[0..n) of doc (`parent` is that object).
std::vector<std::string_view> known_keys(const std::vector<std::string>& parts, std::size_t n,
                                         const json& parent) {
  if (n == 0) return root_keys();
  if (n == 1 && parts[0] == "world") return world_keys();
  if (n == 1 && parts[0] == "graph") return graph_keys();
  if (n == 3 && parts[0] == "graph" && parts[1] == "nodes") return node_keys(parent);
  return {};
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

}  // namespace

void apply_override(json& doc, std::string_view assignment, std::string_view source) {
  const std::string where = std::string(source) + ": --set '" + std::string(assignment) + "'";
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw Error(ErrorCategory::invalid_argument,
                where + ": expected path=value, e.g. graph.nodes.hills.octaves=5");
  }
  const std::string_view path = assignment.substr(0, eq);
  const std::string_view text = assignment.substr(eq + 1);
  // A value is JSON when it parses as JSON, otherwise a bare string (so name=alps works).
  json value = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = std::string(text);

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
        std::string_view guess = closest(key, known);
        if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
        if (!known.empty()) msg += "; fields here: " + join(known);
        throw Error(ErrorCategory::invalid_argument, msg);
      }
      // A known field that is not set yet: add it (objects on the way are created empty).
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

}  // namespace terrane::graph_detail
