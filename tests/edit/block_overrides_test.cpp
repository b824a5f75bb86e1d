// Block overrides (BlockEdits): a sphere brush changes exactly the blocks whose centre lies in
// the sphere (counted against a brute force over the box around it), only the chunks holding
// them are copied, undo and redo give the bits back, restore removes overrides (and chunks
// left without any), snapshots stay as they were, and every bad input is named.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "support/edit_strokes.hpp"
#include "support/expect_error.hpp"
#include "terrane/edit.hpp"

namespace terrane {
namespace {

// The expression must throw Error(category) naming every needle (test::expect_error).
#define EXPECT_ERROR(expr, category, ...) \
  test::expect_error([&] { (void)(expr); }, category, __VA_ARGS__)

// Every block of the box [-64, 64)^3 whose value in `s` is not kKeepBlock, by at().
std::size_t count_overrides(const BlockEditSnapshot& s, std::uint16_t value) {
  std::size_t n = 0;
  for (int y = -64; y < 64; ++y) {
    for (int z = -64; z < 64; ++z) {
      for (int x = -64; x < 64; ++x) n += s.at(x, y, z) == value ? 1 : 0;
    }
  }
  return n;
}

TEST(BlockOverrides, ASphereChangesExactlyTheBlocksWhoseCentreIsInside) {
  // Half-metre blocks, 16-block chunks, a sphere across chunk borders and negative coordinates.
  BlockEdits edits(0.5, 16, 14);
  const BlockBrush b = test::block_sphere(BlockBrushKind::fill, -1.3, 2.05, 0.4, 5.2, 7);
  const BlockBox box = edits.apply(b);
  std::size_t inside = 0;
  std::int64_t x0 = INT64_MAX, x1 = INT64_MIN;
  for (int y = -64; y < 64; ++y) {
    for (int z = -64; z < 64; ++z) {
      for (int x = -64; x < 64; ++x) {
        const double dx = (x + 0.5) * 0.5 - b.x_m, dy = (y + 0.5) * 0.5 - b.y_m,
                     dz = (z + 0.5) * 0.5 - b.z_m;
        const bool in = dx * dx + dy * dy + dz * dz <= b.radius_m * b.radius_m;
        ASSERT_EQ(edits.current().at(x, y, z), in ? 7 : kKeepBlock) << x << " " << y << " " << z;
        if (in) {
          ++inside;
          x0 = std::min<std::int64_t>(x0, x), x1 = std::max<std::int64_t>(x1, x);
        }
      }
    }
  }
  // About 4/3 pi (5.2 / 0.5)^3 = 4712 blocks.
  EXPECT_NEAR(double(inside), 4.0 / 3.0 * 3.14159265 * std::pow(10.4, 3), 150.0);
  EXPECT_EQ(edits.current().override_count(), inside);
  EXPECT_EQ(box.x0, x0);
  EXPECT_EQ(box.x1, x1);
  // The chunks the sphere's blocks lie in, and no other: 21 blocks across span 2-3 chunks a side.
  for (const auto& [key, chunk] : edits.current().chunks()) {
    EXPECT_GE(key.cx * 16 + 15, box.x0);
    EXPECT_LE(key.cx * 16, box.x1);
    EXPECT_GE(key.cy * 16 + 15, box.y0);
    EXPECT_LE(key.cy * 16, box.y1);
  }
}

TEST(BlockOverrides, UndoRedoAndRestoreGiveTheBitsBack) {
  BlockEdits edits(1.0, 32, 14);
  const BlockBrush dig = test::block_sphere(BlockBrushKind::dig, 10.0, -3.0, 4.0, 6.0);
  const BlockBrush fill = test::block_sphere(BlockBrushKind::fill, 14.0, -3.0, 4.0, 4.0, 2);
  edits.apply(dig);
  const std::shared_ptr<const BlockEditSnapshot> after_dig = edits.snapshot();
  const std::uint64_t dug = after_dig->content_hash();
  edits.apply(fill);
  const std::uint64_t both = edits.current().content_hash();
  EXPECT_NE(both, dug);
  // The fill overwrote part of the dig: blocks in both spheres hold 2.
  EXPECT_EQ(edits.current().at(12, -3, 4), 2);
  EXPECT_EQ(edits.current().at(6, -3, 4), kDugBlock);
  // The snapshot taken before the fill is unchanged by it (copy-on-write).
  EXPECT_EQ(after_dig->content_hash(), dug);
  EXPECT_EQ(after_dig->at(12, -3, 4), kDugBlock);

  edits.undo();
  EXPECT_EQ(edits.current().content_hash(), dug);
  edits.redo();
  EXPECT_EQ(edits.current().content_hash(), both);
  edits.undo();
  edits.undo();
  EXPECT_TRUE(edits.current().empty());
  EXPECT_EQ(edits.redo_steps(), 2u);
  edits.redo();
  edits.redo();
  EXPECT_EQ(edits.current().content_hash(), both);

  // Restoring a sphere that covers both removes every override and every chunk.
  const BlockBox restored =
      edits.apply(test::block_sphere(BlockBrushKind::restore, 12.0, -3.0, 4.0, 12.0));
  EXPECT_FALSE(restored.empty());
  EXPECT_TRUE(edits.current().empty());
  EXPECT_EQ(count_overrides(edits.current(), kKeepBlock), std::size_t(128) * 128 * 128);
  // A restore where nothing is overridden changes nothing and is no undo step.
  const std::size_t steps = edits.undo_steps();
  EXPECT_TRUE(
      edits.apply(test::block_sphere(BlockBrushKind::restore, 500.0, 0.0, 0.0, 5.0)).empty());
  EXPECT_EQ(edits.undo_steps(), steps);
  // Digging twice in the same place changes nothing the second time.
  edits.apply(dig);
  EXPECT_TRUE(edits.apply(dig).empty());
}

TEST(BlockOverrides, ASnapshotOfGivenChunksIsChecked) {
  BlockEdits edits(1.0, 8, 14);
  edits.apply(test::block_sphere(BlockBrushKind::fill, 0.0, 0.0, 0.0, 3.0, 13));
  const BlockEditSnapshot& s = edits.current();
  const BlockEditSnapshot copy(1.0, 8, 14, s.chunks());
  EXPECT_EQ(copy.content_hash(), s.content_hash());
  EXPECT_EQ(BlockEdits(copy).current().override_count(), s.override_count());

  auto with = [&](BlockEditSnapshot::Chunk values) {
    BlockEditSnapshot::ChunkMap m;
    m[{0, 0, 0}] = std::make_shared<const BlockEditSnapshot::Chunk>(std::move(values));
    return m;
  };
  EXPECT_ERROR(BlockEditSnapshot(1.0, 8, 14, with(BlockEditSnapshot::Chunk(100, 1))),
               ErrorCategory::invalid_argument, {"has 100 values, not 512"});
  EXPECT_ERROR(BlockEditSnapshot(1.0, 8, 14, with(BlockEditSnapshot::Chunk(512, kKeepBlock))),
               ErrorCategory::invalid_argument, {"holds no override"});
  EXPECT_ERROR(BlockEditSnapshot(1.0, 8, 14, with(BlockEditSnapshot::Chunk(512, 14))),
               ErrorCategory::invalid_argument, {"holds block 14, beyond the palette's 14 types"});
  BlockEditSnapshot::ChunkMap far;
  far[{0, 0, std::int64_t(1) << 40}] =
      std::make_shared<const BlockEditSnapshot::Chunk>(512, kDugBlock);
  EXPECT_ERROR(BlockEditSnapshot(1.0, 8, 14, far), ErrorCategory::invalid_argument,
               {"beyond the block world's limit of 1e9 m"});
  EXPECT_ERROR(BlockEdits(1.0, 12, 14), ErrorCategory::invalid_argument,
               {"chunk_size = 12 must be 8, 16 or 32"});
  EXPECT_ERROR(BlockEdits(0.0, 32, 14), ErrorCategory::invalid_argument, {"block_size_m"});
}

TEST(BlockOverrides, BadBrushesAreNamedAndChangeNothing) {
  BlockEdits edits(1.0, 32, 14);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_ERROR(edits.apply(test::block_sphere(BlockBrushKind::dig, nan, 0.0, 0.0, 3.0)),
               ErrorCategory::invalid_argument, {"block brush.x_m"});
  EXPECT_ERROR(edits.apply(test::block_sphere(BlockBrushKind::dig, 0.0, 2e9, 0.0, 3.0)),
               ErrorCategory::invalid_argument, {"block brush.y_m"});
  EXPECT_ERROR(edits.apply(test::block_sphere(BlockBrushKind::dig, 0.0, 0.0, 0.0, 0.0)),
               ErrorCategory::invalid_argument, {"block brush.radius_m"});
  EXPECT_ERROR(edits.apply(test::block_sphere(BlockBrushKind::dig, 0.0, 0.0, 0.0, 65.0)),
               ErrorCategory::invalid_argument, {"block brush.radius_m"});
  EXPECT_ERROR(edits.apply(test::block_sphere(BlockBrushKind::fill, 0.0, 0.0, 0.0, 3.0, 14)),
               ErrorCategory::invalid_argument,
               {"block brush.block = 14 is not a block of the palette (ids 0..13)"});
  EXPECT_TRUE(edits.current().empty());
  EXPECT_EQ(edits.undo_steps(), 0u);
  EXPECT_EQ(parse_block_brush_kind("dig"), BlockBrushKind::dig);
  EXPECT_EQ(parse_block_brush_kind("raise"), std::nullopt);
  EXPECT_STREQ(to_string(BlockBrushKind::restore), "restore");
}

}  // namespace
}  // namespace terrane
