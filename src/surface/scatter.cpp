// Seamless Poisson-disk scatter by Matérn type-II thinning (Matérn 1960, "Spatial variation";
// the hard-core process where each point survives if no neighbour within the hard-core radius
// has a higher mark). Candidates sit on a jittered grid anchored at the world origin with cell
// side <= r / sqrt(2), each derived from a hash of (seed, species, cell), so the candidate set
// is a pure function of the world; a candidate's fate reads only candidates within r (and, for
// exclusions, accepted points of earlier species within the exclusion distance, themselves
// decided the same way). Whole regions and chunks in any order therefore give the same points.
//
// Density: Matérn-II thinning of a Poisson process of intensity lambda keeps
// (1 - exp(-lambda A)) / A points per unit area (A = pi r^2); inverting gives the candidate
// intensity lambda = -ln(1 - rho A) / A for a target density rho (rho A < 1).
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

#include "mesh/mesh_internal.hpp"
#include "noise/point_sampler.hpp"
#include "surface/surface_internal.hpp"

namespace terrane {

using surface_detail::fail;

namespace {

constexpr double kCellFactor = 0.7071;  // cell side / min distance, <= 1 / sqrt(2)
constexpr double kTileSideM = 256.0;    // scatter_region works tile by tile

struct Candidate {
  double x = 0.0, z = 0.0;
  std::uint64_t priority = 0;
  std::uint64_t hash = 0;
  std::uint64_t id = 0;
  float y = 0.0f;
  float nx = 0.0f, ny = 1.0f, nz = 0.0f;
  bool alive = false;
};

// A dense block of candidate cells [gx0, gx0 + w) x [gz0, gz0 + h).
struct CellBlock {
  std::int64_t gx0 = 0, gz0 = 0;
  std::int64_t w = 0, h = 0;
  std::vector<Candidate> cells;
  Candidate& at(std::int64_t gx, std::int64_t gz) {
    return cells[std::size_t((gz - gz0) * w + (gx - gx0))];
  }
  const Candidate& at(std::int64_t gx, std::int64_t gz) const {
    return cells[std::size_t((gz - gz0) * w + (gx - gx0))];
  }
};

struct Plan {
  double r = 1.0, r2 = 1.0, cell = 1.0;
  std::int64_t K = 2;
  double area = 1.0;  // pi r^2
  double tan2_slope = 0.0;
  double max_multiplier = 0.0;
  double margin_m = 0.0;  // acceptance region = query region grown by this
  std::uint64_t seed = 0;
  NoiseParams cluster;
  // The cluster noise prepared once (only where the species has a cluster amplitude): the bits
  // of noise_at(cluster, x, z) on the call's SIMD target.
  std::optional<NoisePointSampler> cluster_noise;
};

struct SurfaceSample {
  double y = 0.0, dhdx = 0.0, dhdz = 0.0;
  std::array<float, 3> normal{0.0f, 1.0f, 0.0f};
  std::size_t nearest = 0;
};

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  const std::int64_t r = a % b;
  return r < 0 ? r + b : r;
}

// The plane of the level-0 mesh triangle under (x, z) over `heights`, whose cells are split as
// `mesh` (resolved: cells_x != 0) says, with the cell, split and arithmetic of TerrainQuery.
SurfaceSample sample_mesh(const Field2D& h, const ScatterMesh& mesh, double x, double z) {
  const GridSpec& g = h.grid;
  const double s = g.spacing_m;
  // The lattice cell holding (x, z): x_m(gi) <= x < x_m(gi + 1) as the grid computes x_m.
  const auto cell = [s](double v, double origin) {
    auto k = std::int64_t(std::floor((v - origin) / s));
    if (v < origin + double(k) * s) {
      --k;
    } else if (v >= origin + double(k + 1) * s) {
      ++k;
    }
    return k;
  };
  const std::int64_t gi =
      std::clamp<std::int64_t>(cell(x, g.origin_x_m), g.index_x0, g.index_x0 + g.width - 2);
  const std::int64_t gj =
      std::clamp<std::int64_t>(cell(z, g.origin_z_m), g.index_z0, g.index_z0 + g.height - 2);
  const double x0 = g.origin_x_m + double(gi) * s, z0 = g.origin_z_m + double(gj) * s;
  const double sx = (g.origin_x_m + double(gi + 1) * s) - x0;
  const double sz = (g.origin_z_m + double(gj + 1) * s) - z0;
  const bool main = mesh_detail::main_diagonal(int(floor_mod(gi - mesh.index_x0, mesh.cells_x)),
                                               int(floor_mod(gj - mesh.index_z0, mesh.cells_z)),
                                               mesh.cells_x, mesh.cells_z);
  const double u = (x - x0) / sx, v = (z - z0) / sz;
  const int tri = mesh_detail::cell_triangle(main, u, v);
  const std::size_t W = std::size_t(g.width);
  const std::size_t c00 = std::size_t(gj - g.index_z0) * W + std::size_t(gi - g.index_x0);
  const std::array<std::size_t, 4> at = {c00, c00 + 1, c00 + W, c00 + W + 1};
  std::array<double, 4> corner{0.0, 0.0, 0.0, 0.0};
  for (int k : mesh_detail::cell_triangle_corners(main, tri)) {
    corner[std::size_t(k)] = double(h.data[at[std::size_t(k)]]);
  }
  const mesh_detail::CellPlane p = mesh_detail::cell_triangle_plane(main, tri, corner);
  SurfaceSample out;
  out.y = p.at(u, v);
  out.dhdx = p.du / sx;
  out.dhdz = p.dv / sz;
  out.normal = mesh_detail::cell_plane_normal(p, sx, sz);
  out.nearest = at[std::size_t((v >= 0.5 ? 2 : 0) + (u >= 0.5 ? 1 : 0))];
  return out;
}

// The surface of the level-0 mesh (ScatterInput::mesh) over the input grid: the plane of the
// triangle under (x, z), with the cell, split and arithmetic of TerrainQuery (so that a point's
// height is the mesh's, and for the streamed world bit-identical to TerrainQuery::height_at).
class InputSampler {
 public:
  explicit InputSampler(const ScatterInput& in)
      : h_(*in.heights),
        b_(*in.biomes),
        water_(in.water),
        g_(in.heights->grid),
        mesh_(resolved(in.mesh)),
        rules_(in.rule_mesh ? resolved(*in.rule_mesh) : mesh_),
        separate_rules_(in.rule_mesh.has_value()) {}

