// End-to-end tests of `terrane nav` and `terrane path` (docs/NAV.md): the three kinds of files
// with the documented layout and fields, paths on the default preset with their statuses and
// exit codes, and bad input refused with a precise message, exit 2 and nothing written.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/run_command.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

test::CommandResult run(const std::string& args) {
  return test::run_command(std::string(TERRANE_CLI_PATH) + " " + args + " 2>&1");
}
// stdout only (stderr discarded).
test::CommandResult run_stdout(const std::string& args) {
  return test::run_command(std::string(TERRANE_CLI_PATH) + " " + args + " 2>/dev/null");
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Name -> bytes of every entry of `dir`, sorted (directories read as empty).
std::vector<std::pair<std::string, std::string>> directory_contents(const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    files.emplace_back(e.path().filename().string(), read_file(e.path()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A little-endian reader of the .navtiles layout; fails the test on a short read.
class Reader {
 public:
  explicit Reader(std::string bytes) : b_(std::move(bytes)) {}
  std::uint64_t u(int n) {
    if (pos_ + std::size_t(n) > b_.size()) {
      ADD_FAILURE() << "read past the end at " << pos_;
      pos_ = b_.size();
      return 0;
    }
    std::uint64_t v = 0;
    for (int k = 0; k < n; ++k)
      v |= std::uint64_t(std::uint8_t(b_[pos_ + std::size_t(k)])) << (8 * k);
    pos_ += std::size_t(n);
    return v;
  }
  std::int64_t i64() { return std::int64_t(u(8)); }
  double f64() {
    const std::uint64_t v = u(8);
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  std::string bytes(std::size_t n) {
    n = std::min(n, b_.size() - pos_);
    std::string s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t pos() const { return pos_; }
  std::size_t size() const { return b_.size(); }

 private:
  std::string b_;
  std::size_t pos_ = 0;
};

struct NavTilesFile {
  std::string magic;
  std::uint32_t version = 0, tile_cells = 0;
  double tile_m = 0, cell_m = 0, cell_h = 0;
  std::int64_t origin_tx = 0, origin_tz = 0;
  double origin_x = 0, origin_z = 0;
  double radius = 0, height = 0, climb = 0, slope = 0, drop = 0;
  std::string name;
  std::uint64_t count = 0;
  struct Tile {
    std::int64_t tx, tz;
    std::string data;
  };
  std::vector<Tile> tiles;
};

NavTilesFile parse_navtiles(const fs::path& p) {
  Reader r(read_file(p));
  NavTilesFile f;
  f.magic = r.bytes(8);
  f.version = std::uint32_t(r.u(4));
  f.tile_cells = std::uint32_t(r.u(4));
  f.tile_m = r.f64();
  f.cell_m = r.f64();
  f.cell_h = r.f64();
  f.origin_tx = r.i64();
  f.origin_tz = r.i64();
  f.origin_x = r.f64();
  f.origin_z = r.f64();
  f.radius = r.f64();
  f.height = r.f64();
  f.climb = r.f64();
  f.slope = r.f64();
  f.drop = r.f64();
  EXPECT_EQ(r.pos(), 112u);
  f.name = r.bytes(std::size_t(r.u(4)));
  f.count = r.u(8);
  for (std::uint64_t k = 0; k < f.count && r.pos() < r.size(); ++k) {
    NavTilesFile::Tile t;
    t.tx = r.i64();
    t.tz = r.i64();
    t.data = r.bytes(std::size_t(r.u(8)));
    f.tiles.push_back(std::move(t));
  }
  EXPECT_EQ(r.pos(), r.size()) << p << ": bytes after the last tile";
  return f;
}

std::int32_t le_i32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= std::uint32_t(std::uint8_t(s[at + std::size_t(k)])) << (8 * k);
  return std::int32_t(v);
}

class NavCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("terrane_nav_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Exit code 2, one "error: " line holding every needle, and `out` (a fresh directory) never
  // created.
  void expect_nav_failure(const std::string& args, std::initializer_list<std::string> needles) {
    const fs::path out = dir_ / "fail_out";
    const test::CommandResult r = run("nav " + args + " --threads 2 -q -o " + out.string());
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("error: ", 0), 0u) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one message line: " << r.out;
    for (const std::string& needle : needles) {
      EXPECT_NE(r.out.find(needle), std::string::npos)
          << "missing '" << needle << "' in: " << r.out;
    }
    EXPECT_FALSE(fs::exists(out)) << args << ": a failed run left its output directory";
  }

  fs::path dir_;
};

// Two agents over a region that is not tile-aligned: 16 m tiles x 0..2 (x 0.5..40), z 0..1
// (z 1..20) -> 6 tiles per agent.
TEST_F(NavCli, NavWritesTilesObjAndReportPerAgent) {
  const fs::path out = dir_ / "out";
  const test::CommandResult r =
      run("nav default --region 0.5,1,40,20 --agent radius=0.5,height=2,climb=0.6,slope=40 "
          "--agent radius=1,height=3,climb=0.3,slope=25,drop=2,name=cart --threads 2 -q -o " +
          out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("6 tile(s) of 16 m x 2 agent(s)"), std::string::npos) << r.out;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(out)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"default_cart.navtiles", "default_cart.obj",
                                             "default_humanoid.navtiles", "default_humanoid.obj",
                                             "default_nav.json"}));

  const nlohmann::json j = nlohmann::json::parse(read_file(out / "default_nav.json"));
  EXPECT_EQ(j["preset"], "default");
  EXPECT_EQ(j["seed"], "1337");
  EXPECT_FALSE(j["preset_hash"].get<std::string>().empty());
  EXPECT_EQ(j["region_m"], nlohmann::json({0.5, 1.0, 40.0, 20.0}));
  EXPECT_EQ(j["tile_range"], nlohmann::json({0, 0, 2, 1}));
  EXPECT_EQ(j["tiles_per_agent"], 6);
  EXPECT_EQ(j["nav"]["tile_size_m"], 16.0);
  EXPECT_EQ(j["nav"]["cell_size_m"], 0.25);
  ASSERT_EQ(j["agents"].size(), 2u);
  std::size_t tiles_in_files = 0;
  for (const auto& a : j["agents"]) {
    SCOPED_TRACE(a["name"].get<std::string>());
    EXPECT_EQ(a["tiles"], 6);
    EXPECT_GT(a["polygons"].get<int>(), 0);
    EXPECT_GE(a["off_mesh_links"].get<int>(), 0);
    const double share = a["walkable_share"];
    EXPECT_GT(share, 0.0);
    EXPECT_LE(share, 1.0 + 1e-9);
    EXPECT_NEAR(a["walkable_area_m2"].get<double>(), share * 39.5 * 19.0, 1e-6);
    EXPECT_GE(a["tiles_area_m2"].get<double>(), a["walkable_area_m2"].get<double>() - 1e-6);
    const double p50 = a["build_ms_p50"], p99 = a["build_ms_p99"];
    EXPECT_GT(p50, 0.0);
    EXPECT_GE(p99, p50);
    EXPECT_GE(a["build_ms_max"].get<double>(), p99);
    EXPECT_GT(a["tile_bytes"].get<int>(), 0);

    const std::string name = a["name"];
    const NavTilesFile f = parse_navtiles(out / a["navtiles"].get<std::string>());
    EXPECT_EQ(a["navtiles_bytes"].get<std::uintmax_t>(),
              fs::file_size(out / a["navtiles"].get<std::string>()));
    EXPECT_EQ(f.magic, "TRNNAV01");
    EXPECT_EQ(f.version, 1u);
    EXPECT_EQ(f.tile_cells, 64u);
    EXPECT_EQ(f.tile_m, 16.0);
    EXPECT_EQ(f.cell_m, 0.25);
    EXPECT_EQ(f.cell_h, 0.1);
    EXPECT_EQ(nlohmann::json({f.origin_tx, f.origin_tz}), j["origin_tile"]);
    EXPECT_EQ(f.origin_x, double(f.origin_tx) * 16.0);
    EXPECT_EQ(f.origin_z, double(f.origin_tz) * 16.0);
    EXPECT_EQ(f.name, name);
    EXPECT_EQ(f.radius, a["radius_m"].get<double>());
    EXPECT_EQ(f.slope, a["max_slope_deg"].get<double>());
    if (name == "cart") {
      EXPECT_EQ(f.radius, 1.0);
      EXPECT_EQ(f.height, 3.0);
      EXPECT_EQ(f.climb, 0.3);
      EXPECT_EQ(f.slope, 25.0);
      EXPECT_EQ(f.drop, 2.0);
    }
    ASSERT_EQ(f.count, 6u);
    ASSERT_EQ(f.tiles.size(), 6u);
    tiles_in_files += f.tiles.size();
    std::size_t bytes = 0;
    for (std::size_t k = 0; k < f.tiles.size(); ++k) {
      const auto& t = f.tiles[k];
      EXPECT_EQ(t.tx, std::int64_t(k % 3));  // rows of tz, each in tx order
      EXPECT_EQ(t.tz, std::int64_t(k / 3));
      bytes += t.data.size();
      if (t.data.empty()) continue;
      // Detour's dtMeshHeader: magic 'DNAV', version 7, tile x and y relative to the origin.
      ASSERT_GE(t.data.size(), 16u);
      EXPECT_EQ(t.data.substr(0, 4), "VAND");
      EXPECT_EQ(le_i32(t.data, 4), 7);
      EXPECT_EQ(le_i32(t.data, 8), t.tx - f.origin_tx);
      EXPECT_EQ(le_i32(t.data, 12), t.tz - f.origin_tz);
    }
    EXPECT_EQ(a["tile_bytes"].get<std::size_t>(), bytes);

    // The OBJ: the origin comment, vertices, faces that index them, one object per tile.
    std::istringstream obj(read_file(out / a["obj"].get<std::string>()));
    std::string line;
    std::size_t v = 0, faces = 0, lines = 0, objects = 0;
    bool origin_comment = false, indices_ok = true;
    while (std::getline(obj, line)) {
      if (line.rfind("# coordinates are world minus the navmesh origin; origin_m ", 0) == 0) {
        origin_comment = true;
      }
      if (line.rfind("v ", 0) == 0) ++v;
      if (line.rfind("o ", 0) == 0) ++objects;
      if (line.rfind("f ", 0) == 0 || line.rfind("l ", 0) == 0) {
        (line[0] == 'f' ? faces : lines) += 1;
        std::istringstream in(line.substr(2));
        std::size_t idx = 0, n = 0;
        while (in >> idx) {
          ++n;
          indices_ok = indices_ok && idx >= 1 && idx <= v;
        }
        indices_ok = indices_ok && n >= (line[0] == 'f' ? 3u : 2u);
      }
    }
    EXPECT_TRUE(origin_comment);
    EXPECT_GT(v, 0u);
    EXPECT_EQ(faces, a["polygons"].get<std::size_t>());
    EXPECT_EQ(lines, a["off_mesh_links"].get<std::size_t>());
    EXPECT_EQ(v, a["vertices"].get<std::size_t>());
    EXPECT_TRUE(indices_ok);
    EXPECT_EQ(objects, 6u - std::size_t(a["empty_tiles"].get<int>()));
  }
  EXPECT_EQ(tiles_in_files, 6u * 2u);  // region tiles x agents
}

// The files are a pure function of the input: another run (other thread count) writes the
// same tile bytes and OBJs.
TEST_F(NavCli, NavFilesDoNotDependOnThreads) {
  const std::string args = "nav default --region -20,-20,20,20 -q -o ";
  ASSERT_EQ(run(args + (dir_ / "a").string() + " --threads 1").code, 0);
  ASSERT_EQ(run(args + (dir_ / "b").string() + " --threads 2").code, 0);
  for (const char* name : {"default_humanoid.navtiles", "default_humanoid.obj"}) {
    EXPECT_EQ(read_file(dir_ / "a" / name), read_file(dir_ / "b" / name)) << name;
  }
}

TEST_F(NavCli, NavBadInputExitsTwoBeforeWritingAnything) {
  expect_nav_failure("default --region 0,0,1", {"--region '0,0,1'", "four numbers x0,z0,x1,z1"});
  expect_nav_failure("default --region a,0,1,1", {"--region 'a,0,1,1'", "four numbers"});
  expect_nav_failure("default --region 0,0,nan,1", {"--region '0,0,nan,1'"});
  expect_nav_failure("default --region 0,0,0,10", {"--region '0,0,0,10'", "the box is empty"});
  expect_nav_failure("default --region 10,0,0,10", {"the box is empty"});
  expect_nav_failure("default --region 0,0,1e13,1", {"1e+13 m is outside the world"});
  expect_nav_failure("default", {"--region is required"});
  expect_nav_failure("default --region 0,0,1100,1100",
                     {"--region 0,0,1100,1100", "4761 tiles of 16 m", "max_tiles = 4096"});
  expect_nav_failure("default --region 0,0,10,10 --agent radius=x",
                     {"--agent 'radius=x'", "radius = 'x' is not a number"});
  expect_nav_failure("default --region 0,0,10,10 --agent speed=3",
                     {"--agent 'speed=3'", "unknown key 'speed'"});
  expect_nav_failure("default --region 0,0,10,10 --agent slope",
                     {"--agent 'slope'", "is not key=value"});
  expect_nav_failure("default --region 0,0,10,10 --agent slope=90",
                     {"max_slope_deg = 90", "(0, 90)"});
  expect_nav_failure("default --region 0,0,10,10 --agent radius=5", {"radius_m = 5", "[0.25, 4]"});
  expect_nav_failure("default --region 0,0,10,10 --agent radius=1 --agent radius=2",
                     {"agents 1 and 2 are both named 'humanoid'"});
  expect_nav_failure("default --region 0,0,10,10 --agent name=../x",
                     {"name '../x' cannot be part of a file name"});
  expect_nav_failure("default --region 0,0,10,10 --tile-cells 8", {"--tile-cells", "16..512"});
  expect_nav_failure("default --region 0,0,10,10 --cell-size 0.27",
                     {"does not divide the chunk side"});
  expect_nav_failure("no_such_preset --region 0,0,10,10", {"no_such_preset"});
}

TEST_F(NavCli, NavIntoAFileFailsBeforeWork) {
  const fs::path file = dir_ / "file";
  std::ofstream(file) << "x";
  const test::CommandResult r = run("nav default --region 0,0,10,10 -q -o " + file.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("output directory '" + file.string() + "' cannot be created"),
            std::string::npos)
      << r.out;
}

// A failed run (over the tile limit, after the output directory is in use) leaves the files of
// an earlier run as they were, and no staging directory.
TEST_F(NavCli, FailedNavLeavesTheDirectoryAsItWas) {
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("nav default --region 0,0,32,32 --threads 2 -q -o " + out.string()).code, 0);
  const auto before = directory_contents(out);
  const test::CommandResult r =
      run("nav default --region 0,0,70000,32 --threads 2 -q -o " + out.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("max_tiles"), std::string::npos) << r.out;
  EXPECT_EQ(directory_contents(out), before);
}

