// Perspective render of a height field on the CPU (terrane/stats.hpp): a visibility buffer
// (Burns and Hunt, "The Visibility Buffer: A Cache-Friendly Approach to Deferred Shading",
// JCGT 2(2), 2013) filled by rasterising the grid's triangles with edge functions (Pineda, "A
// Parallel Algorithm for Polygon Rasterization", SIGGRAPH 1988), then deferred shading with
// the exact ray-triangle intersection of each pixel; aerial perspective as exponential haze
// towards the horizon colour (the single-scattering approximation of e.g. Preetham, Shirley and
// Smits, "A Practical Analytic Model for Daylight", SIGGRAPH 1999, reduced to one extinction).
//
// Determinism: each pixel keeps the minimum of (depth bits << 32 | triangle index) over the
// triangles covering it, an atomic minimum that does not depend on the order in which threads
// rasterise; everything else is a pure function per vertex or per pixel. Shared edges are
// evaluated with the same edge function (vertices in index order), so a pixel centre on an edge
// belongs to both triangles and never to neither: no cracks.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include "core/huge_pages.hpp"
#include "stats/perspective_internal.hpp"
#include "terrane/schema.hpp"
#include "terrane/stats.hpp"

namespace terrane {
namespace {

using namespace perspective_detail;

constexpr double kDeg = std::numbers::pi / 180.0;
constexpr std::uint64_t kNoHit = std::numeric_limits<std::uint64_t>::max();
constexpr double kNearM = 0.05;  // near plane [Units: m]
constexpr double kAutoPitchDeg = -32.0;

struct Colour {
  double r = 0.0, g = 0.0, b = 0.0;
};
Colour mix(const Colour& a, const Colour& b, double t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

constexpr Colour kHorizon{206, 218, 230};
constexpr Colour kZenith{82, 132, 200};
constexpr Colour kBelowHorizon{176, 186, 196};
constexpr Colour kPlain{150, 160, 172};  // the backdrop's plain before haze

// Sky by the elevation of a unit direction (dy = its y).
Colour sky(double dy) {
  if (dy >= 0.0) return mix(kHorizon, kZenith, 1.0 - std::exp(-3.0 * dy));
  return mix(kHorizon, kBelowHorizon, 1.0 - std::exp(8.0 * dy));
}

// Beyond the map: the sky above the horizon; below it, a plain at the map's lowest height in
// the haze colour seen through the same haze, so that the backdrop also darkens with nearness.
Colour background(const CameraFrame& f, const Vec3& dir, double ymin, double near_m,
                  double haze_m) {
  if (dir.y >= 0.0 || f.eye.y <= ymin) return sky(dir.y);
  const double t = (f.eye.y - ymin) / -dir.y;
  return mix(kPlain, sky(0.0), 1.0 - std::exp(-std::max(t - near_m, 0.0) / haze_m));
}

// The map as drawn: every stride-th sample, heights with water surfaces and exaggeration.
struct RenderGrid {
  int w = 0, h = 0, stride = 1;
  double cell_m = 1.0;  // spacing of the render grid
  double x0 = 0.0, z0 = 0.0;
  std::vector<float> y;       // drawn height [Units: m]
  std::vector<float> lit;     // 3 per vertex: albedo times light, 0..255 (and above)
  std::vector<float> wet;     // 1 on water, else 0
  std::vector<float> sun;     // sun visibility (cast shadows), 0..1
  std::vector<float> screen;  // 3 per vertex: sx, sy, depth (depth <= kNearM: behind)
  std::size_t at(int i, int j) const { return std::size_t(j) * std::size_t(w) + std::size_t(i); }
  Vec3 world(int i, int j) const {
    return {x0 + double(i) * cell_m, double(y[at(i, j)]), z0 + double(j) * cell_m};
  }
};

struct ScreenVertex {
  double x, y, z;  // pixel position and depth
};

// Rasterises one triangle into the visibility buffer. ids order the vertices for the shared
// edge functions (pass the grid indices; for clipped pieces any distinct values).
class Rasteriser {
 public:
  Rasteriser(std::vector<std::uint64_t>& vis, int w, int h) : vis_(vis), w_(w), h_(h) {}

  void triangle(const ScreenVertex (&v)[3], const std::size_t (&ids)[3], std::uint32_t tri) const {
    const double minx = std::min({v[0].x, v[1].x, v[2].x});
    const double maxx = std::max({v[0].x, v[1].x, v[2].x});
    const double miny = std::min({v[0].y, v[1].y, v[2].y});
    const double maxy = std::max({v[0].y, v[1].y, v[2].y});
    if (!(maxx >= 0.0 && minx <= double(w_) && maxy >= 0.0 && miny <= double(h_))) return;
    const int c0 = std::max(0, int(std::ceil(minx - 0.5)));
    const int c1 = std::min(w_ - 1, int(std::floor(maxx - 0.5)));
    const int r0 = std::max(0, int(std::ceil(miny - 0.5)));
    const int r1 = std::min(h_ - 1, int(std::floor(maxy - 0.5)));
    if (c0 > c1 || r0 > r1) return;
    // Edge k is opposite vertex k: from vertex k+1 to k+2, evaluated with its endpoints in id
    // order and negated when the triangle runs the other way.
    struct Edge {
      double ax, ay, dx, dy, sign;
      double at(double x, double y) const { return sign * (dx * (y - ay) - dy * (x - ax)); }
    };
    Edge e[3];
    for (int k = 0; k < 3; ++k) {
      const int p = (k + 1) % 3, q = (k + 2) % 3;
      const bool in_order = ids[p] < ids[q];
      const ScreenVertex& a = in_order ? v[p] : v[q];
      const ScreenVertex& b = in_order ? v[q] : v[p];
      e[k] = {a.x, a.y, b.x - a.x, b.y - a.y, in_order ? 1.0 : -1.0};
    }
    const double area = e[2].at(v[2].x, v[2].y);
    if (!(std::abs(area) > 1e-12)) return;  // degenerate or NaN
    const double orient = area > 0.0 ? 1.0 : -1.0;
    const double inv_area = 1.0 / area;
    const double iz0 = 1.0 / v[0].z, iz1 = 1.0 / v[1].z, iz2 = 1.0 / v[2].z;
    for (int r = r0; r <= r1; ++r) {
      const double py = double(r) + 0.5;
      for (int c = c0; c <= c1; ++c) {
        const double px = double(c) + 0.5;
        const double w0 = e[0].at(px, py), w1 = e[1].at(px, py), w2 = e[2].at(px, py);
        if (w0 * orient < 0.0 || w1 * orient < 0.0 || w2 * orient < 0.0) continue;
        const double inv_depth = (w0 * iz0 + w1 * iz1 + w2 * iz2) * inv_area;
        if (!(inv_depth > 0.0)) continue;
        const auto depth = float(1.0 / inv_depth);
        const std::uint64_t key =
            (std::uint64_t(std::bit_cast<std::uint32_t>(depth)) << 32) | std::uint64_t(tri);
        std::atomic_ref<std::uint64_t> slot(
            vis_[std::size_t(r) * std::size_t(w_) + std::size_t(c)]);
        std::uint64_t old = slot.load(std::memory_order_relaxed);
        while (key < old && !slot.compare_exchange_weak(old, key, std::memory_order_relaxed)) {
        }
      }
    }
  }

 private:
  std::vector<std::uint64_t>& vis_;
  int w_, h_;
};

ScreenVertex project(const CameraFrame& f, const Vec3& p) {
  const Vec3 d = p - f.eye;
  const double z = dot(d, f.forward);
  return {0.5 * double(f.width) + f.focal_px * dot(d, f.right) / z,
          0.5 * double(f.height) - f.focal_px * dot(d, f.up) / z, z};
}

// A triangle crossing the near plane: clipped in camera space (Sutherland-Hodgman against
// depth >= kNearM), then drawn as a fan.
void clipped_triangle(const Rasteriser& ras, const CameraFrame& f, const Vec3 (&p)[3],
                      std::uint32_t tri) {
  Vec3 in[3], out[4];
  double depth[3];
  for (int k = 0; k < 3; ++k) {
    in[k] = p[k];
    depth[k] = dot(p[k] - f.eye, f.forward);
  }
  int n = 0;
  for (int k = 0; k < 3; ++k) {
    const int q = (k + 1) % 3;
    const bool a_in = depth[k] >= kNearM, b_in = depth[q] >= kNearM;
    if (a_in) out[n++] = in[k];
    if (a_in != b_in) {
      const double t = (kNearM - depth[k]) / (depth[q] - depth[k]);
      out[n++] = in[k] + t * (in[q] - in[k]);
    }
  }
  for (int k = 1; k + 1 < n; ++k) {
    const ScreenVertex v[3] = {project(f, out[0]), project(f, out[k]), project(f, out[k + 1])};
    const std::size_t ids[3] = {0, 1, 2};
    ras.triangle(v, ids, tri);
  }
}

std::uint8_t to_byte(double v) {
  if (!(v > 0.0)) return 0;
  if (v >= 255.0) return 255;
  return std::uint8_t(v + 0.5);
}

void check_scene(const PerspectiveScene& scene) {
  if (scene.heights == nullptr) {
    throw Error(ErrorCategory::invalid_argument, "render_perspective: scene.heights is null");
  }
  const Field2D& hf = *scene.heights;
  hf.grid.validate("render_perspective height field");
  const std::size_t n = hf.grid.sample_count();
  if (hf.data.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "render_perspective: the height field holds " + std::to_string(hf.data.size()) +
                    " values for " + std::to_string(n) + " samples");
  }
  if (hf.grid.width < 2 || hf.grid.height < 2) {
    throw Error(ErrorCategory::invalid_argument,
                "render_perspective: the map is " + std::to_string(hf.grid.width) + " x " +
                    std::to_string(hf.grid.height) + " samples; it needs at least 2 x 2");
  }
  scene.water.validate(n, "render_perspective");
  if (!scene.colour_rgb.empty() && scene.colour_rgb.size() != 3 * n) {
    throw Error(ErrorCategory::invalid_argument,
                "render_perspective: colour_rgb holds " + std::to_string(scene.colour_rgb.size()) +
                    " bytes; the map needs 3 per cell (" + std::to_string(3 * n) + ")");
  }
}

// Heights, water and colours of the render grid (everything but the projection).
RenderGrid build_grid(const PerspectiveScene& scene, const PerspectiveParams& params,
                      const ExecContext& ctx) {
  const Field2D& hf = *scene.heights;
  const GridSpec& g = hf.grid;
  RenderGrid rg;
  const int limit = 2 * std::max(params.width, params.height);
  while ((std::max(g.width, g.height) - 1) / rg.stride + 1 > limit) ++rg.stride;
  rg.w = (g.width - 1) / rg.stride + 1;
  rg.h = (g.height - 1) / rg.stride + 1;
  rg.cell_m = g.spacing_m * double(rg.stride);
  rg.x0 = g.x_m(0);
  rg.z0 = g.z_m(0);
  const std::size_t n = std::size_t(rg.w) * std::size_t(rg.h);
  core_detail::resize_huge(rg.y, n, &ctx);
  core_detail::resize_huge(rg.lit, 3 * n, &ctx);
  core_detail::resize_huge(rg.wet, n, &ctx);
  core_detail::resize_huge(rg.sun, n, &ctx);
  core_detail::resize_huge(rg.screen, 3 * n, &ctx);
  std::vector<float> depth;
  core_detail::resize_huge(depth, n, &ctx);  // water depth (sea, lakes), -1 for rivers, 0 dry
  const double sea = params.palette.sea_level_m, ex = params.vertical_exaggeration;
  const auto src = [&](int i, int j) {
    return std::size_t(j * rg.stride) * std::size_t(g.width) + std::size_t(i * rg.stride);
  };
  parallel_for(ctx, rg.h, 16, [&](std::int64_t jb, std::int64_t je) {
    for (auto j = int(jb); j < int(je); ++j) {
      for (int i = 0; i < rg.w; ++i) {
        const std::size_t s = src(i, j), d = rg.at(i, j);
        const double hv = hf.data[s];
        double level = hv < sea ? sea : hv;
        if (!scene.water.water_level_m.empty()) {
          level = std::max(level, double(scene.water.water_level_m[s]));
        }
        float dep = level > hv ? float(level - hv) : 0.0f;
        if (dep == 0.0f && !scene.water.river.empty() && scene.water.river[s] != 0) dep = -1.0f;
        depth[d] = dep;
        rg.y[d] = float(sea + (level - sea) * ex);
        rg.wet[d] = dep != 0.0f ? 1.0f : 0.0f;
      }
    }
  });
  if (params.shadows) {
    sun_shadow(rg.y, rg.w, rg.h, rg.cell_m, params.sun_azimuth_deg, params.sun_elevation_deg,
               rg.sun);
  } else {
    std::fill(rg.sun.begin(), rg.sun.end(), 1.0f);
  }
  // Albedo table over the range shown (as the preview: 4096 entries).
  constexpr int kTable = 4096;
  const double lo = params.palette.range.height_min_m, hi = params.palette.range.height_max_m;
  std::vector<std::array<float, 3>> table(kTable);
  for (int k = 0; k < kTable; ++k) {
    table[std::size_t(k)] =
        preview_albedo(params.palette, lo + (hi - lo) * double(k) / double(kTable - 1));
  }
  const auto river_colour = preview_water_albedo(3.0);
  const double se = std::sin(params.sun_elevation_deg * kDeg);
  const double ce = std::cos(params.sun_elevation_deg * kDeg);
  const Vec3 to_sun{ce * std::cos(params.sun_azimuth_deg * kDeg), se,
                    ce * std::sin(params.sun_azimuth_deg * kDeg)};
  const double ambient = params.ambient;
  const double sun_gain = (1.0 - ambient) / se;  // flat lit ground keeps its albedo
  parallel_for(ctx, rg.h, 16, [&](std::int64_t jb, std::int64_t je) {
    for (auto j = int(jb); j < int(je); ++j) {
      for (int i = 0; i < rg.w; ++i) {
        const std::size_t d = rg.at(i, j), s = src(i, j);
        const double gx = (double(rg.y[rg.at(std::min(i + 1, rg.w - 1), j)]) -
                           double(rg.y[rg.at(std::max(i - 1, 0), j)])) /
                          (double(std::min(i + 1, rg.w - 1) - std::max(i - 1, 0)) * rg.cell_m);
        const double gz = (double(rg.y[rg.at(i, std::min(j + 1, rg.h - 1))]) -
                           double(rg.y[rg.at(i, std::max(j - 1, 0))])) /
                          (double(std::min(j + 1, rg.h - 1) - std::max(j - 1, 0)) * rg.cell_m);
        const double len = std::sqrt(gx * gx + 1.0 + gz * gz);
        const double ndotl = (-gx * to_sun.x + to_sun.y - gz * to_sun.z) / len;
        const double sun_vis = rg.sun[d];
        std::array<float, 3> albedo;
        const float dep = depth[d];
        double light = ambient + sun_gain * std::max(ndotl, 0.0) * sun_vis;
        if (dep > 0.0f) {
          albedo = preview_water_albedo(dep);
          light = 0.7 + 0.3 * sun_vis;
        } else if (dep < 0.0f) {
          albedo = river_colour;
          light = 0.75 + 0.25 * std::min(light, 1.0);
        } else if (!scene.colour_rgb.empty()) {
          albedo = {float(scene.colour_rgb[3 * s]), float(scene.colour_rgb[3 * s + 1]),
                    float(scene.colour_rgb[3 * s + 2])};
        } else {
          const double t = (double(hf.data[s]) - lo) / (hi - lo) * double(kTable - 1);
          const int k = std::clamp(int(std::isnan(t) ? 0.0 : t + 0.5), 0, kTable - 1);
          albedo = table[std::size_t(k)];
        }
        light = std::min(light, 1.45);
        for (int c = 0; c < 3; ++c)
          rg.lit[3 * d + std::size_t(c)] = float(albedo[std::size_t(c)] * light);
      }
    }
  });
  return rg;
}

// Bilinear interpolation of a per-vertex field at render-grid coordinates (u, v).
struct Bilinear {
  std::size_t c00 = 0, c10 = 0, c01 = 0, c11 = 0;
  double fx = 0.0, fz = 0.0;
  Bilinear(const RenderGrid& rg, double u, double v) {
    const int i = std::clamp(int(std::floor(u)), 0, rg.w - 2);
    const int j = std::clamp(int(std::floor(v)), 0, rg.h - 2);
    fx = std::clamp(u - double(i), 0.0, 1.0);
    fz = std::clamp(v - double(j), 0.0, 1.0);
    c00 = rg.at(i, j);
    c10 = c00 + 1;
    c01 = c00 + std::size_t(rg.w);
    c11 = c01 + 1;
  }
  double operator()(const std::vector<float>& f, std::size_t stride = 1, std::size_t k = 0) const {
    const double a = f[c00 * stride + k], b = f[c10 * stride + k];
    const double c = f[c01 * stride + k], d = f[c11 * stride + k];
    const double top = a + (b - a) * fx, bottom = c + (d - c) * fx;
    return top + (bottom - top) * fz;
  }
};

}  // namespace

void PerspectiveParams::validate() const {
  check_range("perspective.width", std::int64_t(width), kMinPerspectiveSide, kMaxPerspectiveSide);
  check_range("perspective.height", std::int64_t(height), kMinPerspectiveSide, kMaxPerspectiveSide);
  if (camera) camera->validate();
  palette.range.validate("perspective height range");
  check_range("perspective.sea_level_m", palette.sea_level_m, Range::any());
  check_range("perspective.vertical_exaggeration", vertical_exaggeration,
              Range::open_lo(0.0, 100.0));
  check_range("perspective.sun_azimuth_deg", sun_azimuth_deg, Range::any());
  check_range("perspective.sun_elevation_deg", sun_elevation_deg, Range::closed(1.0, 90.0));
  check_range("perspective.ambient", ambient, Range::closed(0.0, 1.0));
  check_range("perspective.haze_distance_m", haze_distance_m, Range{0.0, INFINITY});
}

void render_perspective(const PerspectiveScene& scene, const PerspectiveParams& params,
                        std::span<std::uint8_t> rgb, const ExecContext& ctx) {
  params.validate();
  check_scene(scene);
  const int W = params.width, H = params.height;
  const std::size_t pixels = std::size_t(W) * std::size_t(H);
  if (rgb.size() != 3 * pixels) {
    throw Error(ErrorCategory::invalid_argument,
                "render_perspective: need " + std::to_string(3 * pixels) + " RGB bytes for " +
                    std::to_string(W) + " x " + std::to_string(H) + ", got " +
                    std::to_string(rgb.size()));
  }
  RenderGrid rg = build_grid(scene, params, ctx);
  throw_if_cancelled(ctx);

  // The camera: given, or framing the drawn surface (a lattice of at most 129 x 129 of its
  // vertices, the last row and column included).
  const int lattice = 128;
  const int si = std::max(1, (rg.w - 1) / lattice), sj = std::max(1, (rg.h - 1) / lattice);
  std::vector<Vec3> points;
  double ymin = INFINITY;
  for (int j = 0;; j = std::min(j + sj, rg.h - 1)) {
    for (int i = 0;; i = std::min(i + si, rg.w - 1)) {
      const Vec3 p = rg.world(i, j);
      if (std::isfinite(p.y)) {
        points.push_back(p);
        ymin = std::min(ymin, p.y);
      }
      if (i == rg.w - 1) break;
    }
    if (j == rg.h - 1) break;
  }
  if (points.empty()) {  // no finite height: frame the map at height 0
    for (const int j : {0, rg.h - 1}) {
      for (const int i : {0, rg.w - 1}) points.push_back({rg.world(i, j).x, 0.0, rg.world(i, j).z});
    }
    ymin = 0.0;
  }
  const Camera cam =
      params.camera ? *params.camera : frame_points(points, W, H, 40.0, kAutoPitchDeg, kAutoYawDeg);
  const CameraFrame f = make_frame(cam, W, H);
  // Haze starts at the nearest point of the map in view and, automatically, covers 1 - 1/e
  // at twice the depth of the map (farthest minus nearest point).
  double near_m = INFINITY, far_m = 0.0;
  for (const Vec3& p : points) {
    const double d = std::sqrt(dot(p - f.eye, p - f.eye));
    near_m = std::min(near_m, d);
    far_m = std::max(far_m, d);
  }
  if (params.camera) near_m = 0.0;  // a chosen view: haze from the eye
  const double haze_m =
      params.haze_distance_m > 0.0 ? params.haze_distance_m : std::max(2.0 * (far_m - near_m), 1.0);

  // Projection of every vertex.
  parallel_for(ctx, rg.h, 16, [&](std::int64_t jb, std::int64_t je) {
    for (auto j = int(jb); j < int(je); ++j) {
      for (int i = 0; i < rg.w; ++i) {
        const ScreenVertex s = project(f, rg.world(i, j));
        const std::size_t d = 3 * rg.at(i, j);
        rg.screen[d] = float(s.x);
        rg.screen[d + 1] = float(s.y);
        rg.screen[d + 2] = float(s.z);
      }
    }
  });

  // Visibility: two triangles per cell, (00, 10, 11) and (00, 11, 01).
  std::vector<std::uint64_t> vis(pixels, kNoHit);
  const Rasteriser ras(vis, W, H);
  parallel_for(ctx, rg.h - 1, 8, [&](std::int64_t jb, std::int64_t je) {
    throw_if_cancelled(ctx);
    for (auto j = int(jb); j < int(je); ++j) {
      for (int i = 0; i + 1 < rg.w; ++i) {
        const std::size_t c[4] = {rg.at(i, j), rg.at(i + 1, j), rg.at(i + 1, j + 1),
                                  rg.at(i, j + 1)};
        static constexpr int kTris[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (int t = 0; t < 2; ++t) {
          const auto tri = std::uint32_t(
              (std::size_t(j) * std::size_t(rg.w - 1) + std::size_t(i)) * 2 + std::size_t(t));
          const std::size_t ids[3] = {c[kTris[t][0]], c[kTris[t][1]], c[kTris[t][2]]};
          ScreenVertex v[3];
          bool behind = false, finite = true;
          for (int k = 0; k < 3; ++k) {
            v[k] = {rg.screen[3 * ids[k]], rg.screen[3 * ids[k] + 1], rg.screen[3 * ids[k] + 2]};
            finite = finite && std::isfinite(rg.y[ids[k]]);
            behind = behind || !(v[k].z >= kNearM);
          }
          if (!finite) continue;
          if (!behind) {
            ras.triangle(v, ids, tri);
            continue;
          }
          const int ci[4] = {i, i + 1, i + 1, i}, cj[4] = {j, j, j + 1, j + 1};
          Vec3 p[3];
          for (int k = 0; k < 3; ++k) p[k] = rg.world(ci[kTris[t][k]], cj[kTris[t][k]]);
          clipped_triangle(ras, f, p, tri);
        }
      }
    }
  });
  throw_if_cancelled(ctx);

  // Shading.
  const double se = std::sin(params.sun_elevation_deg * kDeg);
  const double ce = std::cos(params.sun_elevation_deg * kDeg);
  const Vec3 to_sun{ce * std::cos(params.sun_azimuth_deg * kDeg), se,
                    ce * std::sin(params.sun_azimuth_deg * kDeg)};
  parallel_for(ctx, H, 8, [&](std::int64_t rb, std::int64_t re) {
    for (auto r = int(rb); r < int(re); ++r) {
      for (int c = 0; c < W; ++c) {
        const Vec3 ray = f.ray(c, r);
        const double ray_len = std::sqrt(dot(ray, ray));
        const Vec3 dir = (1.0 / ray_len) * ray;
        const std::size_t px = std::size_t(r) * std::size_t(W) + std::size_t(c);
        Colour out;
        const std::uint64_t key = vis[px];
        if (key == kNoHit) {
          out = background(f, dir, ymin, near_m, haze_m);
        } else {
          const auto tri = std::uint32_t(key & 0xffffffffU);
          const std::uint32_t cell = tri / 2;
          const auto i = int(cell % std::uint32_t(rg.w - 1)),
                     j = int(cell / std::uint32_t(rg.w - 1));
          const Vec3 a = rg.world(i, j);
          const Vec3 b = (tri & 1U) == 0 ? rg.world(i + 1, j) : rg.world(i + 1, j + 1);
          const Vec3 d = (tri & 1U) == 0 ? rg.world(i + 1, j + 1) : rg.world(i, j + 1);
          const Vec3 n = cross(b - a, d - a);
          const double denom = dot(n, dir);
          double t = denom != 0.0 ? dot(n, a - f.eye) / denom : -1.0;
          Vec3 hit = f.eye + t * dir;
          if (!(t > 0.0) || !std::isfinite(t)) {  // grazing: the triangle's centroid
            hit = (1.0 / 3.0) * (a + b + d);
            t = std::sqrt(dot(hit - f.eye, hit - f.eye));
          }
          const Bilinear bl(rg, (hit.x - rg.x0) / rg.cell_m, (hit.z - rg.z0) / rg.cell_m);
          out = {bl(rg.lit, 3, 0), bl(rg.lit, 3, 1), bl(rg.lit, 3, 2)};
          const double wet = bl(rg.wet);
          if (wet > 0.0) {
            // Water: sky reflection by Schlick's Fresnel term and a sun glint.
            const double cos_i = std::clamp(-dir.y, 0.0, 1.0);
            const double fresnel = 0.02 + 0.98 * std::pow(1.0 - cos_i, 5.0);
            const Vec3 refl{dir.x, -dir.y, dir.z};
            const double glint =
                std::pow(std::max(dot(refl, to_sun), 0.0), 400.0) * 2.0 * bl(rg.sun);
            Colour water = mix(out, sky(std::abs(dir.y)), std::min(fresnel + 0.08, 1.0));
            water = {water.r + 255.0 * glint, water.g + 255.0 * glint, water.b + 255.0 * glint};
            out = mix(out, water, wet);
          }
          out = mix(out, kHorizon, 1.0 - std::exp(-std::max(t - near_m, 0.0) / haze_m));
        }
        std::uint8_t* o = rgb.data() + 3 * px;
        o[0] = to_byte(out.r);
        o[1] = to_byte(out.g);
        o[2] = to_byte(out.b);
      }
    }
  });
}

void write_perspective_png(const std::filesystem::path& path, const PerspectiveScene& scene,
                           const PerspectiveParams& params, const ExecContext& ctx) {
  params.validate();
  std::vector<std::uint8_t> rgb(std::size_t(params.width) * std::size_t(params.height) * 3);
  render_perspective(scene, params, rgb, ctx);
  write_png8(path, params.width, params.height, 3, rgb, ctx);
}

}  // namespace terrane
