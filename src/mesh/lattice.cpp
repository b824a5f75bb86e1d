// Vertex attributes of a height-field lattice: positions, central-difference normals, UVs and
// CDLOD geomorph targets (F. Strugar, "Continuous Distance-Dependent Level of Detail for
// Rendering Heightmaps", Journal of Graphics, GPU, and Game Tools 14(4), 2009).
//
// Geomorph: the level-(L+1) lattice keeps the even vertices of level L, and its cells are split
// by the same radial rule (mesh_internal.hpp), so the coarse surface at a level-L vertex is
//   (even, even):  its own height
//   (odd, even), (even, odd): the mean of the two neighbours along the odd axis (a coarse edge)
//   (odd, odd):   the mean of the two ends of the coarse cell's diagonal
//                 (for a quadtree node: the diagonal its parent node's mesh uses there).
// Means are (a + b) * 0.5f in float, the exact midpoint rounded once.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/huge_pages.hpp"
#include "mesh/mesh_internal.hpp"
#include "terrane/schema.hpp"

namespace terrane::mesh_detail {

std::string format_metres(double v) {
  return format_number(v);
}

double wrap_coordinate(double x, double wrap) {
  const double r = x - wrap * std::floor(x / wrap);
  return r >= wrap ? 0.0 : r;  // x slightly below a multiple of wrap can round up to wrap
}

namespace {

void fill_morph(const LatticeSource& src, Mesh& out) {
  const int nx = src.nx, nz = src.nz;
  const std::size_t row = std::size_t(nx) + 1;
  const float* pos = out.positions.data();
  float* morph = out.morph_y.data();
  const auto y = [&](int i, int j) { return pos[3 * (std::size_t(j) * row + std::size_t(i)) + 1]; };
  if (nx == 1 || nz == 1) {  // the coarsest level has no coarser surface: morph to itself
    for (std::size_t k = 0; k < row * (std::size_t(nz) + 1); ++k) morph[k] = pos[3 * k + 1];
    return;
  }
  const int cnx = nx / 2, cnz = nz / 2;  // coarse lattice
  // The coarse cells' split: this lattice's own radial rule, or the parent's (this lattice is
  // one quadrant of it, so its coarse cell (ci, cj) is the parent's (ci + qx * cnx, cj + qz *
  // cnz) of 2 cnx x 2 cnz).
  const int q = src.morph_parent_quadrant;
  const int ox = q < 0 ? 0 : (q & 1) * cnx, oz = q < 0 ? 0 : ((q >> 1) & 1) * cnz;
  const int pnx = q < 0 ? cnx : 2 * cnx, pnz = q < 0 ? cnz : 2 * cnz;
  for (int j = 0; j <= nz; ++j) {
    float* m = morph + std::size_t(j) * row;
    if ((j & 1) == 0) {
      for (int i = 0; i <= nx; i += 2) m[i] = y(i, j);
      for (int i = 1; i < nx; i += 2) m[i] = (y(i - 1, j) + y(i + 1, j)) * 0.5f;
    } else {
      for (int i = 0; i <= nx; i += 2) m[i] = (y(i, j - 1) + y(i, j + 1)) * 0.5f;
      for (int i = 1; i < nx; i += 2) {
        if (main_diagonal(i / 2 + ox, j / 2 + oz, pnx, pnz)) {
          m[i] = (y(i - 1, j - 1) + y(i + 1, j + 1)) * 0.5f;
        } else {
          m[i] = (y(i + 1, j - 1) + y(i - 1, j + 1)) * 0.5f;
        }
      }
    }
  }
}

}  // namespace

void build_lattice_vertices(const LatticeSource& src, bool geomorph, std::size_t extra_vertices,
                            Mesh& out) {
  const Field2D& f = *src.field;
  const GridSpec& g = f.grid;
  const int nx = src.nx, nz = src.nz, step = src.step;
  const std::size_t row = std::size_t(nx) + 1;
  const std::size_t lattice = row * (std::size_t(nz) + 1);
  const std::size_t nv = lattice + extra_vertices;
  core_detail::resize_huge(out.positions, 3 * nv);
  core_detail::resize_huge(out.normals, 3 * nv);
  core_detail::resize_huge(out.uv_local, 2 * nv);
  core_detail::resize_huge(out.uv_world, 2 * nv);
  core_detail::resize_huge(out.morph_y, geomorph ? nv : 0);
  out.origin_x_m = g.x_m(src.i0);
  out.origin_y_m = 0.0;
  out.origin_z_m = g.z_m(src.j0);

  const double s = g.spacing_m;
  const float inv_2s = float(1.0 / (2.0 * s));
  const float inv_nx = 1.0f / float(nx), inv_nz = 1.0f / float(nz);
  const int w = g.width, last_i = g.width - 1, last_j = g.height - 1;
  // Columns whose neighbours need clamping (only at the field's own border).
  const bool clamp_first = src.i0 - 1 < 0;
  const bool clamp_last = src.i0 + nx * step + 1 > last_i;

  float* pos = out.positions.data();
  float* nrm = out.normals.data();
  float* uvl = out.uv_local.data();
  float* uvw = out.uv_world.data();
  float y_min = f.data[std::size_t(src.j0) * std::size_t(w) + std::size_t(src.i0)];
  float y_max = y_min;

  const LatticeStrips strips{nx, nz, src.strip_cells};
  for (int strip = 0; strip < strips.count(); ++strip) {
    const int c0 = strips.first_column(strip), c1 = strips.last_column(strip);
    // World U of each column depends only on i: computed into the strip's row 0, copied below
    // (no scratch: chunk meshes allocate nothing in steady state).
    float* u_world = uvw + 2 * (std::ptrdiff_t(strips.index(strip, c0, 0)) - c0);
    for (int i = c0; i <= c1; ++i) {
      u_world[2 * i] = float(wrap_coordinate(g.x_m(std::int64_t(src.i0) + std::int64_t(i) * step),
                                             src.uv_world_wrap_m));
    }
    for (int j = 0; j <= nz; ++j) {
      const int sj = src.j0 + j * step;
      const float* rc = f.data.data() + std::size_t(sj) * std::size_t(w);
      const float* rm = f.data.data() + std::size_t(std::max(sj - 1, 0)) * std::size_t(w);
      const float* rp = f.data.data() + std::size_t(std::min(sj + 1, last_j)) * std::size_t(w);
      const float z_local = float(double(j * step) * s);
      const float v_local = float(j) * inv_nz;
      const float v_world = float(wrap_coordinate(g.z_m(std::int64_t(sj)), src.uv_world_wrap_m));
      // This row's vertices of the strip, shifted so that column i is at [i].
      const std::ptrdiff_t base = std::ptrdiff_t(strips.index(strip, c0, j)) - c0;
      float* p = pos + 3 * base;
      float* nn = nrm + 3 * base;
      float* ul = uvl + 2 * base;
      float* uw = uvw + 2 * base;
      float lo = y_min, hi = y_max;
      for (int i = c0; i <= c1; ++i) {
        const int si = src.i0 + i * step;
        int sl = si - 1, sr = si + 1;
        if ((i == 0 && clamp_first) || (i == nx && clamp_last)) {
          sl = std::max(sl, 0);
          sr = std::min(sr, last_i);
        }
        const float h = rc[si];
        const float gx = (rc[sr] - rc[sl]) * inv_2s;
        const float gz = (rp[si] - rm[si]) * inv_2s;
        const float inv_len = 1.0f / std::sqrt(gx * gx + 1.0f + gz * gz);
        p[3 * i] = float(double(i * step) * s);
        p[3 * i + 1] = h;
        p[3 * i + 2] = z_local;
        nn[3 * i] = -gx * inv_len;
        nn[3 * i + 1] = inv_len;
        nn[3 * i + 2] = -gz * inv_len;
        ul[2 * i] = float(i) * inv_nx;
        ul[2 * i + 1] = v_local;
        uw[2 * i] = u_world[2 * i];
        uw[2 * i + 1] = v_world;
        lo = h < lo ? h : lo;
        hi = h > hi ? h : hi;
      }
      y_min = lo;
      y_max = hi;
    }
  }
  if (geomorph) fill_morph(src, out);
  out.bbox_min = {0.0f, y_min, 0.0f};
  out.bbox_max = {float(double(nx * step) * s), y_max, float(double(nz * step) * s)};
}

}  // namespace terrane::mesh_detail
