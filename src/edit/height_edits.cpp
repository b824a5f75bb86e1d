// Height edits (edit.hpp): copy-on-write tiles of deltas on the level-0 lattice, strokes, undo
// and redo.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "edit/lattice_stroke.hpp"
#include "terrane/edit.hpp"

namespace terrane {
namespace {

using edit_detail::floor_div;

// Error(invalid_argument) unless `heights` has one value per sample of `grid`.
void check_heights(const GridSpec& grid, std::span<const float> heights) {
  if (heights.size() != grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                "height edits: " + std::to_string(heights.size()) + " heights for a grid of " +
                    std::to_string(grid.sample_count()) + " samples");
  }
}

}  // namespace

std::uint64_t HeightEditSnapshot::content_hash() const {
  std::uint64_t h = hash_bytes(nullptr, 0);
  for (const auto& [key, tile] : tiles_) {
    const std::int64_t k[2] = {key.first, key.second};
    h = hash_bytes(k, sizeof k, h);
    h = hash_bytes(tile->data(), tile->size() * sizeof(float), h);
  }
  return h;
}

float HeightEditSnapshot::delta_at(std::int64_t i, std::int64_t j) const {
  const auto it = tiles_.find({floor_div(i, tile_), floor_div(j, tile_)});
  if (it == tiles_.end()) return 0.0f;
  const std::int64_t li = i - floor_div(i, tile_) * tile_, lj = j - floor_div(j, tile_) * tile_;
  return (*it->second)[std::size_t(lj) * std::size_t(tile_) + std::size_t(li)];
}

void HeightEditSnapshot::add_sampled(const GridSpec& grid, std::span<float> heights) const {
  check_heights(grid, heights);
  if (tiles_.empty()) return;
  // Each point's lattice cell (i0, j0) and its place in it (fx, fz in [0, 1)).
  const auto cell_of = [&](double m, std::int64_t& c, double& f) {
    const double u = m / cell_m_;
    const double fl = std::floor(u);
    c = std::int64_t(fl);
    f = u - fl;
  };
  std::vector<std::int64_t> col_i(std::size_t(grid.width));
  std::vector<double> col_f(std::size_t(grid.width));
  for (int gi = 0; gi < grid.width; ++gi) {
    cell_of(grid.x_m(gi), col_i[std::size_t(gi)], col_f[std::size_t(gi)]);
  }
  const std::int64_t t = tile_;
  // The tile of a vertex, remembering the last one found (neighbouring points share it).
  struct Cursor {
    TileKey key{std::numeric_limits<std::int64_t>::min(), 0};
    const Tile* tile = nullptr;
  };
  const auto at = [&](Cursor& cur, std::int64_t i, std::int64_t j) -> float {
    const TileKey key{floor_div(i, t), floor_div(j, t)};
    if (key != cur.key) {
      const auto it = tiles_.find(key);
      cur.key = key;
      cur.tile = it == tiles_.end() ? nullptr : it->second.get();
    }
    if (cur.tile == nullptr) return 0.0f;
    return (*cur.tile)[std::size_t(j - key.second * t) * std::size_t(t) +
                       std::size_t(i - key.first * t)];
  };
  for (int gj = 0; gj < grid.height; ++gj) {
    std::int64_t j0 = 0;
    double fz = 0.0;
    cell_of(grid.z_m(gj), j0, fz);
    Cursor c0, c1;  // rows j0 and j0 + 1
    float* row = heights.data() + std::size_t(gj) * std::size_t(grid.width);
    for (int gi = 0; gi < grid.width; ++gi) {
      const std::int64_t i0 = col_i[std::size_t(gi)];
      const float d00 = at(c0, i0, j0), d10 = at(c0, i0 + 1, j0);
      const float d01 = at(c1, i0, j0 + 1), d11 = at(c1, i0 + 1, j0 + 1);
      if (d00 == 0.0f && d10 == 0.0f && d01 == 0.0f && d11 == 0.0f) continue;
      const double fx = col_f[std::size_t(gi)];
      const double a = double(d00) + (double(d10) - double(d00)) * fx;
      const double b = double(d01) + (double(d11) - double(d01)) * fx;
      row[gi] = float(double(row[gi]) + (a + (b - a) * fz));
    }
  }
}

