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

#include "terrane/erosion.hpp"
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
  // The library reports it through ExecContext::log; the CLI prints it and records it in the
  // sidecar, word for word.
  std::ifstream in(dir_ / "small.json");
  const auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("warnings")) << j.dump();
  ASSERT_EQ(j["warnings"].size(), 1u);
  const std::string w = j["warnings"][0].get<std::string>();
  EXPECT_NE(w.find("small.r16: size 100 x 100 is not a square of side 2^n + 1"), std::string::npos)
      << w;
  EXPECT_NE(r.out.find("warning: " + w + "\n"), std::string::npos) << r.out;
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

TEST_F(CliTest, MeshExportsWholeAndTiled) {
  const fs::path p = write_preset("small.json.in", kSmallPreset);
  Result r = run("generate " + p.string() + " --formats glb,obj -q -o " + (dir_ / "whole").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "whole" / "small.glb"));
  EXPECT_TRUE(fs::exists(dir_ / "whole" / "small.obj"));
  r = run("generate " + p.string() + " --formats glb --tiles 4 --lod 1 --simplify-error 0.5 -q -o " +
          (dir_ / "tiles").string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (int tz = 0; tz < 4; ++tz) {
    for (int tx = 0; tx < 4; ++tx) {
      const std::string name = "small_x" + std::to_string(tx) + "_z" + std::to_string(tz) + ".glb";
      EXPECT_TRUE(fs::exists(dir_ / "tiles" / name)) << name;
    }
  }
  std::ifstream in(dir_ / "tiles" / "small_tiles.json");
  const nlohmann::json m = nlohmann::json::parse(in);
  EXPECT_EQ(m["tiles"], 4);
  EXPECT_EQ(m["tile_cells_x"], 16);
  EXPECT_EQ(m["tile_size_x_m"], 32.0);
  EXPECT_EQ(m["spacing_m"], 2.0);
  EXPECT_EQ(m["simplify_error_m"], 0.5);
  EXPECT_EQ(m["files"].size(), 16u);
  EXPECT_LE(m["height_min_m"].get<double>(), m["height_max_m"].get<double>());
}

TEST_F(CliTest, EngineExportsSnapSizesAndWriteImportSettings) {
  const fs::path p = write_preset("small.json.in", kSmallPreset);
  Result r = run("generate " + p.string() + " --size 100 --engine unity -q -o " + (dir_ / "u").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("snapped to 129 x 129"), std::string::npos) << r.out;
  EXPECT_EQ(fs::file_size(dir_ / "u" / "small_unity.r16"), 129u * 129u * 2u);
  r = run("generate " + p.string() + " --size 100 --engine unreal -q -o " + (dir_ / "ue").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("snapped to 127 x 127"), std::string::npos) << r.out;
  std::ifstream in(dir_ / "ue" / "small_unreal.json");
  const nlohmann::json s = nlohmann::json::parse(in);
  EXPECT_EQ(s["zero_height_value"], 32768);
  // Z scale maps 250 m (the larger of |min|, |max|) to 32767 steps of 1/128 * scale / 100 m.
  EXPECT_NEAR(s["scale_z_percent"].get<double>() * 32767.0 / 12800.0, 250.0, 1e-9);
  EXPECT_EQ(s["scale_x_percent"], 200.0);
  r = run("generate " + p.string() + " --engine godot -q -o " + (dir_ / "g").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "g" / "small_godot.exr"));
  EXPECT_EQ(read_exr(dir_ / "g" / "small_godot.exr").grid.width, 65);
}

TEST_F(CliTest, MeshBadInputExitsTwoAndWritesNothing) {
  const fs::path p = write_preset("small.json.in", kSmallPreset);
  const std::string pre = "generate " + p.string() + " --formats glb ";
  expect_failure(pre + "--tiles 3", "--tiles 3 does not divide the map: 65 x 65 samples are 64 x 64");
  expect_failure(pre + "--lod 7", "--lod 7 is beyond the levels of a tile of 64 x 64 cells (allowed 0..6");
  expect_failure(pre + "--tiles 4 --lod 5", "allowed 0..4");
  expect_failure(pre + "--simplify-error 0", "--simplify-error: simplification error 0 m is invalid");
  expect_failure(pre + "--simplify-error -1", "error -1 m is invalid");
  expect_failure(pre + "--simplify-error nan", "error nan m is invalid");
  expect_failure(pre + "--size 16385", "more than the format's limit of 4294967295 bytes");
  expect_failure("generate " + p.string() + " --tiles 2", "add glb and/or obj to --formats");
  expect_failure("generate " + p.string() + " --engine cryengine", "unknown engine 'cryengine'");
  expect_failure("generate " + p.string() + " --engine unreal --size 9000",
                 "larger than Unreal's largest recommended landscape size, 8129");
}

