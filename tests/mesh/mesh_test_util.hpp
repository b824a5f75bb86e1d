// Helpers for the mesh tests: height fields from noise, world positions, border segments.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/mesh.hpp"
#include "terrane/noise.hpp"

namespace terrane::mesh_test {

// Rough terrain: fBm noise scaled to +-amplitude_m.
inline NoiseParams test_noise() {
  NoiseParams p;
  p.type = NoiseType::opensimplex2;
  p.fractal = FractalType::fbm;
  p.octaves = 5;
  p.frequency = 0.04;
  p.seed = 42;
  return p;
}

inline Field2D noise_field(const GridSpec& g, float amplitude_m = 30.0f) {
  Field2D f(g);
  noise_fill(test_noise(), g, f.data);
  for (float& v : f.data) v *= amplitude_m;
  return f;
}

inline Field2D chunk_heights(const GridSpec& world, int cells, std::int64_t cx, std::int64_t cz,
                             float amplitude_m = 30.0f) {
  return noise_field(chunk_height_grid(world, cells, cx, cz), amplitude_m);
}

using P3 = std::array<double, 3>;

inline P3 world_pos(const Mesh& m, std::size_t v) {
  return {m.origin_x_m + double(m.positions[3 * v]), m.origin_y_m + double(m.positions[3 * v + 1]),
          m.origin_z_m + double(m.positions[3 * v + 2])};
}

// y component of (b - a) x (c - a): > 0 when a, b, c wind counter-clockwise seen from +Y.
inline double cross_y(const P3& a, const P3& b, const P3& c) {
  return (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]);
}

inline P3 cross(const P3& a, const P3& b, const P3& c) {
  const P3 u{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const P3 w{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  return {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
}

// A border segment on a line of constant x (axis 0) or z (axis 2), as world positions ordered
// along the line.
struct Segment {
  P3 a, b;
  bool operator<(const Segment& o) const { return std::tie(a, b) < std::tie(o.a, o.b); }
  bool operator==(const Segment& o) const { return a == o.a && b == o.b; }
};

// Surface edges used by exactly one triangle whose two ends lie on the line
// world[axis] == value, each ordered along the other horizontal axis.
inline std::vector<Segment> border_segments(const Mesh& m, int axis, double value) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> count;
  for (std::size_t k = 0; k < m.surface_index_count; k += 3) {
    for (int e = 0; e < 3; ++e) {
      std::uint32_t a = m.index(k + std::size_t(e)), b = m.index(k + std::size_t((e + 1) % 3));
      if (a > b) std::swap(a, b);
      ++count[{a, b}];
    }
  }
  const int along = axis == 0 ? 2 : 0;
  std::vector<Segment> out;
  for (const auto& [edge, n] : count) {
    if (n != 1) continue;
    P3 a = world_pos(m, edge.first), b = world_pos(m, edge.second);
    if (a[std::size_t(axis)] != value || b[std::size_t(axis)] != value) continue;
    if (b[std::size_t(along)] < a[std::size_t(along)]) std::swap(a, b);
    out.push_back({a, b});
  }
  std::sort(out.begin(), out.end(), [along](const Segment& s, const Segment& t) {
    return s.a[std::size_t(along)] < t.a[std::size_t(along)];
  });
  return out;
}

// Height of the polyline `segs` at along-coordinate t (segments sorted and contiguous).
inline double polyline_height(const std::vector<Segment>& segs, int axis, double t) {
  const std::size_t along = axis == 0 ? 2 : 0;
  for (const Segment& s : segs) {
    if (t >= s.a[along] && t <= s.b[along]) {
      const double f = (t - s.a[along]) / (s.b[along] - s.a[along]);
      return s.a[1] + f * (s.b[1] - s.a[1]);
    }
  }
  ADD_FAILURE() << "no segment covers " << t;
  return 0.0;
}

// Index of the vertex at world (x, z) on the lattice part of the mesh; -1 if none.
inline long find_vertex(const Mesh& m, double x, double z, std::size_t lattice_vertices) {
  for (std::size_t v = 0; v < lattice_vertices; ++v) {
    const P3 p = world_pos(m, v);
    if (p[0] == x && p[2] == z) return long(v);
  }
  return -1;
}

// The message of the Error(invalid_argument) that f throws; a test failure when it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "no error thrown";
  return {};
}

}  // namespace terrane::mesh_test
