// The bake module: bake() writes byte for byte what `terrane generate` writes for the same
// request (the CLI is a thin layer over it), its report lists exactly the files it wrote, and a
// bad request is refused with a precise message before any file or directory exists.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "support/run_command.hpp"
#include "terrane/bake.hpp"
#include "terrane/graph.hpp"
#include "terrane/preset.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

using test::kSmallPreset;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// File name -> bytes of every regular file in `dir`.
std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    files[e.path().filename().string()] = read_bytes(e.path());
  }
  return files;
}

struct CliRun {
  int code = -1;
  std::string out, err;
};

// Runs `terrane generate <args>` in `cwd` (relative output directories then name files as the
// library call made from the same directory does, warnings included).
CliRun run_cli(const fs::path& cwd, const std::string& args) {
  const fs::path err_file = cwd / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && " + std::string(TERRANE_CLI_PATH) +
                          " generate " + args + " 2>'" + err_file.string() + "'";
  CliRun r;
  const test::CommandResult run = test::run_command(cmd);
  r.code = run.code;
  r.out = run.out;
  r.err = read_bytes(err_file);
  fs::remove(err_file);
  return r;
}

// bake() with the working directory set to `cwd` for the call.
BakeReport bake_in(const fs::path& cwd, const BakeRequest& request, const ExecContext& ctx = {}) {
  const fs::path old = fs::current_path();
  fs::current_path(cwd);
  try {
    BakeReport r = bake(request, ctx);
    fs::current_path(old);
    return r;
  } catch (...) {
    fs::current_path(old);
    throw;
  }
}

class BakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("terrane_bake_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    small_ = root_ / "small.json";
    std::ofstream(small_) << kSmallPreset;
  }
  void TearDown() override { fs::remove_all(root_); }

  // The CLI with `args` and bake() with `request` (out_dir "out"), each from its own working
  // directory: the same files with the same bytes, the warnings the CLI printed, and the files
  // its summary line lists, in order.
  BakeReport expect_same_as_cli(const std::string& name, const std::string& args,
                                BakeRequest request) {
    SCOPED_TRACE(name + ": " + args);
    const fs::path cli_dir = root_ / name / "cli", lib_dir = root_ / name / "lib";
    fs::create_directories(cli_dir);
    fs::create_directories(lib_dir);
    const CliRun cli = run_cli(cli_dir, args + " -q -o out");
    EXPECT_EQ(cli.code, 0) << cli.out << cli.err;
    request.out_dir = "out";
    const BakeReport report = bake_in(lib_dir, request);

    const auto cli_files = tree(cli_dir / "out"), lib_files = tree(lib_dir / "out");
    EXPECT_FALSE(cli_files.empty());
    std::vector<std::string> cli_names, lib_names;
    for (const auto& [file, bytes] : cli_files) cli_names.push_back(file);
    for (const auto& [file, bytes] : lib_files) lib_names.push_back(file);
    EXPECT_EQ(lib_names, cli_names);
    for (const auto& [file, bytes] : cli_files) {
      const auto it = lib_files.find(file);
      if (it == lib_files.end()) continue;
      EXPECT_TRUE(it->second == bytes)
          << file << " differs (" << it->second.size() << " vs " << bytes.size() << " bytes)";
    }

    std::string warnings;
    for (const std::string& w : report.warnings) warnings += "warning: " + w + "\n";
    EXPECT_EQ(warnings, cli.err);
    std::string listed;
    for (const BakedFile& f : report.files) {
      listed += (listed.empty() ? "" : ", ") + (fs::path("out") / f.name).string();
    }
    EXPECT_NE(cli.out.find("; wrote " + listed + "\n"), std::string::npos)
        << cli.out << "\nexpected: " << listed;
    expect_report_matches_directory(report, lib_dir / "out");
    return report;
  }

  // The report lists exactly the files in `dir`, with their sizes; the sidecar comes last and
  // lists all the others in the same order.
  static void expect_report_matches_directory(const BakeReport& report, const fs::path& dir) {
    std::map<std::string, std::uintmax_t> listed, present;
    for (const BakedFile& f : report.files) listed[f.name] = f.bytes;
    EXPECT_EQ(listed.size(), report.files.size()) << "a file is listed twice";
    for (const auto& e : fs::directory_iterator(dir)) {
      present[e.path().filename().string()] = fs::file_size(e.path());
    }
    EXPECT_EQ(listed, present);
    ASSERT_FALSE(report.files.empty());
    const BakedFile& sidecar = report.files.back();
    EXPECT_EQ(sidecar.name, report.name + ".json");
    EXPECT_EQ(sidecar.format, "sidecar_json");
    std::ifstream in(dir / sidecar.name);
    const nlohmann::json j = nlohmann::json::parse(in);
    ASSERT_EQ(j["files"].size() + 1, report.files.size());
    std::uintmax_t total = 0;
    for (std::size_t k = 0; k < report.files.size(); ++k) {
      total += report.files[k].bytes;
      if (k + 1 == report.files.size()) break;
      EXPECT_EQ(j["files"][k]["path"], report.files[k].name);
      EXPECT_EQ(j["files"][k]["format"], report.files[k].format);
    }
    EXPECT_EQ(report.total_bytes(), total);
    EXPECT_EQ(j["width"], report.grid.width);
    EXPECT_EQ(j["seed"].get<std::uint64_t>(), report.seed);
    EXPECT_EQ(j["preset"], report.preset_name);
  }

  // A bad request: Error of `category` whose message contains `needle`; nothing written, the
  // output directory not even created.
  void expect_refused(const BakeRequest& request, ErrorCategory category,
                      const std::string& needle) {
    try {
      bake(request);
      ADD_FAILURE() << "no error; expected '" << needle << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), category) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << "missing '" << needle << "' in: " << e.what();
    }
    EXPECT_FALSE(fs::exists(request.out_dir)) << request.out_dir << " was created";
  }

  fs::path root_, small_;
};

