// Tests of the perspective render (terrane/stats.hpp) and of the water the previews draw
// (render_preview with PreviewWater, write_biome_preview_png).
#include <gtest/gtest.h>
#include <spng.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "terrane/erosion.hpp"
#include "terrane/io.hpp"
#include "terrane/stats.hpp"
#include "terrane/surface.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

struct Pixel {
  int r, g, b;
  bool bluish() const { return b > r && b > g; }
  bool greenish() const { return g > b && g > r; }
};

Pixel pixel(const std::vector<std::uint8_t>& rgb, int width, int c, int r) {
  const std::size_t at = (std::size_t(r) * std::size_t(width) + std::size_t(c)) * 3;
  return {rgb[at], rgb[at + 1], rgb[at + 2]};
}

// Rolling hills 0..400 m with a sea at 50 m.
Field2D hills(int n, double spacing_m) {
  Field2D f(GridSpec{.width = n, .height = n, .spacing_m = spacing_m});
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const double x = double(i) / double(n), z = double(j) / double(n);
      f.at(i, j) = float(200.0 + 120.0 * std::sin(9.0 * x + 1.0) * std::cos(7.0 * z) +
                         60.0 * std::sin(23.0 * x * z + 2.0 * z));
    }
  }
  return f;
}

PerspectiveParams params_for(int w, int h, double sea_m) {
  PerspectiveParams p;
  p.width = w;
  p.height = h;
  p.palette.range = HeightRange{0.0, 1000.0};
  p.palette.sea_level_m = sea_m;
  return p;
}

std::vector<std::uint8_t> render(const Field2D& f, const PerspectiveParams& p, int threads,
                                 const PreviewWater& water = {}) {
  std::vector<std::uint8_t> rgb(std::size_t(p.width) * std::size_t(p.height) * 3);
  PerspectiveScene scene;
  scene.heights = &f;
  scene.water = water;
  ExecContext ctx;
  ctx.threads = threads;
  render_perspective(scene, p, rgb, ctx);
  return rgb;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Perspective, SameBytesForAnyThreadCount) {
  const Field2D f = hills(257, 10.0);
  HydrologyParams hp;
  hp.routing.use_sea_level = true;
  hp.routing.sea_level_m = 150.0;
  hp.river_area_m2 = 2.0e5;
  Hydrology hydro;
  compute_hydrology(f, hp, hydro);
  const PreviewWater water{hydro.water_level_m.data, hydro.river};
  const PerspectiveParams p = params_for(320, 180, 150.0);
  const auto one = render(f, p, 1, water);
  EXPECT_EQ(one, render(f, p, 2, water));
  EXPECT_EQ(one, render(f, p, 0, water));
  EXPECT_EQ(one, render(f, p, 5, water));
}

TEST(Perspective, AutoCameraHasSkyAboveAndTerrainInTheMiddle) {
  Field2D f = hills(129, 20.0);
  for (float& v : f.data) v = 100.0f + 0.05f * (v - 200.0f);  // low green hills
  const PerspectiveParams p = params_for(320, 180, 0.0);
  const auto rgb = render(f, p, 0);
  for (const int c : {0, 319}) EXPECT_TRUE(pixel(rgb, 320, c, 0).bluish()) << c;
  EXPECT_TRUE(pixel(rgb, 320, 160, 90).greenish());
  // The camera looks down at the map from above and outside its south-west corner.
  const Camera cam = auto_camera(f.grid, 95.0, 105.0, 320, 180);
  EXPECT_LT(cam.x_m, f.grid.x_m(0));
  EXPECT_GT(cam.z_m, f.grid.z_m(128));
  EXPECT_GT(cam.y_m, 105.0);
  EXPECT_DOUBLE_EQ(cam.pitch_deg, -32.0);
}

