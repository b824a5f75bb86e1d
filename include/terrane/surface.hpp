// terrane surface: climate, biomes, splat weights and object scatter (module `surface`; depends
// on core, noise, graph, field and io).
//
// Pipeline (plain data and free functions; the caller owns every output):
//   heights --compute_climate--> Climate (temperature °C, moisture mm/yr)
//           --compute_biome_weights--> BiomeWeights (one weight plane per biome, dominant id)
//           --compute_splat--> SplatMap (one weight plane per layer, sum 1 per cell)
//   heights + BiomeWeights --scatter_region--> instances (Poisson-disk, per species)
//
// Determinism and seams (docs/DESIGN.md §1): every per-cell value is a pure function of (params,
// seed, the cell's world position, the height/slope values at that cell): climate noise comes
// from NoiseGridSampler (bit-identical for any sub-grid, SIMD target and thread count), the rest
// is plain float arithmetic in a fixed order. Scatter is Matérn type-II thinning of a jittered
// candidate grid anchored at the world origin: a candidate's fate depends only on candidates
// within its minimum distance (and, for exclusions, on accepted points of earlier species within
// the exclusion distance, decided the same way), so a region gives the same points whether it is
// generated whole or as chunks in any order, on any number of threads. The exception is the
// optional hydrology input (moisture boost, water exclusion by rivers/lakes): hydrology is a
// whole-map computation, so results that use it are functions of that map (a bake passes it
// only with BakeRequest::whole_map_hydrology).
//
// Threading: all functions are reentrant; parameters are immutable inputs. Scratch objects
// (ScatterScratch) belong to one call at a time. Noise runs on ExecContext::simd's target.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/graph.hpp"
#include "terrane/io.hpp"
#include "terrane/noise.hpp"

namespace terrane {

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();
inline constexpr int kMaxBiomes = 255;  // dominant ids are 8-bit
inline constexpr int kMaxSplatLayers = 32;
inline constexpr int kMaxSpecies = 64;

// ---------------------------------------------------------------------------------------------
// Climate

struct ClimateParams {
  // Temperature at sea level: mean + amplitude * noise, noise in [-1, 1].
  NoiseParams temperature_noise;         // seed is an offset, combined with the world seed
  double temperature_mean_c = 14.0;      // [Units: °C] [Limit: [-100, 100]]
  double temperature_amplitude_c = 6.0;  // [Units: °C] [Limit: [0, 100]]
  // Latitude gradient: temperature changes by this much per km towards +Z (negative: colder
  // to the "north" at -Z is +value). [Units: °C/km] [Limit: [-100, 100]]
  double latitude_gradient_c_per_km = 0.0;
  // Altitude lapse rate: temperature falls by this much per km above sea level (not below it).
  double lapse_rate_c_per_km = 6.5;  // [Units: °C/km] [Limit: [0, 50]]
  // Moisture as annual precipitation: mean + amplitude * noise, clamped to >= 0.
  NoiseParams moisture_noise;
  // Optional graph sources: ids of preset graph nodes whose output (in [-1, 1]) replaces the
  // temperature / moisture noise above (see ClimateSources). Empty: the noise.
  std::string temperature_node;
  std::string moisture_node;
  double moisture_mean_mm = 800.0;       // [Units: mm/yr] [Limit: [0, 20000]]
  double moisture_amplitude_mm = 600.0;  // [Units: mm/yr] [Limit: [0, 20000]]
  // Boost near water (rivers, lakes, sea from a Hydrology): + boost * (Gaussian blur of the
  // water mask, sigma = water_boost_distance_m). Only applied when a mask is given.
  double water_boost_mm = 400.0;          // [Units: mm/yr] [Limit: [0, 20000]]
  double water_boost_distance_m = 150.0;  // [Units: m] [Limit: (0, 1e5]]
  double sea_level_m = 0.0;               // lapse rate reference [Units: m] finite

