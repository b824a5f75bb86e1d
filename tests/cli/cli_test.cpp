// End-to-end tests of the `terrane` CLI: generate writes the promised files with the promised
// contents; bad input exits 2 with a precise message and leaves no file behind.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "terrane/graph.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

struct Result {
  int code;
  std::string out;  // stdout + stderr
};

Result run(const std::string& args) {
  const std::string cmd = std::string(TERRANE_CLI_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  Result r{-1, {}};
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("terrane_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write_preset(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  // Files in the directory, excluding the preset inputs the test itself wrote.
  std::vector<std::string> outputs(const fs::path& d) {
    std::vector<std::string> names;
    if (!fs::exists(d)) return names;
    for (const auto& e : fs::directory_iterator(d)) {
      if (e.path().extension() != ".in") names.push_back(e.path().filename().string());
    }
    return names;
  }
  void expect_failure(const std::string& args, const std::string& needle) {
    const fs::path out = dir_ / "fail_out";
    const Result r = run(args + " -q -o " + out.string());
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("error: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(needle), std::string::npos) << "missing '" << needle << "' in: " << r.out;
    EXPECT_TRUE(outputs(out).empty()) << args << ": a failed run left files behind";
  }

  fs::path dir_;
};

const char* kSmallPreset = R"({
  "name": "small",
  "seed": 5,
  "world": { "cell_size_m": 2.0, "height_min_m": -50, "height_max_m": 250, "size": 65 },
  "graph": {
    "output": "h",
    "nodes": { "h": { "type": "opensimplex2", "fractal": "fbm", "octaves": 4, "frequency": 0.01 } }
  }
})";

TEST_F(CliTest, GenerateDefaultPresetWritesHeightmapPreviewAndSidecar) {
  const Result r = run("generate default --size 129 -q -o " + dir_.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("129x129"), std::string::npos) << r.out;
  for (const char* f : {"default.png", "default_preview.png", "default.json"}) {
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  }
  std::ifstream in(dir_ / "default.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["width"], 129);
  EXPECT_EQ(j["preset"], "default");
  const Preset p = load_preset("default", std::vector<std::string>{"world.size=129"});
  EXPECT_EQ(j["height_min_m"].get<double>(), p.world.height_min_m);
  EXPECT_EQ(j["height_max_m"].get<double>(), p.world.height_max_m);
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), p.seed);

  // The PNG holds exactly the library's heights through the sidecar's range.
  const GridSpec grid = default_grid(p.world);
  std::vector<float> h(grid.sample_count());
  evaluate(compile(p), grid, h);
  const Image16 img = read_png16(dir_ / "default.png");
  ASSERT_EQ(img.width, 129);
  const HeightRange range{p.world.height_min_m, p.world.height_max_m};
  for (std::size_t k = 0; k < h.size(); ++k) {
    ASSERT_EQ(img.samples[k], height_to_u16(h[k], range)) << "sample " << k;
  }
}

TEST_F(CliTest, AllFormatsFromAPresetFileWithOverrides) {
  const fs::path preset = write_preset("small.json.in", kSmallPreset);
  const Result r = run("generate " + preset.string() +
                       " --formats png16,raw16,exr,normals,preview --seed 99 --set "
                       "graph.nodes.h.octaves=2 -q -o " + dir_.string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* f : {"small.png", "small.r16", "small.exr", "small_normals.png",
                        "small_preview.png", "small.json"}) {
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  }
  // 65 is not 2^n + 1 ... it is (64 + 1): no RAW16 size warning expected.
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  std::ifstream in(dir_ / "small.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), 99u);
  EXPECT_EQ(j["files"].size(), 5u);
  const Field2D exr = read_exr(dir_ / "small.exr");
  EXPECT_EQ(exr.grid.width, 65);
}

TEST_F(CliTest, RawSizeWarningWhenNotPowerOfTwoPlusOne) {
  const fs::path preset = write_preset("small.json.in", kSmallPreset);
  const Result r = run("generate " + preset.string() + " --size 100 --formats raw16 -q -o " +
                       dir_.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning"), std::string::npos) << r.out;
}

TEST_F(CliTest, OutputIsIdenticalOnEverySimdTargetAndThreadCount) {
  std::string first;
  for (SimdTarget t : supported_simd_targets()) {
    for (int threads : {1, 2}) {
      const fs::path out = dir_ / (std::string(to_string(t)) + std::to_string(threads));
      const Result r = run("generate alpine --size 97 --formats png16 --threads " +
                           std::to_string(threads) + " --simd " + to_string(t) + " -q -o " +
                           out.string());
      ASSERT_EQ(r.code, 0) << r.out;
      std::ifstream in(out / "alpine.png", std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), {});
      if (first.empty()) first = bytes;
      EXPECT_EQ(bytes, first) << to_string(t) << " threads " << threads;
    }
  }
}

TEST_F(CliTest, PresetsListsTheBuiltins) {
  const Result r = run("presets");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* name : {"default", "alpine", "islands", "dunes", "canyons"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
}

TEST_F(CliTest, BenchNoisePrintsJsonLines) {
  const Result r = run("bench noise --workload W1 --repeats 1");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_EQ(j["workload"], "W1");
  EXPECT_GT(j["ns_per_sample"].get<double>(), 0.0);
  EXPECT_EQ(j["threads"], 1);
}

TEST_F(CliTest, MalformedJsonReportsLineAndColumn) {
  const fs::path p = write_preset("bad.json.in", "{\n  \"name\": \"x\",\n  \"seed\": ,\n}\n");
  expect_failure("generate " + p.string(), "line 3");
}

TEST_F(CliTest, BadInputExitsTwoWithPreciseMessage) {
  const fs::path p = write_preset("small.json.in", kSmallPreset);
  const std::string pre = "generate " + p.string() + " ";
  expect_failure(pre + "--set graph.nodes.h.octaves=0", "graph.nodes.h.octaves");
  expect_failure(pre + "--set graph.nodes.h.octaves=40", "1..16");
  expect_failure(pre + "--set graph.nodes.h.frequency=-1", "frequency");
  expect_failure(pre + "--set graph.nodes.h.type=simplex", "simplex");
  expect_failure(pre + "--set graph.nodes.h.octavez=3", "octavez");
  expect_failure(pre + "--size 0", "size");
  expect_failure(pre + "--size 1000000", "1000000");
  expect_failure(pre + "--width 60000 --height 60000", "exceeds the cap");
  expect_failure(pre + "--formats png16,tiff", "tiff");
  expect_failure(pre + "--simd neon", "neon");
  expect_failure(pre + "--set world.preview_palette=neon", "world.preview_palette");
  expect_failure("generate no_such_preset", "no_such_preset");
}

TEST_F(CliTest, UnwritableOutputDirectoryFailsBeforeWork) {
  // A path below a regular file cannot be created, even as root.
  const fs::path file = write_preset("plain.in", "x");
  const Result r = run("generate default --size 65 -q -o " + (file / "sub").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("output directory"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace terrane
