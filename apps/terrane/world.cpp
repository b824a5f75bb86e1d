// `terrane world new | edit | info` (docs/EDIT.md): world files of the store module
// (terrane/store.hpp). `edit` applies brush strokes given on the command line (each starting
// with --brush) or in a JSON list, and commits them together: height brushes (raise, lower,
// smooth, flatten, noise) at X,Z, block brushes (dig, fill, restore) at X,Y,Z, scatter
// instance brushes (fell, plant, regrow) at X,Z and splat paint brushes (paint, unpaint) at X,Z.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "terrane/schema.hpp"
#include "terrane/store.hpp"
#include "terrane/world.hpp"

namespace terrane::cli {
namespace {

using nlohmann::json;

std::string metres(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", double(v));
  return buf;
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

// A stroke of either layer: a height brush, or a block brush (its block named, resolved against
// the world's palette once the world is open).
// An instance brush: fell (remove the instances within the radius, regrowing after `regrow_s`
// when > 0), plant (add one of `species` at the centre), regrow (drop the overrides within the
// radius: the procedural instances again).
struct InstanceStroke {
  std::string kind;  // "fell", "plant", "regrow"
  double x_m = 0.0, z_m = 0.0;
  double radius_m = 10.0;
  double regrow_s = 0.0;
  double yaw_deg = 0.0;
  std::string species;
};

bool is_instance_brush(const std::string& name) {
  return name == "fell" || name == "plant" || name == "regrow";
}

struct Stroke {
  bool block = false;
  bool instance = false;
  bool paint = false;
  HeightBrush height;
  BlockBrush blocks;
  std::string block_name;
  InstanceStroke instances;
  SplatBrush splat;
  std::string layer_name;  // paint's layer, resolved against the preset's splat layers
};

const char* kind_name(const Stroke& s) {
  if (s.instance) return s.instances.kind.c_str();
  if (s.paint) return to_string(s.splat.kind);
  return s.block ? to_string(s.blocks.kind) : to_string(s.height.kind);
}

double parse_real(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v)) {
    throw Error(ErrorCategory::invalid_argument, where + ": '" + text + "' is not a finite number");
  }
  return v;
}

// One stroke's setting by name (the options without their dashes, the JSON list's keys).
void set_field(Stroke& stroke, const std::string& key, const std::string& value,
               const std::string& where) {
  HeightBrush& b = stroke.height;
  if (key == "brush") {
    stroke.instance = false;
    stroke.paint = false;
    if (const auto paint_kind = parse_paint_kind(value)) {
      stroke.block = false;
      stroke.paint = true;
      stroke.splat.kind = *paint_kind;
    } else if (const auto kind = parse_brush_kind(value)) {
      stroke.block = false;
      b.kind = *kind;
    } else if (is_instance_brush(value)) {
      stroke.block = false;
      stroke.instance = true;
      stroke.instances.kind = value;
    } else if (const auto block_kind = parse_block_brush_kind(value)) {
      stroke.block = true;
      stroke.blocks.kind = *block_kind;
    } else {
      throw Error(ErrorCategory::invalid_argument,
                  where + ": '" + value +
                      "' is not a brush; expected raise, lower, smooth, flatten, noise (height) "
                      "or dig, fill, restore (blocks) or fell, plant, regrow (scatter instances) "
                      "or paint, unpaint (splat paint)");
    }
    return;
  }
  if (stroke.paint) {
    SplatBrush& p = stroke.splat;
    if (key == "at") {
      const std::size_t comma = value.find(',');
      if (comma == std::string::npos || value.find(',', comma + 1) != std::string::npos) {
        throw Error(ErrorCategory::invalid_argument,
                    where + ": --at '" + value + "': a paint brush's centre is X,Z");
      }
      p.x_m = parse_real(value.substr(0, comma), where + ": --at");
      p.z_m = parse_real(value.substr(comma + 1), where + ": --at");
    } else if (key == "radius") {
      p.radius_m = parse_real(value, where + ": --radius");
    } else if (key == "strength") {
      p.strength = parse_real(value, where + ": --strength");
    } else if (key == "falloff") {
      p.falloff_start = parse_real(value, where + ": --falloff");
    } else if (key == "layer" && p.kind == PaintKind::paint) {
      stroke.layer_name = value;
    } else {
      throw Error(ErrorCategory::invalid_argument,
                  where + ": --" + key + " has no meaning for the paint brush " +
                      to_string(p.kind) +
                      " (paint takes --at X,Z, --layer, --radius, --strength, --falloff; unpaint "
                      "the same without --layer)");
    }
    return;
  }
  if (key == "layer") {
    throw Error(ErrorCategory::invalid_argument,
                where + ": --layer belongs to the paint brush (paint)");
  }
  if (stroke.instance) {
    InstanceStroke& t = stroke.instances;
    if (key == "at") {
      const std::size_t comma = value.find(',');
      if (comma == std::string::npos || value.find(',', comma + 1) != std::string::npos) {
        throw Error(ErrorCategory::invalid_argument,
                    where + ": --at '" + value + "': an instance brush's centre is X,Z");
      }
      t.x_m = parse_real(value.substr(0, comma), where + ": --at");
      t.z_m = parse_real(value.substr(comma + 1), where + ": --at");
    } else if (key == "radius" && t.kind != "plant") {
      t.radius_m = parse_real(value, where + ": --radius");
    } else if (key == "regrow" && t.kind == "fell") {
      t.regrow_s = parse_real(value, where + ": --regrow");
    } else if (key == "species" && t.kind == "plant") {
      t.species = value;
    } else if (key == "yaw" && t.kind == "plant") {
      t.yaw_deg = parse_real(value, where + ": --yaw");
    } else {
      throw Error(ErrorCategory::invalid_argument,
                  where + ": --" + key + " has no meaning for the instance brush " + t.kind +
                      " (fell takes --at X,Z, --radius, --regrow; plant --at X,Z, --species, "
                      "--yaw; regrow --at X,Z, --radius)");
    }
    return;
  }
  if (key == "species" || key == "yaw" || key == "regrow") {
    throw Error(ErrorCategory::invalid_argument,
                where + ": --" + key + " belongs to the instance brushes (fell, plant, regrow)");
  }
  if (stroke.block) {
    BlockBrush& k = stroke.blocks;
    if (key == "at") {
      const std::size_t c1 = value.find(','),
                        c2 = c1 == std::string::npos ? c1 : value.find(',', c1 + 1);
      if (c2 == std::string::npos) {
        throw Error(ErrorCategory::invalid_argument,
                    where + ": --at '" + value + "': a block brush's centre is X,Y,Z");
      }
      k.x_m = parse_real(value.substr(0, c1), where + ": --at");
      k.y_m = parse_real(value.substr(c1 + 1, c2 - c1 - 1), where + ": --at");
      k.z_m = parse_real(value.substr(c2 + 1), where + ": --at");
    } else if (key == "radius") {
      k.radius_m = parse_real(value, where + ": --radius");
    } else if (key == "block") {
      stroke.block_name = value;
    } else {
      throw Error(ErrorCategory::invalid_argument,
                  where + ": --" + key + " has no meaning for the block brush " +
                      to_string(k.kind) + " (it takes --at X,Y,Z, --radius and, to fill, --block)");
    }
    return;
  }
  if (key == "block") {
    throw Error(ErrorCategory::invalid_argument,
                where + ": --block belongs to the block brushes (dig, fill, restore), not " +
                    to_string(b.kind));
  }
  if (key == "at") {
    const std::size_t comma = value.find(',');
    if (comma == std::string::npos) {
      throw Error(ErrorCategory::invalid_argument, where + ": --at '" + value + "': expected X,Z");
    }
    b.x_m = parse_real(value.substr(0, comma), where + ": --at");
    b.z_m = parse_real(value.substr(comma + 1), where + ": --at");
  } else if (key == "radius") {
    b.radius_m = parse_real(value, where + ": --radius");
  } else if (key == "strength") {
    b.strength_m = parse_real(value, where + ": --strength");
  } else if (key == "falloff") {
    b.falloff_start = parse_real(value, where + ": --falloff");
  } else if (key == "target") {
    b.target_m = parse_real(value, where + ": --target");
  } else if (key == "noise-frequency") {
    b.noise.frequency = parse_real(value, where + ": --noise-frequency");
  } else if (key == "noise-seed") {
    const double s = parse_real(value, where + ": --noise-seed");
    if (s < 0.0 || s > 9.0e15 || std::floor(s) != s) {
      throw Error(ErrorCategory::invalid_argument,
                  where + ": --noise-seed '" + value + "': expected an integer 0..9e15");
    }
    b.noise.seed = std::uint64_t(s);
  } else {
    throw Error(ErrorCategory::invalid_argument, where + ": unknown setting '" + key + "'");
  }
}

// Strokes from the command line: each --brush starts one, the settings after it belong to it.
std::vector<Stroke> strokes_from_options(
    const std::vector<std::pair<std::string, std::string>>& ordered) {
  std::vector<Stroke> strokes;
  std::vector<bool> placed;
  for (const auto& [key, value] : ordered) {
    if (key == "brush") {
      strokes.emplace_back();
      placed.push_back(false);
    } else if (strokes.empty()) {
      throw Error(ErrorCategory::invalid_argument,
                  "--" + key + " before any --brush: each stroke starts with --brush KIND");
    }
    const std::string where = "stroke " + std::to_string(strokes.size());
    set_field(strokes.back(), key, value, where);
    if (key == "at") placed.back() = true;
  }
  for (std::size_t k = 0; k < strokes.size(); ++k) {
    if (!placed[k]) {
      throw Error(ErrorCategory::invalid_argument,
                  "stroke " + std::to_string(k + 1) + " (--brush " + kind_name(strokes[k]) +
                      ") has no --at " + (strokes[k].block ? "X,Y,Z" : "X,Z"));
    }
  }
  return strokes;
}

// Strokes from a JSON list: [{"brush": "raise", "at": [x, z], "radius": 20, ...},
// {"brush": "fill", "at": [x, y, z], "radius": 3, "block": "stone"}, ...].
std::vector<Stroke> strokes_from_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCategory::io, "--edits " + path + ": cannot read the file");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw Error(ErrorCategory::parse, "--edits " + path + ": " + e.what());
  }
  if (!doc.is_array()) {
    throw Error(ErrorCategory::parse, "--edits " + path + ": expected a JSON list of strokes");
  }
  std::vector<Stroke> strokes;
  for (std::size_t k = 0; k < doc.size(); ++k) {
    const std::string where = "--edits " + path + ": stroke " + std::to_string(k + 1);
    const json& s = doc[k];
    if (!s.is_object() || !s.contains("brush") || !s.contains("at")) {
      throw Error(ErrorCategory::parse, where + ": expected an object with \"brush\" and \"at\"");
    }
    Stroke b;
    // The brush first: it says which settings the stroke has.
    if (!s["brush"].is_string()) {
      throw Error(ErrorCategory::parse, where + ": \"brush\" has the wrong type");
    }
    set_field(b, "brush", s["brush"].get<std::string>(), where);
    for (const auto& [key, value] : s.items()) {
      std::string text;
      if (key == "brush") {
        continue;
      } else if (key == "at" && value.is_array() && value.size() == (b.block ? 3u : 2u) &&
                 std::all_of(value.begin(), value.end(),
                             [](const json& v) { return v.is_number(); })) {
        for (const json& v : value) {
          if (!text.empty()) text += ',';
          text += format_number(v.get<double>());
        }
      } else if ((key == "block" || key == "species" || key == "layer") && value.is_string()) {
        text = value.get<std::string>();
      } else if (key != "at" && key != "block" && key != "species" && key != "layer" &&
                 value.is_number()) {
        text = format_number(value.get<double>());
      } else {
        throw Error(ErrorCategory::parse, where + ": \"" + key + "\" has the wrong type");
      }
      const std::string name = key == "noise_frequency" ? "noise-frequency"
                               : key == "noise_seed"    ? "noise-seed"
                                                        : key;
      set_field(b, name, text, where);
    }
    strokes.push_back(b);
  }
  return strokes;
}

