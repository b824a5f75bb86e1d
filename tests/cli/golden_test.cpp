// Byte goldens of `terrane generate`: every file a set of representative runs writes (height
// maps, masks, meshes, tiles, engine targets, surface maps, scatter, sidecars), by FNV-1a 64.
// These pin the CLI's output across refactorings (docs/DESIGN.md §1: same preset and seed, same
// bytes). When an output changes on purpose, the failure message prints the new table.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/run_command.hpp"
#include "terrane/core.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

const char* kCarvedPreset = R"({
  "name": "small",
  "seed": 5,
  "world": { "cell_size_m": 2.0, "height_min_m": -50, "height_max_m": 250, "size": 65 },
  "post": [{"op": "graph", "river_area_m2": 400, "output": "carve",
      "nodes": {"h": {"type": "input", "name": "height"}, "r": {"type": "input", "name": "river"},
                "r4": {"type": "mul", "a": "r", "b": 4},
                "carve": {"type": "sub", "a": "h", "b": "r4"}}}],
  "graph": {
    "output": "h",
    "nodes": { "h": { "type": "opensimplex2", "fractal": "fbm", "octaves": 4, "frequency": 0.01 } }
  }
})";

struct Case {
  const char* name;
  std::string args;  // after "generate"; {preset} is replaced by the carved preset's path
  std::map<std::string, std::string> files;  // file name -> FNV-1a 64 as 16 hex digits
};

std::string hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

std::string file_hash(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  return hex(hash_bytes(bytes.data(), bytes.size()));
}

// Runs in `dir` with a relative output directory: the sidecar's warnings name the file as given.
int run_cli(const fs::path& dir, const std::string& args, std::string& out) {
  const test::CommandResult r = test::run_command(
      "cd '" + dir.string() + "' && " + std::string(TERRANE_CLI_PATH) + " " + args + " 2>&1");
  out = r.out;
  return r.code;
}

// clang-format off
const Case kCases[] = {
#include "golden_cases.inc"
};
// clang-format on

TEST(CliGolden, EveryOutputFileIsByteIdentical) {
  const fs::path root =
      fs::temp_directory_path() / ("terrane_golden_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path preset = root / "carved.json";
  std::ofstream(preset) << kCarvedPreset;
  std::string table;
  bool all_ok = true;
  for (const Case& c : kCases) {
    const fs::path out = root / c.name;
    std::string args = c.args;
    if (const std::size_t at = args.find("{preset}"); at != std::string::npos) {
      args.replace(at, 8, preset.string());
    }
    std::string log;
    ASSERT_EQ(run_cli(root, "generate " + args + " -q -o " + c.name, log), 0) << c.name << "\n"
                                                                              << log;
    std::map<std::string, std::string> got;
    for (const auto& e : fs::directory_iterator(out)) {
      got[e.path().filename().string()] = file_hash(e.path());
    }
    EXPECT_EQ(got, c.files) << c.name << ": " << args;
    all_ok = all_ok && got == c.files;
    std::string quoted;
    for (char ch : c.args) quoted += ch == '"' ? std::string("\\\"") : std::string(1, ch);
    table += "    {\"" + std::string(c.name) + "\", \"" + quoted + "\", {\n";
    for (const auto& [file, h] : got) table += "        {\"" + file + "\", \"" + h + "\"},\n";
    table += "    }},\n";
  }
  if (!all_ok) ADD_FAILURE() << "current table (golden_cases.inc):\n" << table;
  fs::remove_all(root);
}

}  // namespace
}  // namespace terrane
