// One world being viewed: the preset (with the panel's overrides), its Streamer and the renderer
// of its chunks, and the step every frame takes (viewer -> update -> poll -> upload -> draw).
// A new preset builds a new Session; the old one keeps rendering when the new one fails.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "block_renderer.hpp"
#include "camera.hpp"
#include "nav_layer.hpp"
#include "terrane/preset.hpp"
#include "terrane/world.hpp"
#include "water_layer.hpp"
#include "world_renderer.hpp"

namespace terrane::view {

struct WorldOptions {
  double view_distance_m = 4000.0;
  int cells = 32;
  int threads = 0;
  double upload_budget_ms = 2.0;  // per frame, for ready chunks outside the visible set
  // The streamer's workers. The library's default (background) suits a game whose frame
  // thread waits on a GPU; a software rasteriser (llvmpipe) keeps every core busy drawing, and
  // background workers would then never run, so the viewer uses normal.
  WorkerPriority worker_priority = WorkerPriority::normal;
  // --blocks: the preset's block world (its voxel section) around the camera, the height field
  // beyond it.
  bool blocks = false;
  double block_view_m = 160.0;            // BlockStreamerParams::view_distance_m
  double block_vertical_m = 96.0;         // BlockStreamerParams::vertical_distance_m
  double block_upload_budget_ms = 2.0;    // per frame, for ready block chunks
  BlockAo block_ao = BlockAo::occupancy;  // BlockStreamerParams::ambient_occlusion
  // --nav: a navmesh streamed around the camera's ground position (nav_layer.hpp).
  NavOptions nav;
};

struct FrameTimes {
  double stream_us = 0.0;  // set_viewers + update + poll + events, on the frame thread
  UploadStats upload;
  DrawStats draw;
  BlockUploadStats block_upload;  // zero without blocks
  BlockDrawStats block_draw;
  double nav_stream_us = 0.0;  // the navmesh's part of stream_us (zero without --nav)
};

class Session {
 public:
  // Throws terrane::Error for a preset the streamer refuses, or height edits of another cell
  // size. `edits` (optional): the world starts with these height edits (a world file's);
  // `blocks` (optional): the block world (--blocks) starts with these block overrides (a world
  // file's); `instances`, `paint` (optional): a world file's scatter overrides and splat paint.
  // Block overrides of another block world, or paint of another lattice or layer count, throw
  // Error too.
  Session(Preset preset, const WorldOptions& options,
          std::shared_ptr<const HeightEditSnapshot> edits = nullptr,
          std::shared_ptr<const BlockEditSnapshot> blocks = nullptr,
          std::shared_ptr<const InstanceEditSnapshot> instances = nullptr,
          std::shared_ptr<const SplatPaintSnapshot> paint = nullptr);

