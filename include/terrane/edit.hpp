// terrane edit: a user's changes to the procedural terrain, as sparse layers over the base
// (module `edit`; depends on core, noise and graph). Issue 16.
//
// What is here so far: height edits on the level-0 lattice, the brushes that make them, undo and
// redo, and immutable snapshots for readers on other threads; block overrides for voxel mode
// (BlockEdits, read by BlockWorldGenerator and BlockStreamer in voxel.hpp / world.hpp).
// ChunkGenerator::generate, TerrainQuery and Streamer::set_edits read a snapshot (world.hpp), and
// so does nav's EditedNavTerrain, and the store (store.hpp) saves and loads them; voxel does not
// yet (issue 16 is open: docs/EDIT.md says what is built and what is not). A height edit is a float
// delta per level-0 lattice vertex (x = i * cell, z = j * cell, the vertices of the world's level-0
// chunks), stored in dense tiles of tile_cells^2 vertices that exist only where something was
// edited. A coarser level's vertices are level-0 vertices too (spacing cell * 2^L), so every level
// reads the same delta at a shared vertex and chunk seams stay bit-identical.
//
// Determinism: a brush's result depends only on the brush, the base heights and the deltas
// before it, in a fixed order of float operations; the same strokes in the same order give the
// same bits on every machine, thread count and SIMD target.
//
// Threading: HeightEdits is owned by one thread (apply, undo, redo); snapshot() may be called
// there and the snapshot read from any number of threads while the owner goes on editing (tiles
// are shared copy-on-write).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/graph.hpp"
#include "terrane/noise.hpp"

namespace terrane {

// The world's coordinate limit (world.hpp's kMaxWorldCoordinate, 2^40 m) [Units: m].
inline constexpr double kMaxEditCoordinate = 1099511627776.0;

enum class BrushKind : std::uint8_t {
  raise,    // + strength_m * weight
  lower,    // - strength_m * weight
  smooth,   // towards the mean of the 3 x 3 neighbourhood, by min(1, strength_m) * weight
  flatten,  // towards target_m, by min(1, strength_m) * weight
  noise,    // + strength_m * weight * noise(x, z) (noise in [-1, 1])
};

// "raise", "lower", "smooth", "flatten", "noise" (the CLI's and the viewer's names).
const char* to_string(BrushKind kind);
// The kind of one of those names; nullopt for any other.
std::optional<BrushKind> parse_brush_kind(std::string_view name);

// A brush stroke at one world position. weight(d) = 1 within falloff_start * radius of the
// centre, then a smoothstep down to 0 at the radius.
struct HeightBrush {
  BrushKind kind = BrushKind::raise;
  double x_m = 0.0, z_m = 0.0;  // centre [Units: m] [Limit: |.| <= kMaxEditCoordinate]
  double radius_m = 10.0;       // [Units: m] [Limit: (0, 1e4]]
  double strength_m = 1.0;      // metres for raise/lower/noise, a fraction (0, 1] per
                                // application for smooth/flatten [Limit: [0, 1e4]]
  double falloff_start = 0.5;   // [Limit: [0, 1]]
  double target_m = 0.0;        // flatten's height [Units: m] [Limit: finite]
  NoiseParams noise;            // the noise brush's noise (validated when kind == noise)

  // Throws Error(invalid_argument) naming the field, value and range.
  void validate() const;
};

// A rectangle of lattice vertices, inclusive: [i0, i1] x [j0, j1]. Empty when i0 > i1.
struct LatticeRect {
  std::int64_t i0 = 0, j0 = 0, i1 = -1, j1 = -1;
  bool empty() const { return i0 > i1 || j0 > j1; }
  friend bool operator==(const LatticeRect&, const LatticeRect&) = default;
};

// An immutable view of the deltas at one moment (cheap to copy: shared tiles).
class HeightEditSnapshot {
 public:
  // A tile: tile_cells^2 deltas [Units: m], row-major (j, then i); tile (ti, tj) holds the
  // vertices i in [ti * tile_cells, (ti + 1) * tile_cells), likewise j.
  using Tile = std::vector<float>;
  using TileKey = std::pair<std::int64_t, std::int64_t>;  // (ti, tj)
  using TileMap = std::map<TileKey, std::shared_ptr<const Tile>>;