// A flat plane 100 m below the eye, looked at horizontally along +X: its far edge 10340 m
// ahead is seen at 100 / 10340 * focal pixels below the centre row, focal = 360 / tan(20 deg).
TEST(Perspective, FlatPlaneEndsAtTheAnalyticRow) {
  Field2D f(GridSpec{.width = 1025, .height = 1025, .spacing_m = 10.0});
  for (float& v : f.data) v = 0.0f;
  PerspectiveParams p = params_for(1280, 720, -100.0);
  p.camera = Camera{-100.0, 100.0, 5120.0, 0.0, 0.0, 40.0};
  p.haze_distance_m = 1e12;
  const auto rgb = render(f, p, 0);
  const double focal = 360.0 / std::tan(20.0 * 3.14159265358979323846 / 180.0);
  const double edge_row = 360.0 + focal * 100.0 / 10340.0;  // 369.57
  ASSERT_EQ(int(std::floor(edge_row - 0.5)), 369);
  EXPECT_FALSE(pixel(rgb, 1280, 640, 369).greenish());  // over the far edge
  EXPECT_TRUE(pixel(rgb, 1280, 640, 370).greenish());   // on the plane
  EXPECT_TRUE(pixel(rgb, 1280, 640, 719).greenish());
  EXPECT_TRUE(pixel(rgb, 1280, 640, 0).bluish());  // sky
}

TEST(Perspective, SeaIsWater) {
  Field2D f(GridSpec{.width = 65, .height = 65, .spacing_m = 10.0});
  for (float& v : f.data) v = -50.0f;
  const auto rgb = render(f, params_for(160, 90, 0.0), 0);
  const Pixel centre = pixel(rgb, 160, 80, 45);
  EXPECT_TRUE(centre.bluish());
  EXPECT_GT(centre.b - centre.r, 40);
}

