// The C API's world files: strokes on every layer the C API takes (heights, blocks, paint),
// undo, commit, and a read-only reopen that sees exactly what was committed.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "terrane/store.hpp"
#include "terrane/terrane.h"

namespace {

std::vector<float> world_heights(const terrane_world* w, double x0, double z0, int n) {
  std::vector<float> h(std::size_t(n) * std::size_t(n));
  EXPECT_EQ(terrane_world_heights(w, x0, z0, n, n, 0, 0, h.data(), h.size(), nullptr), TERRANE_OK)
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

// A stroke that changed nothing is no undo step: undo takes back the stroke before it.
TEST(CApiWorld, UndoSkipsStrokesThatChangedNothing) {
  const auto dir = std::filesystem::temp_directory_path() / "terrane_capi_world_undo";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  terrane_preset* p = nullptr;
  ASSERT_EQ(terrane_preset_load("default", nullptr, 0, &p), TERRANE_OK);
  terrane_world* w = nullptr;
  ASSERT_EQ(terrane_world_create((dir / "w.terrane").string().c_str(), p, 0, &w), TERRANE_OK);
  terrane_preset_info info{};
  ASSERT_EQ(terrane_preset_get_info(p, &info), TERRANE_OK);
  const double cell = info.cell_size_m;
  const std::vector<float> before = world_heights(w, 0, 0, 9);
  terrane_brush raise;
  terrane_brush_init(&raise, TERRANE_BRUSH_RAISE);
  raise.x_m = 4 * cell;
  raise.z_m = 4 * cell;
  raise.radius_m = 2 * cell;
  int32_t changed = 0;
  ASSERT_EQ(terrane_world_apply(w, &raise, &changed), TERRANE_OK);
  ASSERT_EQ(changed, 1);
  // Nothing to regrow and nothing to restore: no change in either layer.
  terrane_brush regrow;
  terrane_brush_init(&regrow, TERRANE_BRUSH_REGROW);
  ASSERT_EQ(terrane_world_apply(w, &regrow, &changed), TERRANE_OK) << terrane_world_last_error(w);
  EXPECT_EQ(changed, 0);
  terrane_brush restore;
  terrane_brush_init(&restore, TERRANE_BRUSH_RESTORE);
  restore.y_m = 500;
  ASSERT_EQ(terrane_world_apply(w, &restore, &changed), TERRANE_OK);
  EXPECT_EQ(changed, 0);
  int32_t undone = 0;
  ASSERT_EQ(terrane_world_undo(w, &undone), TERRANE_OK);
  EXPECT_EQ(undone, 1);
  EXPECT_EQ(world_heights(w, 0, 0, 9), before);  // the raise is gone
  ASSERT_EQ(terrane_world_undo(w, &undone), TERRANE_OK);
  EXPECT_EQ(undone, 0);
  terrane_world_free(w);
  terrane_preset_free(p);
  std::filesystem::remove_all(dir);
}

// Instance brushes, and a streamer that shows the world's strokes as they are made.
TEST(CApiWorld, InstanceBrushesAndAStreamerOfTheWorld) {
  const auto dir = std::filesystem::temp_directory_path() / "terrane_capi_world_stream";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.terrane").string();
  const char* small_cells[] = {"world.cell_size_m=2"};
  terrane_preset* p = nullptr;
  ASSERT_EQ(terrane_preset_load("default", small_cells, 1, &p), TERRANE_OK);
  terrane_world* w = nullptr;
  ASSERT_EQ(terrane_world_create(path.c_str(), p, 0, &w), TERRANE_OK) << terrane_last_error();

  // Fell the trees of a disc: terrane_scatter there lists them; after the stroke the streamed
  // chunk holds none of them.
  std::size_t n = 0;
  terrane_scatter(p, 0, 0, 256, 256, nullptr, 0, &n);
  std::vector<terrane_instance> before(n);
  ASSERT_EQ(terrane_scatter(p, 0, 0, 256, 256, before.data(), n, &n), TERRANE_OK);
  terrane_brush fell;
  terrane_brush_init(&fell, TERRANE_BRUSH_FELL);
  fell.x_m = 128;
  fell.z_m = 128;
  fell.radius_m = 40;
  int32_t changed = 0;
  ASSERT_EQ(terrane_world_apply(w, &fell, &changed), TERRANE_OK) << terrane_world_last_error(w);
  EXPECT_EQ(changed, 1);
  terrane_brush plant;
  terrane_brush_init(&plant, TERRANE_BRUSH_PLANT);
  plant.x_m = 128.5;
  plant.z_m = 127.5;
  plant.species = "no such species";
  EXPECT_EQ(terrane_world_apply(w, &plant, nullptr), TERRANE_INVALID_ARGUMENT);
  plant.species = terrane_preset_species_name(p, 0);
  ASSERT_EQ(terrane_world_apply(w, &plant, &changed), TERRANE_OK) << terrane_world_last_error(w);
  terrane_brush raise;
  terrane_brush_init(&raise, TERRANE_BRUSH_RAISE);
  raise.x_m = -64;  // in chunk (-1, -1): the raised ground moves that chunk's scatter
  raise.z_m = -64;
  raise.radius_m = 20;
  raise.strength = 3;
  ASSERT_EQ(terrane_world_apply(w, &raise, &changed), TERRANE_OK);

  terrane_streamer_params params;
  terrane_streamer_params_init(&params);
  params.view_distance_m = 400;
  params.surface = 1;
  params.threads = 2;
  params.worker_priority = 2;
  terrane_streamer* s = nullptr;
  ASSERT_EQ(terrane_streamer_create(p, &params, &s), TERRANE_OK);
  ASSERT_EQ(terrane_streamer_set_world(s, w), TERRANE_OK) << terrane_streamer_last_error(s);
  terrane_viewer v{};
  v.x_m = 128;
  v.z_m = 128;
  ASSERT_EQ(terrane_streamer_set_viewers(s, &v, 1), TERRANE_OK);
  auto run = [&](bool until_updated) {
    terrane_streamer_stats st{};
    for (int round = 0; round < 20000; ++round) {
      ASSERT_EQ(terrane_streamer_update(s), TERRANE_OK);
      ASSERT_EQ(terrane_streamer_poll(s, 0, 20.0, nullptr), TERRANE_OK);
      ASSERT_EQ(terrane_streamer_get_stats(s, &st), TERRANE_OK);
      if (st.view_complete && (!until_updated || st.updated > 0)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    FAIL() << "the view did not complete";
  };
  run(false);
  const terrane_chunk_key key{0, 0, 0};  // 256 m chunk over the felled disc
  std::size_t ni = 0;
  ASSERT_EQ(terrane_streamer_chunk_instances(s, key, nullptr, 0, &ni), TERRANE_BUFFER_TOO_SMALL);
  std::vector<terrane_instance> streamed(ni);
  ASSERT_EQ(terrane_streamer_chunk_instances(s, key, streamed.data(), ni, &ni), TERRANE_OK);
  std::size_t felled = 0, planted = 0;
  for (const terrane_instance& b : before) {
    if (std::hypot(b.x_m - 128, b.z_m - 128) <= 40) ++felled;
  }
  for (const terrane_instance& t : streamed) {
    if (t.x_m == 128.5 && t.z_m == 127.5) {
      ++planted;
      continue;
    }
    EXPECT_GT(std::hypot(t.x_m - 128, t.z_m - 128), 40.0);
  }
  ASSERT_GT(felled, 0u);
  EXPECT_EQ(planted, 1u);
  EXPECT_EQ(ni, before.size() - felled + 1);
  terrane_query* q = nullptr;
  ASSERT_EQ(terrane_streamer_query(s, &q), TERRANE_OK);
  double raised = 0, base = 0;
  ASSERT_EQ(terrane_query_height(q, -64, -64, &raised), TERRANE_OK);
  terrane_query_free(q);
  terrane_query* q0 = nullptr;
  ASSERT_EQ(terrane_query_create(p, &q0), TERRANE_OK);
  ASSERT_EQ(terrane_query_height(q0, -64, -64, &base), TERRANE_OK);
  terrane_query_free(q0);
  EXPECT_FLOAT_EQ(float(raised), float(base) + 3.0f);

  // Undo the raise; after set_world the resident chunks under it are updated.
  int32_t undone = 0;
  ASSERT_EQ(terrane_world_undo(w, &undone), TERRANE_OK);
  ASSERT_EQ(terrane_streamer_set_world(s, w), TERRANE_OK);
  run(true);
  terrane_streamer_stats st{};
  ASSERT_EQ(terrane_streamer_get_stats(s, &st), TERRANE_OK);
  EXPECT_GT(st.updated, 0u);
  ASSERT_EQ(terrane_streamer_query(s, &q), TERRANE_OK);
  ASSERT_EQ(terrane_query_height(q, -64, -64, &raised), TERRANE_OK);
  EXPECT_EQ(raised, base);
  terrane_query_free(q);

  uint64_t seq = 0;
  ASSERT_EQ(terrane_world_commit(w, "fell and plant", &seq), TERRANE_OK);
  terrane_world_info info{};
  ASSERT_EQ(terrane_world_get_info(w, &info), TERRANE_OK);
  EXPECT_EQ(info.instance_overrides, felled + 1);
  terrane_streamer_free(s);
  terrane_world_free(w);
  terrane_preset_free(p);
  std::filesystem::remove_all(dir);
}

}  // namespace
