// Error-bounded simplification and vertex-cache / vertex-fetch optimisation with meshoptimizer
// (A. Kapoulkine, https://github.com/zeux/meshoptimizer). The simplifier is an edge-collapse
// simplifier driven by quadric error metrics (M. Garland, P. Heckbert, "Surface Simplification
// Using Quadric Error Metrics", SIGGRAPH 1997); the cache optimiser follows T. Forsyth, "Linear-
// Speed Vertex Cache Optimisation", 2006.
#include <meshoptimizer.h>

#include <cmath>
#include <string>
#include <vector>

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
  std::vector<std::uint32_t> remap(nv);
  const std::size_t unique = meshopt_optimizeVertexFetchRemap(remap.data(), indices.data(), ni, nv);
  meshopt_remapIndexBuffer(indices.data(), indices.data(), ni, remap.data());
  const auto remap_attr = [&](const std::vector<float>& src, std::vector<float>& dst, int comps) {
    if (src.empty()) {
      dst.clear();
      return;
    }
    std::vector<float> tmp(unique * std::size_t(comps));
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
