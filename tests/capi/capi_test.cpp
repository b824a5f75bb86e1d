// The C API against the C++ library: the same bytes for the same region, and every function's
// answer to bad arguments (a status and a message; never a crash). tests/capi/CMakeLists.txt.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "terrane/graph.hpp"
#include "terrane/preset.hpp"
#include "terrane/terrane.h"
#include "terrane/world.hpp"

namespace {

struct PresetHandle {
  terrane_preset* p = nullptr;
  explicit PresetHandle(const char* name, std::vector<const char*> overrides = {}) {
    const terrane_status s = terrane_preset_load(name, overrides.data(), overrides.size(), &p);
    EXPECT_EQ(s, TERRANE_OK) << terrane_last_error();
  }
  ~PresetHandle() { terrane_preset_free(p); }
};

std::vector<float> cpp_heights(const terrane::Preset& preset, const terrane::GridSpec& grid) {
  std::vector<float> out(grid.sample_count());
  terrane::evaluate(terrane::compile(preset), grid, out);
  return out;
}

TEST(CApi, VersionAndStatusNames) {
  EXPECT_STREQ(terrane_version(), "0.1.0");
  EXPECT_EQ(terrane_version_number(), 100u);
  EXPECT_STREQ(terrane_status_name(TERRANE_OK), "ok");
  EXPECT_STREQ(terrane_status_name(TERRANE_BUFFER_TOO_SMALL), "buffer_too_small");
  EXPECT_STREQ(terrane_status_name(99), "unknown");
  EXPECT_STREQ(terrane_status_name(-1), "unknown");
}

TEST(CApi, BuiltinPresetsAreTheLibrarysOwn) {
  const std::vector<std::string> names = terrane::builtin_preset_names();
  ASSERT_EQ(terrane_builtin_preset_count(), names.size());
  for (std::size_t k = 0; k < names.size(); ++k) {
    EXPECT_EQ(terrane_builtin_preset_name(k), names[k]);
  }
  EXPECT_EQ(terrane_builtin_preset_name(names.size()), nullptr);
}

TEST(CApi, PresetInfoAndJsonMatchTheCppPreset) {
  PresetHandle h("alpine", {"seed=42", "world.cell_size_m=2"});
  const terrane::Preset cpp =
      terrane::load_preset("alpine", std::vector<std::string>{"seed=42", "world.cell_size_m=2"});
  terrane_preset_info info{};
  ASSERT_EQ(terrane_preset_get_info(h.p, &info), TERRANE_OK);
  EXPECT_EQ(info.seed, 42u);
  EXPECT_EQ(info.hash, cpp.hash);
  EXPECT_EQ(info.cell_size_m, 2.0);
  EXPECT_EQ(info.size, cpp.world.size);
  EXPECT_EQ(info.splat_layers, int(cpp.surface.layers.size()));
  EXPECT_EQ(info.species, int(cpp.surface.species.size()));
  EXPECT_STREQ(terrane_preset_name(h.p), "alpine");
  ASSERT_GT(info.species, 0);
  EXPECT_EQ(terrane_preset_species_name(h.p, 0), cpp.surface.species[0].name);
  EXPECT_EQ(terrane_preset_species_name(h.p, std::size_t(info.species)), nullptr);
  EXPECT_EQ(terrane_preset_layer_name(h.p, 0), cpp.surface.layers[0].name);

  std::size_t n = 0;
  EXPECT_EQ(terrane_preset_json(h.p, nullptr, 0, &n), TERRANE_BUFFER_TOO_SMALL);
  EXPECT_EQ(n, cpp.canonical_json.size());
  std::string text(n, '\0');
  ASSERT_EQ(terrane_preset_json(h.p, text.data(), text.size(), &n), TERRANE_OK);
  EXPECT_EQ(text, cpp.canonical_json);

  // The canonical JSON parses back to the same preset.
  terrane_preset* again = nullptr;
  ASSERT_EQ(terrane_preset_parse(text.data(), text.size(), "round trip", nullptr, 0, &again),
            TERRANE_OK)
      << terrane_last_error();
  terrane_preset_info info2{};
  ASSERT_EQ(terrane_preset_get_info(again, &info2), TERRANE_OK);
  EXPECT_EQ(info2.hash, info.hash);
  terrane_preset_free(again);
}

TEST(CApi, HeightsAreTheCppHeightsBitForBit) {
  PresetHandle h("default");
  const terrane::Preset cpp = terrane::load_preset("default");
  // Off the lattice: sample (i, j) at x0 + i * cell.
  {
    terrane::GridSpec g;
    g.width = 97;
    g.height = 61;
    g.spacing_m = 1.5;
    g.origin_x_m = 1000.25;
    g.origin_z_m = -2000.75;
    std::vector<float> c(g.sample_count());
    ASSERT_EQ(terrane_heights(h.p, g.origin_x_m, g.origin_z_m, g.width, g.height, 1.5, 0, c.data(),
                              c.size(), nullptr),
              TERRANE_OK)
        << terrane_last_error();
    const std::vector<float> expected = cpp_heights(cpp, g);
    EXPECT_EQ(0, std::memcmp(c.data(), expected.data(), c.size() * sizeof(float)));
  }
  // On the lattice: the world's samples (index offsets), as the chunks have them.
  {
    terrane::GridSpec g;
    g.width = 130;
    g.height = 66;
    g.spacing_m = 2.0;
    g.index_x0 = -64;
    g.index_z0 = 4096;
    std::vector<float> c(g.sample_count());
    ASSERT_EQ(terrane_heights(h.p, -128.0, 8192.0, g.width, g.height, 2.0, 1, c.data(), c.size(),
                              nullptr),
              TERRANE_OK);
    const std::vector<float> expected = cpp_heights(cpp, g);
    EXPECT_EQ(0, std::memcmp(c.data(), expected.data(), c.size() * sizeof(float)));
  }
}

TEST(CApi, HeightsOnTheLatticeAreTheStreamedChunksVertices) {
  PresetHandle h("default");
  const terrane::Preset cpp = terrane::load_preset("default");
  terrane::ChunkSettings settings;
  settings.cells = 32;
  const terrane::ChunkGenerator gen(cpp, settings);
  terrane::ChunkData chunk;
  const terrane::ChunkKey key{3, -2, 1};  // level 1: the vertices are every second cell
  gen.generate(key, {0, 0, 0, 0}, chunk);
  const double side = gen.chunk_size_m(1);
  std::vector<float> c(33 * 33);
  ASSERT_EQ(terrane_heights(h.p, 3 * side, -2 * side, 33, 33, 2.0 * cpp.world.cell_size_m, 0,
                            c.data(), c.size(), nullptr),
            TERRANE_OK);
  for (int j = 0; j <= 32; ++j) {
    for (int i = 0; i <= 32; ++i) {
      ASSERT_EQ(c[std::size_t(j * 33 + i)], chunk.heights.at(i + 1, j + 1)) << i << "," << j;
    }
  }
}

TEST(CApi, HeightsAreSeamlessAndIndependentOfThreads) {
  PresetHandle h("canyons");
  std::vector<float> whole(200 * 120), left(100 * 120), right(100 * 120), one(200 * 120);
  ASSERT_EQ(terrane_heights(h.p, 64, 128, 200, 120, 4, 0, whole.data(), whole.size(), nullptr),
            TERRANE_OK);
  ASSERT_EQ(terrane_heights(h.p, 64, 128, 200, 120, 4, 1, one.data(), one.size(), nullptr),
            TERRANE_OK);
  ASSERT_EQ(terrane_heights(h.p, 64, 128, 100, 120, 4, 2, left.data(), left.size(), nullptr),
            TERRANE_OK);
  ASSERT_EQ(
      terrane_heights(h.p, 64 + 400, 128, 100, 120, 4, 2, right.data(), right.size(), nullptr),
      TERRANE_OK);
  EXPECT_EQ(0, std::memcmp(whole.data(), one.data(), whole.size() * sizeof(float)));
  for (int j = 0; j < 120; ++j) {
    EXPECT_EQ(0, std::memcmp(&whole[std::size_t(j * 200)], &left[std::size_t(j * 100)], 400));
    EXPECT_EQ(0,
              std::memcmp(&whole[std::size_t(j * 200 + 100)], &right[std::size_t(j * 100)], 400));
  }
}

TEST(CApi, QueriesAreTheCppQueries) {
  PresetHandle h("alpine");
  const terrane::Preset cpp = terrane::load_preset("alpine");
  const terrane::TerrainQuery q(std::make_shared<const terrane::ChunkGenerator>(cpp));
  terrane_query* cq = nullptr;
  ASSERT_EQ(terrane_query_create(h.p, &cq), TERRANE_OK);
  for (const auto& [x, z] : {std::pair{0.3, 0.7}, {1234.5, -987.25}, {1e8 + 0.5, -1e8}}) {
    double y = 0.0;
    ASSERT_EQ(terrane_query_height(cq, x, z, &y), TERRANE_OK);
    EXPECT_EQ(y, q.height_at(x, z));
    float n[3];
    ASSERT_EQ(terrane_query_normal(cq, x, z, n), TERRANE_OK);
    const auto expected = q.normal_at(x, z);
    EXPECT_EQ(n[0], expected[0]);
    EXPECT_EQ(n[1], expected[1]);
    EXPECT_EQ(n[2], expected[2]);
  }
  const double origin[3] = {10.0, 3000.0, 20.0}, down[3] = {0.1, -1.0, 0.05};
  int32_t hit = 0;
  terrane_ray_hit rh{};
  ASSERT_EQ(terrane_query_raycast(cq, origin, down, 10000.0, &hit, &rh), TERRANE_OK);
  const auto expected = q.raycast(10.0, 3000.0, 20.0, 0.1, -1.0, 0.05, 10000.0);
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(hit, 1);
  EXPECT_EQ(rh.distance_m, expected->distance_m);
  EXPECT_EQ(rh.y_m, expected->y_m);
  const double up[3] = {0.0, 1.0, 0.0};
  ASSERT_EQ(terrane_query_raycast(cq, origin, up, 100.0, &hit, nullptr), TERRANE_OK);
  EXPECT_EQ(hit, 0);
  terrane_query_free(cq);
}

TEST(CApi, ScatterOverARectangleIsTheUnionOfItsHalvesInsideIt) {
  // 2 m cells: 256 m chunks (each scatter call generates the scatter of the chunks it touches).
  PresetHandle h("default", {"world.cell_size_m=2"});
  std::size_t n = 0;
  ASSERT_EQ(terrane_scatter(h.p, -100, -50, 156, 206, nullptr, 0, &n), TERRANE_BUFFER_TOO_SMALL);
  ASSERT_GT(n, 10u);
  std::vector<terrane_instance> all(n);
  ASSERT_EQ(terrane_scatter(h.p, -100, -50, 156, 206, all.data(), all.size(), &n), TERRANE_OK);
  std::size_t a = 0, b = 0;
  ASSERT_EQ(terrane_scatter(h.p, -100, -50, 28, 206, nullptr, 0, &a), TERRANE_BUFFER_TOO_SMALL);
  ASSERT_EQ(terrane_scatter(h.p, 28, -50, 156, 206, nullptr, 0, &b), TERRANE_BUFFER_TOO_SMALL);
  EXPECT_EQ(a + b, n);
  terrane_preset_info info{};
  ASSERT_EQ(terrane_preset_get_info(h.p, &info), TERRANE_OK);
  terrane_query* q = nullptr;
  ASSERT_EQ(terrane_query_create(h.p, &q), TERRANE_OK);
  for (const terrane_instance& s : all) {
    EXPECT_GE(s.x_m, -100.0);
    EXPECT_LT(s.x_m, 156.0);
    EXPECT_GE(s.z_m, -50.0);
    EXPECT_LT(s.z_m, 206.0);
    EXPECT_GE(s.species, 0);
    EXPECT_LT(s.species, info.species);
    double y = 0.0;
    ASSERT_EQ(terrane_query_height(q, s.x_m, s.z_m, &y), TERRANE_OK);
    EXPECT_NEAR(s.y_m, y, 1e-3 * (1.0 + std::abs(y)));  // float of the same triangle
  }
  terrane_query_free(q);
}

TEST(CApi, BakeWritesWhatGenerateWrites) {
  PresetHandle h("default");
  const auto dir = std::filesystem::temp_directory_path() / "terrane_capi_bake";
  std::filesystem::remove_all(dir);
  terrane_bake_options o;
  terrane_bake_options_init(&o);
  const std::string out_dir = dir.string();
  o.out_dir = out_dir.c_str();
  o.formats = "png16,exr";
  o.size = 65;
  o.cell_m = 4.0;
  terrane_bake_result r{};
  ASSERT_EQ(terrane_bake(h.p, &o, &r), TERRANE_OK) << terrane_last_error();
  EXPECT_EQ(r.files, 3u);  // png, exr, sidecar
  EXPECT_EQ(r.width, 65);
  EXPECT_TRUE(std::filesystem::exists(dir / "default.png"));
  EXPECT_TRUE(std::filesystem::exists(dir / "default.json"));
  o.formats = "png16,tiff";
  EXPECT_EQ(terrane_bake(h.p, &o, &r), TERRANE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(terrane_last_error()).find("--formats: unknown format 'tiff'"),
            std::string::npos)
      << terrane_last_error();
  std::filesystem::remove_all(dir);
}

TEST(CApi, NavPathWalksFromOnePointToTheOther) {
  PresetHandle h("default");
  terrane_nav_agent agent;
  terrane_nav_agent_init(&agent);
  std::vector<double> points(3 * 1024);
  std::size_t n = 0;
  terrane_path_result r{};
  ASSERT_EQ(terrane_nav_path(h.p, &agent, 10, 10, 60, 40, 0, 0, points.data(), 1024, &n, &r),
            TERRANE_OK)
      << terrane_last_error();
  ASSERT_TRUE(r.status == TERRANE_PATH_OK || r.status == TERRANE_PATH_PARTIAL) << r.status;
  ASSERT_GE(n, 2u);
  EXPECT_NEAR(points[0], 10.0, 1.0);
  EXPECT_NEAR(points[2], 10.0, 1.0);
  EXPECT_GE(r.length_m, std::hypot(50.0, 30.0) - 1.0);
  // Too small a buffer: the count, no points.
  double one[3] = {-1, -1, -1};
  EXPECT_EQ(terrane_nav_path(h.p, nullptr, 10, 10, 60, 40, 0, 0, one, 1, &n, &r),
            TERRANE_BUFFER_TOO_SMALL);
  EXPECT_EQ(one[0], -1.0);
}

}  // namespace
