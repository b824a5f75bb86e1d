// terrane edit: a user's changes to the procedural terrain, as sparse layers over the base
// (module `edit`; depends on core, noise, graph and surface). Issue 16.
//
// What is here so far: height edits on the level-0 lattice, the brushes that make them, undo and
// redo, and immutable snapshots for readers on other threads; block overrides for voxel mode
// (BlockEdits, read by BlockWorldGenerator and BlockStreamer in voxel.hpp / world.hpp); scatter
// instance overrides (InstanceEdits: removed, with a state, added; timers), read by
// ChunkGenerator::generate and Streamer::set_instance_edits; splat paint (SplatPaint:
// premultiplied per-layer amounts over compute_splat's weights), read by ChunkGenerator::generate,
// Streamer::set_paint and the map bake. ChunkGenerator::generate,
// TerrainQuery and Streamer::set_edits read a height snapshot (world.hpp), and so do nav's
// EditedNavTerrain and the block world, and the store (store.hpp) saves and loads every layer
// (issue 16 is open: docs/EDIT.md says what is built and what is not). A height edit is a float
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

#include <array>
#include <compare>
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
#include "terrane/surface.hpp"

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

// ---- Splat paint -------------------------------------------------------------------------------
//
// A sparse layer of paint over the splat weights compute_splat gives (surface.hpp): per level-0
// lattice vertex, one premultiplied amount a_l per splat layer of the preset (each in [0, 1],
// their sum A in [0, 1]). The painted weight of layer l is w_l * (1 - A) + a_l, so the weights
// still sum to 1, A = 0 is the procedural splat and A = 1 replaces it. A stroke composites over
// the paint that is there, as premultiplied alpha does: painting layer L with weight s (strength
// times the brush's falloff) makes a <- a * (1 - s) + s * e_L, so strokes of one layer converge
// on it; erasing makes a <- a * (1 - s), back towards the procedural splat. Like height edits the
// paint is stored in dense copy-on-write tiles of tile_cells^2 vertices, and a coarser level's
// vertices read the same amounts, so splat seams stay bit-identical.

enum class PaintKind : std::uint8_t {
  paint,    // towards the brush's layer: a <- a * (1 - s) + s * e_layer
  unpaint,  // back towards the procedural splat: a <- a * (1 - s)
};

// "paint", "unpaint".
const char* to_string(PaintKind kind);
std::optional<PaintKind> parse_paint_kind(std::string_view name);

// A paint stroke at one world position; weight(d) as HeightBrush's (1 within falloff_start *
// radius, a smoothstep down to 0 at the radius), times strength.
struct SplatBrush {
  PaintKind kind = PaintKind::paint;
  double x_m = 0.0, z_m = 0.0;  // centre [Units: m] [Limit: |.| <= kMaxEditCoordinate]
  double radius_m = 10.0;       // [Units: m] [Limit: (0, 1e4]]
  double strength = 1.0;        // the weight s at full falloff [Limit: [0, 1]]
  double falloff_start = 0.5;   // [Limit: [0, 1]]
  int layer = 0;                // paint's splat layer [Limit: below the layer count]

  // Throws Error(invalid_argument) naming the field, value and range.
  void validate(int layers) const;
};

// An immutable view of the paint at one moment (cheap to copy: shared tiles).
class SplatPaintSnapshot {
 public:
  // A tile: tile_cells^2 vertices, row-major (j, then i), each with `layers` amounts:
  // tile[(j * tile_cells + i) * layers + l]. Tile (ti, tj) holds the vertices i in
  // [ti * tile_cells, (ti + 1) * tile_cells), likewise j.
  using Tile = std::vector<float>;
  using TileKey = std::pair<std::int64_t, std::int64_t>;
  using TileMap = std::map<TileKey, std::shared_ptr<const Tile>>;

