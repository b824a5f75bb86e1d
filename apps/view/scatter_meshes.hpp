// One small procedural mesh per scatter kind (conifer, broadleaf, bush, boulder), in metres,
// standing on y = 0: interleaved position, normal and colour (9 floats a vertex).
#pragma once

#include <cstdint>
#include <vector>

namespace terrane::view {

struct KindGeometry {
  std::vector<float> vertices;  // x y z, nx ny nz, r g b
  std::vector<std::uint32_t> indices;
};

// Near meshes (a trunk and a crown of 100 to 150 triangles) and far ones (6 to 12 triangles,
// the same silhouette): a forest of 10^5 instances is drawn mostly with the far ones.
KindGeometry conifer_geometry(bool far);
KindGeometry broadleaf_geometry(bool far);
KindGeometry bush_geometry(bool far);
KindGeometry boulder_geometry(bool far);

}  // namespace terrane::view