  HeightEditSnapshot() = default;
  // A snapshot of given tiles (the store's loader). Throws Error(invalid_argument) for a cell or
  // tile size HeightEdits refuses, a tile of another size, a null tile, a delta that is not
  // finite, or a tile beyond kMaxEditCoordinate.
  HeightEditSnapshot(double cell_size_m, int tile_cells, TileMap tiles);

  double cell_size_m() const { return cell_m_; }
  int tile_cells() const { return tile_; }
  bool empty() const { return tiles_.empty(); }
  // Delta at lattice vertex (i, j) [Units: m]; 0 where nothing was edited.
  float delta_at(std::int64_t i, std::int64_t j) const;
  // heights[k] += delta at each vertex of `grid`. The grid must lie on the lattice: spacing
  // cell * 2^L and index_x0 / index_z0 counted in that spacing (a chunk's height_grid), origin
  // 0; else Error(invalid_argument). Adds nothing (and costs nothing) away from edited tiles.
  void add_to(const GridSpec& grid, std::span<float> heights) const;
  // heights[k] += the deltas interpolated bilinearly at each point of `grid`, any spacing and
  // origin (a block world's column centres). At a lattice vertex that is the vertex's delta (to
  // the bit, as add_to adds it, where the position divides exactly by the cell: 1 m cells);
  // where the four vertices around a point hold no edit the height keeps its bits. Throws
  // Error(invalid_argument) when heights has not the grid's size.
  void add_sampled(const GridSpec& grid, std::span<float> heights) const;
  // Bounds of every delta held: lo <= delta_at(i, j) <= hi everywhere (0, 0 when empty;
  // conservative after undo) [Units: m].
  float delta_lo() const { return lo_; }
  float delta_hi() const { return hi_; }
  // Tiles held and their bytes (for budgets and the store).
  std::size_t tile_count() const { return tiles_.size(); }
  std::size_t bytes() const;
  // The tiles. A tile changed by a stroke is a new object (copy-on-write), so comparing the
  // pointers of two snapshots of one HeightEdits finds the tiles changed between them.
  const TileMap& tiles() const { return tiles_; }
  // FNV-1a 64 over every tile's (ti, tj) (two int64) and deltas, in tile order: equal for
  // equal edits on every machine (a bake's sidecar records it).
  std::uint64_t content_hash() const;

 private:
  friend class HeightEdits;
  double cell_m_ = 1.0;
  int tile_ = 64;
  float lo_ = 0.0f, hi_ = 0.0f;
  TileMap tiles_;
};

// The owner's editable layer, with undo and redo.
class HeightEdits {
 public:
  // cell_size_m: the world's level-0 cell; tile_cells: vertices per tile side (the chunk's
  // cells is a good choice). Throws Error(invalid_argument) for cell_size_m outside (0, 1e4] or
  // tile_cells outside 8..1024.
  HeightEdits(double cell_size_m, int tile_cells);
  // Starts from a snapshot's deltas (a world opened from the store), with no undo step.
  explicit HeightEdits(const HeightEditSnapshot& start);

  // Applies a brush over `base` (the procedural heights, for smooth and flatten) plus the
  // current deltas, and returns the vertices it changed (as a rectangle around them; empty when
  // the brush covers no vertex). The stroke becomes the newest undo step; the redo steps go.
  // Throws Error(invalid_argument) for an invalid brush (nothing is changed then).
  LatticeRect apply(const HeightBrush& brush, const CompiledGraph& base);

  // Undoes the newest stroke (returns the vertices it changed back; empty when there is none to
  // undo), or redoes the newest undone one. The deltas after undo are the bits they had before
  // the stroke.
  LatticeRect undo();
  LatticeRect redo();
  std::size_t undo_steps() const { return undo_.size(); }
  std::size_t redo_steps() const { return redo_.size(); }

