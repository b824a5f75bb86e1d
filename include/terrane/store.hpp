// terrane store: worlds on disk (module `store`; depends on core, preset, graph and edit).
// Issue 16.
//
// A world is preset + seed + edits. A world file is an SQLite database (WAL journal) that
// holds:
//   - the preset document after its overrides (Preset::canonical_json), its name and seed, so a
//     world opens without the preset file it came from;
//   - the generator's fingerprint: a hash of the base heights the preset gives at fixed probe
//     points (generator_fingerprint). Edits are deltas over that base, so a terrane whose base
//     differs would move every edit; opening such a world is refused (see WorldOpenOptions);
//   - the edits, one zstd-compressed blob per edited chunk and layer: the height layer (a
//     HeightEdits tile of the chunk's cells^2 deltas) and the block layer (the block
//     overrides of one block chunk column, BlockEdits), the instance layer (one instance chunk's
//     overrides, InstanceEdits) and the paint layer (a SplatPaint tile);
//   - a log of the commits (sequence number, time, a one-line description).
//
// Crash safety is SQLite's: each commit is one transaction, so after a crash (kill -9, power
// loss with Durability::full) the world opens with every commit that returned and no part of
// the one that did not. A world file is created under a temporary name and renamed into place,
// so a failed `create` leaves nothing behind. docs/EDIT.md has the schema.
//
// Threading: a WorldStore is used from one thread at a time (its SQLite connection is not
// shared); the snapshots it hands out are immutable and may go to any thread.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/edit.hpp"
#include "terrane/preset.hpp"

namespace terrane {

// The newest schema this terrane writes; it reads this one and older ones, and refuses a newer
// world. Version 1: the height layer. Version 2 adds the block layer, version 3 the instance
// layer, version 4 the splat paint layer: a world is created as version 1 and becomes version N
// with its first commit to layer N (at least), so a world without the newer layers still opens
// in a terrane that reads only the older versions.
inline constexpr int kWorldSchemaVersion = 4;

// A 64-bit hash of the base terrain the edits sit on: the preset's compiled graph evaluated on
// 17 x 17 lattice vertices at five places (the origin and +-2^20 cells out on each axis), plus
// the world's cell size and chunk cells. Two terrane builds that give a preset the same
// fingerprint give its edits the same base. Throws Error for an invalid preset.
std::uint64_t generator_fingerprint(const Preset& preset);

enum class Durability : std::uint8_t {
  normal,  // WAL, synchronous=NORMAL: a commit survives a crash of the process; after a power
           // loss the newest commits may be gone, but the file is never damaged
  full,    // WAL, synchronous=FULL: a commit that returned survives a power loss too (an fsync
           // per commit)
};

struct WorldCreateOptions {
  bool overwrite = false;  // replace an existing file (else Error(io) naming it)
  int tile_cells = 128;    // the height layer's tile side in vertices: a tile is a chunk of
                           // this many cells [Limit: 8..1024]
  Durability durability = Durability::normal;
};

struct WorldOpenOptions {
  bool read_only = false;  // commit() then throws; the file is never written
  // Open a world whose recorded fingerprint differs from this terrane's for its preset: its
  // edits then sit on a changed base. The next commit records the new fingerprint. Without it
  // such a world is refused with Error(invalid_argument) naming both fingerprints and
  // the terrane versions.
  bool accept_generator_change = false;
  Durability durability = Durability::normal;
};

struct WorldInfo {
  std::string path;
  int schema_version = 0;
  std::string created_by;          // terrane version that created the world
  std::string written_by;          // terrane version of the newest commit
  std::uint64_t fingerprint = 0;   // recorded generator fingerprint
  bool generator_changed = false;  // opened with accept_generator_change over a differing one
  std::string preset_name;
  std::uint64_t preset_hash = 0;
  std::uint64_t seed = 0;
  double cell_size_m = 0.0;
  int tile_cells = 0;                  // the height layer's tile side (the chunk's cells)
  std::uint64_t commits = 0;           // commits since creation
  std::size_t height_tiles = 0;        // edited chunks of the height layer
  std::size_t block_chunks = 0;        // edited block chunks of the block layer
  std::size_t block_overrides = 0;     // overridden blocks
  std::size_t instance_chunks = 0;     // chunks of the instance layer
  std::size_t instance_overrides = 0;  // instance overrides (removed, state, added)
  std::size_t paint_tiles = 0;         // tiles of the paint layer
  std::size_t painted_vertices = 0;    // lattice vertices with paint
  std::size_t blob_bytes = 0;          // compressed bytes of the stored edits
  // The same per layer: heights, blocks, instances, paint.
  std::array<std::size_t, 4> layer_bytes{};
  std::size_t file_bytes = 0;                  // the database file (without its -wal file)
  float delta_lo_m = 0.0f, delta_hi_m = 0.0f;  // bounds of the height deltas
};

struct WorldLogEntry {
  std::uint64_t seq = 0;       // 1, 2, ...: the commit's number
  std::int64_t unix_time = 0;  // seconds
  std::string description;     // the committer's one line
};

// A commit takes the layers of a WorldEdits (edit.hpp); nullptr keeps that layer as the newest
// commit has it.

struct WorldCommit {
  std::uint64_t seq = 0;          // the commit's number
  std::size_t tiles_written = 0;  // chunks whose blob was written (height tiles, block columns)
  std::size_t tiles_deleted = 0;  // chunks whose edits went back to none
  std::size_t bytes_written = 0;  // compressed bytes written
};

class WorldStore {
 public:
  // Creates a world file for the preset with no edits. The file is written under a temporary
  // name in the same directory and renamed into place. Throws Error(io) for an existing file
  // (unless overwrite) or a directory that cannot be written, naming the path.
  static WorldStore create(const std::filesystem::path& file, const Preset& preset,
                           const WorldCreateOptions& options = {});
  // Opens a world file and loads its edits, decompressing every blob on all cores (0.75-0.8 s
  // for 10,000 edited chunks on 2 cores, docs/PERFORMANCE.md). Throws Error with the path and
  // the reason:
  // io (missing, unreadable, not a world file, damaged: SQLite's report or a blob that fails its
  // checksum), invalid_argument (a newer schema, a differing generator fingerprint).
  static WorldStore open(const std::filesystem::path& file, const WorldOpenOptions& options = {});

