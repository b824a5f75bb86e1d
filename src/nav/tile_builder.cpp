// NavTileBuilder: one tile of one agent's navmesh from the level-0 triangles of the world, with
// Recast's pipeline as its Sample_TileMesh runs it (rasterise, filter, erode, regions, contours,
// polygons, detail) and Detour's tile data, plus areas by slope and water depth and drop links.
#include <cmath>
#include <memory>
#include <string>

#include <recastnavigation/DetourAlloc.h>
#include <recastnavigation/DetourNavMeshBuilder.h>
#include <recastnavigation/Recast.h>

#include "mesh/mesh_internal.hpp"
#include "nav/nav_internal.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace nav_detail {
namespace {

// The lattice index of the cell containing v: vertex(gi) <= v < vertex(gi + 1) with
// vertex(k) = double(k) * s (as the world's grids compute it).
std::int64_t cell_index(double v, double s) {
  auto gi = std::int64_t(std::floor(v / s));
  if (v < double(gi) * s) {
    --gi;
  } else if (v >= double(gi + 1) * s) {
    ++gi;
  }
  return gi;
}

bool cell_main(std::int64_t gi, std::int64_t gj, int n) {
  const std::int64_t i = gi - floor_div(gi, n) * n;
  const std::int64_t j = gj - floor_div(gj, n) * n;
  return mesh_detail::main_diagonal(int(i), int(j), n, n);
}

}  // namespace

bool TileSurface::sample(double x, double z, double& y, double& normal_y) const {
  const double wx = x + ox, wz = z + oz;
  const std::int64_t gi = cell_index(wx, s), gj = cell_index(wz, s);
  const std::int64_t ci = gi - gi0, cj = gj - gj0;
  if (ci < 0 || cj < 0 || ci + 1 >= w || cj + 1 >= h) return false;
  const double x0 = double(gi) * s, z0 = double(gj) * s;
  const double sx = double(gi + 1) * s - x0, sz = double(gj + 1) * s - z0;
  const double u = (wx - x0) / sx, v = (wz - z0) / sz;
  const bool main = cell_main(gi, gj, chunk_cells);
  const int tri = mesh_detail::cell_triangle(main, u, v);
  const std::array<int, 3> c = mesh_detail::cell_triangle_corners(main, tri);
  double px[3], py[3], pz[3];
  for (int k = 0; k < 3; ++k) {
    const int dx = c[std::size_t(k)] & 1, dz = c[std::size_t(k)] >> 1;
    px[k] = double(dx) * sx;
    pz[k] = double(dz) * sz;
    py[k] = double(heights[std::size_t((cj + dz) * w + (ci + dx))]);
  }
  // Plane through the three corners: n = (p1 - p0) x (p2 - p0).
  const double ax = px[1] - px[0], ay = py[1] - py[0], az = pz[1] - pz[0];
  const double bx = px[2] - px[0], by = py[2] - py[0], bz = pz[2] - pz[0];
  double nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
  if (ny < 0) nx = -nx, ny = -ny, nz = -nz;
  const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
  normal_y = ny / len;
  const double lx = u * sx, lz = v * sz;
  y = py[0] - (nx * (lx - px[0]) + nz * (lz - pz[0])) / ny;
  return true;
}

