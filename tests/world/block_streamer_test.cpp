// BlockStreamer: a flight fills the view cylinder without holes, every chunk it delivers equals
// the generator's (meshed) output, events pair up, jobs are cancelled when the viewer leaves,
// and the budget holds.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "terrane/world.hpp"

namespace terrane {
namespace {

const Preset& blocks_preset() {
  static const Preset p = load_preset("default");
  return p;
}

// Runs frames (update + poll) until the view is complete or `frames` frames have passed.
bool settle(BlockStreamer& s, int frames) {
  for (int f = 0; f < frames; ++f) {
    s.update();
    s.poll();
    if (s.stats().view_complete && s.stats().queued == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// Every resident chunk is exactly the generator's chunk (on the given edits), meshed as the
// params' AO mode says, with the padded volume's opaque column masks as its occupancy where the
// mode and a non-empty mesh call for them.
void expect_generators_chunks(const BlockStreamer& s, const HeightEditSnapshot* heights = nullptr,
                              const BlockEditSnapshot* blocks = nullptr) {
  const BlockAo ao = s.params().ambient_occlusion;
  BlockChunkData data;
  BlockMesh mesh;
  std::vector<std::uint16_t> a, b;
  std::size_t with_occupancy = 0;
  for (const BlockChunkResident* c : s.resident()) {
    s.generator().generate(c->key, data, nullptr, {}, heights, blocks);
    build_block_mesh(data.volume, s.generator().palette(), mesh, nullptr,
                     BlockMeshOptions{.ambient_occlusion = ao == BlockAo::baked});
    c->blocks.decode(a);
    data.chunk.decode(b);
    ASSERT_EQ(a, b);
    ASSERT_EQ(c->mesh.opaque.size(), mesh.opaque.size());
    for (std::size_t q = 0; q < mesh.opaque.size(); ++q) {
      ASSERT_EQ(c->mesh.opaque[q].bits, mesh.opaque[q].bits);
    }
    ASSERT_EQ(c->mesh.translucent.size(), mesh.translucent.size());
    for (std::size_t q = 0; q < mesh.translucent.size(); ++q) {
      ASSERT_EQ(c->mesh.translucent[q].bits, mesh.translucent[q].bits);
    }
    const bool drawn = !(mesh.opaque.empty() && mesh.translucent.empty());
    if (ao == BlockAo::occupancy && drawn) {
      ASSERT_EQ(c->occupancy, data.volume.opaque_columns);
      ++with_occupancy;
    } else {
      ASSERT_TRUE(c->occupancy.empty());
    }
  }
  if (ao == BlockAo::occupancy) {
    EXPECT_GT(with_occupancy, 0u);
  }
}

TEST(BlockStreamer, EachAmbientOcclusionModeDeliversTheMesherOutputOfThatMode) {
  for (const BlockAo ao : {BlockAo::baked, BlockAo::none}) {
    BlockStreamerParams params;
    params.view_distance_m = 40.0;
    params.vertical_distance_m = 24.0;
    params.threads = 2;
    params.ambient_occlusion = ao;
    BlockStreamer s(blocks_preset(), params);
    Viewer v;
    v.x_m = 100.0, v.y_m = 380.0, v.z_m = 100.0;
    s.set_viewers({&v, 1});
    ASSERT_TRUE(settle(s, 20000));
    expect_generators_chunks(s);
  }
}

// Runs frames until the pending update is swapped in, checking that it comes in one poll: the
// updated events of a frame are the whole group. Returns the updated keys.
std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> run_update(
    BlockStreamer& s,
    const std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, const BlockChunkResident*>&
        before) {
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> updated;
  const std::size_t pending = s.stats().updates_pending;
  for (int f = 0; f < 40000 && updated.empty(); ++f) {
    s.update();
    s.poll();
    for (const BlockChunkEvent& e : s.events()) {
      if (e.kind != BlockEventKind::updated) continue;
      const auto k = std::make_tuple(e.key.cx, e.key.cy, e.key.cz);
      EXPECT_TRUE(updated.insert(k).second) << "updated twice";
      // The same resident object, with new contents.
      const auto it = before.find(k);
      EXPECT_TRUE(it != before.end() && it->second == e.chunk);
    }
    if (updated.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(updated.size(), pending) << "the update came in pieces";
  EXPECT_EQ(s.stats().updates_pending, 0u);
  return updated;
}

// set_edits: the chunks whose blocks read a changed part of the edits, and only those, are
// regenerated and swapped in together; afterwards every resident chunk is the generator's chunk
// on the edits, and taking the edits away gives the procedural chunks back.
TEST(BlockStreamer, EditsRegenerateTheChunksTheyTouchTogether) {
  const Preset& preset = blocks_preset();
  BlockStreamerParams params;
  params.view_distance_m = 96.0;  // 3 chunks out: more chunks than the edits reach
  params.vertical_distance_m = 32.0;
  params.threads = 2;
  BlockStreamer s(preset, params);
  Viewer v;
  v.x_m = 100.0, v.y_m = 380.0, v.z_m = 100.0;
  s.set_viewers({&v, 1});
  ASSERT_TRUE(settle(s, 20000));
  const auto residents = [&] {
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, const BlockChunkResident*> m;
    for (const BlockChunkResident* c : s.resident()) m[{c->key.cx, c->key.cy, c->key.cz}] = c;
    return m;
  };
  const auto expected_updates = [&](const HeightEditSnapshot* h0, const BlockEditSnapshot* b0,
                                    const HeightEditSnapshot* h1, const BlockEditSnapshot* b1) {
    std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> keys;
    for (const BlockChunkResident* c : s.resident()) {
      if (!s.generator().reads_same_edits(c->key, h0, b0, h1, b1)) {
        keys.insert({c->key.cx, c->key.cy, c->key.cz});
      }
    }
    return keys;
  };

  // A dug sphere and a filled one at the viewer: block overrides are local, so only the chunks
  // holding them and their neighbours (whose padding shows them) change.
  const VoxelParams& vp = preset.voxel;
  BlockEdits blocks(vp.block_size_m, vp.chunk_size, int(vp.palette.types.size()));
  BlockBrush dig;
  dig.kind = BlockBrushKind::dig;
  dig.x_m = 100.0, dig.y_m = 380.0, dig.z_m = 100.0, dig.radius_m = 6.0;
  const BlockBox dug = blocks.apply(dig);
  BlockBrush fill = dig;
  fill.kind = BlockBrushKind::fill;
  fill.x_m = 112.0, fill.radius_m = 3.0;
  fill.block = s.generator().block_id("glass");
  const BlockBox filled = blocks.apply(fill);
  const std::shared_ptr<const BlockEditSnapshot> b1 = blocks.snapshot();
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> want =
      expected_updates(nullptr, nullptr, nullptr, b1.get());
  ASSERT_GT(want.size(), 0u);
  EXPECT_LT(want.size(), s.resident().size());
  // Only chunks whose padded box (one block beyond the chunk) meets a changed box.
  const std::int64_t S = vp.chunk_size;
  for (const auto& [cx, cy, cz] : want) {
    const auto meets = [&](const BlockBox& b) {
      return b.x0 <= cx * S + S && b.x1 >= cx * S - 1 && b.y0 <= cy * S + S && b.y1 >= cy * S - 1 &&
             b.z0 <= cz * S + S && b.z1 >= cz * S - 1;
    };
    EXPECT_TRUE(meets(dug) || meets(filled)) << "chunk " << cx << ", " << cy << ", " << cz;
  }
  auto before = residents();
  s.set_edits(nullptr, b1);
  EXPECT_EQ(s.stats().updates_pending, want.size());
  EXPECT_EQ(run_update(s, before), want);
  expect_generators_chunks(s, nullptr, b1.get());
  EXPECT_EQ(s.stats().updated, want.size());

  // A raise of the ground: with lakes, it reaches every chunk whose lake windows contain it.
  HeightEdits heights(preset.world.cell_size_m, 128);
  HeightBrush raise;
  raise.x_m = 90.0, raise.z_m = 95.0, raise.radius_m = 12.0, raise.strength_m = 4.0;
  heights.apply(raise, compile(preset));
  const std::shared_ptr<const HeightEditSnapshot> h1 = heights.snapshot();
  want = expected_updates(nullptr, b1.get(), h1.get(), b1.get());
  ASSERT_GT(want.size(), 0u);
  before = residents();
  s.set_edits(h1, b1);
  EXPECT_EQ(run_update(s, before), want);
  expect_generators_chunks(s, h1.get(), b1.get());

  // Two calls in a row join one update; no edits at all give the procedural world back.
  want = expected_updates(h1.get(), b1.get(), nullptr, nullptr);
  before = residents();
  s.set_edits(h1, nullptr);
  s.set_edits(nullptr, nullptr);
  EXPECT_EQ(run_update(s, before), want);
  expect_generators_chunks(s);

  // Edits of another world are refused.
  EXPECT_THROW(s.set_edits(nullptr, std::make_shared<const BlockEditSnapshot>(
                                        vp.block_size_m, 16, int(vp.palette.types.size()),
                                        BlockEditSnapshot::ChunkMap{})),
               Error);
}

TEST(BlockStreamer, FillsTheViewWithTheGeneratorsChunksAndEvictsBehind) {
  BlockStreamerParams params;
  params.view_distance_m = 80.0;
  params.vertical_distance_m = 40.0;
  params.threads = 2;
  BlockStreamer s(blocks_preset(), params);
  Viewer v;
  v.x_m = 100.0, v.y_m = 380.0, v.z_m = 100.0;
  s.set_viewers({&v, 1});
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, int> live;
  auto track = [&] {
    for (const BlockChunkEvent& e : s.events()) {
      const auto k = std::make_tuple(e.key.cx, e.key.cy, e.key.cz);
      if (e.kind == BlockEventKind::ready) {
        EXPECT_EQ(live[k], 0) << "ready twice";
        live[k] = 1;
        ASSERT_NE(e.chunk, nullptr);
      } else {
        EXPECT_EQ(live[k], 1) << "evicted without ready";
        live[k] = 0;
      }
    }
  };
  for (int f = 0; f < 20000; ++f) {
    s.update();
    s.poll();
    track();  // events since the start of update(): its evictions, then poll()'s ready ones
    if (s.stats().view_complete && s.stats().queued == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const BlockStreamerStats st = s.stats();
  ASSERT_TRUE(st.view_complete);
  EXPECT_EQ(st.holes, 0u);
  EXPECT_GT(st.wanted, 20u);
  EXPECT_EQ(st.resident, st.wanted);
  EXPECT_GT(st.quads, 0u);
  EXPECT_LE(st.resident_bytes, params.budget_bytes);
  expect_generators_chunks(s);
  // Fly away: everything is evicted (or its job cancelled / dropped), and the new view fills.
  v.x_m += 2000.0;
  s.set_viewers({&v, 1});
  for (int f = 0; f < 20000; ++f) {
    s.update();
    s.poll();
    track();  // events since the start of update(): its evictions, then poll()'s ready ones
    if (s.stats().view_complete && s.stats().queued == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(s.stats().view_complete);
  EXPECT_GT(s.stats().evicted, 0u);
  for (const auto& [k, alive] : live) {
    if (alive == 0) continue;
    // Every live chunk is near the new position.
    EXPECT_GT(double(std::get<0>(k)) * 32.0, v.x_m - 400.0);
  }
}

TEST(BlockStreamer, QueuedJobsAreCancelledWhenTheViewerJumps) {
  BlockStreamerParams params;
  params.view_distance_m = 160.0;
  params.vertical_distance_m = 64.0;
  params.threads = 1;
  BlockStreamer s(blocks_preset(), params);
  Viewer v;
  v.y_m = 300.0;
  for (int jump = 0; jump < 4; ++jump) {
    v.x_m = 5000.0 * jump;
    s.set_viewers({&v, 1});
    s.update();
    s.poll();
  }
  EXPECT_GT(s.stats().cancelled, 0u);
  EXPECT_TRUE(settle(s, 40000));
}

TEST(BlockStreamer, BadParamsAreRefused) {
  BlockStreamerParams params;
  params.view_distance_m = 0.0;
  try {
    BlockStreamer s(blocks_preset(), params);
    FAIL() << "accepted a zero view distance";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("view_distance_m 0 must be in (0, 4096] m"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace terrane
