// The preset's "surface" section: JSON -> SurfaceParams over the built-in defaults.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph/json_fields.hpp"
#include "surface/surface_internal.hpp"

namespace terrane {
namespace {

using json = nlohmann::json;

using graph_detail::describe;

// The shared preset-section reader (graph/json_fields.hpp) plus the surface's value kinds:
// numbers where null means "unbounded", colours and noise sources.
class Fields : public graph_detail::JsonFields {
 public:
  using JsonFields::JsonFields;
  std::string at(const char* key) const { return path(key); }
  // null = unbounded: -inf for keys containing "min", +inf otherwise.
  void number(const char* key, double& out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (v->is_null()) {
      out = std::string_view(key).find("min") != std::string_view::npos ? -kUnbounded : kUnbounded;
      return;
    }
    if (!v->is_number()) fail(at(key), "expected a number, got " + describe(*v));
    out = v->get<double>();
  }
  void colour(const char* key, std::array<std::uint8_t, 3>& out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_array() || v->size() != 3) fail(at(key), "expected [r, g, b], got " + describe(*v));
    for (std::size_t k = 0; k < 3; ++k) {
      const json& c = (*v)[k];
      if (!c.is_number_integer() || c.get<std::int64_t>() < 0 || c.get<std::int64_t>() > 255) {
        fail(at(key) + "[" + std::to_string(k) + "]",
             describe(c) + " is not an integer in [0, 255]");
      }
      out[k] = std::uint8_t(c.get<std::int64_t>());
    }
  }
  void noise(const char* key, NoiseParams& out) {
    const json* v = find(key);
    if (v == nullptr) return;
    Fields f(*v, at(key));
    std::string name;
    f.string("type", name);
    try {
      if (!name.empty()) out.type = parse_noise_type(name);
      name.clear();
      f.string("fractal", name);
      if (!name.empty()) out.fractal = parse_fractal_type(name);
    } catch (const Error& e) {
      fail(at(key), e.what());
    }
    f.number("frequency", out.frequency);
    f.seed("seed", out.seed);
    f.integer("octaves", out.octaves);
    f.number("lacunarity", out.lacunarity);
    f.number("gain", out.gain);
    f.finish();
  }
};

const json& array_at(const json& doc, const char* key, const std::string& where) {
  const json& v = doc[key];
  if (!v.is_array()) surface_detail::fail(where, "expected an array, got " + describe(v));
  return v;
}

// {"name": weight, ...} resolved against a list of names.
template <typename T>
std::vector<float> by_name(const json& obj, const std::vector<T>& items, const std::string& where,
                           const char* what) {
  std::vector<float> out(items.size(), 0.0f);
  if (!obj.is_object())
    surface_detail::fail(where, "expected an object {name: value}, got " + describe(obj));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::size_t k = 0;
    while (k < items.size() && items[k].name != it.key()) ++k;
    if (k == items.size()) {
      std::string names;
      for (const T& t : items) names += (names.empty() ? "" : ", ") + t.name;
      surface_detail::fail(where + "." + it.key(),
                           std::string("unknown ") + what + " (known: " + names + ")");
    }
    if (!it->is_number())
      surface_detail::fail(where + "." + it.key(), "expected a number, got " + describe(*it));
    out[k] = it->get<float>();
  }
  return out;
}

}  // namespace