  ClimateParams();
  // Schema table: the keys of surface.climate and their limits (the two noise objects and
  // sea_level_m, which comes from the world, are not in it).
  static std::span<const Field<ClimateParams>> fields();
  void validate(std::string_view path = "surface.climate") const;
};

struct Climate {
  Field2D temperature_c;  // [Units: °C]
  Field2D moisture_mm;    // [Units: mm/yr], >= 0
};

// The graph nodes named by ClimateParams::temperature_node / moisture_node, compiled with the
// preset's seed so that they evaluate to the node's output v in [-1, 1] (null when not named).
// Immutable; may be shared between threads.
struct ClimateSources {
  std::unique_ptr<CompiledGraph> temperature;
  std::unique_ptr<CompiledGraph> moisture;
};
// Throws Error(invalid_argument) naming surface.climate.<field> when a node id is unknown.
ClimateSources compile_climate_sources(const GraphSource& generator, const ClimateParams& params);

// Climate of every sample of heights.grid. `water` is empty or one byte per sample (non-zero =
// river, lake or sea); with it, moisture is boosted near water (a clamped-edge blur: whole maps
// only, not seamless across chunks). With `sources`, a compiled node replaces the matching
// noise (evaluated on heights.grid: as seamless as the graph). Throws Error on invalid params
// or sizes, or when a node is named in params but missing from `sources`.
void compute_climate(const ClimateParams& params, std::uint64_t seed, const Field2D& heights,
                     std::span<const std::uint8_t> water, Climate& out, const ExecContext& ctx = {},
                     const ClimateSources* sources = nullptr);

// ---------------------------------------------------------------------------------------------
// Biomes, splat layers, species: the preset's "surface" section

// One splat (texture) layer and its rule. Raw weight of layer L at a cell:
//   (sum_b biome_weight[b] * biome[b].splat[L]) * height_factor * slope_factor * noise_factor
// where height_factor = smoothstep over [height_min_m, height_max_m] with edges widened by
// height_blend_m, slope_factor likewise in degrees, noise_factor = 1 + noise_amplitude * n.
struct SplatLayer {
  std::string name;                                              // unique, non-empty
  std::array<std::uint8_t, 3> colour{128, 128, 128};             // preview colour (sRGB)
  double height_min_m = -kUnbounded, height_max_m = kUnbounded;  // [Units: m]
  double height_blend_m = 2.0;                                   // [Units: m] [Limit: > 0]
  double slope_min_deg = 0.0, slope_max_deg = 90.0;  // [Units: degrees] [Limit: [0, 90]]
  double slope_blend_deg = 4.0;                      // [Units: degrees] [Limit: > 0]
  NoiseParams noise;                                 // seed offset, combined with the world seed
  double noise_amplitude = 0.0;                      // [Limit: [0, 1]]

  // Schema table: the scalar keys of surface.layers[i] (colour and noise are read as objects).
  static std::span<const Field<SplatLayer>> fields();
};

// One row of the Whittaker-style table: a box in (temperature, moisture, height). Missing
// bounds are unbounded. Boxes must not overlap (with positive volume).
struct Biome {
  std::string name;                                                        // unique, non-empty
  double temperature_min_c = -kUnbounded, temperature_max_c = kUnbounded;  // [Units: °C]
  double moisture_min_mm = -kUnbounded, moisture_max_mm = kUnbounded;      // [Units: mm/yr]
  double height_min_m = -kUnbounded, height_max_m = kUnbounded;            // [Units: m]
  std::array<std::uint8_t, 3> colour{128, 128, 128};
  std::vector<float> splat;    // one weight per SurfaceParams::layers entry [Limit: >= 0]
  std::vector<float> scatter;  // density multiplier per species [Limit: >= 0]

  // Schema table: the scalar keys of surface.biomes[i] (null bounds are unbounded).
  static std::span<const Field<Biome>> fields();
};

// Half-widths of the smooth border between biomes: a biome's membership rises from 0 to 1
// over [edge - blend, edge + blend] (smoothstep) on each bounded edge.
struct BiomeBlend {
  double temperature_c = 1.5;  // [Units: °C] [Limit: > 0]
  double moisture_mm = 80.0;   // [Units: mm/yr] [Limit: > 0]
  double height_m = 1.5;       // [Units: m] [Limit: > 0]

  static std::span<const Field<BiomeBlend>> fields();  // surface.blend
};

struct SpeciesExclusion {
  int species = 0;          // index of an earlier species
  double distance_m = 1.0;  // no point of this species within distance_m of one of `species`
                            // [Units: m] [Limit: (0, 1000]]