TEST_F(BakeTest, AllFormatsAreByteIdenticalToTheCli) {
  BakeRequest r;
  r.preset = "default";
  r.size = 65;
  r.formats = parse_formats(
      "png16,raw16,exr,normals,preview,rivers,lakes,flow,glb,obj,splat,"
      "biomes,scatter");
  EXPECT_EQ(r.formats.size(), 13u);
  expect_same_as_cli("all",
                     "default --size 65 --formats png16,raw16,exr,normals,preview,rivers,lakes,"
                     "flow,glb,obj,splat,biomes,scatter",
                     r);
}

TEST_F(BakeTest, PerspectiveIsByteIdenticalToTheCliAndListedInTheSidecar) {
  BakeRequest r;
  r.preset = "islands";
  r.size = 129;
  r.formats = parse_formats("perspective,preview");
  r.perspective_width = 320;
  r.perspective_height = 200;
  r.camera = parse_camera("-500,900,1500,-40,-25,50");
  const BakeReport report =
      expect_same_as_cli("perspective",
                         "islands --size 129 --formats perspective,preview "
                         "--perspective-size 320x200 --camera -500,900,1500,-40,-25,50",
                         r);
  bool found = false;
  for (const BakedFile& f : report.files) {
    if (f.name == "islands_perspective.png") found = f.format == "perspective_png";
  }
  EXPECT_TRUE(found);
  // The auto camera and default size.
  BakeRequest a;
  a.preset = "islands";
  a.size = 65;
  a.formats = parse_formats("perspective");
  expect_same_as_cli("perspective_auto", "islands --size 65 --formats perspective --camera auto",
                     a);
}

