// A world's instance overrides and splat paint in a bake (issue 16): the scatter CSV is the
// procedural one without the felled instances, with the planted one standing on the exported
// mesh and a state column; the splat layers are the procedural ones except where the paint is,
// and wholly the painted layer in a full-strength stroke's core; the sidecar records both
// layers' hashes; a layer that does not fit the preset or the map is refused before any work.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/bake_files.hpp"
#include "support/expect_error.hpp"
#include "terrane/bake.hpp"
#include "terrane/edit.hpp"
#include "terrane/world.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

constexpr double kCellM = 30.0;  // the default preset's lattice
constexpr int kSide = 65;        // samples per side: 1920 m
constexpr double kOriginM = -32 * kCellM;

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

class WorldBakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            (std::string("terrane_world_bake_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  BakeRequest request(const std::string& dir) const {
    BakeRequest r;
    r.preset = preset_;
    r.width = kSide;
    r.height = kSide;
    r.origin_x_m = kOriginM;
    r.origin_z_m = kOriginM;
    r.formats = {OutputFormat::splat, OutputFormat::scatter};
    r.out_dir = root_ / dir;
    return r;
  }

  const std::vector<std::string> overrides_{"post=[]"};
  const Preset preset_ = load_preset("default", overrides_);
  fs::path root_;
};

TEST_F(WorldBakeTest, InstanceOverridesAndPaintReachTheScatterAndSplatOutputs) {
  ASSERT_EQ(preset_.world.cell_size_m, kCellM);
  const int layers = int(preset_.surface.layers.size());
  ASSERT_GE(layers, 2);
  ChunkSettings cs;
  cs.surface = true;
  const ChunkGenerator gen(preset_, cs);

  // Fell what stands within 300 m of (500, 500) (inside one chunk); plant the last species at
  // (-500, -600).
  InstanceEdits inst(gen.chunk_size_m(0));
  const std::vector<ScatterInstance> felled = gen.instances_near(500.0, 500.0, 300.0);
  ASSERT_GE(felled.size(), 3u);
  inst.remove(felled);
  ScatterInstance planted;
  planted.x_m = -500.0, planted.z_m = -600.0,
  planted.species = int(preset_.surface.species.size()) - 1;
  planted.yaw_deg = 15.0f;
  std::uint64_t planted_id = 0;
  inst.add(planted, 0.0, &planted_id);
  // Paint the last layer over a disc of 300 m at full strength (its core 240 m).
  SplatPaint paint(kCellM, 128, layers);
  SplatBrush b;
  b.layer = layers - 1;
  b.x_m = -450.0, b.z_m = 400.0, b.radius_m = 300.0, b.strength = 1.0, b.falloff_start = 0.8;
  ASSERT_FALSE(paint.apply(b).empty());

  const BakeReport base = bake(request("base"));
  BakeRequest edited_request = request("edited");
  edited_request.instance_edits = inst.snapshot();
  edited_request.paint = paint.snapshot();
  edited_request.edits_source = "test";
  const BakeReport edited = bake(edited_request);
  ASSERT_EQ(edited.grid.spacing_m, kCellM);

  // Scatter: the same rows (plus a state of 0) but the felled ones, then the planted one.
  const std::vector<test::Row> was = test::read_scatter_csv(root_ / "base" / "default_scatter.csv");
  const std::vector<test::Row> now = test::read_scatter_csv(
      root_ / "edited" / "default_scatter.csv", "x,y,z,yaw,scale_xz,scale_y,species,id,state");
  std::map<std::string, bool> gone;
  for (const ScatterInstance& f : felled) gone[hex(f.id)] = true;
  std::vector<test::Row> kept;
  std::size_t removed = 0;
  for (test::Row r : was) {
    if (gone.contains(r[7])) {
      ++removed;
      continue;
    }
    r.push_back("0");
    kept.push_back(r);
  }
  EXPECT_EQ(removed, felled.size());
  ASSERT_EQ(now.size(), kept.size() + 1);
  for (std::size_t k = 0; k < kept.size(); ++k) ASSERT_EQ(now[k], kept[k]) << k;
  const test::Row& p = now.back();
  EXPECT_EQ(p[7], hex(planted_id));
  EXPECT_EQ(std::stod(p[0]), -500.0);
  EXPECT_EQ(std::stod(p[2]), -600.0);
  EXPECT_EQ(std::stod(p[3]), 15.0);
  EXPECT_EQ(std::stoi(p[6]), planted.species);
  // It stands on the exported mesh: within its cell's corner heights (a triangle's plane).
  const TerrainQuery q(std::make_shared<const ChunkGenerator>(preset_, cs));
  double lo = 1e30, hi = -1e30;
  for (const double x : {-510.0, -480.0}) {
    for (const double z : {-630.0, -600.0}) {
      lo = std::min(lo, q.height_at(x, z));
      hi = std::max(hi, q.height_at(x, z));
    }
  }
  EXPECT_GE(std::stod(p[1]), lo - 1e-3);
  EXPECT_LE(std::stod(p[1]), hi + 1e-3);

  // Splat (Unreal's layers, a texel per sample): the painted layer is everything in the core,
  // and every texel beyond the radius keeps its procedural value.
  std::size_t core = 0, outside = 0, changed = 0;
  for (int l = 0; l < layers; ++l) {
    const std::string name =
        "default_layer_" + preset_.surface.layers[std::size_t(l)].name + ".png";
    const test::Rgba a = test::read_rgba(root_ / "base" / name);
    const test::Rgba e = test::read_rgba(root_ / "edited" / name);
    ASSERT_EQ(a.width, kSide);
    ASSERT_EQ(e.width, kSide);
    for (int j = 0; j < kSide; ++j) {
      for (int i = 0; i < kSide; ++i) {
        const double d = std::hypot(kOriginM + i * kCellM - b.x_m, kOriginM + j * kCellM - b.z_m);
        if (d >= b.radius_m) {
          ASSERT_EQ(e.at(i, j, 0), a.at(i, j, 0)) << name << " " << i << ", " << j;
          ++outside;
        } else if (d <= b.falloff_start * b.radius_m) {
          ASSERT_EQ(e.at(i, j, 0), l == b.layer ? 255 : 0) << name << " " << i << ", " << j;
          ++core;
        }
        changed += e.at(i, j, 0) != a.at(i, j, 0) ? 1 : 0;
      }
    }
  }
  EXPECT_GT(core, std::size_t(layers) * 150);
  EXPECT_GT(outside, std::size_t(layers) * 3500);
  EXPECT_GT(changed, 100u);

  // The sidecar names both layers; a bake without edits records none.
  const nlohmann::json side =
      nlohmann::json::parse(std::ifstream(root_ / "edited" / "default.json"));
  const nlohmann::json& e = side["edits"];
  EXPECT_EQ(e["source"], "test");
  EXPECT_EQ(e["instance_hash"], hex(inst.current().content_hash()));
  EXPECT_EQ(e["instance_overrides"], inst.current().override_count());
  EXPECT_EQ(e["paint_hash"], hex(paint.current().content_hash()));
  EXPECT_EQ(e["paint_tiles"], paint.current().tile_count());
  EXPECT_FALSE(e.contains("tiles"));  // no height edits
  const nlohmann::json plain =
      nlohmann::json::parse(std::ifstream(root_ / "base" / "default.json"));
  EXPECT_FALSE(plain.contains("edits"));
  const nlohmann::json manifest =
      nlohmann::json::parse(std::ifstream(root_ / "edited" / "default_scatter.json"));
  EXPECT_EQ(manifest["columns"], "x,y,z,yaw,scale_xz,scale_y,species,id,state");
}