// SIGTERM while the tiles are being built: nothing is published, the staging directory goes.
TEST_F(NavCli, InterruptedNavLeavesTheDirectoryAsItWas) {
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("nav default --region 0,0,32,32 --threads 2 -q -o " + out.string()).code, 0);
  const auto before = directory_contents(out);
  const test::Interrupted r = test::run_and_interrupt(
      {TERRANE_CLI_PATH, "nav", "default", "--region", "-400,-400,400,400", "--threads", "2", "-q",
       "-o", out.string()},
      [&] {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(out, ec)) {
          if (e.path().filename().string().rfind(".terrane-staging-", 0) == 0) return true;
        }
        return false;
      },
      SIGTERM, 200000);  // well into the tile builds
  const bool staging = r.signalled;
  const int status = r.status;
  ASSERT_TRUE(staging) << "the run ended before it was seen staging";
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_EQ(directory_contents(out), before);
}

nlohmann::json parse_line(const test::CommandResult& r) {
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one JSON line: " << r.out;
  return nlohmann::json::parse(r.out);
}

TEST_F(NavCli, PathBetweenTwoPointsOfTheDefaultPreset) {
  const test::CommandResult r = run_stdout("path default --from 0,0 --to 120,80 --threads 2");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = parse_line(r);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["agent"], "humanoid");
  const auto& pts = j["points"];
  ASSERT_GE(pts.size(), 2u);
  // The path starts and ends at the points (on the navmesh, within Detour's search box).
  EXPECT_NEAR(pts.front()[0].get<double>(), 0.0, 0.5);
  EXPECT_NEAR(pts.front()[2].get<double>(), 0.0, 0.5);
  EXPECT_NEAR(pts.back()[0].get<double>(), 120.0, 0.5);
  EXPECT_NEAR(pts.back()[2].get<double>(), 80.0, 0.5);
  EXPECT_NEAR(pts.front()[1].get<double>(), j["from"][1].get<double>(), 2.0);
  double length = 0.0;
  for (std::size_t k = 1; k < pts.size(); ++k) {
    double d2 = 0.0;
    for (int c = 0; c < 3; ++c) {
      const double d = pts[k][c].get<double>() - pts[k - 1][c].get<double>();
      d2 += d * d;
    }
    length += std::sqrt(d2);
  }
  EXPECT_NEAR(j["length_m"].get<double>(), length, 1e-6);
  EXPECT_GE(length, std::hypot(120.0, 80.0) - 1.0);
  EXPECT_GT(j["polygons"].get<int>(), 0);
  // Bounding box (0, 0)..(120, 80) plus 64 m: tiles -4..11 x -4..8 of 16 m.
  EXPECT_EQ(j["tiles"], 16 * 13);
  EXPECT_EQ(j["region_m"], nlohmann::json({-64.0, -64.0, 184.0, 144.0}));
}

