// Exact height, normal and ray queries against the level-0 triangles of the world.
//
// The surface is the one ChunkGenerator meshes at level 0 with no stitching: world cell
// (gi, gj) spans lattice vertices (gi, gj)..(gi + 1, gj + 1) at x = double(gi) * s (the
// GridSpec::x_m expression with origin 0, so corner heights from evaluate_at are bit-identical
// to the chunk's samples), and is split along the "radial" diagonal of its chunk-local cell
// (mesh_detail::main_diagonal). Heights are interpolated over that triangle in double.
//
// raycast walks the cells under the ray's horizontal projection in order (a 2D DDA in int64
// cell indices, J. Amanatides and A. Woo, "A Fast Voxel Traversal Algorithm for Ray Tracing",
// Eurographics 1987). Within a cell the ray's interval is cut where it crosses the cell's
// diagonal; on each piece both the ray's height and the surface are linear in t, so the first
// piece whose end lies on or below the surface holds the first hit (the surface is continuous,
// and the origin is above it). The only skipping is exact: the graph's output is clamped, so the
// surface never leaves [height_min_m, height_max_m] (raised by the height edits' largest delta)
// and the ray's part above that slab is not walked.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "mesh/mesh_internal.hpp"
#include "terrane/world.hpp"

namespace terrane {

namespace {

std::string number_text(double v) {
  return format_number(v);
}

[[noreturn]] void bad_argument(const char* function, const char* name, double value,
                               const std::string& why) {
  throw Error(ErrorCategory::invalid_argument,
              std::string(function) + ": " + name + " = " + number_text(value) + " " + why);
}

// Cell indices must stay exact in double (vertex(k) = double(k) * s) and fit int64.
constexpr double kMaxCellIndex = 9007199254740992.0 / 2.0;  // 2^52

void check_coordinate(const char* function, const char* name, double v, double cell_size_m) {
  if (!std::isfinite(v)) bad_argument(function, name, v, "is not finite");
  if (std::abs(v) > kMaxWorldCoordinate) {
    bad_argument(function, name, v,
                 "is outside the world [-" + number_text(kMaxWorldCoordinate) + ", " +
                     number_text(kMaxWorldCoordinate) + "] m");
  }
  if (std::abs(v) / cell_size_m > kMaxCellIndex) {  // only for cells below ~0.25 mm
    bad_argument(function, name, v,
                 "is more than 2^52 cells of " + number_text(cell_size_m) + " m from the origin");
  }
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The lattice index of the cell containing coordinate v: vertex(gi) <= v < vertex(gi + 1), with
// vertex(k) = double(k) * s exactly as the grids compute it (floor(v / s) may be off by one
// after rounding when s is not a power of two).
std::int64_t cell_index(double v, double s) {
  auto gi = std::int64_t(std::floor(v / s));
  if (v < double(gi) * s) {
    --gi;
  } else if (v >= double(gi + 1) * s) {
    ++gi;
  }
  return gi;
}

// One cell of the level-0 surface: its corner lattice indices, world extent and split.
struct Cell {
  std::int64_t gi = 0, gj = 0;
  double x0 = 0.0, z0 = 0.0;  // world position of corner (gi, gj)
  double sx = 1.0, sz = 1.0;  // extent (vertex(gi + 1) - vertex(gi)); s up to rounding
  bool main = true;           // split along (0,0)-(1,1), else along (1,0)-(0,1)
};

Cell make_cell(std::int64_t gi, std::int64_t gj, double s, int n) {
  Cell c;
  c.gi = gi;
  c.gj = gj;
  c.x0 = double(gi) * s;
  c.z0 = double(gj) * s;
  c.sx = double(gi + 1) * s - c.x0;
  c.sz = double(gj + 1) * s - c.z0;
  const std::int64_t i = gi - floor_div(gi, n) * n;
  const std::int64_t j = gj - floor_div(gj, n) * n;
  c.main = mesh_detail::main_diagonal(int(i), int(j), n, n);
  return c;
}

using mesh_detail::CellPlane;

int triangle_of(const Cell& c, double u, double v) {
  return mesh_detail::cell_triangle(c.main, u, v);
}

std::array<int, 3> triangle_corners(bool main, int tri) {
  return mesh_detail::cell_triangle_corners(main, tri);
}

CellPlane plane_of(bool main, int tri, const std::array<double, 4>& h) {
  return mesh_detail::cell_triangle_plane(main, tri, h);
}

std::array<float, 3> plane_normal(const CellPlane& p, const Cell& c) {
  return mesh_detail::cell_plane_normal(p, c.sx, c.sz);
}

// Highest the surface can be [Units: m]. The graph output is clamped to [-1, 1] before
// h = h_min + ((v + 1) * 0.5) * range in float; float rounding is monotonic, so no sample exceeds
// h_min + range as floats. The interpolated planes stay within their corners' range up to
// double rounding, hence the small margin. Height edits add a float delta of at most
// `edits_hi` to each sample, and a float sum rounds monotonically, so h_top + edits_hi bounds it.
double surface_top_m(const WorldSettings& w, float edits_hi) {
  const float h_min = float(w.height_min_m);
  const float h_range = float(w.height_max_m - w.height_min_m);
  float h_top = h_min + h_range;
  if (edits_hi > 0.0f) h_top = h_top + edits_hi;
  return double(h_top) + 1e-6 * (1.0 + std::abs(double(h_top)));
}

// Corner heights of the cells a ray walks, evaluated a block of 17 x 17 lattice vertices
// (16 x 16 cells, aligned to multiples of 16) at a time with the grid API: one sampler set-up
// per block instead of one per corner (the samples are the same bits as evaluate_at: same
// world coordinates, double(index) * s). The last four blocks are kept.
class CornerCache {
 public:
  CornerCache(const CompiledGraph& graph, double s, const HeightEditSnapshot* edits)
      : graph_(graph), s_(s), edits_(edits) {}

  double height(std::int64_t gi, std::int64_t gj) {
    const std::int64_t bi = floor_div(gi, kCells), bj = floor_div(gj, kCells);
    // A vertex on a block's high edge belongs to the next block too; either serves it.
    for (Block& b : blocks_) {
      if (!b.valid) continue;
      const std::int64_t li = gi - b.bi * kCells, lj = gj - b.bj * kCells;
      if (li >= 0 && li <= kCells && lj >= 0 && lj <= kCells) {
        return double(b.h[std::size_t(lj * (kCells + 1) + li)]);
      }
    }
    Block& b = blocks_[next_];
    next_ = (next_ + 1) % blocks_.size();
    GridSpec g;
    g.width = kCells + 1;
    g.height = kCells + 1;
    g.spacing_m = s_;
    g.index_x0 = bi * kCells;
    g.index_z0 = bj * kCells;
    ExecContext one;
    one.threads = 1;
    evaluate(graph_, g, b.h, one);
    if (edits_ != nullptr) edits_->add_to(g, b.h);
    b.bi = bi;
    b.bj = bj;
    b.valid = true;
    return double(b.h[std::size_t((gj - bj * kCells) * (kCells + 1) + (gi - bi * kCells))]);
  }

 private:
  static constexpr std::int64_t kCells = 16;
  struct Block {
    std::int64_t bi = 0, bj = 0;
    bool valid = false;
    std::array<float, (kCells + 1) * (kCells + 1)> h{};
  };
  const CompiledGraph& graph_;
  double s_;
  const HeightEditSnapshot* edits_;
  std::array<Block, 4> blocks_{};
  std::size_t next_ = 0;
};

// Heights of corners `which` of the cell (others left at 0).
template <class HeightFn>
std::array<double, 4> corner_heights(const Cell& c, const std::array<int, 3>& which,
                                     HeightFn&& height) {
  std::array<double, 4> h{0.0, 0.0, 0.0, 0.0};
  for (int k : which) h[std::size_t(k)] = height(c.gi + (k & 1), c.gj + (k >> 1));
  return h;
}

struct SurfacePoint {
  double height_m;
  std::array<float, 3> normal;
};

SurfacePoint surface_at(const ChunkGenerator& gen, const HeightEditSnapshot* edits, double x,
                        double z) {
  const double s = gen.cell_size_m();
  const Cell c = make_cell(cell_index(x, s), cell_index(z, s), s, gen.settings().cells);
  const double u = (x - c.x0) / c.sx, v = (z - c.z0) / c.sz;
  const int tri = triangle_of(c, u, v);
  // The cell's four corners in one grid evaluation (same bits as evaluate_at at each).
  GridSpec g;
  g.width = 2;
  g.height = 2;
  g.spacing_m = s;
  g.index_x0 = c.gi;
  g.index_z0 = c.gj;
  std::array<float, 4> corners{};
  ExecContext one;
  one.threads = 1;
  evaluate(gen.graph(), g, corners, one);
  if (edits != nullptr) edits->add_to(g, corners);
  const auto h =
      corner_heights(c, triangle_corners(c.main, tri), [&](std::int64_t i, std::int64_t j) {
        return double(corners[std::size_t((j - c.gj) * 2 + (i - c.gi))]);
      });
  const CellPlane p = plane_of(c.main, tri, h);
  return {p.at(u, v), plane_normal(p, c)};
}

}  // namespace

TerrainQuery::TerrainQuery(std::shared_ptr<const ChunkGenerator> generator,
                           std::shared_ptr<const HeightEditSnapshot> edits)
    : generator_(std::move(generator)), edits_(std::move(edits)) {
  if (generator_ == nullptr) {
    throw Error(ErrorCategory::invalid_argument, "TerrainQuery: the generator is null");
  }
  if (edits_ != nullptr && edits_->cell_size_m() != generator_->cell_size_m()) {
    throw Error(ErrorCategory::invalid_argument,
                "TerrainQuery: height edits of cell " + std::to_string(edits_->cell_size_m()) +
                    " m on a world of cell " + std::to_string(generator_->cell_size_m()) + " m");
  }
}

double TerrainQuery::height_at(double x_m, double z_m) const {
  check_coordinate("height_at", "x_m", x_m, generator_->cell_size_m());
  check_coordinate("height_at", "z_m", z_m, generator_->cell_size_m());
  return surface_at(*generator_, edits_.get(), x_m, z_m).height_m;
}

std::array<float, 3> TerrainQuery::normal_at(double x_m, double z_m) const {
  check_coordinate("normal_at", "x_m", x_m, generator_->cell_size_m());
  check_coordinate("normal_at", "z_m", z_m, generator_->cell_size_m());
  return surface_at(*generator_, edits_.get(), x_m, z_m).normal;
}

std::optional<RayHit> TerrainQuery::raycast(double ox_m, double oy_m, double oz_m, double dx,
                                            double dy, double dz, double max_dist_m) const {
  check_coordinate("raycast", "origin x_m", ox_m, generator_->cell_size_m());
  check_coordinate("raycast", "origin z_m", oz_m, generator_->cell_size_m());
  if (!std::isfinite(oy_m)) bad_argument("raycast", "origin y_m", oy_m, "is not finite");
  if (!std::isfinite(dx)) bad_argument("raycast", "direction x", dx, "is not finite");
  if (!std::isfinite(dy)) bad_argument("raycast", "direction y", dy, "is not finite");
  if (!std::isfinite(dz)) bad_argument("raycast", "direction z", dz, "is not finite");
  // Scale first so that tiny or huge (finite) directions neither underflow nor overflow.
  const double scale = std::max({std::abs(dx), std::abs(dy), std::abs(dz)});
  if (scale == 0.0) {
    throw Error(ErrorCategory::invalid_argument, "raycast: direction (0, 0, 0) is zero");
  }
  if (!(max_dist_m >= 0.0)) {  // also NaN
    bad_argument("raycast", "max_dist_m", max_dist_m, "must be a finite number >= 0");
  }
  if (!(max_dist_m <= kMaxRayDistance)) {
    bad_argument("raycast", "max_dist_m", max_dist_m,
                 "is above kMaxRayDistance (" + number_text(kMaxRayDistance) + " m)");
  }
  dx /= scale;
  dy /= scale;
  dz /= scale;
  const double len = std::sqrt(dx * dx + dy * dy + dz * dz);
  dx /= len;
  dy /= len;
  dz /= len;

  const ChunkGenerator& gen = *generator_;
  const double s = gen.cell_size_m();
  const int n = gen.settings().cells;
  CornerCache cache(gen.graph(), s, edits_.get());
  auto height = [&](std::int64_t i, std::int64_t j) { return cache.height(i, j); };

  // Origin on or below the surface: hit at t = 0.
  {
    const Cell c = make_cell(cell_index(ox_m, s), cell_index(oz_m, s), s, n);
    const double u = (ox_m - c.x0) / c.sx, v = (oz_m - c.z0) / c.sz;
    const int tri = triangle_of(c, u, v);
    const CellPlane p =
        plane_of(c.main, tri, corner_heights(c, triangle_corners(c.main, tri), height));
    if (oy_m <= p.at(u, v)) return RayHit{0.0, ox_m, oy_m, oz_m, plane_normal(p, c)};
  }

  // The part of the ray that can meet the surface: below the top of the slab and inside the
  // world (the surface ends at kMaxWorldCoordinate).
  const double hi_m =
      surface_top_m(gen.graph().world(), edits_ != nullptr ? edits_->delta_hi() : 0.0f);
  double t_begin = 0.0;
  double t_end = max_dist_m;
  if (oy_m > hi_m) {
    if (dy >= 0.0) return std::nullopt;
    t_begin = (oy_m - hi_m) / -dy;
  } else if (dy > 0.0) {
    t_end = std::min(t_end, (hi_m - oy_m) / dy);
  }
  const double world_half_m = std::min(kMaxWorldCoordinate, kMaxCellIndex * s);
  auto limit = [&](double o, double d) {
    if (d > 0.0) return (world_half_m - o) / d;
    if (d < 0.0) return (-world_half_m - o) / d;
    return std::numeric_limits<double>::infinity();
  };
  t_end = std::min({t_end, limit(ox_m, dx), limit(oz_m, dz)});
  if (!(t_begin <= t_end)) return std::nullopt;

  const double x_start = ox_m + t_begin * dx, z_start = oz_m + t_begin * dz;
  std::int64_t gi = cell_index(x_start, s), gj = cell_index(z_start, s);
  const int step_i = dx > 0.0 ? 1 : (dx < 0.0 ? -1 : 0);
  const int step_j = dz > 0.0 ? 1 : (dz < 0.0 ? -1 : 0);
  const double inf = std::numeric_limits<double>::infinity();

  double ta = t_begin;
  while (true) {
    const Cell c = make_cell(gi, gj, s, n);
    // Where the ray leaves the cell (from the cell's own bounds, so no drift accumulates).
    const double tx = step_i > 0   ? (c.x0 + c.sx - ox_m) / dx
                      : step_i < 0 ? (c.x0 - ox_m) / dx
                                   : inf;
    const double tz = step_j > 0   ? (c.z0 + c.sz - oz_m) / dz
                      : step_j < 0 ? (c.z0 - oz_m) / dz
                                   : inf;
    const double t_exit = std::min(tx, tz);
    const double tb = std::max(ta, std::min(t_exit, t_end));

    auto u_at = [&](double t) { return ((ox_m - c.x0) + t * dx) / c.sx; };
    auto v_at = [&](double t) { return ((oz_m - c.z0) + t * dz) / c.sz; };
    auto side = [&](double t) {  // >= 0 on triangle 0's side (main), <= 0 (anti)
      return c.main ? u_at(t) - v_at(t) : u_at(t) + v_at(t) - 1.0;
    };
    // Split [ta, tb] where the ray crosses the diagonal.
    std::array<double, 3> cuts{ta, tb, tb};
    int pieces = 1;
    const double ga = side(ta), gb = side(tb);
    if ((ga < 0.0) != (gb < 0.0) && ga != gb) {
      cuts[1] = std::clamp(ta + (tb - ta) * (ga / (ga - gb)), ta, tb);
      pieces = 2;
    }
    for (int k = 0; k < pieces; ++k) {
      const double p0 = cuts[std::size_t(k)], p1 = cuts[std::size_t(k) + 1];
      const double tm = 0.5 * (p0 + p1);
      const int tri = triangle_of(c, u_at(tm), v_at(tm));
      const CellPlane p =
          plane_of(c.main, tri, corner_heights(c, triangle_corners(c.main, tri), height));
      const double f0 = oy_m + p0 * dy - p.at(u_at(p0), v_at(p0));
      const double f1 = oy_m + p1 * dy - p.at(u_at(p1), v_at(p1));
      if (f0 <= 0.0 || f1 <= 0.0) {
        const double t = f0 <= 0.0 ? p0 : std::clamp(p0 + (p1 - p0) * (f0 / (f0 - f1)), p0, p1);
        return RayHit{t, ox_m + t * dx, oy_m + t * dy, oz_m + t * dz, plane_normal(p, c)};
      }
    }
    if (t_exit >= t_end) return std::nullopt;
    if (tx <= tz) gi += step_i;
    if (tz <= tx) gj += step_j;
    ta = tb;
  }
}

}  // namespace terrane