  // The surface of the rule mesh (ScatterInput::rule_mesh): what the rules test.
  SurfaceSample at(double x, double z) const { return at(x, z, rules_); }
  // The surface of the output mesh (ScatterInput::mesh): where the points sit.
  SurfaceSample on_mesh(double x, double z) const { return at(x, z, mesh_); }
  // Whether the two differ (the points' height and normal are then taken again on the mesh).
  bool separate_rules() const { return separate_rules_; }
  float biome_weight(int b, std::size_t c) const { return b_.weight(b, c); }
  bool water(std::size_t c) const { return !water_.empty() && water_[c] != 0; }

 private:
  ScatterMesh resolved(const ScatterMesh& m) const {
    if (m.cells_x != 0) return m;
    return {g_.index_x0, g_.index_z0, g_.width - 1, g_.height - 1};
  }

  SurfaceSample at(double x, double z, const ScatterMesh& mesh) const {
    return sample_mesh(h_, mesh, x, z);
  }

  const Field2D& h_;
  const BiomeWeights& b_;
  std::span<const std::uint8_t> water_;
  const GridSpec& g_;
  ScatterMesh mesh_, rules_;
  bool separate_rules_ = false;
};

std::int64_t cell_of(double x, double cell) {
  return std::int64_t(std::floor(x / cell));
}

// Sizes a buffer to n elements; its capacity becomes exactly n when it has to grow (resize
// alone may double it), so reused scratch never holds more than the largest request.
template <class T>
void resize_exact(std::vector<T>& v, std::size_t n) {
  if (v.capacity() < n) v.reserve(n);
  v.resize(n);
}

// What the plans are for: sizes and margins only, or scatter itself (which also prepares each
// species' cluster noise sampler).
enum class PlansFor { sizes, scatter };

std::vector<Plan> make_plans(const SurfaceParams& params, std::uint64_t seed, PlansFor use,
                             SimdTarget simd = SimdTarget::best) {
  const std::size_t ns = params.species.size();
  std::vector<Plan> plans(ns);
  for (std::size_t s = 0; s < ns; ++s) {
    const Species& S = params.species[s];
    Plan& p = plans[s];
    p.r = S.min_distance_m;
    p.r2 = p.r * p.r;
    p.cell = p.r * kCellFactor;
    p.K = std::int64_t(std::ceil(p.r / p.cell));
    p.area = std::numbers::pi * p.r2;
    const double t = std::tan(S.slope_max_deg * std::numbers::pi / 180.0);
    p.tan2_slope = S.slope_max_deg >= 90.0 ? INFINITY : t * t;
    for (const Biome& b : params.biomes)
      p.max_multiplier = std::max(p.max_multiplier, double(b.scatter[s]));
    p.seed = surface_detail::purpose_seed(seed, surface_detail::kTagScatter,
                                          hash_combine(S.seed, std::uint64_t(s)));
    p.cluster = S.cluster_noise;
    p.cluster.seed =
        surface_detail::purpose_seed(seed, surface_detail::kTagCluster, S.cluster_noise.seed);
    if (use == PlansFor::scatter && S.cluster_amplitude > 0.0) {
      p.cluster_noise.emplace(p.cluster, simd);
    }
  }
  // Earlier species must be known wherever a later one tests its exclusions.
  for (std::size_t t = ns; t-- > 0;) {
    const Plan& pt = plans[t];
    for (const SpeciesExclusion& x : params.species[t].exclusions) {
      Plan& pe = plans[std::size_t(x.species)];
      pe.margin_m = std::max(pe.margin_m, pt.margin_m + double(pt.K + 1) * pt.cell + x.distance_m);
    }
  }
  return plans;
}

// Keep probability of a candidate cell at target density rho.
double keep_probability(const Plan& p, double rho) {
  const double x = std::min(rho * p.area, 0.999);
  if (x <= 0.0) return 0.0;
  const double lambda = -std::log1p(-x) / p.area;
  return std::min(lambda * p.cell * p.cell, 1.0);
}

// Target density of species s at (x, z) with the surface sample `at` there [Units: 1/m^2]:
// the species' density times the biomes' scatter multipliers and the cluster factor, 0 where
// its height, slope, water or biome-weight rule rejects the point.
double target_density(const SurfaceParams& params, std::size_t s, const Plan& p,
                      const InputSampler& sampler, const SurfaceSample& at, double x, double z) {
  const Species& S = params.species[s];
  if (at.y < S.height_min_m || at.y > S.height_max_m) return 0.0;
  if (at.dhdx * at.dhdx + at.dhdz * at.dhdz > p.tan2_slope) return 0.0;
  if (S.avoid_water && (at.y < double(float(params.sea_level_m)) || sampler.water(at.nearest))) {
    return 0.0;
  }
  double mult = 0.0, allowed = 0.0;
  for (std::size_t b = 0; b < params.biomes.size(); ++b) {
    const float f = params.biomes[b].scatter[s];
    if (f <= 0.0f) continue;
    const double w = sampler.biome_weight(int(b), at.nearest);
    mult += w * double(f);
    allowed += w;
  }
  if (mult <= 0.0 || allowed < S.min_biome_weight) return 0.0;
  double rho = S.density_per_m2 * mult;
  if (S.cluster_amplitude > 0.0) {
    rho *= std::clamp(1.0 + S.cluster_amplitude * double(p.cluster_noise->at(x, z)), 0.0, 2.0);
  }
  return rho;
}

}  // namespace

