// The C API's world files: strokes on every layer the C API takes (heights, blocks, paint),
// undo, commit, and a read-only reopen that sees exactly what was committed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "terrane/store.hpp"
#include "terrane/terrane.h"

namespace {

std::vector<float> world_heights(const terrane_world* w, double x0, double z0, int n) {
  std::vector<float> h(std::size_t(n) * std::size_t(n));
  EXPECT_EQ(terrane_world_heights(w, x0, z0, n, n, 0, 0, h.data(), h.size(), nullptr),
            TERRANE_OK)
      << terrane_world_last_error(w);
  return h;
}

TEST(CApiWorld, StrokesCommitAndReopen) {
  const auto dir = std::filesystem::temp_directory_path() / "terrane_capi_world";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.terrane").string();
  terrane_preset* p = nullptr;
  ASSERT_EQ(terrane_preset_load("default", nullptr, 0, &p), TERRANE_OK);
  terrane_world* w = nullptr;
  ASSERT_EQ(terrane_world_create(path.c_str(), p, 0, &w), TERRANE_OK) << terrane_last_error();
  // Creating over an existing file needs overwrite.
  terrane_world* again = nullptr;
  EXPECT_EQ(terrane_world_create(path.c_str(), p, 0, &again), TERRANE_IO);

  const std::vector<float> before = world_heights(w, 0, 0, 41);
  std::vector<float> base(41 * 41);
  ASSERT_EQ(terrane_heights(p, 0, 0, 41, 41, 0, 0, base.data(), base.size(), nullptr), TERRANE_OK);
  EXPECT_EQ(before, base);  // no edits: the preset's heights

  terrane_preset_info pinfo{};
  ASSERT_EQ(terrane_preset_get_info(p, &pinfo), TERRANE_OK);
  const double cell = pinfo.cell_size_m;  // the grids below are on the world's lattice
  terrane_brush b;
  terrane_brush_init(&b, TERRANE_BRUSH_RAISE);
  b.x_m = 20 * cell;
  b.z_m = 20 * cell;
  b.radius_m = 10 * cell;
  b.strength = 2.5;
  int32_t changed = 0;
  ASSERT_EQ(terrane_world_apply(w, &b, &changed), TERRANE_OK) << terrane_world_last_error(w);
  EXPECT_EQ(changed, 1);
  const std::vector<float> raised = world_heights(w, 0, 0, 41);
  // Full weight within falloff_start * radius: exactly +2.5 m at the centre (float sum).
  EXPECT_EQ(raised[20 * 41 + 20], before[20 * 41 + 20] + 2.5f);
  EXPECT_EQ(raised[0], before[0]);  // outside the radius
  // Queries see the stroke before it is committed.
  terrane_query* q = nullptr;
  ASSERT_EQ(terrane_world_query(w, &q), TERRANE_OK);
  double y = 0;
  ASSERT_EQ(terrane_query_height(q, 20 * cell, 20 * cell, &y), TERRANE_OK);
  EXPECT_EQ(float(y), raised[20 * 41 + 20]);
  terrane_query_free(q);

  // Block and paint strokes; names are checked against the preset.
  terrane_brush dig;
  terrane_brush_init(&dig, TERRANE_BRUSH_FILL);
  dig.x_m = 5;
  dig.y_m = 300;
  dig.z_m = 5;
  dig.block = "no such block";
  EXPECT_EQ(terrane_world_apply(w, &dig, nullptr), TERRANE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(terrane_world_last_error(w)).find("no such block"), std::string::npos);
  dig.block = "stone";
  ASSERT_EQ(terrane_world_apply(w, &dig, &changed), TERRANE_OK) << terrane_world_last_error(w);
  EXPECT_EQ(changed, 1);
  terrane_brush paint;
  terrane_brush_init(&paint, TERRANE_BRUSH_PAINT);
  paint.layer = "snow";
  paint.radius_m = 5 * cell;
  ASSERT_EQ(terrane_world_apply(w, &paint, &changed), TERRANE_OK) << terrane_world_last_error(w);
  terrane_brush bad;
  terrane_brush_init(&bad, 77);
  EXPECT_EQ(terrane_world_apply(w, &bad, nullptr), TERRANE_INVALID_ARGUMENT);
  terrane_world_info info{};
  ASSERT_EQ(terrane_world_get_info(w, &info), TERRANE_OK);
  EXPECT_EQ(info.pending_strokes, 3u);

  // Undo takes the paint, then the fill back; the raise stays.
  int32_t undone = 0;
  ASSERT_EQ(terrane_world_undo(w, &undone), TERRANE_OK);
  ASSERT_EQ(terrane_world_undo(w, &undone), TERRANE_OK);
  EXPECT_EQ(undone, 1);
  uint64_t seq = 0;
  ASSERT_EQ(terrane_world_commit(w, "raise at 20,20", &seq), TERRANE_OK)
      << terrane_world_last_error(w);
  EXPECT_EQ(seq, 1u);
  terrane_world_free(w);

  terrane_world* r = nullptr;
  ASSERT_EQ(terrane_world_open(path.c_str(), 1, &r), TERRANE_OK) << terrane_last_error();
  EXPECT_EQ(world_heights(r, 0, 0, 41), raised);
  ASSERT_EQ(terrane_world_get_info(r, &info), TERRANE_OK);
  EXPECT_EQ(info.commits, 1u);
  EXPECT_EQ(info.block_overrides, 0u);
  EXPECT_GT(info.height_tiles, 0u);
  // Off the lattice with edits: refused with the reason.
  std::vector<float> h(4);
  EXPECT_EQ(terrane_world_heights(r, 0.5 * cell, 0, 2, 2, 0, 0, h.data(), h.size(), nullptr),
            TERRANE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(terrane_world_last_error(r)).find("multiples"), std::string::npos);
  EXPECT_EQ(terrane_world_commit(r, nullptr, nullptr), TERRANE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(terrane_world_last_error(r)).find("read-only"), std::string::npos);
  terrane_preset* wp = nullptr;
  ASSERT_EQ(terrane_world_preset(r, &wp), TERRANE_OK);
  terrane_preset_info pi{}, wi{};
  terrane_preset_get_info(p, &pi);
  terrane_preset_get_info(wp, &wi);
  EXPECT_EQ(pi.hash, wi.hash);
  terrane_preset_free(wp);
  terrane_world_free(r);
  terrane_preset_free(p);
  std::filesystem::remove_all(dir);
}

}  // namespace