void HeightEditSnapshot::add_to(const GridSpec& grid, std::span<float> heights) const {
  check_heights(grid, heights);
  if (tiles_.empty()) return;
  const int level = edit_detail::lattice_level(grid, cell_m_, "height edits");
  const std::int64_t step = std::int64_t{1} << level;
  const std::int64_t t = tile_;
  for (int gj = 0; gj < grid.height; ++gj) {
    const std::int64_t j = (grid.index_z0 + gj) * step;
    const std::int64_t tj = floor_div(j, t), lj = j - tj * t;
    std::int64_t last_tx = std::numeric_limits<std::int64_t>::min();
    const Tile* tile = nullptr;
    float* row = heights.data() + std::size_t(gj) * std::size_t(grid.width);
    for (int gi = 0; gi < grid.width; ++gi) {
      const std::int64_t i = (grid.index_x0 + gi) * step;
      const std::int64_t tx = floor_div(i, t);
      if (tx != last_tx) {
        last_tx = tx;
        const auto it = tiles_.find({tx, tj});
        tile = it == tiles_.end() ? nullptr : it->second.get();
      }
      if (tile != nullptr) {
        row[gi] += (*tile)[std::size_t(lj) * std::size_t(t) + std::size_t(i - tx * t)];
      }
    }
  }
}

std::size_t HeightEditSnapshot::bytes() const {
  return sizeof(*this) + tiles_.size() * (std::size_t(tile_) * std::size_t(tile_) * sizeof(float) +
                                          sizeof(Tile) + 64);
}

HeightEditSnapshot::HeightEditSnapshot(double cell_size_m, int tile_cells, TileMap tiles) {
  edit_detail::check_lattice_sizes(cell_size_m, tile_cells, "height edits");
  cell_m_ = cell_size_m;
  tile_ = tile_cells;
  const double side_m = cell_size_m * double(tile_cells);
  for (const auto& [key, tile] : tiles) {
    const std::string name = "height edits: tile (" + std::to_string(key.first) + ", " +
                             std::to_string(key.second) + ")";
    if (!tile || tile->size() != std::size_t(tile_cells) * std::size_t(tile_cells)) {
      throw Error(ErrorCategory::invalid_argument,
                  name + " holds " + std::to_string(tile ? tile->size() : 0) + " deltas, not " +
                      std::to_string(tile_cells) + "^2");
    }
    edit_detail::check_tile_key(key.first, key.second, side_m, name);
    for (const float d : *tile) {
      if (!std::isfinite(d)) {
        throw Error(ErrorCategory::invalid_argument, name + " holds a delta that is not finite");
      }
      lo_ = std::min(lo_, d);
      hi_ = std::max(hi_, d);
    }
  }
  tiles_ = std::move(tiles);
}

HeightEdits::HeightEdits(double cell_size_m, int tile_cells) {
  edit_detail::check_lattice_sizes(cell_size_m, tile_cells, "height edits");
  now_.cell_m_ = cell_size_m;
  now_.tile_ = tile_cells;
}

HeightEdits::HeightEdits(const HeightEditSnapshot& start) : now_(start) {}