  // Schema table of surface.species[i].exclude[k]: distance_m ("species" is a name).
  static std::span<const Field<SpeciesExclusion>> fields();
};

struct Species {
  std::string name;              // unique, non-empty
  double density_per_m2 = 0.01;  // target accepted density on fully suitable land
                                 // [Units: 1/m^2] [Limit: >= 0; density * pi * r^2 < 0.9]
  double min_distance_m = 2.0;   // [Units: m] [Limit: (0, 1000]]
  double height_min_m = -kUnbounded, height_max_m = kUnbounded;  // [Units: m]
  double slope_max_deg = 35.0;     // [Units: degrees] [Limit: [0, 90]]
  double min_biome_weight = 0.0;   // candidates need sum of weights of biomes whose scatter
                                   // multiplier is > 0 at least this [Limit: [0, 1]]
  NoiseParams cluster_noise;       // clustering: density *= clamp(1 + amp * n, 0, 2)
  double cluster_amplitude = 0.0;  // [Limit: [0, 1]]
  bool avoid_water = true;         // rejects below sea level and on water-mask cells
  std::vector<SpeciesExclusion> exclusions;
  double yaw_min_deg = 0.0, yaw_max_deg = 360.0;  // [Limit: finite, min <= max]
  double scale_xz_min = 0.8, scale_xz_max = 1.2;  // [Limit: > 0, min <= max]
  double scale_y_min = 0.8, scale_y_max = 1.2;    // [Limit: > 0, min <= max]
  bool align_to_normal = false;  // instance normal = terrain normal, else straight up
  std::uint64_t seed = 0;        // offset, combined with the world seed and species index

  // Schema table: the scalar keys of surface.species[i] (cluster_noise and exclude are objects).
  static std::span<const Field<Species>> fields();
};

struct SurfaceParams {
  ClimateParams climate;
  BiomeBlend blend;
  std::vector<SplatLayer> layers;  // [Limit: 1..kMaxSplatLayers]
  std::vector<Biome> biomes;       // [Limit: 1..kMaxBiomes]
  std::vector<Species> species;    // [Limit: 0..kMaxSpecies]
  // Steep slopes go to rock: rock weight = smoothstep(rock_slope_deg - rock_blend_deg,
  // rock_slope_deg + rock_blend_deg, slope); other layers keep (1 - rock weight) of theirs.
  int rock_layer = -1;           // -1: no rock rule, else a layer index
  double rock_slope_deg = 40.0;  // [Units: degrees] [Limit: (0, 90)]
  double rock_blend_deg = 6.0;   // [Units: degrees] [Limit: > 0]
  double sea_level_m = 0.0;      // water exclusion of species [Units: m] (from the world)

  // Schema table: the scalar keys of the surface section itself (rock_slope_deg,
  // rock_blend_deg); rock_layer is a layer name, the lists are read entry by entry.
  static std::span<const Field<SurfaceParams>> fields();
  // Checks every range, the biome table (non-empty, no overlapping boxes, vector sizes) and
  // exclusions. Messages name `path` + the JSON field, the value and the allowed range.
  void validate(std::string_view path = "surface") const;
};

// The built-in biome set (ocean, beach, snow, tundra, rock, desert, grassland, forest), eight
// layers (seabed, sand, grass, forest_floor, dry_soil, moss, rock, snow) and three species
// (tree, bush, boulder), tuned to `world` (sea level; the "arid" palette gets a hot, dry climate).
SurfaceParams default_surface(const WorldSettings& world);

// ---------------------------------------------------------------------------------------------
// Biome weights

struct BiomeWeights {
  GridSpec grid;
  int biome_count = 0;
  std::vector<float> weights;          // plane per biome: weights[b * cells + c]; sum 1 per cell
  std::vector<std::uint8_t> dominant;  // index of the largest weight (lowest index on ties)

  float weight(int b, std::size_t cell) const {
    return weights[std::size_t(b) * grid.sample_count() + cell];
  }
};

// Membership of biome b: product over its bounded edges of smoothstep(edge - blend, edge +
// blend, v) (lower edges) or 1 - smoothstep (upper edges), normalised over biomes. A cell that
// no biome reaches (a gap in the table wider than the blend) belongs wholly to the biome whose
// box is nearest in blend units. O(cells * biomes), parallel over rows.
void compute_biome_weights(const SurfaceParams& params, const Field2D& heights,
                           const Climate& climate, BiomeWeights& out, const ExecContext& ctx = {});

// ---------------------------------------------------------------------------------------------
// Splat weights

struct SplatMap {
  GridSpec grid;
  int layer_count = 0;
  std::vector<float> weights;  // plane per layer: weights[l * cells + c]; sum 1 per cell

