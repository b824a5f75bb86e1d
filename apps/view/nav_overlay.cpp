// The navmesh overlay: Detour tiles decoded into coloured triangles and lines (see
// nav_overlay.hpp). The tile layout is Detour's (dtNavMesh::addTile reads it the same way):
// the header, then vertices, polygons, links, detail meshes, detail vertices and detail
// triangles, each padded to 4 bytes. Polygons are drawn through their detail triangles (the
// height detail Recast sampled), so the overlay follows the ground rather than the flat
// polygons; edges are the detail edges on each polygon's boundary (what DetourDebugDraw
// draws), walls (no neighbour) dark and the others light.
#include "nav_overlay.hpp"

#include <recastnavigation/DetourNavMesh.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <glm/gtc/type_ptr.hpp>

#include "shaders.hpp"

namespace terrane::view {
namespace {

// Above the terrain (the level-0 triangles the navmesh was built from, which the viewer draws
// near the camera): polygons and their edges a little higher than the voxel error.
constexpr float kLiftTriangles = 0.2f, kLiftLines = 0.3f;
constexpr std::uint8_t kFillAlpha = 96;

// Area colours (NavArea ids 1..5; 0 and others magenta: never expected).
void area_rgb(int area, float out[3]) {
  static constexpr float kColours[6][3] = {{1.00f, 0.00f, 1.00f}, {0.25f, 0.90f, 0.35f},
                                           {1.00f, 0.60f, 0.10f}, {0.35f, 0.85f, 1.00f},
                                           {0.20f, 0.35f, 1.00f}, {0.95f, 0.90f, 0.35f}};
  const int k = area >= 1 && area < 6 ? area : 0;
  std::memcpy(out, kColours[k], sizeof(float) * 3);
}

NavVertex vertex(const float* p, float lift, const float rgb[3], std::uint8_t alpha) {
  NavVertex v;
  v.x = p[0];
  v.y = p[1] + lift;
  v.z = p[2];
  for (int k = 0; k < 3; ++k) v.rgba[k] = std::uint8_t(std::clamp(rgb[k], 0.0f, 1.0f) * 255.0f);
  v.rgba[3] = alpha;
  return v;
}

// Squared horizontal distance of p from the segment a-b.
float distance_sq_2d(const float* p, const float* a, const float* b) {
  const float dx = b[0] - a[0], dz = b[2] - a[2];
  const float len = dx * dx + dz * dz;
  float t = len > 0.0f ? ((p[0] - a[0]) * dx + (p[2] - a[2]) * dz) / len : 0.0f;
  t = std::clamp(t, 0.0f, 1.0f);
  const float ex = a[0] + t * dx - p[0], ez = a[2] + t * dz - p[2];
  return ex * ex + ez * ez;
}

// The parts of a Detour tile the overlay reads; false when the bytes are not one.
struct TileData {
  const dtMeshHeader* header = nullptr;
  const float* verts = nullptr;
  const dtPoly* polys = nullptr;
  const dtPolyDetail* detail_meshes = nullptr;
  const float* detail_verts = nullptr;
  const unsigned char* detail_tris = nullptr;
};

bool decode(const std::vector<std::uint8_t>& data, TileData& t) {
  if (data.size() < sizeof(dtMeshHeader)) return false;
  const auto* h = reinterpret_cast<const dtMeshHeader*>(data.data());
  if (h->magic != DT_NAVMESH_MAGIC || h->version != DT_NAVMESH_VERSION) return false;
  if (h->polyCount < 0 || h->vertCount < 0 || h->maxLinkCount < 0 || h->detailMeshCount < 0 ||
      h->detailVertCount < 0 || h->detailTriCount < 0 || h->detailMeshCount > h->polyCount) {
    return false;
  }
  auto align4 = [](std::size_t x) { return (x + 3) & ~std::size_t(3); };
  std::size_t offset = align4(sizeof(dtMeshHeader));
  const std::uint8_t* base = data.data();
  t.header = h;
  t.verts = reinterpret_cast<const float*>(base + offset);
  offset += align4(sizeof(float) * 3 * std::size_t(h->vertCount));
  t.polys = reinterpret_cast<const dtPoly*>(base + offset);
  offset += align4(sizeof(dtPoly) * std::size_t(h->polyCount));
  offset += align4(sizeof(dtLink) * std::size_t(h->maxLinkCount));
  t.detail_meshes = reinterpret_cast<const dtPolyDetail*>(base + offset);
  offset += align4(sizeof(dtPolyDetail) * std::size_t(h->detailMeshCount));
  t.detail_verts = reinterpret_cast<const float*>(base + offset);
  offset += align4(sizeof(float) * 3 * std::size_t(h->detailVertCount));
  t.detail_tris = base + offset;
  offset += align4(4 * std::size_t(h->detailTriCount));
  return offset <= data.size();
}

}  // namespace

void NavGeometry::box(double x, double y, double z, double half_m, double height_m,
                      const float rgb[3]) {
  const float x0 = float(x - origin_x_m - half_m), x1 = float(x - origin_x_m + half_m);
  const float z0 = float(z - origin_z_m - half_m), z1 = float(z - origin_z_m + half_m);
  const float y0 = float(y), y1 = float(y + height_m);
  // Faces: top, then the four sides, each with its shade (light from above and +x +z).
  const float c[8][3] = {{x0, y0, z0}, {x1, y0, z0}, {x1, y0, z1}, {x0, y0, z1},
                         {x0, y1, z0}, {x1, y1, z0}, {x1, y1, z1}, {x0, y1, z1}};
  static constexpr int kFaces[5][4] = {
      {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  static constexpr float kShade[5] = {1.0f, 0.55f, 0.8f, 0.9f, 0.65f};
  for (int f = 0; f < 5; ++f) {
    const float shaded[3] = {rgb[0] * kShade[f], rgb[1] * kShade[f], rgb[2] * kShade[f]};
    for (int k : {0, 1, 2, 0, 2, 3})
      triangles.push_back(vertex(c[kFaces[f][k]], 0.0f, shaded, 255));
  }
}

void NavGeometry::band(const std::array<double, 3>& a, const std::array<double, 3>& b,
                       const glm::dvec3& eye, double half_width_m, const std::uint8_t rgba[4]) {
  const glm::dvec3 pa(a[0], a[1], a[2]), pb(b[0], b[1], b[2]);
  const glm::dvec3 dir = pb - pa;
  glm::dvec3 side = glm::cross(dir, eye - 0.5 * (pa + pb));
  const double len = glm::length(side);
  if (!(len > 1e-12)) return;
  side *= half_width_m / len;
  const glm::dvec3 q[4] = {pa - side, pa + side, pb + side, pb - side};
  for (int k : {0, 1, 2, 0, 2, 3}) {
    NavVertex v;
    v.x = float(q[k].x - origin_x_m);
    v.y = float(q[k].y);
    v.z = float(q[k].z - origin_z_m);
    std::memcpy(v.rgba, rgba, 4);
    triangles.push_back(v);
  }
}

NavOverlay::NavOverlay() {
  program_ = build_program("nav", shaders::kNavVertex, shaders::kNavFragment);
  dynamic_vao_ = GlVertexArray(true);
  dynamic_vbo_ = GlBuffer(true);
}

NavOverlay::~NavOverlay() {
  tiles_.clear();
  glDeleteProgram(program_);
}

void NavOverlay::take_events(const NavWorld& world, std::span<const NavTileEvent> events) {
  const double side = world.builder().tile_size_m();
  for (const NavTileEvent& e : events) {
    const Slot slot{e.agent, e.key};
    erase(slot);
    if (e.kind != NavEventKind::added) continue;
    const NavTile* tile = world.tile(e.agent, e.key);
    if (tile != nullptr) upload(slot, *tile, side);
  }
}

void NavOverlay::erase(const Slot& slot) {
  const auto it = tiles_.find(slot);
  if (it == tiles_.end()) return;
  stats_.tiles -= 1;
  stats_.polygons -= std::size_t(it->second.polygons);
  stats_.off_mesh_links -= std::size_t(it->second.links);
  stats_.triangles -= std::size_t(it->second.triangle_vertices / 3);
  stats_.gpu_bytes -= it->second.bytes;
  tiles_.erase(it);
}

void NavOverlay::upload(const Slot& slot, const NavTile& tile, double side_m) {
  GpuTile g;
  g.origin_x_m = double(tile.origin.tx) * side_m;
  g.origin_z_m = double(tile.origin.tz) * side_m;
  std::vector<NavVertex> lines;
  staging_.clear();
  TileData t;
  if (!tile.data.empty() && !decode(tile.data, t)) {
    ++stats_.bad_tiles;
    return;
  }
  const int polys = tile.data.empty() ? 0 : t.header->polyCount;
  for (int p = 0; p < polys; ++p) {
    const dtPoly& poly = t.polys[p];
    float rgb[3];
    area_rgb(poly.getArea(), rgb);
    if (poly.getType() == DT_POLYTYPE_OFFMESH_CONNECTION) {
      // A drop link: an arc from the ledge down to the ground below.
      const float* a = &t.verts[poly.verts[0] * 3];
      const float* b = &t.verts[poly.verts[1] * 3];
      const float arc[3] = {0.95f, 0.3f, 0.85f};
      const float dx = b[0] - a[0], dz = b[2] - a[2];
      const float rise = 0.25f * std::sqrt(dx * dx + dz * dz) + 0.3f;
      float prev[3] = {a[0], a[1], a[2]};
      for (int s = 1; s <= 8; ++s) {
        const float u = float(s) / 8.0f;
        const float p3[3] = {a[0] + dx * u, a[1] + (b[1] - a[1]) * u + 4.0f * rise * u * (1.0f - u),
                             a[2] + dz * u};
        lines.push_back(vertex(prev, kLiftLines, arc, 230));
        lines.push_back(vertex(p3, kLiftLines, arc, 230));
        std::memcpy(prev, p3, sizeof prev);
      }
      ++g.links;
      continue;
    }
    if (p >= t.header->detailMeshCount) continue;
    ++g.polygons;
    const dtPolyDetail& pd = t.detail_meshes[p];
    auto detail_vertex = [&](int index) -> const float* {
      return index < poly.vertCount
                 ? &t.verts[poly.verts[index] * 3]
                 : &t.detail_verts[(pd.vertBase + unsigned(index - poly.vertCount)) * 3];
    };
    const float wall[3] = {0.05f, 0.12f, 0.06f};
    const float inner[3] = {std::min(1.0f, rgb[0] * 1.2f + 0.15f),
                            std::min(1.0f, rgb[1] * 1.2f + 0.15f),
                            std::min(1.0f, rgb[2] * 1.2f + 0.15f)};
    for (int k = 0; k < pd.triCount; ++k) {
      const unsigned char* tri = &t.detail_tris[(pd.triBase + unsigned(k)) * 4];
      for (int c = 0; c < 3; ++c)
        staging_.push_back(vertex(detail_vertex(tri[c]), kLiftTriangles, rgb, kFillAlpha));
      for (int e = 0; e < 3; ++e) {
        if ((dtGetDetailTriEdgeFlags(tri[3], e) & DT_DETAIL_EDGE_BOUNDARY) == 0) continue;
        const float* a = detail_vertex(tri[e]);
        const float* b = detail_vertex(tri[(e + 1) % 3]);
        // The polygon edge this detail edge lies on: a wall, or shared with a neighbour (drawn
        // once, by the lower index) or a portal to the next tile.
        for (int j = 0; j < poly.vertCount; ++j) {
          const float* v0 = &t.verts[poly.verts[j] * 3];
          const float* v1 = &t.verts[poly.verts[(j + 1) % poly.vertCount] * 3];
          if (distance_sq_2d(a, v0, v1) > 1e-4f || distance_sq_2d(b, v0, v1) > 1e-4f) continue;
          const unsigned short nei = poly.neis[j];
          const bool is_wall = nei == 0;
          if (!is_wall && (nei & DT_EXT_LINK) == 0 && int(nei) - 1 < p) break;
          lines.push_back(vertex(a, kLiftLines, is_wall ? wall : inner, is_wall ? 235 : 150));
          lines.push_back(vertex(b, kLiftLines, is_wall ? wall : inner, is_wall ? 235 : 150));
          break;
        }
      }
    }
  }
  g.triangle_vertices = GLsizei(staging_.size());
  g.line_vertices = GLsizei(lines.size());
  staging_.insert(staging_.end(), lines.begin(), lines.end());
  g.bytes = staging_.size() * sizeof(NavVertex);
  if (!staging_.empty()) {
    g.vbo = GlBuffer(true);
    g.vao = GlVertexArray(true);
    glBindVertexArray(g.vao.id());
    glBindBuffer(GL_ARRAY_BUFFER, g.vbo.id());
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(g.bytes), staging_.data(), GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(NavVertex), nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(NavVertex),
                          reinterpret_cast<void*>(offsetof(NavVertex, rgba)));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
  }
  stats_.tiles += 1;
  stats_.polygons += std::size_t(g.polygons);
  stats_.off_mesh_links += std::size_t(g.links);
  stats_.triangles += std::size_t(g.triangle_vertices / 3);
  stats_.gpu_bytes += g.bytes;
  tiles_.insert_or_assign(slot, std::move(g));
}

void NavOverlay::set_common(const FrameView& view, double origin_x_m, double origin_z_m, float fog,
                            float alpha) {
  const GLuint p = program_;
  glUniformMatrix4fv(uniform(p, "u_view_proj"), 1, GL_FALSE, glm::value_ptr(view.view_proj));
  glUniform3fv(uniform(p, "u_cam_offset"), 1, glm::value_ptr(view.cam_offset));
  glUniform3f(uniform(p, "u_origin_rel"), float(origin_x_m - view.ref.x), float(-view.ref.y),
              float(origin_z_m - view.ref.z));
  glUniform3fv(uniform(p, "u_fog_colour"), 1, glm::value_ptr(view.fog_colour));
  glUniform1f(uniform(p, "u_fog_density"), fog);
  glUniform1f(uniform(p, "u_alpha"), alpha);
}

void NavOverlay::draw_tiles(const FrameView& view, int agent, float fog) {
  if (tiles_.empty()) return;
  glUseProgram(program_);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_FALSE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glEnable(GL_POLYGON_OFFSET_FILL);
  glPolygonOffset(-1.0f, -4.0f);
  const GLint u_origin_rel = uniform(program_, "u_origin_rel");
  set_common(view, 0.0, 0.0, fog, 1.0f);
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [slot, g] : tiles_) {
      if ((agent >= 0 && slot.first != agent) || g.vao.id() == 0) continue;
      glUniform3f(u_origin_rel, float(g.origin_x_m - view.ref.x), float(-view.ref.y),
                  float(g.origin_z_m - view.ref.z));
      glBindVertexArray(g.vao.id());
      if (pass == 0 && g.triangle_vertices > 0) {
        glDrawArrays(GL_TRIANGLES, 0, g.triangle_vertices);
      } else if (pass == 1 && g.line_vertices > 0) {
        glDrawArrays(GL_LINES, g.triangle_vertices, g.line_vertices);
      }
    }
  }
  glDisable(GL_POLYGON_OFFSET_FILL);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDepthFunc(GL_LESS);
  glBindVertexArray(0);
  glUseProgram(0);
}

