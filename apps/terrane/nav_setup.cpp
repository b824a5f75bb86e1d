// The preset, agents and tile builder of `terrane nav` and `terrane path` (nav_setup.hpp).
#include "nav_setup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "terrane/schema.hpp"

namespace terrane::cli {
namespace {

// Agent names become part of file names (NAME_AGENT.navtiles): letters, digits, '_', '-', '.',
// not starting with '.', at most 64 bytes.
bool usable_in_file_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// Exactly `n` comma-separated finite numbers, nothing else.
bool parse_numbers(const std::string& text, double* out, int n) {
  const char* p = text.c_str();
  for (int k = 0; k < n; ++k) {
    if (k > 0) {
      if (*p != ',') return false;
      ++p;
    }
    // strtod accepts leading blanks, "inf" and "nan": refuse them (and hex floats) here.
    if (*p == ' ' || *p == '\t' || *p == '\0') return false;
    char* end = nullptr;
    out[k] = std::strtod(p, &end);
    if (end == p || !std::isfinite(out[k])) return false;
    p = end;
  }
  return *p == '\0';
}

void check_inside_world(const std::string& option, const std::string& text, double v) {
  if (std::abs(v) > kMaxWorldCoordinate) {
    throw Error(ErrorCategory::invalid_argument, option + " '" + text + "': " + format_number(v) +
                                                     " m is outside the world (|coordinate| <= " +
                                                     format_number(kMaxWorldCoordinate) + " m)");
  }
}

}  // namespace

NavSetup make_nav_setup(const NavOptions& opt) {
  NavParams params;
  params.cell_size_m = opt.cell_size_m;
  params.tile_cells = opt.tile_cells;
  params.agents.clear();
  for (const std::string& spec : opt.agents) {
    try {
      params.agents.push_back(parse_nav_agent(spec));
    } catch (const Error& e) {
      throw Error(e.category(), "--agent '" + spec + "': " + e.what());
    }
  }
  if (params.agents.empty()) params.agents.push_back(NavAgent{});
  for (std::size_t k = 0; k < params.agents.size(); ++k) {
    const std::string& name = params.agents[k].name;
    if (!usable_in_file_name(name)) {
      throw Error(ErrorCategory::invalid_argument,
                  "--agent: name '" + name +
                      "' cannot be part of a file name (letters, digits, '_', '-', '.'; not "
                      "starting with '.'; at most 64 characters)");
    }
    for (std::size_t m = 0; m < k; ++m) {
      if (params.agents[m].name == name) {
        throw Error(ErrorCategory::invalid_argument,
                    "--agent: agents " + std::to_string(m + 1) + " and " + std::to_string(k + 1) +
                        " are both named '" + name + "' (give each its own name=...)");
      }
    }
  }

  NavSetup s;
  std::vector<std::string> overrides = opt.overrides;
  if (opt.has_seed) overrides.push_back("seed=" + std::to_string(opt.seed));
  s.preset = load_preset(opt.preset, overrides);
  s.name = s.preset.name.empty() ? std::string("terrain") : s.preset.name;
  s.generator = std::make_shared<const ChunkGenerator>(s.preset);
  std::shared_ptr<const NavTerrain> terrain = make_nav_terrain(s.generator);
  try {
    s.builder = std::make_shared<const NavTileBuilder>(terrain, params);
  } catch (const Error& e) {
    // NavParams::validate names fields as the library does; say which options set them.
    throw Error(e.category(),
                std::string("nav parameters (--agent, --cell-size, --tile-cells): ") + e.what());
  }
  return s;
}

NavWorldParams nav_region_params() {
  NavWorldParams wp;
  wp.threads = 1;
  return wp;
}

std::array<double, 4> parse_nav_box(const std::string& option, const std::string& text) {
  std::array<double, 4> b{};
  if (!parse_numbers(text, b.data(), 4)) {
    throw Error(ErrorCategory::invalid_argument,
                option + " '" + text + "': expected four numbers x0,z0,x1,z1 in metres");
  }
  for (double v : b) check_inside_world(option, text, v);
  if (!(b[2] > b[0] && b[3] > b[1])) {
    throw Error(ErrorCategory::invalid_argument,
                option + " '" + text + "': the box is empty (it needs x1 > x0 and z1 > z0)");
  }
  return b;
}

std::array<double, 2> parse_nav_point(const std::string& option, const std::string& text) {
  std::array<double, 2> p{};
  if (!parse_numbers(text, p.data(), 2)) {
    throw Error(ErrorCategory::invalid_argument,
                option + " '" + text + "': expected two numbers x,z in metres");
  }
  for (double v : p) check_inside_world(option, text, v);
  return p;
}

std::vector<NavTileKey> nav_region_tiles(const NavTileBuilder& builder,
                                         const std::array<double, 4>& box,
                                         const std::string& what) {
  try {
    return builder.region_tiles(box[0], box[1], box[2], box[3]);
  } catch (const Error& e) {
    if (e.category() != ErrorCategory::limit) throw;
    throw Error(e.category(), what + ": " + e.what());
  }
}

void build_nav_region(NavWorld& world, const std::array<double, 4>& box, const std::string& what,
                      int threads) {
  (void)nav_region_tiles(world.builder(), box, what);  // the limits, with the options' names
  ExecContext ctx;
  ctx.threads = threads;
  world.build_region(box[0], box[1], box[2], box[3], ctx);
}

}  // namespace terrane::cli
