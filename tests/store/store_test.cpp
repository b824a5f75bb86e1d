// The world store (store.hpp): round trips, incremental commits, generator versioning, bad
// files and bad input, a full disk, read-only worlds, and identical chunks on every SIMD target
// and thread count. The crash test (kill -9) is in crash_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "store/store_support.hpp"
#include "support/edit_strokes.hpp"
#include "support/expect_error.hpp"
#include "terrane/store.hpp"
#include "terrane/world.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;
using test::edits_hash;
using test::expect_error;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("terrane_store_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path file(const std::string& name = "w.world") const { return dir_ / name; }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  const Preset preset_ = test::store_test_preset();
  const CompiledGraph base_ = compile(preset_);
  fs::path dir_;
};

// Runs SQL on a world file behind the store's back (to damage or age it).
void sql(const fs::path& f, const std::string& statement) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(f.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &err), SQLITE_OK)
      << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST_F(StoreTest, ACommittedWorldOpensWithTheSameEditsPresetAndLog) {
  {
    WorldStore w = WorldStore::create(file(), preset_);
    EXPECT_EQ(w.info().commits, 0u);
    EXPECT_EQ(w.info().height_tiles, 0u);
    EXPECT_EQ(w.info().preset_name, "default");
    EXPECT_EQ(w.info().cell_size_m, 1.0);
    EXPECT_EQ(w.info().tile_cells, 128);
    EXPECT_EQ(w.info().schema_version, 1)
        << "a new world is version 1 until it has block overrides";
    EXPECT_EQ(w.info().fingerprint, generator_fingerprint(preset_));
    EXPECT_TRUE(w.height_edits().empty());
  }
  EXPECT_TRUE(is_world_file(file()));
  // Created under a temporary name and renamed: nothing else is left beside it.
  EXPECT_EQ(listing(), std::vector<std::string>{"w.world"});

  HeightEdits edits(1.0, 128);
  edits.apply(test::height_brush(BrushKind::raise, 10.0, 20.0, 50.0),
              base_);  // 4 tiles around the origin
  edits.apply(test::height_brush(BrushKind::noise, 300.0, -90.0, 30.0), base_);
  edits.apply(test::height_brush(BrushKind::smooth, 12.0, 18.0, 20.0, 0.5), base_);
  const std::uint64_t hash = edits_hash(edits.current());
  {
    WorldStore w = WorldStore::open(file());
    const WorldCommit c = w.commit(edits.current(), "three strokes");
    EXPECT_EQ(c.seq, 1u);
    EXPECT_EQ(c.tiles_written, edits.current().tile_count());
    EXPECT_EQ(c.tiles_deleted, 0u);
    EXPECT_GT(c.bytes_written, 0u);
    EXPECT_EQ(w.info().blob_bytes, c.bytes_written);
  }
  WorldStore w = WorldStore::open(file());
  EXPECT_EQ(edits_hash(w.height_edits()), hash);
  EXPECT_EQ(w.height_edits().tile_count(), edits.current().tile_count());
  EXPECT_EQ(w.height_edits().delta_lo(), edits.current().delta_lo());
  EXPECT_EQ(w.height_edits().delta_hi(), edits.current().delta_hi());
  EXPECT_EQ(w.info().commits, 1u);
  EXPECT_EQ(w.preset().canonical_json, preset_.canonical_json);
  EXPECT_EQ(w.preset().hash, preset_.hash);
  EXPECT_EQ(w.preset().name, "default");
  EXPECT_EQ(w.preset().seed, preset_.seed);
  const auto log = w.log(10);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].seq, 1u);
  EXPECT_EQ(log[0].description, "three strokes");
  EXPECT_GT(log[0].unix_time, 1'700'000'000);
  EXPECT_EQ(w.check(), "ok");
}

