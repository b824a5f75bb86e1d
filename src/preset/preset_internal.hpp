// Internal helpers of the preset module: JSON text, messages, the graph section's node schema
// and the section parsers (each section in its own file).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/preset.hpp"
#include "terrane/schema.hpp"

namespace terrane::preset_detail {

using json = nlohmann::json;

using terrane::located;
// fail_at (terrane/schema.hpp): "<source>: <path>: <message>".
[[noreturn]] inline void fail(ErrorCategory category, std::string_view source,
                              std::string_view path, std::string_view message) {
  fail_at(category, source, path, message);
}
// A JSON value for messages: its type and a shortened dump, e.g. `string "five"`.
std::string describe(const json& v);

// ---- The graph section's node schema -----------------------------------------------------------

// One node type name as written in JSON.
struct NodeTypeSpec {
  std::string_view name;
  NodeKind kind;
  // For noise nodes: the fractal this name implies (fbm, ...), or none for the basis names
  // (perlin, ...), whose fractal comes from the "fractal" key.
  FractalType implied_fractal = FractalType::none;
  bool is_basis = false;  // perlin, opensimplex2, ... (the "noise" key is not accepted)
};

const std::vector<NodeTypeSpec>& node_types();
const NodeTypeSpec* find_node_type(std::string_view name);
std::vector<std::string_view> node_type_names();

std::vector<std::string_view> root_keys();
std::vector<std::string_view> graph_keys();
// Keys a node of this type accepts; `cellular` adds the cellular_* keys of a cellular basis.
std::vector<std::string_view> node_keys(const NodeTypeSpec& spec, bool cellular);
// Keys a node object as written accepts (from its "type" and "noise"/basis); empty when the
// type is missing or unknown.
std::vector<std::string_view> node_keys(const json& node);

// ---- Sections -----------------------------------------------------------------------------------

// Parses text; malformed JSON throws Error(parse) "<source>: line L, column C: ...".
json parse_json_text(std::string_view text, std::string_view source);
// Applies "a.b.c=value" to doc in place (see terrane::apply_override).
void apply_override(json& doc, std::string_view assignment, std::string_view source);
// A seed: JSON unsigned integer or a decimal string (for values above 2^53).
std::uint64_t parse_seed_value(const json& v, std::string_view source, const std::string& path);
// Parses a graph section (already checked to be an object) for a preset with this world;
// `path` is its JSON path ("graph" for doc["graph"]), used in messages and stored in Graph::path.
Graph parse_graph(const json& graph, const WorldSettings& world, std::string_view source,
                  const std::string& path = "graph");
// The "world" section (absent: the defaults), validated.
WorldSettings parse_world(const json* world, std::string_view source);
// The "post" list (absent: empty), validated against the preset's graph (uplift nodes) and the
// post graph inputs. `preset` has name, seed, world, graph and source set.
std::vector<RegionOp> parse_post(const json* post, const Preset& preset);
// The "surface" section over default_surface(preset.world), validated; climate node ids must
// name nodes of preset.graph.
SurfaceParams parse_surface(const json* surface, const Preset& preset);
// The "voxel" section over default_voxel(), validated against preset.surface (biome names).
VoxelParams parse_voxel(const json* voxel, const Preset& preset);

// The keys the schema knows for the object at doc path parts[0..n) (`parent` is that object
// as written), for --set; empty when the place has no fixed keys.
std::vector<std::string_view> known_keys(const std::vector<std::string>& parts, std::size_t n,
                                         const json& parent);

}  // namespace terrane::preset_detail