json stroke_json(const Stroke& stroke) {
  if (stroke.paint) {
    const SplatBrush& p = stroke.splat;
    json s = {{"brush", to_string(p.kind)},
              {"at", {p.x_m, p.z_m}},
              {"radius", p.radius_m},
              {"strength", p.strength},
              {"falloff", p.falloff_start}};
    if (p.kind == PaintKind::paint) s["layer"] = stroke.layer_name;
    return s;
  }
  if (stroke.instance) {
    const InstanceStroke& t = stroke.instances;
    json s = {{"brush", t.kind}, {"at", {t.x_m, t.z_m}}};
    if (t.kind == "plant") {
      s["species"] = t.species;
      s["yaw"] = t.yaw_deg;
    } else {
      s["radius"] = t.radius_m;
    }
    if (t.kind == "fell") s["regrow"] = t.regrow_s;
    return s;
  }
  if (stroke.block) {
    const BlockBrush& k = stroke.blocks;
    json s = {{"brush", to_string(k.kind)}, {"at", {k.x_m, k.y_m, k.z_m}}, {"radius", k.radius_m}};
    if (k.kind == BlockBrushKind::fill) s["block"] = stroke.block_name;
    return s;
  }
  const HeightBrush& b = stroke.height;
  json s = {{"brush", to_string(b.kind)},
            {"at", {b.x_m, b.z_m}},
            {"radius", b.radius_m},
            {"strength", b.strength_m},
            {"falloff", b.falloff_start}};
  if (b.kind == BrushKind::flatten) s["target"] = b.target_m;
  if (b.kind == BrushKind::noise) {
    s["noise_frequency"] = b.noise.frequency;
    s["noise_seed"] = b.noise.seed;
  }
  return s;
}

