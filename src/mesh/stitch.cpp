// Lattice triangulation with edge stitching for LOD chunks.
//
// The lattice is cut into the interior (cells not touching the border) and four trapezoidal
// bands between the border and the first inner ring of vertices, separated by the corner
// diagonals (0,0)-(1,1) etc. Each band is triangulated by walking its two parallel vertex chains
// (the border, possibly taking only every 2^d-th vertex, and the inner ring) and always advancing
// the chain whose next vertex comes first; every triangle thus has vertices on both lines and is
// never degenerate, and the border of a band stitched by d uses exactly the vertices of a
// neighbour 2^d times coarser: no cracks and no T-junctions. This is the classic stitching of
// chunked/geomipmapped terrain (W. H. de Boer, "Fast Terrain Rendering Using Geometrical
// MipMapping", 2000; T. Ulrich, "Rendering Massive Terrains using Chunked Level of Detail
// Control", SIGGRAPH 2002 course), with the band split by corner diagonals so that the four edges
// can be stitched independently.
#include <algorithm>
#include <string>

#include "mesh/mesh_internal.hpp"
#include "terrane/mesh.hpp"

namespace terrane {
namespace mesh_detail {
namespace {

// Vertex (i, j) at j * (nx + 1) + i.
struct LatticeId {
  int nx;
  std::uint32_t operator()(int i, int j) const { return std::uint32_t(j * (nx + 1) + i); }
};

template <typename Id = LatticeId>
struct Emitter {
  int nx;
  std::vector<std::uint32_t>& out;
  Id id{nx};

