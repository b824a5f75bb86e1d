// Chunk meshes at a level of detail: lattice vertices from the halo'd heights, surface indices
// from the StitchTable's pieces for the chunk's edge mask, and optional skirts (vertical strips
// hanging below the border, the fallback of chunked LOD when neighbours are not stitched:
// T. Ulrich, "Rendering Massive Terrains using Chunked Level of Detail Control", 2002).
#include <cmath>
#include <string>

#include "mesh/mesh_internal.hpp"
#include "terrane/mesh.hpp"

namespace terrane {
namespace {

using mesh_detail::format_metres;

template <typename Index>
void copy_indices(std::span<const std::uint32_t> in, Index* out) {
  for (std::size_t k = 0; k < in.size(); ++k) out[k] = Index(in[k]);
}

// Skirt quads below every border segment of edge e: top a, b (lattice), bottom a', b' (skirt
// vertices at base + along-edge coordinate), wound so that the face looks away from the chunk.
template <typename Index>
Index* append_skirt(int n, int e, int s, std::uint32_t base, Index* out) {
  const std::uint32_t row = std::uint32_t(n) + 1;
  const auto top = [&](int t) -> std::uint32_t {
    switch (Edge(e)) {
      case Edge::west: return std::uint32_t(t) * row;
      case Edge::east: return std::uint32_t(t) * row + std::uint32_t(n);
      case Edge::north: return std::uint32_t(t);
      case Edge::south: return std::uint32_t(n) * row + std::uint32_t(t);
    }
    return 0;
  };
  // West and south faces need (a, b', b), (a, a', b'); east and north (a, b, b'), (a, b', a').
  const bool flip = Edge(e) == Edge::west || Edge(e) == Edge::south;
  for (int t = 0; t < n; t += s) {
    const std::uint32_t a = top(t), b = top(t + s);
    const std::uint32_t a2 = base + std::uint32_t(t), b2 = base + std::uint32_t(t + s);
    if (flip) {
      *out++ = Index(a), *out++ = Index(b2), *out++ = Index(b);
      *out++ = Index(a), *out++ = Index(a2), *out++ = Index(b2);
    } else {
      *out++ = Index(a), *out++ = Index(b), *out++ = Index(b2);
      *out++ = Index(a), *out++ = Index(b2), *out++ = Index(a2);
    }
  }
  return out;
}

template <typename Index>
void fill_indices(const StitchTable& table, const ChunkMeshParams& p, int n,
                  std::uint32_t lattice_vertices, std::size_t total, std::vector<Index>& out) {
  out.resize(total);
  Index* dst = out.data();
  const auto interior = table.interior(p.lod);
  copy_indices(interior, dst);
  dst += interior.size();
  for (int e = 0; e < 4; ++e) {
    const auto piece = table.edge(p.lod, Edge(e), p.coarser_neighbour[std::size_t(e)]);
    copy_indices(piece, dst);
    dst += piece.size();
  }
  if (p.skirts) {
    for (int e = 0; e < 4; ++e) {
      const int s = std::min(n, 1 << p.coarser_neighbour[std::size_t(e)]);
      dst = append_skirt(n, e, s, lattice_vertices + std::uint32_t(e) * std::uint32_t(n + 1), dst);
    }
  }
}

}  // namespace

void ChunkMeshParams::validate(int cells) const {
  const int levels = chunk_levels(cells);
  if (levels < 0) {
    throw Error(ErrorCategory::invalid_argument,
                "chunk cells " + std::to_string(cells) + " is not a power of two in [1, " +
                    std::to_string(kMaxChunkCells) + "]");
  }
  if (lod < 0 || lod > levels) {
    throw Error(ErrorCategory::invalid_argument,
                "lod " + std::to_string(lod) + " is beyond the levels of a chunk of " +
                    std::to_string(cells) + " cells (allowed 0.." + std::to_string(levels) + ")");
  }
  for (int e = 0; e < 4; ++e) {
    const int d = coarser_neighbour[std::size_t(e)];
    if (d < 0 || lod + d > levels) {
      throw Error(ErrorCategory::invalid_argument,
                  std::string("coarser_neighbour[") + to_string(Edge(e)) + "] " +
                      std::to_string(d) + " is outside 0.." + std::to_string(levels - lod) +
                      " (lod " + std::to_string(lod) + " of " + std::to_string(levels) + ")");
    }
  }
  if (morph_parent_quadrant < -1 || morph_parent_quadrant > 3 ||
      (morph_parent_quadrant >= 0 && lod != 0)) {
    throw Error(ErrorCategory::invalid_argument,
                "morph_parent_quadrant " + std::to_string(morph_parent_quadrant) +
                    " must be -1, or 0..3 with lod 0 (lod is " + std::to_string(lod) + ")");
  }
  if (skirts && !(std::isfinite(skirt_depth_m) && skirt_depth_m > 0.0)) {
    throw Error(ErrorCategory::invalid_argument,
                "skirt_depth_m " + format_metres(skirt_depth_m) + " must be > 0 and finite");
  }
  if (!(std::isfinite(uv_world_wrap_m) && uv_world_wrap_m > 0.0)) {
    throw Error(ErrorCategory::invalid_argument,
                "uv_world_wrap_m " + format_metres(uv_world_wrap_m) + " must be > 0 and finite");
  }
}

GridSpec chunk_height_grid(const GridSpec& world, int cells, std::int64_t cx, std::int64_t cz) {
  GridSpec g = world;
  g.width = cells + 3;
  g.height = cells + 3;
  g.index_x0 = world.index_x0 + cx * cells - 1;
  g.index_z0 = world.index_z0 + cz * cells - 1;
  return g;
}

void build_chunk_mesh(const Field2D& heights_with_halo, const ChunkMeshParams& params,
                      const StitchTable& table, Mesh& out) {
  const int cells = table.cells();
  params.validate(cells);
  const GridSpec& g = heights_with_halo.grid;
  if (g.width != cells + 3 || g.height != cells + 3 ||
      heights_with_halo.data.size() != g.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                "build_chunk_mesh: heights are " + std::to_string(g.width) + " x " +
                    std::to_string(g.height) + " (" + std::to_string(heights_with_halo.data.size()) +
                    " samples); a chunk of " + std::to_string(cells) + " cells needs " +
                    std::to_string(cells + 3) + " x " + std::to_string(cells + 3) +
                    " (its vertices plus a 1-sample halo, see chunk_height_grid)");
  }
  const int n = cells >> params.lod;
  const std::size_t lattice = std::size_t(n + 1) * std::size_t(n + 1);
  const std::size_t skirt_vertices = params.skirts ? 4 * std::size_t(n + 1) : 0;
  mesh_detail::LatticeSource src;
  src.field = &heights_with_halo;
  src.i0 = 1;
  src.j0 = 1;
  src.step = 1 << params.lod;
  src.nx = n;
  src.nz = n;
  src.uv_world_wrap_m = params.uv_world_wrap_m;
  src.morph_parent_quadrant = params.morph_parent_quadrant;
  mesh_detail::build_lattice_vertices(src, params.geomorph, skirt_vertices, out);