// Applies an instance stroke over the world's instances as its edits leave them so far; returns
// whether anything changed.
bool apply_instance_stroke(const WorldStore& w, const InstanceStroke& t, const HeightEdits& heights,
                           InstanceEdits& instances, std::unique_ptr<ChunkGenerator>& generator) {
  const Preset& preset = w.preset();
  if (preset.surface.species.empty()) {
    throw Error(ErrorCategory::invalid_argument,
                "the preset '" + preset.name + "' scatters no species: nothing to " + t.kind);
  }
  if (!generator) {
    // Which instances a disc holds (ids, positions) does not depend on the chunk size, so the
    // default chunks serve any world (its tile_cells need not be a power of two).
    ChunkSettings cs;
    cs.surface = true;
    generator = std::make_unique<ChunkGenerator>(preset, cs);
  }
  if (t.kind == "plant") {
    ScatterInstance p;
    p.x_m = t.x_m;
    p.z_m = t.z_m;
    p.yaw_deg = float(t.yaw_deg);
    if (t.species.empty())
      throw Error(ErrorCategory::invalid_argument, "plant needs --species NAME");
    std::string names;
    p.species = -1;
    for (std::size_t k = 0; k < preset.surface.species.size(); ++k) {
      if (preset.surface.species[k].name == t.species) p.species = int(k);
      names += (k ? ", " : "") + preset.surface.species[k].name;
    }
    if (p.species < 0) {
      throw Error(ErrorCategory::invalid_argument,
                  "--species '" + t.species + "' is not a species of the preset (" + names + ")");
    }
    return !instances.add(p).empty();
  }
  const std::vector<ScatterInstance> near =
      generator->instances_near(t.x_m, t.z_m, t.radius_m, &heights.current(), &instances.current());
  if (t.kind == "fell") return !instances.remove(near, t.regrow_s).empty();
  // regrow: every override whose position lies within the radius.
  std::vector<std::uint64_t> ids;
  for (const auto& entry : instances.current().chunks()) {
    for (const InstanceOverride& o : *entry.second) {
      if (std::hypot(o.x_m - t.x_m, o.z_m - t.z_m) <= t.radius_m) ids.push_back(o.id);
    }
  }
  return !instances.restore(ids).empty();
}

