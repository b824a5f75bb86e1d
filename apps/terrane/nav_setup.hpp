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

// NavWorld settings for build_region only: no points are set, so the streaming radius only has
// to fit max_tiles (NavWorld checks it against the tile size); workers at normal priority.
NavWorldParams nav_region_params(const NavTileBuilder& builder, int threads);

// "x0,z0,x1,z1" (metres; x1 > x0, z1 > z0, finite, inside the world) for `option`.
std::array<double, 4> parse_nav_box(const std::string& option, const std::string& text);
// "x,z" (metres, finite, inside the world) for `option`.
std::array<double, 2> parse_nav_point(const std::string& option, const std::string& text);

// NavWorld::build_region, with its errors (a box over max_tiles, beyond the navmesh's float
// range) prefixed by `what` (the options that set the box).
void build_nav_region(NavWorld& world, const std::array<double, 4>& box, const std::string& what);

}  // namespace terrane::cli