void make_tile_input(const NavTerrain& terrain, const NavParams& params, int agent,
                     const NavTileKey& key, const NavTileKey& origin, NavTileInput& out,
                     TileSurface* surface) {
  if (agent < 0 || std::size_t(agent) >= params.agents.size()) {
    throw Error(ErrorCategory::invalid_argument,
                "nav: agent " + std::to_string(agent) + " is not one of the " +
                    std::to_string(params.agents.size()) + " agents");
  }
  const NavAgent& a = params.agents[std::size_t(agent)];
  const double side = params.tile_size_m();
  const double cs = params.cell_size_m, ch = params.cell_height_m;
  const std::string name = "tile (" + std::to_string(key.tx) + ", " + std::to_string(key.tz) + ")";
  const std::int64_t dx = key.tx - origin.tx, dz = key.tz - origin.tz;
  const double reach = (double(std::max(std::abs(dx), std::abs(dx + 1))) + 0.5) * side;
  const double reach_z = (double(std::max(std::abs(dz), std::abs(dz + 1))) + 0.5) * side;
  if (std::max(reach, reach_z) > kNavMaxOriginDistance) {
    throw Error(ErrorCategory::invalid_argument,
                "nav: " + name + " is " + format_number(std::max(reach, reach_z)) +
                    " m from the navmesh origin tile (" + std::to_string(origin.tx) + ", " +
                    std::to_string(origin.tz) + "); at most " +
                    format_number(kNavMaxOriginDistance) + " m (re-centre the navmesh)");
  }

  out.cs = float(cs);
  out.ch = float(ch);
  out.walkable_slope_deg = float(a.max_slope_deg);
  out.walkable_height = int(std::ceil(a.height_m / ch));
  out.walkable_climb = int(std::floor(a.max_climb_m / ch));
  out.walkable_radius = int(std::ceil(a.radius_m / cs));
  out.max_edge_len = int(params.max_edge_length_m / cs);
  out.max_simplification_error = float(params.max_simplification_error);
  out.min_region_area = params.min_region_cells;
  out.merge_region_area = params.merge_region_cells;
  out.max_verts_per_poly = 6;
  out.tile_size = params.tile_cells;
  out.border_size = out.walkable_radius + 3;
  out.width = out.tile_size + 2 * out.border_size;
  out.height = out.width;
  out.detail_sample_dist =
      params.detail_sample_distance < 0.9 ? 0.0f : float(cs * params.detail_sample_distance);
  out.detail_sample_max_error = float(params.detail_max_error_m);

  // The tile with its border, in world metres, and the lattice cells it touches.
  const double border_m = double(out.border_size) * cs;
  const double x0 = double(key.tx) * side - border_m, x1 = double(key.tx + 1) * side + border_m;
  const double z0 = double(key.tz) * side - border_m, z1 = double(key.tz + 1) * side + border_m;
  const double s = terrain.cell_size_m();
  const std::int64_t gi0 = cell_index(x0, s), gi1 = cell_index(x1, s);
  const std::int64_t gj0 = cell_index(z0, s), gj1 = cell_index(z1, s);
  const int w = int(gi1 - gi0 + 2), h = int(gj1 - gj0 + 2);
  TileSurface local;
  TileSurface& surf = surface != nullptr ? *surface : local;
  surf.gi0 = gi0;
  surf.gj0 = gj0;
  surf.w = w;
  surf.h = h;
  surf.s = s;
  surf.chunk_cells = terrain.chunk_cells();
  surf.ox = double(origin.tx) * side;
  surf.oz = double(origin.tz) * side;
  surf.heights.resize(std::size_t(w) * std::size_t(h));
  terrain.heights(gi0, gj0, w, h, surf.heights);

  out.vertices.resize(std::size_t(w) * std::size_t(h) * 3);
  float ymin = surf.heights[0], ymax = surf.heights[0];
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i) {
      const float y = surf.heights[std::size_t(j * w + i)];
      float* v = &out.vertices[std::size_t(j * w + i) * 3];
      v[0] = float(double(gi0 + i) * s - surf.ox);
      v[1] = y;
      v[2] = float(double(gj0 + j) * s - surf.oz);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  }
  const std::size_t cells = std::size_t(w - 1) * std::size_t(h - 1);
  out.triangles.resize(cells * 6);
  out.areas.resize(cells * 2);
  const double walkable = std::cos(a.max_slope_deg * (M_PI / 180.0));
  const double gentle = std::cos(params.steep_slope_deg * (M_PI / 180.0));
  const double sea = terrain.sea_level_m();
  std::size_t t = 0;
  for (int cj = 0; cj + 1 < h; ++cj) {
    for (int ci = 0; ci + 1 < w; ++ci) {
      const bool main = cell_main(gi0 + ci, gj0 + cj, surf.chunk_cells);
      for (int tri = 0; tri < 2; ++tri, ++t) {
        const std::array<int, 3> c = mesh_detail::cell_triangle_corners(main, tri);
        int idx[3];
        for (int k = 0; k < 3; ++k) {
          const int cc = c[std::size_t(k)];
          idx[k] = (cj + (cc >> 1)) * w + (ci + (cc & 1));
        }
        const float* p0 = &out.vertices[std::size_t(idx[0]) * 3];
        const float* p1 = &out.vertices[std::size_t(idx[1]) * 3];
        const float* p2 = &out.vertices[std::size_t(idx[2]) * 3];
        const double ax = p1[0] - p0[0], ay = p1[1] - p0[1], az = p1[2] - p0[2];
        const double bx = p2[0] - p0[0], by = p2[1] - p0[1], bz = p2[2] - p0[2];
        const double nx = ay * bz - az * by, nz = ax * by - ay * bx;
        double ny = az * bx - ax * bz;
        if (ny < 0) {  // Recast wants counter-clockwise seen from +Y (normal up)
          std::swap(idx[1], idx[2]);
          ny = -ny;
        }
        const double cosine = ny / std::sqrt(nx * nx + ny * ny + nz * nz);
        const double depth = sea - (double(p0[1]) + double(p1[1]) + double(p2[1])) / 3.0;
        NavArea area = NavArea::ground;
        if (depth > params.wade_depth_m) {
          area = NavArea::deep_water;
        } else if (depth > 0.0) {
          area = NavArea::shallow_water;
        } else if (cosine <= gentle) {
          area = NavArea::steep;
        }
        out.areas[t] = cosine > walkable ? std::uint8_t(area) : std::uint8_t(0);
        for (int k = 0; k < 3; ++k) out.triangles[t * 3 + std::size_t(k)] = idx[k];
      }
    }
  }
  out.bmin = {float(x0 - surf.ox), ymin - float(ch), float(z0 - surf.oz)};
  out.bmax = {float(x1 - surf.ox), ymax + float(a.height_m + ch), float(z1 - surf.oz)};
  const double spans = (double(out.bmax[1]) - double(out.bmin[1])) / ch;
  if (spans > 8191.0) {
    throw Error(ErrorCategory::limit, "nav: " + name + " spans " +
                                          format_number(double(ymax) - double(ymin)) +
                                          " m of height, over Recast's 8191 cell heights of " +
                                          format_number(ch) + " m (raise cell_height_m)");
  }
}

}  // namespace nav_detail