// The candidate and acceptance blocks of scatter_region and the fields of scatter_chunk. Reused
// from call to call (assign() keeps capacity): fresh multi-megabyte blocks per tile and species
// were mostly page faults (45% of a streamed chunk's scatter).
struct ScatterScratch::Impl {
  std::vector<CellBlock> accepted;  // per species
  CellBlock candidates;             // one species at a time
  Field2D heights;                  // scatter_chunk's inputs
  Climate climate;
  BiomeWeights biomes;
};

ScatterScratch::ScatterScratch() = default;  // allocates on first use
ScatterScratch::~ScatterScratch() = default;
ScatterScratch::ScatterScratch(ScatterScratch&&) noexcept = default;
ScatterScratch& ScatterScratch::operator=(ScatterScratch&&) noexcept = default;

ScatterScratch::Impl& ScatterScratch::impl() {
  if (!impl_) impl_ = std::make_unique<Impl>();
  return *impl_;
}

std::size_t ScatterScratch::bytes() const {
  if (!impl_) return 0;
  const Impl& m = *impl_;
  auto cap = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  std::size_t b = sizeof(Impl) + cap(m.accepted) + cap(m.candidates.cells);
  for (const CellBlock& a : m.accepted) b += cap(a.cells);
  b += cap(m.heights.data) + cap(m.climate.temperature_c.data) + cap(m.climate.moisture_mm.data);
  b += cap(m.biomes.weights) + cap(m.biomes.dominant);
  return b;
}

