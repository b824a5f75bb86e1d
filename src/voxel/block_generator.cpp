// Block chunks as a pure function of (preset, key): the density on a world-aligned coarse
// lattice, trilinear interpolation to the blocks, material rules by column biome and depth,
// ores, water and ice, floating-block removal and trees (see voxel.hpp, "Block worlds").
//
// Per chunk column (cx, cz) the data every chunk of the column shares is computed once and kept
// in the caller's BlockScratch: the 2D heights, climate and biomes of the columns the chunk and
// its tree margin cover, the 2D heights at the lattice columns, and the column's trees (each
// resolved from its own density column). All of it is a function of the column's position
// only, so a cache hit and a recomputation give the same bytes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "terrane/voxel.hpp"

#include "block_lakes.hpp"

namespace terrane {
namespace voxel_detail {
void encode_chunk(std::span<const std::uint16_t> ids, int size, BlockChunk& out,
                  std::vector<std::uint8_t>& work);
}  // namespace voxel_detail

namespace {

// Largest |world coordinate| of a chunk's blocks [Units: m].
constexpr double kMaxBlockWorld_m = 1e9;
constexpr std::size_t kColumnCache = 8;
// Rows searched below and above the 2D height for a tree's ground [Units: blocks].
constexpr int kTreeSearch = 16;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

float lerp(float a, float b, float t) {
  return a + (b - a) * t;
}

// Interpolation of one axis: lattice index and weight of block b with step s.
struct Axis {
  std::int64_t cell;
  float t;
};
Axis axis_of(std::int64_t b, int s) {
  const std::int64_t c = floor_div(b, s);
  return {c, float(b - c * s) / float(s)};
}

// Lattice values [(k * ny + j) * nx + i] of a box whose lattice origin is (lx0, ly0, lz0).
struct Lattice {
  std::int64_t lx0 = 0, ly0 = 0, lz0 = 0;
  int nx = 0, ny = 0, nz = 0;
  const float* v = nullptr;
  float at(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return v[(std::size_t(k - lz0) * std::size_t(ny) + std::size_t(j - ly0)) * std::size_t(nx) +
             std::size_t(i - lx0)];
  }
  // The trilinear density at world block (bx, by, bz): x first, then z, then y.
  float sample(const Axis& x, const Axis& y, const Axis& z) const {
    const float c00 = lerp(at(x.cell, y.cell, z.cell), at(x.cell + 1, y.cell, z.cell), x.t);
    const float c01 = lerp(at(x.cell, y.cell, z.cell + 1), at(x.cell + 1, y.cell, z.cell + 1), x.t);
    const float c10 = lerp(at(x.cell, y.cell + 1, z.cell), at(x.cell + 1, y.cell + 1, z.cell), x.t);
    const float c11 =
        lerp(at(x.cell, y.cell + 1, z.cell + 1), at(x.cell + 1, y.cell + 1, z.cell + 1), x.t);
    return lerp(lerp(c00, c01, z.t), lerp(c10, c11, z.t), y.t);
  }
};

struct Tree {
  std::int64_t x = 0, y = 0, z = 0;  // trunk base block (the block above the ground)
  int height = 0, radius = 0;
  std::uint16_t trunk = 0, leaves = 0;
};

std::uint16_t id_of(const BlockPalette& p, std::string_view name) {
  for (std::size_t k = 0; k < p.types.size(); ++k) {
    if (p.types[k].name == name) return std::uint16_t(k);
  }
  throw Error(ErrorCategory::invalid_argument, "voxel: unknown block '" + std::string(name) + "'");
}

double unit_from_hash(std::uint64_t h) {
  return double(h >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace

struct BlockScratch::Column {
  std::int64_t cx = 0, cz = 0;
  // The height-edit tiles everything below was computed with (empty: none): a cached column is
  // used again only for the same tiles.
  voxel_detail::EditDeps deps;
  std::int64_t bx0 = 0, bz0 = 0;  // block columns [bx0, bx0 + w)^2
  int w = 0;
  std::vector<std::uint16_t> top, soil;
  std::vector<float> temperature_c;
  std::vector<float> height_m;  // the 2D surface at the block columns
  // Lakes (block_lakes.hpp), per block column: water from height_m up to lake_m where
  // lake_m > height_m; rows whose centre lies in [solid_lo_m, solid_hi_m) are solid whatever
  // the density says (the bed under a lake and the shore beside it).
  std::vector<float> lake_m, solid_lo_m, solid_hi_m;
  std::int64_t lx0 = 0, lz0 = 0;  // lattice columns [lx0, lx0 + lw)^2
  int lw = 0;
  std::vector<float> lattice_height_m;  // [k * lw + i]
  std::vector<Tree> trees;
};

struct BlockWorldGenerator::Impl {
  VoxelParams v;
  SurfaceParams surface;
  WorldSettings world;
  std::uint64_t seed = 0;
  CompiledGraph terrain;
  CompiledGraph density;
  std::unique_ptr<ClimateSources> climate_sources;
  std::unique_ptr<voxel_detail::LakeSource> lakes;
  std::vector<std::uint16_t> biome_top, biome_soil;
  std::uint16_t stone = 0, water = 0, ice = 0;
  std::vector<std::uint8_t> kind;
  std::vector<NoiseParams> ore_noise;
  std::vector<std::uint16_t> ore_block;
  struct Species {
    std::vector<std::uint8_t> in_biome;  // per biome
    std::uint16_t trunk = 0, leaves = 0;
  };
  std::vector<Species> species;
  int S = 32, s = 4, margin = 0, max_tree_height = 0;
  double bs = 1.0;
  std::vector<std::string> warnings;

  // A sparse probe of the density over the vertical range: all solid or all empty is a
  // warning (a sign error in the graph, a range beside the terrain).
  void probe_density() {
    const int n = 8, rows = 64;
    const std::int64_t step_blocks = std::max<std::int64_t>(1, 512 / s);  // lattice cells
    const std::int64_t l0 = -std::int64_t(n / 2) * step_blocks;
    const std::int64_t ly0 = floor_div(v.min_y, s), ly1 = floor_div(v.max_y, s);
    const std::int64_t ystep = std::max<std::int64_t>(1, (ly1 - ly0) / rows);
    std::size_t solid = 0, total = 0;
    std::vector<float> h(1), lat;
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        const std::int64_t lx = l0 + a * step_blocks, lz = l0 + b * step_blocks;
        evaluate(terrain, lattice_columns(lx, lz, 1, 1), h);
        // One column of rows ystep lattice rows apart (a probe: positions need not be lattice
        // points, so the grid's single spacing is the row step).
        GridSpec3 g;
        g.size_x = g.size_z = 1;
        g.size_y = int((ly1 - ly0) / ystep) + 1;
        g.spacing_m = double(ystep) * double(s) * bs;
        g.origin_x_m = (0.5 + double(lx) * double(s)) * bs;
        g.origin_z_m = (0.5 + double(lz) * double(s)) * bs;
        g.origin_y_m = (0.5 + double(ly0) * double(s)) * bs;
        lat.resize(g.sample_count());
        lattice_values(g, h, lat, ExecContext{.threads = 1});
        for (const float d : lat) solid += d > 0.0f ? 1 : 0;
        total += lat.size();
      }
    }
    if (solid == total) {
      warnings.push_back("voxel.density: every probe is solid (" + std::to_string(total) +
                         " points over rows " + std::to_string(v.min_y) + ".." +
                         std::to_string(v.max_y) +
                         "): every chunk will be one solid block type; solid is where the "
                         "density is > 0");
    } else if (solid == 0) {
      warnings.push_back("voxel.density: every probe is empty (" + std::to_string(total) +
                         " points over rows " + std::to_string(v.min_y) + ".." +
                         std::to_string(v.max_y) +
                         "): every chunk will be air or water; solid is where the density is "
                         "> 0");
    }
  }

  // Lattice densities of a box (all of it), given the 2D heights at its lattice columns.
  void lattice_values(const GridSpec3& g, std::span<const float> heights, std::span<float> out,
                      const ExecContext& ctx) const {
    if (v.has_density) {
      const InputField in{"height_m", heights};
      evaluate_volume(density, g, out, ctx, std::span<const InputField>(&in, 1));
      return;
    }
    for (int k = 0; k < g.size_z; ++k) {
      for (int j = 0; j < g.size_y; ++j) {
        const double y = g.y_m(j);
        for (int i = 0; i < g.size_x; ++i) {
          out[(std::size_t(k) * std::size_t(g.size_y) + std::size_t(j)) * std::size_t(g.size_x) +
              std::size_t(i)] =
              float(double(heights[std::size_t(k) * std::size_t(g.size_x) + std::size_t(i)]) - y);
        }
      }
    }
  }

  GridSpec3 lattice_grid(std::int64_t lx0, std::int64_t ly0, std::int64_t lz0, int nx, int ny,
                         int nz) const {
    GridSpec3 g;
    g.size_x = nx, g.size_y = ny, g.size_z = nz;
    g.spacing_m = double(s) * bs;
    g.origin_x_m = g.origin_y_m = g.origin_z_m = 0.5 * bs;
    g.index_x0 = lx0, g.index_y0 = ly0, g.index_z0 = lz0;
    return g;
  }
  GridSpec lattice_columns(std::int64_t lx0, std::int64_t lz0, int nx, int nz) const {
    return GridSpec{.width = nx,
                    .height = nz,
                    .spacing_m = double(s) * bs,
                    .origin_x_m = 0.5 * bs,
                    .origin_z_m = 0.5 * bs,
                    .index_x0 = lx0,
                    .index_z0 = lz0};
  }

  // The 2D heights at a grid's points: the terrain graph plus the edits sampled there.
  void heights(const GridSpec& g, std::span<float> out, const ExecContext& ctx,
               const HeightEditSnapshot* edits) const {
    evaluate(terrain, g, out, ctx);
    if (edits != nullptr) edits->add_sampled(g, out);
  }
  // The edit tiles a chunk column's data depends on: those under its block columns and
  // lattice columns (one lattice cell beyond, for the trees), and with lakes those under every
  // lake window containing one of its block columns.
  voxel_detail::EditDeps column_deps(std::int64_t cx, std::int64_t cz,
                                     const HeightEditSnapshot* edits) const;

  std::shared_ptr<const BlockScratch::Column> column(std::int64_t cx, std::int64_t cz,
                                                     const ExecContext& ctx,
                                                     const HeightEditSnapshot* edits) const;
  void resolve_lakes(BlockScratch::Column& col, const ExecContext& ctx,
                     const HeightEditSnapshot* edits) const;
  void resolve_trees(BlockScratch::Column& col, const std::vector<float>& height2d,
                     const std::vector<std::uint8_t>& biome, const ExecContext& ctx,
                     const HeightEditSnapshot* edits) const;
};

voxel_detail::EditDeps BlockWorldGenerator::Impl::column_deps(
    std::int64_t cx, std::int64_t cz, const HeightEditSnapshot* edits) const {
  if (edits == nullptr || edits->empty()) return {};
  const std::int64_t bx0 = cx * S - 2 - margin, bz0 = cz * S - 2 - margin;
  const int w = S + 4 + 2 * margin;
  if (lakes) return lakes->deps(bx0, bz0, w, edits);
  const double pad = 2.0 * double(s) * bs;  // the lattice columns and the trees' beyond them
  return voxel_detail::edit_deps(edits, double(bx0) * bs - pad, double(bz0) * bs - pad,
                                 double(bx0 + w) * bs + pad, double(bz0 + w) * bs + pad);
}

std::shared_ptr<const BlockScratch::Column> BlockWorldGenerator::Impl::column(
    std::int64_t cx, std::int64_t cz, const ExecContext& ctx,
    const HeightEditSnapshot* edits) const {
  auto col = std::make_shared<BlockScratch::Column>();
  col->cx = cx, col->cz = cz;
  col->deps = column_deps(cx, cz, edits);
  col->w = S + 4 + 2 * margin;
  col->bx0 = cx * S - 2 - margin;
  col->bz0 = cz * S - 2 - margin;
  const GridSpec cols{.width = col->w,
                      .height = col->w,
                      .spacing_m = bs,
                      .origin_x_m = 0.5 * bs,
                      .origin_z_m = 0.5 * bs,
                      .index_x0 = col->bx0,
                      .index_z0 = col->bz0};
  Field2D heights(cols);
  this->heights(cols, heights.data, ctx, edits);
  Climate climate;
  compute_climate(surface.climate, seed, heights, {}, climate, ctx, climate_sources.get());
  BiomeWeights biomes;
  compute_biome_weights(surface, heights, climate, biomes, ctx);
  const std::size_t n = cols.sample_count();
  col->top.resize(n);
  col->soil.resize(n);
  col->temperature_c.assign(climate.temperature_c.data.begin(), climate.temperature_c.data.end());
  col->height_m = heights.data;
  for (std::size_t c = 0; c < n; ++c) {
    col->top[c] = biome_top[biomes.dominant[c]];
    col->soil[c] = biome_soil[biomes.dominant[c]];
  }
  col->lx0 = floor_div(cx * S - 2, s);
  col->lz0 = floor_div(cz * S - 2, s);
  col->lw = int(floor_div(cx * S + S + 1, s) + 1 - col->lx0 + 1);
  const GridSpec lcols = lattice_columns(col->lx0, col->lz0, col->lw, col->lw);
  col->lattice_height_m.resize(lcols.sample_count());
  this->heights(lcols, col->lattice_height_m, ctx, edits);
  resolve_lakes(*col, ctx, edits);
  if (!species.empty()) resolve_trees(*col, heights.data, biomes.dominant, ctx, edits);
  return col;
}

// The column's lake levels and the rows they make solid (block_lakes.cpp has why this holds the
// water): a lake column is solid from one block below the lowest of its own and its lake
// neighbours' surfaces up to its surface; a column beside a lake (4-neighbour of a lake column),
// from one block below the lowest neighbouring lake column's surface up to the highest
// neighbouring level (never above its own surface). The outermost ring of the area has no
// neighbours here; the chunk never reads it (margin >= 1 when lakes are on).
void BlockWorldGenerator::Impl::resolve_lakes(BlockScratch::Column& col, const ExecContext& ctx,
                                              const HeightEditSnapshot* edits) const {
  const std::size_t n = std::size_t(col.w) * std::size_t(col.w);
  const float none = -std::numeric_limits<float>::infinity();
  col.solid_lo_m.assign(n, 0.0f);
  col.solid_hi_m.assign(n, 0.0f);
  if (!lakes) {
    col.lake_m.assign(n, none);
    return;
  }
  lakes->levels(col.bx0, col.bz0, col.w, col.lake_m, ctx, edits);
  const float block = float(bs);
  const int w = col.w;
  auto wet = [&](std::size_t c) { return col.lake_m[c] > col.height_m[c]; };
  for (int k = 1; k + 1 < w; ++k) {
    for (int i = 1; i + 1 < w; ++i) {
      const std::size_t c = std::size_t(k) * std::size_t(w) + std::size_t(i);
      const bool own = wet(c);
      float lo = own ? col.height_m[c] : std::numeric_limits<float>::infinity();
      float top = own ? col.lake_m[c] : none;
      for (const std::size_t nb : {c - 1, c + 1, c - std::size_t(w), c + std::size_t(w)}) {
        if (!wet(nb)) continue;
        lo = std::min(lo, col.height_m[nb]);
        top = std::max(top, col.lake_m[nb]);
      }
      if (top == none) continue;
      col.solid_lo_m[c] = lo - block;
      col.solid_hi_m[c] = std::min(col.height_m[c], top);
    }
  }
}

// Every tree whose trunk stands in the column's margin area: candidates on a jittered grid per
// species, kept when the hash says so, the biome matches, and the trunk's own density column has
// ground (solid, solid below, above sea level) with room for the trunk.
void BlockWorldGenerator::Impl::resolve_trees(BlockScratch::Column& col,
                                              const std::vector<float>& height2d,
                                              const std::vector<std::uint8_t>& biome,
                                              const ExecContext& ctx,
                                              const HeightEditSnapshot* edits) const {
  const std::int64_t x_lo = col.bx0 + 1, x_hi = col.bx0 + col.w - 1;  // trunk columns that reach
  const std::int64_t z_lo = col.bz0 + 1, z_hi = col.bz0 + col.w - 1;  // the padded chunk
  std::vector<float> lattice, lheights(4);
  for (std::size_t k = 0; k < species.size(); ++k) {
    const VoxelTree& t = v.trees[k];
    const int sp = t.spacing;
    for (std::int64_t tz = floor_div(z_lo, sp); tz <= floor_div(z_hi - 1, sp); ++tz) {
      for (std::int64_t tx = floor_div(x_lo, sp); tx <= floor_div(x_hi - 1, sp); ++tx) {
        const std::uint64_t h =
            hash_combine(hash_combine(hash_combine(seed, 0x7472656573ull + k), std::uint64_t(tx)),
                         std::uint64_t(tz));
        if (unit_from_hash(h) >= t.probability) continue;
        const std::uint64_t h2 = hash_combine(h, 1);
        const std::int64_t px = tx * sp + std::int64_t(h2 % std::uint64_t(sp));
        const std::int64_t pz = tz * sp + std::int64_t((h2 >> 24) % std::uint64_t(sp));
        if (px < x_lo || px >= x_hi || pz < z_lo || pz >= z_hi) continue;
        const std::size_t c =
            std::size_t(pz - col.bz0) * std::size_t(col.w) + std::size_t(px - col.bx0);
        if (species[k].in_biome[biome[c]] == 0) continue;
        if (col.solid_hi_m[c] > col.solid_lo_m[c]) continue;  // in or beside a lake
        const int height =
            t.height_min + int((h2 >> 48) % std::uint64_t(t.height_max - t.height_min + 1));
        // The trunk column's density rows around the 2D height.
        const double h_m = double(height2d[c]);
        const std::int64_t guess = std::int64_t(std::floor(h_m / bs));
        const std::int64_t r0 = guess - kTreeSearch, r1 = guess + kTreeSearch + height + 2;
        const Axis ax = axis_of(px, s), az = axis_of(pz, s);
        const std::int64_t ly0 = floor_div(r0, s);
        const int ny = int(floor_div(r1, s) + 1 - ly0 + 1);
        const GridSpec lc = lattice_columns(ax.cell, az.cell, 2, 2);
        heights(lc, lheights, ctx, edits);
        lattice.resize(std::size_t(4) * std::size_t(ny));
        lattice_values(lattice_grid(ax.cell, ly0, az.cell, 2, ny, 2), lheights, lattice, ctx);
        const Lattice L{ax.cell, ly0, az.cell, 2, ny, 2, lattice.data()};
        auto solid = [&](std::int64_t by) { return L.sample(ax, axis_of(by, s), az) > 0.0f; };
        for (std::int64_t g = guess + kTreeSearch; g > guess - kTreeSearch; --g) {
          if (!solid(g) || solid(g + 1)) continue;
          // Ground found: it must not be a floating block, nor under water, and the trunk and
          // the crown's centre column must be free.
          if (!solid(g - 1) || double(g + 1) * bs < world.sea_level_m) break;
          bool free = true;
          for (std::int64_t y = g + 1; y <= g + height + 1 && free; ++y) free = !solid(y);
          if (free) {
            col.trees.push_back(
                Tree{px, g + 1, pz, height, t.crown_radius, species[k].trunk, species[k].leaves});
          }
          break;
        }
      }
    }
  }
}

BlockWorldGenerator::BlockWorldGenerator(const GraphSource& terrain, const SurfaceParams& surface,
                                         const VoxelParams& voxel)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  voxel.validate(surface);
  surface.validate();
  m.v = voxel;
  m.surface = surface;
  m.world = terrain.world;
  m.seed = terrain.seed;
  m.terrain = compile(terrain);
  m.climate_sources =
      std::make_unique<ClimateSources>(compile_climate_sources(terrain, surface.climate));
  if (voxel.has_density) {
    const std::string_view inputs[] = {"height_m"};
    m.density = compile_volume(voxel.density, terrain.world, terrain.seed, terrain.source, inputs);
  }
  const BlockPalette& p = voxel.palette;
  m.stone = id_of(p, voxel.stone);
  m.water = id_of(p, voxel.water);
  m.ice = id_of(p, voxel.ice);
  for (const BlockType& t : p.types) m.kind.push_back(std::uint8_t(t.kind));
  m.biome_top.assign(surface.biomes.size(), id_of(p, voxel.default_top));
  m.biome_soil.assign(surface.biomes.size(), id_of(p, voxel.default_soil));
  for (const VoxelTopRule& r : voxel.tops) {
    for (std::size_t b = 0; b < surface.biomes.size(); ++b) {
      if (surface.biomes[b].name != r.biome) continue;
      m.biome_top[b] = id_of(p, r.top);
      m.biome_soil[b] = id_of(p, r.soil);
    }
  }
  for (std::size_t k = 0; k < voxel.ores.size(); ++k) {
    NoiseParams n = voxel.ores[k].noise;
    n.seed = hash_combine(terrain.seed, n.seed);
    m.ore_noise.push_back(n);
    m.ore_block.push_back(id_of(p, voxel.ores[k].block));
  }
  for (const VoxelTree& t : voxel.trees) {
    Impl::Species sp;
    sp.in_biome.assign(surface.biomes.size(), 0);
    for (const std::string& b : t.biomes) {
      for (std::size_t k = 0; k < surface.biomes.size(); ++k) {
        if (surface.biomes[k].name == b) sp.in_biome[k] = 1;
      }
    }
    sp.trunk = id_of(p, t.trunk);
    sp.leaves = id_of(p, t.leaves);
    m.species.push_back(sp);
    m.margin = std::max(m.margin, t.crown_radius);
    m.max_tree_height = std::max(m.max_tree_height, t.height_max);
  }
  m.S = voxel.chunk_size;
  m.s = voxel.density_step;
  m.bs = voxel.block_size_m;
  if (voxel.lakes) {
    m.margin = std::max(m.margin, 1);  // the shore rule reads each column's neighbours
    m.lakes = std::make_unique<voxel_detail::LakeSource>(
        m.terrain, voxel_detail::LakeSettings{.tile = voxel.lake_tile,
                                              .margin = voxel.lake_margin,
                                              .min_depth_m = voxel.min_lake_depth_m,
                                              .block_m = voxel.block_size_m,
                                              .sea_level_m = terrain.world.sea_level_m});
  }
  m.probe_density();
}

const std::vector<std::string>& BlockWorldGenerator::warnings() const {
  return impl_->warnings;
}

BlockWorldGenerator::~BlockWorldGenerator() = default;

void BlockWorldGenerator::check_edits(const HeightEditSnapshot* edits,
                                      const BlockEditSnapshot* blocks) const {
  if (blocks != nullptr &&
      (blocks->block_size_m() != impl_->bs || blocks->chunk_size() != impl_->S ||
       blocks->block_types() != int(impl_->v.palette.types.size()))) {
    throw Error(ErrorCategory::invalid_argument,
                "block world: block overrides of " + std::to_string(blocks->block_size_m()) +
                    " m blocks, chunks of " + std::to_string(blocks->chunk_size()) + " and " +
                    std::to_string(blocks->block_types()) + " block types for a world of " +
                    std::to_string(impl_->bs) + " m blocks, chunks of " + std::to_string(impl_->S) +
                    " and " + std::to_string(impl_->v.palette.types.size()) + " types");
  }
  if (edits == nullptr || edits->empty()) return;
  if (edits->cell_size_m() != impl_->world.cell_size_m) {
    throw Error(ErrorCategory::invalid_argument,
                "block world: height edits on " + std::to_string(edits->cell_size_m()) +
                    " m cells for a world of " + std::to_string(impl_->world.cell_size_m) +
                    " m cells");
  }
}

bool BlockWorldGenerator::reads_same_edits(const BlockChunkKey& key,
                                           const HeightEditSnapshot* heights_a,
                                           const BlockEditSnapshot* blocks_a,
                                           const HeightEditSnapshot* heights_b,
                                           const BlockEditSnapshot* blocks_b) const {
  const auto block_chunk = [](const BlockEditSnapshot* b, const BlockEditKey& k) {
    return b != nullptr ? b->chunk(k) : nullptr;
  };
  if (blocks_a != blocks_b) {
    const int S = impl_->S;
    // Override chunks that are different objects (copy-on-write: a changed chunk) are compared
    // where the padded box reads them: on each axis index S - 1 of the chunk below, 0 of the
    // one above, all of its own. A dig next to a chunk face thus updates the chunks across
    // that face, not all 26 neighbours.
    const auto range = [S](int d, int& lo, int& hi) {
      lo = d < 0 ? S - 1 : 0;
      hi = d > 0 ? 1 : S;
    };
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dz = -1; dz <= 1; ++dz) {
        for (int dx = -1; dx <= 1; ++dx) {
          const BlockEditKey k{key.cx + dx, key.cy + dy, key.cz + dz};
          const BlockEditSnapshot::Chunk *a = block_chunk(blocks_a, k),
                                         *b = block_chunk(blocks_b, k);
          if (a == b) continue;
          int x0 = 0, x1 = 0, y0 = 0, y1 = 0, z0 = 0, z1 = 0;
          range(dx, x0, x1);
          range(dy, y0, y1);
          range(dz, z0, z1);
          for (int y = y0; y < y1; ++y) {
            for (int z = z0; z < z1; ++z) {
              for (int x = x0; x < x1; ++x) {
                const std::size_t i =
                    (std::size_t(y) * std::size_t(S) + std::size_t(z)) * std::size_t(S) +
                    std::size_t(x);
                if ((a != nullptr ? (*a)[i] : kKeepBlock) !=
                    (b != nullptr ? (*b)[i] : kKeepBlock)) {
                  return false;
                }
              }
            }
          }
        }
      }
    }
  }
  return heights_a == heights_b || impl_->column_deps(key.cx, key.cz, heights_a) ==
                                       impl_->column_deps(key.cx, key.cz, heights_b);
}

