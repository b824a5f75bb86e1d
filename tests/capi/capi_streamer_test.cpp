// The C API's streamer against the C++ chunk generator, and every C API function with bad
// arguments: a status and a one-line message, never a crash (run under ASan + UBSan in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "terrane/terrane.h"
#include "terrane/world.hpp"

namespace {

terrane_preset* load(const char* name, const char* override = nullptr) {
  terrane_preset* p = nullptr;
  EXPECT_EQ(terrane_preset_load(name, &override, override != nullptr ? 1 : 0, &p), TERRANE_OK)
      << terrane_last_error();
  return p;
}

// Streams until the view is complete; returns the visible set.
std::vector<terrane_visible_chunk> stream_to_complete(terrane_streamer* s, double x, double z) {
  terrane_viewer v{};
  v.x_m = x;
  v.z_m = z;
  EXPECT_EQ(terrane_streamer_set_viewers(s, &v, 1), TERRANE_OK);
  terrane_streamer_stats st{};
  for (int round = 0; round < 20000 && !st.view_complete; ++round) {
    EXPECT_EQ(terrane_streamer_update(s), TERRANE_OK) << terrane_streamer_last_error(s);
    EXPECT_EQ(terrane_streamer_poll(s, 0, 20.0, nullptr), TERRANE_OK);
    EXPECT_EQ(terrane_streamer_get_stats(s, &st), TERRANE_OK);
    // A frame's wait: poll never waits for the workers.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(st.view_complete);
  std::size_t n = 0;
  EXPECT_EQ(terrane_streamer_visible(s, nullptr, 0, &n), TERRANE_BUFFER_TOO_SMALL);
  std::vector<terrane_visible_chunk> out(n);
  EXPECT_EQ(terrane_streamer_visible(s, out.data(), out.size(), &n), TERRANE_OK);
  return out;
}

TEST(CApiStreamer, VisibleChunksAreTheGeneratorsChunks) {
  terrane_preset* p = load("default", "world.cell_size_m=2");
  terrane_streamer_params params;
  terrane_streamer_params_init(&params);
  params.chunk_cells = 128;  // terrane_scatter's chunks: the same level-0 triangles under trees
  params.view_distance_m = 600.0;
  params.threads = 2;
  params.surface = 1;
  params.worker_priority = 2;  // normal: the tests run beside others on busy cores
  terrane_streamer* s = nullptr;
  ASSERT_EQ(terrane_streamer_create(p, &params, &s), TERRANE_OK) << terrane_last_error();
  const std::vector<terrane_visible_chunk> visible = stream_to_complete(s, 50.0, -20.0);
  ASSERT_FALSE(visible.empty());

  terrane::ChunkSettings settings;
  settings.cells = 128;
  settings.indices = false;
  settings.surface = true;
  const terrane::ChunkGenerator gen(
      terrane::load_preset("default", std::vector<std::string>{"world.cell_size_m=2"}), settings);
  bool level0 = false;
  for (const terrane_visible_chunk& v : visible) {
    terrane_chunk_info info{};
    ASSERT_EQ(terrane_streamer_chunk_info(s, v.key, &info), TERRANE_OK)
        << terrane_streamer_last_error(s);
    terrane::ChunkData expected;
    gen.generate(terrane::ChunkKey{v.key.cx, v.key.cz, v.key.level}, {0, 0, 0, 0}, expected);
    EXPECT_EQ(info.content_hash, expected.content_hash());
    EXPECT_EQ(info.vertices, 129u * 129u);
    std::vector<float> pos(3 * info.vertices), nrm(3 * info.vertices), uv(2 * info.vertices),
        morph(info.vertices);
    std::size_t n = 0;
    ASSERT_EQ(terrane_streamer_chunk_mesh(s, v.key, pos.data(), nrm.data(), uv.data(), morph.data(),
                                          info.vertices, &n),
              TERRANE_OK);
    EXPECT_EQ(pos, expected.mesh.positions);
    EXPECT_EQ(nrm, expected.mesh.normals);
    EXPECT_EQ(uv, expected.mesh.uv_world);
    EXPECT_EQ(morph, expected.mesh.morph_y);
    std::size_t ni = 0;
    EXPECT_EQ(terrane_streamer_indices(s, v.stitch, nullptr, 0, &ni), TERRANE_BUFFER_TOO_SMALL);
    std::vector<uint32_t> idx(ni);
    ASSERT_EQ(terrane_streamer_indices(s, v.stitch, idx.data(), idx.size(), &ni), TERRANE_OK);
    EXPECT_EQ(ni % 3, 0u);
    for (uint32_t i : idx) ASSERT_LT(i, info.vertices);
    if (v.key.level == 0) {
      level0 = true;
      std::size_t ns = 0;
      terrane_streamer_chunk_instances(s, v.key, nullptr, 0, &ns);
      EXPECT_EQ(ns, expected.scatter.size());
      std::vector<terrane_instance> inst(ns);
      ASSERT_EQ(terrane_streamer_chunk_instances(s, v.key, inst.data(), ns, &ns), TERRANE_OK);
      // The same instances as terrane_scatter over the chunk's square, in the same order.
      const double side = 128.0 * 2.0;
      std::size_t nr = 0;
      terrane_scatter(p, double(v.key.cx) * side, double(v.key.cz) * side,
                      double(v.key.cx + 1) * side, double(v.key.cz + 1) * side, nullptr, 0, &nr);
      std::vector<terrane_instance> rect(nr);
      ASSERT_EQ(terrane_scatter(p, double(v.key.cx) * side, double(v.key.cz) * side,
                                double(v.key.cx + 1) * side, double(v.key.cz + 1) * side,
                                rect.data(), nr, &nr),
                TERRANE_OK);
      ASSERT_EQ(nr, ns);
      // The same instances to the byte (sorted by id: a call's order follows the chunks it
      // walks).
      auto by_id = [](const terrane_instance& a, const terrane_instance& b) { return a.id < b.id; };
      std::sort(rect.begin(), rect.end(), by_id);
      std::sort(inst.begin(), inst.end(), by_id);
      EXPECT_EQ(0, std::memcmp(rect.data(), inst.data(), ns * sizeof(terrane_instance)));
    }
  }
  EXPECT_TRUE(level0);
  // Events: every visible chunk came with a ready event since construction (the last update's
  // events hold at least no eviction of a visible chunk).
  std::size_t ne = 0;
  terrane_streamer_events(s, nullptr, 0, &ne);
  std::vector<terrane_chunk_event> events(ne);
  ASSERT_EQ(terrane_streamer_events(s, events.data(), events.size(), &ne), TERRANE_OK);
  terrane_query* q = nullptr;
  ASSERT_EQ(terrane_streamer_query(s, &q), TERRANE_OK);
  double y = 0;
  EXPECT_EQ(terrane_query_height(q, 50.0, -20.0, &y), TERRANE_OK);
  terrane_query_free(q);
  // A chunk that is not resident.
  terrane_chunk_info info{};
  EXPECT_EQ(terrane_streamer_chunk_info(s, terrane_chunk_key{999999, 5, 0}, &info),
            TERRANE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(terrane_streamer_last_error(s)).find("is not resident"), std::string::npos);
  EXPECT_STREQ(terrane_streamer_last_error(s), terrane_last_error());
  terrane_streamer_free(s);
  terrane_preset_free(p);
}

// Every function, NULL handles and pointers, bad sizes and values: a status, a message.
TEST(CApiBadInput, EveryFunctionAnswersWithAStatusAndAMessage) {
  auto expect_error = [](terrane_status s, terrane_status expected, const char* needle) {
    EXPECT_EQ(s, expected) << terrane_last_error();
    const std::string m = terrane_last_error();
    EXPECT_NE(m.find(needle), std::string::npos) << "message: " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  };
  terrane_preset* p = nullptr;
  expect_error(terrane_preset_load(nullptr, nullptr, 0, &p), TERRANE_INVALID_ARGUMENT,
               "name_or_path is NULL");
  expect_error(terrane_preset_load("default", nullptr, 0, nullptr), TERRANE_INVALID_ARGUMENT,
               "out is NULL");
  expect_error(terrane_preset_load("nosuchpreset", nullptr, 0, &p), TERRANE_IO, "nosuchpreset");
  EXPECT_EQ(p, nullptr);
  expect_error(terrane_preset_load("default", nullptr, 2, &p), TERRANE_INVALID_ARGUMENT,
               "overrides is NULL");
  const char* bad_override[] = {"world.cell_size_m=-3"};
  expect_error(terrane_preset_load("default", bad_override, 1, &p), TERRANE_INVALID_ARGUMENT,
               "cell_size_m");
  const char* null_override[] = {nullptr};
  expect_error(terrane_preset_load("default", null_override, 1, &p), TERRANE_INVALID_ARGUMENT,
               "overrides[0] is NULL");
  const char json[] = "{\"seed\": 3, \"world\": {\"cell_size_m\": }";
  expect_error(terrane_preset_parse(json, sizeof json - 1, "mine.json", nullptr, 0, &p),
               TERRANE_PARSE, "mine.json");
  const char unknown[] = "{\"sede\": 3}";
  expect_error(terrane_preset_parse(unknown, sizeof unknown - 1, nullptr, nullptr, 0, &p),
               TERRANE_INVALID_ARGUMENT, "sede");
  expect_error(terrane_preset_parse(nullptr, 5, nullptr, nullptr, 0, &p), TERRANE_INVALID_ARGUMENT,
               "json is NULL");
  terrane_preset_info info{};
  expect_error(terrane_preset_get_info(nullptr, &info), TERRANE_INVALID_ARGUMENT, "preset");
  EXPECT_EQ(terrane_preset_name(nullptr), nullptr);
  expect_error(terrane_preset_json(nullptr, nullptr, 0, nullptr), TERRANE_INVALID_ARGUMENT,
               "preset");
  terrane_preset_free(nullptr);

  ASSERT_EQ(terrane_preset_load("default", nullptr, 0, &p), TERRANE_OK);
  ASSERT_NE(p, nullptr);
  std::vector<float> h(16);
  std::size_t n = 0;
  expect_error(terrane_heights(nullptr, 0, 0, 4, 4, 0, 0, h.data(), h.size(), &n),
               TERRANE_INVALID_ARGUMENT, "preset is NULL");
  expect_error(terrane_heights(p, 0, 0, 0, 4, 0, 0, h.data(), h.size(), &n),
               TERRANE_INVALID_ARGUMENT, "1..65536");
  expect_error(terrane_heights(p, 0, 0, 4, 70000, 0, 0, h.data(), h.size(), &n),
               TERRANE_INVALID_ARGUMENT, "1..65536");
  expect_error(terrane_heights(p, 0, 0, 65536, 65536, 0, 0, h.data(), h.size(), &n), TERRANE_LIMIT,
               "2^30");
  expect_error(terrane_heights(p, 0, 0, 4, 4, -1, 0, h.data(), h.size(), &n),
               TERRANE_INVALID_ARGUMENT, "cell_m");
  expect_error(terrane_heights(p, 0, 0, 4, 4, std::numeric_limits<double>::quiet_NaN(), 0, h.data(),
                               h.size(), &n),
               TERRANE_INVALID_ARGUMENT, "finite");
  expect_error(terrane_heights(p, 2e12, 0, 4, 4, 0, 0, h.data(), h.size(), &n),
               TERRANE_INVALID_ARGUMENT, "outside the world");
  expect_error(terrane_heights(p, 0, 0, 4, 4, 0, 999, h.data(), h.size(), &n),
               TERRANE_INVALID_ARGUMENT, "threads");
  h.assign(16, -7.0f);
  expect_error(terrane_heights(p, 0, 0, 5, 4, 0, 0, h.data(), h.size(), &n),
               TERRANE_BUFFER_TOO_SMALL, "20 are needed");
  EXPECT_EQ(n, 20u);
  EXPECT_EQ(h[0], -7.0f);  // nothing written
  expect_error(terrane_heights(p, 0, 0, 5, 4, 0, 0, nullptr, 0, nullptr), TERRANE_BUFFER_TOO_SMALL,
               "NULL");
  EXPECT_EQ(terrane_heights_bound(0, 5), 0u);
  EXPECT_EQ(terrane_heights_bound(65536, 65536), 0u);
  EXPECT_EQ(terrane_heights_bound(300, 200), 60000u);
  expect_error(terrane_scatter(p, 10, 0, 0, 10, nullptr, 0, &n), TERRANE_INVALID_ARGUMENT, "empty");
  expect_error(terrane_scatter(p, 0, 0, 1e6, 10, nullptr, 0, &n), TERRANE_LIMIT, "65536");

  terrane_bake_options_init(nullptr);
  expect_error(terrane_bake(p, nullptr, nullptr), TERRANE_INVALID_ARGUMENT, "options is NULL");
  terrane_bake_options o;
  terrane_bake_options_init(&o);
  o.engine = "cryengine";
  expect_error(terrane_bake(p, &o, nullptr), TERRANE_INVALID_ARGUMENT, "cryengine");
  terrane_bake_options_init(&o);
  o.size = 1 << 20;
  expect_error(terrane_bake(p, &o, nullptr), TERRANE_INVALID_ARGUMENT, "size");

  terrane_query* q = nullptr;
  expect_error(terrane_query_create(nullptr, &q), TERRANE_INVALID_ARGUMENT, "preset is NULL");
  double y = 0;
  expect_error(terrane_query_height(nullptr, 0, 0, &y), TERRANE_INVALID_ARGUMENT, "query is NULL");
  ASSERT_EQ(terrane_query_create(p, &q), TERRANE_OK);
  expect_error(terrane_query_height(q, std::numeric_limits<double>::infinity(), 0, &y),
               TERRANE_INVALID_ARGUMENT, "inf");
  expect_error(terrane_query_height(q, 0, 0, nullptr), TERRANE_INVALID_ARGUMENT, "height_m");
  const double o3[3] = {0, 100, 0}, zero[3] = {0, 0, 0};
  int32_t hit = 0;
  expect_error(terrane_query_raycast(q, o3, zero, 100, &hit, nullptr), TERRANE_INVALID_ARGUMENT,
               "direction");
  terrane_query_free(q);
  terrane_query_free(nullptr);

  terrane_streamer_params sp;
  terrane_streamer_params_init(&sp);
  terrane_streamer* s = nullptr;
  sp.chunk_cells = 100;
  expect_error(terrane_streamer_create(p, &sp, &s), TERRANE_INVALID_ARGUMENT, "cells");
  terrane_streamer_params_init(&sp);
  sp.worker_priority = 7;
  expect_error(terrane_streamer_create(p, &sp, &s), TERRANE_INVALID_ARGUMENT, "worker_priority");
  expect_error(terrane_streamer_create(p, nullptr, &s), TERRANE_INVALID_ARGUMENT, "params");
  expect_error(terrane_streamer_update(nullptr), TERRANE_INVALID_ARGUMENT, "streamer is NULL");
  expect_error(terrane_streamer_poll(nullptr, 0, 1, nullptr), TERRANE_INVALID_ARGUMENT,
               "streamer is NULL");
  EXPECT_STREQ(terrane_streamer_last_error(nullptr), "streamer is NULL");
  terrane_streamer_free(nullptr);
  terrane_streamer_params_init(&sp);
  sp.chunk_cells = 16;
  sp.view_distance_m = 64;
  sp.threads = 1;
  ASSERT_EQ(terrane_streamer_create(p, &sp, &s), TERRANE_OK) << terrane_last_error();
  terrane_viewer v{};
  v.x_m = std::numeric_limits<double>::quiet_NaN();
  expect_error(terrane_streamer_set_viewers(s, &v, 1), TERRANE_INVALID_ARGUMENT, "nan");
  expect_error(terrane_streamer_set_viewers(s, nullptr, 1), TERRANE_INVALID_ARGUMENT, "viewers");
  std::vector<terrane_viewer> many(65);
  expect_error(terrane_streamer_set_viewers(s, many.data(), many.size()), TERRANE_INVALID_ARGUMENT,
               "64");
  expect_error(terrane_streamer_poll(s, 0, -1, nullptr), TERRANE_INVALID_ARGUMENT, "max_ms");
  const int32_t bad_stitch[4] = {0, 9, 0, 0};
  expect_error(terrane_streamer_indices(s, bad_stitch, nullptr, 0, &n), TERRANE_INVALID_ARGUMENT,
               "stitch[1]");
  expect_error(terrane_streamer_chunk_mesh(s, terrane_chunk_key{0, 0, 0}, nullptr, nullptr, nullptr,
                                           nullptr, 0, &n),
               TERRANE_INVALID_ARGUMENT, "not resident");
  expect_error(terrane_streamer_get_stats(s, nullptr), TERRANE_INVALID_ARGUMENT, "out is NULL");
  terrane_streamer_free(s);

  terrane_path_result r{};
  expect_error(terrane_nav_path(p, nullptr, 0, 0, 10, 10, -1, 0, nullptr, 0, &n, &r),
               TERRANE_INVALID_ARGUMENT, "margin_m");
  terrane_nav_agent agent;
  terrane_nav_agent_init(&agent);
  agent.slope_deg = 95;
  expect_error(terrane_nav_path(p, &agent, 0, 0, 10, 10, 0, 0, nullptr, 0, &n, &r),
               TERRANE_INVALID_ARGUMENT, "slope");
  expect_error(terrane_nav_path(p, nullptr, 0, 0, 10, 10, 0, 0, nullptr, 0, &n, nullptr),
               TERRANE_INVALID_ARGUMENT, "result is NULL");

  terrane_world* w = nullptr;
  expect_error(terrane_world_open("/nonexistent/dir/w.terrane", 1, &w), TERRANE_IO,
               "/nonexistent/dir/w.terrane");
  expect_error(terrane_world_open(nullptr, 1, &w), TERRANE_INVALID_ARGUMENT, "path is NULL");
  expect_error(terrane_world_create("/nonexistent/dir/w.terrane", p, 0, &w), TERRANE_IO,
               "/nonexistent/dir");
  expect_error(terrane_world_apply(nullptr, nullptr, nullptr), TERRANE_INVALID_ARGUMENT,
               "world is NULL");
  expect_error(terrane_world_commit(nullptr, nullptr, nullptr), TERRANE_INVALID_ARGUMENT,
               "world is NULL");
  terrane_world_free(nullptr);
  terrane_brush_init(nullptr, 0);
  terrane_nav_agent_init(nullptr);
  terrane_preset_free(p);
}

TEST(CApiBadInput, TheLastErrorBelongsToTheThread) {
  terrane_preset* p = nullptr;
  EXPECT_EQ(terrane_preset_load("nosuchpreset", nullptr, 0, &p), TERRANE_IO);
  std::string other;
  std::thread t([&] { other = terrane_last_error(); });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(terrane_last_error()).find("nosuchpreset"), std::string::npos);
}

}  // namespace
