// Splat paint (edit.hpp): copy-on-write tiles of premultiplied per-layer amounts on the level-0
// lattice, strokes, undo and redo, and the paint applied over compute_splat's weights.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>

#include "edit/lattice_stroke.hpp"
#include "terrane/edit.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

using edit_detail::floor_div;

constexpr const char* kPaintKindNames[] = {"paint", "unpaint"};
constexpr int kMaxPaintLayers = 64;
// A vertex's amounts may sum to 1 plus this much float rounding.
constexpr double kSumSlack = 1e-5;

void check_layer_count(int layers) {
  if (layers < 1 || layers > kMaxPaintLayers) {
    throw Error(ErrorCategory::invalid_argument, "splat paint: layers = " + std::to_string(layers) +
                                                     " is outside the allowed range 1..64");
  }
}

}  // namespace

const char* to_string(PaintKind kind) {
  const auto k = std::size_t(kind);
  return k < std::size(kPaintKindNames) ? kPaintKindNames[k] : "?";
}

std::optional<PaintKind> parse_paint_kind(std::string_view name) {
  for (std::size_t k = 0; k < std::size(kPaintKindNames); ++k) {
    if (name == kPaintKindNames[k]) return PaintKind(k);
  }
  return std::nullopt;
}

void SplatBrush::validate(int layers) const {
  const Range coordinate = Range::closed(-kMaxEditCoordinate, kMaxEditCoordinate);
  check_range("brush.x_m", x_m, coordinate);
  check_range("brush.z_m", z_m, coordinate);
  check_range("brush.radius_m", radius_m, Range::open_lo(0.0, 1e4));
  check_range("brush.strength", strength, Range::closed(0.0, 1.0));
  check_range("brush.falloff_start", falloff_start, Range::closed(0.0, 1.0));
  if (kind == PaintKind::paint && (layer < 0 || layer >= layers)) {
    throw Error(ErrorCategory::invalid_argument,
                "brush.layer = " + std::to_string(layer) + " is outside the allowed range 0.." +
                    std::to_string(layers - 1) + " (the preset's splat layers)");
  }
}

SplatPaintSnapshot::SplatPaintSnapshot(double cell_size_m, int tile_cells, int layers,
                                       TileMap tiles) {
  edit_detail::check_lattice_sizes(cell_size_m, tile_cells, "splat paint");
  check_layer_count(layers);
  cell_m_ = cell_size_m;
  tile_ = tile_cells;
  layers_ = layers;
  const std::size_t n = std::size_t(tile_cells) * std::size_t(tile_cells) * std::size_t(layers);
  const double side_m = cell_size_m * double(tile_cells);
  for (const auto& [key, tile] : tiles) {
    const std::string name =
        "splat paint: tile (" + std::to_string(key.first) + ", " + std::to_string(key.second) + ")";
    if (!tile || tile->size() != n) {
      throw Error(ErrorCategory::invalid_argument,
                  name + " holds " + std::to_string(tile ? tile->size() : 0) + " amounts, not " +
                      std::to_string(n) + " (" + std::to_string(tile_cells) + "^2 vertices x " +
                      std::to_string(layers) + " layers)");
    }
    edit_detail::check_tile_key(key.first, key.second, side_m, name);
    for (std::size_t v = 0; v < n; v += std::size_t(layers)) {
      double sum = 0.0;
      for (int l = 0; l < layers; ++l) {
        const float a = (*tile)[v + std::size_t(l)];
        if (!(a >= 0.0f && a <= 1.0f)) {
          throw Error(ErrorCategory::invalid_argument, name + " holds an amount outside [0, 1]");
        }
        sum += double(a);
      }
      if (sum > 1.0 + kSumSlack) {
        throw Error(
            ErrorCategory::invalid_argument,
            name + " holds a vertex whose amounts sum to " + std::to_string(sum) + ", more than 1");
      }
    }
  }
  tiles_ = std::move(tiles);
}

float SplatPaintSnapshot::amount_at(std::int64_t i, std::int64_t j, int layer) const {
  if (layer < 0 || layer >= layers_) return 0.0f;
  const std::int64_t ti = floor_div(i, tile_), tj = floor_div(j, tile_);
  const auto it = tiles_.find({ti, tj});
  if (it == tiles_.end()) return 0.0f;
  const std::size_t v =
      std::size_t(j - tj * tile_) * std::size_t(tile_) + std::size_t(i - ti * tile_);
  return (*it->second)[v * std::size_t(layers_) + std::size_t(layer)];
}