// The index of a splat layer named `name` in the preset's surface layers.
int splat_layer(const Preset& preset, const std::string& name) {
  if (name.empty()) throw Error(ErrorCategory::invalid_argument, "paint needs --layer NAME");
  std::string names;
  const auto& layers = preset.surface.layers;
  for (std::size_t k = 0; k < layers.size(); ++k) {
    if (layers[k].name == name) return int(k);
    names += (k ? ", " : "") + layers[k].name;
  }
  throw Error(ErrorCategory::invalid_argument,
              "--layer '" + name + "' is not a splat layer of the preset (" + names + ")");
}

void print_info(const WorldStore& w, bool as_json, std::size_t log_count) {
  const WorldInfo& i = w.info();
  const auto log = w.log(log_count);
  if (as_json) {
    json entries = json::array();
    for (const WorldLogEntry& e : log) {
      entries.push_back({{"seq", e.seq}, {"time", e.unix_time}, {"description", e.description}});
    }
    const json j = {{"path", i.path},
                    {"schema_version", i.schema_version},
                    {"created_by", i.created_by},
                    {"written_by", i.written_by},
                    {"fingerprint", hex64(i.fingerprint)},
                    {"preset", i.preset_name},
                    {"preset_hash", hex64(i.preset_hash)},
                    {"seed", i.seed},
                    {"cell_size_m", i.cell_size_m},
                    {"tile_cells", i.tile_cells},
                    {"commits", i.commits},
                    {"edited_chunks", i.height_tiles},
                    {"block_chunks", i.block_chunks},
                    {"block_overrides", i.block_overrides},
                    {"instance_chunks", i.instance_chunks},
                    {"instance_overrides", i.instance_overrides},
                    {"paint_tiles", i.paint_tiles},
                    {"painted_vertices", i.painted_vertices},
                    {"edit_bytes", i.blob_bytes},
                    {"layer_bytes",
                     {{"heights", i.layer_bytes[0]},
                      {"blocks", i.layer_bytes[1]},
                      {"instances", i.layer_bytes[2]},
                      {"paint", i.layer_bytes[3]}}},
                    {"file_bytes", i.file_bytes},
                    {"delta_min_m", i.delta_lo_m},
                    {"delta_max_m", i.delta_hi_m},
                    {"log", entries}};
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("world %s\n", i.path.c_str());
  std::printf("  preset      %s (hash %s), seed %llu, %s m cells\n", i.preset_name.c_str(),
              hex64(i.preset_hash).c_str(), static_cast<unsigned long long>(i.seed),
              format_number(i.cell_size_m).c_str());
  std::printf("  generator   fingerprint %s; created by terrane %s, last written by %s\n",
              hex64(i.fingerprint).c_str(), i.created_by.c_str(), i.written_by.c_str());
  const std::size_t height_bytes = i.layer_bytes[0];
  std::printf(
      "  edits       %zu edited chunks (%d x %d vertices each), %zu bytes compressed "
      "(%.0f per chunk); height deltas %s..%s m\n",
      i.height_tiles, i.tile_cells, i.tile_cells, height_bytes,
      i.height_tiles ? double(height_bytes) / double(i.height_tiles) : 0.0,
      metres(i.delta_lo_m).c_str(), metres(i.delta_hi_m).c_str());
  std::printf("  blocks      %zu overridden blocks in %zu block chunks, %zu bytes compressed\n",
              i.block_overrides, i.block_chunks, i.layer_bytes[1]);
  const InstanceEditSnapshot& inst = w.instance_edits();
  std::printf(
      "  instances   %zu overrides (%zu removed, %zu with a state, %zu added) in %zu chunks, %zu "
      "bytes compressed\n",
      i.instance_overrides, inst.count(InstanceChange::removed), inst.count(InstanceChange::state),
      inst.count(InstanceChange::added), i.instance_chunks, i.layer_bytes[2]);
  std::printf("  paint       %zu painted vertices in %zu tiles, %zu bytes compressed\n",
              i.painted_vertices, i.paint_tiles, i.layer_bytes[3]);
  std::printf("  file        %zu bytes, schema %d, %llu commits\n", i.file_bytes, i.schema_version,
              static_cast<unsigned long long>(i.commits));
  for (const WorldLogEntry& e : log) {
    char when[32] = "?";
    const std::time_t t = std::time_t(e.unix_time);
    std::tm tm{};
    if (gmtime_r(&t, &tm) != nullptr) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    std::printf("  #%llu  %s UTC  %s\n", static_cast<unsigned long long>(e.seq), when,
                e.description.c_str());
  }
}

}  // namespace