namespace {

// Scatter of the region [x0_m, x1_m) x [z0_m, z1_m) from scratch (its own margins), appended
// to `out`. Any split of a region into tiles gives the same points (see the file comment).
void scatter_tile(const SurfaceParams& params, const std::vector<Plan>& plans,
                  const InputSampler& sampler, double x0_m, double z0_m, double x1_m, double z1_m,
                  std::vector<ScatterInstance>& out, const ExecContext& ctx,
                  ScatterScratch::Impl& scratch) {
  if (scratch.accepted.size() < plans.size()) scratch.accepted.resize(plans.size());
  std::vector<CellBlock>& accepted = scratch.accepted;

  for (std::size_t s = 0; s < plans.size(); ++s) {
    const Species& S = params.species[s];
    const Plan& p = plans[s];
    CellBlock& acc = accepted[s];
    acc.gx0 = cell_of(x0_m - p.margin_m, p.cell);
    acc.gz0 = cell_of(z0_m - p.margin_m, p.cell);
    acc.w = cell_of(x1_m + p.margin_m, p.cell) - acc.gx0 + 1;
    acc.h = cell_of(z1_m + p.margin_m, p.cell) - acc.gz0 + 1;
    CellBlock& cand = scratch.candidates;
    cand.gx0 = acc.gx0 - p.K;
    cand.gz0 = acc.gz0 - p.K;
    cand.w = acc.w + 2 * p.K;
    cand.h = acc.h + 2 * p.K;
    if (double(cand.w) * double(cand.h) > double(kMaxGridSamples)) {
      throw Error(ErrorCategory::limit,
                  "scatter_region: species '" + S.name +
                      "' needs more than 2^30 candidate cells for this region");
    }
    cand.cells.assign(std::size_t(cand.w * cand.h), Candidate{});
    const double p_max =
        keep_probability(p, S.density_per_m2 * p.max_multiplier * (1.0 + S.cluster_amplitude));

    // Stage 1: each candidate alone (density, height, slope, biome, water, exclusions).
    parallel_for(ctx, cand.h, 8, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) {
        throw_if_cancelled(ctx);
        const std::int64_t gz = cand.gz0 + r;
        for (std::int64_t k = 0; k < cand.w; ++k) {
          const std::int64_t gx = cand.gx0 + k;
          Candidate& c = cand.cells[std::size_t(r * cand.w + k)];
          const std::uint64_t h =
              hash_combine(hash_combine(p.seed, std::uint64_t(gx)), std::uint64_t(gz));
          const double keep_u = double(unit_float(mix64(h + 1)));
          if (keep_u >= p_max) continue;
          c.x = (double(gx) + double(unit_float(mix64(h + 2)))) * p.cell;
          c.z = (double(gz) + double(unit_float(mix64(h + 3)))) * p.cell;
          const SurfaceSample at = sampler.at(c.x, c.z);
          const double rho = target_density(params, s, p, sampler, at, c.x, c.z);
          if (keep_u >= keep_probability(p, rho)) continue;  // also when rho is 0
          bool excluded = false;
          for (const SpeciesExclusion& x : S.exclusions) {
            const CellBlock& other = accepted[std::size_t(x.species)];
            const double oc = plans[std::size_t(x.species)].cell;
            const double d2 = x.distance_m * x.distance_m;
            const std::int64_t ax0 = std::max(cell_of(c.x - x.distance_m, oc), other.gx0);
            const std::int64_t ax1 =
                std::min(cell_of(c.x + x.distance_m, oc), other.gx0 + other.w - 1);
            const std::int64_t az0 = std::max(cell_of(c.z - x.distance_m, oc), other.gz0);
            const std::int64_t az1 =
                std::min(cell_of(c.z + x.distance_m, oc), other.gz0 + other.h - 1);
            for (std::int64_t oz = az0; oz <= az1 && !excluded; ++oz) {
              for (std::int64_t ox = ax0; ox <= ax1; ++ox) {
                const Candidate& o = other.at(ox, oz);
                if (!o.alive) continue;
                const double dx = o.x - c.x, dz = o.z - c.z;
                if (dx * dx + dz * dz < d2) {
                  excluded = true;
                  break;
                }
              }
            }
            if (excluded) break;
          }
          if (excluded) continue;
          c.alive = true;
          c.hash = h;
          c.priority = mix64(h + 4);
          // h is a hash of (seed, species, gx, gz); mixed once more so the id is not the
          // stream the instance's yaw and scale are drawn from.
          c.id = mix64(h + 8);
          c.y = float(at.y);
          if (S.align_to_normal) {
            c.nx = at.normal[0];
            c.ny = at.normal[1];
            c.nz = at.normal[2];
          }
        }
      }
    });