  const HeightEditSnapshot& current() const { return now_; }
  std::shared_ptr<const HeightEditSnapshot> snapshot() const {
    return std::make_shared<const HeightEditSnapshot>(now_);
  }

 private:
  struct Step {
    LatticeRect rect;
    // The tiles the stroke changed, as they were before and after it (nullptr: no tile).
    std::vector<std::pair<std::pair<std::int64_t, std::int64_t>,
                          std::pair<std::shared_ptr<const HeightEditSnapshot::Tile>,
                                    std::shared_ptr<const HeightEditSnapshot::Tile>>>>
        tiles;
  };
  void set_tiles(const Step& step, bool after);

  HeightEditSnapshot now_;
  std::vector<Step> undo_, redo_;
};

// ---- Block overrides (voxel mode) -------------------------------------------------------------
//
// A sparse layer of block ids over a block world's generated blocks, per block chunk (chunk_size^3
// blocks, the BlockWorldGenerator's chunks): each block either keeps the generated block
// (kKeepBlock) or is replaced. BlockWorldGenerator::generate applies it after everything it
// generates (terrain, water, lakes, trees), to the chunk and its one-block padding, so meshes see
// the edited neighbours. Height edits and block overrides are independent layers: a raise under a
// dug hole moves the terrain, the hole stays at its blocks.

// The block keeps what the generator makes there.
inline constexpr std::uint16_t kKeepBlock = 0xFFFF;
// The block is not solid: it holds what the generator puts in empty space there (the sea's
// water or ice below sea level, a lake's water inside a lake's volume, else air). A dig brush
// writes it, so a hole dug under the sea or a lake is full of water and one on land is open air.
inline constexpr std::uint16_t kDugBlock = 0xFFFE;
// Block coordinates of a block layer: |b| * block_size_m within the block world's 1e9 m.
inline constexpr double kMaxBlockEditCoordinate = 1e9;
// The largest brush: 64 blocks of radius (about 1.1 million blocks).
inline constexpr double kMaxBlockBrushBlocks = 64.0;

enum class BlockBrushKind : std::uint8_t {
  dig,      // every block whose centre is inside the sphere becomes kDugBlock
  fill,     // ... becomes `block` (air included: fill with air makes a dry hole under water)
  restore,  // ... keeps the generated block again (kKeepBlock): the overrides there are gone
};

// "dig", "fill", "restore".
const char* to_string(BlockBrushKind kind);
std::optional<BlockBrushKind> parse_block_brush_kind(std::string_view name);

// A sphere of blocks at one world position: block (bx, by, bz) is inside when its centre
// ((b + 0.5) * block_size_m on each axis) lies within radius_m of (x_m, y_m, z_m).
struct BlockBrush {
  BlockBrushKind kind = BlockBrushKind::dig;
  double x_m = 0.0, y_m = 0.0, z_m = 0.0;  // centre [Units: m] [Limit: |.| <= 1e9]
  double radius_m = 3.0;                   // [Units: m] [Limit: (0, 64 * block_size_m]]
  std::uint16_t block = 0;                 // fill's block id [Limit: < the palette's size]

  // Throws Error(invalid_argument) naming the field, value and range.
  void validate(double block_size_m, int block_types) const;
};

// A box of blocks, inclusive: [x0, x1] x [y0, y1] x [z0, z1]. Empty when x0 > x1.
struct BlockBox {
  std::int64_t x0 = 0, y0 = 0, z0 = 0, x1 = -1, y1 = -1, z1 = -1;
  bool empty() const { return x0 > x1 || y0 > y1 || z0 > z1; }
  friend bool operator==(const BlockBox&, const BlockBox&) = default;
};

// A block chunk of the override layer; ordered by column (cx, cz), then cy, so a chunk column's
// chunks are neighbours in a map.
struct BlockEditKey {
  std::int64_t cx = 0, cy = 0, cz = 0;
  friend bool operator==(const BlockEditKey&, const BlockEditKey&) = default;
  friend bool operator<(const BlockEditKey& a, const BlockEditKey& b) {
    if (a.cx != b.cx) return a.cx < b.cx;
    if (a.cz != b.cz) return a.cz < b.cz;
    return a.cy < b.cy;
  }
};

// An immutable view of the block overrides at one moment (cheap to copy: shared chunks).
class BlockEditSnapshot {
 public:
  // A chunk: chunk_size^3 values, x fastest, then z, then y (BlockChunk's order); kKeepBlock,
  // kDugBlock or a block id. A chunk holds at least one override.
  using Chunk = std::vector<std::uint16_t>;
  using ChunkMap = std::map<BlockEditKey, std::shared_ptr<const Chunk>>;

