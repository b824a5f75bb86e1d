#include "graph/json_fields.hpp"

#include <cmath>

namespace terrane::graph_detail {

JsonFields::JsonFields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {
  if (!obj_.is_object()) fail(where_, "expected an object, got " + describe(obj_));
}

void JsonFields::fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCategory::invalid_argument, path + ": " + what);
}

const json* JsonFields::find(std::string_view key) {
  known_.emplace_back(key);
  auto it = obj_.find(key);
  return it == obj_.end() ? nullptr : &*it;
}

void JsonFields::number(std::string_view key, double& out) {
  const json* v = find(key);
  if (v == nullptr) return;
  if (!v->is_number() || !std::isfinite(v->get<double>())) {
    fail(path(key), "expected a number, got " + describe(*v));
  }
  out = v->get<double>();
}

void JsonFields::boolean(std::string_view key, bool& out) {
  const json* v = find(key);
  if (v == nullptr) return;
  if (!v->is_boolean()) fail(path(key), "expected true or false, got " + describe(*v));
  out = v->get<bool>();
}

void JsonFields::string(std::string_view key, std::string& out) {
  const json* v = find(key);
  if (v == nullptr) return;
  if (!v->is_string()) fail(path(key), "expected a string, got " + describe(*v));
  out = v->get<std::string>();
}

void JsonFields::seed(std::string_view key, std::uint64_t& out) {
  const json* v = find(key);
  if (v == nullptr) return;
  out = parse_seed_value(*v, path(key), "");
}

void JsonFields::finish(std::string_view what) const {
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    if (std::find(known_.begin(), known_.end(), it.key()) != known_.end()) continue;
    std::string allowed;
    for (const std::string& k : known_) allowed += (allowed.empty() ? "" : ", ") + k;
    fail(path(it.key()), std::string("unknown key") +
                             (what.empty() ? std::string() : " for " + std::string(what)) +
                             "; allowed keys: " + allowed);
  }
}

}  // namespace terrane::graph_detail