    // Stage 2: a survivor is accepted when no survivor within r outranks it.
    acc.cells.assign(std::size_t(acc.w * acc.h), Candidate{});
    parallel_for(ctx, acc.h, 8, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t gz = acc.gz0 + r;
        for (std::int64_t k = 0; k < acc.w; ++k) {
          const std::int64_t gx = acc.gx0 + k;
          const Candidate& c = cand.at(gx, gz);
          if (!c.alive) continue;
          bool beaten = false;
          for (std::int64_t nz = gz - p.K; nz <= gz + p.K && !beaten; ++nz) {
            for (std::int64_t nx = gx - p.K; nx <= gx + p.K; ++nx) {
              if (nx == gx && nz == gz) continue;
              const Candidate& o = cand.at(nx, nz);
              if (!o.alive) continue;
              const double dx = o.x - c.x, dz = o.z - c.z;
              if (dx * dx + dz * dz >= p.r2) continue;
              const bool higher = o.priority > c.priority ||
                                  (o.priority == c.priority && (nz > gz || (nz == gz && nx > gx)));
              if (higher) {
                beaten = true;
                break;
              }
            }
          }
          if (!beaten) acc.cells[std::size_t(r * acc.w + k)] = c;
        }
      }
    });

    for (const Candidate& c : acc.cells) {
      if (!c.alive || c.x < x0_m || c.x >= x1_m || c.z < z0_m || c.z >= z1_m) continue;
      ScatterInstance inst;
      inst.x_m = c.x;
      inst.z_m = c.z;
      inst.y_m = c.y;
      inst.normal = {c.nx, c.ny, c.nz};
      if (sampler.separate_rules()) {
        const SurfaceSample on = sampler.on_mesh(c.x, c.z);
        inst.y_m = float(on.y);
        if (S.align_to_normal) inst.normal = on.normal;
      }
      inst.yaw_deg = float(S.yaw_min_deg +
                           (S.yaw_max_deg - S.yaw_min_deg) * double(unit_float(mix64(c.hash + 5))));
      inst.scale_xz = float(S.scale_xz_min + (S.scale_xz_max - S.scale_xz_min) *
                                                 double(unit_float(mix64(c.hash + 6))));
      inst.scale_y = float(S.scale_y_min +
                           (S.scale_y_max - S.scale_y_min) * double(unit_float(mix64(c.hash + 7))));
      inst.species = int(s);
      inst.id = c.id;
      out.push_back(inst);
    }
  }
}

}  // namespace

