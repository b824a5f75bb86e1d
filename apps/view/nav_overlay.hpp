// The navmesh overlay of terrane-view --nav: the polygons of every loaded tile as translucent
// triangles coloured by area (their detail triangles, a little above the terrain), polygon
// edges as lines (walls dark, edges between polygons light), drop links as arcs; and the
// per-frame geometry of the path and the crowd. Tiles are decoded from their Detour bytes
// (NavTile::data: dtMeshHeader, vertices, polygons, links, detail meshes), whose header,
// vertices, polygons and detail meshes NavWorld's addTile leaves as they were built.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "camera.hpp"
#include "gl_util.hpp"
#include "terrane/nav.hpp"

namespace terrane::view {

// A vertex of the overlay: position relative to the navmesh origin [m], RGBA colour.
struct NavVertex {
  float x = 0.0f, y = 0.0f, z = 0.0f;
  std::uint8_t rgba[4] = {255, 255, 255, 255};
};

// Triangles and lines relative to the navmesh origin (origin_x_m, origin_z_m).
struct NavGeometry {
  std::vector<NavVertex> triangles, lines;
  double origin_x_m = 0.0, origin_z_m = 0.0;

  // An axis-aligned box from (x, y, z) (bottom centre) up, lit from above [m].
  void box(double x, double y, double z, double half_m, double height_m, const float rgb[3]);
  // A band of `half_width_m` from a to b, facing the camera at `eye` (world coordinates).
  void band(const std::array<double, 3>& a, const std::array<double, 3>& b, const glm::dvec3& eye,
            double half_width_m, const std::uint8_t rgba[4]);
  void clear() { triangles.clear(), lines.clear(); }
};

struct NavOverlayStats {
  std::size_t tiles = 0;           // tiles with geometry on the GPU (all agents)
  std::size_t polygons = 0;        // their polygons
  std::size_t off_mesh_links = 0;  // their drop links
  std::size_t triangles = 0;       // detail triangles
  std::size_t gpu_bytes = 0;
  std::size_t bad_tiles = 0;  // tiles whose bytes were not a Detour tile (never expected)
};

class NavOverlay {
 public:
  NavOverlay();  // needs a current GL 3.3 context
  ~NavOverlay();
  NavOverlay(const NavOverlay&) = delete;
  NavOverlay& operator=(const NavOverlay&) = delete;

  // Uploads the added tiles and frees the removed ones, in the order of the events.
  void take_events(const NavWorld& world, std::span<const NavTileEvent> events);
  // Polygons and edges of `agent`'s tiles (-1: every agent's), depth-tested, blended, no depth
  // writes (call after the opaque world).
  void draw_tiles(const FrameView& view, int agent, float fog);
  // Per-frame geometry: opaque triangles with depth writes (boxes), and the blended `ribbon`
  // drawn twice: faint where something hides it, bright where it is in view.
  void draw_geometry(const FrameView& view, const NavGeometry& opaque, const NavGeometry& ribbon,
                     float fog);
  const NavOverlayStats& stats() const { return stats_; }

 private:
  struct GpuTile {
    GlBuffer vbo;
    GlVertexArray vao;
    GLsizei triangle_vertices = 0, line_vertices = 0;
    double origin_x_m = 0.0, origin_z_m = 0.0;
    int polygons = 0, links = 0;
    std::size_t bytes = 0;
  };
  struct SlotHash {
    std::size_t operator()(const std::pair<int, NavTileKey>& s) const {
      std::uint64_t h = std::uint64_t(s.second.tx) * 0x9E3779B97F4A7C15ull;
      h ^= std::uint64_t(s.second.tz) * 0xBF58476D1CE4E5B9ull + std::uint64_t(s.first);
      return std::size_t(h ^ (h >> 29));
    }
  };
  using Slot = std::pair<int, NavTileKey>;

  void upload(const Slot& slot, const NavTile& tile, double side_m);
  void erase(const Slot& slot);
  void set_common(const FrameView& view, double origin_x_m, double origin_z_m, float fog,
                  float alpha);
  void stream_draw(const NavGeometry& g, GLenum mode, bool lines);

  std::unordered_map<Slot, GpuTile, SlotHash> tiles_;
  NavOverlayStats stats_;
  std::vector<NavVertex> staging_;
  GLuint program_ = 0;
  GlVertexArray dynamic_vao_;
  GlBuffer dynamic_vbo_;
};

}  // namespace terrane::view