// The WAL is checkpointed into the file once it passes 1000 pages (in the background, and past
// 2000 by the commit itself), so it stays near that length however many commits a session makes
// instead of growing without bound (copied whole at the close, or replayed at the next open after
// a crash).
TEST_F(StoreTest, TheWalIsCheckpointedAndStaysBounded) {
  WorldStore::create(file(), preset_);
  const std::uintmax_t frame = 16384 + 24;  // a page and its frame header
  const fs::path wal = file().string() + "-wal";
  HeightEdits edits(1.0, 128);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> where(-600.0, 600.0);
  std::uintmax_t wal_max = 0;
  {
    WorldStore w = WorldStore::open(file());
    // About 10 frames each: some 8,000 frames in all (8,240 without checkpoints).
    for (int i = 0; i < 800; ++i) {
      edits.apply(test::height_brush(BrushKind::raise, where(rng), where(rng), 30.0), base_);
      w.commit(edits.current(), "stroke");
      wal_max = std::max(wal_max, fs::file_size(wal));  // its high-water mark
    }
    EXPECT_LT(wal_max / frame, 3000u) << "the WAL was never checkpointed";
    EXPECT_GT(fs::file_size(file()), 100u * 16384u) << "nothing reached the database file";
    EXPECT_EQ(w.check(), "ok");
  }
  // Closed: the rest is checkpointed and the WAL removed.
  EXPECT_FALSE(fs::exists(wal));
  EXPECT_EQ(edits_hash(WorldStore::open(file()).height_edits()), edits_hash(edits.current()));
}

TEST_F(StoreTest, CommitsWriteOnlyTheChunksThatChanged) {
  WorldStore w = WorldStore::create(file(), preset_);
  HeightEdits edits(1.0, 128);
  edits.apply(test::height_brush(BrushKind::raise, 0.0, 0.0, 50.0),
              base_);  // the 4 tiles at the origin
  EXPECT_EQ(w.commit(edits.current(), "a").tiles_written, 4u);
  // Nothing changed: nothing written.
  EXPECT_EQ(w.commit(edits.current(), "b").tiles_written, 0u);
  // One tile's interior.
  edits.apply(test::height_brush(BrushKind::lower, 64.0, 64.0, 20.0), base_);
  WorldCommit c = w.commit(edits.current(), "c");
  EXPECT_EQ(c.tiles_written, 1u);
  EXPECT_EQ(c.tiles_deleted, 0u);
  // Undo everything: the tiles go back to none and are deleted.
  edits.undo();
  edits.undo();
  EXPECT_TRUE(edits.current().empty());
  c = w.commit(edits.current(), "undo");
  EXPECT_EQ(c.tiles_written, 0u);
  EXPECT_EQ(c.tiles_deleted, 4u);
  EXPECT_EQ(w.info().height_tiles, 0u);
  EXPECT_EQ(w.info().blob_bytes, 0u);
  // A tile edited back to exactly its committed bytes (a new object, equal bits) is skipped.
  edits.apply(test::height_brush(BrushKind::raise, 0.0, 0.0, 50.0), base_);
  w.commit(edits.current(), "again");
  HeightEdits same(1.0, 128);
  same.apply(test::height_brush(BrushKind::raise, 0.0, 0.0, 50.0), base_);
  ASSERT_NE(same.current().tiles().begin()->second, edits.current().tiles().begin()->second);
  EXPECT_EQ(w.commit(same.current(), "same").tiles_written, 0u);
  EXPECT_EQ(WorldStore::open(file()).info().commits, 6u);  // a, b, c, undo, again, same
}

TEST_F(StoreTest, ChunksOfAnOpenedWorldAreIdenticalOnEverySimdTargetAndThreadCount) {
  HeightEdits edits(1.0, 128);
  edits.apply(test::height_brush(BrushKind::raise, 60.0, 70.0, 45.0, 8.0), base_);
  edits.apply(test::height_brush(BrushKind::noise, 130.0, 20.0, 30.0, 3.0), base_);
  WorldStore::create(file(), preset_).commit(edits.current(), "strokes");
  const WorldStore w = WorldStore::open(file());
  const ChunkGenerator gen(w.preset());
  std::optional<std::uint64_t> first;
  for (const SimdTarget target : supported_simd_targets()) {
    for (const int threads : {1, 2}) {
      std::uint64_t h = 0;
      for (const ChunkKey key : {ChunkKey{0, 0, 0}, ChunkKey{1, 0, 0}, ChunkKey{0, 0, 1}}) {
        ChunkData d;
        gen.generate(key, {0, 0, 0, 0}, d, ExecContext{.threads = threads, .simd = target}, nullptr,
                     &w.height_edits());
        h = hash_combine(h, hash_floats(d.heights.data));
        h = hash_combine(h, hash_floats(d.mesh.positions));
        h = hash_combine(h, hash_floats(d.mesh.normals));
      }
      if (!first) first = h;
      EXPECT_EQ(h, *first) << to_string(target) << ", " << threads << " threads";
    }
  }
  // And the edits are really there: the same chunk without them differs.
  ChunkData edited, plain;
  gen.generate({0, 0, 0}, {0, 0, 0, 0}, edited, {}, nullptr, &w.height_edits());
  gen.generate({0, 0, 0}, {0, 0, 0, 0}, plain);
  EXPECT_NE(hash_floats(edited.heights.data), hash_floats(plain.heights.data));
}

