// The Mesh container: index storage and consistency checks.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/huge_pages.hpp"
#include "terrane/mesh.hpp"

namespace terrane {
namespace {

[[noreturn]] void fail(std::string_view what, const std::string& reason) {
  throw Error(ErrorCategory::invalid_argument, std::string(what) + ": " + reason);
}

}  // namespace

void set_indices(Mesh& mesh, std::span<const std::uint32_t> indices) {
  if (mesh.vertex_count() <= 65535) {
    mesh.indices32.clear();
    mesh.indices16.resize(indices.size());
    for (std::size_t k = 0; k < indices.size(); ++k) mesh.indices16[k] = std::uint16_t(indices[k]);
  } else {
    mesh.indices16.clear();
    core_detail::reserve_huge(mesh.indices32, indices.size());
    mesh.indices32.assign(indices.begin(), indices.end());
  }
  mesh.surface_index_count = indices.size();
}

void update_bbox(Mesh& mesh) {
  const std::size_t nv = mesh.vertex_count();
  if (nv == 0) {
    mesh.bbox_min = {0.0f, 0.0f, 0.0f};
    mesh.bbox_max = {0.0f, 0.0f, 0.0f};
    return;
  }
  std::array<float, 3> lo{mesh.positions[0], mesh.positions[1], mesh.positions[2]};
  std::array<float, 3> hi = lo;
  for (std::size_t v = 1; v < nv; ++v) {
    for (std::size_t c = 0; c < 3; ++c) {
      const float x = mesh.positions[3 * v + c];
      lo[c] = std::min(lo[c], x);
      hi[c] = std::max(hi[c], x);
    }
  }
  mesh.bbox_min = lo;
  mesh.bbox_max = hi;
}

void Mesh::validate(std::string_view what) const {
  if (positions.size() % 3 != 0) {
    fail(what, std::to_string(positions.size()) + " position floats is not a multiple of 3");
  }
  const std::size_t nv = vertex_count();
  if (normals.size() != 3 * nv) {
    fail(what, std::to_string(normals.size()) + " normal floats for " + std::to_string(nv) +
                   " vertices (expected " + std::to_string(3 * nv) + ")");
  }
  if (uv_local.size() != 2 * nv) {
    fail(what, std::to_string(uv_local.size()) + " uv_local floats for " + std::to_string(nv) +
                   " vertices (expected " + std::to_string(2 * nv) + ")");
  }
  if (!uv_world.empty() && uv_world.size() != 2 * nv) {
    fail(what, std::to_string(uv_world.size()) + " uv_world floats for " + std::to_string(nv) +
                   " vertices (expected 0 or " + std::to_string(2 * nv) + ")");
  }
  if (!morph_y.empty() && morph_y.size() != nv) {
    fail(what, std::to_string(morph_y.size()) + " morph_y floats for " + std::to_string(nv) +
                   " vertices (expected 0 or " + std::to_string(nv) + ")");
  }
  if (!indices16.empty() && !indices32.empty()) fail(what, "both 16- and 32-bit indices are set");
  if (!indices16.empty() && nv > 65535) {
    fail(what, "16-bit indices with " + std::to_string(nv) + " vertices (more than 65535)");
  }
  const std::size_t ni = index_count();
  if (ni % 3 != 0) fail(what, std::to_string(ni) + " indices is not a multiple of 3");
  if (surface_index_count > ni || surface_index_count % 3 != 0) {
    fail(what, "surface_index_count " + std::to_string(surface_index_count) +
                   " is not a multiple of 3 within the " + std::to_string(ni) + " indices");
  }
  for (std::size_t k = 0; k < ni; ++k) {
    if (index(k) >= nv) {
      fail(what, "index " + std::to_string(k) + " is " + std::to_string(index(k)) +
                     ", beyond the " + std::to_string(nv) + " vertices");
    }
  }
  for (std::size_t v = 0; v < nv; ++v) {
    for (std::size_t c = 0; c < 3; ++c) {
      const float x = positions[3 * v + c];
      if (!(x >= bbox_min[c] && x <= bbox_max[c])) {
        fail(what, "vertex " + std::to_string(v) + " coordinate " + std::to_string(c) + " = " +
                       std::to_string(x) + " is outside the bounding box [" +
                       std::to_string(bbox_min[c]) + ", " + std::to_string(bbox_max[c]) + "]");
      }
    }
  }
}

}  // namespace terrane
