// Chunk generation: the pure function (preset, seed, key, stitch mask) -> ChunkData. A node of
// level L is the chunk mesh of N cells on the level-L lattice (spacing s * 2^L): its heights are
// the compiled graph evaluated on that lattice with a one-sample halo, meshed at lod 0.
#include <algorithm>
#include <cmath>
#include <string>

#include "surface/surface_internal.hpp"
#include "terrane/field.hpp"
#include "terrane/schema.hpp"
#include "terrane/world.hpp"

namespace terrane {

namespace {

// Error(invalid_argument) unless height edits (if any) are on the world's lattice.
void check_edit_cell(const HeightEditSnapshot* edits, double cell_m) {
  if (edits != nullptr && !edits->empty() && edits->cell_size_m() != cell_m) {
    throw Error(ErrorCategory::invalid_argument,
                "height edits of cell " + std::to_string(edits->cell_size_m()) +
                    " m on a world of cell " + std::to_string(cell_m) + " m");
  }
}

std::string key_text(const ChunkKey& k) {
  return "(" + std::to_string(k.cx) + ", " + std::to_string(k.cz) + ", level " +
         std::to_string(k.level) + ")";
}

template <class T>
std::uint64_t hash_vector(const std::vector<T>& v, std::uint64_t h) {
  return v.empty() ? h : hash_bytes(v.data(), v.size() * sizeof(T), h);
}

template <class T>
std::size_t capacity_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

}  // namespace

ChunkKey ChunkKey::ancestor(int up) const {
  // Arithmetic right shift is floor division by 2^up (C++20 defines it for negative values).
  return ChunkKey{cx >> up, cz >> up, level + up};
}

ChunkKey ChunkKey::child(int q) const {
  return ChunkKey{cx * 2 + (q & 1), cz * 2 + ((q >> 1) & 1), level - 1};
}

std::uint64_t hash(const ChunkKey& key) {
  return hash_combine(hash_combine(std::uint64_t(key.cx), std::uint64_t(key.cz)),
                      std::uint64_t(key.level));
}

void ChunkSettings::validate() const {
  const int levels = chunk_levels(cells);
  if (levels < 3 || cells > 1024) {
    throw Error(ErrorCategory::invalid_argument,
                "chunk.cells " + std::to_string(cells) + " must be a power of two in [8, 1024]");
  }
  ChunkMeshParams p;
  p.skirts = skirts;
  p.skirt_depth_m = skirt_depth_m;
  p.uv_world_wrap_m = uv_world_wrap_m;
  try {
    p.validate(cells);
  } catch (const Error& e) {
    throw Error(ErrorCategory::invalid_argument, std::string("chunk.") + e.what());
  }
}

std::size_t ChunkData::bytes() const {
  return capacity_bytes(heights.data) + capacity_bytes(mesh.positions) +
         capacity_bytes(mesh.normals) + capacity_bytes(mesh.uv_local) +
         capacity_bytes(mesh.uv_world) + capacity_bytes(mesh.morph_y) +
         capacity_bytes(mesh.indices16) + capacity_bytes(mesh.indices32) + capacity_bytes(splat) +
         capacity_bytes(biome) + capacity_bytes(scatter) + sizeof(ChunkData);
}

std::uint64_t ChunkData::content_hash() const {
  std::uint64_t h = hash(key);
  h = hash_bytes(stitch.data(), sizeof(stitch), h);
  h = hash_vector(heights.data, h);
  h = hash_vector(mesh.positions, h);
  h = hash_vector(mesh.normals, h);
  h = hash_vector(mesh.uv_local, h);
  h = hash_vector(mesh.uv_world, h);
  h = hash_vector(mesh.morph_y, h);
  h = hash_vector(mesh.indices16, h);
  h = hash_vector(mesh.indices32, h);
  h = hash_vector(splat, h);
  h = hash_vector(biome, h);
  for (const ScatterInstance& p : scatter) {
    const double xz[2] = {p.x_m, p.z_m};
    const float f[7] = {p.y_m,       p.yaw_deg,   p.scale_xz, p.scale_y,
                        p.normal[0], p.normal[1], p.normal[2]};
    h = hash_bytes(xz, sizeof(xz), h);
    h = hash_bytes(f, sizeof(f), h);
    h = hash_bytes(&p.species, sizeof(p.species), h);
  }
  // States (instance overrides), only where set: a chunk without them hashes as before.
  for (std::size_t k = 0; k < scatter.size(); ++k) {
    if (scatter[k].state == 0) continue;
    const std::uint64_t ks[2] = {k, scatter[k].state};
    h = hash_bytes(ks, sizeof(ks), h);
  }
  const double origin[3] = {mesh.origin_x_m, mesh.origin_y_m, mesh.origin_z_m};
  return hash_bytes(origin, sizeof(origin), h);
}

ChunkGenerator::ChunkGenerator(const Preset& preset, const ChunkSettings& settings)
    : settings_(settings) {
  settings_.validate();
  graph_ = compile(preset);
  cell_size_m_ = preset.world.cell_size_m;
  post_ignored_ = !preset.post.empty();
  seed_ = preset.seed;
  table_ = std::make_shared<const StitchTable>(settings_.cells);
  if (settings_.surface) {
    auto params = std::make_shared<SurfaceParams>(preset.surface);
    climate_sources_ = std::make_shared<const ClimateSources>(
        compile_climate_sources(preset.generator(), params->climate));
    // Reserve per species: the smaller of a hard packing bound and a statistical one. Packing:
    // points at least d apart in a square of side C have disjoint discs of radius d/2 inside the
    // square grown by d/2 per side, covering at most pi/sqrt(12) of it, so count <= 2 (C + d)^2 /
    // (sqrt(3) d^2). Statistics: candidates are independent Bernoulli trials whose expected
    // total is at most 2 * density * C^2 (clustering doubles the density at most); mean + 6
    // standard deviations + 16 is exceeded with probability below 1e-9 per chunk. If it ever
    // is, the buffer grows and ChunkData::bytes() reports it.
    const double c = chunk_size_m(0);
    double bound = 0.0;
    for (const Species& sp : params->species) {
      const double d = sp.min_distance_m;
      const double packing = std::floor(2.0 * (c + d) * (c + d) / (std::sqrt(3.0) * d * d)) + 1.0;
      const double mean = 2.0 * sp.density_per_m2 * c * c;
      bound += std::min(packing, std::ceil(mean + 6.0 * std::sqrt(mean) + 16.0));
    }
    if (bound > 1.0e7) {
      throw Error(ErrorCategory::limit,
                  "chunk surface: the species allow up to " + std::to_string(bound) +
                      " instances per chunk (at most 1e7); use smaller chunks or lower densities");
    }
    scatter_capacity_ = std::size_t(bound);
    // scatter_chunk's lattice: the margin, floor/ceil of it in cells, then 2 more cells.
    scatter_reach_cells_ = std::int64_t(std::ceil(scatter_margin_m(*params) / cell_size_m_)) + 3;
    surface_ = std::move(params);
  }
}

double ChunkGenerator::chunk_size_m(int level) const {
  return std::ldexp(double(settings_.cells) * cell_size_m_, level);
}

ChunkKey ChunkGenerator::key_at(double x_m, double z_m, int level) const {
  const double size = chunk_size_m(level);
  return ChunkKey{std::int64_t(std::floor(x_m / size)), std::int64_t(std::floor(z_m / size)),
                  level};
}

GridSpec ChunkGenerator::height_grid(const ChunkKey& key) const {
  const int n = settings_.cells;
  GridSpec g;
  g.width = n + 3;
  g.height = n + 3;
  g.spacing_m = std::ldexp(cell_size_m_, key.level);
  g.index_x0 = key.cx * n - 1;
  g.index_z0 = key.cz * n - 1;
  return g;
}

void ChunkGenerator::validate_key(const ChunkKey& key) const {
  if (key.level < 0 || key.level > kMaxChunkLevel) {
    throw Error(
        ErrorCategory::invalid_argument,
        "chunk " + key_text(key) + ": level must be in 0.." + std::to_string(kMaxChunkLevel));
  }
  const double size = chunk_size_m(key.level);
  const double limit = kMaxWorldCoordinate / size;
  if (!(std::abs(double(key.cx)) <= limit && std::abs(double(key.cz)) <= limit)) {
    throw Error(ErrorCategory::invalid_argument,
                "chunk " + key_text(key) + " lies beyond the world limit of " +
                    std::to_string(kMaxWorldCoordinate) + " m from the origin");
  }
}

std::size_t ChunkGenerator::chunk_bytes() const {
  // Exact: every buffer of a generated chunk is resized once from empty to its final size.
  const std::size_t n1 = std::size_t(settings_.cells) + 1;
  std::size_t vertices = n1 * n1 + (settings_.skirts ? 4 * n1 : 0);
  std::size_t b = sizeof(ChunkData) + (n1 + 2) * (n1 + 2) * sizeof(float);
  b += vertices * (3 + 3 + 2 + 2 + (settings_.geomorph ? 1 : 0)) * sizeof(float);
  if (settings_.indices) {
    const std::size_t idx = 6 * std::size_t(settings_.cells) * std::size_t(settings_.cells) +
                            (settings_.skirts ? 4 * 6 * std::size_t(settings_.cells) : 0);
    b += idx * (vertices <= 65535 ? 2 : 4);
  }
  if (surface_) {
    b += (n1 + 2) * (n1 + 2) * (surface_->layers.size() + 1);  // splat weights, biome ids
    b += scatter_capacity_ * sizeof(ScatterInstance);
  }
  return b;
}

std::size_t ChunkScratch::bytes() const {
  return capacity_bytes(climate.temperature_c.data) + capacity_bytes(climate.moisture_mm.data) +
         capacity_bytes(biomes.weights) + capacity_bytes(biomes.dominant) +
         capacity_bytes(slope.data) + capacity_bytes(splat.weights) + scatter.bytes();
}

std::size_t ChunkGenerator::scratch_bytes() const {
  if (!surface_) return 0;
  // Every buffer is sized to exactly one node's samples ((N+3)^2 on any level; see
  // generate_surface), plus the level-0 scatter's bound.
  const std::size_t n = height_grid(ChunkKey{}).sample_count();
  const std::size_t floats = 2 + surface_->biomes.size() + 1 + surface_->layers.size();
  return n * (floats * sizeof(float) + 1) +
         scatter_chunk_scratch_bytes(*surface_, chunk_size_m(0), cell_size_m_);
}

void ChunkGenerator::generate(const ChunkKey& key, const std::array<int, 4>& stitch, ChunkData& out,
                              const ExecContext& ctx, ChunkScratch* scratch,
                              const HeightEditSnapshot* edits,
                              const InstanceEditSnapshot* instances,
                              const SplatPaintSnapshot* paint) const {
  validate_key(key);
  if (instances != nullptr && !instances->empty() && !surface_) check_instance_edits(*instances);
  if (paint != nullptr) check_paint(*paint);
  check_edit_cell(edits, cell_size_m_);
  // A forced target this CPU lacks is refused before any work.
  if (ctx.simd != SimdTarget::best) (void)resolved_simd_target(ctx);
  ChunkMeshParams p;
  p.lod = 0;
  p.coarser_neighbour = stitch;
  p.skirts = settings_.skirts;
  p.skirt_depth_m = settings_.skirt_depth_m;
  p.uv_world_wrap_m = settings_.uv_world_wrap_m;
  p.geomorph = settings_.geomorph;
  p.indices = settings_.indices;
  // Geomorph towards the parent node's surface (what is drawn once the four children merge).
  p.morph_parent_quadrant = int(key.cx & 1) | (int(key.cz & 1) << 1);
  p.validate(settings_.cells);

  out.key = key;
  out.stitch = stitch;
  out.heights.grid = height_grid(key);
  out.heights.data.resize(out.heights.grid.sample_count());
  evaluate(graph_, out.heights.grid, out.heights.data, ctx);
  if (edits != nullptr) edits->add_to(out.heights.grid, out.heights.data);
  throw_if_cancelled(ctx);
  build_chunk_mesh(out.heights, p, *table_, out.mesh);

  const int w = out.heights.grid.width;
  float lo = out.heights.data[std::size_t(w) + 1];
  float hi = lo;
  for (int j = 1; j < w - 1; ++j) {
    const float* row = out.heights.data.data() + std::size_t(j) * std::size_t(w);
    for (int i = 1; i < w - 1; ++i) {
      lo = std::min(lo, row[i]);
      hi = std::max(hi, row[i]);
    }
  }
  out.height_min_m = lo;
  out.height_max_m = hi;
  if (!surface_) return;
  ChunkScratch local;  // empty vectors: allocates nothing unless used
  ChunkScratch& s = scratch != nullptr ? *scratch : local;
  generate_surface(out, ctx, s, paint);
  if (out.scatter.capacity() < scatter_capacity_) out.scatter.reserve(scatter_capacity_);
  out.scatter.clear();
  if (out.key.level != 0) return;
  scatter_level0(out.key, out.heights, out.scatter, ctx, &s.scatter, edits, instances);
}

void ChunkGenerator::scatter_level0(const ChunkKey& key, const Field2D& heights,
                                    std::vector<ScatterInstance>& out, const ExecContext& ctx,
                                    ScatterScratch* scratch, const HeightEditSnapshot* edits,
                                    const InstanceEditSnapshot* instances) const {
  // Scatter over the edited heights (the same edits as the chunk's mesh), so trees stand on the
  // edited ground.
  const double size = chunk_size_m(0);
  const double x0 = double(key.cx) * size;
  const double z0 = double(key.cz) * size;
  surface_detail::HeightsHook adjust;
  if (edits != nullptr && !edits->empty()) {
    adjust = [edits](const GridSpec& grid, std::span<float> h) { edits->add_to(grid, h); };
  }
  surface_detail::scatter_chunk_adjusted(graph_, *surface_, seed_, x0, z0, x0 + size, z0 + size,
                                         settings_.cells, out, ctx, climate_sources_.get(), scratch,
                                         adjust);
  if (instances == nullptr) return;
  // The overrides: removed and state ones in place, added ones appended and stood on this
  // chunk's level-0 triangles (`heights`: edited, with the halo), as scatter stands its points
  // on them.
  const std::size_t added = instances->apply_to(x0, z0, x0 + size, z0 + size, out);
  const ScatterMesh mesh{0, 0, settings_.cells, settings_.cells};
  for (std::size_t k = out.size() - added; k < out.size(); ++k) {
    ScatterInstance& inst = out[k];
    // Only this chunk's added instances are checked (the whole layer is, once, by the
    // streamer's set_instance_edits): a chunk costs no scan of every override.
    if (std::size_t(inst.species) >= surface_->species.size()) check_instance_edits(*instances);
    const surface_detail::MeshPoint on =
        surface_detail::mesh_point(heights, mesh, inst.x_m, inst.z_m);
    inst.y_m = on.y_m;
    if (surface_->species[std::size_t(inst.species)].align_to_normal) inst.normal = on.normal;
  }
}

void ChunkGenerator::check_instance_edits(const InstanceEditSnapshot& instances) const {
  if (instances.empty()) return;
  if (!surface_) {
    throw Error(ErrorCategory::invalid_argument,
                "instance edits on a world without surface data (ChunkSettings::surface is off)");
  }
  const int species = int(surface_->species.size());
  const int top = instances.max_species();
  if (top >= species) {
    throw Error(ErrorCategory::invalid_argument,
                "instance edits add species " + std::to_string(top) + "; the preset has " +
                    std::to_string(species) + " species (0.." + std::to_string(species - 1) + ")");
  }
}

std::vector<ScatterInstance> ChunkGenerator::instances_near(double x_m, double z_m, double radius_m,
                                                            const HeightEditSnapshot* edits,
                                                            const InstanceEditSnapshot* instances,
                                                            const ExecContext& ctx) const {
  check_range("instances_near: x_m", x_m, Range::closed(-kMaxWorldCoordinate, kMaxWorldCoordinate));
  check_range("instances_near: z_m", z_m, Range::closed(-kMaxWorldCoordinate, kMaxWorldCoordinate));
  check_range("instances_near: radius_m", radius_m, Range::open_lo(0.0, 1e4));
  std::vector<ScatterInstance> found;
  if (!surface_) return found;
  const ChunkKey lo = key_at(x_m - radius_m, z_m - radius_m, 0);
  const ChunkKey hi = key_at(x_m + radius_m, z_m + radius_m, 0);
  if (instances != nullptr && !instances->empty()) check_instance_edits(*instances);
  check_edit_cell(edits, cell_size_m_);
  // Each level-0 chunk's heights (for the added instances' ground) and scatter only: no mesh,
  // no climate, biomes or splat.
  Field2D heights;
  std::vector<ScatterInstance> scatter;
  ScatterScratch scratch;
  const double r2 = radius_m * radius_m;
  for (std::int64_t cz = lo.cz; cz <= hi.cz; ++cz) {
    for (std::int64_t cx = lo.cx; cx <= hi.cx; ++cx) {
      const ChunkKey key{cx, cz, 0};
      heights.grid = height_grid(key);
      heights.data.resize(heights.grid.sample_count());
      evaluate(graph_, heights.grid, heights.data, ctx);
      if (edits != nullptr) edits->add_to(heights.grid, heights.data);
      scatter.clear();
      scatter_level0(key, heights, scatter, ctx, &scratch, edits, instances);
      for (const ScatterInstance& p : scatter) {
        const double dx = p.x_m - x_m, dz = p.z_m - z_m;
        if (dx * dx + dz * dz <= r2) found.push_back(p);
      }
    }
  }
  return found;
}

void ChunkGenerator::check_paint(const SplatPaintSnapshot& paint) const {
  if (!surface_) {
    if (paint.empty()) return;
    throw Error(ErrorCategory::invalid_argument,
                "splat paint on a world without surface data (ChunkSettings::surface is off)");
  }
  if (paint.cell_size_m() != cell_size_m_ || paint.layers() != int(surface_->layers.size())) {
    throw Error(ErrorCategory::invalid_argument,
                "splat paint of cell " + format_number(paint.cell_size_m()) + " m and " +
                    std::to_string(paint.layers()) + " layers on a world of cell " +
                    format_number(cell_size_m_) + " m and " +
                    std::to_string(surface_->layers.size()) + " splat layers");
  }
}

void ChunkGenerator::generate_surface(ChunkData& out, const ExecContext& ctx, ChunkScratch& s,
                                      const SplatPaintSnapshot* paint) const {
  const SurfaceParams& params = *surface_;
  compute_climate(params.climate, seed_, out.heights, {}, s.climate, ctx, climate_sources_.get());
  compute_biome_weights(params, out.heights, s.climate, s.biomes, ctx);
  if (s.slope.grid.width != out.heights.grid.width ||
      s.slope.grid.height != out.heights.grid.height) {
    s.slope = Field2D(out.heights.grid);
  }
  slope_deg_clamped(out.heights, s.slope, ctx);
  compute_splat(params, seed_, out.heights, s.slope, s.biomes, s.splat, ctx);
  if (paint != nullptr) paint->apply_to(s.splat);
  out.splat_layers = s.splat.layer_count;
  splat_to_u8(s.splat, out.splat, ctx);
  out.biome.assign(s.biomes.dominant.begin(), s.biomes.dominant.end());
}

}  // namespace terrane
