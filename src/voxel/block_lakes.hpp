// Internal to the voxel module: lakes above sea level in block worlds, as a pure function of
// position (voxel.hpp, "Block worlds", lakes).
//
// Lakes are not local: whether a hollow holds water depends on the lowest way out, which can be
// far away. A block world is infinite, so terrane floods fixed windows instead: the world's block
// columns are cut into lake tiles of `lake_tile` blocks, and the window of a tile is the tile
// grown by `lake_margin` blocks on every side. The 2D heights of a window (the same values as the
// chunks' column heights: the same graph at the same block columns) are flooded with the
// Priority-Flood of compute_hydrology, the window's border and the sea being the outlets. Each
// 8-connected set of flooded cells at least `min_lake_depth_m` deep is one lake of that window,
// with one level.
//
// A column's lake level is the highest level of the lakes that cover it in any window containing
// it; no lake covers it when none does. Every window's lake is contained by its own window's
// heights (a cell next to a lake but not in it is at least as high as the lake's level), and the
// rule "highest of the windows" keeps that true for the union (the proof is in
// block_lakes.cpp), so the water never stands against air. The set of windows that contain a
// column depends on the column only, so the level is the same in every chunk that asks.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "terrane/edit.hpp"
#include "terrane/graph.hpp"

namespace terrane::voxel_detail {

// The height-edit tiles a result was made with (block worlds on edited ground): equal lists mean
// equal deltas over the area, since a changed tile is a new object (copy-on-write). Holding the
// tiles keeps their addresses from being reused while the result is cached.
using EditDeps = std::vector<
    std::pair<HeightEditSnapshot::TileKey, std::shared_ptr<const HeightEditSnapshot::Tile>>>;

// The tiles of `edits` (nullptr: none) holding a lattice vertex that bilinear sampling reads for
// a point in the box [x0_m, x1_m] x [z0_m, z1_m].
EditDeps edit_deps(const HeightEditSnapshot* edits, double x0_m, double z0_m, double x1_m,
                   double z1_m);

struct LakeSettings {
  int tile = 512;    // blocks per lake tile side
  int margin = 128;  // blocks the window adds on each side of its tile
  double min_depth_m = 1.0;
  double block_m = 1.0;
  double sea_level_m = 0.0;
};

// The lakes of one window: per lake its level and the window cells it covers.
struct LakeWindow {
  std::int64_t x0 = 0, z0 = 0;  // first block column of the window
  int size = 0;                 // window side in blocks
  struct Lake {
    float level_m = 0.0f;
    int i0 = 0, j0 = 0, i1 = 0, j1 = 0;  // bounding box of the cells, [i0, i1) x [j0, j1)
    std::vector<std::int32_t> cells;     // j * size + i, ascending
  };
  std::vector<Lake> lakes;
  std::size_t bytes() const;
};

// Lake levels of block columns, with a bounded cache of windows shared by every thread.
class LakeSource {
 public:
  LakeSource(const CompiledGraph& terrain, const LakeSettings& settings);

  // out[j * w + i] = the lake level of block column (x0 + i, z0 + j), or -infinity where no
  // lake covers it, on the terrain plus `edits` (nullptr: none). Thread-safe.
  void levels(std::int64_t x0, std::int64_t z0, int w, std::vector<float>& out,
              const ExecContext& ctx, const HeightEditSnapshot* edits = nullptr) const;

  // The lakes of tile (tx, tz)'s window (cached; a pure function of the tile and of the edits'
  // tiles over the window).
  std::shared_ptr<const LakeWindow> window(std::int64_t tx, std::int64_t tz, const ExecContext& ctx,
                                           const HeightEditSnapshot* edits = nullptr) const;

  // The edit tiles that the lake levels of block columns [x0, x0 + w)^2 depend on: those under
  // every window containing one of them.
  EditDeps deps(std::int64_t x0, std::int64_t z0, int w, const HeightEditSnapshot* edits) const;

  const LakeSettings& settings() const { return settings_; }

 private:
  std::shared_ptr<const LakeWindow> compute(std::int64_t tx, std::int64_t tz,
                                            const ExecContext& ctx,
                                            const HeightEditSnapshot* edits) const;

  const CompiledGraph& terrain_;
  LakeSettings settings_;
  mutable std::mutex mutex_;
  struct Entry {
    std::uint64_t used = 0;  // clock_ at the last use
    EditDeps deps;           // the edit tiles it was computed with
    std::shared_future<std::shared_ptr<const LakeWindow>> window;
  };
  mutable std::map<std::pair<std::int64_t, std::int64_t>, Entry> cache_;
  mutable std::uint64_t clock_ = 0;
};

}  // namespace terrane::voxel_detail