void NavOverlay::stream_draw(const NavGeometry& g, GLenum mode, bool lines) {
  const std::vector<NavVertex>& v = lines ? g.lines : g.triangles;
  if (v.empty()) return;
  glBindVertexArray(dynamic_vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, dynamic_vbo_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(v.size() * sizeof(NavVertex)), v.data(), GL_STREAM_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(NavVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(NavVertex),
                        reinterpret_cast<void*>(offsetof(NavVertex, rgba)));
  glDrawArrays(mode, 0, GLsizei(v.size()));
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void NavOverlay::draw_geometry(const FrameView& view, const NavGeometry& opaque,
                               const NavGeometry& ribbon, float fog) {
  glUseProgram(program_);
  glDisable(GL_CULL_FACE);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  if (!opaque.triangles.empty() || !opaque.lines.empty()) {
    set_common(view, opaque.origin_x_m, opaque.origin_z_m, fog, 1.0f);
    stream_draw(opaque, GL_TRIANGLES, false);
    stream_draw(opaque, GL_LINES, true);
  }
  if (!ribbon.triangles.empty()) {
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    // Hidden parts (behind a ridge) faint, then the visible ones at full strength.
    set_common(view, ribbon.origin_x_m, ribbon.origin_z_m, fog, 0.3f);
    glDisable(GL_DEPTH_TEST);
    stream_draw(ribbon, GL_TRIANGLES, false);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glUniform1f(uniform(program_, "u_alpha"), 1.0f);
    stream_draw(ribbon, GL_TRIANGLES, false);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glDepthFunc(GL_LESS);
  }
  glUseProgram(0);
}

}  // namespace terrane::view