// Issue 12, defect 1: a preset's name is a file stem; a name that would put outputs outside the
// output directory (or hide them, or smuggle a control byte) is refused before anything is
// written, and nothing appears next to the directory either.
TEST_F(BakeTest, NameThatEscapesTheOutputDirectoryIsRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"../../escaped", "it contains a path separator"},
      {"/abs/path/x", "it contains a path separator"},
      {"a\\b", "it contains a path separator"},
      {".", "it starts with '.'"},
      {"..", "it starts with '.'"},
      {".hidden", "it starts with '.'"},
      {"-rf", "it starts with '-'"},
      {"trailing.", "it ends with '.' or a space"},
      {std::string("nul\0x", 5), "it contains a control character"},
      {"tab\tx", "it contains a control character"},
      {std::string(101, 'a'), "it is 101 bytes long"},
  };
  for (const auto& [name, why] : cases) {
    BakeRequest r;
    r.preset = "islands";
    r.size = 33;
    r.out_dir = root_ / "named" / "out";
    nlohmann::json value = name;
    r.overrides = {"name=" + value.dump()};
    expect_refused(r, ErrorCategory::invalid_argument, "cannot name output files: " + why);
    EXPECT_FALSE(fs::exists(root_ / "named")) << name;
  }
  // What is allowed: letters, digits, spaces inside, dots inside, UTF-8.
  BakeRequest ok;
  ok.preset = "islands";
  ok.size = 33;
  ok.formats = parse_formats("png16");
  ok.out_dir = root_ / "named_ok";
  ok.overrides = {"name=\"my map v1.2 \u00e9t\u00e9\""};
  const BakeReport report = bake(ok);
  EXPECT_EQ(report.name, "my map v1.2 \xc3\xa9t\xc3\xa9");
  EXPECT_TRUE(fs::exists(ok.out_dir / (report.name + ".png")));
  // The message shows a control byte escaped, on one line.
  BakeRequest nul;
  nul.preset = "islands";
  nul.out_dir = root_ / "nul";
  nul.overrides = {"name=\"a\\u0001b\""};
  expect_refused(nul, ErrorCategory::invalid_argument, "name: 'a\\x01b' cannot name output files");
}

// Issue 12, defect 7: origins beyond the world's precise range are refused with the range.
TEST_F(BakeTest, OriginBeyondThePreciseWorldRangeIsRefused) {
  BakeRequest r;
  r.preset = "islands";
  r.size = 33;
  r.out_dir = root_ / "far";
  r.origin_x_m = 1e300;
  r.origin_z_m = 0.0;
  expect_refused(r, ErrorCategory::invalid_argument,
                 "--origin: the map's x runs from 1e+300 to 1e+300 m, outside the precise world "
                 "range [-1099511627776, 1099511627776] m");
  r.origin_x_m = 1e18;
  r.origin_z_m = 1e18;
  expect_refused(r, ErrorCategory::invalid_argument, "--origin: the map's x runs from 1e+18");
  r.origin_x_m = 0.0;
  r.origin_z_m = 1099511627776.0 - 100.0;  // the far edge (32 cells of 30 m) crosses the limit
  expect_refused(r, ErrorCategory::invalid_argument, "--origin: the map's z runs from");
  r.origin_z_m = 1.0e12;  // inside: generated
  r.formats = parse_formats("png16");
  EXPECT_NO_THROW((void)bake(r));
}

TEST_F(BakeTest, PerspectiveOptionsNeedTheFormat) {
  BakeRequest r;
  r.preset = "islands";
  r.size = 65;
  r.out_dir = root_ / "refused";
  r.camera = Camera{0, 100, 0, 0, -30, 40};
  expect_refused(r, ErrorCategory::invalid_argument, "--camera needs the perspective output");
  r.camera.reset();
  r.perspective_width = 640;
  expect_refused(r, ErrorCategory::invalid_argument,
                 "--perspective-size needs the perspective output");
  r.formats = parse_formats("perspective");
  r.perspective_width = 9000;
  expect_refused(r, ErrorCategory::invalid_argument,
                 "--perspective-size: width 9000 is outside the allowed range 16..8192");
  const CliRun cli = run_cli(root_, "islands --size 65 --formats perspective --camera 1,2,3");
  EXPECT_EQ(cli.code, 2);
  EXPECT_NE(cli.err.find("error: --camera: expected 'auto' or x,y,z,yaw,pitch[,fov]"),
            std::string::npos)
      << cli.err;
}

