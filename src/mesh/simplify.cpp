// Error-bounded simplification and vertex-cache / vertex-fetch optimisation with meshoptimizer
// (A. Kapoulkine, https://github.com/zeux/meshoptimizer). The simplifier is an edge-collapse
// simplifier driven by quadric error metrics (M. Garland, P. Heckbert, "Surface Simplification
// Using Quadric Error Metrics", SIGGRAPH 1997); the cache optimiser follows T. Forsyth, "Linear-
// Speed Vertex Cache Optimisation", 2006.
#include <meshoptimizer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/huge_pages.hpp"
#include "mesh/mesh_internal.hpp"
#include "terrane/mesh.hpp"

namespace terrane {
namespace {

using mesh_detail::format_metres;

std::vector<std::uint32_t> surface_indices(const Mesh& m) {
  std::vector<std::uint32_t> out(m.surface_index_count);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = m.index(k);
  return out;
}

// Optimises `indices` (into in's vertices) for the vertex cache, then writes into `out` the
// vertices in first-use order and the remapped indices.
void compact_into(const Mesh& in, std::vector<std::uint32_t>& indices, Mesh& out) {
  const std::size_t nv = in.vertex_count();
  const std::size_t ni = indices.size();
  meshopt_optimizeVertexCache(indices.data(), indices.data(), ni, nv);
  std::vector<std::uint32_t> remap;
  core_detail::resize_huge(remap, nv);
  const std::size_t unique = meshopt_optimizeVertexFetchRemap(remap.data(), indices.data(), ni, nv);
  meshopt_remapIndexBuffer(indices.data(), indices.data(), ni, remap.data());
  const auto remap_attr = [&](const std::vector<float>& src, std::vector<float>& dst, int comps) {
    if (src.empty()) {
      dst.clear();
      return;
    }
    std::vector<float> tmp;
    core_detail::resize_huge(tmp, unique * std::size_t(comps));
    meshopt_remapVertexBuffer(tmp.data(), src.data(), nv, sizeof(float) * std::size_t(comps),
                              remap.data());
    dst.swap(tmp);
  };
  Mesh result;
  result.origin_x_m = in.origin_x_m;
  result.origin_y_m = in.origin_y_m;
  result.origin_z_m = in.origin_z_m;
  remap_attr(in.positions, result.positions, 3);
  remap_attr(in.normals, result.normals, 3);
  remap_attr(in.uv_local, result.uv_local, 2);
  remap_attr(in.uv_world, result.uv_world, 2);
  set_indices(result, indices);
  update_bbox(result);
  out = std::move(result);
}

// Twice the signed area of triangle (a, b, c) projected on XZ, positive when counter-clockwise
// seen from +Y (the lattice's winding).
double footprint2(const std::vector<float>& pos, std::uint32_t a, std::uint32_t b,
                  std::uint32_t c) {
  const double ax = pos[3 * a], az = pos[3 * a + 2];
  const double bx = double(pos[3 * b]) - ax, bz = double(pos[3 * b + 2]) - az;
  const double cx = double(pos[3 * c]) - ax, cz = double(pos[3 * c + 2]) - az;
  return bz * cx - bx * cz;
}

// The lattice step of a grid mesh: its shortest axis-aligned extent of an edge [Units: m].
// Vertices are lattice points, so twice a triangle's footprint is a multiple of step^2 and
// anything below half of it is zero up to float rounding.
double lattice_step(const std::vector<float>& pos, const std::vector<std::uint32_t>& idx) {
  double step = 0.0;
  for (std::size_t t = 0; t + 2 < idx.size(); t += 3) {
    for (int e = 0; e < 3; ++e) {
      const std::uint32_t a = idx[t + std::size_t(e)], b = idx[t + std::size_t((e + 1) % 3)];
      const double d = std::max(std::abs(double(pos[3 * a]) - double(pos[3 * b])),
                                std::abs(double(pos[3 * a + 2]) - double(pos[3 * b + 2])));
      if (d > 0.0 && (step == 0.0 || d < step)) step = d;
    }
  }
  return step;
}

// Removes the vertical (zero-footprint) triangles meshopt_simplify can leave in a height field:
// its collapses keep 3D normals from flipping, not the XZ projection from folding, so a vertex
// can end up on the line of an opposite edge. Such a triangle (a, b, c) with b between a and c
// is merged with its neighbour (c, a, d) across the long edge and the pair re-split along b-d
// (an edge flip): the quad's outline is unchanged, so no hole, crack or T-junction appears and
// locked borders stay as they are; both new triangles cover the XZ area of (a, c, d), so the
// projection still tiles the footprint once. Repeats until none is left or no flip applies (a
// neighbour that is itself degenerate is flipped after its own neighbour).
void flip_zero_footprint_triangles(const std::vector<float>& pos, double step,
                                   std::vector<std::uint32_t>& idx) {
  const double zero = 0.5 * step * step;
  const std::size_t nt = idx.size() / 3;
  const auto key = [](std::uint32_t a, std::uint32_t b) {
    return a < b ? (std::uint64_t(a) << 32) | b : (std::uint64_t(b) << 32) | a;
  };
  for (int pass = 0; pass < 64; ++pass) {
    std::vector<std::size_t> flat;
    for (std::size_t t = 0; t < nt; ++t) {
      if (std::abs(footprint2(pos, idx[3 * t], idx[3 * t + 1], idx[3 * t + 2])) < zero) {
        flat.push_back(t);
      }
    }
    if (flat.empty()) return;
    std::unordered_map<std::uint64_t, std::array<std::size_t, 2>> edges;
    edges.reserve(idx.size());
    for (std::size_t t = 0; t < nt; ++t) {
      for (int e = 0; e < 3; ++e) {
        auto [it, fresh] = edges.try_emplace(key(idx[3 * t + std::size_t(e)],
                                                 idx[3 * t + std::size_t((e + 1) % 3)]),
                                             std::array<std::size_t, 2>{t, nt});
        if (!fresh) it->second[1] = t;
      }
    }
    std::vector<bool> touched(nt, false);
    bool progress = false;
    for (const std::size_t t : flat) {
      if (touched[t]) continue;
      // b: the vertex between the other two (opposite the longest edge in XZ).
      int mid = 0;
      double longest = -1.0;
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t a = idx[3 * t + std::size_t((k + 1) % 3)];
        const std::uint32_t c = idx[3 * t + std::size_t((k + 2) % 3)];
        const double dx = double(pos[3 * a]) - double(pos[3 * c]);
        const double dz = double(pos[3 * a + 2]) - double(pos[3 * c + 2]);
        if (dx * dx + dz * dz > longest) {
          longest = dx * dx + dz * dz;
          mid = k;
        }
      }
      const std::uint32_t b = idx[3 * t + std::size_t(mid)];
      const std::uint32_t a = idx[3 * t + std::size_t((mid + 1) % 3)];
      const std::uint32_t c = idx[3 * t + std::size_t((mid + 2) % 3)];
      const auto found = edges.find(key(a, c));
      if (found == edges.end()) continue;
      const std::size_t u = found->second[0] == t ? found->second[1] : found->second[0];
      if (u >= nt || touched[u]) continue;
      std::uint32_t d = 0;
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t v = idx[3 * u + std::size_t(k)];
        if (v != a && v != c) d = v;
      }
      std::array<std::uint32_t, 3> t1{a, b, d}, t2{b, c, d};
      double f1 = footprint2(pos, t1[0], t1[1], t1[2]);
      double f2 = footprint2(pos, t2[0], t2[1], t2[2]);
      if (f1 < 0.0) {
        std::swap(t1[1], t1[2]);
        f1 = -f1;
      }
      if (f2 < 0.0) {
        std::swap(t2[1], t2[2]);
        f2 = -f2;
      }
      if (f1 < zero || f2 < zero) continue;  // the neighbour is degenerate too: a later pass
      std::copy(t1.begin(), t1.end(), idx.begin() + std::ptrdiff_t(3 * t));
      std::copy(t2.begin(), t2.end(), idx.begin() + std::ptrdiff_t(3 * u));
      touched[t] = touched[u] = true;
      progress = true;
    }
    if (!progress) return;
  }
}

}  // namespace