namespace {

struct RecastFree {
  void operator()(rcHeightfield* p) const { rcFreeHeightField(p); }
  void operator()(rcCompactHeightfield* p) const { rcFreeCompactHeightfield(p); }
  void operator()(rcContourSet* p) const { rcFreeContourSet(p); }
  void operator()(rcPolyMesh* p) const { rcFreePolyMesh(p); }
  void operator()(rcPolyMeshDetail* p) const { rcFreePolyMeshDetail(p); }
};
template <class T>
using RecastPtr = std::unique_ptr<T, RecastFree>;

[[noreturn]] void recast_failed(const char* step, const NavTileKey& key) {
  throw Error(ErrorCategory::internal, std::string("nav: Recast's ") + step + " failed for tile (" +
                                           std::to_string(key.tx) + ", " + std::to_string(key.tz) +
                                           ")");
}

}  // namespace

NavTileBuilder::NavTileBuilder(std::shared_ptr<const NavTerrain> terrain, const NavParams& params)
    : terrain_(std::move(terrain)), params_(params) {
  if (terrain_ == nullptr) {
    throw Error(ErrorCategory::invalid_argument, "NavTileBuilder: terrain is null");
  }
  params_.validate(*terrain_);
}

NavTileBuilder::~NavTileBuilder() = default;

NavTileKey NavTileBuilder::tile_at(double x_m, double z_m) const {
  const double side = tile_size_m();
  return NavTileKey{std::int64_t(std::floor(x_m / side)), std::int64_t(std::floor(z_m / side))};
}

NavTileKey NavTileBuilder::region_origin(double x0_m, double z0_m, double x1_m, double z1_m) const {
  return tile_at((x0_m + x1_m) * 0.5, (z0_m + z1_m) * 0.5);
}

std::vector<NavTileKey> NavTileBuilder::region_tiles(double x0_m, double z0_m, double x1_m,
                                                     double z1_m) const {
  for (double v : {x0_m, z0_m, x1_m, z1_m}) {
    if (!std::isfinite(v) || std::abs(v) > kMaxWorldCoordinate) {
      throw Error(ErrorCategory::invalid_argument,
                  "nav region: coordinate " + format_number(v) +
                      " is not finite or outside the world (|v| <= " +
                      format_number(kMaxWorldCoordinate) + ")");
    }
  }
  if (!(x1_m > x0_m && z1_m > z0_m)) {
    throw Error(ErrorCategory::invalid_argument,
                "nav region: the box (" + format_number(x0_m) + ", " + format_number(z0_m) +
                    ")..(" + format_number(x1_m) + ", " + format_number(z1_m) + ") is empty");
  }
  const double side = tile_size_m();
  const NavTileKey lo = tile_at(x0_m, z0_m);
  NavTileKey hi = tile_at(x1_m, z1_m);
  if (double(hi.tx) * side >= x1_m) --hi.tx;  // the high edges are exclusive
  if (double(hi.tz) * side >= z1_m) --hi.tz;
  const double count = double(hi.tx - lo.tx + 1) * double(hi.tz - lo.tz + 1);
  if (count > double(params_.max_tiles)) {
    throw Error(ErrorCategory::limit,
                "nav region: the box needs " + format_number(count) + " tiles of " +
                    format_number(side) +
                    " m per agent; at most max_tiles = " + std::to_string(params_.max_tiles) +
                    " are loaded at once (12 tile bits of a poly ref)");
  }
  const NavTileKey origin = region_origin(x0_m, z0_m, x1_m, z1_m);
  const double reach = double(std::max({origin.tx - lo.tx, hi.tx + 1 - origin.tx, origin.tz - lo.tz,
                                        hi.tz + 1 - origin.tz})) *
                       side;
  if (reach > kNavMaxOriginDistance) {
    throw Error(ErrorCategory::limit, "nav region: the box reaches " + format_number(reach) +
                                          " m from its centre tile; at most " +
                                          format_number(kNavMaxOriginDistance) +
                                          " m (Detour's float positions)");
  }
  std::vector<NavTileKey> keys;
  keys.reserve(std::size_t(count));
  for (std::int64_t tz = lo.tz; tz <= hi.tz; ++tz) {
    for (std::int64_t tx = lo.tx; tx <= hi.tx; ++tx) keys.push_back({tx, tz});
  }
  return keys;
}

