// `terrane path`: the path one agent walks between two points of a preset's world, as one JSON
// line on stdout (docs/NAV.md). The tiles covering the two points' bounding box plus a margin
// are built with NavWorld::build_region (on --threads); the points' heights come from TerrainQuery;
// the path from NavQuery. Exit codes: 0 for status ok and partial (the target is not reachable: the
// path ends at the reachable point nearest to it), 1 for any other status (no_start, no_target,
// ...: the JSON is printed all the same), 2 for bad input (error: on stderr, nothing on stdout).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "nav_setup.hpp"
#include "terrane/schema.hpp"

namespace terrane::cli {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

int run_path(const NavOptions& opt) {
  const std::array<double, 2> from = parse_nav_point("--from", opt.from);
  const std::array<double, 2> to = parse_nav_point("--to", opt.to);
  if (opt.agents.size() > 1) {
    throw Error(ErrorCategory::invalid_argument, "--agent: terrane path walks one agent; " +
                                                     std::to_string(opt.agents.size()) +
                                                     " were given");
  }
  const NavSetup s = make_nav_setup(opt);
  const TerrainQuery terrain(s.generator);
  const std::array<double, 3> a{from[0], terrain.height_at(from[0], from[1]), from[1]};
  const std::array<double, 3> b{to[0], terrain.height_at(to[0], to[1]), to[1]};
  const std::array<double, 4> box{
      std::min(a[0], b[0]) - opt.margin_m, std::min(a[2], b[2]) - opt.margin_m,
      std::max(a[0], b[0]) + opt.margin_m, std::max(a[2], b[2]) + opt.margin_m};
  if (!(box[2] > box[0] && box[3] > box[1])) {
    throw Error(ErrorCategory::invalid_argument,
                "--from / --to / --margin: the box around the points is empty (--from equals "
                "--to and --margin is 0)");
  }

  NavWorld world(s.builder, nav_region_params());
  const auto t_build = Clock::now();
  build_nav_region(world, box, "--from / --to / --margin (" + format_number(opt.margin_m) + " m)",
                   opt.threads);
  const double build_ms = ms_since(t_build);
  const NavQuery query(world, 0);
  const auto t_query = Clock::now();
  const NavPath path = query.path(a, b);
  const double query_ms = ms_since(t_query);

  nlohmann::json j;
  j["preset"] = s.preset.name;
  j["seed"] = std::to_string(s.preset.seed);
  j["agent"] = s.builder->params().agents[0].name;
  j["status"] = to_string(path.status);
  j["from"] = {a[0], a[1], a[2]};
  j["to"] = {b[0], b[1], b[2]};
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : path.points) points.push_back({p[0], p[1], p[2]});
  j["points"] = points;
  j["length_m"] = path.length_m;
  j["polygons"] = path.polys.size();
  j["tiles"] = world.loaded_tiles(0).size();
  j["region_m"] = {box[0], box[1], box[2], box[3]};
  j["build_ms"] = build_ms;
  j["query_ms"] = query_ms;
  std::printf("%s\n", j.dump().c_str());
  return path.status == NavStatus::ok || path.status == NavStatus::partial ? 0 : 1;
}

}  // namespace terrane::cli