SurfaceParams parse_surface(const Preset& preset) {
  SurfaceParams p = default_surface(preset.world);
  const std::string root = preset.source + ": surface";
  json doc;
  try {
    doc = json::parse(preset.surface_json);
  } catch (const json::exception& e) {
    throw Error(ErrorCategory::parse, root + ": malformed JSON: " + e.what());
  }
  Fields top(doc, root);
  if (const json* c = top.find("climate")) {
    Fields f(*c, root + ".climate");
    ClimateParams& k = p.climate;
    f.noise("temperature_noise", k.temperature_noise);
    f.number("temperature_mean_c", k.temperature_mean_c);
    f.number("temperature_amplitude_c", k.temperature_amplitude_c);
    f.number("latitude_gradient_c_per_km", k.latitude_gradient_c_per_km);
    f.number("lapse_rate_c_per_km", k.lapse_rate_c_per_km);
    f.noise("moisture_noise", k.moisture_noise);
    f.number("moisture_mean_mm", k.moisture_mean_mm);
    f.number("moisture_amplitude_mm", k.moisture_amplitude_mm);
    f.number("water_boost_mm", k.water_boost_mm);
    f.number("water_boost_distance_m", k.water_boost_distance_m);
    f.string("temperature_node", k.temperature_node);
    f.string("moisture_node", k.moisture_node);
    f.finish();
    compile_climate_sources(preset, k);  // unknown node ids are errors here, before any work
  }
  if (const json* b = top.find("blend")) {
    Fields f(*b, root + ".blend");
    f.number("temperature_c", p.blend.temperature_c);
    f.number("moisture_mm", p.blend.moisture_mm);
    f.number("height_m", p.blend.height_m);
    f.finish();
  }
  const json* layers = top.find("layers");
  const json* species = top.find("species");
  const json* biomes = top.find("biomes");
  if ((layers != nullptr || species != nullptr) && biomes == nullptr) {
    surface_detail::fail(root + ".biomes",
                         "required when surface.layers or surface.species are given (biomes "
                         "name their splat layers and species)");
  }
  if (layers != nullptr) {
    const json& arr = array_at(doc, "layers", root + ".layers");
    p.layers.clear();
    p.rock_layer = -1;
    for (std::size_t l = 0; l < arr.size(); ++l) {
      Fields f(arr[l], root + ".layers[" + std::to_string(l) + "]");
      SplatLayer L;
      L.noise.frequency = 0.05;
      L.noise.seed = l;
      f.string("name", L.name);
      f.colour("colour", L.colour);
      f.number("height_min_m", L.height_min_m);
      f.number("height_max_m", L.height_max_m);
      f.number("height_blend_m", L.height_blend_m);
      f.number("slope_min_deg", L.slope_min_deg);
      f.number("slope_max_deg", L.slope_max_deg);
      f.number("slope_blend_deg", L.slope_blend_deg);
      f.noise("noise", L.noise);
      f.number("noise_amplitude", L.noise_amplitude);
      f.finish();
      if (L.name == "rock") p.rock_layer = int(l);
      p.layers.push_back(L);
    }
  }
  if (species != nullptr) {
    const json& arr = array_at(doc, "species", root + ".species");
    p.species.clear();
    for (std::size_t s = 0; s < arr.size(); ++s) {
      const std::string where = root + ".species[" + std::to_string(s) + "]";
      Fields f(arr[s], where);
      Species S;
      S.seed = s;
      f.string("name", S.name);
      f.number("density_per_m2", S.density_per_m2);
      f.number("min_distance_m", S.min_distance_m);
      f.number("height_min_m", S.height_min_m);
      f.number("height_max_m", S.height_max_m);
      f.number("slope_max_deg", S.slope_max_deg);
      f.number("min_biome_weight", S.min_biome_weight);
      f.noise("cluster_noise", S.cluster_noise);
      f.number("cluster_amplitude", S.cluster_amplitude);
      f.boolean("avoid_water", S.avoid_water);
      f.number("yaw_min_deg", S.yaw_min_deg);
      f.number("yaw_max_deg", S.yaw_max_deg);
      f.number("scale_xz_min", S.scale_xz_min);
      f.number("scale_xz_max", S.scale_xz_max);
      f.number("scale_y_min", S.scale_y_min);
      f.number("scale_y_max", S.scale_y_max);
      f.boolean("align_to_normal", S.align_to_normal);
      f.seed("seed", S.seed);
      if (const json* ex = f.find("exclude")) {
        if (!ex->is_array())
          surface_detail::fail(where + ".exclude", "expected an array, got " + describe(*ex));
        for (std::size_t e = 0; e < ex->size(); ++e) {
          const std::string xw = where + ".exclude[" + std::to_string(e) + "]";
          Fields xf((*ex)[e], xw);
          std::string other;
          SpeciesExclusion X;
          xf.string("species", other);
          xf.number("distance_m", X.distance_m);
          xf.finish();
          X.species = -1;
          for (std::size_t o = 0; o < s; ++o) {
            if (p.species[o].name == other) X.species = int(o);
          }
          if (X.species < 0) {
            surface_detail::fail(xw + ".species", "'" + other +
                                                      "' is not an earlier species (a species may "
                                                      "only exclude species listed before it)");
          }
          S.exclusions.push_back(X);
        }
      }
      f.finish();
      p.species.push_back(S);
    }
  }
  if (biomes != nullptr) {
    const json& arr = array_at(doc, "biomes", root + ".biomes");
    p.biomes.clear();
    for (std::size_t b = 0; b < arr.size(); ++b) {
      const std::string where = root + ".biomes[" + std::to_string(b) + "]";
      Fields f(arr[b], where);
      Biome B;
      f.string("name", B.name);
      f.number("temperature_min_c", B.temperature_min_c);
      f.number("temperature_max_c", B.temperature_max_c);
      f.number("moisture_min_mm", B.moisture_min_mm);
      f.number("moisture_max_mm", B.moisture_max_mm);
      f.number("height_min_m", B.height_min_m);
      f.number("height_max_m", B.height_max_m);
      f.colour("colour", B.colour);
      B.splat.assign(p.layers.size(), 0.0f);
      B.scatter.assign(p.species.size(), 0.0f);
      if (const json* sp = f.find("splat"))
        B.splat = by_name(*sp, p.layers, where + ".splat", "layer");
      if (const json* sc = f.find("scatter"))
        B.scatter = by_name(*sc, p.species, where + ".scatter", "species");
      f.finish();
      p.biomes.push_back(B);
    }
  }
  if (const json* rl = top.find("rock_layer")) {
    if (rl->is_null()) {
      p.rock_layer = -1;
    } else {
      if (!rl->is_string())
        surface_detail::fail(root + ".rock_layer",
                             "expected a layer name or null, got " + describe(*rl));
      p.rock_layer = -1;
      for (std::size_t l = 0; l < p.layers.size(); ++l) {
        if (p.layers[l].name == rl->get<std::string>()) p.rock_layer = int(l);
      }
      if (p.rock_layer < 0)
        surface_detail::fail(root + ".rock_layer",
                             "unknown layer '" + rl->get<std::string>() + "'");
    }
  }
  top.number("rock_slope_deg", p.rock_slope_deg);
  top.number("rock_blend_deg", p.rock_blend_deg);
  top.finish();
  p.validate(root);
  return p;
}

}  // namespace terrane