TEST_F(WorldBakeTest, LayersThatDoNotFitThePresetOrTheMapAreRefusedBeforeAnyWork) {
  const int layers = int(preset_.surface.layers.size());
  SplatBrush b;
  b.radius_m = 100.0;
  SplatPaint wrong(kCellM, 128, layers + 1);
  wrong.apply(b);
  BakeRequest r = request("a");
  r.paint = wrong.snapshot();
  test::expect_error([&] { bake(r); }, ErrorCategory::invalid_argument,
                     {"splat paint of " + std::to_string(layers + 1) + " layers"});
  SplatPaint fine(kCellM, 128, layers);
  fine.apply(b);
  r = request("b");
  r.paint = fine.snapshot();
  r.origin_x_m = kOriginM + 7.0;  // off the lattice
  test::expect_error([&] { bake(r); }, ErrorCategory::invalid_argument,
                     {"splat paint", "not on the edits' lattice"});
  InstanceEdits inst(1920.0);
  ScatterInstance alien;
  alien.species = int(preset_.surface.species.size());
  inst.add(alien);
  r = request("c");
  r.instance_edits = inst.snapshot();
  test::expect_error([&] { bake(r); }, ErrorCategory::invalid_argument,
                     {"instance edits add species"});
  for (const char* d : {"a", "b", "c"}) EXPECT_FALSE(fs::exists(root_ / d)) << d;
}

}  // namespace
}  // namespace terrane
