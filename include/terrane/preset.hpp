// terrane preset: the whole preset document (JSON) parsed once into typed sections. Module
// `preset`; depends on core, noise, graph, erosion, surface and voxel (whose parameter structs and
// schema tables it reads), and is used by world, bake and the apps. It is the only JSON reader
// of presets: no other module parses JSON text handed down to it.
//
// Sections (docs/PRESETS.md documents every field):
//   name, description, seed
//   world    WorldSettings (graph.hpp)            keys: WorldSettings::fields()
//   graph    Graph (graph.hpp)                    keys: per node type (docs/PRESETS.md)
//   post     std::vector<RegionOp> (erosion.hpp)  keys: ThermalParams::fields(), ...
//   surface  SurfaceParams (surface.hpp)          keys: ClimateParams::fields(), ...
//   voxel    VoxelParams (voxel.hpp)              keys: VoxelParams::fields(), lists, density
// Room for later sections (nav, roads): each is a typed struct here with its schema tables next
// to its parameter structs; until then their keys are unknown-key errors.
//
// Schema tables (terrane/schema.hpp) drive reading (absent keys keep the struct's default),
// limits and messages, and the keys `--set` may add. Every error names the source (file path or
// builtin), the JSON path, the value and the allowed range; unknown keys are errors with a "did
// you mean".
//
// Threading: every function is reentrant; a Preset is a plain value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/erosion.hpp"
#include "terrane/graph.hpp"
#include "terrane/surface.hpp"
#include "terrane/voxel.hpp"

namespace terrane {

// Deepest nesting of objects and arrays a preset document (or a --set value) may have; deeper
// is Error(limit) "<source>: JSON nested deeper than 64 levels" while parsing.
inline constexpr int kMaxJsonDepth = 64;
// Most values (objects, arrays, numbers, strings, ...) a preset document may hold (the builtins
// hold a few hundred); more is Error(limit) "<source>: JSON holds more than 262144 values"
// while parsing.
inline constexpr std::size_t kMaxJsonValues = std::size_t{1} << 18;
// Largest preset file load_preset() reads (the builtins are a few KiB); larger is Error(limit)
// naming the size and the cap. Only regular files are read (Error(io) otherwise).
inline constexpr std::uintmax_t kMaxPresetFileBytes = std::uintmax_t{4} << 20;

struct Preset {
  std::string name;         // default: the builtin name or the file's stem
  std::string description;  // default: ""
  std::uint64_t seed = 1;   // world seed (JSON integer, or decimal string for > 2^53)
  WorldSettings world;
  Graph graph;
  // The "post" list: region operations applied in order to the whole map after the graph
  // (empty when absent). Validated: uplift nodes name nodes of `graph`, graph operations'
  // input nodes name post_graph_input_names().
  std::vector<RegionOp> post;
  // The "surface" section over default_surface(world): climate, biomes, splat layers, scatter
  // species (the defaults when absent). Validated, climate node ids name nodes of `graph`.
  SurfaceParams surface;
  // The "voxel" section over default_voxel(): block palette, density graph, materials, trees
  // (the defaults when absent; has_voxel says whether the preset has the section). Validated.
  VoxelParams voxel;
  bool has_voxel = false;

  std::string source;          // "builtin preset 'alpine'" or the file path, for messages
  std::string canonical_json;  // the preset after overrides, sorted keys, compact
  std::uint64_t hash = 0;      // preset_hash(canonical_json)

  // The view the modules below `preset` take (erosion's post operations, climate sources).
  GraphSource generator() const { return GraphSource{&graph, world, seed, source}; }
};

// ---------------------------------------------------------------------------------------------
// Loading

// Parses a preset document. `source` names it in messages (a file path or builtin name).
// `overrides` are "a.b.c=value" assignments applied before validation (see apply_override).
// Throws Error(parse) for malformed JSON (message has line and column), Error(invalid_argument)
// for unknown keys, wrong types, bad references, cycles and out-of-range values.
Preset parse_preset(std::string_view json_text, std::string_view source,
                    std::span<const std::string> overrides = {});

// `name_or_path` is a builtin name (see builtin_preset_names()) or a path to a JSON file.
// Throws Error(io) when the file cannot be read, otherwise as parse_preset.
Preset load_preset(std::string_view name_or_path, std::span<const std::string> overrides = {});

// `preset` with more overrides applied after its own: the same Preset (canonical JSON, hash, name)
// as loading its document with all the overrides in order. Throws like parse_preset.
Preset apply_overrides(const Preset& preset, std::span<const std::string> overrides);

// Parses a graph section given as JSON text: an object {"output": id, "nodes": {...}} with the
// node syntax of a preset's "graph" (docs/PRESETS.md). `path` is the section's JSON path for
// messages and is stored in Graph::path ("post[2]" gives "post[2].nodes.x.name: ..."); `world`
// supplies node defaults that depend on the map (radial_falloff). Node seeds are offsets, as in
// a preset's graph. Input nodes are accepted here; compile() checks their names. Throws Error
// like parse_preset.
Graph parse_graph_section(std::string_view json_text, const WorldSettings& world,
                          std::string_view source, std::string_view path);

// Applies one "a.b.c=value" override to a preset document given as JSON text and returns the
// new document (compact JSON). The value is parsed as JSON when it parses (numbers,
// true/false, null, arrays, objects, "quoted strings"), otherwise taken as a bare string.
// Path segments are object keys or, inside arrays, indices (post.0.talus_deg,
// surface.species.1.density_per_m2). The path must exist, except that a key the schema knows at
// that place may be added (with the objects on the way to it: surface.climate.lapse_rate_c_per_km
// on a preset without a surface section, an unset node parameter, an unset field of a post
// operation). A path that does not exist names the part that is missing and lists what exists
// there. Throws Error(invalid_argument).
std::string apply_override(std::string_view json_text, std::string_view assignment,
                           std::string_view source = "override");

// The override "post=[...]" that appends the default operations of `kinds` to the preset's post
// list (what `terrane generate --erode thermal,droplets` does; the preset hash then covers
// them). Throws Error(invalid_argument) for RegionOpKind::graph, which has no default.
std::string append_post_override(const Preset& preset, std::span<const RegionOpKind> kinds);

// Stable 64-bit hash of a canonical JSON text (FNV-1a 64 of its bytes).
std::uint64_t preset_hash(std::string_view canonical_json);

// Built-in presets, embedded at build time from presets/*.json: default, alpine, islands,
// dunes, canyons, ranges (in this order).
std::vector<std::string> builtin_preset_names();
// The JSON text of a builtin; throws Error(invalid_argument) listing the names when unknown.
std::string_view builtin_preset_json(std::string_view name);

// compile(preset.generator()): the preset's graph, mapped to metres by its world settings.
CompiledGraph compile(const Preset& preset);

}  // namespace terrane