  if (params.skirts) {
    // Skirt vertex t of edge e copies border vertex t and hangs skirt_depth_m below it.
    const float depth = float(params.skirt_depth_m);
    const std::size_t row = std::size_t(n) + 1;
    for (int e = 0; e < 4; ++e) {
      for (int t = 0; t <= n; ++t) {
        std::size_t top = 0;
        switch (Edge(e)) {
          case Edge::west: top = std::size_t(t) * row; break;
          case Edge::east: top = std::size_t(t) * row + std::size_t(n); break;
          case Edge::north: top = std::size_t(t); break;
          case Edge::south: top = std::size_t(n) * row + std::size_t(t); break;
        }
        const std::size_t v = lattice + std::size_t(e) * row + std::size_t(t);
        for (int c = 0; c < 3; ++c) {
          out.positions[3 * v + std::size_t(c)] = out.positions[3 * top + std::size_t(c)];
          out.normals[3 * v + std::size_t(c)] = out.normals[3 * top + std::size_t(c)];
        }
        out.positions[3 * v + 1] -= depth;
        for (int c = 0; c < 2; ++c) {
          out.uv_local[2 * v + std::size_t(c)] = out.uv_local[2 * top + std::size_t(c)];
          out.uv_world[2 * v + std::size_t(c)] = out.uv_world[2 * top + std::size_t(c)];
        }
        if (params.geomorph) out.morph_y[v] = out.morph_y[top] - depth;
      }
    }
    out.bbox_min[1] -= depth;
  }

  const std::size_t surface = table.surface_index_count(params.lod, params.coarser_neighbour);
  std::size_t skirt_indices = 0;
  if (params.skirts) {
    for (int e = 0; e < 4; ++e) {
      const int s = std::min(n, 1 << params.coarser_neighbour[std::size_t(e)]);
      skirt_indices += 6 * std::size_t(n / s);
    }
  }
  const std::size_t nv = lattice + skirt_vertices;
  if (!params.indices) {
    out.indices16.clear();
    out.indices32.clear();
    out.surface_index_count = 0;
    return;
  }
  if (nv <= 65535) {
    out.indices32.clear();
    fill_indices(table, params, n, std::uint32_t(lattice), surface + skirt_indices, out.indices16);
  } else {
    out.indices16.clear();
    fill_indices(table, params, n, std::uint32_t(lattice), surface + skirt_indices, out.indices32);
  }
  out.surface_index_count = surface;
}

}  // namespace terrane
