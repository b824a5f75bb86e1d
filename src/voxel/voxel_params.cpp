// The voxel section's parameters: schema table, validation (ranges, names of blocks and biomes)
// and the default section (palette, top rules for the default biomes, ores, trees).
#include <algorithm>
#include <cmath>
#include <string>

#include "terrane/schema.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace {

#define REF TERRANE_FIELD_REF

[[noreturn]] void fail(std::string_view path, const std::string& what) {
  throw Error(ErrorCategory::invalid_argument, std::string(path) + ": " + what);
}

bool is_power_of_two(int v) {
  return v > 0 && (v & (v - 1)) == 0;
}

// The id of block `name` in the palette, or an error naming `path` and the known blocks.
void check_block(const BlockPalette& palette, const std::string& name, const std::string& path) {
  for (const BlockType& t : palette.types) {
    if (t.name == name) return;
  }
  std::vector<std::string_view> names;
  for (const BlockType& t : palette.types) names.push_back(t.name);
  std::string msg = "unknown block '" + name + "'";
  const std::string_view guess = closest_name(name, names);
  if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
  fail(path, msg + "; blocks of voxel.blocks: " + join_names(names));
}

void check_biome(const SurfaceParams& surface, const std::string& name, const std::string& path) {
  for (const Biome& b : surface.biomes) {
    if (b.name == name) return;
  }
  std::vector<std::string_view> names;
  for (const Biome& b : surface.biomes) names.push_back(b.name);
  std::string msg = "unknown biome '" + name + "'";
  const std::string_view guess = closest_name(name, names);
  if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
  fail(path, msg + "; biomes of the surface section: " + join_names(names));
}

BlockType block(std::string name, BlockKind kind, std::uint8_t r, std::uint8_t g, std::uint8_t b,
                bool cull_same = true) {
  BlockType t;
  t.name = std::move(name);
  t.kind = kind;
  t.cull_same = cull_same;
  t.colour = {r, g, b};
  return t;
}

// A small builder for the default density graph.
struct GraphBuilder {
  Graph g;
  int node(std::string id, NodeKind kind, std::vector<NodeInput> inputs = {}) {
    GraphNode n;
    n.id = std::move(id);
    n.type = to_string(kind);
    n.kind = kind;
    n.inputs = std::move(inputs);
    g.nodes.push_back(std::move(n));
    return int(g.nodes.size()) - 1;
  }
  GraphNode& at(int k) { return g.nodes[std::size_t(k)]; }
  static NodeInput in(int node) { return NodeInput{node, 0.0}; }
  static NodeInput c(double v) { return NodeInput{-1, v}; }
  int noise(std::string id, double frequency, std::uint64_t seed, int octaves) {
    const int k = node(std::move(id), NodeKind::noise);
    NoiseParams& p = at(k).noise;
    p.type = NoiseType::opensimplex2;
    p.frequency = frequency;
    p.seed = seed;
    p.fractal = octaves > 1 ? FractalType::fbm : FractalType::none;
    p.octaves = octaves;
    at(k).type = octaves > 1 ? "fbm" : "opensimplex2";
    return k;
  }
  int scale_bias(std::string id, int input, double scale, double bias) {
    const int k = node(std::move(id), NodeKind::scale_bias, {in(input)});
    at(k).scale = scale;
    at(k).bias = bias;
    return k;
  }
};

