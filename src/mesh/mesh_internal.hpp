// Helpers shared by the mesh module's files (not public API).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "terrane/mesh.hpp"

namespace terrane::mesh_detail {

// Appends the surface triangles of an nx x nz cell lattice (vertex (i, j) has index
// j * (nx + 1) + i) to `out`, counter-clockwise seen from +Y.
//   part: -1 = everything; 0 = interior cells only; 1..4 = the band of edge (part - 1) only.
//   step[e]: the border of edge e uses every step[e]-th vertex (a power of two dividing the
//   edge's cell count; 1 = no stitching).
// Cells are split along the diagonal through the corner farthest from the lattice centre.
// Requires nx, nz >= 1; with nx == 1 or nz == 1 every step must be 1 and part must be -1.
void append_lattice_triangles(int nx, int nz, const std::array<int, 4>& step, int part,
                              std::vector<std::uint32_t>& out);

// Where lattice vertex (i, j) lies in a mesh's vertex arrays. The columns are cut into strips
// of `cells` cells: strip 0 holds columns 0..cells, strip s > 0 columns s * cells + 1 ..
// (s + 1) * cells (its first cells' left column belongs to strip s - 1), the last strip is
// narrower; vertices are stored strip after strip, each strip row by row. cells == 0 (or >= nx)
// is one strip: vertex (i, j) at j * (nx + 1) + i, the lattice order.
struct LatticeStrips {
  int nx = 0, nz = 0;
  int cells = 0;

  int count() const { return cells == 0 ? 1 : (nx + cells - 1) / cells; }
  int first_column(int s) const { return s == 0 ? 0 : s * cells + 1; }
  int last_column(int s) const { return cells == 0 ? nx : std::min(nx, (s + 1) * cells); }
  std::size_t index(int s, int i, int j) const {
    const int c0 = first_column(s);
    return std::size_t(c0) * std::size_t(nz + 1) +
           std::size_t(j) * std::size_t(last_column(s) - c0 + 1) + std::size_t(i - c0);
  }
};

// The same triangles as append_lattice_triangles(nx, nz, {1, 1, 1, 1}, -1, out), into vertices
// stored as LatticeStrips{nx, nz, strip_cells} and ordered for a post-transform vertex cache:
// strip by strip, each strip's cells row by row, so the vertices a row shares with the next are
// still cached when the next row needs them. A FIFO cache of C entries keeps them for
// 2 * (strip_cells + 1) <= C: a strip's first row loads its two rows interleaved, and a row
// that missed once misses again in every later row of the strip. Requires strip_cells >= 1.
void append_lattice_triangles_in_strips(int nx, int nz, int strip_cells,
                                        std::vector<std::uint32_t>& out);

// Whether cell (i, j) of an nx x nz lattice is split along its main diagonal (i, j)-(i+1, j+1)
// (else along (i+1, j)-(i, j+1)), by the radial rule above.
inline bool main_diagonal(int i, int j, int nx, int nz) {
  const bool low_x = 2 * i + 1 < nx;
  const bool low_z = 2 * j + 1 < nz;
  return low_x == low_z;
}

// The level-0 surface over one lattice cell, as the meshes triangulate it (shared by
// TerrainQuery and scatter, so that a queried or scattered height is the mesh's own). Corners
// are numbered 0 = (0,0), 1 = (1,0), 2 = (0,1), 3 = (1,1) in cell fractions (u, v).
//
// Which triangle of the cell holds (u, v): 0 or 1. Main diagonal: 0 is (0,0),(1,0),(1,1)
// (u >= v), 1 is (0,0),(1,1),(0,1). Anti-diagonal: 0 is (0,0),(1,0),(0,1) (u + v <= 1), 1 is
// (1,0),(1,1),(0,1).
inline int cell_triangle(bool main, double u, double v) {
  return main ? (u >= v ? 0 : 1) : (u + v <= 1.0 ? 0 : 1);
}

// The corners triangle `tri` of a cell needs.
inline std::array<int, 3> cell_triangle_corners(bool main, int tri) {
  if (main) return tri == 0 ? std::array<int, 3>{0, 1, 3} : std::array<int, 3>{0, 3, 2};
  return tri == 0 ? std::array<int, 3>{0, 1, 2} : std::array<int, 3>{1, 3, 2};
}

// The plane of one triangle over the cell: h(u, v) = h0 + du * (u - u0) + dv * (v - v0) with
// (u0, v0) its anchor corner [Units: m].
struct CellPlane {
  double h0 = 0.0, u0 = 0.0, v0 = 0.0, du = 0.0, dv = 0.0;
  double at(double u, double v) const { return h0 + du * (u - u0) + dv * (v - v0); }
};

// h[k]: corner k's height (only the triangle's corners are read).
inline CellPlane cell_triangle_plane(bool main, int tri, const std::array<double, 4>& h) {
  if (main) {
    if (tri == 0) return {h[0], 0.0, 0.0, h[1] - h[0], h[3] - h[1]};
    return {h[0], 0.0, 0.0, h[3] - h[2], h[2] - h[0]};
  }
  if (tri == 0) return {h[0], 0.0, 0.0, h[1] - h[0], h[2] - h[0]};
  return {h[3], 1.0, 1.0, h[3] - h[2], h[3] - h[1]};
}

// Unit normal (pointing up) of the plane y = p(u, v) with u = (x - x0) / sx, v = (z - z0) / sz.
inline std::array<float, 3> cell_plane_normal(const CellPlane& p, double sx, double sz) {
  const double gx = p.du / sx, gz = p.dv / sz;
  const double inv = 1.0 / std::sqrt(gx * gx + 1.0 + gz * gz);
  return {float(-gx * inv), float(inv), float(-gz * inv)};
}

}  // namespace terrane::mesh_detail

namespace terrane::mesh_detail {

// Where the vertices of a lattice come from: vertex (i, j), 0 <= i <= nx, 0 <= j <= nz, is
// sample (i0 + i * step, j0 + j * step) of `field`. Normals read the samples one full-resolution
// step away, clamped to the field (never clamped for a chunk with its halo).
struct LatticeSource {
  const Field2D* field = nullptr;
  int i0 = 0, j0 = 0;
  int step = 1;
  int nx = 0, nz = 0;
  double uv_world_wrap_m = 4096.0;
  // Geomorph target: -1 = the level-(L+1) surface of this lattice itself (its cells split by the
  // radial rule of this lattice); 0..3 = the surface of a parent lattice twice as large of
  // which this one is quadrant q (q & 1: +x half, q & 2: +z half), split by the parent's rule.
  int morph_parent_quadrant = -1;
  // Vertex layout: LatticeStrips{nx, nz, strip_cells} (0 = the lattice order, which geomorph
  // needs).
  int strip_cells = 0;
};

// Fills positions, normals, uv_local, uv_world, (morph_y when `geomorph`, which needs nx and nz
// even or equal to 1), the origin (world position of vertex (0, 0)) and bbox of the lattice
// vertices, with `extra_vertices` more slots reserved at the end of every attribute (skirts).
// Reuses out's capacity.
void build_lattice_vertices(const LatticeSource& src, bool geomorph, std::size_t extra_vertices,
                            Mesh& out);

// A number as printf's %g writes it ("0", "-2", "nan", "0.25") for error messages.
std::string format_metres(double v);

// x - wrap * floor(x / wrap), in [0, wrap).
double wrap_coordinate(double x, double wrap);

}  // namespace terrane::mesh_detail