  SplatPaintSnapshot() = default;
  // A snapshot of given tiles (the store's loader). Throws Error(invalid_argument) for a cell,
  // tile size or layer count SplatPaint refuses, a null tile or one of another size, an amount
  // outside [0, 1] or a vertex whose amounts sum to more than 1 (plus float rounding), or a tile
  // beyond kMaxEditCoordinate.
  SplatPaintSnapshot(double cell_size_m, int tile_cells, int layers, TileMap tiles);

  double cell_size_m() const { return cell_m_; }
  int tile_cells() const { return tile_; }
  int layers() const { return layers_; }
  bool empty() const { return tiles_.empty(); }
  // Amount of `layer` at lattice vertex (i, j); 0 where nothing was painted.
  float amount_at(std::int64_t i, std::int64_t j, int layer) const;
  // Paints `splat` (compute_splat's weights on a grid of the lattice: spacing cell * 2^L,
  // origin 0, as add_to takes it): w_l <- w_l * (1 - A) + a_l at each painted vertex, the
  // largest weight absorbing the float rounding so each sums to 1. Throws Error(invalid_argument)
  // for a grid off the lattice or another layer count. Costs nothing away from painted tiles.
  void apply_to(SplatMap& splat) const;
  std::size_t tile_count() const { return tiles_.size(); }
  // Vertices with paint (A > 0), of all tiles (a pass over every amount) or of one tile.
  std::size_t painted_vertices() const;
  static std::size_t painted_vertices(const Tile& tile, int layers);
  std::size_t bytes() const;
  const TileMap& tiles() const { return tiles_; }
  // FNV-1a 64 over the layer count and every tile's (ti, tj) and amounts, in tile order.
  std::uint64_t content_hash() const;

 private:
  friend class SplatPaint;
  double cell_m_ = 1.0;
  int tile_ = 64;
  int layers_ = 1;
  TileMap tiles_;
};

// The owner's paint layer, with undo and redo (one owner thread; snapshots go to any).
class SplatPaint {
 public:
  // cell_size_m, tile_cells: as HeightEdits (the world's); layers: the preset's splat layer
  // count, 1..64. Throws Error(invalid_argument) outside those ranges.
  SplatPaint(double cell_size_m, int tile_cells, int layers);
  // Starts from a snapshot (a world opened from the store), with no undo step.
  explicit SplatPaint(const SplatPaintSnapshot& start);

  // Applies a stroke and returns the vertices it changed (a rectangle around them; empty when
  // no amount changed). The stroke becomes the newest undo step; the redo steps go. A tile whose
  // amounts all become 0 is dropped. Throws Error(invalid_argument) for an invalid brush and
  // Error(limit) for a stroke over 2^26 vertices (nothing is changed then).
  LatticeRect apply(const SplatBrush& brush);
  LatticeRect undo();
  LatticeRect redo();
  std::size_t undo_steps() const { return undo_.size(); }
  std::size_t redo_steps() const { return redo_.size(); }

  const SplatPaintSnapshot& current() const { return now_; }
  std::shared_ptr<const SplatPaintSnapshot> snapshot() const {
    return std::make_shared<const SplatPaintSnapshot>(now_);
  }

 private:
  struct Step {
    LatticeRect rect;
    std::vector<std::pair<SplatPaintSnapshot::TileKey,
                          std::pair<std::shared_ptr<const SplatPaintSnapshot::Tile>,
                                    std::shared_ptr<const SplatPaintSnapshot::Tile>>>>
        tiles;
  };
  void set_tiles(const Step& step, bool after);