  // Emits (a, b, c) counter-clockwise seen from +Y: the normal's y, (b-a).z*(c-a).x -
  // (b-a).x*(c-a).z, must be positive (x = i, z = j).
  void tri(int ai, int aj, int bi, int bj, int ci, int cj) {
    const long long cross = (long long)(bj - aj) * (ci - ai) - (long long)(bi - ai) * (cj - aj);
    out.push_back(id(ai, aj));
    if (cross > 0) {
      out.push_back(id(bi, bj));
      out.push_back(id(ci, cj));
    } else {
      out.push_back(id(ci, cj));
      out.push_back(id(bi, bj));
    }
  }
  void cell(int i, int j, int nz) {
    if (main_diagonal(i, j, nx, nz)) {
      tri(i, j, i + 1, j + 1, i + 1, j);
      tri(i, j, i, j + 1, i + 1, j + 1);
    } else {
      tri(i + 1, j, i, j + 1, i, j);
      tri(i + 1, j, i + 1, j + 1, i, j + 1);
    }
  }
};

// The band of one edge. `outer(t)` / `inner(t)` map an along-edge coordinate to lattice (i, j);
// the border chain runs 0, s, 2s, ..., n_along; the inner chain 1, 2, ..., n_along - 1.
template <typename Outer, typename Inner>
void band(Emitter<>& em, int n_along, int s, Outer outer, Inner inner) {
  int a = 0;  // current border coordinate
  int b = 1;  // current inner coordinate
  while (a < n_along || b < n_along - 1) {
    bool advance_outer;
    if (a == n_along) {
      advance_outer = false;
    } else if (b == n_along - 1) {
      advance_outer = true;
    } else if (a + s != b + 1) {
      advance_outer = a + s < b + 1;
    } else {
      // A tie is a quad; split it like the interior: through the corner farther from the centre.
      advance_outer = !(a + a + s < n_along);
    }
    const auto [ai, aj] = outer(a);
    const auto [bi, bj] = inner(b);
    if (advance_outer) {
      const auto [ci, cj] = outer(a + s);
      em.tri(ai, aj, ci, cj, bi, bj);
      a += s;
    } else {
      const auto [ci, cj] = inner(b + 1);
      em.tri(ai, aj, ci, cj, bi, bj);
      b += 1;
    }
  }
}

struct IJ {
  int i, j;
};

}  // namespace

void append_lattice_triangles(int nx, int nz, const std::array<int, 4>& step, int part,
                              std::vector<std::uint32_t>& out) {
  Emitter<> em{nx, out};
  if (nx == 1 || nz == 1) {
    for (int j = 0; j < nz; ++j) {
      for (int i = 0; i < nx; ++i) em.cell(i, j, nz);
    }
    return;
  }
  if (part == -1 || part == 0) {
    for (int j = 1; j + 1 < nz; ++j) {
      for (int i = 1; i + 1 < nx; ++i) em.cell(i, j, nz);
    }
  }
  const int w = static_cast<int>(Edge::west), e = static_cast<int>(Edge::east);
  const int n = static_cast<int>(Edge::north), s = static_cast<int>(Edge::south);
  if (part == -1 || part == 1 + w) {
    band(em, nz, step[w], [](int t) { return IJ{0, t}; }, [](int t) { return IJ{1, t}; });
  }
  if (part == -1 || part == 1 + e) {
    band(em, nz, step[e], [nx](int t) { return IJ{nx, t}; },
         [nx](int t) { return IJ{nx - 1, t}; });
  }
  if (part == -1 || part == 1 + n) {
    band(em, nx, step[n], [](int t) { return IJ{t, 0}; }, [](int t) { return IJ{t, 1}; });
  }
  if (part == -1 || part == 1 + s) {
    band(em, nx, step[s], [nz](int t) { return IJ{t, nz}; },
         [nz](int t) { return IJ{t, nz - 1}; });
  }
}

void append_lattice_triangles_in_strips(int nx, int nz, int strip_cells,
                                        std::vector<std::uint32_t>& out) {
  const LatticeStrips strips{nx, nz, strip_cells};
  for (int s = 0; s < strips.count(); ++s) {
    // The strip's cells start one column left of its own vertices (in strip s - 1's).
    const auto id = [&strips, s, c0 = strips.first_column(s)](int i, int j) {
      return std::uint32_t(strips.index(i < c0 ? s - 1 : s, i, j));
    };
    Emitter<decltype(id)> em{nx, out, id};
    const int i_end = strips.last_column(s);
    for (int j = 0; j < nz; ++j) {
      for (int i = s * strip_cells; i < i_end; ++i) em.cell(i, j, nz);
    }
  }
}

}  // namespace mesh_detail

const char* to_string(Edge e) {
  switch (e) {
    case Edge::west: return "west";
    case Edge::east: return "east";
    case Edge::north: return "north";
    case Edge::south: return "south";
  }
  return "?";
}

int chunk_levels(int cells) {
  if (cells < 1 || cells > kMaxChunkCells || (cells & (cells - 1)) != 0) return -1;
  int k = 0;
  while ((1 << k) < cells) ++k;
  return k;
}

StitchTable::StitchTable(int cells) : cells_(cells), levels_(chunk_levels(cells)) {
  if (levels_ < 0) {
    throw Error(ErrorCategory::invalid_argument,
                "chunk cells " + std::to_string(cells) + " is not a power of two in [1, " +
                    std::to_string(kMaxChunkCells) + "]");
  }
  const int nl = levels_ + 1;
  interior_.resize(std::size_t(nl));
  edges_.resize(std::size_t(nl) * 4 * std::size_t(nl));
  for (int lod = 0; lod <= levels_; ++lod) {
    const int n = cells >> lod;
    if (n == 1) {  // one cell: no bands, everything is "interior"
      mesh_detail::append_lattice_triangles(1, 1, {1, 1, 1, 1}, -1, interior_[std::size_t(lod)]);
      continue;
    }
    mesh_detail::append_lattice_triangles(n, n, {1, 1, 1, 1}, 0, interior_[std::size_t(lod)]);
    for (int e = 0; e < 4; ++e) {
      for (int d = 0; lod + d <= levels_; ++d) {
        std::array<int, 4> step{1, 1, 1, 1};
        step[std::size_t(e)] = 1 << d;
        auto& piece = edges_[(std::size_t(lod) * 4 + std::size_t(e)) * std::size_t(nl) +
                             std::size_t(d)];
        mesh_detail::append_lattice_triangles(n, n, step, 1 + e, piece);
      }
    }
  }
}

std::span<const std::uint32_t> StitchTable::interior(int lod) const {
  if (lod < 0 || lod > levels_) {
    throw Error(ErrorCategory::invalid_argument,
                "lod " + std::to_string(lod) + " is outside 0.." + std::to_string(levels_) +
                    " for a chunk of " + std::to_string(cells_) + " cells");
  }
  return interior_[std::size_t(lod)];
}

std::span<const std::uint32_t> StitchTable::edge(int lod, Edge e, int coarser_by) const {
  if (lod < 0 || lod > levels_ || coarser_by < 0 || lod + coarser_by > levels_) {
    throw Error(ErrorCategory::invalid_argument,
                "lod " + std::to_string(lod) + " with a neighbour coarser by " +
                    std::to_string(coarser_by) + " is outside the " + std::to_string(levels_ + 1) +
                    " levels (0.." + std::to_string(levels_) + ") of a chunk of " +
                    std::to_string(cells_) + " cells");
  }
  const std::size_t nl = std::size_t(levels_ + 1);
  return edges_[(std::size_t(lod) * 4 + std::size_t(e)) * nl + std::size_t(coarser_by)];
}

std::size_t StitchTable::surface_index_count(int lod,
                                             const std::array<int, 4>& coarser_neighbour) const {
  std::size_t total = interior(lod).size();
  for (int e = 0; e < 4; ++e) total += edge(lod, Edge(e), coarser_neighbour[std::size_t(e)]).size();
  return total;
}

}  // namespace terrane
