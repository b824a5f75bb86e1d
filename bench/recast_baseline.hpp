// The baseline of bench_nav: bare Recast and Detour on a tile's triangles, the pipeline of
// Recast's own Sample_TileMesh (rasterise, the three filters, compact, erode, watershed
// regions, contours, polygon mesh, detail mesh, dtCreateNavMeshData), with the configuration
// numbers NavTileBuilder::input reports, and nothing else: no terrain evaluation, no areas by
// slope or depth (Recast's own rcMarkWalkableTriangles), no drop links.
#pragma once

#include <vector>

#include <recastnavigation/DetourAlloc.h>
#include <recastnavigation/DetourNavMeshBuilder.h>
#include <recastnavigation/Recast.h>

#include "terrane/nav.hpp"

namespace terrane::bench {

// Builds the tile; returns the Detour data size (0 when nothing is walkable).
inline int bare_recast_tile(const NavTileInput& in, std::vector<unsigned char>& areas) {
  rcContext ctx(false);
  const int nv = int(in.vertices.size() / 3), nt = int(in.triangles.size() / 3);
  areas.assign(std::size_t(nt), 0);
  rcMarkWalkableTriangles(&ctx, in.walkable_slope_deg, in.vertices.data(), nv,
                          in.triangles.data(), nt, areas.data());
  rcHeightfield* hf = rcAllocHeightfield();
  rcCreateHeightfield(&ctx, *hf, in.width, in.height, in.bmin.data(), in.bmax.data(), in.cs, in.ch);
  rcRasterizeTriangles(&ctx, in.vertices.data(), nv, in.triangles.data(), areas.data(), nt, *hf,
                       in.walkable_climb);
  rcFilterLowHangingWalkableObstacles(&ctx, in.walkable_climb, *hf);
  rcFilterLedgeSpans(&ctx, in.walkable_height, in.walkable_climb, *hf);
  rcFilterWalkableLowHeightSpans(&ctx, in.walkable_height, *hf);
  rcCompactHeightfield* chf = rcAllocCompactHeightfield();
  rcBuildCompactHeightfield(&ctx, in.walkable_height, in.walkable_climb, *hf, *chf);
  rcFreeHeightField(hf);
  rcErodeWalkableArea(&ctx, in.walkable_radius, *chf);
  rcBuildDistanceField(&ctx, *chf);
  rcBuildRegions(&ctx, *chf, in.border_size, in.min_region_area, in.merge_region_area);
  rcContourSet* cset = rcAllocContourSet();
  rcBuildContours(&ctx, *chf, in.max_simplification_error, in.max_edge_len, *cset);
  int size = 0;
  if (cset->nconts > 0) {
    rcPolyMesh* pmesh = rcAllocPolyMesh();
    rcBuildPolyMesh(&ctx, *cset, in.max_verts_per_poly, *pmesh);
    rcPolyMeshDetail* dmesh = rcAllocPolyMeshDetail();
    rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, in.detail_sample_dist, in.detail_sample_max_error,
                          *dmesh);
    if (pmesh->npolys > 0) {
      for (int i = 0; i < pmesh->npolys; ++i) pmesh->flags[i] = 1;
      dtNavMeshCreateParams p{};
      p.verts = pmesh->verts;
      p.vertCount = pmesh->nverts;
      p.polys = pmesh->polys;
      p.polyAreas = pmesh->areas;
      p.polyFlags = pmesh->flags;
      p.polyCount = pmesh->npolys;
      p.nvp = pmesh->nvp;
      p.detailMeshes = dmesh->meshes;
      p.detailVerts = dmesh->verts;
      p.detailVertsCount = dmesh->nverts;
      p.detailTris = dmesh->tris;
      p.detailTriCount = dmesh->ntris;
      rcVcopy(p.bmin, pmesh->bmin);
      rcVcopy(p.bmax, pmesh->bmax);
      p.walkableHeight = float(in.walkable_height) * in.ch;
      p.walkableRadius = float(in.walkable_radius) * in.cs;
      p.walkableClimb = float(in.walkable_climb) * in.ch;
      p.cs = in.cs;
      p.ch = in.ch;
      p.buildBvTree = true;
      unsigned char* data = nullptr;
      if (dtCreateNavMeshData(&p, &data, &size)) dtFree(data);
    }
    rcFreePolyMeshDetail(dmesh);
    rcFreePolyMesh(pmesh);
  }
  rcFreeContourSet(cset);
  rcFreeCompactHeightfield(chf);
  return size;
}

}  // namespace terrane::bench
