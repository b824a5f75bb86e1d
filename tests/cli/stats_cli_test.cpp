// End-to-end tests of `terrane stats` and `terrane generate --formats stats`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

test::CommandResult run(const std::string& args) {
  return test::run_command(std::string(TERRANE_CLI_PATH) + " " + args + " 2>&1");
}

class StatsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("terrane_stats_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "small.json") << test::kSmallPreset;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A .npy of a w x h float32 grid from f(i, j).
  template <class F>
  std::string write_npy(const std::string& name, int w, int h, F f) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(h) +
                         ", " + std::to_string(w) + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::ofstream out(dir_ / name, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const char len[2] = {char(header.size() & 0xFF), char(header.size() >> 8)};
    out.write(len, 2);
    out << header;
    for (int j = 0; j < h; ++j) {
      for (int i = 0; i < w; ++i) {
        const float v = float(f(i, j));
        out.write(reinterpret_cast<const char*>(&v), 4);
      }
    }
    return path(name);
  }

  fs::path dir_;
};

nlohmann::json parse_line(const std::string& out) {
  return nlohmann::json::parse(out.substr(0, out.find('\n')));
}

TEST_F(StatsCli, TableOfABuiltinPreset) {
  const auto r = run("stats default --size 129 --cell 8");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("default: 129 x 129 cells of 8 x 8 m"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("slope p10 / p50 / p90"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("spectral beta"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Hack's exponent"), std::string::npos) << r.out;
}

TEST_F(StatsCli, JsonOfAPresetFile) {
  const auto r = run("stats " + path("small.json") + " --json --graph-only");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = parse_line(r.out);
  EXPECT_EQ(j["name"], "small");
  EXPECT_EQ(j["rows"], 65);
  EXPECT_EQ(j["cell_size_m"], 2.0);
  for (const char* key : {"slope_p50_deg", "hypsometric_integral", "beta", "land_fraction",
                          "drainage_density_km_per_km2", "depression_share_gt1m"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  // 65 x 65 cells of 2 m: 16900 m^2 in all, no channel; the reason is given.
  EXPECT_TRUE(j["drainage_density_km_per_km2"].is_null());
  EXPECT_NE(j["why"]["drainage_density_km_per_km2"].get<std::string>().find("channel area"),
            std::string::npos);
}

TEST_F(StatsCli, ReadsAGeneratedPngWithItsSidecar) {
  const auto g =
      run("generate " + path("small.json") + " -q --formats png16,exr -o " + path("out"));
  ASSERT_EQ(g.code, 0) << g.out;
  const auto png = run("stats " + path("out/small.png") + " --json");
  ASSERT_EQ(png.code, 0) << png.out;
  const auto exr = run("stats " + path("out/small.exr") + " --json");
  ASSERT_EQ(exr.code, 0) << exr.out;
  const auto a = parse_line(png.out), b = parse_line(exr.out);
  EXPECT_EQ(a["cell_size_m"], 2.0);
  EXPECT_NEAR(a["slope_p50_deg"].get<double>(), b["slope_p50_deg"].get<double>(), 0.2);
  EXPECT_NEAR(a["hypsometric_integral"].get<double>(), b["hypsometric_integral"].get<double>(),
              0.01);
}

TEST_F(StatsCli, ReadsANpyWithItsCellSize) {
  const std::string npy =
      write_npy("plane.npy", 100, 80, [](int i, int) { return 0.5 * 10.0 * i; });
  const auto r = run("stats " + npy + " --cell 10 --json --agent-slope 20");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = parse_line(r.out);
  EXPECT_NEAR(j["slope_p50_deg"].get<double>(), std::atan(0.5) * 180.0 / M_PI, 1e-3);
  EXPECT_EQ(j["walkable_share"], 0.0);
  EXPECT_EQ(j["agent_slope_deg"], 20.0);
  const auto z = run("stats " + npy + " --cell 10 --cell-z 20 --sea 100 --json");
  ASSERT_EQ(z.code, 0) << z.out;
  const auto k = parse_line(z.out);
  EXPECT_EQ(k["cell_size_y_m"], 20.0);
  EXPECT_LT(k["land_fraction"].get<double>(), 1.0);
}

TEST_F(StatsCli, BadInputExitsTwoWithOneMessage) {
  const std::string npy = write_npy("g.npy", 30, 30, [](int i, int j) { return i + j; });
  auto expect_error = [](const test::CommandResult& r, const std::string& needle) {
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_EQ(r.out.rfind("error: ", 0), 0U) << r.out;
    EXPECT_NE(r.out.find(needle), std::string::npos) << r.out;
  };
  expect_error(run("stats " + npy), "needs --cell");
  expect_error(run("stats " + npy + " --cell 5 --sea 1000"), "no land");
  expect_error(
      run("stats " + write_npy("tiny.npy", 2, 2, [](int, int) { return 1.0; }) + " --cell 5"),
      "at least 3 x 3");
  expect_error(
      run("stats " + write_npy("nan.npy", 8, 8, [](int, int) { return NAN; }) + " --cell 5"),
      "every cell is NaN");
  {
    std::ofstream(dir_ / "bad.npy", std::ios::binary) << "\x93NUMPY\x01";
    expect_error(run("stats " + path("bad.npy") + " --cell 5"), "bad.npy");
  }
  expect_error(run("stats " + path("missing.png")), "no sidecar");
  expect_error(run("stats nosuchpreset"), "nosuchpreset");
  expect_error(run("stats " + npy + " --cell 5 --seed 3"), "apply to presets");
  // A too-small map for some statistics: n/a with the reason in the table, exit 0.
  const auto r = run("stats " + npy + " --cell 5");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("n/a (the map is 30 x 30 cells; the spectrum needs at least 64"),
            std::string::npos)
      << r.out;
}

TEST_F(StatsCli, NanCellsAreReportedAsNoData) {
  const std::string npy = write_npy("holes.npy", 80, 80, [](int i, int j) {
    return (i > 30 && i < 40 && j > 30 && j < 40) ? NAN : 0.3 * 20.0 * i;
  });
  const auto r = run("stats " + npy + " --cell 20");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("no-data (NaN) cells, excluded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("81"), std::string::npos) << r.out;
}

TEST_F(StatsCli, GenerateWritesTheStatsFormat) {
  const auto g =
      run("generate " + path("small.json") + " -q --formats png16,stats -o " + path("o"));
  ASSERT_EQ(g.code, 0) << g.out;
  ASSERT_TRUE(fs::exists(dir_ / "o" / "small_stats.json"));
  ASSERT_TRUE(fs::exists(dir_ / "o" / "small_stats.png"));
  std::ifstream in(dir_ / "o" / "small_stats.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["rows"], 65);
  EXPECT_FALSE(j.contains("elapsed_s"));
  std::ifstream side(dir_ / "o" / "small.json");
  const auto s = nlohmann::json::parse(side);
  std::vector<std::string> formats;
  for (const auto& f : s["files"]) formats.push_back(f["format"]);
  EXPECT_NE(std::find(formats.begin(), formats.end(), "stats_json"), formats.end());
  EXPECT_NE(std::find(formats.begin(), formats.end(), "stats_png"), formats.end());
}

}  // namespace
}  // namespace terrane