TEST_F(BakeTest, TilesAndEngineTargetsAreByteIdenticalToTheCli) {
  // Unity snaps 100 up to 129 (a warning); 2 x 2 simplified tiles at lod 1.
  BakeRequest r;
  r.preset = "islands";
  r.size = 100;
  r.formats = parse_formats("png16,glb,obj");
  r.tiles = 2;
  r.lod = 1;
  r.simplify_error_m = 0.5;
  r.engine = parse_engine("unity");
  const BakeReport unity =
      expect_same_as_cli("unity_tiles",
                         "islands --size 100 --formats png16,glb,obj --tiles 2 --lod 1 "
                         "--simplify-error 0.5 --engine unity",
                         r);
  ASSERT_EQ(unity.warnings.size(), 1u);
  EXPECT_NE(unity.warnings[0].find("snapped to 129 x 129"), std::string::npos);
  EXPECT_EQ(unity.grid.width, 129);
  ASSERT_TRUE(unity.meshes.has_value());
  EXPECT_EQ(unity.meshes->tiles, 2);
  EXPECT_TRUE(unity.meshes->simplified);

  BakeRequest u;
  u.preset = "dunes";
  u.width = 80;
  u.height = 60;
  u.origin_x_m = 1000.0;
  u.origin_z_m = -500.0;
  u.cell_m = 2.0;
  u.formats = parse_formats("png16,raw16,preview");
  u.engine = Engine::unreal;
  expect_same_as_cli("unreal",
                     "dunes --width 80 --height 60 --origin 1000,-500 --cell 2 --formats "
                     "png16,raw16,preview --engine unreal",
                     u);

  BakeRequest g;
  g.preset = "canyons";
  g.size = 65;
  g.formats = parse_formats("preview,scatter");
  g.preview = PreviewMode::biomes;
  g.engine = Engine::godot;
  expect_same_as_cli("godot",
                     "canyons --size 65 --engine godot --preview biomes --formats "
                     "preview,scatter",
                     g);
}

TEST_F(BakeTest, LoadedPresetWithOverridesErodeAndRawWarningMatchesTheCli) {
  // A Preset already loaded takes the same overrides as loading it by path with them: the same
  // name and preset hash in the sidecar. Size 50 makes write_raw16 warn (the path is in it).
  BakeRequest r;
  r.preset = load_preset(small_.string());
  r.overrides = {"graph.nodes.h.octaves=3"};
  r.seed = 9;
  r.size = 50;
  r.erode = parse_erode("blur,thermal");
  r.river_area_m2 = 5000.0;
  r.formats = parse_formats("png16,raw16,rivers");
  const BakeReport report =
      expect_same_as_cli("loaded",
                         small_.string() +
                             " --set graph.nodes.h.octaves=3 --seed 9 --size 50 "
                             "--erode blur,thermal --river-area 5000 --formats "
                             "png16,raw16,rivers",
                         r);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.warnings[0].rfind("out/small.r16: size 50 x 50", 0), 0u) << report.warnings[0];
  EXPECT_EQ(report.seed, 9u);
  // The sidecars are equal, so is the hash; the overrides (erode included) are in it.
  EXPECT_NE(report.preset_hash, load_preset(small_.string()).hash);
}