void NavTileBuilder::input(int agent, const NavTileKey& key, const NavTileKey& origin,
                           NavTileInput& out) const {
  nav_detail::make_tile_input(*terrain_, params_, agent, key, origin, out, nullptr);
}

void NavTileBuilder::build(int agent, const NavTileKey& key, const NavTileKey& origin, NavTile& out,
                           const ExecContext& ctx) const {
  NavTileInput in;
  nav_detail::TileSurface surface;
  nav_detail::make_tile_input(*terrain_, params_, agent, key, origin, in, &surface);
  out.agent = agent;
  out.key = key;
  out.origin = origin;
  out.data.clear();
  out.polygons = 0;
  out.off_mesh_links = 0;
  out.walkable_area_m2 = 0.0;
  throw_if_cancelled(ctx);

  rcContext rc(false);
  RecastPtr<rcHeightfield> hf(rcAllocHeightfield());
  if (!hf || !rcCreateHeightfield(&rc, *hf, in.width, in.height, in.bmin.data(), in.bmax.data(),
                                  in.cs, in.ch)) {
    recast_failed("rcCreateHeightfield", key);
  }
  const int nv = int(in.vertices.size() / 3), nt = int(in.areas.size());
  if (!rcRasterizeTriangles(&rc, in.vertices.data(), nv, in.triangles.data(), in.areas.data(), nt,
                            *hf, in.walkable_climb)) {
    recast_failed("rcRasterizeTriangles", key);
  }
  rcFilterLowHangingWalkableObstacles(&rc, in.walkable_climb, *hf);
  rcFilterLedgeSpans(&rc, in.walkable_height, in.walkable_climb, *hf);
  rcFilterWalkableLowHeightSpans(&rc, in.walkable_height, *hf);
  RecastPtr<rcCompactHeightfield> chf(rcAllocCompactHeightfield());
  if (!chf || !rcBuildCompactHeightfield(&rc, in.walkable_height, in.walkable_climb, *hf, *chf)) {
    recast_failed("rcBuildCompactHeightfield", key);
  }
  hf.reset();
  if (!rcErodeWalkableArea(&rc, in.walkable_radius, *chf))
    recast_failed("rcErodeWalkableArea", key);
  throw_if_cancelled(ctx);
  bool ok = true;
  switch (params_.partition) {
    case NavPartition::watershed:
      ok = rcBuildDistanceField(&rc, *chf) &&
           rcBuildRegions(&rc, *chf, in.border_size, in.min_region_area, in.merge_region_area);
      break;
    case NavPartition::monotone:
      ok = rcBuildRegionsMonotone(&rc, *chf, in.border_size, in.min_region_area,
                                  in.merge_region_area);
      break;
    case NavPartition::layers:
      ok = rcBuildLayerRegions(&rc, *chf, in.border_size, in.min_region_area);
      break;
  }
  if (!ok) recast_failed("region partition", key);
  RecastPtr<rcContourSet> cset(rcAllocContourSet());
  if (!cset || !rcBuildContours(&rc, *chf, in.max_simplification_error, in.max_edge_len, *cset)) {
    recast_failed("rcBuildContours", key);
  }
  if (cset->nconts == 0) return;  // nothing walkable
  RecastPtr<rcPolyMesh> pmesh(rcAllocPolyMesh());
  if (!pmesh || !rcBuildPolyMesh(&rc, *cset, in.max_verts_per_poly, *pmesh)) {
    recast_failed("rcBuildPolyMesh", key);
  }
  RecastPtr<rcPolyMeshDetail> dmesh(rcAllocPolyMeshDetail());
  if (!dmesh || !rcBuildPolyMeshDetail(&rc, *pmesh, *chf, in.detail_sample_dist,
                                       in.detail_sample_max_error, *dmesh)) {
    recast_failed("rcBuildPolyMeshDetail", key);
  }
  chf.reset();
  cset.reset();
  if (pmesh->npolys == 0) return;
  if (pmesh->npolys > kNavMaxPolysPerTile) {
    throw Error(ErrorCategory::limit,
                "nav: tile (" + std::to_string(key.tx) + ", " + std::to_string(key.tz) + ") has " +
                    std::to_string(pmesh->npolys) + " polygons; a tile holds at most " +
                    std::to_string(kNavMaxPolysPerTile) +
                    " (10 polygon bits of a poly ref): lower tile_cells");
  }
  const int nvp = pmesh->nvp;
  double area = 0.0;
  for (int i = 0; i < pmesh->npolys; ++i) {
    const unsigned short* p = &pmesh->polys[i * 2 * nvp];
    pmesh->flags[i] =
        pmesh->areas[i] == std::uint8_t(NavArea::deep_water) ? kNavFlagSwim : kNavFlagWalk;
    double twice = 0.0;
    int n = 0;
    while (n < nvp && p[n] != RC_MESH_NULL_IDX) ++n;
    for (int k = 0; k < n; ++k) {
      const unsigned short* a = &pmesh->verts[p[k] * 3];
      const unsigned short* b = &pmesh->verts[p[(k + 1) % n] * 3];
      twice += double(a[0]) * double(b[2]) - double(b[0]) * double(a[2]);
    }
    area += std::abs(twice) * 0.5 * double(in.cs) * double(in.cs);
  }

  std::vector<float> links;
  const NavAgent& agent_params = params_.agents[std::size_t(agent)];
  if (agent_params.max_drop_m > agent_params.max_climb_m) {
    nav_detail::find_drop_links(*pmesh, surface, agent_params, in, links);
  }
  const int nlinks = int(links.size() / 6);
  // static_cast, not functional casts: `T(Enum::value)` as a constructor argument parses as a
  // parameter declaration for clang (-Wvexing-parse).
  const auto n = static_cast<std::size_t>(nlinks);
  std::vector<float> link_rad(n, static_cast<float>(agent_params.radius_m));
  std::vector<unsigned short> link_flags(n, kNavFlagDrop);
  std::vector<unsigned char> link_areas(n, static_cast<unsigned char>(NavArea::ground));
  std::vector<unsigned char> link_dir(n, 0);  // one-way
  std::vector<unsigned int> link_ids(n);
  for (int i = 0; i < nlinks; ++i) link_ids[std::size_t(i)] = unsigned(i);

  dtNavMeshCreateParams p{};
  p.verts = pmesh->verts;
  p.vertCount = pmesh->nverts;
  p.polys = pmesh->polys;
  p.polyAreas = pmesh->areas;
  p.polyFlags = pmesh->flags;
  p.polyCount = pmesh->npolys;
  p.nvp = nvp;
  p.detailMeshes = dmesh->meshes;
  p.detailVerts = dmesh->verts;
  p.detailVertsCount = dmesh->nverts;
  p.detailTris = dmesh->tris;
  p.detailTriCount = dmesh->ntris;
  p.offMeshConVerts = links.data();
  p.offMeshConRad = link_rad.data();
  p.offMeshConFlags = link_flags.data();
  p.offMeshConAreas = link_areas.data();
  p.offMeshConDir = link_dir.data();
  p.offMeshConUserID = link_ids.data();
  p.offMeshConCount = nlinks;
  p.tileX = int(key.tx - origin.tx);
  p.tileY = int(key.tz - origin.tz);
  p.tileLayer = 0;
  rcVcopy(p.bmin, pmesh->bmin);
  rcVcopy(p.bmax, pmesh->bmax);
  p.walkableHeight = float(agent_params.height_m);
  p.walkableRadius = float(agent_params.radius_m);
  p.walkableClimb = float(agent_params.max_climb_m);
  p.cs = in.cs;
  p.ch = in.ch;
  p.buildBvTree = true;
  unsigned char* data = nullptr;
  int size = 0;
  if (!dtCreateNavMeshData(&p, &data, &size)) recast_failed("dtCreateNavMeshData", key);
  out.data.assign(data, data + size);
  dtFree(data);
  out.polygons = pmesh->npolys;
  out.off_mesh_links = nlinks;
  out.walkable_area_m2 = area;
}

}  // namespace terrane
