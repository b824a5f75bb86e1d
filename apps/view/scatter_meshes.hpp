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

KindGeometry conifer_geometry();
KindGeometry broadleaf_geometry();
KindGeometry bush_geometry();
KindGeometry boulder_geometry();

}  // namespace terrane::view