TEST_F(CliTest, StreamFliesWithoutHolesOrCracks) {
  const fs::path csv = dir_ / "frames.csv";
  const Result r = run("stream default --path circle --speed 100 --seconds 2 --view 600 --cells 32 "
                       "--budget 64 --threads 2 --workers normal --json --csv " + csv.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string last = r.out.substr(r.out.rfind('{'));
  const auto j = nlohmann::json::parse(last);
  for (const char* k : {"p50_us", "p99_us", "max_us", "chunks_per_s", "holes", "cracks",
                        "time_to_complete_view_s", "peak_resident_bytes", "budget_bytes", "frames"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_EQ(j["frames"].get<int>(), 120);
  EXPECT_EQ(j["holes"].get<int>(), 0);
  EXPECT_EQ(j["cracks"].get<int>(), 0);
  EXPECT_FALSE(j["time_to_complete_view_s"].is_null());
  EXPECT_LE(j["peak_resident_bytes"].get<double>(), j["budget_bytes"].get<double>());
  EXPECT_GT(j["chunks_per_s"].get<double>(), 0.0);
  std::ifstream in(csv);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 121);  // header + one row per frame
}

TEST_F(CliTest, StreamRefusesBadInput) {
  auto fails = [&](const std::string& args, const std::string& needle) {
    const Result r = run("stream " + args + " --seconds 1 --fast");
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("error: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(needle), std::string::npos) << "missing '" << needle << "' in: " << r.out;
  };
  fails("--view 0", "view_distance_m 0 m must be in (0, 1e6]");
  fails("--view -5", "view_distance_m -5 m");
  fails("--budget 1", "needs at least");
  fails("--speed 1e9", "--speed 1000000000");
  fails("--path zigzag", "--path 'zigzag': expected line, circle or random");
  fails("no_such_preset", "no_such_preset");
  fails("--cells 100", "chunk.cells 100");
  fails("--workers idle", "--workers 'idle': expected background, low or normal");
  fails("--csv /nonexistent_terrane_dir/f.csv", "directory '/nonexistent_terrane_dir' does not exist");
}

TEST_F(CliTest, PostGraphOperationCarvesRivers) {
  // The small preset, and the same with a post graph operation: height - 4 * river.
  std::string carved = kSmallPreset;
  const std::string post = R"("post": [{"op": "graph", "river_area_m2": 400, "output": "carve",
      "nodes": {"h": {"type": "input", "name": "height"}, "r": {"type": "input", "name": "river"},
                "r4": {"type": "mul", "a": "r", "b": 4},
                "carve": {"type": "sub", "a": "h", "b": "r4"}}}],
  "graph")";
  carved.replace(carved.find("\"graph\""), 7, post);
  const fs::path plain_preset = write_preset("plain.json.in", kSmallPreset);
  const fs::path carved_preset = write_preset("carved.json.in", carved);
  const Result a = run("generate " + plain_preset.string() + " --formats exr,png16 -q -o " +
                       (dir_ / "plain").string());
  ASSERT_EQ(a.code, 0) << a.out;
  const Result b = run("generate " + carved_preset.string() + " --formats exr,png16 -q -o " +
                       (dir_ / "carved").string());
  ASSERT_EQ(b.code, 0) << b.out;
  const Field2D h0 = read_exr(dir_ / "plain" / "small.exr", 2.0);
  const Field2D h1 = read_exr(dir_ / "carved" / "small.exr", 2.0);
  ASSERT_EQ(h0.data.size(), h1.data.size());
  // Exactly the river cells of the plain map's hydrology are 4 m lower.
  HydrologyParams hp;
  hp.routing.use_sea_level = true;
  hp.routing.sea_level_m = 0.0;
  hp.river_area_m2 = 400.0;
  Hydrology hy;
  compute_hydrology(h0, hp, hy);
  std::size_t changed = 0;
  for (std::size_t c = 0; c < h0.data.size(); ++c) {
    const float expected = hy.river[c] != 0 ? h0.data[c] - 4.0f : h0.data[c];
    ASSERT_EQ(h1.data[c], expected) << "sample " << c;
    changed += h1.data[c] != h0.data[c];
  }
  EXPECT_GT(changed, 20u);
  std::ifstream pa(dir_ / "plain" / "small.png", std::ios::binary);
  std::ifstream pb(dir_ / "carved" / "small.png", std::ios::binary);
  const std::string bytes_a((std::istreambuf_iterator<char>(pa)), {});
  const std::string bytes_b((std::istreambuf_iterator<char>(pb)), {});
  EXPECT_NE(bytes_a, bytes_b);

  // A bad input name names the JSON path; --erode cannot append a graph operation.
  std::string bad = carved;
  bad.replace(bad.find("\"river\"}"), 7, "\"rivers\"");
  const fs::path bad_preset = write_preset("bad.json.in", bad);
  expect_failure("generate " + bad_preset.string(),
                 "post[0].nodes.r.name: unknown input 'rivers' (did you mean 'river'?)");
  expect_failure("generate " + plain_preset.string() + " --erode thermal,graph",
                 "--erode: 'graph' has no default");
}

}  // namespace
TEST_F(CliTest, SurfaceExportsSplatBiomesScatterAndBiomePreview) {
  const fs::path p = write_preset("small.json.in", kSmallPreset);
  const fs::path out = dir_ / "surface";
  const Result r = run("generate " + p.string() + " -q -o " + out.string() +
                       " --formats png16,splat,biomes,scatter --preview biomes");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* f : {"small_splat0.png", "small_splat1.png", "small_layer_grass.png",
                        "small_layer_rock.png", "small_splat_preview.png", "small_biomes.png",
                        "small_biomes.json", "small_scatter.csv", "small_scatter_unity.csv",
                        "small_scatter.json", "small_preview.png", "small.json"}) {
    EXPECT_TRUE(fs::exists(out / f)) << f;
  }
  std::ifstream csv(out / "small_scatter.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "x,y,z,yaw,scale_xz,scale_y,species");
  std::ifstream sidecar(out / "small.json");
  const std::string text((std::istreambuf_iterator<char>(sidecar)), std::istreambuf_iterator<char>());
  for (const char* fmt : {"splat_unity_png", "splat_unreal_png", "biome_id_png", "scatter_csv",
                          "scatter_manifest_json", "biome_preview_png"}) {
    EXPECT_NE(text.find(fmt), std::string::npos) << fmt;
  }
  // Same bytes on one thread.
  const fs::path out1 = dir_ / "surface1";
  ASSERT_EQ(run("generate " + p.string() + " -q --threads 1 -o " + out1.string() +
                " --formats splat,scatter").code, 0);
  for (const char* f : {"small_splat0.png", "small_scatter.csv"}) {
    std::ifstream a(out / f, std::ios::binary), b(out1 / f, std::ios::binary);
    const std::string sa((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
    const std::string sb((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(!sa.empty() && sa == sb) << f;
  }
}

TEST_F(CliTest, SurfaceBadInputExitsTwo) {
  const fs::path p = write_preset("small.json.in", kSmallPreset);
  const std::string pre = "generate " + p.string() + " ";
  expect_failure(pre + "--formats scatter --preview sketch", "--preview: unknown mode 'sketch'");
  expect_failure(pre + "--formats scatter --set 'surface={\"biomes\":[]}'", "empty biome table");
  expect_failure(pre + "--formats splat --set 'surface={\"species\":[{\"name\":\"t\",\"min_distance_m\":-1}],\"biomes\":[{\"name\":\"a\"}]}'",
                 "surface.species[0].min_distance_m: -1 is out of range");
}

}  // namespace terrane