  BlockEditSnapshot() = default;
  // A snapshot of given chunks (the store's loader). Throws Error(invalid_argument) for a block
  // size outside (0, 100] m, a chunk size other than 8, 16 or 32, a null chunk, one of another
  // size or without an override, a value that is neither kKeepBlock, kDugBlock nor below
  // block_types, or a chunk beyond kMaxBlockEditCoordinate.
  BlockEditSnapshot(double block_size_m, int chunk_size, int block_types, ChunkMap chunks);

  double block_size_m() const { return block_m_; }
  int chunk_size() const { return size_; }
  int block_types() const { return types_; }
  bool empty() const { return chunks_.empty(); }
  // The override of world block (bx, by, bz): kKeepBlock where there is none.
  std::uint16_t at(std::int64_t bx, std::int64_t by, std::int64_t bz) const;
  // The chunk's overrides, or nullptr.
  const Chunk* chunk(const BlockEditKey& key) const;
  const ChunkMap& chunks() const { return chunks_; }
  std::size_t chunk_count() const { return chunks_.size(); }
  std::size_t bytes() const;
  // Overridden blocks (values other than kKeepBlock) in every chunk.
  std::size_t override_count() const;
  // FNV-1a 64 over every chunk's (cx, cy, cz) and values, in key order.
  std::uint64_t content_hash() const;

 private:
  friend class BlockEdits;
  double block_m_ = 1.0;
  int size_ = 32;
  int types_ = 256;
  ChunkMap chunks_;
};

// The owner's block override layer, with undo and redo (one owner thread; snapshots go to any).
class BlockEdits {
 public:
  // block_size_m and chunk_size: the block world's (VoxelParams); block_types: its palette's
  // size. Throws Error(invalid_argument) as the snapshot's constructor.
  BlockEdits(double block_size_m, int chunk_size, int block_types);
  // Starts from a snapshot (a world opened from the store), with no undo step.
  explicit BlockEdits(const BlockEditSnapshot& start);

  // Applies a brush and returns the box of the blocks it changed (empty when no value changed:
  // a restore where nothing was overridden). The stroke becomes the newest undo step; the redo
  // steps go. Throws Error(invalid_argument) for an invalid brush (nothing is changed then).
  BlockBox apply(const BlockBrush& brush);
  // Undoes the newest stroke (returns the blocks it changed back) or redoes the newest undone
  // one; the overrides are the bits they were.
  BlockBox undo();
  BlockBox redo();
  std::size_t undo_steps() const { return undo_.size(); }
  std::size_t redo_steps() const { return redo_.size(); }

  const BlockEditSnapshot& current() const { return now_; }
  std::shared_ptr<const BlockEditSnapshot> snapshot() const {
    return std::make_shared<const BlockEditSnapshot>(now_);
  }

 private:
  struct Step {
    BlockBox box;
    std::vector<std::pair<BlockEditKey, std::pair<std::shared_ptr<const BlockEditSnapshot::Chunk>,
                                                  std::shared_ptr<const BlockEditSnapshot::Chunk>>>>
        chunks;
  };
  void set_chunks(const Step& step, bool after);

  BlockEditSnapshot now_;
  std::vector<Step> undo_, redo_;
};

}  // namespace terrane