surface_detail::MeshPoint surface_detail::mesh_point(const Field2D& heights,
                                                     const ScatterMesh& mesh, double x_m,
                                                     double z_m) {
  const SurfaceSample at = sample_mesh(heights, mesh, x_m, z_m);
  return {float(at.y), at.normal};
}

double scatter_margin_m(const SurfaceParams& params) {
  params.validate();
  double m = 0.0;
  for (const Plan& p : make_plans(params, 0, PlansFor::sizes))
    m = std::max(m, p.margin_m + double(p.K + 1) * p.cell);
  return m;
}

void scatter_region(const SurfaceParams& params, std::uint64_t seed, const ScatterInput& input,
                    double x0_m, double z0_m, double x1_m, double z1_m,
                    std::vector<ScatterInstance>& out, const ExecContext& ctx,
                    ScatterScratch* scratch) {
  params.validate();
  // A forced target this CPU lacks is refused before any work.
  if (ctx.simd != SimdTarget::best) (void)resolved_simd_target(ctx);
  if (input.heights == nullptr || input.biomes == nullptr)
    fail("scatter_region", "heights and biome weights are required");
  const GridSpec& g = input.heights->grid;
  if (input.heights->data.size() != g.sample_count() ||
      input.biomes->biome_count != int(params.biomes.size()) ||
      input.biomes->weights.size() != g.sample_count() * params.biomes.size() ||
      input.biomes->grid.width != g.width || input.biomes->grid.height != g.height ||
      input.biomes->grid.index_x0 != g.index_x0 || input.biomes->grid.index_z0 != g.index_z0) {
    fail("scatter_region", "heights and biome weights must share one grid and the biome table");
  }
  if (!input.water.empty() && input.water.size() != g.sample_count()) {
    fail("scatter_region", "water mask size does not match the grid");
  }
  if (!(std::isfinite(x0_m) && std::isfinite(x1_m) && std::isfinite(z0_m) && std::isfinite(z1_m)) ||
      !(x0_m <= x1_m && z0_m <= z1_m)) {
    fail("scatter_region", "invalid region [" + surface_detail::format_number(x0_m) + ", " +
                               surface_detail::format_number(x1_m) + ") x [" +
                               surface_detail::format_number(z0_m) + ", " +
                               surface_detail::format_number(z1_m) + ")");
  }
  if (g.width < 2 || g.height < 2)
    fail("scatter_region", "the input grid needs at least 2 x 2 samples");
  for (const ScatterMesh* m : {&input.mesh, input.rule_mesh ? &*input.rule_mesh : nullptr}) {
    if (m == nullptr) continue;
    if (m->cells_x < 0 || m->cells_z < 0 || (m->cells_x == 0) != (m->cells_z == 0)) {
      fail("scatter_region", "mesh blocks of " + std::to_string(m->cells_x) + " x " +
                                 std::to_string(m->cells_z) +
                                 " cells: both must be >= 1, or both 0 (the input grid)");
    }
  }
  const std::vector<Plan> plans = make_plans(params, seed, PlansFor::scatter, ctx.simd);
  double margin = 0.0;
  for (const Plan& p : plans) margin = std::max(margin, p.margin_m + double(p.K + 1) * p.cell);
  const double need_x0 = x0_m - margin - g.spacing_m, need_x1 = x1_m + margin + g.spacing_m;
  const double need_z0 = z0_m - margin - g.spacing_m, need_z1 = z1_m + margin + g.spacing_m;
  if (need_x0 < g.x_m(0) || need_x1 > g.x_m(g.width - 1) || need_z0 < g.z_m(0) ||
      need_z1 > g.z_m(g.height - 1)) {
    fail("scatter_region", "the input grid [" + surface_detail::format_number(g.x_m(0)) + ", " +
                               surface_detail::format_number(g.x_m(g.width - 1)) + "] x [" +
                               surface_detail::format_number(g.z_m(0)) + ", " +
                               surface_detail::format_number(g.z_m(g.height - 1)) +
                               "] m does not cover the region plus the scatter margin (" +
                               surface_detail::format_number(margin) + " m) plus one cell");
  }
  const InputSampler sampler(input);
  ScatterScratch local;  // allocates only when the caller gives no scratch
  ScatterScratch::Impl& blocks = (scratch != nullptr ? *scratch : local).impl();
  // Tiles bound the candidate arrays (memory O(tile area), not O(region area)); every tile
  // recomputes its own margin, so the result does not depend on the tiling.
  double largest_cell = 0.0;
  for (const Plan& p : plans) largest_cell = std::max(largest_cell, p.cell);
  const double tile = std::max(kTileSideM, 64.0 * largest_cell);
  const std::int64_t tiles_x =
      std::max<std::int64_t>(1, std::int64_t(std::ceil((x1_m - x0_m) / tile)));
  const std::int64_t tiles_z =
      std::max<std::int64_t>(1, std::int64_t(std::ceil((z1_m - z0_m) / tile)));
  for (std::int64_t tz = 0; tz < tiles_z; ++tz) {
    const double tz0 = z0_m + double(tz) * tile;
    const double tz1 = tz + 1 == tiles_z ? z1_m : z0_m + double(tz + 1) * tile;
    for (std::int64_t tx = 0; tx < tiles_x; ++tx) {
      const double tx0 = x0_m + double(tx) * tile;
      const double tx1 = tx + 1 == tiles_x ? x1_m : x0_m + double(tx + 1) * tile;
      scatter_tile(params, plans, sampler, tx0, tz0, tx1, tz1, out, ctx, blocks);
    }
  }
}

