// Drop links: one-way off-mesh connections from the wall edges of a tile's polygons down to
// walkable ground, where the terrain beyond the edge falls by more than the agent can climb
// and at most its max_drop_m within a short run (a ledge it can jump down, not a slope it
// could walk, which Recast already meshes).
//
// Along each wall edge (a polygon edge with no neighbour that is not on the tile border), points
// every max(1 m, 4 radii) are probed outward, perpendicular to the edge, at distances from two
// radii (the polygon edge sits one radius in from the ledge after erosion) to two radii plus
// max(1 m, max_drop_m) in steps of two cells. The first probe on walkable ground (slope within
// the agent's) decides: a drop in (max_climb_m, max_drop_m] makes a link from the edge point to
// the probe; anything else (level ground, a higher wall, a longer fall) makes none. A probe
// above the edge point by more than max_climb_m ends the search (a wall, not a drop).
#include <cmath>

#include <recastnavigation/Recast.h>

#include "nav/nav_internal.hpp"

namespace terrane::nav_detail {

void find_drop_links(const rcPolyMesh& mesh, const TileSurface& surface, const NavAgent& agent,
                     const NavTileInput& in, std::vector<float>& verts) {
  constexpr std::size_t kMaxLinks = 256;
  const int nvp = mesh.nvp;
  const double cs = mesh.cs, ch = mesh.ch;
  const double walkable = std::cos(agent.max_slope_deg * (M_PI / 180.0));
  const double spacing = std::max(1.0, 4.0 * agent.radius_m);
  const double first = 2.0 * agent.radius_m;
  const double last = first + std::max(1.0, agent.max_drop_m);
  const double step = 2.0 * cs;
  (void)in;
  for (int i = 0; i < mesh.npolys; ++i) {
    const unsigned short* p = &mesh.polys[i * 2 * nvp];
    int n = 0;
    while (n < nvp && p[n] != RC_MESH_NULL_IDX) ++n;
    double cx = 0.0, cz = 0.0;
    for (int k = 0; k < n; ++k) {
      cx += double(mesh.verts[p[k] * 3 + 0]);
      cz += double(mesh.verts[p[k] * 3 + 2]);
    }
    cx = double(mesh.bmin[0]) + cx / n * cs;
    cz = double(mesh.bmin[2]) + cz / n * cs;
    for (int k = 0; k < n; ++k) {
      const unsigned short nei = p[nvp + k];
      if (nei != RC_MESH_NULL_IDX) continue;  // a neighbour, or a portal (0x8000) to the next tile
      const unsigned short* a = &mesh.verts[p[k] * 3];
      const unsigned short* b = &mesh.verts[p[(k + 1) % n] * 3];
      const double ax = double(mesh.bmin[0]) + double(a[0]) * cs;
      const double az = double(mesh.bmin[2]) + double(a[2]) * cs;
      const double ay = double(mesh.bmin[1]) + double(a[1]) * ch;
      const double bx = double(mesh.bmin[0]) + double(b[0]) * cs;
      const double bz = double(mesh.bmin[2]) + double(b[2]) * cs;
      const double by = double(mesh.bmin[1]) + double(b[1]) * ch;
      const double ex = bx - ax, ez = bz - az;
      const double len = std::sqrt(ex * ex + ez * ez);
      if (len < 1e-6) continue;
      double nx = ez / len, nz = -ex / len;  // outward: away from the polygon's centre
      if (nx * ((ax + bx) * 0.5 - cx) + nz * ((az + bz) * 0.5 - cz) < 0.0) nx = -nx, nz = -nz;
      for (double t = spacing * 0.5; t < len; t += spacing) {
        const double f = t / len;
        const double sx = ax + ex * f, sz = az + ez * f, sy = ay + (by - ay) * f;
        for (double d = first; d <= last + 1e-9; d += step) {
          double y = 0.0, ny = 0.0;
          if (!surface.sample(sx + nx * d, sz + nz * d, y, ny)) break;
          if (y > sy + agent.max_climb_m) break;  // a wall
          if (ny <= walkable) continue;           // still on the cliff face
          const double drop = sy - y;
          if (drop > agent.max_climb_m && drop <= agent.max_drop_m) {
            const float link[6] = {float(sx),          float(sy), float(sz),
                                   float(sx + nx * d), float(y),  float(sz + nz * d)};
            verts.insert(verts.end(), link, link + 6);
            if (verts.size() / 6 >= kMaxLinks) return;
          }
          break;
        }
      }
    }
  }
}

}  // namespace terrane::nav_detail
