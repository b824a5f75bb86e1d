// terrane edit: a user's changes to the procedural terrain, as sparse layers over the base
// (module `edit`; depends on core, noise and graph). Issue 16.
//
// What is here so far: height edits on the level-0 lattice, the brushes that make them, undo and
// redo, and immutable snapshots for readers on other threads. ChunkGenerator::generate,
// TerrainQuery and Streamer::set_edits read a snapshot (world.hpp), and so does nav's
// EditedNavTerrain, and the store (store.hpp) saves and loads them; voxel does not yet (issue 16 is
// open: docs/EDIT.md says what is built and what is not). A height edit is a float delta per
// level-0 lattice vertex (x = i * cell, z = j * cell, the vertices of the world's level-0 chunks),
// stored in dense tiles of tile_cells^2 vertices that exist only where something was edited. A
// coarser level's vertices are level-0 vertices too (spacing cell * 2^L), so every level reads the
// same delta at a shared vertex and chunk seams stay bit-identical.
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

}  // namespace terrane