void scatter_chunk(const CompiledGraph& graph, const SurfaceParams& params, std::uint64_t seed,
                   double x0_m, double z0_m, double x1_m, double z1_m, int chunk_cells,
                   std::vector<ScatterInstance>& out, const ExecContext& ctx,
                   const ClimateSources* sources, ScatterScratch* scratch) {
  surface_detail::scatter_chunk_adjusted(graph, params, seed, x0_m, z0_m, x1_m, z1_m, chunk_cells,
                                         out, ctx, sources, scratch, {});
}

void surface_detail::scatter_chunk_adjusted(const CompiledGraph& graph, const SurfaceParams& params,
                                            std::uint64_t seed, double x0_m, double z0_m,
                                            double x1_m, double z1_m, int chunk_cells,
                                            std::vector<ScatterInstance>& out,
                                            const ExecContext& ctx, const ClimateSources* sources,
                                            ScatterScratch* scratch, const HeightsHook& adjust) {
  if (chunk_cells < 1) {
    fail("scatter_chunk", "chunk_cells " + std::to_string(chunk_cells) + " must be >= 1");
  }
  const double margin = scatter_margin_m(params);
  const double sp = graph.world().cell_size_m;
  const std::int64_t i0 = std::int64_t(std::floor((x0_m - margin) / sp)) - 2;
  const std::int64_t i1 = std::int64_t(std::ceil((x1_m + margin) / sp)) + 2;
  const std::int64_t j0 = std::int64_t(std::floor((z0_m - margin) / sp)) - 2;
  const std::int64_t j1 = std::int64_t(std::ceil((z1_m + margin) / sp)) + 2;
  if (i1 - i0 + 1 > kMaxGridSide || j1 - j0 + 1 > kMaxGridSide) {
    throw Error(ErrorCategory::limit, "scatter_chunk: region too large for one query");
  }
  GridSpec grid{.width = int(i1 - i0 + 1),
                .height = int(j1 - j0 + 1),
                .spacing_m = sp,
                .index_x0 = i0,
                .index_z0 = j0};
  grid.validate("scatter_chunk grid");
  // The caller's scratch, reused from call to call (a streamer scatters chunk after chunk; fresh
  // buffers of this size would be new pages, i.e. page faults, every time).
  ScatterScratch local;
  ScatterScratch& use = scratch != nullptr ? *scratch : local;
  ScatterScratch::Impl& m = use.impl();
  m.heights.grid = grid;
  resize_exact(m.heights.data, grid.sample_count());
  evaluate(graph, grid, m.heights.data, ctx);
  if (adjust) adjust(grid, m.heights.data);
  compute_climate(params.climate, seed, m.heights, {}, m.climate, ctx, sources);
  compute_biome_weights(params, m.heights, m.climate, m.biomes, ctx);
  scatter_region(
      params, seed,
      ScatterInput{&m.heights, &m.biomes, {}, ScatterMesh{0, 0, chunk_cells, chunk_cells}}, x0_m,
      z0_m, x1_m, z1_m, out, ctx, &use);
}

