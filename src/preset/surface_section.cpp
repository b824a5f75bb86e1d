// The preset's "surface" section: JSON -> SurfaceParams over default_surface(world), validated.
// Scalar keys come from the schema tables of ClimateParams, BiomeBlend, SplatLayer, Biome,
// Species and SpeciesExclusion; colours, noise objects and names (layers, species) are read here.
#include <string>
#include <vector>

#include "preset/json_reader.hpp"
#include "preset/preset_internal.hpp"

namespace terrane::preset_detail {
namespace {

[[noreturn]] void fail_at(const std::string& where, const std::string& what) {
  JsonFields::fail(where, what);
}

const json& array_at(const json& doc, const char* key, const std::string& where) {
  const json& v = doc[key];
  if (!v.is_array()) fail_at(where, "expected an array, got " + describe(v));
  return v;
}

// {"name": weight, ...} resolved against a list of names.
template <typename T>
std::vector<float> by_name(const json& obj, const std::vector<T>& items, const std::string& where,
                           const char* what) {
  std::vector<float> out(items.size(), 0.0f);
  if (!obj.is_object()) fail_at(where, "expected an object {name: value}, got " + describe(obj));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::size_t k = 0;
    while (k < items.size() && items[k].name != it.key()) ++k;
    if (k == items.size()) {
      std::string names;
      for (const T& t : items) names += (names.empty() ? "" : ", ") + t.name;
      fail_at(where + "." + it.key(), std::string("unknown ") + what + " (known: " + names + ")");
    }
    if (!it->is_number())
      fail_at(where + "." + it.key(), "expected a number, got " + describe(*it));
    out[k] = it->get<float>();
  }
  return out;
}

// A climate source node must be a node of the preset's graph.
void check_node(const Preset& preset, const std::string& id, const std::string& where) {
  if (id.empty()) return;
  std::string known;
  for (const GraphNode& n : preset.graph.nodes) {
    if (n.id == id) return;
    known += (known.empty() ? "" : ", ") + n.id;
  }
  fail_at(where, "unknown graph node '" + id + "' (known: " + known + ")");
}

}  // namespace

SurfaceParams parse_surface(const json* surface, const Preset& preset) {
  SurfaceParams p = default_surface(preset.world);
  const std::string root = preset.source + ": surface";
  if (surface == nullptr) {
    p.validate(root);
    return p;
  }
  if (!surface->is_object()) {
    fail(ErrorCategory::invalid_argument, preset.source, "surface",
         "expected an object (climate, biomes, layers, species), got " + describe(*surface));
  }
  const json& doc = *surface;
  JsonFields top(doc, root);
  if (const json* c = top.find("climate")) {
    JsonFields f(*c, root + ".climate");
    ClimateParams& k = p.climate;
    f.noise("temperature_noise", k.temperature_noise);
    f.noise("moisture_noise", k.moisture_noise);
    f.fields(ClimateParams::fields(), k);
    f.finish("surface.climate");
    check_node(preset, k.temperature_node, root + ".climate.temperature_node");
    check_node(preset, k.moisture_node, root + ".climate.moisture_node");
  }
  if (const json* b = top.find("blend")) {
    JsonFields f(*b, root + ".blend");
    f.fields(BiomeBlend::fields(), p.blend);
    f.finish("surface.blend");
  }
  const json* layers = top.find("layers");
  const json* species = top.find("species");
  const json* biomes = top.find("biomes");
  if ((layers != nullptr || species != nullptr) && biomes == nullptr) {
    fail_at(root + ".biomes",
            "required when surface.layers or surface.species are given (biomes name their splat "
            "layers and species)");
  }
  if (layers != nullptr) {
    const json& arr = array_at(doc, "layers", root + ".layers");
    p.layers.clear();
    p.rock_layer = -1;
    for (std::size_t l = 0; l < arr.size(); ++l) {
      JsonFields f(arr[l], root + ".layers[" + std::to_string(l) + "]");
      SplatLayer L;
      L.noise.frequency = 0.05;
      L.noise.seed = l;
      f.fields(SplatLayer::fields(), L);
      f.colour("colour", L.colour);
      f.noise("noise", L.noise);
      f.finish("a splat layer");
      if (L.name == "rock") p.rock_layer = int(l);
      p.layers.push_back(L);
    }
  }
  if (species != nullptr) {
    const json& arr = array_at(doc, "species", root + ".species");
    p.species.clear();
    for (std::size_t s = 0; s < arr.size(); ++s) {
      const std::string where = root + ".species[" + std::to_string(s) + "]";
      JsonFields f(arr[s], where);
      Species S;
      S.seed = s;
      f.fields(Species::fields(), S);
      f.noise("cluster_noise", S.cluster_noise);
      if (const json* ex = f.find("exclude")) {
        if (!ex->is_array()) fail_at(where + ".exclude", "expected an array, got " + describe(*ex));
        for (std::size_t e = 0; e < ex->size(); ++e) {
          const std::string xw = where + ".exclude[" + std::to_string(e) + "]";
          JsonFields xf((*ex)[e], xw);
          std::string other;
          SpeciesExclusion X;
          xf.string("species", other);
          xf.fields(SpeciesExclusion::fields(), X);
          xf.finish("an exclusion");
          X.species = -1;
          for (std::size_t o = 0; o < s; ++o) {
            if (p.species[o].name == other) X.species = int(o);
          }
          if (X.species < 0) {
            fail_at(xw + ".species", "'" + other +
                                         "' is not an earlier species (a species may only exclude "
                                         "species listed before it)");
          }
          S.exclusions.push_back(X);
        }
      }
      f.finish("a species");
      p.species.push_back(S);
    }
  }
  if (biomes != nullptr) {
    const json& arr = array_at(doc, "biomes", root + ".biomes");
    p.biomes.clear();
    for (std::size_t b = 0; b < arr.size(); ++b) {
      const std::string where = root + ".biomes[" + std::to_string(b) + "]";
      JsonFields f(arr[b], where);
      Biome B;
      f.fields(Biome::fields(), B);
      f.colour("colour", B.colour);
      B.splat.assign(p.layers.size(), 0.0f);
      B.scatter.assign(p.species.size(), 0.0f);
      if (const json* sp = f.find("splat"))
        B.splat = by_name(*sp, p.layers, where + ".splat", "layer");
      if (const json* sc = f.find("scatter")) {
        B.scatter = by_name(*sc, p.species, where + ".scatter", "species");
      }
      f.finish("a biome");
      p.biomes.push_back(B);
    }
  }
  if (const json* rl = top.find("rock_layer")) {
    p.rock_layer = -1;
    if (!rl->is_null()) {
      if (!rl->is_string()) {
        fail_at(root + ".rock_layer", "expected a layer name or null, got " + describe(*rl));
      }
      for (std::size_t l = 0; l < p.layers.size(); ++l) {
        if (p.layers[l].name == rl->get<std::string>()) p.rock_layer = int(l);
      }
      if (p.rock_layer < 0) {
        fail_at(root + ".rock_layer", "unknown layer '" + rl->get<std::string>() + "'");
      }
    }
  }
  top.fields(SurfaceParams::fields(), p);
  top.finish("surface");
  p.validate(root);
  return p;
}

}  // namespace terrane::preset_detail
