// Lakes and rivers around the camera. The streamed chunks carry no hydrology (it needs whole
// regions), so the viewer runs the library's compute_hydrology on a square region of level-0
// samples centred near the camera (the same lattice and heights as the chunks), on a thread of
// its own, again whenever the camera has gone a quarter of the region away. Lakes are drawn at
// their level over every cell they touch (the terrain hides the plane beyond the shore), rivers
// as a sheet 0.6 m above their cells. Near the region's border the results are those of a map
// cut there (its border cells are outlets), and they can change when the region moves.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <vector>

#include "block_renderer.hpp"
#include "camera.hpp"
#include "gl_util.hpp"
#include "terrane/preset.hpp"
#include "terrane/world.hpp"

namespace terrane::view {

struct WaterStats {
  int region_samples = 0;  // per side
  double region_m = 0.0;   // side [m]
  std::size_t lakes = 0, lake_cells = 0, river_cells = 0;
  double compute_ms = 0.0;  // the last region's hydrology, on its own thread
  bool computing = false;
};

class WaterLayer {
 public:
  WaterLayer(std::shared_ptr<const ChunkGenerator> generator, const Preset& preset,
             double view_distance_m);
  ~WaterLayer();  // cancels and waits for a region in progress
  WaterLayer(const WaterLayer&) = delete;
  WaterLayer& operator=(const WaterLayer&) = delete;

  // Frame thread: takes a finished region (uploads its sheets) and starts the next one when the
  // camera has moved far enough. Never waits.
  void update(const Camera& camera);
  // Draws the sheets into the bound framebuffer (depth-tested, blended, no depth writes).
  // Leaves out what `cover` says the block world draws.
  void draw(const FrameView& view, float fog_density, const BlockCover& cover = {}) const;
  // Height edits (the brush tool): the region is computed again on them, as soon as the one in
  // progress (if any) is done.
  void set_edits(std::shared_ptr<const HeightEditSnapshot> edits);
  // Waits for the region in progress and any that edits made stale (offscreen pictures), then
  // takes it.
  void finish(const Camera& camera);
  const WaterStats& stats() const { return stats_; }

 private:
  struct Region {
    double origin_x_m = 0.0, origin_z_m = 0.0;  // world position of sample (0, 0)
    std::vector<float> vertices;  // x, y, z relative to the origin, kind (0 lake, 1 river)
    std::vector<std::uint32_t> indices;
    WaterStats stats;
  };
  Region compute(double centre_x_m, double centre_z_m,
                 std::shared_ptr<const HeightEditSnapshot> edits) const;
  void take(Region&& region);

  std::shared_ptr<const ChunkGenerator> generator_;
  std::shared_ptr<const HeightEditSnapshot> edits_;
  bool stale_ = false;  // the region shown (or in progress) predates edits_
  double sea_level_m_ = 0.0;
  double cell_m_ = 1.0;
  int samples_ = 0;
  std::atomic<bool> cancel_{false};
  std::future<Region> pending_;
  double pending_x_ = 0.0, pending_z_ = 0.0;
  bool have_region_ = false;
  double centre_x_ = 0.0, centre_z_ = 0.0;
  double origin_x_ = 0.0, origin_z_ = 0.0;
  WaterStats stats_;
  GLuint program_ = 0;
  GlVertexArray vao_;
  GlBuffer vbo_, ibo_;
  GLsizei index_count_ = 0;
};

}  // namespace terrane::view
