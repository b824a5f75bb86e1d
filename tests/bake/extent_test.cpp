// Issue 12, defect 9: the surface outputs of a bake (splat maps, biome ids, scatter) are
// functions of location, not of the map's extent. A map and its two halves, baked with the
// formats a user exports, agree texel for texel and point for point; with
// --whole-map-hydrology (the map's rivers and lakes feed moisture and water) they may not, and
// the bake says so.
#include <gtest/gtest.h>
#include <spng.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/bake_files.hpp"
#include "terrane/bake.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;
using test::read_rgba;
using test::read_scatter_csv;
using test::Rgba;
using test::Row;

// Everything of a point but its height: y is the height of the exported level-0 mesh under it,
// and the whole map's mesh is not the halves' meshes (each mesh splits its cells along the
// diagonals through its own corners), so y legitimately follows the mesh the map exports.
Row without_height(Row r) {
  r.erase(r.begin() + 1);
  return r;
}

class ExtentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            (std::string("terrane_extent_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // The default preset without its post operations (erosion is a whole-map operation: the
  // heights themselves would depend on the extent), 30 m cells.
  BakeReport bake_map(const std::string& dir, int width, int height, double origin_x_m,
                      bool whole_map_hydrology = false) {
    BakeRequest r;
    r.preset = std::string("default");
    r.overrides = {"post=[]"};
    r.width = width;
    r.height = height;
    r.origin_x_m = origin_x_m;
    r.origin_z_m = 0.0;
    r.formats = {OutputFormat::splat, OutputFormat::biomes, OutputFormat::scatter};
    r.whole_map_hydrology = whole_map_hydrology;
    r.river_area_m2 = 2.0e5;
    r.out_dir = root_ / dir;
    return bake(r);
  }

  fs::path root_;
};

constexpr int kHalfCells = 64;  // cells per half along x
constexpr int kRows = 65;       // samples along z
constexpr double kCellM = 30.0;

TEST_F(ExtentTest, SurfaceOutputsDoNotDependOnTheMapExtent) {
  // The whole map and its halves share the seam column (sample kHalfCells of the whole).
  const BakeReport whole = bake_map("whole", 2 * kHalfCells + 1, kRows, 0.0);
  const BakeReport left = bake_map("left", kHalfCells + 1, kRows, 0.0);
  const BakeReport right = bake_map("right", kHalfCells + 1, kRows, kHalfCells * kCellM);
  ASSERT_EQ(whole.grid.spacing_m, kCellM);
  EXPECT_TRUE(whole.warnings.empty());

  // Splat (Unity control maps per cell, Unreal layers and the preview per sample) and biome
  // ids: every texel of a half is the whole map's texel at the same place.
  int images = 0;
  for (const BakedFile& f : whole.files) {
    if (f.format != "splat_unity_png" && f.format != "splat_unreal_png" &&
        f.format != "splat_preview_png" && f.format != "biome_id_png") {
      continue;
    }
    ++images;
    const Rgba w = read_rgba(root_ / "whole" / f.name);
    const bool per_cell = w.width == 2 * kHalfCells;
    ASSERT_EQ(w.width, per_cell ? 2 * kHalfCells : 2 * kHalfCells + 1) << f.name;
    for (const auto& [half, first_column] :
         {std::pair{"left", 0}, std::pair{"right", kHalfCells}}) {
      const Rgba h = read_rgba(root_ / half / f.name);
      ASSERT_EQ(h.width, per_cell ? kHalfCells : kHalfCells + 1) << half << "/" << f.name;
      ASSERT_EQ(h.height, w.height) << half << "/" << f.name;
      int differing = 0;
      for (int j = 0; j < h.height; ++j) {
        for (int i = 0; i < h.width; ++i) {
          for (int c = 0; c < 4; ++c) {
            const auto hv =
                h.px[(std::size_t(j) * std::size_t(h.width) + std::size_t(i)) * 4 + std::size_t(c)];
            const auto wv =
                w.px[(std::size_t(j) * std::size_t(w.width) + std::size_t(i + first_column)) * 4 +
                     std::size_t(c)];
            if (hv != wv) ++differing;
          }
        }
      }
      EXPECT_EQ(differing, 0) << half << "/" << f.name << " differs from the whole map's";
    }
  }
  EXPECT_GE(images, 4);

  // Scatter: a map holds the points in [x_m(0), x_m(width - 1) + spacing) x [z_m(0), ...), so
  // the left half's region overlaps the right one's by the seam column's cell strip
  // [seam, seam + spacing). The whole map's points are the left half's west of the seam plus the
  // right half's, and both halves hold the same points in the overlap.
  const double seam_m = kHalfCells * kCellM;
  const std::vector<Row> w = read_scatter_csv(root_ / "whole" / "default_scatter.csv");
  const std::vector<Row> l = read_scatter_csv(root_ / "left" / "default_scatter.csv");
  const std::vector<Row> r = read_scatter_csv(root_ / "right" / "default_scatter.csv");
  std::vector<Row> whole_points, union_points, left_overlap, right_overlap;
  for (const Row& p : w) whole_points.push_back(without_height(p));
  for (const Row& p : l) {
    if (std::strtod(p[0].c_str(), nullptr) < seam_m) {
      union_points.push_back(without_height(p));
    } else {
      left_overlap.push_back(without_height(p));
    }
  }
  for (const Row& p : r) {
    union_points.push_back(without_height(p));
    if (std::strtod(p[0].c_str(), nullptr) < seam_m + kCellM) {
      right_overlap.push_back(without_height(p));
    }
  }
  std::sort(whole_points.begin(), whole_points.end());
  std::sort(union_points.begin(), union_points.end());
  std::sort(left_overlap.begin(), left_overlap.end());
  std::sort(right_overlap.begin(), right_overlap.end());
  ASSERT_GT(whole_points.size(), 1000U);
  EXPECT_FALSE(left_overlap.empty());
  EXPECT_EQ(left_overlap, right_overlap);
  EXPECT_EQ(whole_points.size(), union_points.size());
  std::vector<Row> only_whole, only_halves;
  std::set_difference(whole_points.begin(), whole_points.end(), union_points.begin(),
                      union_points.end(), std::back_inserter(only_whole));
  std::set_difference(union_points.begin(), union_points.end(), whole_points.begin(),
                      whole_points.end(), std::back_inserter(only_halves));
  EXPECT_EQ(only_whole.size(), 0U);
  EXPECT_EQ(only_halves.size(), 0U);
  if (!only_whole.empty()) ADD_FAILURE() << "e.g. whole-map point at x = " << only_whole[0][0];
}

TEST_F(ExtentTest, WholeMapHydrologyFeedsTheSurfaceOutputs) {
  // Same map, default vs --whole-map-hydrology: the map's rivers, lakes and sea boost moisture
  // and keep scatter out of the water, so biomes, splat and scatter change.
  const BakeReport local = bake_map("local", 2 * kHalfCells + 1, kRows, 0.0);
  const BakeReport hydro = bake_map("hydro", 2 * kHalfCells + 1, kRows, 0.0, true);
  ASSERT_EQ(local.files.size(), hydro.files.size());
  auto bytes = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string{std::istreambuf_iterator<char>(in), {}};
  };
  for (const std::string name :
       {"default_biomes.png", "default_splat0.png", "default_scatter.csv"}) {
    EXPECT_NE(bytes(root_ / "local" / name), bytes(root_ / "hydro" / name))
        << name << " does not change with whole-map hydrology";
  }
  // The bake says that such outputs are not seamless (report and sidecar).
  ASSERT_EQ(hydro.warnings.size(), 1U);
  EXPECT_NE(hydro.warnings[0].find("not seamless"), std::string::npos) << hydro.warnings[0];
  EXPECT_NE(bytes(root_ / "hydro" / "default.json").find("not seamless"), std::string::npos);

  // Without a surface output the option has nothing to apply to: refused before any file.
  BakeRequest r;
  r.formats = {OutputFormat::png16};
  r.whole_map_hydrology = true;
  r.out_dir = root_ / "refused";
  try {
    (void)bake(r);
    ADD_FAILURE() << "--whole-map-hydrology without a surface output was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("--whole-map-hydrology"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(root_ / "refused"));
}

}  // namespace
}  // namespace terrane