  const Preset& preset() const { return preset_; }
  Streamer& streamer() { return *streamer_; }
  // The block world (--blocks), else null.
  BlockStreamer* blocks() { return blocks_.get(); }
  BlockRenderer* block_renderer() { return block_renderer_.get(); }
  // The navmesh (--nav, or the panel), else null.
  NavLayer* nav() { return nav_.get(); }
  // Starts (options.on) or stops the navmesh; throws terrane::Error as NavLayer does.
  void set_nav(const NavOptions& options);
  // Height edits (the brush tool): from now on the world reads `edits`; `changed` names the
  // lattice vertices that differ from the previous snapshot (HeightEdits::apply's rectangle).
  // The streamer regenerates the resident chunks they touch (Streamer::set_edits), the navmesh
  // rebuilds its tiles in place (EditedNavTerrain::set_edits + NavWorld::invalidate), the lakes
  // and rivers are computed again, and the block world (--blocks) regenerates the block chunks
  // whose ground they change (BlockStreamer::set_edits, with the session's block overrides).
  void set_edits(std::shared_ptr<const HeightEditSnapshot> edits, const LatticeRect& changed);
  const std::shared_ptr<const HeightEditSnapshot>& edits() const { return edits_; }
  // Block overrides (--blocks; the brush's block layer): the block world reads `blocks` with the
  // height edits (BlockStreamer::set_edits). Without a block world they are only kept.
  void set_block_edits(std::shared_ptr<const BlockEditSnapshot> blocks);
  const std::shared_ptr<const BlockEditSnapshot>& block_edits() const { return block_edits_; }
  // Scatter overrides and splat paint (the brush's other layers): Streamer::set_instance_edits
  // and Streamer::set_paint, which regenerate the resident chunks `changed` names.
  void set_instance_edits(std::shared_ptr<const InstanceEditSnapshot> instances,
                          const InstanceChanges& changed);
  const std::shared_ptr<const InstanceEditSnapshot>& instance_edits() const { return instances_; }
  void set_paint(std::shared_ptr<const SplatPaintSnapshot> paint, const LatticeRect& changed);
  const std::shared_ptr<const SplatPaintSnapshot>& paint() const { return paint_; }
  // Both streamers have every wanted chunk and every chunk regenerated after set_edits is in,
  // the block chunks are all on the GPU, and every wanted navmesh tile is loaded and rebuilt.
  bool view_complete();
  // Uploads every ready block chunk (offscreen pictures, after the view is drained).
  void flush_block_uploads(const Camera& camera);
  const WorldOptions& options() const { return options_; }
  WorldRenderer& renderer() { return *renderer_; }
  const WaterLayer& water() const { return *water_; }
  // Waits for the lakes and rivers of the region around the camera (offscreen pictures).
  void finish_water(const Camera& camera) { water_->finish(camera); }

  // Streams around the camera moving at velocity (vx, vy, vz) m/s, uploads, and draws into the
  // bound framebuffer of width x height; the crowd (--nav) walks for dt_s.
  FrameTimes frame(const Camera& camera, const glm::dvec3& velocity, int width, int height,
                   const DrawSettings& settings, double dt_s = 1.0 / 30.0);
  // Streams only (set_viewers, update, poll, events): what frame() does before it uploads.
  // Returns the frame thread's time in it [us] (nav_us: the navmesh's part).
  double stream(const Camera& camera, const glm::dvec3& velocity, double* nav_us = nullptr);
  // Height of the level-0 surface under (x, z).
  double ground_m(double x_m, double z_m) const;
  // The ground point under pixel (px, py) of a width x height picture of the camera (window or
  // framebuffer coordinates, y down): the ray through it against the level-0 surface
  // (TerrainQuery::raycast), within the view distance.
  std::optional<RayHit> pick(const Camera& camera, int width, int height, double px,
                             double py) const;
  // The block world's (--blocks) first solid block (not air, not liquid) along the same ray,
  // within its view distance, through the resident block chunks; nullopt without a block world
  // or a hit. `block` is the block's coordinates, `at` the point where the ray enters it.
  struct BlockPick {
    std::array<std::int64_t, 3> block{};
    std::array<double, 3> at{};
  };
  std::optional<BlockPick> pick_block(const Camera& camera, int width, int height, double px,
                                      double py);

 private:
  Preset preset_;
  WorldOptions options_;
  std::shared_ptr<const HeightEditSnapshot> edits_;
  std::shared_ptr<const BlockEditSnapshot> block_edits_;
  std::shared_ptr<const InstanceEditSnapshot> instances_;
  std::shared_ptr<const SplatPaintSnapshot> paint_;
  std::unique_ptr<Streamer> streamer_;
  std::unique_ptr<WorldRenderer> renderer_;
  std::unique_ptr<WaterLayer> water_;
  std::unique_ptr<BlockStreamer> blocks_;
  std::unique_ptr<BlockRenderer> block_renderer_;
  std::unique_ptr<NavLayer> nav_;
};

}  // namespace terrane::view