  float weight(int l, std::size_t cell) const {
    return weights[std::size_t(l) * grid.sample_count() + cell];
  }
};

// Splat weights of every cell (see SplatLayer and SurfaceParams::rock_layer), normalised so the
// float sum is 1 (the largest weight absorbs the rounding). Cells whose raw weights are all 0
// go wholly to the layer with the largest biome-mixed weight (layer 0 on ties).
// slope_deg: same grid as heights (e.g. slope_deg_clamped()). Parallel over rows.
void compute_splat(const SurfaceParams& params, std::uint64_t seed, const Field2D& heights,
                   const Field2D& slope_deg, const BiomeWeights& biomes, SplatMap& out,
                   const ExecContext& ctx = {});

// 8-bit weights, texel-interleaved (out[c * layers + l]), summing to exactly 255 per texel:
// floor(w * 255), then the remaining units go to the largest remainders (lowest layer first
// on ties). out is resized.
void splat_to_u8(const SplatMap& splat, std::vector<std::uint8_t>& out,
                 const ExecContext& ctx = {});

// The splat map resampled to cells, as Unity's alphamaps lay out texels: texel (i, j) covers map
// cell (i0 + i, j0 + j) (its centre is the cell's centre; out.grid's origin is shifted by half a
// cell) and holds the mean of the cell's four corner weights, which sums to 1 (float rounding
// absorbed by the largest weight). A Unity terrain of 2^n + 1 heightmap samples gets 2^n x 2^n
// texels, Unity's power-of-two alphamap resolution. Throws Error(invalid_argument) when the cells
// do not lie within the map or the weights do not match the grid. Parallel over rows.
void splat_cell_average(const SplatMap& in, int i0, int j0, int cells_x, int cells_z, SplatMap& out,
                        const ExecContext& ctx = {});

// ---------------------------------------------------------------------------------------------
// Scatter

struct ScatterInstance {
  double x_m = 0.0, z_m = 0.0;  // world position [Units: m]
  float y_m = 0.0f;  // height of the level-0 mesh triangle under (x, z) [Units: m] (ScatterMesh)
  float yaw_deg = 0.0f;
  float scale_xz = 1.0f, scale_y = 1.0f;
  std::array<float, 3> normal{0.0f, 1.0f, 0.0f};  // up vector (terrain normal if aligned)
  int species = 0;
  // Stable id: a 64-bit hash of (world seed, species, the instance's candidate cell). The same
  // instance has the same id in every chunk, map and run, on every machine, so a save can name
  // it (a felled tree); distinct instances collide with a probability of about n^2 / 2^65.
  std::uint64_t id = 0;
  // The game's state of the instance: 0 as the scatter makes it; an instance override
  // (edit.hpp's InstanceEdits) sets it. 64 bits, so the struct has no padding (tests compare
  // instances with memcmp).
  std::uint64_t state = 0;
};

// The triangles scattered points sit on: the level-0 meshes of the heights (build_region_mesh
// at lod 0, chunk meshes at level 0). Lattice cells are grouped into blocks of cells_x x cells_z
// cells, the first starting at lattice index (index_x0, index_z0) (GridSpec::index_x0 units);
// each block is one mesh, whose cells are split along the diagonal through the corner farthest
// from the block's centre. cells_x == 0 (the default): one block, the input grid itself.
//   a bake's map (one mesh):         {map.index_x0, map.index_z0, map.width - 1, map.height - 1}
//   a map cut into N x N tiles:      cells = the tile's cells (TilePlan::tile_cells_x/z)
//   the streamed world (N = cells):  {0, 0, N, N}
struct ScatterMesh {
  std::int64_t index_x0 = 0, index_z0 = 0;
  int cells_x = 0, cells_z = 0;  // [Limit: 0, or both >= 1]
};

// What scatter reads: heights and biome weights on one grid (same GridSpec), covering the query
// region expanded by scatter_margin_m() (plus one cell); `water` is empty or one byte per cell;
// `mesh`: the triangulation whose height and normal the points take. `rule_mesh`: the
// triangulation whose height and slope the species' height, slope and water rules test (which
// points exist); none: `mesh`. A bake passes a world-anchored one (the streamed world's chunk
// triangulation) so that which points a map holds does not depend on the map's extent, while
// each point still sits on the map's own exported mesh.
struct ScatterInput {
  const Field2D* heights = nullptr;
  const BiomeWeights* biomes = nullptr;
  std::span<const std::uint8_t> water;
  ScatterMesh mesh;
  std::optional<ScatterMesh> rule_mesh;
};

// Extra distance around a query region that ScatterInput must cover.
double scatter_margin_m(const SurfaceParams& params);

// Working memory of scatter_region() (candidate and acceptance blocks, O(tile area) per
// species) and scatter_chunk() (plus its heights, climate and biome weights over the region and
// margin), owned by the caller and reused from call to call: one per thread, never shared by
// concurrent calls. Fresh buffers of this size are mostly page faults, so a caller that
// scatters chunk after chunk keeps one. It allocates on first use and holds its buffers
// (bytes()) until destroyed; a moved-from scratch is empty and usable. Contents between calls
// are unspecified.
class ScatterScratch {
 public:
  ScatterScratch();  // holds nothing yet
  ~ScatterScratch();
  ScatterScratch(ScatterScratch&&) noexcept;
  ScatterScratch& operator=(ScatterScratch&&) noexcept;