TEST_F(BakeTest, ReportFactsAndProgress) {
  BakeRequest r;
  r.preset = small_.string();
  r.seed = 42;
  r.erode = {RegionOpKind::blur};
  r.out_dir = root_ / "facts" / "nested";
  std::mutex m;
  std::vector<double> fractions;
  ExecContext ctx{.threads = 2};
  ctx.progress = [&](double f) {
    std::lock_guard<std::mutex> lock(m);
    fractions.push_back(f);
  };
  const BakeReport report = bake(r, ctx);
  EXPECT_EQ(report.name, "small");
  EXPECT_EQ(report.preset_name, "small");
  EXPECT_EQ(report.seed, 42u);
  EXPECT_EQ(report.grid.width, 65);
  EXPECT_EQ(report.grid.spacing_m, 2.0);
  EXPECT_EQ(report.range.height_min_m, -50.0);
  EXPECT_EQ(report.range.height_max_m, 250.0);
  EXPECT_TRUE(report.warnings.empty());
  EXPECT_FALSE(report.meshes.has_value());
  EXPECT_LE(report.generation_s, report.total_s);
  ASSERT_EQ(report.files.size(), 3u);  // the default formats: png16, preview; the sidecar
  EXPECT_EQ(report.files[0].format, "png16");
  EXPECT_EQ(report.files[1].format, "preview_png");
  expect_report_matches_directory(report, r.out_dir);
  ASSERT_FALSE(fractions.empty());
  bool post_reported = false;
  for (double f : fractions) {
    EXPECT_GE(f, 0.0);
    EXPECT_LE(f, 1.0);
    post_reported = post_reported || f > 0.25;
  }
  EXPECT_TRUE(post_reported) << "the post operations report (0.25, 1]";

  // Every stage that ran is timed, in order; the post operation and its kind are named.
  std::vector<std::string> stages;
  for (const StageTiming& t : report.stages) {
    stages.push_back(t.name);
    EXPECT_GE(t.wall_s, 0.0) << t.name;
    EXPECT_GE(t.cpu_s, 0.0) << t.name;
  }
  EXPECT_EQ(stages, (std::vector<std::string>{"checks", "graph", "post[0] blur", "hydrology",
                                              "height outputs", "sidecar, publish"}));

  // Meshes are summarised for the caller to print.
  BakeRequest mr;
  mr.preset = small_.string();
  mr.formats = {OutputFormat::glb};
  mr.tiles = 4;
  mr.out_dir = root_ / "facts" / "meshes";
  const BakeReport mesh_report = bake(mr);
  ASSERT_TRUE(mesh_report.meshes.has_value());
  EXPECT_EQ(mesh_report.meshes->tiles, 4);
  EXPECT_EQ(mesh_report.meshes->triangles_out, 64u * 64u * 2u);
  expect_report_matches_directory(mesh_report, mr.out_dir);
}

// Mesh tiles are built and written in parallel; the files, the manifest and the summary are the
// same bytes whatever the thread count.
TEST_F(BakeTest, ParallelTilesAreIdenticalForEveryThreadCount) {
  std::map<std::string, std::string> first;
  std::optional<BakeMeshSummary> first_summary;
  for (int threads : {1, 2, 5}) {
    BakeRequest r;
    r.preset = small_.string();
    r.formats = {OutputFormat::glb, OutputFormat::obj};
    r.tiles = 4;
    r.simplify_error_m = 0.5;
    r.out_dir = root_ / ("tiles_t" + std::to_string(threads));
    const BakeReport report = bake(r, ExecContext{.threads = threads});
    ASSERT_TRUE(report.meshes.has_value());
    auto files = tree(r.out_dir);
    ASSERT_EQ(files.size(), 4u * 4u * 2u + 2u);  // glb + obj per tile, the manifest, the sidecar
    if (threads == 1) {
      first = std::move(files);
      first_summary = report.meshes;
      continue;
    }
    EXPECT_TRUE(files == first) << threads << " threads";
    EXPECT_EQ(report.meshes->triangles_in, first_summary->triangles_in);
    EXPECT_EQ(report.meshes->triangles_out, first_summary->triangles_out);
    EXPECT_EQ(report.meshes->reached_error_m, first_summary->reached_error_m);
    std::vector<std::string> names;
    for (const BakedFile& f : report.files) names.push_back(f.name);
    EXPECT_EQ(names.front(), "small_x0_z0.glb");
    EXPECT_EQ(names[1], "small_x0_z0.obj");
    EXPECT_EQ(names[2], "small_x1_z0.glb");
  }
}

TEST_F(BakeTest, ParsersNameTheOptionAndTheAllowedValues) {
  const auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { parse_formats("png16,tiff"); }),
            "--formats: unknown format 'tiff' (allowed: png16, raw16, exr, normals, preview, "
            "rivers, lakes, flow, glb, obj, splat, biomes, scatter, stats, perspective)");
  EXPECT_EQ(message([] { parse_engine("cryengine"); }),
            "--engine: unknown engine 'cryengine' (allowed: unity, unreal, godot)");
  EXPECT_EQ(message([] { parse_preview_mode("sketch"); }),
            "--preview: unknown mode 'sketch' (allowed: relief, biomes)");
  EXPECT_NE(message([] { parse_erode("thermal,melt"); }).find("--erode: "), std::string::npos);
  EXPECT_EQ(parse_formats(",png16,,png16,exr,"),
            (OutputFormats{OutputFormat::png16, OutputFormat::exr}));
  EXPECT_TRUE(parse_formats("").empty());
  EXPECT_EQ(parse_engine(""), Engine::none);
  EXPECT_EQ(parse_erode("blur,,thermal"),
            (std::vector<RegionOpKind>{RegionOpKind::blur, RegionOpKind::thermal}));
  for (const OutputFormat f : parse_formats("png16,raw16,exr,normals,preview,rivers,lakes,flow,"
                                            "glb,obj,splat,biomes,scatter")) {
    EXPECT_EQ(parse_formats(to_string(f)), OutputFormats{f});
  }
}