// A target the agent cannot reach (slopes over 20 degrees cut it off) is status partial and
// exit 0: the path ends at the reachable point nearest to it.
TEST_F(NavCli, PathToAnUnreachableTargetIsPartial) {
  const test::CommandResult r =
      run_stdout("path default --agent slope=20 --from 0,0 --to 300,0 --threads 2");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = parse_line(r);
  EXPECT_EQ(j["status"], "partial");
  ASSERT_FALSE(j["points"].empty());
  EXPECT_GT(std::abs(j["points"].back()[0].get<double>() - 300.0), 1.0);
}

// No walkable ground at the start (alpine at 0,0 is steeper than 40 degrees): exit 1, and the
// JSON still says why.
TEST_F(NavCli, PathWithoutAStartExitsOne) {
  const test::CommandResult r = run_stdout("path alpine --from 0,0 --to 120,80 --threads 2");
  EXPECT_EQ(r.code, 1) << r.out;
  const nlohmann::json j = parse_line(r);
  EXPECT_EQ(j["status"], "no_start");
  EXPECT_TRUE(j["points"].empty());
  EXPECT_EQ(j["length_m"], 0.0);
}

TEST_F(NavCli, PathBadInputExitsTwo) {
  const auto expect = [](const std::string& args, std::initializer_list<std::string> needles) {
    const test::CommandResult r = run("path " + args + " --threads 2");
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("error: ", 0), 0u) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one message line: " << r.out;
    for (const std::string& needle : needles) {
      EXPECT_NE(r.out.find(needle), std::string::npos)
          << "missing '" << needle << "' in: " << r.out;
    }
  };
  expect("default --from 0, --to 10,10", {"--from '0,'", "two numbers x,z"});
  expect("default --from 0,0 --to x,10", {"--to 'x,10'"});
  expect("default --from 0,0", {"--to is required"});
  expect("default --from 0,0 --to 10,10 --margin -1", {"--margin", "[0, 4096]"});
  expect("default --from 0,0 --to 0,0 --margin 0", {"the box around the points is empty"});
  expect("default --from 0,0 --to 2000,2000",
         {"--from / --to / --margin (64 m)", "17689 tiles", "max_tiles = 4096"});
  expect("default --from 0,0 --to 10,10 --agent name=a --agent name=b",
         {"terrane path walks one agent; 2 were given"});
  expect("default --from 0,0 --to 10,10 --agent climb=9", {"max_climb_m = 9"});
}

}  // namespace
}  // namespace terrane