void SplatPaintSnapshot::apply_to(SplatMap& splat) const {
  const GridSpec& grid = splat.grid;
  if (splat.layer_count != layers_ ||
      splat.weights.size() != grid.sample_count() * std::size_t(splat.layer_count)) {
    throw Error(ErrorCategory::invalid_argument,
                "splat paint: paint of " + std::to_string(layers_) +
                    " layers over a splat map of " + std::to_string(splat.layer_count) +
                    " layers (" + std::to_string(splat.weights.size()) + " weights for " +
                    std::to_string(grid.sample_count()) + " samples)");
  }
  if (tiles_.empty()) return;
  const int level = edit_detail::lattice_level(grid, cell_m_, "splat paint");
  const std::int64_t step = std::int64_t{1} << level;
  const std::int64_t t = tile_;
  const std::size_t cells = grid.sample_count();
  const auto L = std::size_t(layers_);
  for (int gj = 0; gj < grid.height; ++gj) {
    const std::int64_t j = (grid.index_z0 + gj) * step;
    const std::int64_t tj = floor_div(j, t), lj = j - tj * t;
    std::int64_t last_tx = std::numeric_limits<std::int64_t>::min();
    const Tile* tile = nullptr;
    for (int gi = 0; gi < grid.width; ++gi) {
      const std::int64_t i = (grid.index_x0 + gi) * step;
      const std::int64_t tx = floor_div(i, t);
      if (tx != last_tx) {
        last_tx = tx;
        const auto it = tiles_.find({tx, tj});
        tile = it == tiles_.end() ? nullptr : it->second.get();
      }
      if (tile == nullptr) continue;
      const float* a =
          tile->data() + (std::size_t(lj) * std::size_t(t) + std::size_t(i - tx * t)) * L;
      float total = 0.0f;
      for (std::size_t l = 0; l < L; ++l) total += a[l];
      if (total == 0.0f) continue;
      const float keep = 1.0f - std::min(1.0f, total);
      const std::size_t c = std::size_t(gj) * std::size_t(grid.width) + std::size_t(gi);
      float sum = 0.0f;
      std::size_t top = 0;
      for (std::size_t l = 0; l < L; ++l) {
        float& w = splat.weights[l * cells + c];
        w = w * keep + a[l];
        sum += w;
        if (w > splat.weights[top * cells + c]) top = l;
      }
      // The largest weight absorbs the rounding, as compute_splat does.
      float& big = splat.weights[top * cells + c];
      big = std::max(0.0f, big + (1.0f - sum));
    }
  }
}

std::size_t SplatPaintSnapshot::painted_vertices(const Tile& tile, int layers) {
  std::size_t n = 0;
  const auto L = std::size_t(layers);
  for (std::size_t v = 0; v + L <= tile.size(); v += L) {
    for (std::size_t l = 0; l < L; ++l) {
      if (tile[v + l] != 0.0f) {
        ++n;
        break;
      }
    }
  }
  return n;
}

std::size_t SplatPaintSnapshot::painted_vertices() const {
  std::size_t n = 0;
  for (const auto& entry : tiles_) n += painted_vertices(*entry.second, layers_);
  return n;
}

std::size_t SplatPaintSnapshot::bytes() const {
  return sizeof(*this) + tiles_.size() * (std::size_t(tile_) * std::size_t(tile_) *
                                              std::size_t(layers_) * sizeof(float) +
                                          sizeof(Tile) + 64);
}

std::uint64_t SplatPaintSnapshot::content_hash() const {
  const std::int64_t layers = layers_;
  std::uint64_t h = hash_bytes(&layers, sizeof layers);
  for (const auto& [key, tile] : tiles_) {
    const std::int64_t k[2] = {key.first, key.second};
    h = hash_bytes(k, sizeof k, h);
    h = hash_bytes(tile->data(), tile->size() * sizeof(float), h);
  }
  return h;
}

SplatPaint::SplatPaint(double cell_size_m, int tile_cells, int layers) {
  edit_detail::check_lattice_sizes(cell_size_m, tile_cells, "splat paint");
  check_layer_count(layers);
  now_.cell_m_ = cell_size_m;
  now_.tile_ = tile_cells;
  now_.layers_ = layers;
}

