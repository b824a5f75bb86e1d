// Scatter instance overrides (edit.hpp): what each operation leaves in the layer, apply_to on a
// list of instances, timers, undo and redo to the bit, the snapshot's checks and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "support/edit_strokes.hpp"
#include "support/expect_error.hpp"
#include "terrane/edit.hpp"

namespace terrane {
namespace {

// The expression must throw Error(category) whose message names `needle` (test::expect_error).
#define EXPECT_ERROR(expr, category, needle) \
  test::expect_error([&] { (void)(expr); }, ErrorCategory::category, {needle})

// A chunk's scatter: five instances inside [0, 64)^2.
std::vector<ScatterInstance> scatter() {
  return {test::posed_instance(11, 1.0, 2.0), test::posed_instance(12, 10.0, 20.0),
          test::posed_instance(13, 30.5, 4.25), test::posed_instance(14, 63.75, 63.75, 1),
          test::posed_instance(15, 0.0, 0.0)};
}

std::vector<ScatterInstance> applied(const InstanceEditSnapshot& s) {
  std::vector<ScatterInstance> v = scatter();
  s.apply_to(0.0, 0.0, 64.0, 64.0, v);
  return v;
}

std::vector<std::uint64_t> ids(const std::vector<ScatterInstance>& v) {
  std::vector<std::uint64_t> out;
  for (const ScatterInstance& p : v) out.push_back(p.id);
  return out;
}

TEST(InstanceEdits, RemoveStateMoveAddAndRestore) {
  InstanceEdits e(64.0);
  const std::vector<ScatterInstance> base = scatter();
  EXPECT_EQ(e.remove({&base[0], 1}).at.size(), 1u);
  EXPECT_EQ(e.set_state({&base[1], 1}, 7).at.size(), 1u);
  // Moved out of the rectangle: gone from it, present in the chunk it went to.
  const InstanceChanges moved = e.move(base[2], -5.0, 4.0, 90.0f);
  ASSERT_EQ(moved.at.size(), 2u);
  EXPECT_EQ(moved.at[0], (std::array<double, 2>{30.5, 4.25}));
  EXPECT_EQ(moved.at[1], (std::array<double, 2>{-5.0, 4.0}));
  std::uint64_t added = 0;
  ScatterInstance placed = test::posed_instance(0, 40.0, 41.0, 1);
  placed.state = 3;
  EXPECT_EQ(e.add(placed, 0.0, &added).at.size(), 1u);
  EXPECT_NE(added, 0u);

  const InstanceEditSnapshot& s = e.current();
  EXPECT_EQ(s.count(InstanceChange::removed), 2u);
  EXPECT_EQ(s.count(InstanceChange::state), 1u);
  EXPECT_EQ(s.count(InstanceChange::added), 2u);
  EXPECT_EQ(s.max_species(), 1);
  const std::vector<ScatterInstance> v = applied(s);
  EXPECT_EQ(ids(v), (std::vector<std::uint64_t>{12, 14, 15, added}));
  EXPECT_EQ(v[0].state, 7u);
  EXPECT_EQ(v[1].state, 0u);
  EXPECT_EQ(v[3].x_m, 40.0);
  EXPECT_EQ(v[3].z_m, 41.0);
  EXPECT_EQ(v[3].species, 1);
  EXPECT_EQ(v[3].state, 3u);
  EXPECT_EQ(v[3].scale_y, 2.0f);
  // The moved instance in the chunk west of it, with its id, pose and scales.
  std::vector<ScatterInstance> west;
  EXPECT_EQ(s.apply_to(-64.0, 0.0, 0.0, 64.0, west), 1u);
  ASSERT_EQ(west.size(), 1u);
  EXPECT_EQ(west[0].id, 13u);
  EXPECT_EQ(west[0].x_m, -5.0);
  EXPECT_EQ(west[0].yaw_deg, 90.0f);
  EXPECT_EQ(west[0].scale_xz, 1.5f);

  // Removing an added (or moved) instance drops it; state 0 without timer is no override.
  EXPECT_FALSE(e.remove({&west[0], 1}).empty());
  EXPECT_EQ(s.count(InstanceChange::added), 1u);
  EXPECT_FALSE(e.set_state({&v[0], 1}, 0).empty());
  EXPECT_EQ(s.count(InstanceChange::state), 0u);
  // Restoring by id brings the scatter's instance back.
  const std::uint64_t back[] = {11, 13};
  EXPECT_EQ(e.restore(back).at.size(), 2u);
  EXPECT_EQ(ids(applied(s)), (std::vector<std::uint64_t>{11, 12, 13, 14, 15, added}));
  // Nothing to change: no step.
  const std::size_t steps = e.undo_steps();
  EXPECT_TRUE(e.restore(back).empty());
  EXPECT_EQ(e.undo_steps(), steps);
}

// A move within one chunk keeps both entries: the scatter's instance stays removed at its old
// place and stands at its new one, once.
TEST(InstanceEdits, AMoveWithinItsChunkLeavesOneInstance) {
  InstanceEdits e(64.0);
  const std::vector<ScatterInstance> base = scatter();
  e.move(base[1], 40.0, 50.0, 0.0f);
  EXPECT_EQ(e.current().override_count(), 2u);
  std::vector<ScatterInstance> v = applied(e.current());
  EXPECT_EQ(ids(v), (std::vector<std::uint64_t>{11, 13, 14, 15, 12}));
  EXPECT_EQ(v.back().x_m, 40.0);
  // Moved again, and back to where the scatter put it: still one instance, at that place.
  e.move(v.back(), 41.0, 51.0, 0.0f);
  EXPECT_EQ(e.current().override_count(), 2u);
  v = applied(e.current());
  EXPECT_EQ(v.size(), base.size());
  EXPECT_EQ(v.back().x_m, 41.0);
  ASSERT_NE(e.current().find(12, 41.0, 51.0), nullptr);
  EXPECT_EQ(e.current().find(12, 41.0, 51.0)->change, InstanceChange::added);
  EXPECT_EQ(e.current().find(12, 10.0, 20.0)->change, InstanceChange::removed);
  // Felling the moved instance removes it for good; restoring its id brings the original back.
  e.remove({&v.back(), 1});
  EXPECT_EQ(ids(applied(e.current())), (std::vector<std::uint64_t>{11, 13, 14, 15}));
  const std::uint64_t id = 12;
  e.restore({&id, 1});
  EXPECT_EQ(ids(applied(e.current())), ids(base));
}

TEST(InstanceEdits, UndoRedoGiveTheBitsBack) {
  InstanceEdits e(32.0);
  const std::vector<ScatterInstance> base = scatter();
  std::vector<std::uint64_t> hashes{e.current().content_hash()};
  e.remove({base.data(), 2}, 30.0);
  hashes.push_back(e.current().content_hash());
  e.move(base[3], 100.0, -100.0, 5.0f);
  hashes.push_back(e.current().content_hash());
  e.add(test::posed_instance(0, -7.0, 9.0), 12.0);
  hashes.push_back(e.current().content_hash());
  for (std::size_t k = hashes.size() - 1; k > 0; --k) {
    EXPECT_FALSE(e.undo().empty());
    EXPECT_EQ(e.current().content_hash(), hashes[k - 1]) << k;
  }
  EXPECT_TRUE(e.current().empty());
  EXPECT_TRUE(e.undo().empty());
  for (std::size_t k = 1; k < hashes.size(); ++k) {
    EXPECT_FALSE(e.redo().empty());
    EXPECT_EQ(e.current().content_hash(), hashes[k]) << k;
  }
  // A snapshot keeps its state while the owner goes on.
  const auto snap = e.snapshot();
  e.undo();
  EXPECT_EQ(snap->content_hash(), hashes.back());
}

TEST(InstanceEdits, TimersLapse) {
  InstanceEdits e(64.0);
  const std::vector<ScatterInstance> base = scatter();
  e.remove({&base[0], 1}, 10.0);                  // regrows after 10 s
  e.set_state({&base[1], 1}, 2, 4.0);             // reverts after 4 s
  e.add(test::posed_instance(0, 5.0, 5.0), 6.0);  // goes after 6 s
  e.remove({&base[2], 1});                        // for good
  EXPECT_EQ(applied(e.current()).size(), 4u);     // 11 and 13 gone, one added
  EXPECT_TRUE(e.advance(3.0).empty());
  EXPECT_EQ(e.undo_steps(), 4u);
  EXPECT_EQ(e.advance(1.0).at.size(), 1u);  // the state
  EXPECT_EQ(e.undo_steps(), 0u);            // time moved on
  EXPECT_EQ(applied(e.current())[0].state, 0u);
  EXPECT_EQ(e.advance(2.0).at.size(), 1u);  // the added one
  EXPECT_EQ(ids(applied(e.current())), (std::vector<std::uint64_t>{12, 14, 15}));
  EXPECT_EQ(e.advance(4.0).at.size(), 1u);  // the felled one regrows
  EXPECT_EQ(ids(applied(e.current())), (std::vector<std::uint64_t>{11, 12, 14, 15}));
  EXPECT_TRUE(e.advance(1e6).empty());
  EXPECT_EQ(e.current().override_count(), 1u);
}

TEST(InstanceEdits, OverridesBelongToTheChunkOfTheirPosition) {
  InstanceEdits e(64.0);
  const std::vector<ScatterInstance> edge = {test::posed_instance(1, 64.0, 0.0),
                                             test::posed_instance(2, -1e-9, 63.999)};
  e.remove(edge);
  const InstanceEditSnapshot& s = e.current();
  EXPECT_EQ(s.key_at(64.0, 0.0), (InstanceEditKey{1, 0}));
  EXPECT_EQ(s.key_at(-1e-9, 63.999), (InstanceEditKey{-1, 0}));
  ASSERT_NE(s.chunk({1, 0}), nullptr);
  ASSERT_NE(s.chunk({-1, 0}), nullptr);
  // Only the rectangle holding the position applies an override.
  std::vector<ScatterInstance> inside = edge;
  s.apply_to(0.0, 0.0, 64.0, 64.0, inside);
  EXPECT_EQ(inside.size(), 2u);
  s.apply_to(64.0, 0.0, 128.0, 64.0, inside);
  EXPECT_EQ(ids(inside), (std::vector<std::uint64_t>{2}));
}

TEST(InstanceEdits, SnapshotChecksWhatItIsGiven) {
  auto chunk = [](std::vector<InstanceOverride> v) {
    return std::make_shared<const InstanceEditSnapshot::Chunk>(std::move(v));
  };
  InstanceOverride a;
  a.id = 5;
  a.x_m = 3.0;
  EXPECT_NO_THROW(InstanceEditSnapshot(16.0, {{{0, 0}, chunk({a})}}));
  EXPECT_ERROR(InstanceEditSnapshot(16.0, {{{1, 0}, chunk({a})}}), invalid_argument,
               "position lies outside the chunk");
  EXPECT_ERROR(InstanceEditSnapshot(16.0, {{{0, 0}, chunk({a, a})}}), invalid_argument,
               "(id, added) must increase");
  EXPECT_ERROR(InstanceEditSnapshot(16.0, {{{0, 0}, chunk({})}}), invalid_argument,
               "holds no override");
  EXPECT_ERROR(InstanceEditSnapshot(16.0, {{{0, 0}, nullptr}}), invalid_argument, "is missing");
  EXPECT_ERROR(InstanceEditSnapshot(-1.0, {}), invalid_argument, "chunk_size_m");
  EXPECT_ERROR(InstanceEditSnapshot(2e8, {}), invalid_argument, "chunk_size_m");
  EXPECT_NO_THROW(InstanceEditSnapshot(0.04, {}));     // 8 tiles of 5 mm cells
  EXPECT_NO_THROW(InstanceEditSnapshot(1.024e7, {}));  // 1024 tiles of 10 km cells
  InstanceOverride b = a;
  b.change = InstanceChange::added;
  b.scale_y = 0.0f;
  EXPECT_ERROR(InstanceEditSnapshot(16.0, {{{0, 0}, chunk({b})}}), invalid_argument, "scale_y");
  b.scale_y = 1.0f;
  b.species = 70000;
  EXPECT_ERROR(InstanceEditSnapshot(16.0, {{{0, 0}, chunk({b})}}), invalid_argument, "species");
  b.species = 0;
  b.timer_s = -1.0;
  EXPECT_ERROR(InstanceEditSnapshot(16.0, {{{0, 0}, chunk({b})}}), invalid_argument, "timer_s");
}

TEST(InstanceEdits, BadInputChangesNothing) {
  InstanceEdits e(64.0);
  const std::vector<ScatterInstance> base = scatter();
  e.remove({&base[0], 1});
  const std::uint64_t h = e.current().content_hash();
  std::vector<ScatterInstance> bad = base;
  bad[3].x_m = std::nan("");
  EXPECT_ERROR(e.remove(bad), invalid_argument, "instance remove: instance.x_m");
  EXPECT_ERROR(e.remove(base, -1.0), invalid_argument, "regrow_s");
  EXPECT_ERROR(e.set_state(base, 1, std::numeric_limits<double>::infinity()), invalid_argument,
               "timer_s");
  EXPECT_ERROR(e.move(base[1], 2e12, 0.0, 0.0f), invalid_argument, "instance move: x_m");
  ScatterInstance p = test::posed_instance(0, 1.0, 1.0);
  p.species = -1;
  EXPECT_ERROR(e.add(p), invalid_argument, "instance add.species");
  p.species = 0;
  p.scale_xz = std::nanf("");
  EXPECT_ERROR(e.add(p), invalid_argument, "instance add.scale_xz");
  EXPECT_ERROR(e.advance(-1.0), invalid_argument, "seconds");
  EXPECT_ERROR(InstanceEdits(0.0), invalid_argument, "chunk_size_m");
  EXPECT_EQ(e.current().content_hash(), h);
  EXPECT_EQ(e.undo_steps(), 1u);
}

}  // namespace
}  // namespace terrane
