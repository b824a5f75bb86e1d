// End-to-end tests of `terrane world new | edit | info` and `terrane generate WORLD`
// (docs/EDIT.md): strokes from options and from a JSON list committed to the file, the info
// report, a bake equal to the base terrain plus the stored deltas sample for sample, and bad
// input refused with a precise message, exit 2 and no commit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/run_command.hpp"
#include "terrane/erosion.hpp"
#include "terrane/io.hpp"
#include "terrane/store.hpp"
#include "terrane/world.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

test::CommandResult run(const std::string& args) {
  return test::run_command(std::string(TERRANE_CLI_PATH) + " " + args + " 2>&1");
}

class WorldCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("terrane_world_cli_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    world_ = (dir_ / "w.world").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::uint64_t commits() const { return WorldStore::open(world_).info().commits; }

  fs::path dir_;
  std::string world_;
};

TEST_F(WorldCliTest, StrokesAreCommittedAndTheBakeIsTheBasePlusTheDeltas) {
  auto r = run("world new " + world_ + " --set world.cell_size_m=1 --seed 7");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("created for preset 'default', seed 7, 1 m cells"), std::string::npos)
      << r.out;
  r = run("world edit " + world_ +
          " --brush raise --at 10,-20 --radius 40 --strength 12 --falloff 0.3"
          " --brush flatten --at 60,10 --radius 15 --target 5 --strength 1 -m 'a hill and a pad'");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("commit #1, 2 stroke(s)"), std::string::npos) << r.out;
  {
    std::ofstream(dir_ / "strokes.json")
        << R"([{"brush": "noise", "at": [-90, 40], "radius": 30, "strength": 4,
                "noise_frequency": 0.05, "noise_seed": 3},
               {"brush": "lower", "at": [0, 150], "radius": 25, "strength": 6}])";
  }
  r = run("world edit " + world_ + " --edits " + (dir_ / "strokes.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("commit #2, 2 stroke(s)"), std::string::npos) << r.out;

  r = test::run_command(std::string(TERRANE_CLI_PATH) + " world info " + world_ +
                        " --json --check 2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info["commits"], 2);
  EXPECT_EQ(info["preset"], "default");
  EXPECT_EQ(info["seed"], 7);
  EXPECT_EQ(info["cell_size_m"], 1.0);
  EXPECT_GE(info["edited_chunks"].get<int>(), 3);
  EXPECT_EQ(info["schema_version"], 1) << "height edits alone keep schema 1";
  ASSERT_EQ(info["log"].size(), 2u);
  EXPECT_EQ(info["log"][0]["description"], "a hill and a pad");
  EXPECT_NE(info["log"][1]["description"].get<std::string>().find("\"brush\":\"noise\""),
            std::string::npos);
  EXPECT_FLOAT_EQ(info["delta_max_m"].get<float>(), 12.0f);
  r = run("world info " + world_);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("#1"), std::string::npos) << r.out;

  // The bake of the world: every sample is the graph's height plus the stored delta, then the
  // preset's post operations (default has thermal erosion and breaching), as for any bake.
  const fs::path out = dir_ / "out";
  r = run("generate " + world_ + " --size 400 --origin -200,-120 --formats exr -q -o " +
          out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const Field2D baked = read_exr(out / "default.exr", 1.0);
  {
    std::ifstream in(out / "default.json");
    const nlohmann::json sidecar = nlohmann::json::parse(in);
    EXPECT_EQ(sidecar["edits"]["source"], "world " + world_ + ", commit 2");
    EXPECT_GE(sidecar["edits"]["tiles"].get<int>(), 3);
    EXPECT_EQ(sidecar["edits"]["hash"].get<std::string>().size(), 16u);
  }
  const WorldStore w = WorldStore::open(world_);
  GridSpec grid{.width = 400, .height = 400, .spacing_m = 1.0};
  grid.index_x0 = -200, grid.index_z0 = -120;
  std::vector<float> edited_base(grid.sample_count());
  evaluate(compile(w.preset()), grid, edited_base);
  w.height_edits().add_to(grid, edited_base);
  ASSERT_FALSE(w.preset().post.empty());
  Field2D map(GridSpec{
      .width = 400, .height = 400, .spacing_m = 1.0, .origin_x_m = -200.0, .origin_z_m = -120.0});
  map.data = edited_base;
  apply_region_ops(map, w.preset().generator(), w.preset().post);
  const std::vector<float>& expected = map.data;
  ASSERT_EQ(baked.data.size(), expected.size());
  std::size_t differ = 0, edited = 0;
  for (int j = 0; j < 400; ++j) {
    for (int i = 0; i < 400; ++i) {
      const std::size_t k = std::size_t(j) * 400 + std::size_t(i);
      differ += baked.data[k] != expected[k] ? 1 : 0;
      edited += w.height_edits().delta_at(i - 200, j - 120) != 0.0f ? 1 : 0;
    }
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(edited, 8000u);  // the strokes are inside the map
  // The hill's plateau: 12 m above the base at its centre (before the post operations).
  const std::size_t c = std::size_t(-20 + 120) * 400 + std::size_t(10 + 200);
  std::vector<float> plain(grid.sample_count());
  evaluate(compile(w.preset()), grid, plain);
  EXPECT_FLOAT_EQ(edited_base[c] - plain[c], 12.0f);
  EXPECT_GT(baked.data[c] - plain[c], 10.0f);
}

TEST_F(WorldCliTest, BadInputIsRefusedAndCommitsNothing) {
  ASSERT_EQ(run("world new " + world_ + " --set world.cell_size_m=1").code, 0);
  const struct {
    std::string args, message;
  } cases[] = {
      {"world edit " + world_ + " --at 0,0 --brush raise", "--at before any --brush"},
      {"world edit " + world_ + " --brush raise --radius 5",
       "stroke 1 (--brush raise) has no --at"},
      {"world edit " + world_ + " --brush dug --at 0,0", "'dug' is not a brush"},
      {"world edit " + world_ + " --brush dig --at 0,0", "a block brush's centre is X,Y,Z"},
      {"world edit " + world_ + " --brush fill --at 0,0,0", "stroke 1: fill needs --block NAME"},
      {"world edit " + world_ + " --brush fill --at 0,0,0 --block gold",
       "--block 'gold' is not a block of the world's palette (air, stone"},
      {"world edit " + world_ + " --brush dig --at 0,0,0 --block stone",
       "--block has no meaning for dig"},
      {"world edit " + world_ + " --brush dig --at 0,0,0 --strength 3",
       "--strength has no meaning for the block brush dig"},
      {"world edit " + world_ + " --brush raise --at 0,0 --block stone",
       "--block belongs to the block brushes"},
      {"world edit " + world_ + " --brush dig --at 0,2e9,0", "block brush.y_m"},
      {"world edit " + world_ + " --brush dig --at 0,0,0 --radius 100", "block brush.radius_m"},
      {"world edit " + world_ + " --brush restore --at 0,0,0 --radius 0", "block brush.radius_m"},
      {"world edit " + world_ + " --brush raise --at nan,0", "'nan' is not a finite number"},
      {"world edit " + world_ + " --brush raise --at 0,0 --brush lower --at 5,5 --radius 0",
       "stroke 2: "},
      {"world edit " + world_ + " --brush raise --at 2e12,0", "brush.x_m"},
      {"world edit " + world_ + " --brush raise --at 0,0 --radius 1e9", "brush.radius_m"},
      {"world edit " + world_, "no stroke given"},
      {"world edit " + world_ + " --edits " + (dir_ / "missing.json").string(),
       "cannot read the file"},
      {"world edit " + (dir_ / "missing.world").string() + " --brush raise --at 0,0",
       "no such file"},
      {"world new " + world_, "the file exists"},
      {"generate " + world_ + " --set world.size=64", "--set cannot change the preset of world"},
      {"generate " + world_ + " --seed 3", "--seed cannot change the preset"},
      {"generate " + world_ + " --mode voxel --cell 2", "--cell cannot change the preset"},
  };
  for (const auto& c : cases) {
    const auto r = run(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find("error: "), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
  }
  { std::ofstream(dir_ / "bad.json") << R"([{"brush": "raise", "at": [0]}])"; }
  auto r = run("world edit " + world_ + " --edits " + (dir_ / "bad.json").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("stroke 1: \"at\" has the wrong type"), std::string::npos) << r.out;
  // A block brush's "at" has three numbers.
  { std::ofstream(dir_ / "bad_block.json") << R"([{"brush": "dig", "at": [0, 5]}])"; }
  r = run("world edit " + world_ + " --edits " + (dir_ / "bad_block.json").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("stroke 1: \"at\" has the wrong type"), std::string::npos) << r.out;
  EXPECT_EQ(commits(), 0u);
  // A map off the edits' lattice, once there are edits.
  ASSERT_EQ(run("world edit " + world_ + " --brush raise --at 0,0 --radius 20").code, 0);
  r = run("generate " + world_ + " --size 64 --origin 0.5,0 -o " + (dir_ / "o").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("is not on the edits' lattice"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  // A preset file is not taken for a world.
  r = run("world info " + (dir_ / "bad.json").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("not a world file"), std::string::npos) << r.out;
}

// A block bake of a world stands on its edited ground: a pit dug into the terrain lowers the
// box's automatic vertical range, changes the blocks, and the sidecar names the edits.
TEST_F(WorldCliTest, AVoxelBakeOfAWorldStandsOnItsEdits) {
  ASSERT_EQ(run("world new " + world_ + " --set world.cell_size_m=1").code, 0);
  auto r = run("world edit " + world_ + " --brush lower --at 0,0 --radius 24 --strength 40");
  ASSERT_EQ(r.code, 0) << r.out;
  const fs::path edited = dir_ / "edited", procedural = dir_ / "procedural";
  r = run("generate " + world_ + " --mode voxel --size 64 -o " + edited.string());
  ASSERT_EQ(r.code, 0) << r.out;
  r = run("generate default --set world.cell_size_m=1 --mode voxel --size 64 -o " +
          procedural.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto side = [](const fs::path& dir) {
    return nlohmann::json::parse(std::ifstream(dir / "default_blocks.json"));
  };
  const nlohmann::json e = side(edited), p = side(procedural);
  ASSERT_TRUE(e.contains("edits")) << e.dump();
  EXPECT_EQ(e["edits"]["source"], "world " + world_ + ", commit 1");
  EXPECT_EQ(e["edits"]["tiles"], 4);
  EXPECT_EQ(e["edits"]["hash"].get<std::string>().size(), 16u);
  EXPECT_FALSE(p.contains("edits"));
  // The pit is 40 m deep at its centre: the rows start lower (by less where the box has lower
  // ground elsewhere).
  EXPECT_LT(e["origin_blocks"][1].get<int>(), p["origin_blocks"][1].get<int>() - 10);
  std::ifstream a(edited / "default_blocks.vox", std::ios::binary),
      b(procedural / "default_blocks.vox", std::ios::binary);
  const std::string va((std::istreambuf_iterator<char>(a)), {}),
      vb((std::istreambuf_iterator<char>(b)), {});
  EXPECT_NE(va, vb);
}

// Block brushes: a dug sphere and a sphere of glass are committed to the world file (schema 2),
// `world info` counts them, and the world's block bake carries them (its sidecar names them; its
// blocks differ from the procedural bake's). What the generator does with overrides is tested in
// tests/voxel/block_edits_test.cpp.
// Instance brushes: fell takes every instance of the disc (on the world's edited ground), plant
// adds one of a named species, regrow gives the disc back to the scatter; the overrides are in
// the file and in `world info`; bad instance strokes are named and commit nothing.
TEST_F(WorldCliTest, InstanceBrushesFellPlantAndRegrow) {
  ASSERT_EQ(run("world new " + world_ + " --set world.cell_size_m=1").code, 0);
  const Preset preset = WorldStore::open(world_).preset();
  ASSERT_FALSE(preset.surface.species.empty());
  const std::string species = preset.surface.species.back().name;
  auto r = run("world edit " + world_ +
               " --brush raise --at 0,0 --radius 40 --strength 3 --brush fell --at 0,0 --radius 25 "
               "--regrow 600 --brush plant --at 5,-4 --species " +
               species + " --yaw 30");
  ASSERT_EQ(r.code, 0) << r.out;
  ChunkSettings cs;
  cs.cells = 128;
  cs.surface = true;
  const ChunkGenerator gen(preset, cs);
  std::size_t felled = 0;
  {
    const WorldStore w = WorldStore::open(world_);
    const InstanceEditSnapshot& inst = w.instance_edits();
    felled = inst.count(InstanceChange::removed);
    EXPECT_GT(felled, 0u);
    EXPECT_EQ(inst.count(InstanceChange::added), 1u);
    for (const auto& entry : inst.chunks()) {
      for (const InstanceOverride& o : *entry.second) {
        if (o.change == InstanceChange::removed) {
          EXPECT_EQ(o.timer_s, 600.0);
        }
      }
    }
    // What stands in the disc now: the planted instance only, on the raised ground.
    const auto near = gen.instances_near(0.0, 0.0, 25.0, &w.height_edits(), &inst);
    ASSERT_EQ(near.size(), 1u);
    EXPECT_EQ(near[0].x_m, 5.0);
    EXPECT_EQ(near[0].yaw_deg, 30.0f);
    EXPECT_EQ(near[0].species, int(preset.surface.species.size()) - 1);
    EXPECT_EQ(near[0].y_m,
              float(TerrainQuery(std::make_shared<const ChunkGenerator>(preset, cs),
                                 std::make_shared<const HeightEditSnapshot>(w.height_edits()))
                        .height_at(5.0, -4.0)));
    // Procedurally the disc (on the same ground) holds the felled ones.
    EXPECT_EQ(gen.instances_near(0.0, 0.0, 25.0, &w.height_edits()).size(), felled);
  }
  r = test::run_command(std::string(TERRANE_CLI_PATH) + " world info " + world_ + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info["schema_version"], 3);
  EXPECT_EQ(info["instance_overrides"].get<std::size_t>(), felled + 1);
  r = run("world info " + world_);
  EXPECT_NE(r.out.find("instances   " + std::to_string(felled + 1) + " overrides (" +
                       std::to_string(felled) + " removed, 0 with a state, 1 added)"),
            std::string::npos)
      << r.out;

  const std::uint64_t before = commits();
  for (const std::string& bad :
       {std::string("--brush plant --at 1,1"),
        std::string("--brush plant --at 1,1 --species oak_x"),
        std::string("--brush fell --at 1,1 --species " + species),
        std::string("--brush fell --at 1,1 --radius 0"), std::string("--brush fell --at 1,1,1"),
        std::string("--brush fell --at 1,1 --regrow -5"),
        std::string("--brush raise --at 1,1 --yaw 3")}) {
    r = run("world edit " + world_ + " " + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("stroke 1"), std::string::npos) << bad << ": " << r.out;
  }
  EXPECT_EQ(commits(), before);

  r = run("world edit " + world_ + " --brush regrow --at 0,0 --radius 30");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(WorldStore::open(world_).instance_edits().empty());
}

TEST_F(WorldCliTest, PaintBrushesAreCommittedAndTheBakeCarriesThem) {
  ASSERT_EQ(run("world new " + world_).code, 0);
  const Preset preset = WorldStore::open(world_).preset();
  ASSERT_GE(preset.surface.layers.size(), 2u);
  const std::string layer = preset.surface.layers.back().name;
  auto r =
      run("world edit " + world_ + " --brush paint --at 100,-50 --layer " + layer +
          " --radius 200 --strength 1 --brush unpaint --at 250,-50 --radius 60 --strength 0.5");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2 stroke(s) (2 changed the world)"), std::string::npos) << r.out;
  std::uint64_t hash = 0;
  {
    const WorldStore w = WorldStore::open(world_);
    hash = w.paint()->content_hash();
    const double cell = w.info().cell_size_m;
    const int l = int(preset.surface.layers.size()) - 1;
    EXPECT_EQ(w.paint()->amount_at(std::int64_t(std::lround(100.0 / cell)),
                                   std::int64_t(std::lround(-50.0 / cell)), l),
              1.0f);
    EXPECT_EQ(w.info().schema_version, 4);
  }
  r = test::run_command(std::string(TERRANE_CLI_PATH) + " world info " + world_ + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json info = nlohmann::json::parse(r.out);
  EXPECT_GT(info["painted_vertices"].get<std::size_t>(), 100u);
  EXPECT_EQ(info["paint_tiles"].get<std::size_t>(), 4u);  // the stroke spans the origin
  EXPECT_EQ(info["layer_bytes"]["paint"], info["edit_bytes"]);
  r = run("world info " + world_);
  EXPECT_NE(
      r.out.find("paint       " + std::to_string(info["painted_vertices"].get<std::size_t>()) +
                 " painted vertices in 4 tiles"),
      std::string::npos)
      << r.out;

  // The bake's sidecar records the paint it baked.
  const fs::path out = dir_ / "bake";
  r = run("generate " + world_ + " --size 65 --formats splat -q -o " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json side = nlohmann::json::parse(std::ifstream(out / "default.json"));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  EXPECT_EQ(side["edits"]["paint_hash"], hex);
  EXPECT_EQ(side["edits"]["paint_tiles"], 4);

  const std::uint64_t before = commits();
  for (const std::string& bad :
       {std::string("--brush paint --at 1,1"), std::string("--brush paint --at 1,1 --layer nope"),
        std::string("--brush unpaint --at 1,1 --layer " + layer),
        std::string("--brush paint --at 1,1 --layer " + layer + " --strength 2"),
        std::string("--brush paint --at 1,1,1 --layer " + layer),
        std::string("--brush raise --at 1,1 --layer " + layer)}) {
    r = run("world edit " + world_ + " " + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("stroke 1"), std::string::npos) << bad << ": " << r.out;
  }
  EXPECT_EQ(commits(), before);
  r = run("world edit " + world_ + " --brush unpaint --at 100,-50 --radius 400 --falloff 1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(WorldStore::open(world_).paint()->empty());
}

TEST_F(WorldCliTest, BlockBrushesAreCommittedAndTheBlockBakeCarriesThem) {
  ASSERT_EQ(run("world new " + world_ + " --set world.cell_size_m=1").code, 0);
  const fs::path procedural = dir_ / "procedural", edited = dir_ / "edited";
  auto r = run("generate default --set world.cell_size_m=1 --mode voxel --size 48 -o " +
               procedural.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto side = [](const fs::path& dir) {
    return nlohmann::json::parse(std::ifstream(dir / "default_blocks.json"));
  };
  const nlohmann::json p = side(procedural);
  // The fill at the centre of the box (whatever was there becomes glass), the dig beside it.
  double centre[3];
  for (int a = 0; a < 3; ++a) {
    centre[a] = p["origin_blocks"][a].get<double>() + 0.5 * p["size_blocks"][a].get<double>();
  }
  const auto at = [](double x, double y, double z) {
    std::ostringstream s;
    s << x << ',' << y << ',' << z;
    return s.str();
  };
  r = run("world edit " + world_ + " --brush fill --at " + at(centre[0], centre[1], centre[2]) +
          " --radius 3 --block glass --brush dig --at " +
          at(centre[0] + 10.0, centre[1], centre[2]) + " --radius 4");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("commit #1, 2 stroke(s)"), std::string::npos) << r.out;
  r = test::run_command(std::string(TERRANE_CLI_PATH) + " world info " + world_ +
                        " --json --check 2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info["schema_version"], 2);  // block overrides: version 2 (instances raise it to 3)
  // 4/3 pi (27 + 64) = 381 blocks.
  EXPECT_GT(info["block_overrides"].get<int>(), 340);
  EXPECT_LT(info["block_overrides"].get<int>(), 420);
  EXPECT_NE(info["log"][0]["description"].get<std::string>().find("\"block\":\"glass\""),
            std::string::npos)
      << info.dump();
  {
    const WorldStore w = WorldStore::open(world_);
    const BlockEditSnapshot& b = w.block_edits();
    const auto block = [](double m) { return std::int64_t(std::floor(m)); };
    EXPECT_EQ(b.at(block(centre[0]), block(centre[1]), block(centre[2])), 13);  // glass
    EXPECT_EQ(b.at(block(centre[0] + 10.0), block(centre[1]), block(centre[2])), kDugBlock);
    EXPECT_EQ(b.at(block(centre[0] + 20.0), block(centre[1]), block(centre[2])), kKeepBlock);
  }

  r = run("generate " + world_ + " --mode voxel --size 48 -o " + edited.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json e = side(edited);
  EXPECT_EQ(e["origin_blocks"], p["origin_blocks"]) << "no height edits: the same rows";
  EXPECT_EQ(e["edits"]["source"], "world " + world_ + ", commit 1");
  EXPECT_EQ(e["edits"]["block_overrides"], info["block_overrides"]);
  EXPECT_EQ(e["edits"]["block_chunks"], info["block_chunks"]);
  EXPECT_EQ(e["edits"]["block_hash"].get<std::string>().size(), 16u);
  EXPECT_FALSE(e["edits"].contains("tiles")) << "no height edits";
  std::ifstream a(edited / "default_blocks.vox", std::ios::binary),
      b(procedural / "default_blocks.vox", std::ios::binary);
  const std::string va((std::istreambuf_iterator<char>(a)), {}),
      vb((std::istreambuf_iterator<char>(b)), {});
  EXPECT_NE(va, vb);
}

}  // namespace
}  // namespace terrane