const VoxelParams& BlockWorldGenerator::params() const {
  return impl_->v;
}
const BlockPalette& BlockWorldGenerator::palette() const {
  return impl_->v.palette;
}
int BlockWorldGenerator::chunk_size() const {
  return impl_->S;
}
std::uint16_t BlockWorldGenerator::block_id(std::string_view name) const {
  return id_of(impl_->v.palette, name);
}

void BlockWorldGenerator::generate(const BlockChunkKey& key, BlockChunkData& out,
                                   BlockScratch* scratch, const ExecContext& ctx_in,
                                   const HeightEditSnapshot* edits,
                                   const BlockEditSnapshot* blocks) const {
  const Impl& m = *impl_;
  const int S = m.S, s = m.s, D = m.v.soil_depth;
  const double extent = double(S) * m.bs;
  for (const std::int64_t c : {key.cx, key.cy, key.cz}) {
    if (!(std::fabs(double(c) * extent) <= kMaxBlockWorld_m)) {
      throw Error(ErrorCategory::invalid_argument,
                  "block chunk (" + std::to_string(key.cx) + ", " + std::to_string(key.cy) + ", " +
                      std::to_string(key.cz) + ") lies beyond the block world's limit of 1e9 m");
    }
  }
  check_edits(edits, blocks);
  throw_if_cancelled(ctx_in);
  ExecContext ctx = ctx_in;
  ctx.threads = 1;
  BlockScratch local;
  BlockScratch& sc = scratch != nullptr ? *scratch : local;

  // The column's shared data (cached).
  std::shared_ptr<const BlockScratch::Column> colp;
  const voxel_detail::EditDeps deps = m.column_deps(key.cx, key.cz, edits);
  for (std::size_t k = 0; k < sc.columns.size(); ++k) {
    if (sc.columns[k]->cx == key.cx && sc.columns[k]->cz == key.cz && sc.columns[k]->deps == deps) {
      colp = sc.columns[k];
      std::rotate(sc.columns.begin(), sc.columns.begin() + std::ptrdiff_t(k),
                  sc.columns.begin() + std::ptrdiff_t(k) + 1);
      break;
    }
  }
  if (!colp) {
    colp = m.column(key.cx, key.cz, ctx, edits);
    sc.columns.insert(sc.columns.begin(), colp);
    if (sc.columns.size() > kColumnCache) sc.columns.pop_back();
  }
  const BlockScratch::Column& col = *colp;

  const std::int64_t x0 = key.cx * S, y0 = key.cy * S, z0 = key.cz * S;
  // The extended box: padded chunk + 1 (floating rule) + D rows above (soil depth).
  const int ex = S + 4, ey = S + 4 + D;
  const std::int64_t ex0 = x0 - 2, ey0 = y0 - 2, ez0 = z0 - 2;
  const std::int64_t ly0 = floor_div(ey0, s);
  const int ny = int(floor_div(ey0 + ey - 1, s) + 1 - ly0 + 1);
  const int lw = col.lw;
  const GridSpec3 lg = m.lattice_grid(col.lx0, ly0, col.lz0, lw, ny, lw);
  sc.lattice.resize(lg.sample_count());
  m.lattice_values(lg, col.lattice_height_m, sc.lattice, ctx);
  const Lattice L{col.lx0, ly0, col.lz0, lw, ny, lw, sc.lattice.data()};

  // Interpolated solidity of the extended box, [(y * ex + z) * ex + x].
  const std::size_t e_count = std::size_t(ex) * std::size_t(ex) * std::size_t(ey);
  sc.solid.assign(e_count, 0);
  std::vector<Axis> ax(std::size_t(ex), Axis{}), az(std::size_t(ex), Axis{});
  for (int i = 0; i < ex; ++i) ax[std::size_t(i)] = axis_of(ex0 + i, s);
  for (int k = 0; k < ex; ++k) az[std::size_t(k)] = axis_of(ez0 + k, s);
  auto col_index = [&](int i, int k) {  // extended-box column -> column data
    return std::size_t(k + m.margin) * std::size_t(col.w) + std::size_t(i + m.margin);
  };
  for (int j = 0; j < ey; ++j) {
    const Axis ay = axis_of(ey0 + j, s);
    const float yc = float((double(ey0 + j) + 0.5) * m.bs);
    for (int k = 0; k < ex; ++k) {
      std::uint8_t* row =
          sc.solid.data() + (std::size_t(j) * std::size_t(ex) + std::size_t(k)) * std::size_t(ex);
      for (int i = 0; i < ex; ++i) {
        const std::size_t c = col_index(i, k);
        if (yc >= col.solid_lo_m[c] && yc < col.solid_hi_m[c]) {
          row[i] = 1;  // lake bed or shore
        } else if (yc >= col.height_m[c] && yc < col.lake_m[c]) {
          row[i] = 0;  // lake water
        } else {
          row[i] = L.sample(ax[std::size_t(i)], ay, az[std::size_t(k)]) > 0.0f ? 1 : 0;
        }
      }
    }
  }
  auto solid_at = [&](int i, int j, int k) {  // extended-box coordinates
    return sc.solid[(std::size_t(j) * std::size_t(ex) + std::size_t(k)) * std::size_t(ex) +
                    std::size_t(i)] != 0;
  };

  // Ore noise on the lattice (only where ores can occur in this chunk's rows).
  const std::size_t ores = m.ore_noise.size();
  std::vector<char> ore_active(ores, 0);
  sc.ore.resize(ores * lg.sample_count());
  for (std::size_t o = 0; o < ores; ++o) {
    const VoxelOreRule& r = m.v.ores[o];
    if (r.max_y < y0 - 1 || r.min_y > y0 + S) continue;
    ore_active[o] = 1;
    noise_fill3(m.ore_noise[o], lg,
                std::span<float>(sc.ore.data() + o * lg.sample_count(), lg.sample_count()), ctx);
  }

  // Materials of the padded volume.
  const int P = S + 2;
  BlockVolume& vol = out.volume;
  vol.size = S;
  vol.blocks.assign(std::size_t(P) * std::size_t(P) * std::size_t(P), 0);
  const double sea = m.world.sea_level_m;
  const bool floating = m.v.remove_floating;
  // What fills empty space at padded row y of column cidx: the sea's water (ice on its top row
  // where it is cold) below sea level, a lake's water (likewise) in a lake's volume, else air.
  auto empty_fill = [&](int y, std::size_t cidx) -> std::uint16_t {
    const std::int64_t by = y0 - 1 + y;
    const float yc = float((double(by) + 0.5) * m.bs), yc_above = float((double(by) + 1.5) * m.bs);
    const bool cold = col.temperature_c[cidx] < float(m.v.ice_below_c);
    if ((double(by) + 0.5) * m.bs < sea) {
      const bool sea_top = (double(by) + 1.5) * m.bs >= sea;
      return sea_top && cold ? m.ice : m.water;
    }
    if (yc >= col.height_m[cidx] && yc < col.lake_m[cidx]) {
      return yc_above >= col.lake_m[cidx] && cold ? m.ice : m.water;
    }
    return 0;
  };
  for (int y = 0; y < P; ++y) {
    const int j = y + 1;  // extended-box row
    const std::int64_t by = y0 - 1 + y;
    const float yc = float((double(by) + 0.5) * m.bs), yc_above = float((double(by) + 1.5) * m.bs);
    for (int z = 0; z < P; ++z) {
      const int k = z + 1;
      for (int x = 0; x < P; ++x) {
        const int i = x + 1;
        const std::size_t cidx =
            std::size_t(k + m.margin) * std::size_t(col.w) + std::size_t(i + m.margin);
        std::uint16_t id = 0;
        bool solid = solid_at(i, j, k);
        const bool forced = yc >= col.solid_lo_m[cidx] && yc < col.solid_hi_m[cidx];
        if (solid && floating && !forced && !solid_at(i - 1, j, k) && !solid_at(i + 1, j, k) &&
            !solid_at(i, j - 1, k) && !solid_at(i, j + 1, k) && !solid_at(i, j, k - 1) &&
            !solid_at(i, j, k + 1)) {
          solid = false;
        }
        if (!solid) {
          id = empty_fill(y, cidx);
        } else {
          int depth = 0;
          while (depth <= D && solid_at(i, j + 1 + depth, k)) ++depth;
          if ((double(by) + 0.5) * m.bs < double(col.height_m[cidx]) - m.v.surface_band_m) {
            depth = D + 1;  // below the surface band: stone
          }
          if (depth == 0) {
            // Under lake water the bed is soil (no grass under water).
            id = yc_above < col.lake_m[cidx] ? col.soil[cidx] : col.top[cidx];
          } else if (depth <= D) {
            id = col.soil[cidx];
          } else {
            id = m.stone;
            const Axis bx = ax[std::size_t(i)], bz = az[std::size_t(k)];
            const Axis byx = axis_of(by, s);
            for (std::size_t o = 0; o < ores; ++o) {
              if (ore_active[o] == 0) continue;
              const VoxelOreRule& r = m.v.ores[o];
              if (by < r.min_y || by > r.max_y) continue;
              const Lattice O{
                  col.lx0, ly0, col.lz0, lw, ny, lw, sc.ore.data() + o * lg.sample_count()};
              if (O.sample(bx, byx, bz) > float(r.threshold)) {
                id = m.ore_block[o];
                break;
              }
            }
          }
        }
        vol.blocks[(std::size_t(y) * std::size_t(P) + std::size_t(z)) * std::size_t(P) +
                   std::size_t(x)] = id;
      }
    }
  }

  // Trees: leaves into air first, then trunks (which win over leaves), so the result does not
  // depend on the order of the trees.
  auto put = [&](std::int64_t wx, std::int64_t wy, std::int64_t wz, std::uint16_t id,
                 bool over_leaves) {
    const std::int64_t x = wx - (x0 - 1), y = wy - (y0 - 1), z = wz - (z0 - 1);
    if (x < 0 || y < 0 || z < 0 || x >= P || y >= P || z >= P) return;
    std::uint16_t& b =
        vol.blocks[(std::size_t(y) * std::size_t(P) + std::size_t(z)) * std::size_t(P) +
                   std::size_t(x)];
    if (b == 0 || (over_leaves && m.kind[b] == std::uint8_t(BlockKind::transparent))) b = id;
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (const Tree& t : col.trees) {
      const std::int64_t top = t.y + t.height - 1;
      // The crown reaches from top - radius to top + radius + 1 (its row above).
      if (t.x + t.radius < x0 - 1 || t.x - t.radius > x0 + S || t.z + t.radius < z0 - 1 ||
          t.z - t.radius > z0 + S || t.y > y0 + S || top + t.radius + 1 < y0 - 1) {
        continue;
      }
      if (pass == 0) {
        const int r = t.radius;
        for (int dy = -r; dy <= r + 1; ++dy) {
          for (int dz = -r; dz <= r; ++dz) {
            for (int dx = -r; dx <= r; ++dx) {
              // A rounded crown: inside the sphere of radius r + 0.5 around the top, and one
              // row above it.
              const int d2 = dx * dx + (dy > 0 ? (dy - 1) * (dy - 1) : dy * dy) + dz * dz;
              if (d2 > r * r + r) continue;
              put(t.x + dx, top + dy, t.z + dz, t.leaves, false);
            }
          }
        }
      } else {
        for (std::int64_t y = t.y; y <= top; ++y) put(t.x, y, t.z, t.trunk, true);
      }
    }
  }

  // Block overrides last, over everything generated, in the chunk and its padding (the 27
  // override chunks around it).
  if (blocks != nullptr && !blocks->empty()) {
    const std::int64_t px0 = x0 - 1, py0 = y0 - 1, pz0 = z0 - 1;
    for (std::int64_t oy = key.cy - 1; oy <= key.cy + 1; ++oy) {
      for (std::int64_t oz = key.cz - 1; oz <= key.cz + 1; ++oz) {
        for (std::int64_t ox = key.cx - 1; ox <= key.cx + 1; ++ox) {
          const BlockEditSnapshot::Chunk* e = blocks->chunk({ox, oy, oz});
          if (e == nullptr) continue;
          // The overlap of override chunk (ox, oy, oz) and the padded box, in padded coordinates.
          const auto span_of = [&](std::int64_t oc, std::int64_t p0, int& a, int& b) {
            a = int(std::max<std::int64_t>(oc * S - p0, 0));
            b = int(std::min<std::int64_t>(oc * S + S - p0, P));
          };
          int xa = 0, xb = 0, ya = 0, yb = 0, za = 0, zb = 0;
          span_of(ox, px0, xa, xb);
          span_of(oy, py0, ya, yb);
          span_of(oz, pz0, za, zb);
          for (int y = ya; y < yb; ++y) {
            for (int z = za; z < zb; ++z) {
              // The override of padded block (x, y, z) is src[x] (x in [xa, xb)).
              const std::int64_t src =
                  ((py0 + y - oy * S) * S + (pz0 + z - oz * S)) * S + (px0 - ox * S);
              std::uint16_t* dst =
                  vol.blocks.data() +
                  (std::size_t(y) * std::size_t(P) + std::size_t(z)) * std::size_t(P);
              for (int x = xa; x < xb; ++x) {
                const std::uint16_t v = (*e)[std::size_t(src + x)];
                if (v == kKeepBlock) continue;
                dst[x] = v != kDugBlock
                             ? v
                             : empty_fill(y, std::size_t(z + 1 + m.margin) * std::size_t(col.w) +
                                                 std::size_t(x + 1 + m.margin));
              }
            }
          }
        }
      }
    }
  }

  compute_block_columns(vol, m.v.palette);
  out.key = key;
  // The interior, x fastest, then z, then y.
  sc.raw.resize(std::size_t(S) * std::size_t(S) * std::size_t(S));
  for (int y = 0; y < S; ++y) {
    for (int z = 0; z < S; ++z) {
      const std::uint16_t* src =
          vol.blocks.data() +
          (std::size_t(y + 1) * std::size_t(P) + std::size_t(z + 1)) * std::size_t(P) + 1;
      std::copy(
          src, src + S,
          sc.raw.data() + (std::size_t(y) * std::size_t(S) + std::size_t(z)) * std::size_t(S));
    }
  }
  std::vector<std::uint8_t> work;
  voxel_detail::encode_chunk(sc.raw, S, out.chunk, work);
  out.chunk.key = key;
}

