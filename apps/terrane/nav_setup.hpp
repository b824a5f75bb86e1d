// What `terrane nav` and `terrane path` share: the preset, its terrain and the tile builder of
// the agents given on the command line, validated before any work, and the NavWorld settings
// for building a box of tiles without streaming.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "commands.hpp"
#include "terrane/nav.hpp"
#include "terrane/preset.hpp"
#include "terrane/world.hpp"

namespace terrane::cli {

struct NavSetup {
  Preset preset;
  std::string name;  // the preset's name, or "terrain": the stem of the output files
  std::shared_ptr<const ChunkGenerator> generator;
  std::shared_ptr<const NavTileBuilder> builder;
};

// Loads the preset (overrides, --seed), parses every --agent (the message names the option and
// the spec; agent names must be distinct and usable in a file name) and validates the nav
// parameters against the terrain (NavParams::validate). Throws Error(invalid_argument).
NavSetup make_nav_setup(const NavOptions& opt);

// NavWorld settings for build_region only (no points are set; build_region builds on the
// calling thread and `threads` TBB workers, so the world's own streaming workers stay idle).
NavWorldParams nav_region_params();

// "x0,z0,x1,z1" (metres; x1 > x0, z1 > z0, finite, inside the world) for `option`.
std::array<double, 4> parse_nav_box(const std::string& option, const std::string& text);
// "x,z" (metres, finite, inside the world) for `option`.
std::array<double, 2> parse_nav_point(const std::string& option, const std::string& text);

// NavTileBuilder::region_tiles (the tiles of the box, checked: at most max_tiles, within the
// navmesh's float range), with its limit errors prefixed by `what` (the options that set it).
std::vector<NavTileKey> nav_region_tiles(const NavTileBuilder& builder,
                                         const std::array<double, 4>& box, const std::string& what);
// NavWorld::build_region on `threads` threads (0 = all), with errors prefixed as above.
void build_nav_region(NavWorld& world, const std::array<double, 4>& box, const std::string& what,
                      int threads);

}  // namespace terrane::cli