  SplatPaintSnapshot now_;
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

// ---- Scatter instance overrides ----------------------------------------------------------------
//
// A sparse layer over the scatter's instances (surface.hpp's ScatterInstance, named by its stable
// id): an instance removed (a felled tree), one that carries a state (a harvested bush), and
// instances added (placed by the player, or moved: removed where the scatter put it and added
// where it went, under the same id). Each override may have a timer: advance() counts it down and
// the override lapses at zero, so a felled tree regrows, a state reverts and an added instance
// goes. ChunkGenerator::generate applies the overrides to a level-0 chunk's scatter: an override
// belongs to the chunk whose rectangle [cx * side, (cx + 1) * side) x [...) holds its position,
// the rule by which the scatter gives each instance to one chunk. The layer stores overrides in
// chunks of its own side (any; the world's chunk side is the natural one), so it does not depend
// on the generator's chunk size.

enum class InstanceChange : std::uint8_t {
  removed,  // the scatter's instance `id` at (x_m, z_m) is gone
  state,    // the scatter's instance `id` at (x_m, z_m) stays and carries `state`
  added,    // an instance `id` of `species` stands at (x_m, z_m) with the pose given
};

// "removed", "state", "added".
const char* to_string(InstanceChange change);

struct InstanceOverride {
  std::uint64_t id = 0;
  InstanceChange change = InstanceChange::removed;
  std::uint64_t state = 0;      // the game's value (state, added; 0 for removed)
  double timer_s = 0.0;         // seconds until the override lapses; 0: never [Limit: [0, 1e12]]
  double x_m = 0.0, z_m = 0.0;  // the instance's position [Units: m] [Limit: |.| <= 2^40]
  // The pose of an added instance (its height and normal come from the ground it stands on).
  float yaw_deg = 0.0f;                   // [Limit: finite]
  float scale_xz = 1.0f, scale_y = 1.0f;  // [Limit: (0, 1e4]]
  std::int32_t species = 0;               // [Limit: 0..65535, and below the preset's count]
  friend bool operator==(const InstanceOverride&, const InstanceOverride&) = default;
};

// A chunk of the override layer: positions in [cx * side, (cx + 1) * side) x [...).
struct InstanceEditKey {
  std::int64_t cx = 0, cz = 0;
  friend auto operator<=>(const InstanceEditKey&, const InstanceEditKey&) = default;
};

// The positions an operation changed overrides at (the old and new place of a moved instance):
// what Streamer::set_instance_edits regenerates (the level-0 chunks holding one of them).
struct InstanceChanges {
  std::vector<std::array<double, 2>> at;  // (x_m, z_m)
  bool empty() const { return at.empty(); }
};

// An immutable view of the instance overrides at one moment (cheap to copy: shared chunks).
class InstanceEditSnapshot {
 public:
  // A chunk's overrides, sorted by (id, added), one per (id, added): a scatter instance moved
  // within its chunk has a removed entry (its old place) and an added one (its new place).
  using Chunk = std::vector<InstanceOverride>;
  using ChunkMap = std::map<InstanceEditKey, std::shared_ptr<const Chunk>>;

  InstanceEditSnapshot() = default;
  // A snapshot of given chunks (the store's loader). Throws Error(invalid_argument) for a chunk
  // side outside (0, 1e8] m (a world file: tile_cells x cell), a null or empty chunk, (id, added)
  // not increasing, an override outside its chunk or with a field outside its limit.
  InstanceEditSnapshot(double chunk_size_m, ChunkMap chunks);

  double chunk_size_m() const { return side_; }
  bool empty() const { return chunks_.empty(); }
  // The chunk holding world (x, z): cx * side <= x < (cx + 1) * side as that product rounds.
  InstanceEditKey key_at(double x_m, double z_m) const;
  const Chunk* chunk(const InstanceEditKey& key) const;
  const ChunkMap& chunks() const { return chunks_; }
  // The override of `id` standing at (x, z) (its position) in the chunk holding it (the added one
  // where both are there), or nullptr.
  const InstanceOverride* find(std::uint64_t id, double x_m, double z_m) const;
  std::size_t override_count() const;
  std::size_t count(InstanceChange change) const;
  // The largest species of an added instance; -1 when there is none.
  int max_species() const;
  std::size_t bytes() const;
  // FNV-1a 64 over every chunk's key and overrides' fields, in key order.
  std::uint64_t content_hash() const;