// The default density (metres of "solidity"; solid where > 0), read by docs/PRESETS.md:
//   surface = height_m - y + 6 * warped_fbm3(x, y, z)      overhangs and arches at the surface
//   cheese  = 16 - 40 * fbm3_cave + max(12 - (height_m - y), 0)
//             (large caverns where fbm3_cave > 0.4, kept 12 m below the 2D surface)
//   tunnel  = 200 * (a^2 + b^2) - 4                          (spaghetti: where two noises of
//             1/64 m are both near zero, a tube about 8 m wide that also breaks through the
//             surface: the caves' entrances)
//   d = min(surface, cheese, tunnel)
Graph default_density() {
  GraphBuilder b;
  using B = GraphBuilder;
  const int height = b.node("height", NodeKind::input);
  b.at(height).input_name = "height_m";
  const int y = b.node("y", NodeKind::y);
  const int depth = b.node("depth", NodeKind::sub, {B::in(height), B::in(y)});
  const int rough = b.noise("overhang_noise", 1.0 / 48.0, 11, 2);
  const int warp = b.node("overhang_warp", NodeKind::warp, {B::in(rough)});
  WarpParams& w = b.at(warp).warp;
  w.basis = NoiseType::opensimplex2;
  w.frequency = 1.0 / 64.0;
  w.amplitude_m = 10.0;
  w.seed = 12;
  const int overhang = b.scale_bias("overhang", warp, 6.0, 0.0);
  const int surface = b.node("surface", NodeKind::add, {B::in(depth), B::in(overhang)});
  const int cave = b.noise("cheese_noise", 1.0 / 64.0, 13, 2);
  const int cheese_core = b.scale_bias("cheese_core", cave, -40.0, 16.0);
  const int near_top = b.scale_bias("near_top", depth, -1.0, 12.0);
  const int roof = b.node("cheese_roof", NodeKind::max, {B::in(near_top), B::c(0.0)});
  const int cheese = b.node("cheese", NodeKind::add, {B::in(cheese_core), B::in(roof)});
  const int na = b.noise("tunnel_a", 1.0 / 64.0, 14, 1);
  const int nb = b.noise("tunnel_b", 1.0 / 64.0, 15, 1);
  const int a2 = b.node("tunnel_a2", NodeKind::mul, {B::in(na), B::in(na)});
  const int b2 = b.node("tunnel_b2", NodeKind::mul, {B::in(nb), B::in(nb)});
  const int r2 = b.node("tunnel_r2", NodeKind::add, {B::in(a2), B::in(b2)});
  const int tunnel = b.scale_bias("tunnel", r2, 200.0, -4.0);
  const int d = b.node("density", NodeKind::min, {B::in(surface), B::in(cheese), B::in(tunnel)});
  b.g.output = d;
  b.g.path = "voxel.density";
  return b.g;
}

}  // namespace

std::span<const Field<VoxelParams>> VoxelParams::fields() {
  using P = VoxelParams;
  static const Field<P> table[] = {
      {"chunk_size", REF(P, chunk_size), Range::closed(8, 32), FieldFlag::unchecked},
      {"block_size_m", REF(P, block_size_m), Range::open_lo(0.0, 100.0)},
      {"density_step", REF(P, density_step), Range::closed(1, 8), FieldFlag::unchecked},
      {"min_y", REF(P, min_y), Range::closed(-1e6, 1e6)},
      {"max_y", REF(P, max_y), Range::closed(-1e6, 1e6)},
      {"stone", REF(P, stone)},
      {"water", REF(P, water)},
      {"ice", REF(P, ice)},
      {"default_top", REF(P, default_top)},
      {"default_soil", REF(P, default_soil)},
      {"soil_depth", REF(P, soil_depth), Range::closed(0, 16)},
      {"ice_below_c", REF(P, ice_below_c), Range::closed(-100.0, 100.0)},
      {"remove_floating", REF(P, remove_floating)},
      {"surface_band_m", REF(P, surface_band_m), Range::closed(0.0, 1e4)},
      {"lakes", REF(P, lakes)},
      {"lake_tile", REF(P, lake_tile), Range::closed(16, 4096)},
      {"lake_margin", REF(P, lake_margin), Range::closed(8, 4096)},
      {"min_lake_depth_m", REF(P, min_lake_depth_m), Range::closed(0.0, 1e4)},
  };
  return table;
}

void VoxelParams::validate(const SurfaceParams& surface, std::string_view path) const {
  const std::string p(path);
  check_fields(*this, fields(), p);
  if (chunk_size != 8 && chunk_size != 16 && chunk_size != 32) {
    fail(p + ".chunk_size",
         std::to_string(chunk_size) +
             " is not an allowed chunk size: a power of two 8, 16 or 32 (the padded chunk must fit "
             "the mesher's 64-bit column masks with room for its border)");
  }
  if (!is_power_of_two(density_step) || density_step > 8 || density_step > chunk_size) {
    fail(p + ".density_step", std::to_string(density_step) +
                                  " is not allowed: 1, 2, 4 or 8 blocks, at most chunk_size (" +
                                  std::to_string(chunk_size) + ")");
  }
  if (lake_margin > lake_tile) {
    fail(p + ".lake_margin", std::to_string(lake_margin) + " is more than lake_tile (" +
                                 std::to_string(lake_tile) + ")");
  }
  if (min_y >= max_y) {
    fail(p + ".max_y",
         std::to_string(max_y) + " must be greater than min_y (" + std::to_string(min_y) + ")");
  }
  try {
    palette.validate();
  } catch (const Error& e) {
    fail(p + ".blocks", e.what());
  }
  check_block(palette, stone, p + ".stone");
  check_block(palette, water, p + ".water");
  check_block(palette, ice, p + ".ice");
  check_block(palette, default_top, p + ".default_top");
  check_block(palette, default_soil, p + ".default_soil");
  for (std::size_t k = 0; k < tops.size(); ++k) {
    const std::string w = p + ".top[" + std::to_string(k) + "]";
    check_biome(surface, tops[k].biome, w + ".biome");
    check_block(palette, tops[k].top, w + ".top");
    check_block(palette, tops[k].soil, w + ".soil");
  }
  for (std::size_t k = 0; k < ores.size(); ++k) {
    const std::string w = p + ".ores[" + std::to_string(k) + "]";
    check_block(palette, ores[k].block, w + ".block");
    ores[k].noise.validate(w + ".noise");
    check_range(w + ".threshold", ores[k].threshold, Range::closed(-1.0, 1.0));
    if (ores[k].min_y > ores[k].max_y) {
      fail(w + ".max_y", std::to_string(ores[k].max_y) + " is below min_y (" +
                             std::to_string(ores[k].min_y) + ")");
    }
  }
  for (std::size_t k = 0; k < trees.size(); ++k) {
    const VoxelTree& t = trees[k];
    const std::string w = p + ".trees[" + std::to_string(k) + "]";
    if (t.name.empty()) fail(w + ".name", "a tree needs a name");
    for (std::size_t b = 0; b < t.biomes.size(); ++b) {
      check_biome(surface, t.biomes[b], w + ".biomes[" + std::to_string(b) + "]");
    }
    check_block(palette, t.trunk, w + ".trunk");
    check_block(palette, t.leaves, w + ".leaves");
    check_range(w + ".height_min", std::int64_t(t.height_min), 1, 24);
    check_range(w + ".height_max", std::int64_t(t.height_max), t.height_min, 24);
    check_range(w + ".crown_radius", std::int64_t(t.crown_radius), 0, 8);
    check_range(w + ".spacing", std::int64_t(t.spacing), 2, 64);
    check_range(w + ".probability", t.probability, Range::closed(0.0, 1.0));
  }
}

