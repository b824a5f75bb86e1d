// The preset's "voxel" section: JSON -> VoxelParams over default_voxel(), validated. Scalar keys
// come from VoxelParams::fields(); the lists (blocks, top, ores, trees) replace the defaults when
// given, and "density" is a graph section evaluated over volumes (input "height_m").
#include <string>
#include <vector>

#include "preset/json_reader.hpp"
#include "preset/preset_internal.hpp"

namespace terrane::preset_detail {
namespace {

[[noreturn]] void fail_here(const std::string& where, const std::string& what) {
  JsonFields::fail(where, what);
}

const json& list(const json& v, const std::string& where) {
  if (!v.is_array()) fail_here(where, "expected an array, got " + describe(v));
  return v;
}

BlockKind parse_kind(const std::string& s, const std::string& where) {
  if (s == "opaque") return BlockKind::opaque;
  if (s == "transparent") return BlockKind::transparent;
  if (s == "liquid") return BlockKind::liquid;
  fail_here(where, "unknown block kind '" + s +
                       "'; allowed: opaque, transparent, liquid (air is block 0, implicit)");
}

std::int64_t read_row(JsonFields& f, std::string_view key, std::int64_t def) {
  std::int64_t v = def;
  f.integer(key, v);
  return v;
}

}  // namespace

namespace {

bool has_biome(const SurfaceParams& surface, const std::string& name) {
  for (const Biome& b : surface.biomes) {
    if (b.name == name) return true;
  }
  return false;
}

// The built-in top rules and trees name the built-in biomes: a preset with its own biome table
// keeps only the rules and tree biomes it has (lists the preset gives are checked as written).
void fit_defaults(const SurfaceParams& surface, VoxelParams& v, bool own_tops, bool own_trees) {
  if (!own_tops) {
    std::erase_if(v.tops, [&](const VoxelTopRule& r) { return !has_biome(surface, r.biome); });
  }
  if (!own_trees) {
    for (VoxelTree& t : v.trees) {
      std::erase_if(t.biomes, [&](const std::string& b) { return !has_biome(surface, b); });
    }
    std::erase_if(v.trees, [](const VoxelTree& t) { return t.biomes.empty(); });
  }
}

}  // namespace

VoxelParams parse_voxel(const json* voxel, const Preset& preset) {
  VoxelParams v = default_voxel(preset.world);
  const std::string root = preset.source + ": voxel";
  if (voxel == nullptr) {
    fit_defaults(preset.surface, v, false, false);
    v.validate(preset.surface, root);
    return v;
  }
  if (!voxel->is_object()) {
    fail(ErrorCategory::invalid_argument, preset.source, "voxel",
         "expected an object (blocks, density, top, ores, trees, ...), got " + describe(*voxel));
  }
  JsonFields top(*voxel, root);
  if (const json* b = top.find("blocks")) {
    const json& arr = list(*b, root + ".blocks");
    BlockPalette p;
    p.types.push_back(BlockType{"air", BlockKind::air, true, {0, 0, 0}});
    for (std::size_t k = 0; k < arr.size(); ++k) {
      const std::string where = root + ".blocks[" + std::to_string(k) + "]";
      JsonFields f(arr[k], where);
      BlockType t;
      std::string kind = "opaque";
      f.string("name", t.name);
      f.string("kind", kind);
      f.boolean("cull_same", t.cull_same);
      f.colour("colour", t.colour);
      f.finish("a block");
      if (t.name == "air") {
        fail_here(where + ".name", "'air' is block 0 and always present; do not list it");
      }
      t.kind = parse_kind(kind, where + ".kind");
      p.types.push_back(t);
    }
    v.palette = p;
  }
  if (const json* t = top.find("top")) {
    const json& arr = list(*t, root + ".top");
    v.tops.clear();
    for (std::size_t k = 0; k < arr.size(); ++k) {
      JsonFields f(arr[k], root + ".top[" + std::to_string(k) + "]");
      VoxelTopRule r;
      f.string("biome", r.biome);
      f.string("top", r.top);
      r.soil = r.top;
      f.string("soil", r.soil);
      f.finish("a top rule");
      v.tops.push_back(r);
    }
  }
  if (const json* o = top.find("ores")) {
    const json& arr = list(*o, root + ".ores");
    v.ores.clear();
    for (std::size_t k = 0; k < arr.size(); ++k) {
      JsonFields f(arr[k], root + ".ores[" + std::to_string(k) + "]");
      VoxelOreRule r;
      r.noise.type = NoiseType::opensimplex2;
      r.noise.frequency = 0.1;
      r.noise.seed = 100 + k;
      f.string("block", r.block);
      f.noise("noise", r.noise);
      f.number("threshold", r.threshold);
      r.min_y = read_row(f, "min_y", r.min_y);
      r.max_y = read_row(f, "max_y", r.max_y);
      f.finish("an ore rule");
      v.ores.push_back(r);
    }
  }
  if (const json* t = top.find("trees")) {
    const json& arr = list(*t, root + ".trees");
    v.trees.clear();
    for (std::size_t k = 0; k < arr.size(); ++k) {
      const std::string where = root + ".trees[" + std::to_string(k) + "]";
      JsonFields f(arr[k], where);
      VoxelTree tree;
      f.string("name", tree.name);
      if (const json* b = f.find("biomes")) {
        const json& names = list(*b, where + ".biomes");
        for (std::size_t n = 0; n < names.size(); ++n) {
          if (!names[n].is_string()) {
            fail_here(where + ".biomes[" + std::to_string(n) + "]",
                      "expected a biome name, got " + describe(names[n]));
          }
          tree.biomes.push_back(names[n].get<std::string>());
        }
      }
      f.string("trunk", tree.trunk);
      f.string("leaves", tree.leaves);
      f.integer("height_min", tree.height_min);
      f.integer("height_max", tree.height_max);
      f.integer("crown_radius", tree.crown_radius);
      f.integer("spacing", tree.spacing);
      f.number("probability", tree.probability);
      f.finish("a tree");
      v.trees.push_back(tree);
    }
  }
  if (const json* d = top.find("density")) {
    if (!d->is_object()) {
      fail_here(root + ".density",
                "expected a graph object {\"output\": id, \"nodes\": {...}}, got " + describe(*d));
    }
    v.density = parse_graph(*d, preset.world, preset.source, "voxel.density");
    v.density.validate(preset.source);
    v.has_density = true;
  }
  top.fields(VoxelParams::fields(), v);
  top.finish("voxel");
  fit_defaults(preset.surface, v, voxel->contains("top"), voxel->contains("trees"));
  v.validate(preset.surface, root);
  if (v.has_density) {
    // Names, node kinds and the input: compile once here so that a bad graph fails at load.
    const std::string_view inputs[] = {"height_m"};
    (void)compile_volume(v.density, preset.world, preset.seed, preset.source, inputs);
  }
  return v;
}

}  // namespace terrane::preset_detail
