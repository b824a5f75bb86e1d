#include "scatter_meshes.hpp"

#include <cmath>

namespace terrane::view {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Rgb {
  float r, g, b;
};

void vertex(KindGeometry& g, double x, double y, double z, double nx, double ny, double nz, Rgb c) {
  const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
  for (double v : {x, y, z, nx / len, ny / len, nz / len}) g.vertices.push_back(float(v));
  g.vertices.insert(g.vertices.end(), {c.r, c.g, c.b});
}

std::uint32_t vertex_count(const KindGeometry& g) {
  return std::uint32_t(g.vertices.size() / 9);
}

// A cone (or a cylinder when top_r > 0) around the Y axis, open at the bottom.
void add_frustum(KindGeometry& g, double y0, double y1, double r0, double r1, int segments, Rgb c) {
  const std::uint32_t first = vertex_count(g);
  const double slope = (r0 - r1) / (y1 - y0);
  for (int s = 0; s <= segments; ++s) {
    const double a = 2.0 * kPi * s / segments;
    const double cx = std::cos(a), sz = std::sin(a);
    vertex(g, r0 * cx, y0, r0 * sz, cx, slope, sz, c);
    vertex(g, r1 * cx, y1, r1 * sz, cx, slope, sz, c);
  }
  for (int s = 0; s < segments; ++s) {
    const std::uint32_t a = first + 2 * std::uint32_t(s);
    g.indices.insert(g.indices.end(), {a, a + 1, a + 2, a + 2, a + 1, a + 3});
  }
}

// An ellipsoid of radii (rx, ry, rz) at height cy; `jitter` > 0 displaces vertices radially by a
// fixed pattern (rock facets).
void add_ellipsoid(KindGeometry& g, double cy, double rx, double ry, double rz, int segments,
                   int rings, Rgb c, double jitter) {
  const std::uint32_t first = vertex_count(g);
  for (int r = 0; r <= rings; ++r) {
    const double phi = kPi * r / rings;
    for (int s = 0; s <= segments; ++s) {
      const double theta = 2.0 * kPi * (s % segments) / segments;
      const double nx = std::sin(phi) * std::cos(theta), ny = std::cos(phi),
                   nz = std::sin(phi) * std::sin(theta);
      const int id = (r == 0 || r == rings) ? r : r * 131 + (s % segments) * 71;
      const double k = 1.0 + jitter * std::sin(id * 12.9898) * 0.5;
      vertex(g, rx * nx * k, cy + ry * ny * k, rz * nz * k, nx / rx, ny / ry, nz / rz, c);
    }
  }
  const std::uint32_t row = std::uint32_t(segments + 1);
  for (int r = 0; r < rings; ++r) {
    for (int s = 0; s < segments; ++s) {
      const std::uint32_t a = first + std::uint32_t(r) * row + std::uint32_t(s);
      g.indices.insert(g.indices.end(), {a, a + row, a + 1, a + 1, a + row, a + row + 1});
    }
  }
}

constexpr Rgb kBark{0.33f, 0.24f, 0.16f};

}  // namespace

KindGeometry conifer_geometry(bool far) {
  KindGeometry g;
  if (far) {
    add_frustum(g, 0.0, 16.0, 3.0, 0.0, 3, {0.11f, 0.29f, 0.15f});
    return g;
  }
  add_frustum(g, 0.0, 3.0, 0.35, 0.25, 6, kBark);
  add_frustum(g, 2.0, 11.0, 3.2, 0.0, 8, {0.10f, 0.27f, 0.14f});
  add_frustum(g, 7.0, 16.0, 2.3, 0.0, 8, {0.12f, 0.31f, 0.16f});
  return g;
}

KindGeometry broadleaf_geometry(bool far) {
  KindGeometry g;
  if (far) {
    add_ellipsoid(g, 7.5, 4.2, 4.4, 4.2, 3, 2, {0.22f, 0.42f, 0.15f}, 0.0);
    return g;
  }
  add_frustum(g, 0.0, 5.0, 0.4, 0.3, 6, kBark);
  add_ellipsoid(g, 8.0, 4.2, 3.6, 4.2, 10, 6, {0.22f, 0.42f, 0.15f}, 0.25);
  return g;
}

KindGeometry bush_geometry(bool far) {
  KindGeometry g;
  if (far) {
    add_ellipsoid(g, 0.6, 1.2, 0.9, 1.2, 3, 2, {0.30f, 0.40f, 0.16f}, 0.0);
    return g;
  }
  add_ellipsoid(g, 0.6, 1.2, 0.9, 1.2, 8, 5, {0.30f, 0.40f, 0.16f}, 0.3);
  return g;
}

KindGeometry boulder_geometry(bool far) {
  KindGeometry g;
  if (far) {
    add_ellipsoid(g, 0.35, 1.1, 0.8, 0.9, 3, 2, {0.47f, 0.46f, 0.44f}, 0.0);
    return g;
  }
  add_ellipsoid(g, 0.35, 1.1, 0.8, 0.9, 7, 4, {0.47f, 0.46f, 0.44f}, 0.45);
  return g;
}

}  // namespace terrane::view