VoxelParams default_voxel(const WorldSettings& world) {
  VoxelParams v;
  v.has_density = true;
  v.density = default_density();
  // The vertical range: the map's heights, 64 m of caves below and 32 m of air above.
  v.min_y = std::int64_t(std::floor((world.height_min_m - 64.0) / v.block_size_m));
  v.max_y = std::int64_t(std::ceil((world.height_max_m + 32.0) / v.block_size_m));
  v.palette.types = {
      block("air", BlockKind::air, 0, 0, 0),
      block("stone", BlockKind::opaque, 125, 125, 125),
      block("dirt", BlockKind::opaque, 134, 96, 67),
      block("grass", BlockKind::opaque, 95, 159, 53),
      block("sand", BlockKind::opaque, 219, 207, 163),
      block("snow", BlockKind::opaque, 240, 245, 250),
      block("gravel", BlockKind::opaque, 136, 126, 126),
      block("water", BlockKind::liquid, 45, 90, 200),
      block("ice", BlockKind::transparent, 160, 190, 250),
      block("log", BlockKind::opaque, 102, 81, 51),
      block("leaves", BlockKind::transparent, 60, 120, 40),
      block("coal_ore", BlockKind::opaque, 50, 50, 50),
      block("iron_ore", BlockKind::opaque, 190, 150, 120),
      block("glass", BlockKind::transparent, 200, 230, 240),
      block("spruce_leaves", BlockKind::transparent, 40, 85, 50),
  };
  v.tops = {
      {"ocean", "gravel", "gravel"},  {"beach", "sand", "sand"},   {"snow", "snow", "dirt"},
      {"tundra", "grass", "dirt"},    {"rock", "stone", "stone"},  {"desert", "sand", "sand"},
      {"grassland", "grass", "dirt"}, {"forest", "grass", "dirt"},
  };
  VoxelOreRule coal;
  coal.block = "coal_ore";
  coal.noise.type = NoiseType::opensimplex2;
  coal.noise.frequency = 0.09;
  coal.noise.seed = 101;
  coal.threshold = 0.72;
  coal.max_y = 128;
  VoxelOreRule iron = coal;
  iron.block = "iron_ore";
  iron.noise.frequency = 0.11;
  iron.noise.seed = 102;
  iron.threshold = 0.8;
  iron.max_y = 32;
  v.ores = {coal, iron};
  VoxelTree oak;
  oak.name = "oak";
  oak.biomes = {"forest"};
  oak.spacing = 6;
  oak.probability = 0.8;
  VoxelTree sparse_oak = oak;
  sparse_oak.name = "sparse_oak";
  sparse_oak.biomes = {"grassland"};
  sparse_oak.spacing = 14;
  sparse_oak.probability = 0.4;
  VoxelTree spruce;
  spruce.name = "spruce";
  spruce.biomes = {"tundra", "snow"};
  spruce.leaves = "spruce_leaves";
  spruce.height_min = 6;
  spruce.height_max = 9;
  spruce.crown_radius = 2;
  spruce.spacing = 8;
  spruce.probability = 0.5;
  v.trees = {oak, sparse_oak, spruce};
  return v;
}

}  // namespace terrane