LatticeRect HeightEdits::apply(const HeightBrush& brush, const CompiledGraph& base) {
  brush.validate();
  const double cell = now_.cell_m_;
  const LatticeRect r = edit_detail::stroke_rect(brush.x_m, brush.z_m, brush.radius_m, cell);
  if (r.empty()) return r;
  const std::int64_t w = r.i1 - r.i0 + 1, h = r.j1 - r.j0 + 1;

  // The current heights (base + deltas) with a one-vertex ring, for smooth and flatten.
  const bool needs_heights = brush.kind == BrushKind::smooth || brush.kind == BrushKind::flatten;
  const int hw = int(w) + 2, hh = int(h) + 2;
  std::vector<float> heights;
  if (needs_heights) {
    const GridSpec g{.width = hw,
                     .height = hh,
                     .spacing_m = cell,
                     .origin_x_m = 0.0,
                     .origin_z_m = 0.0,
                     .index_x0 = r.i0 - 1,
                     .index_z0 = r.j0 - 1};
    heights.resize(g.sample_count());
    evaluate(base, g, heights, ExecContext{.threads = 1});
    now_.add_to(g, heights);
  }
  std::vector<float> noise;
  if (brush.kind == BrushKind::noise) {
    const GridSpec g{.width = int(w),
                     .height = int(h),
                     .spacing_m = cell,
                     .origin_x_m = 0.0,
                     .origin_z_m = 0.0,
                     .index_x0 = r.i0,
                     .index_z0 = r.j0};
    noise.resize(g.sample_count());
    noise_fill(brush.noise, g, noise, ExecContext{.threads = 1});
  }

  // The change of each vertex, from the state before the stroke (so the order of the vertices
  // does not matter), then written tile by tile, copying each touched tile once.
  const double k = std::min(1.0, brush.strength_m);
  Step step;
  step.rect = r;
  const std::int64_t t = now_.tile_;
  bool changed = false;
  for (std::int64_t tj = floor_div(r.j0, t); tj <= floor_div(r.j1, t); ++tj) {
    for (std::int64_t tx = floor_div(r.i0, t); tx <= floor_div(r.i1, t); ++tx) {
      const auto key = std::make_pair(tx, tj);
      const auto it = now_.tiles_.find(key);
      std::shared_ptr<const HeightEditSnapshot::Tile> before =
          it == now_.tiles_.end() ? nullptr : it->second;
      auto after = before ? std::make_shared<HeightEditSnapshot::Tile>(*before)
                          : std::make_shared<HeightEditSnapshot::Tile>(std::size_t(t * t), 0.0f);
      bool any = false;
      const std::int64_t i_lo = std::max(r.i0, tx * t), i_hi = std::min(r.i1, tx * t + t - 1);
      const std::int64_t j_lo = std::max(r.j0, tj * t), j_hi = std::min(r.j1, tj * t + t - 1);
      for (std::int64_t j = j_lo; j <= j_hi; ++j) {
        const double dz = double(j) * cell - brush.z_m;
        for (std::int64_t i = i_lo; i <= i_hi; ++i) {
          const double dx = double(i) * cell - brush.x_m;
          const double wgt = edit_detail::brush_weight(brush.radius_m, brush.falloff_start,
                                                       std::sqrt(dx * dx + dz * dz));
          if (wgt == 0.0) continue;
          double change = 0.0;
          const std::size_t a = std::size_t(i - r.i0), b = std::size_t(j - r.j0);
          switch (brush.kind) {
            case BrushKind::raise:
              change = brush.strength_m * wgt;
              break;
            case BrushKind::lower:
              change = -brush.strength_m * wgt;
              break;
            case BrushKind::noise:
              change = brush.strength_m * wgt * double(noise[b * std::size_t(w) + a]);
              break;
            case BrushKind::flatten: {
              const double here = heights[(b + 1) * std::size_t(hw) + a + 1];
              change = k * wgt * (brush.target_m - here);
              break;
            }
            case BrushKind::smooth: {
              double sum = 0.0;
              for (std::size_t y = b; y < b + 3; ++y) {
                for (std::size_t x = a; x < a + 3; ++x) sum += heights[y * std::size_t(hw) + x];
              }
              const double here = heights[(b + 1) * std::size_t(hw) + a + 1];
              change = k * wgt * (sum / 9.0 - here);
              break;
            }
          }
          if (change == 0.0) continue;
          float& d = (*after)[std::size_t(j - tj * t) * std::size_t(t) + std::size_t(i - tx * t)];
          const float next = float(double(d) + change);
          if (next != d) {
            d = next;
            any = true;
            now_.lo_ = std::min(now_.lo_, next);
            now_.hi_ = std::max(now_.hi_, next);
          }
        }
      }
      if (!any) continue;
      changed = true;
      std::shared_ptr<const HeightEditSnapshot::Tile> done = std::move(after);
      now_.tiles_[key] = done;
      step.tiles.push_back({key, {before, done}});
    }
  }
  if (!changed) return LatticeRect{};
  undo_.push_back(std::move(step));
  redo_.clear();
  return r;
}

void HeightEdits::set_tiles(const Step& step, bool after) {
  for (const auto& [key, pair] : step.tiles) {
    const std::shared_ptr<const HeightEditSnapshot::Tile>& tile = after ? pair.second : pair.first;
    if (tile) {
      now_.tiles_[key] = tile;
    } else {
      now_.tiles_.erase(key);
    }
  }
  if (now_.tiles_.empty()) now_.lo_ = now_.hi_ = 0.0f;
}

LatticeRect HeightEdits::undo() {
  if (undo_.empty()) return LatticeRect{};
  set_tiles(undo_.back(), false);
  redo_.push_back(std::move(undo_.back()));
  undo_.pop_back();
  return redo_.back().rect;
}

LatticeRect HeightEdits::redo() {
  if (redo_.empty()) return LatticeRect{};
  set_tiles(redo_.back(), true);
  undo_.push_back(std::move(redo_.back()));
  redo_.pop_back();
  return undo_.back().rect;
}

}  // namespace terrane
