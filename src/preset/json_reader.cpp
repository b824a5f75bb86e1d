#include "preset/json_reader.hpp"

#include <cmath>

namespace terrane::preset_detail {

JsonFields::JsonFields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {
  if (!obj_.is_object()) fail(where_, "expected an object, got " + describe(obj_));
}

void JsonFields::fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCategory::invalid_argument, path + ": " + what);
}

const json* JsonFields::find(std::string_view key) {
  known_.push_back(key);
  auto it = obj_.find(key);
  return it == obj_.end() ? nullptr : &*it;
}

void JsonFields::number(std::string_view key, double& out, bool unbounded_null) {
  const json* v = find(key);
  if (v == nullptr) return;
  if (unbounded_null && v->is_null()) {
    const double inf = std::numeric_limits<double>::infinity();
    out = key.find("min") != std::string_view::npos ? -inf : inf;
    return;
  }
  if (!v->is_number() || !std::isfinite(v->get<double>())) {
    fail(path(key), std::string("expected a number") + (unbounded_null ? " or null" : "") +
                        ", got " + describe(*v));
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

void JsonFields::colour(std::string_view key, std::array<std::uint8_t, 3>& out) {
  const json* v = find(key);
  if (v == nullptr) return;
  if (!v->is_array() || v->size() != 3) fail(path(key), "expected [r, g, b], got " + describe(*v));
  for (std::size_t k = 0; k < 3; ++k) {
    const json& c = (*v)[k];
    if (!c.is_number_integer() || c.get<std::int64_t>() < 0 || c.get<std::int64_t>() > 255) {
      fail(path(key) + "[" + std::to_string(k) + "]",
           describe(c) + " is not an integer in [0, 255]");
    }
    out[k] = std::uint8_t(c.get<std::int64_t>());
  }
}

void JsonFields::noise(std::string_view key, NoiseParams& out) {
  const json* v = find(key);
  if (v == nullptr) return;
  JsonFields f(*v, path(key));
  std::string name;
  f.string("type", name);
  try {
    if (!name.empty()) out.type = parse_noise_type(name);
    name.clear();
    f.string("fractal", name);
    if (!name.empty()) out.fractal = parse_fractal_type(name);
  } catch (const Error& e) {
    fail(path(key), e.what());
  }
  f.fields(NoiseParams::fields(), out);
  f.finish("a noise object");
}

void JsonFields::finish(std::string_view what) const {
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    if (std::find(known_.begin(), known_.end(), it.key()) != known_.end()) continue;
    std::string msg = "unknown key '" + it.key() + "'";
    if (!what.empty()) msg += " in " + std::string(what);
    const std::string_view guess = closest_name(it.key(), known_);
    if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
    fail(path(it.key()), msg + "; allowed keys: " + join_names(known_));
  }
}

}  // namespace terrane::preset_detail