  // Applies the overrides whose position lies in [x0, x1) x [z0, z1) to `instances`, the
  // scatter of that rectangle: a removed instance is erased, a state override sets its `state`,
  // and the added instances are appended in (chunk, id) order with y_m = 0 and an up normal (the
  // caller stands them on its ground: ChunkGenerator does). The order of the others is kept.
  // Returns the number appended.
  std::size_t apply_to(double x0_m, double z0_m, double x1_m, double z1_m,
                       std::vector<ScatterInstance>& instances) const;

 private:
  friend class InstanceEdits;
  double side_ = 128.0;
  ChunkMap chunks_;
};

// The owner's instance override layer, with undo and redo (one owner thread; snapshots go to
// any). Every operation but advance() is one undo step and returns where it changed something
// (empty: nothing changed, no step). The instances given are the ones a chunk holds (id,
// position, species, pose, state as ChunkData::scatter has them, overrides applied).
class InstanceEdits {
 public:
  // chunk_size_m: the layer's chunk side, (0, 1e8] m, any world's tile_cells x cell (else
  // Error(invalid_argument)).
  explicit InstanceEdits(double chunk_size_m);
  // Starts from a snapshot (a world opened from the store), with no undo step.
  explicit InstanceEdits(const InstanceEditSnapshot& start);

  // Removes the instances; with regrow_s > 0 they come back after that many seconds of
  // advance(). An added instance is dropped from the layer (it does not come back).
  InstanceChanges remove(std::span<const ScatterInstance> instances, double regrow_s = 0.0);
  // Gives the instances a state (0 with timer 0: the procedural instance again); with timer_s > 0
  // it reverts to 0 after that long.
  InstanceChanges set_state(std::span<const ScatterInstance> instances, std::uint64_t state,
                            double timer_s = 0.0);
  // Moves an instance to (x, z) with a yaw, keeping its id, species, scales and state.
  InstanceChanges move(const ScatterInstance& instance, double x_m, double z_m, float yaw_deg);
  // Adds an instance (species, position, pose and state from `placed`; its id is ignored) that
  // goes again after timer_s > 0 seconds. Its id (returned in *id when given) is a hash of its
  // position, species and a counter, unique among the layer's overrides.
  InstanceChanges add(const ScatterInstance& placed, double timer_s = 0.0,
                      std::uint64_t* id = nullptr);
  // Drops every override of these ids (the procedural instance again, where there is one).
  InstanceChanges restore(std::span<const std::uint64_t> ids);
  // Counts every timer down by `seconds` (>= 0, finite); the overrides that reach 0 lapse.
  // Time moves on: the undo and redo steps are dropped when anything lapsed.
  InstanceChanges advance(double seconds);

  InstanceChanges undo();
  InstanceChanges redo();
  std::size_t undo_steps() const { return undo_.size(); }
  std::size_t redo_steps() const { return redo_.size(); }

  const InstanceEditSnapshot& current() const { return now_; }
  std::shared_ptr<const InstanceEditSnapshot> snapshot() const {
    return std::make_shared<const InstanceEditSnapshot>(now_);
  }

 private:
  struct Step {
    InstanceChanges changes;
    std::vector<
        std::pair<InstanceEditKey, std::pair<std::shared_ptr<const InstanceEditSnapshot::Chunk>,
                                             std::shared_ptr<const InstanceEditSnapshot::Chunk>>>>
        chunks;
  };
  class Builder;
  InstanceChanges commit(Builder& b);
  void set_chunks(const Step& step, bool after);

  InstanceEditSnapshot now_;
  std::vector<Step> undo_, redo_;
};

// Every layer of a world's edits; nullptr: none (or, for WorldStore::commit, the layer as the
// newest commit has it).
struct WorldEdits {
  std::shared_ptr<const HeightEditSnapshot> heights;
  std::shared_ptr<const BlockEditSnapshot> blocks;
  std::shared_ptr<const InstanceEditSnapshot> instances;
  std::shared_ptr<const SplatPaintSnapshot> paint;
};

}  // namespace terrane
