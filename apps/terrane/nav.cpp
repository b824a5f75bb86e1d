// `terrane nav`: the navmesh tiles of every agent over a region -> NAME_AGENT.navtiles (Detour
// tile bytes in a documented container), NAME_AGENT.obj (the polygons, for debugging) and
// NAME_nav.json (the report), staged and published together (docs/NAV.md).
//
// NavTileBuilder::region_tiles checks the region (tile count, float range) before any work and
// region_origin fixes the navmesh origin (the tile at its centre, as NavWorld::build_region
// chooses it); the tiles are built once with NavTileBuilder::build (the pure function of
// terrain, params, agent, tile and origin), in parallel, each build timed for the report.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "nav_files.hpp"
#include "nav_setup.hpp"
#include "terrane/io.hpp"
#include "terrane/schema.hpp"

namespace terrane::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Nearest-rank percentile of sorted values (p in (0, 1]).
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const std::size_t rank = std::size_t(std::ceil(p * double(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

void write_text(const fs::path& path, const std::string& text) {
  write_file_atomic(path, std::span<const std::byte>(
                              reinterpret_cast<const std::byte*>(text.data()), text.size()));
}

struct BuiltTile {
  NavTile tile;
  double ms = 0.0;
};

int nav_into(const NavOptions& opt, const NavSetup& s, const std::array<double, 4>& box,
             const fs::path& dir) {
  const auto t_start = Clock::now();
  const NavTileBuilder& builder = *s.builder;
  const NavParams& np = builder.params();
  const int agents = int(np.agents.size());
  const std::vector<NavTileKey> keys = nav_region_tiles(builder, box, "--region " + opt.region);
  const NavTileKey origin = builder.region_origin(box[0], box[1], box[2], box[3]);
  StagedOutputs staged(dir);  // also the directory's writability probe, before any work
  ProgressBar bar("nav", !opt.quiet);

  // Every (agent, tile), agent-major, in the files' order.
  const std::size_t per_agent = keys.size();
  std::vector<BuiltTile> built(per_agent * std::size_t(agents));
  std::atomic<std::size_t> done{0};
  const auto t_tiles = Clock::now();
  tbb::task_arena arena(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, built.size(), 1),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i) {
                          const auto t = Clock::now();
                          builder.build(int(i / per_agent), keys[i % per_agent], origin,
                                        built[i].tile);
                          built[i].ms = ms_since(t);
                          bar.update(0.9 * double(++done) / double(built.size()));
                        }
                      });
  });
  const double tiles_ms = ms_since(t_tiles);

  const double region_area = (box[2] - box[0]) * (box[3] - box[1]);
  const NavTileKey lo = keys.front(), hi = keys.back();
  nlohmann::json report;
  report["generator"] = "terrane";
  report["kind"] = "nav";
  report["preset"] = s.preset.name;
  report["preset_hash"] = std::to_string(s.preset.hash);
  report["seed"] = std::to_string(s.preset.seed);
  report["region_m"] = {box[0], box[1], box[2], box[3]};
  report["region_area_m2"] = region_area;
  report["tile_range"] = {lo.tx, lo.tz, hi.tx, hi.tz};
  report["tiles_per_agent"] = per_agent;
  report["nav"] = {{"cell_size_m", np.cell_size_m},
                   {"cell_height_m", np.cell_height_m},
                   {"tile_cells", np.tile_cells},
                   {"tile_size_m", np.tile_size_m()}};
  report["origin_tile"] = {origin.tx, origin.tz};
  report["origin_m"] = {double(origin.tx) * np.tile_size_m(), double(origin.tz) * np.tile_size_m()};
  report["threads"] = opt.threads;
  report["tile_build_wall_ms"] = tiles_ms;

  std::vector<std::string> names;
  nlohmann::json files = nlohmann::json::array();
  nlohmann::json agent_reports = nlohmann::json::array();
  std::string summary;
  std::uintmax_t total_bytes = 0;
  for (int a = 0; a < agents; ++a) {
    const NavAgent& agent = np.agents[std::size_t(a)];
    std::vector<const NavTile*> tiles;
    std::vector<double> ms;
    std::size_t polygons = 0, links = 0, empty = 0, tile_bytes = 0;
    for (std::size_t k = 0; k < per_agent; ++k) {
      const BuiltTile& b = built[std::size_t(a) * per_agent + k];
      tiles.push_back(&b.tile);
      ms.push_back(b.ms);
      polygons += std::size_t(b.tile.polygons);
      links += std::size_t(b.tile.off_mesh_links);
      empty += b.tile.data.empty() ? 1 : 0;
      tile_bytes += b.tile.data.size();
    }
    std::sort(ms.begin(), ms.end());

    NavTilesHeader h;
    h.tile_cells = np.tile_cells;
    h.tile_size_m = np.tile_size_m();
    h.cell_size_m = np.cell_size_m;
    h.cell_height_m = np.cell_height_m;
    h.origin = origin;
    h.origin_x_m = double(origin.tx) * np.tile_size_m();
    h.origin_z_m = double(origin.tz) * np.tile_size_m();
    h.agent = agent;
    const std::string base = s.name + "_" + agent.name;
    const std::vector<std::byte> bytes = encode_navtiles(h, tiles);
    write_file_atomic(staged.staging() / (base + ".navtiles"), bytes);
    NavMeshSummary mesh;
    write_text(staged.staging() / (base + ".obj"), navmesh_obj(h, tiles, box, mesh));
    if (mesh.polygons != polygons || mesh.off_mesh_links != links) {
      throw Error(ErrorCategory::internal,
                  "nav: agent '" + agent.name + "': Detour loaded " +
                      std::to_string(mesh.polygons) + " polygons and " +
                      std::to_string(mesh.off_mesh_links) + " links, the builder reported " +
                      std::to_string(polygons) + " and " + std::to_string(links));
    }
    const std::uintmax_t obj_bytes = fs::file_size(staged.staging() / (base + ".obj"));
    total_bytes += bytes.size() + obj_bytes;
    double walkable = 0.0;
    nlohmann::json by_area = nlohmann::json::object();
    for (int area = 1; area < kNavAreaCount; ++area) {
      walkable += mesh.area_in_box_m2[std::size_t(area)];
      by_area[to_string(NavArea(area))] = mesh.area_in_box_m2[std::size_t(area)];
    }
    double build_total = 0.0;
    for (double v : ms) build_total += v;
    agent_reports.push_back({{"name", agent.name},
                             {"radius_m", agent.radius_m},
                             {"height_m", agent.height_m},
                             {"max_climb_m", agent.max_climb_m},
                             {"max_slope_deg", agent.max_slope_deg},
                             {"max_drop_m", agent.max_drop_m},
                             {"navtiles", base + ".navtiles"},
                             {"obj", base + ".obj"},
                             {"tiles", per_agent},
                             {"empty_tiles", empty},
                             {"polygons", polygons},
                             {"off_mesh_links", links},
                             {"vertices", mesh.vertices},
                             {"walkable_area_m2", walkable},
                             {"walkable_share", walkable / region_area},
                             {"area_m2_by_type", by_area},
                             {"tiles_area_m2", mesh.area_m2},
                             {"build_ms_p50", percentile(ms, 0.50)},
                             {"build_ms_p99", percentile(ms, 0.99)},
                             {"build_ms_max", ms.back()},
                             {"build_ms_total", build_total},
                             {"tile_bytes", tile_bytes},
                             {"navtiles_bytes", bytes.size()},
                             {"obj_bytes", obj_bytes}});
    names.push_back(base + ".navtiles");
    names.push_back(base + ".obj");
    files.push_back({{"name", base + ".navtiles"}, {"format", "navtiles"}, {"agent", agent.name}});
    files.push_back({{"name", base + ".obj"}, {"format", "obj"}, {"agent", agent.name}});
    char line[256];
    std::snprintf(line, sizeof line,
                  "%s%s: %zu polygons, %zu drop links, %.1f%% walkable, %.2f ms/tile p50, "
                  "%.2f p99",
                  summary.empty() ? "" : "; ", agent.name.c_str(), polygons, links,
                  100.0 * walkable / region_area, percentile(ms, 0.50), percentile(ms, 0.99));
    summary += line;
  }
  report["agents"] = agent_reports;
  const std::string record = s.name + "_nav.json";
  files.push_back({{"name", record}, {"format", "nav_json"}});
  report["files"] = files;
  bar.update(0.95);
  report["total_ms"] = ms_since(t_start);
  const std::string text = report.dump(2) + "\n";
  write_text(staged.staging() / record, text);
  total_bytes += text.size();
  names.push_back(record);
  staged.publish(names, record);
  bar.finish();

  std::string written;
  for (const std::string& n : names) written += (written.empty() ? "" : ", ") + (dir / n).string();
  // Appended piece by piece: GCC 12's -Wrestrict misfires on "(" + std::string + ... here.
  std::string over = "(";
  for (int k = 0; k < 4; ++k) {
    over += format_number(box[std::size_t(k)]);
    over += k == 1 ? ")..(" : k == 3 ? ")" : ", ";
  }
  std::printf(
      "%s: navmesh of %zu tile(s) of %s m x %d agent(s) over %s m; %s; tiles built in %.2f s "
      "(%.1f KiB); wrote %s\n",
      s.name.c_str(), per_agent, format_number(np.tile_size_m()).c_str(), agents, over.c_str(),
      summary.c_str(), tiles_ms / 1000.0, double(total_bytes) / 1024.0, written.c_str());
  return 0;
}

}  // namespace

int run_nav(const NavOptions& opt) {
  const std::array<double, 4> box = parse_nav_box("--region", opt.region);
  const NavSetup s = make_nav_setup(opt);
  // The output directory is created if missing, and removed again (when still empty) if the
  // run fails: a failed run leaves the file system as it was.
  const fs::path dir = opt.out_dir;
  std::error_code ec;
  const bool created = fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw Error(ErrorCategory::io, "output directory '" + dir.string() + "' cannot be created: " +
                                       (ec ? ec.message() : std::string("not a directory")));
  }
  try {
    return nav_into(opt, s, box, dir);
  } catch (...) {
    if (created) fs::remove(dir, ec);
    throw;
  }
}

}  // namespace terrane::cli