TEST_F(StoreTest, AWorldWhoseBaseTerrainDiffersIsRefusedUnlessAccepted) {
  HeightEdits edits(1.0, 128);
  edits.apply(test::height_brush(BrushKind::raise, 0.0, 0.0, 20.0), base_);
  WorldStore::create(file(), preset_).commit(edits.current(), "a");
  // As if another terrane had written it: its recorded fingerprint is not ours.
  sql(file(),
      "UPDATE meta SET value = '0123456789abcdef' WHERE key = 'fingerprint';"
      "UPDATE meta SET value = '0.0.9' WHERE key = 'written_by'");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::invalid_argument,
               {file().string(), "made by terrane 0.0.9", "0123456789abcdef",
                "base terrain differs", "accept_generator_change"});
  WorldOpenOptions accept;
  accept.accept_generator_change = true;
  {
    WorldStore w = WorldStore::open(file(), accept);
    EXPECT_TRUE(w.info().generator_changed);
    EXPECT_EQ(edits_hash(w.height_edits()), edits_hash(edits.current()));
    w.commit(w.height_edits(), "accepted the new base");  // records this terrane's fingerprint
  }
  EXPECT_FALSE(WorldStore::open(file()).info().generator_changed);
}

TEST_F(StoreTest, BadFilesAreRefusedWithTheirReason) {
  expect_error([&] { WorldStore::open(file("missing.world")); }, ErrorCategory::io,
               {"missing.world", "no such file"});
  expect_error([&] { WorldStore::open(dir_); }, ErrorCategory::io, {"not a regular file"});
  { std::ofstream(file("text.world")) << "{\"this\": \"is a preset, not a world\"}\n"; }
  expect_error([&] { WorldStore::open(file("text.world")); }, ErrorCategory::io,
               {"text.world", "not a world file"});
  sql(file("other.db"), "CREATE TABLE t(x)");
  expect_error([&] { WorldStore::open(file("other.db")); }, ErrorCategory::io,
               {"other.db", "not a terrane world file"});

  WorldStore::create(file(), preset_);
  expect_error([&] { WorldStore::create(file(), preset_); }, ErrorCategory::io,
               {"w.world", "the file exists"});
  expect_error([&] { WorldStore::create(dir_ / "no" / "such" / "dir.world", preset_); },
               ErrorCategory::io, {"does not exist"});
  WorldCreateOptions tiny;
  tiny.tile_cells = 4;
  expect_error([&] { WorldStore::create(file("t.world"), preset_, tiny); },
               ErrorCategory::invalid_argument, {"tile_cells = 4", "8..1024"});
  sql(file(), "PRAGMA user_version = 7");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::invalid_argument,
               {"schema version 7", "reads versions 1 to " + std::to_string(kWorldSchemaVersion),
                "newer terrane"});
  sql(file(), "PRAGMA user_version = 1; DELETE FROM meta WHERE key = 'preset_json'");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io, {"'preset_json' is missing"});
  // overwrite replaces it with a fresh world.
  WorldCreateOptions over;
  over.overwrite = true;
  EXPECT_EQ(WorldStore::create(file(), preset_, over).info().commits, 0u);

  // Bad commits.
  WorldStore w = WorldStore::open(file());
  HeightEdits coarse(2.0, 128), other_tiles(1.0, 64);
  expect_error([&] { w.commit(coarse.current(), "x"); }, ErrorCategory::invalid_argument,
               {"cell 2 m", "the world's are 1 m and 128"});
  expect_error([&] { w.commit(other_tiles.current(), "x"); }, ErrorCategory::invalid_argument,
               {"tiles of 64 vertices"});
  EXPECT_EQ(w.info().commits, 0u);
}