// Names in `dir` (not following links), with a trailing "/" for directories.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string() + (e.is_directory() ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A pid no process has: a child that has exited and been reaped.
long gone_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return long(child);
}

// Issue 12, defect 10: memory, work, files and scatter instances are estimated from the request
// and refused up front, with the estimate and the cap in the message.
TEST_F(BakeTest, WorkAndMemoryBeyondTheBudgetAreRefusedUpFront) {
  BakeRequest r;
  r.preset = "islands";
  r.out_dir = root_ / "budget" / "out";
  BakeRequest bad = r;
  bad.size = 32768;
  expect_refused(bad, ErrorCategory::limit,
                 "the bake needs an estimated 27.56 GiB of memory (most for the map's 32768 x "
                 "32768 samples); the limit is 16.00 GiB (--max-memory)");
  bad = r;
  bad.size = 16385;
  bad.formats = parse_formats("obj");
  expect_refused(bad, ErrorCategory::limit,
                 "most for the meshes of 16385 x 16385 samples per tile");
  bad.tiles = 4;
  bad.max_memory_bytes = std::uint64_t{1} << 30;
  expect_refused(bad, ErrorCategory::limit, "the limit is 1.00 GiB");
  bad.max_memory_bytes = 1000;
  expect_refused(bad, ErrorCategory::invalid_argument,
                 "--max-memory: 0.00 GiB is outside the allowed range 0.0625 to 4096 GiB");
  // Simplification holds about 300 bytes per tile sample (meshoptimizer), a plain mesh 80: a
  // 4097² OBJ is estimated at 1.8 GiB, simplified at 6.4 GiB.
  bad = r;
  bad.size = 4097;
  bad.formats = parse_formats("obj");
  bad.max_memory_bytes = std::uint64_t{4} << 30;
  bad.simplify_error_m = 1.0;
  expect_refused(bad, ErrorCategory::limit, "most for the meshes of 4097 x 4097 samples per tile");
  bad = r;
  bad.size = 513;
  bad.formats = parse_formats("glb");
  bad.tiles = 256;
  expect_refused(bad, ErrorCategory::limit,
                 "--tiles 256: 65536 mesh files; a bake writes at most 1024");
  bad = r;
  bad.overrides = {R"(post=[{"op": "stream_power", "steps": 1000000}])"};
  expect_refused(bad, ErrorCategory::limit,
                 "post: the operations need an estimated 23.3 h on the reference machine (most: "
                 "stream_power: 1000000 steps on 1025 x 1025 samples, 23.3 h); at most 2.0 h");
  bad = r;  // two operations within their own limits, beyond the budget together
  bad.size = 8193;
  bad.overrides = {
      R"(post=[{"op": "thermal", "iterations": 100000}, {"op": "thermal", "iterations": 100000}])"};
  expect_refused(bad, ErrorCategory::limit,
                 "post: the operations need an estimated 11.2 h on the reference machine (most: "
                 "thermal: 100000 iterations on 8193 x 8193 samples, 5.6 h)");
  bad = r;
  bad.size = 2049;
  bad.formats = parse_formats("scatter");
  expect_refused(bad, ErrorCategory::limit,
                 "scatter: up to 358612992 instances on 61.44 x 61.44 km (the species' "
                 "density_per_m2 at their largest biome multiplier); at most 4194304 per bake");
  // The scatter's Poisson-disk blocks: a tiny min_distance_m on a small map.
  bad = r;
  bad.size = 65;
  bad.formats = parse_formats("scatter");
  bad.overrides = {
      R"(surface={"species": [{"name": "t", "min_distance_m": 0.001, "density_per_m2": 0}], "biomes": [{"name": "a"}]})"};
  expect_refused(bad, ErrorCategory::limit, "(most for the scatter (species min_distance_m");
  // Within the budget: baked.
  BakeRequest ok = r;
  ok.size = 65;
  ok.formats = parse_formats("png16");
  ok.max_memory_bytes = kMinBakeMemoryBytes * 2;
  EXPECT_NO_THROW((void)bake(ok));
}

