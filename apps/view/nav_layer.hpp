// terrane-view --nav: a NavWorld streamed around the camera's ground position (the library's
// nav module exactly as a game would use it), the navmesh overlay of its tiles, a path between
// two picked points, and a few crowd agents walking about.
//
// Every frame, on the frame thread (the NavWorld's owner): set_points({the camera on the
// ground}), update(), poll(1 ms), then the events (added / removed tiles) upload or free the
// overlay's geometry, the path is found again when a tile it may cross changed, and the crowd
// walks (NavCrowd::update after the poll, as DetourCrowd needs).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "camera.hpp"
#include "nav_overlay.hpp"
#include "terrane/nav.hpp"
#include "terrane/world.hpp"

namespace terrane::view {

struct DrawSettings;

inline constexpr int kNavCrowdCapacity = 16;  // NavCrowd(world, 0, 16)

struct NavOptions {
  bool on = false;
  double radius_m = 128.0;                    // NavWorldParams::radius_m
  std::vector<NavAgent> agents;               // empty: NavParams' default agent
  int crowd = 0;                              // crowd agents walking on agent 0's navmesh [0..16]
  std::optional<std::array<double, 4>> path;  // x0, z0, x1, z1 [m]: a path between them
};

// What the panel and --stats show.
struct NavReport {
  NavWorldStats world;
  NavOverlayStats overlay;
  std::vector<std::string> agent_names;
  double radius_m = 0.0;
  double stream_us = 0.0;  // set_points + update + poll + events, this frame
  bool complete = false;   // every wanted tile loaded, nothing queued or running
  bool has_start = false, has_end = false;
  std::array<double, 3> start{}, end{};
  int path_agent = 0;
  bool path_found = false;  // a query ran (both points set)
  NavPath path;             // its result (status, points, polys, length)
  int crowd_agents = 0, crowd_wanted = 0;
  std::uint64_t crowd_retargets = 0;
};

class NavLayer {
 public:
  // Throws terrane::Error (prefixed "--nav: ") for parameters the nav module refuses. Needs a
  // current GL 3.3 context. `edits` (optional): the height edits the ground has.
  NavLayer(std::shared_ptr<const ChunkGenerator> generator, const NavOptions& options, int threads,
           WorkerPriority priority, std::shared_ptr<const HeightEditSnapshot> edits = nullptr);
  ~NavLayer();
  NavLayer(const NavLayer&) = delete;
  NavLayer& operator=(const NavLayer&) = delete;

  // Streams tiles around the camera's ground position and takes the events. Returns the frame
  // thread's time in it [us].
  double stream(const Camera& camera, const glm::dvec3& velocity);
  // The path for `agent` (found again when it changed), and the crowd: spawns, new targets,
  // NavCrowd::update(dt_s).
  void advance(const Camera& camera, double dt_s, int agent);
  // The overlay, the crowd and the path into the bound framebuffer (after everything else).
  // height_px: the framebuffer's height (markers keep a few pixels at a distance).
  void draw(const FrameView& view, const Camera& camera, const DrawSettings& settings, float fog,
            int height_px);

  // New height edits (the brush tool): the navmesh terrain reads them and the tiles around the
  // changed vertices are rebuilt in place (NavWorld::invalidate over edited_area_m); the path is
  // found again once they are in.
  void set_edits(std::shared_ptr<const HeightEditSnapshot> edits, const LatticeRect& changed);

  // A picked ground point: the path's start, then its end, then a new start.
  void pick(const std::array<double, 3>& point);
  // Both endpoints on the ground at (x, z).
  void set_path(double x0_m, double z0_m, double x1_m, double z1_m);
  void clear_path();
  // Carries the endpoints to the layer of a rebuilt world.
  void copy_path_from(const NavLayer& other);

  // Every wanted tile is loaded, nothing is queued or running, no rebuild is pending.
  bool complete() const;
  NavReport report() const;
  const NavWorld& world() const { return *world_; }
  const NavOptions& options() const { return options_; }

 private:
  struct Walker {
    int id = -1;
    std::array<double, 3> target{};
    double idle_s = 0.0;
  };
  void find_path(int agent);
  bool retarget(Walker& w, const std::array<double, 3>& from, double centre_x, double centre_z);
  void spawn(const Camera& camera);

  NavOptions options_;
  std::shared_ptr<const ChunkGenerator> generator_;
  TerrainQuery terrain_;
  std::shared_ptr<EditedNavTerrain> nav_terrain_;
  std::shared_ptr<const NavTileBuilder> builder_;
  std::unique_ptr<NavWorld> world_;
  std::vector<std::unique_ptr<NavQuery>> queries_;  // one per agent (the frame thread's)
  std::unique_ptr<NavCrowd> crowd_;
  NavOverlay overlay_;
  double stream_us_ = 0.0;
  bool tiles_changed_ = false;

  bool has_start_ = false, has_end_ = false;
  std::array<double, 3> start_{}, end_{};
  bool path_dirty_ = false;
  bool path_found_ = false;
  int path_agent_ = 0;
  NavPath path_;
  std::vector<std::array<double, 3>> path_line_;  // the path draped on the ground, for drawing

  std::vector<Walker> walkers_;
  std::uint64_t seed_ = 0x6e61762d76696577ull;
  std::uint64_t retargets_ = 0;
};

}  // namespace terrane::view