TEST_F(StoreTest, ADamagedBlobIsReportedNotRead) {
  HeightEdits edits(1.0, 128);
  edits.apply(test::height_brush(BrushKind::raise, 0.0, 0.0, 20.0), base_);
  WorldStore::create(file(), preset_).commit(edits.current(), "a");
  // Flip a byte inside the zstd frame of chunk (0, 0): its checksum fails.
  sql(file(),
      "UPDATE chunks SET blob = substr(blob, 1, 20) || x'5a' || substr(blob, 22) "
      "WHERE cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"chunk (0, 0)", "damaged height edits"});
  sql(file(), "UPDATE chunks SET blob = x'00112233' WHERE cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"chunk (0, 0)", "no TRH1 header"});
}

// Block overrides round-trip bit for bit beside the height edits; a world stays schema 1 until
// its first commit of them and is schema 2 from then on.
TEST_F(StoreTest, BlockOverridesRoundTripAndRaiseTheSchemaOnce) {
  const std::uint16_t glass = 13;
  ASSERT_EQ(preset_.voxel.palette.types[glass].name, "glass");
  HeightEdits heights(1.0, 128);
  heights.apply(test::height_brush(BrushKind::raise, 0.0, 0.0, 30.0), base_);
  std::uint64_t hash = 0;
  std::size_t chunks = 0, overrides = 0;
  {
    WorldStore w = WorldStore::create(file(), preset_);
    EXPECT_EQ(w.info().schema_version, 1);
    EXPECT_TRUE(w.block_edits().empty());
    EXPECT_EQ(w.block_edits().chunk_size(), preset_.voxel.chunk_size);
    w.commit(heights.snapshot(), "heights");
    EXPECT_EQ(w.info().schema_version, 1) << "height edits alone keep version 1";
    BlockEdits blocks(w.block_edits());
    blocks.apply(test::block_sphere(BlockBrushKind::dig, 3.0, 41.0, -7.0, 6.0));
    blocks.apply(test::block_sphere(BlockBrushKind::fill, -250.0, -3.0, 90.0, 4.0, glass));
    const WorldCommit c = w.commit(WorldEdits{nullptr, blocks.snapshot()}, "blocks");
    EXPECT_GT(c.tiles_written, 1u);
    EXPECT_EQ(w.info().schema_version, 2);
    hash = blocks.current().content_hash();
    chunks = blocks.current().chunk_count();
    overrides = blocks.current().override_count();
    EXPECT_EQ(w.info().block_chunks, chunks);
    EXPECT_EQ(w.info().block_overrides, overrides);
    // 4/3 pi (6^3 + 4^3) = 1173 blocks of 1 m.
    EXPECT_GT(overrides, 1100u);
    EXPECT_LT(overrides, 1250u);
  }
  WorldStore w = WorldStore::open(file());
  EXPECT_EQ(w.info().schema_version, 2);
  EXPECT_EQ(w.block_edits().content_hash(), hash);
  EXPECT_EQ(w.block_edits().chunk_count(), chunks);
  EXPECT_EQ(w.block_edits().override_count(), overrides);
  EXPECT_EQ(w.block_edits().at(3, 41, -7), kDugBlock);
  EXPECT_EQ(w.block_edits().at(-251, -4, 90), glass);
  EXPECT_EQ(w.block_edits().at(30, 41, -7), kKeepBlock);
  EXPECT_EQ(edits_hash(w.height_edits()), edits_hash(heights.current()));
  EXPECT_EQ(w.check(), "ok");
  // A commit of heights alone keeps the block layer.
  heights.apply(test::height_brush(BrushKind::lower, 300.0, 0.0, 20.0), base_);
  w.commit(heights.snapshot(), "more heights");
  EXPECT_EQ(WorldStore::open(file()).block_edits().content_hash(), hash);
  // Overrides of another block world are refused and nothing is written.
  BlockEdits other(preset_.voxel.block_size_m, 16, int(preset_.voxel.palette.types.size()));
  other.apply(test::block_sphere(BlockBrushKind::dig, 0.0, 0.0, 0.0, 2.0));
  expect_error(
      [&] {
        w.commit(WorldEdits{nullptr, other.snapshot()}, "x");
      },
      ErrorCategory::invalid_argument, {"chunks of 16", "the world's are"});
  EXPECT_EQ(WorldStore::open(file()).block_edits().content_hash(), hash);
}

TEST_F(StoreTest, BlockCommitsWriteOnlyTheColumnsThatChanged) {
  WorldStore w = WorldStore::create(file(), preset_);
  const int S = preset_.voxel.chunk_size;
  const double mid = 0.5 * S;  // the centre of chunk 0 on each axis (1 m blocks)
  BlockEdits blocks(w.block_edits());
  blocks.apply(test::block_sphere(BlockBrushKind::dig, mid, mid, mid, 3.0));  // chunk (0, 0, 0)
  EXPECT_EQ(w.commit(WorldEdits{nullptr, blocks.snapshot()}, "a").tiles_written, 1u);
  EXPECT_EQ(w.commit(WorldEdits{nullptr, blocks.snapshot()}, "same").tiles_written, 0u);
  // Another chunk of the same column (cx, cz) = (0, 0): that column's blob is rewritten.
  blocks.apply(test::block_sphere(BlockBrushKind::dig, mid, mid + 5 * S, mid, 3.0));
  WorldCommit c = w.commit(WorldEdits{nullptr, blocks.snapshot()}, "b");
  EXPECT_EQ(c.tiles_written, 1u);
  EXPECT_EQ(w.info().block_chunks, 2u);
  // A chunk of column (6, 0).
  blocks.apply(test::block_sphere(BlockBrushKind::fill, mid + 6 * S, mid, mid, 3.0, 1));
  EXPECT_EQ(w.commit(WorldEdits{nullptr, blocks.snapshot()}, "c").tiles_written, 1u);
  // Undo the last two: column (0, 0) is rewritten with one chunk, column (6, 0) is deleted.
  blocks.undo();
  blocks.undo();
  c = w.commit(WorldEdits{nullptr, blocks.snapshot()}, "undo");
  EXPECT_EQ(c.tiles_written, 1u);
  EXPECT_EQ(c.tiles_deleted, 1u);
  EXPECT_EQ(w.info().block_chunks, 1u);
  // Restoring the dig's blocks takes the world back to no overrides.
  blocks.apply(test::block_sphere(BlockBrushKind::restore, mid, mid, mid, 4.0));
  EXPECT_TRUE(blocks.current().empty());
  c = w.commit(WorldEdits{nullptr, blocks.snapshot()}, "restore");
  EXPECT_EQ(c.tiles_deleted, 1u);
  EXPECT_EQ(w.info().block_chunks, 0u);
  EXPECT_EQ(w.info().blob_bytes, 0u);
  const WorldStore reopened = WorldStore::open(file());
  EXPECT_TRUE(reopened.block_edits().empty());
  EXPECT_EQ(reopened.info().schema_version, 2) << "a world once at version 2 stays there";
}

TEST_F(StoreTest, ADamagedBlockColumnIsReportedNotRead) {
  {
    WorldStore w = WorldStore::create(file(), preset_);
    BlockEdits blocks(w.block_edits());
    blocks.apply(test::block_sphere(BlockBrushKind::dig, 5.0, 5.0, 5.0, 3.0));
    w.commit(WorldEdits{nullptr, blocks.snapshot()}, "a");
  }
  // The frame's content checksum (its last 4 bytes) no longer matches.
  sql(file(),
      "UPDATE chunks SET blob = substr(blob, 1, length(blob) - 4) || x'00000000' "
      "WHERE layer = 2 AND cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"block column (0, 0)", "damaged block overrides"});
  sql(file(), "UPDATE chunks SET blob = x'00112233' WHERE layer = 2 AND cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"block column (0, 0)", "no TRB1 header"});
  // A header that claims another chunk size.
  sql(file(),
      "UPDATE chunks SET blob = x'5452423110000000010000000000000000000000' "
      "WHERE layer = 2 AND cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"block column (0, 0)", "chunks of 16 blocks"});
}

// The pose of the instances the store tests keep (every field survives the round trip).
constexpr test::Pose kStoredPose{33.0f, 1.25f, 0.75f};

// Instance overrides: a round trip to the bit (every field of every kind, timers included), the
// schema raised to 3 by the first commit holding them, only changed chunks written, emptied ones
// deleted, a damaged chunk reported with its chunk, overrides of another chunk side refused.
TEST_F(StoreTest, InstanceOverridesRoundTripAndRaiseTheSchema) {
  std::uint64_t hash = 0;
  {
    WorldStore w = WorldStore::create(file(), preset_);
    const double side = double(w.info().tile_cells) * w.info().cell_size_m;
    EXPECT_EQ(w.instance_edits().chunk_size_m(), side);
    InstanceEdits inst(w.instance_edits());
    const ScatterInstance a = test::posed_instance(101, 3.5, -7.25, 0, kStoredPose),
                          b = test::posed_instance(102, 5.0, 9.0, 0, kStoredPose);
    inst.remove({&a, 1}, 600.0);
    inst.set_state({&b, 1}, 42, 30.0);
    inst.move(test::posed_instance(103, 10.0, 10.0, 0, kStoredPose), -300.5, 1000.25, 270.0f);
    ScatterInstance placed = test::posed_instance(0, 77.0, 78.0, 0, kStoredPose);
    placed.species = 1;
    placed.state = 5;
    inst.add(placed, 12.5);
    const WorldCommit c = w.commit(WorldEdits{nullptr, nullptr, inst.snapshot()}, "instances");
    EXPECT_EQ(c.tiles_written, 3u);  // chunks (0, -1), (0, 0) and (-3, 7) of 128 m
    EXPECT_EQ(w.info().schema_version, 3);
    EXPECT_EQ(w.info().instance_overrides, 5u);
    hash = inst.current().content_hash();
    EXPECT_EQ(w.commit(WorldEdits{nullptr, nullptr, inst.snapshot()}, "same").tiles_written, 0u);
    // Undo the add: its chunk is rewritten.
    inst.undo();
    EXPECT_EQ(w.commit(WorldEdits{nullptr, nullptr, inst.snapshot()}, "undo").tiles_written, 1u);
    inst.redo();
    w.commit(WorldEdits{nullptr, nullptr, inst.snapshot()}, "redo");
  }
  {
    WorldStore w = WorldStore::open(file());
    EXPECT_EQ(w.info().schema_version, 3);
    EXPECT_EQ(w.instance_edits().content_hash(), hash);
    EXPECT_EQ(w.info().instance_overrides, 5u);
    EXPECT_EQ(w.check(), "ok");
    const InstanceOverride* m = w.instance_edits().find(103, -300.5, 1000.25);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->change, InstanceChange::added);
    EXPECT_EQ(m->yaw_deg, 270.0f);
    EXPECT_EQ(m->scale_y, 0.75f);
    // Everything restored: every chunk deleted, the blob bytes back to none.
    InstanceEdits inst(w.instance_edits());
    std::vector<std::uint64_t> left;
    for (const auto& entry : inst.current().chunks()) {
      for (const InstanceOverride& o : *entry.second) left.push_back(o.id);
    }
    inst.restore(left);
    EXPECT_TRUE(inst.current().empty());
    const WorldCommit c = w.commit(WorldEdits{nullptr, nullptr, inst.snapshot()}, "restore");
    EXPECT_GE(c.tiles_deleted, 2u);
    EXPECT_EQ(w.info().instance_chunks, 0u);
    EXPECT_EQ(w.info().blob_bytes, 0u);
    // Another chunk side is refused.
    const InstanceEdits other(7.0);
    expect_error(
        [&] {
          w.commit(WorldEdits{nullptr, nullptr, other.snapshot()}, "x");
        },
        ErrorCategory::invalid_argument, {"instance overrides in chunks of 7 m"});
  }
  // A damaged chunk.
  {
    WorldStore w = WorldStore::open(file());
    InstanceEdits inst(w.instance_edits());
    const ScatterInstance a = test::posed_instance(7, 1.0, 1.0, 0, kStoredPose);
    inst.remove({&a, 1});
    w.commit(WorldEdits{nullptr, nullptr, inst.snapshot()}, "one");
  }
  sql(file(),
      "UPDATE chunks SET blob = substr(blob, 1, length(blob) - 4) || x'00000000' "
      "WHERE layer = 3 AND cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"instance chunk (0, 0)", "damaged instance overrides"});
  sql(file(), "UPDATE chunks SET blob = x'0011223344' WHERE layer = 3 AND cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"instance chunk (0, 0)", "no TRI1 header"});
}

TEST_F(StoreTest, SplatPaintRoundTripsWritesOnlyChangedTilesAndRaisesTheSchema) {
  std::uint64_t hash = 0;
  const int layers = int(preset_.surface.layers.size());
  {
    WorldStore w = WorldStore::create(file(), preset_);
    ASSERT_NE(w.paint(), nullptr);
    EXPECT_TRUE(w.paint()->empty());
    EXPECT_EQ(w.paint()->layers(), layers);
    SplatPaint paint(*w.paint());
    SplatBrush b;
    b.layer = layers - 1;
    b.x_m = 10.0, b.z_m = -5.0, b.radius_m = 20.0, b.strength = 0.8;
    paint.apply(b);  // tiles (-1, -1), (0, -1), (-1, 0), (0, 0) of 128 vertices
    const WorldCommit c =
        w.commit(WorldEdits{nullptr, nullptr, nullptr, paint.snapshot()}, "paint");
    EXPECT_EQ(c.tiles_written, 4u);
    EXPECT_EQ(w.info().schema_version, 4);
    EXPECT_EQ(w.info().paint_tiles, 4u);
    EXPECT_GT(w.info().painted_vertices, 1000u);
    EXPECT_EQ(w.info().layer_bytes[3], w.info().blob_bytes);
    EXPECT_EQ(w.info().blob_bytes, c.bytes_written);
    // A stroke inside one tile rewrites that tile only.
    b.x_m = 60.0, b.z_m = 60.0, b.radius_m = 5.0, b.layer = 0;
    paint.apply(b);
    EXPECT_EQ(
        w.commit(WorldEdits{nullptr, nullptr, nullptr, paint.snapshot()}, "dab").tiles_written, 1u);
    // The painted vertices follow the changed tile (counted from it, not from every tile).
    EXPECT_EQ(w.info().painted_vertices, paint.current().painted_vertices());
    EXPECT_EQ(
        w.commit(WorldEdits{nullptr, nullptr, nullptr, paint.snapshot()}, "same").tiles_written,
        0u);
    hash = paint.current().content_hash();
  }
  {
    WorldStore w = WorldStore::open(file());
    EXPECT_EQ(w.info().schema_version, 4);
    EXPECT_EQ(w.paint()->content_hash(), hash);
    EXPECT_EQ(w.check(), "ok");
    // Unpainted everywhere: every tile deleted.
    SplatPaint paint(*w.paint());
    SplatBrush wipe;
    wipe.kind = PaintKind::unpaint;
    wipe.radius_m = 300.0;
    wipe.falloff_start = 1.0;
    paint.apply(wipe);
    const WorldCommit c = w.commit(WorldEdits{nullptr, nullptr, nullptr, paint.snapshot()}, "wipe");
    EXPECT_EQ(c.tiles_deleted, 4u);
    EXPECT_EQ(w.info().paint_tiles, 0u);
    EXPECT_EQ(w.info().painted_vertices, 0u);
    EXPECT_EQ(w.info().blob_bytes, 0u);
    // Paint of another layer count is refused.
    const SplatPaint other(w.info().cell_size_m, w.info().tile_cells, layers + 1);
    expect_error(
        [&] {
          w.commit(WorldEdits{nullptr, nullptr, nullptr, other.snapshot()}, "x");
        },
        ErrorCategory::invalid_argument, {"splat paint", "layers"});
    SplatBrush dab;
    dab.radius_m = 3.0;
    paint.apply(dab);
    w.commit(WorldEdits{nullptr, nullptr, nullptr, paint.snapshot()}, "one");
  }
  sql(file(),
      "UPDATE chunks SET blob = substr(blob, 1, length(blob) - 4) || x'00000000' "
      "WHERE layer = 4 AND cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"paint tile (0, 0)", "damaged splat paint"});
  sql(file(), "UPDATE chunks SET blob = x'0011223344' WHERE layer = 4 AND cx = 0 AND cz = 0");
  expect_error([&] { WorldStore::open(file()); }, ErrorCategory::io,
               {"paint tile (0, 0)", "no TRP1 header"});
}

// Truncations and random byte damage of a world file: open() and check() either work or throw
// terrane::Error; nothing else (a crash, another exception) may happen.
TEST_F(StoreTest, TruncatedOrCorruptedFilesGiveAnErrorNeverACrash) {
  HeightEdits edits(1.0, 128);
  for (int k = 0; k < 12; ++k) {
    edits.apply(test::height_brush(BrushKind::noise, 200.0 * k - 1000.0, 37.0 * k, 60.0, 4.0),
                base_);
  }
  WorldStore::create(file(), preset_).commit(edits.current(), "strokes");
  std::vector<char> good;
  {
    std::ifstream in(file(), std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(good.size(), 8192u);
  std::mt19937_64 rng(7);
  int errors = 0, opened = 0;
  for (int round = 0; round < 160; ++round) {
    std::vector<char> bytes = good;
    if (round < 40) {
      bytes.resize(std::size_t(rng() % good.size()));  // truncated
    } else {
      const int flips = 1 + int(rng() % 16);
      for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = char(rng());
    }
    const fs::path damaged = file("damaged.world");
    fs::remove(fs::path(damaged.string() + "-wal"));
    fs::remove(fs::path(damaged.string() + "-shm"));
    {
      std::ofstream out(damaged, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), std::streamsize(bytes.size()));
    }
    try {
      WorldOpenOptions ro;
      ro.read_only = true;
      const WorldStore w = WorldStore::open(damaged, ro);
      (void)w.check();
      ++opened;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("damaged.world"), std::string::npos) << e.what();
      ++errors;
    }
  }
  std::printf("damaged world files: %d refused with an Error, %d opened\n", errors, opened);
  EXPECT_GE(errors, 40);  // every truncation at least loses the header or the edits
}

TEST_F(StoreTest, AReadOnlyWorldWritesNothing) {
  WorldStore::create(file(), preset_);
  WorldOpenOptions ro;
  ro.read_only = true;
  WorldStore w = WorldStore::open(file(), ro);
  HeightEdits edits(1.0, 128);
  edits.apply(test::height_brush(BrushKind::raise, 0.0, 0.0, 20.0), base_);
  expect_error([&] { w.commit(edits.current(), "x"); }, ErrorCategory::io, {"read-only"});
  EXPECT_EQ(WorldStore::open(file()).info().commits, 0u);
}

// A disk that fills up during a commit (RLIMIT_FSIZE stands in for it): the commit fails with
// Error(io), the file keeps its newest commit, and the store goes on working once there is room.
TEST_F(StoreTest, AFullDiskLosesNothingCommitted) {
  WorldStore w = WorldStore::create(file(), preset_);
  HeightEdits edits(1.0, 128);
  edits.apply(test::height_brush(BrushKind::raise, 0.0, 0.0, 20.0), base_);
  w.commit(edits.current(), "small");
  const std::uint64_t kept = edits_hash(edits.current());
  for (int k = 0; k < 40; ++k) {  // about 100 tiles of noise: megabytes
    edits.apply(
        test::height_brush(BrushKind::noise, 1000.0 + 200.0 * (k % 8), 200.0 * (k / 8), 150.0, 5.0),
        base_);
  }
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto previous = signal(SIGXFSZ, SIG_IGN);
  const std::uintmax_t size =
      fs::file_size(file()) + fs::file_size(fs::path(file().string() + "-wal"));
  rlimit small = old;
  small.rlim_cur = rlim_t(size + 64 * 1024);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    w.commit(edits.current(), "too big");
  } catch (const Error& e) {
    message = e.what();
    EXPECT_EQ(e.category(), ErrorCategory::io);
  }
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, previous);
  EXPECT_NE(message.find("w.world"), std::string::npos) << message;
  EXPECT_EQ(edits_hash(w.height_edits()), kept);
  EXPECT_EQ(w.info().commits, 1u);
  {
    const WorldStore again = WorldStore::open(file());
    EXPECT_EQ(again.info().commits, 1u);
    EXPECT_EQ(edits_hash(again.height_edits()), kept);
    EXPECT_EQ(again.check(), "ok");
  }
  // With room again the same commit goes through.
  EXPECT_EQ(w.commit(edits.current(), "now it fits").seq, 2u);
  EXPECT_EQ(edits_hash(WorldStore::open(file()).height_edits()), edits_hash(edits.current()));
}

TEST(StoreFingerprint, DependsOnTheBaseTerrainOnly) {
  const Preset a = test::store_test_preset();
  EXPECT_EQ(generator_fingerprint(a), generator_fingerprint(test::store_test_preset()));
  const std::string seed[] = {"world.cell_size_m=1", "seed=2"};
  EXPECT_NE(generator_fingerprint(a), generator_fingerprint(load_preset("default", seed)));
  const std::string cell[] = {"world.cell_size_m=2"};
  EXPECT_NE(generator_fingerprint(a), generator_fingerprint(load_preset("default", cell)));
  EXPECT_NE(generator_fingerprint(a), generator_fingerprint(load_preset("alpine")));
}

}  // namespace
}  // namespace terrane