// Issue 12, defect 5: a bake that fails after it has started writing leaves the directory
// exactly as it was: the older set, its sidecar, nothing staged.
TEST_F(BakeTest, FailedRunLeavesTheDirectoryAsItWas) {
  BakeRequest r;
  r.preset = small_.string();
  r.formats = parse_formats("png16,raw16,preview");
  r.out_dir = root_ / "out";
  (void)bake(r);
  // A directory where the new run's EXR goes: found only when the set is published, after
  // every other file of the run has been written.
  fs::create_directory(r.out_dir / "small.exr");
  const auto before = tree(r.out_dir);
  const auto names_before = listing(r.out_dir);

  BakeRequest again = r;
  again.seed = 99;  // different bytes in every file
  again.formats = parse_formats("png16,raw16,exr,preview,normals");
  try {
    (void)bake(again);
    ADD_FAILURE() << "a directory at an output name was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::io) << e.what();
    EXPECT_EQ(
        std::string(e.what()).rfind(
            (r.out_dir / "small.exr").string() + ": exists and is not a file (a directory)", 0),
        0U)
        << e.what();
  }
  EXPECT_EQ(listing(r.out_dir), names_before);
  EXPECT_EQ(tree(r.out_dir), before);

  // Without the obstacle the same run replaces the set, and nothing staged remains.
  fs::remove(r.out_dir / "small.exr");
  const BakeReport report = bake(again);
  EXPECT_EQ(listing(r.out_dir),
            (std::vector<std::string>{"small.exr", "small.json", "small.png", "small.r16",
                                      "small_normals.png", "small_preview.png"}));
  EXPECT_NE(read_bytes(r.out_dir / "small.png"), before.at("small.png"));
  EXPECT_EQ(report.files.size(), 6U);
}

// Issue 12, defect 1: a symlink at an output name is replaced by the file; its target is never
// written.
TEST_F(BakeTest, SymlinkAtAnOutputNameIsReplacedNotFollowed) {
  const fs::path victim = root_ / "victim.txt";
  std::ofstream(victim) << "keep me";
  const fs::path out = root_ / "out";
  fs::create_directories(out);
  fs::create_symlink(victim, out / "small.png");
  fs::create_symlink(victim, out / "small.json");
  BakeRequest r;
  r.preset = small_.string();
  r.formats = parse_formats("png16");
  r.out_dir = out;
  (void)bake(r);
  EXPECT_EQ(read_bytes(victim), "keep me");
  EXPECT_EQ(fs::symlink_status(out / "small.png").type(), fs::file_type::regular);
  EXPECT_EQ(fs::symlink_status(out / "small.json").type(), fs::file_type::regular);
  EXPECT_EQ(listing(out), (std::vector<std::string>{"small.json", "small.png"}));
}

// Issue 12, defect 12: what a killed run leaves (its staging directory, temporaries) is found by
// name and removed by the next bake into the directory, once that process is gone; what a
// running process has staged is left alone.
TEST_F(BakeTest, LeftoversOfAKilledRunAreRemovedByTheNextBake) {
  const fs::path out = root_ / "out";
  fs::create_directories(out);
  const std::string dead = std::to_string(gone_pid());
  const std::string alive = std::to_string(::getppid());
  fs::create_directories(out / (".terrane-staging-" + dead + "-00ff/.previous"));
  std::ofstream(out / (".terrane-staging-" + dead + "-00ff/small.exr")) << "half";
  std::ofstream(out / ("small.exr.terrane-tmp-" + dead + "-1234")) << "half";
  fs::create_directories(out / (".terrane-staging-" + alive + "-00ff"));
  std::ofstream(out / ("small.png.terrane-tmp-" + alive + "-1234")) << "busy";
  std::ofstream(out / "notes.txt") << "mine";
  BakeRequest r;
  r.preset = small_.string();
  r.formats = parse_formats("png16");
  r.out_dir = out;
  (void)bake(r);
  EXPECT_EQ(listing(out), (std::vector<std::string>{".terrane-staging-" + alive + "-00ff/",
                                                    "notes.txt", "small.json", "small.png",
                                                    "small.png.terrane-tmp-" + alive + "-1234"}));
}