void SimplifyParams::validate() const {
  if (!(std::isfinite(max_error_m) && max_error_m > 0.0)) {
    throw Error(ErrorCategory::invalid_argument,
                "simplification error " + format_metres(max_error_m) +
                    " m is invalid: it must be a finite number of metres > 0");
  }
}

SimplifyReport simplify_mesh(const Mesh& in, const SimplifyParams& params, Mesh& out) {
  params.validate();
  if (&in == &out) {
    throw Error(ErrorCategory::invalid_argument, "simplify_mesh: input and output are the same mesh");
  }
  in.validate("simplify_mesh input");
  SimplifyReport report;
  report.triangles_before = in.surface_index_count / 3;
  std::vector<std::uint32_t> src = surface_indices(in);
  const std::size_t nv = in.vertex_count();
  // meshoptimizer's error is relative to the mesh's extent.
  const float scale = nv == 0 ? 1.0f : meshopt_simplifyScale(in.positions.data(), nv, 12);
  const double target = scale > 0.0f ? params.max_error_m / double(scale) : 0.0;
  std::vector<std::uint32_t> dst(src.size());
  float result_error = 0.0f;
  const std::size_t n = meshopt_simplify(dst.data(), src.data(), src.size(), in.positions.data(), nv,
                                         12, 0, float(target),
                                         params.lock_border ? unsigned(meshopt_SimplifyLockBorder) : 0u,
                                         &result_error);
  dst.resize(n);
  flip_zero_footprint_triangles(in.positions, lattice_step(in.positions, src), dst);
  compact_into(in, dst, out);
  report.triangles_after = n / 3;
  report.vertices_after = out.vertex_count();
  report.error_m = double(result_error) * double(scale);
  return report;
}

void optimize_mesh(Mesh& mesh) {
  mesh.validate("optimize_mesh input");
  std::vector<std::uint32_t> indices = surface_indices(mesh);
  compact_into(mesh, indices, mesh);
}

}  // namespace terrane