  WorldStore(WorldStore&&) noexcept;
  WorldStore& operator=(WorldStore&&) noexcept;
  ~WorldStore();

  // The world's preset (parsed from the stored document) and its state.
  const Preset& preset() const;
  const WorldInfo& info() const;
  // The height edits as of the newest commit (or the open).
  const HeightEditSnapshot& height_edits() const;
  // The block overrides as of the newest commit, with the block size, chunk size and palette
  // size of the preset's voxel section (a BlockEdits starts from it).
  const BlockEditSnapshot& block_edits() const;
  // The scatter instance overrides as of the newest commit, in chunks of the world's chunk side
  // (tile_cells x cell_size_m; an InstanceEdits starts from it), and the same shared.
  const InstanceEditSnapshot& instance_edits() const;
  std::shared_ptr<const InstanceEditSnapshot> instance_snapshot() const;
  // The splat paint as of the newest commit, on the world's lattice and tiles, with the preset's
  // splat layer count (a SplatPaint starts from it).
  std::shared_ptr<const SplatPaintSnapshot> paint() const;

  // Commits a new state of the height edits in one transaction: the chunks whose tile differs
  // from the newest commit's are written (a tile object unchanged since then is skipped
  // without reading it), the chunks that have no tile any more are deleted, and a log entry
  // with `description` is added. The snapshot's cell must be the world's and its tile side
  // info().tile_cells (else Error(invalid_argument)). On any failure (disk full, read-only
  // file, I/O error) the transaction is rolled back and Error(io) says why: the file keeps the
  // newest commit, and height_edits() is unchanged.
  WorldCommit commit(const HeightEditSnapshot& edits, std::string_view description);
  // The same with a shared snapshot (HeightEdits::snapshot(), the one a Streamer gets), which
  // the store keeps as height_edits() instead of copying its map of tiles: with thousands of
  // edited chunks the copy would cost more than the commit.
  WorldCommit commit(std::shared_ptr<const HeightEditSnapshot> edits, std::string_view description);
  // Commits new states of any layers in one transaction (nullptr: the layer as committed). The
  // block layer is written per block chunk column (cx, cz): a column with a changed chunk is
  // written whole. Block overrides must have the world's block size, chunk size and palette
  // size, instance overrides its chunk side, paint its cell, tile side and splat layer count
  // (else Error(invalid_argument)). The first commit to layer N raises the file's schema version
  // to N (2 block overrides, 3 instance overrides, 4 paint).
  WorldCommit commit(const WorldEdits& edits, std::string_view description);

  // The newest `count` log entries, newest last.
  std::vector<WorldLogEntry> log(std::size_t count) const;
  // Runs SQLite's PRAGMA integrity_check and decodes every blob; returns "ok" or the problems.
  std::string check() const;

 private:
  struct Impl;
  explicit WorldStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// True when the file starts with SQLite's header (so a CLI can tell a world from a preset).
bool is_world_file(const std::filesystem::path& file);

}  // namespace terrane