void BlockWorldGenerator::generate_region(std::int64_t x0, std::int64_t y0, std::int64_t z0,
                                          int size_x, int size_y, int size_z, BlockRegion& out,
                                          const ExecContext& ctx, const HeightEditSnapshot* edits,
                                          const BlockEditSnapshot* blocks) const {
  if (size_x < 1 || size_y < 1 || size_z < 1) {
    throw Error(ErrorCategory::invalid_argument,
                "block region: size " + std::to_string(size_x) + " x " + std::to_string(size_y) +
                    " x " + std::to_string(size_z) + " must be at least 1 block on every axis");
  }
  const double count = double(size_x) * double(size_y) * double(size_z);
  if (count > double(std::size_t{1} << 28)) {
    throw Error(ErrorCategory::limit, "block region: " + std::to_string(size_x) + " x " +
                                          std::to_string(size_y) + " x " + std::to_string(size_z) +
                                          " blocks is more than the limit of 2^28 (" +
                                          std::to_string(std::size_t{1} << 28) + ")");
  }
  check_edits(edits, blocks);
  out.x0 = x0, out.y0 = y0, out.z0 = z0;
  out.size_x = size_x, out.size_y = size_y, out.size_z = size_z;
  out.blocks.assign(out.block_count(), 0);
  const int S = impl_->S;
  const std::int64_t cx0 = floor_div(x0, S), cx1 = floor_div(x0 + size_x - 1, S);
  const std::int64_t cy0 = floor_div(y0, S), cy1 = floor_div(y0 + size_y - 1, S);
  const std::int64_t cz0 = floor_div(z0, S), cz1 = floor_div(z0 + size_z - 1, S);
  std::vector<BlockChunkKey> keys;
  for (std::int64_t cz = cz0; cz <= cz1; ++cz) {
    for (std::int64_t cx = cx0; cx <= cx1; ++cx) {
      for (std::int64_t cy = cy0; cy <= cy1; ++cy) keys.push_back({cx, cy, cz});
    }
  }
  // Chunk columns in parallel (each task keeps its scratch's column cache warm).
  const std::int64_t columns = (cx1 - cx0 + 1) * (cz1 - cz0 + 1);
  const std::int64_t per_column = cy1 - cy0 + 1;
  parallel_for(ctx, columns, 1, [&](std::int64_t b, std::int64_t e) {
    BlockScratch scratch;
    BlockChunkData data;
    std::vector<std::uint16_t> ids;
    for (std::int64_t c = b; c < e; ++c) {
      for (std::int64_t q = 0; q < per_column; ++q) {
        const BlockChunkKey& key = keys[std::size_t(c * per_column + q)];
        generate(key, data, &scratch, ctx, edits, blocks);
        data.chunk.decode(ids);
        for (int y = 0; y < S; ++y) {
          const std::int64_t wy = key.cy * S + y - y0;
          if (wy < 0 || wy >= size_y) continue;
          for (int z = 0; z < S; ++z) {
            const std::int64_t wz = key.cz * S + z - z0;
            if (wz < 0 || wz >= size_z) continue;
            for (int x = 0; x < S; ++x) {
              const std::int64_t wx = key.cx * S + x - x0;
              if (wx < 0 || wx >= size_x) continue;
              out.blocks[(std::size_t(wy) * std::size_t(size_z) + std::size_t(wz)) *
                             std::size_t(size_x) +
                         std::size_t(wx)] =
                  ids[(std::size_t(y) * std::size_t(S) + std::size_t(z)) * std::size_t(S) +
                      std::size_t(x)];
            }
          }
        }
      }
    }
  });
}

}  // namespace terrane