SplatPaint::SplatPaint(const SplatPaintSnapshot& start) : now_(start) {}

LatticeRect SplatPaint::apply(const SplatBrush& brush) {
  brush.validate(now_.layers_);
  const double cell = now_.cell_m_;
  const LatticeRect r = edit_detail::stroke_rect(brush.x_m, brush.z_m, brush.radius_m, cell);
  if (r.empty()) return r;
  const std::int64_t t = now_.tile_;
  const auto L = std::size_t(now_.layers_);
  const std::size_t tile_values = std::size_t(t) * std::size_t(t) * L;
  Step step;
  step.rect = r;
  for (std::int64_t tj = floor_div(r.j0, t); tj <= floor_div(r.j1, t); ++tj) {
    for (std::int64_t tx = floor_div(r.i0, t); tx <= floor_div(r.i1, t); ++tx) {
      const SplatPaintSnapshot::TileKey key{tx, tj};
      const auto it = now_.tiles_.find(key);
      std::shared_ptr<const SplatPaintSnapshot::Tile> before =
          it == now_.tiles_.end() ? nullptr : it->second;
      if (!before && brush.kind == PaintKind::unpaint) continue;  // nothing to take away
      auto after = before ? std::make_shared<SplatPaintSnapshot::Tile>(*before)
                          : std::make_shared<SplatPaintSnapshot::Tile>(tile_values, 0.0f);
      bool any = false;
      const std::int64_t i_lo = std::max(r.i0, tx * t), i_hi = std::min(r.i1, tx * t + t - 1);
      const std::int64_t j_lo = std::max(r.j0, tj * t), j_hi = std::min(r.j1, tj * t + t - 1);
      for (std::int64_t j = j_lo; j <= j_hi; ++j) {
        const double dz = double(j) * cell - brush.z_m;
        for (std::int64_t i = i_lo; i <= i_hi; ++i) {
          const double dx = double(i) * cell - brush.x_m;
          const double s =
              brush.strength * edit_detail::brush_weight(brush.radius_m, brush.falloff_start,
                                                         std::sqrt(dx * dx + dz * dz));
          if (s == 0.0) continue;
          float* a = after->data() +
                     (std::size_t(j - tj * t) * std::size_t(t) + std::size_t(i - tx * t)) * L;
          for (std::size_t l = 0; l < L; ++l) {
            const double target =
                (brush.kind == PaintKind::paint && l == std::size_t(brush.layer)) ? s : 0.0;
            const float next = std::clamp(float(double(a[l]) * (1.0 - s) + target), 0.0f, 1.0f);
            if (next != a[l]) {
              a[l] = next;
              any = true;
            }
          }
        }
      }
      if (!any) continue;
      const bool blank =
          std::all_of(after->begin(), after->end(), [](float v) { return v == 0.0f; });
      std::shared_ptr<const SplatPaintSnapshot::Tile> done;
      if (blank) {
        now_.tiles_.erase(key);
      } else {
        done = std::move(after);
        now_.tiles_[key] = done;
      }
      step.tiles.push_back({key, {before, done}});
    }
  }
  if (step.tiles.empty()) return LatticeRect{};
  undo_.push_back(std::move(step));
  redo_.clear();
  return r;
}

void SplatPaint::set_tiles(const Step& step, bool after) {
  for (const auto& [key, pair] : step.tiles) {
    const std::shared_ptr<const SplatPaintSnapshot::Tile>& tile = after ? pair.second : pair.first;
    if (tile) {
      now_.tiles_[key] = tile;
    } else {
      now_.tiles_.erase(key);
    }
  }
}

LatticeRect SplatPaint::undo() {
  if (undo_.empty()) return LatticeRect{};
  set_tiles(undo_.back(), false);
  redo_.push_back(std::move(undo_.back()));
  undo_.pop_back();
  return redo_.back().rect;
}

LatticeRect SplatPaint::redo() {
  if (redo_.empty()) return LatticeRect{};
  set_tiles(redo_.back(), true);
  undo_.push_back(std::move(redo_.back()));
  redo_.pop_back();
  return undo_.back().rect;
}

}  // namespace terrane