TEST(Perspective, RejectsBadCamerasAndSizesWithClearMessages) {
  const Field2D f = hills(33, 10.0);
  PerspectiveParams p = params_for(64, 64, 0.0);
  p.camera = Camera{0, 100, 0, 0, 90.0, 40};
  EXPECT_NE(error_of([&] { render(f, p, 0); }).find("camera.pitch_deg = 90"), std::string::npos);
  p.camera = Camera{0, 100, 0, 0, -30.0, 0.5};
  EXPECT_NE(error_of([&] { render(f, p, 0); }).find("camera.fov_y_deg = 0.5"), std::string::npos);
  p.camera = Camera{NAN, 100, 0, 0, -30.0, 40};
  EXPECT_NE(error_of([&] { render(f, p, 0); }).find("camera.x_m"), std::string::npos);
  p.camera.reset();
  p.width = 8;
  EXPECT_NE(error_of([&] { render(f, p, 0); }).find("perspective.width = 8"), std::string::npos);

  EXPECT_FALSE(parse_camera("auto").has_value());
  const auto c = parse_camera("1,2,3,45,-30");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->fov_y_deg, 40.0);
  EXPECT_EQ(parse_camera("1,2,3,45,-30,60")->fov_y_deg, 60.0);
  EXPECT_NE(error_of([] { parse_camera("1,2,3"); }).find("--camera: expected 'auto' or x,y,z"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_camera("1,2,z,45,-30"); }).find("--camera: z = 'z'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_camera("1,2,3,45,-95"); }).find("--camera: camera.pitch_deg"),
            std::string::npos);
  EXPECT_NE(error_of([] { camera_look_at(0, 10, 0, 0, 0, 0); }).find("straight above"),
            std::string::npos);
  const Camera look = camera_look_at(0, 100, 0, 100, 0, 0);
  EXPECT_DOUBLE_EQ(look.yaw_deg, 0.0);
  EXPECT_DOUBLE_EQ(look.pitch_deg, -45.0);

  int w = 0, h = 0;
  parse_perspective_size("1920x1080", w, h);
  EXPECT_EQ(w, 1920);
  EXPECT_EQ(h, 1080);
  EXPECT_NE(error_of([&] { parse_perspective_size("1920", w, h); }).find("--perspective-size"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_perspective_size("9000x10", w, h); }).find("width 9000"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Previews draw the hydrology's lakes and rivers as water.

struct Valley {
  Field2D heights;
  Hydrology hydro;
  int lake_i = 32, lake_j = 16;
  int river_i = 32, river_j = 60;
  int dry_i = 8, dry_j = 40;
};

// A V-shaped valley draining to the border at j = 64, with a pit upstream that holds a lake.
Valley valley() {
  Valley v;
  v.heights = Field2D(GridSpec{.width = 65, .height = 65, .spacing_m = 10.0});
  for (int j = 0; j < 65; ++j) {
    for (int i = 0; i < 65; ++i) {
      float h = 100.0f + 2.0f * float(std::abs(i - 32)) + 0.5f * float(64 - j);
      if (std::abs(i - 32) <= 2 && std::abs(j - 16) <= 2) h -= 8.0f;
      v.heights.at(i, j) = h;
    }
  }
  HydrologyParams hp;
  hp.river_area_m2 = 5.0e4;
  compute_hydrology(v.heights, hp, v.hydro);
  return v;
}

TEST(PreviewWater, LakesAndRiversAreWaterInTheReliefPreview) {
  const Valley v = valley();
  const std::size_t lake = std::size_t(v.lake_j) * 65 + std::size_t(v.lake_i);
  const std::size_t river = std::size_t(v.river_j) * 65 + std::size_t(v.river_i);
  ASSERT_NE(v.hydro.lake_id[lake], kNoLake);
  ASSERT_NE(v.hydro.river[river], 0);
  PreviewParams p;
  p.range = HeightRange{0.0, 300.0};
  p.sea_level_m = -100.0;
  std::vector<std::uint8_t> dry(65 * 65 * 3), wet(65 * 65 * 3);
  render_preview(v.heights, p, dry);
  render_preview(v.heights, p, PreviewWater{v.hydro.water_level_m.data, v.hydro.river}, wet);
  EXPECT_FALSE(pixel(dry, 65, v.lake_i, v.lake_j).bluish());
  EXPECT_FALSE(pixel(dry, 65, v.river_i, v.river_j).bluish());
  EXPECT_TRUE(pixel(wet, 65, v.lake_i, v.lake_j).bluish());
  EXPECT_TRUE(pixel(wet, 65, v.river_i, v.river_j).bluish());
  EXPECT_FALSE(pixel(wet, 65, v.dry_i, v.dry_j).bluish());
}

std::vector<std::uint8_t> read_rgb8(const fs::path& path, int w, int h) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  spng_ctx* ctx = spng_ctx_new(0);
  spng_set_png_buffer(ctx, bytes.data(), bytes.size());
  std::vector<std::uint8_t> rgb(std::size_t(w) * std::size_t(h) * 3);
  EXPECT_EQ(spng_decode_image(ctx, rgb.data(), rgb.size(), SPNG_FMT_RGB8, 0), 0);
  spng_ctx_free(ctx);
  return rgb;
}

TEST(PreviewWater, LakesAndRiversAreWaterInTheBiomePreview) {
  const Valley v = valley();
  SurfaceParams params;
  Biome forest;
  forest.name = "forest";
  forest.colour = {40, 150, 40};
  params.biomes = {forest};
  params.sea_level_m = -100.0;
  BiomeWeights biomes;
  biomes.grid = v.heights.grid;
  biomes.biome_count = 1;
  biomes.weights.assign(65 * 65, 1.0f);
  biomes.dominant.assign(65 * 65, 0);
  const fs::path path =
      fs::temp_directory_path() / ("terrane_biome_preview_" + std::to_string(::getpid()) + ".png");
  write_biome_preview_png(path, params, 1, v.heights, biomes,
                          PreviewWater{v.hydro.water_level_m.data, v.hydro.river});
  const auto rgb = read_rgb8(path, 65, 65);
  fs::remove(path);
  EXPECT_TRUE(pixel(rgb, 65, v.lake_i, v.lake_j).bluish());
  EXPECT_TRUE(pixel(rgb, 65, v.river_i, v.river_j).bluish());
  EXPECT_TRUE(pixel(rgb, 65, v.dry_i, v.dry_j).greenish());
}

}  // namespace
}  // namespace terrane