TEST_F(BakeTest, BadRequestsAreRefusedBeforeAnyFileOrDirectory) {
  BakeRequest r;
  r.preset = small_.string();
  r.out_dir = root_ / "never" / "out";

  BakeRequest bad = r;
  bad.formats = {OutputFormat::png16, static_cast<OutputFormat>(99)};
  expect_refused(bad, ErrorCategory::invalid_argument, "--formats: invalid OutputFormat value 99");

  bad = r;
  bad.width = 64;
  expect_refused(bad, ErrorCategory::invalid_argument,
                 "--width and --height must be given together");
  bad = r;
  bad.height = 64;
  expect_refused(bad, ErrorCategory::invalid_argument,
                 "--width and --height must be given together");
  bad = r;
  bad.width = bad.height = 64;
  bad.size = 64;
  expect_refused(bad, ErrorCategory::invalid_argument,
                 "--size cannot be combined with --width/--height");

  bad = r;
  bad.formats = {OutputFormat::glb};
  bad.tiles = 3;
  expect_refused(bad, ErrorCategory::invalid_argument,
                 "--tiles 3 does not divide the map: 65 x 65 samples are 64 x 64");
  bad = r;
  bad.tiles = 2;
  expect_refused(bad, ErrorCategory::invalid_argument, "add glb and/or obj to --formats");
  bad = r;
  bad.erode = {RegionOpKind::thermal, RegionOpKind::graph};
  expect_refused(bad, ErrorCategory::invalid_argument, "--erode: 'graph' has no default");
  bad = r;
  bad.river_area_m2 = 0.0;
  expect_refused(bad, ErrorCategory::invalid_argument, "--river-area: 0 m^2 must be positive");
  bad = r;
  bad.engine = Engine::unreal;
  bad.size = 9000;
  expect_refused(bad, ErrorCategory::invalid_argument,
                 "larger than Unreal's largest recommended landscape size, 8129");
  bad = r;
  bad.size = 1000000;
  expect_refused(bad, ErrorCategory::invalid_argument, "1000000");
  bad = r;
  bad.overrides = {"graph.nodes.h.octaves=40"};
  expect_refused(bad, ErrorCategory::invalid_argument, "1..16");
  bad = r;
  bad.preset = "no_such_preset";
  expect_refused(bad, ErrorCategory::io, "no_such_preset: not a builtin preset");
  bad = r;
  bad.formats = {OutputFormat::scatter};
  bad.overrides = {R"(surface={"biomes":[]})"};
  expect_refused(bad, ErrorCategory::invalid_argument, "empty biome table");
  // Issue 12, defect 5: a surface output on a map too small for it is refused up front.
  bad = r;
  bad.width = bad.height = 1;
  bad.formats = parse_formats("splat,biomes,scatter");
  expect_refused(bad, ErrorCategory::invalid_argument,
                 "need a map of at least 2 x 2 samples (got 1 x 1)");
  bad = r;
  bad.out_dir = std::string("a\0b", 3);
  try {
    (void)bake(bad);
    ADD_FAILURE() << "an output directory with a NUL byte was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("-o: the output directory must be a non-empty path "
                                         "without NUL bytes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists("a"));

  // An output directory that cannot be created (below a regular file, even as root).
  const fs::path file = root_ / "plain";
  std::ofstream(file) << "x";
  bad = r;
  bad.out_dir = file / "sub";
  expect_refused(bad, ErrorCategory::io,
                 "output directory '" + (file / "sub").string() + "' cannot be created: ");
  EXPECT_EQ(read_bytes(file), "x");
  EXPECT_FALSE(fs::exists(root_ / "never"));
}

}  // namespace
}  // namespace terrane