  // Heap memory held by its buffers [Units: bytes]; 0 before first use.
  std::size_t bytes() const;

  struct Impl;  // internal (scatter.cpp)
  Impl& impl();

 private:
  std::unique_ptr<Impl> impl_;
};

// Upper bound of ScatterScratch::bytes() for a scratch used only by scatter_chunk() calls with
// these params, a graph of cell size cell_size_m and regions of at most side_m x side_m (e.g. a
// streamer's per-worker budget) [Units: bytes]. Throws Error(invalid_argument) for invalid
// params, a negative or non-finite side or a cell size that is not > 0.
std::size_t scatter_chunk_scratch_bytes(const SurfaceParams& params, double side_m,
                                        double cell_size_m);

// Instances of every species with position in [x0_m, x1_m) x [z0_m, z1_m), appended to `out`
// ordered by tile (256 m or more, z then x), species, then candidate cell (z, then x); work and
// scratch memory are per tile, so the cost is O(region area) with bounded memory. Height, slope
// and normal at a point are those of the mesh triangle under it (ScatterInput::mesh), computed in
// double from the float samples: y_m is float(the triangle's height), bit-identical to
// float(TerrainQuery::height_at) for the streamed world. Candidates: one per cell of
// a grid of side min_distance / sqrt(2) anchored at the world origin, jittered, kept with
// probability derived from the local density (compensated for Matérn-II thinning); a kept candidate
// is accepted when it passes the height/slope/biome/water/exclusion tests and no other such
// candidate of the species within min_distance has a higher priority (hash). Throws
// Error(invalid_argument) when the input does not cover the region plus margin. Parallel over
// candidate rows. scratch: the caller's working memory (see ScatterScratch); nullptr = buffers
// allocated for this call only.
void scatter_region(const SurfaceParams& params, std::uint64_t seed, const ScatterInput& input,
                    double x0_m, double z0_m, double x1_m, double z1_m,
                    std::vector<ScatterInstance>& out, const ExecContext& ctx = {},
                    ScatterScratch* scratch = nullptr);

// The density scatter_region aims at, per species, at world (x_m, z_m) [Units: 1/m^2]: the
// species' density times its biome multipliers and cluster factor, 0 where its height, slope,
// water or biome-weight rule rejects the point; the thinning by exclusions is not applied.
// For pictures whose cost must follow their pixels, not the ground area (the biome preview).
// out: one value per species. Throws Error(invalid_argument) for mismatched inputs.
void scatter_density(const SurfaceParams& params, std::uint64_t seed, const ScatterInput& input,
                     double x_m, double z_m, std::span<double> out,
                     SimdTarget simd = SimdTarget::best);

// Per-chunk query for a streamer: evaluates the graph, climate and biome weights on a grid
// covering the region plus margin (aligned to the world lattice of spacing
// graph.world().cell_size_m, origin 0) and scatters the region. No hydrology: water is what
// lies below sea level. Seamless: identical points for any split of a region. chunk_cells: the
// world's cells per chunk side (ChunkSettings::cells); the points sit on the level-0 chunk
// meshes (ScatterMesh {0, 0, chunk_cells, chunk_cells}) [Limit: >= 1]. scratch: the caller's
// working memory, which also holds the grid's fields (see ScatterScratch); nullptr = buffers
// allocated for this call only.
void scatter_chunk(const CompiledGraph& graph, const SurfaceParams& params, std::uint64_t seed,
                   double x0_m, double z0_m, double x1_m, double z1_m, int chunk_cells,
                   std::vector<ScatterInstance>& out, const ExecContext& ctx = {},
                   const ClimateSources* sources = nullptr, ScatterScratch* scratch = nullptr);

// ---------------------------------------------------------------------------------------------
// Exports (atomic writes; messages start with the file's path)

// Unity: ceil(layers / 4) RGBA PNGs (layers 4k..4k+3 in R, G, B, A; missing channels 0), one
// texel per sample of `splat` (pass splat_cell_average() for Unity's cell texels; the bake does).
// Row 0 is z = grid row 0. Returns the file names written (path_prefix + "_splat<k>.png").
std::vector<std::filesystem::path> write_splat_unity(const std::filesystem::path& path_prefix,
                                                     const SplatMap& splat,
                                                     const ExecContext& ctx = {});
// Unreal: one 8-bit greyscale PNG per layer (path_prefix + "_<layer name>.png").
std::vector<std::filesystem::path> write_splat_unreal(const std::filesystem::path& path_prefix,
                                                      const SurfaceParams& params,
                                                      const SplatMap& splat,
                                                      const ExecContext& ctx = {});
// RGB preview: layer colours mixed by weight.
void write_splat_preview_png(const std::filesystem::path& path, const SurfaceParams& params,
                             const SplatMap& splat, const ExecContext& ctx = {});
// Biome-id map: 8-bit greyscale, value = dominant biome index.
void write_biome_id_png(const std::filesystem::path& path, const BiomeWeights& biomes,
                        const ExecContext& ctx = {});
// Biome preview: biome colours mixed by weight, hill-shaded by `heights`, lakes and rivers of
// `water` above params.sea_level_m in the relief preview's water colours (lakes by depth), and the
// scatter as dots in a per-species colour drawn from scatter_density(): the image is cut into
// square dot cells of side max(2, round(min(width, height) / 128)) pixels, each holding a dot
// (a disc of 0.35 times that side, jittered in the cell) with probability 0.7 (1 - e^-N), N the
// expected instances in the cell, of a species drawn in proportion to their densities (hashes
// of seed and cell). The cost follows the pixels, not the ground area or the densities.
// ctx.threads workers; deterministic.
void write_biome_preview_png(const std::filesystem::path& path, const SurfaceParams& params,
                             std::uint64_t seed, const Field2D& heights, const BiomeWeights& biomes,
                             const PreviewWater& water = {}, const ExecContext& ctx = {});
// CSV "x,y,z,yaw,scale_xz,scale_y,species,id" (metres, degrees, species index, the stable id
// in 16 hex digits), one line each; with_state adds a last column "state" (the instance's
// state, decimal: a world's instance overrides set it).
void write_scatter_csv(const std::filesystem::path& path,
                       std::span<const ScatterInstance> instances, bool with_state = false);
// Unity TreeInstance-style CSV "x,y,z,rotation,width_scale,height_scale,prototype": x, z
// normalised to [0, 1] over the grid's extent, y over [height_min_m, height_max_m], rotation in
// radians.
void write_scatter_unity_csv(const std::filesystem::path& path,
                             std::span<const ScatterInstance> instances, const GridSpec& grid,
                             double height_min_m, double height_max_m);
// JSON manifest: species (name, id, count, density, min distance, scale/yaw ranges,
// align_to_normal), region, instance count, the CSV's columns (with_state: as
// write_scatter_csv's) and the listed files.
void write_scatter_manifest(const std::filesystem::path& path, const SurfaceParams& params,
                            std::span<const ScatterInstance> instances, const GridSpec& grid,
                            std::span<const std::string> files, bool with_state = false);

}  // namespace terrane