std::size_t scatter_chunk_scratch_bytes(const SurfaceParams& params, double side_m,
                                        double cell_size_m) {
  params.validate();
  if (!(std::isfinite(side_m) && side_m >= 0.0 && std::isfinite(cell_size_m) &&
        cell_size_m > 0.0)) {
    fail("scatter_chunk_scratch_bytes",
         "side " + surface_detail::format_number(side_m) + " m and cell size " +
             surface_detail::format_number(cell_size_m) + " m must be finite, the cell size > 0");
  }
  // Every count below bounds one in the code above: floor(a) - floor(b) < a - b + 1, and one
  // more for rounding of the products and quotients in double.
  const std::vector<Plan> plans = make_plans(params, 0, PlansFor::sizes);
  const double margin = scatter_margin_m(params);
  const double side_samples = std::ceil((side_m + 2.0 * margin) / cell_size_m) + 9.0;
  const std::size_t samples = std::size_t(side_samples * side_samples);
  const std::size_t nb = params.biomes.size();
  // heights, temperature, moisture, biome weights (floats); dominant biome (bytes)
  std::size_t b = sizeof(ScatterScratch::Impl) + samples * ((3 + nb) * sizeof(float) + 1);
  double largest_cell = 0.0;
  for (const Plan& p : plans) largest_cell = std::max(largest_cell, p.cell);
  const double tile = std::min(side_m, std::max(kTileSideM, 64.0 * largest_cell)) * (1.0 + 1e-9);
  std::size_t largest_candidates = 0;
  b += plans.size() * sizeof(CellBlock);
  for (const Plan& p : plans) {
    const double acc_side = std::floor((tile + 2.0 * p.margin_m) / p.cell) + 3.0;
    const double cand_side = acc_side + 2.0 * double(p.K);
    b += std::size_t(acc_side * acc_side) * sizeof(Candidate);
    largest_candidates = std::max(largest_candidates, std::size_t(cand_side * cand_side));
  }
  return b + largest_candidates * sizeof(Candidate);
}

void scatter_density(const SurfaceParams& params, std::uint64_t seed, const ScatterInput& input,
                     double x_m, double z_m, std::span<double> out, SimdTarget simd) {
  if (input.heights == nullptr || input.biomes == nullptr ||
      input.heights->grid.sample_count() != input.biomes->grid.sample_count() ||
      input.heights->grid.width < 2 || input.heights->grid.height < 2) {
    fail("scatter_density", "needs heights and biome weights on one grid of at least 2 x 2");
  }
  if (out.size() != params.species.size()) {
    fail("scatter_density", "out holds " + std::to_string(out.size()) + " values for " +
                                std::to_string(params.species.size()) + " species");
  }
  const std::vector<Plan> plans = make_plans(params, seed, PlansFor::scatter, simd);
  const InputSampler sampler(input);
  const SurfaceSample at = sampler.at(x_m, z_m);
  for (std::size_t s = 0; s < plans.size(); ++s) {
    out[s] = target_density(params, s, plans[s], sampler, at, x_m, z_m);
  }
}

}  // namespace terrane