int run_world(const WorldOptions& opt) {
  if (opt.action == "new") {
    std::vector<std::string> overrides = opt.overrides;
    if (opt.has_seed) overrides.push_back("seed=" + std::to_string(opt.seed));
    const Preset preset = load_preset(opt.preset, overrides);
    WorldCreateOptions options;
    options.overwrite = opt.overwrite;
    options.tile_cells = opt.tile_cells;
    const WorldStore w = WorldStore::create(opt.file, preset, options);
    std::printf("world %s: created for preset '%s', seed %llu, %s m cells (generator %s)\n",
                opt.file.c_str(), preset.name.c_str(), static_cast<unsigned long long>(preset.seed),
                format_number(preset.world.cell_size_m).c_str(),
                hex64(w.info().fingerprint).c_str());
    return 0;
  }
  if (opt.action == "info") {
    WorldOpenOptions options;
    options.read_only = true;
    const WorldStore w = WorldStore::open(opt.file, options);
    if (opt.check) {
      const std::string problems = w.check();
      if (problems != "ok") {
        // The report lists one problem per line; the error itself is one line.
        std::fprintf(stderr, "%s\n", problems.c_str());
        throw Error(ErrorCategory::io,
                    "world " + opt.file + " is damaged (the problems are listed above)");
      }
    }
    print_info(w, opt.json, std::size_t(opt.log));
    if (opt.check && !opt.json) std::printf("  check       ok (integrity_check, every blob)\n");
    return 0;
  }
  // edit
  std::vector<Stroke> strokes = strokes_from_options(opt.brush_settings);
  if (!opt.edits_json.empty()) {
    std::vector<Stroke> more = strokes_from_json(opt.edits_json);
    strokes.insert(strokes.end(), more.begin(), more.end());
  }
  if (strokes.empty()) {
    throw Error(ErrorCategory::invalid_argument,
                "world edit: no stroke given (--brush KIND --at X,Z ..., or --edits FILE.json)");
  }
  WorldOpenOptions options;
  options.accept_generator_change = opt.accept_generator_change;
  WorldStore w = WorldStore::open(opt.file, options);
  const CompiledGraph base = compile(w.preset());
  HeightEdits edits(w.height_edits());
  BlockEdits blocks(w.block_edits());
  InstanceEdits instances(w.instance_edits());
  SplatPaint paint(*w.paint());
  // The world's level-0 chunks with their scatter (made on the first instance stroke).
  std::unique_ptr<ChunkGenerator> generator;
  const BlockPalette& palette = w.preset().voxel.palette;
  json list = json::array();
  std::size_t touched = 0;
  for (std::size_t k = 0; k < strokes.size(); ++k) {
    try {
      Stroke& s = strokes[k];
      if (s.instance) {
        touched += apply_instance_stroke(w, s.instances, edits, instances, generator) ? 1 : 0;
      } else if (s.paint) {
        if (s.splat.kind == PaintKind::paint) s.splat.layer = splat_layer(w.preset(), s.layer_name);
        touched += paint.apply(s.splat).empty() ? 0 : 1;
      } else if (!s.block) {
        touched += edits.apply(s.height, base).empty() ? 0 : 1;
      } else {
        if (s.blocks.kind == BlockBrushKind::fill) {
          if (s.block_name.empty()) {
            throw Error(ErrorCategory::invalid_argument, "fill needs --block NAME");
          }
          std::string names;
          bool found = false;
          for (std::size_t id = 0; id < palette.types.size(); ++id) {
            if (palette.types[id].name == s.block_name) {
              s.blocks.block = std::uint16_t(id);
              found = true;
            }
            if (id > 0) names += ", ";
            names += palette.types[id].name;
          }
          if (!found) {
            throw Error(ErrorCategory::invalid_argument,
                        "--block '" + s.block_name + "' is not a block of the world's palette (" +
                            names + ")");
          }
        } else if (!s.block_name.empty()) {
          throw Error(ErrorCategory::invalid_argument,
                      std::string("--block has no meaning for ") + to_string(s.blocks.kind));
        }
        touched += blocks.apply(s.blocks).empty() ? 0 : 1;
      }
    } catch (const Error& e) {
      throw Error(e.category(),
                  "stroke " + std::to_string(k + 1) + ": " + e.what() + " (nothing was committed)");
    }
    list.push_back(stroke_json(strokes[k]));
  }
  const std::string description = opt.message.empty() ? list.dump() : opt.message;
  const WorldCommit c = w.commit(
      WorldEdits{edits.snapshot(), blocks.snapshot(), instances.snapshot(), paint.snapshot()},
      description);
  std::printf(
      "world %s: commit #%llu, %zu stroke(s) (%zu changed the world): %zu chunk(s) written "
      "(%zu bytes), %zu cleared; %zu edited chunks in all, deltas %s..%s m; %zu overridden "
      "blocks, %zu instance overrides, %zu painted vertices\n",
      opt.file.c_str(), static_cast<unsigned long long>(c.seq), strokes.size(), touched,
      c.tiles_written, c.bytes_written, c.tiles_deleted, w.info().height_tiles,
      metres(w.info().delta_lo_m).c_str(), metres(w.info().delta_hi_m).c_str(),
      w.info().block_overrides, w.info().instance_overrides, w.info().painted_vertices);
  return 0;
}

}  // namespace terrane::cli
