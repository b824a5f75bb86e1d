// Lakes of block worlds: Priority-Flood of fixed windows of 2D heights (block_lakes.hpp).
//
// Why the union of windows holds its water. Write h for the 2D height of a block column and, in
// one window, F for the flooded level (compute_flow_routing's filled surface: the window's border
// cells and the sea are outlets). For a lake cell a and a neighbour c of it that is not in a's
// lake, F(c) = h(c) (it is not flooded) and F(a) <= max(h(a), F(c)), so F(a) <= h(c): the
// neighbours of a lake reach its level. A window's border cells are outlets, never lake cells,
// so every neighbour of a lake cell lies inside the same window.
//
// The level L of a column is the highest level of the lakes covering it in the windows that
// contain it. Take a column a with water (L(a) > h(a)), L(a) the level of lake A, and a
// 4-neighbour c:
// - c not in A: h(c) >= L(a) by the above.
// - c in A: L(c) >= L(a). If L(c) > L(a), L(c) is the level of a lake B; a is c's neighbour, so
//   either a is in B, and then L(a) >= L(c), or h(a) >= L(c) > L(a) > h(a): both impossible.
//   So L(c) = L(a).
// Beside any water there is either water at the same level or a column whose 2D surface is at
// least as high as that water. The block generator makes the rows of such a column solid from
// below the lowest neighbouring water up to the water's level, and the bed under the water too
// (block_generator.cpp), so no water block ever faces air sideways or downwards.
#include "block_lakes.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <iterator>
#include <limits>

#include "terrane/erosion.hpp"

namespace terrane::voxel_detail {
namespace {

constexpr std::size_t kWindowCache = 32;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

EditDeps edit_deps(const HeightEditSnapshot* edits, double x0_m, double z0_m, double x1_m,
                   double z1_m) {
  EditDeps deps;
  if (edits == nullptr || edits->empty()) return deps;
  const double cell = edits->cell_size_m();
  const std::int64_t t = edits->tile_cells();
  // Vertices floor(x / cell) .. floor(x / cell) + 1 of every x in the box, one more each way
  // for the rounding of x / cell.
  const auto lo = [&](double m) { return floor_div(std::int64_t(std::floor(m / cell)) - 1, t); };
  const auto hi = [&](double m) { return floor_div(std::int64_t(std::floor(m / cell)) + 2, t); };
  const std::int64_t ti0 = lo(x0_m), ti1 = hi(x1_m), tj0 = lo(z0_m), tj1 = hi(z1_m);
  const HeightEditSnapshot::TileMap& tiles = edits->tiles();
  // Column by column of tiles, jumping to the next ti that holds any (the map is in (ti, tj)
  // order).
  for (auto it = tiles.lower_bound({ti0, tj0}); it != tiles.end() && it->first.first <= ti1;) {
    const std::int64_t ti = it->first.first;
    for (it = tiles.lower_bound({ti, tj0});
         it != tiles.end() && it->first.first == ti && it->first.second <= tj1; ++it) {
      deps.emplace_back(it->first, it->second);
    }
    if (ti == std::numeric_limits<std::int64_t>::max()) break;
    it = tiles.lower_bound({ti + 1, tj0});
  }
  return deps;
}

std::size_t LakeWindow::bytes() const {
  std::size_t b = sizeof(*this) + lakes.capacity() * sizeof(Lake);
  for (const Lake& l : lakes) b += l.cells.capacity() * sizeof(std::int32_t);
  return b;
}

LakeSource::LakeSource(const CompiledGraph& terrain, const LakeSettings& settings)
    : terrain_(terrain), settings_(settings) {}

std::shared_ptr<const LakeWindow> LakeSource::compute(std::int64_t tx, std::int64_t tz,
                                                      const ExecContext& ctx,
                                                      const HeightEditSnapshot* edits) const {
  const LakeSettings& s = settings_;
  auto win = std::make_shared<LakeWindow>();
  win->size = s.tile + 2 * s.margin;
  win->x0 = tx * s.tile - s.margin;
  win->z0 = tz * s.tile - s.margin;
  // The chunks' column grid (BlockWorldGenerator::Impl::column): block centres, spacing one block.
  const GridSpec grid{.width = win->size,
                      .height = win->size,
                      .spacing_m = s.block_m,
                      .origin_x_m = 0.5 * s.block_m,
                      .origin_z_m = 0.5 * s.block_m,
                      .index_x0 = win->x0,
                      .index_z0 = win->z0};
  Field2D heights(grid);
  evaluate(terrain_, grid, heights.data, ctx);
  if (edits != nullptr) edits->add_sampled(grid, heights.data);
  // The flooded surface (the lakes of compute_hydrology without its drainage area and rivers):
  // a lake is an 8-connected set of flooded land cells, all at one level.
  RoutingParams routing;
  routing.use_sea_level = true;
  routing.sea_level_m = s.sea_level_m;
  FlowRouting flow;
  flow.keep_scratch = false;
  flow.parts.order = false;  // the filled levels alone
  compute_flow_routing(heights, routing, flow, ctx);
  const int n = win->size;
  const float* h = heights.data.data();
  const float* f = flow.filled_m.data();
  const float sea = float(s.sea_level_m);
  auto flooded = [&](std::size_t c) { return f[c] > h[c] && !(h[c] < sea); };
  std::vector<std::uint8_t> seen(heights.data.size(), 0);
  std::vector<std::int32_t> stack;
  LakeWindow::Lake lake;
  for (std::size_t c0 = 0; c0 < seen.size(); ++c0) {
    if (seen[c0] != 0 || !flooded(c0)) continue;
    lake = LakeWindow::Lake{};
    lake.level_m = f[c0];
    lake.i0 = lake.j0 = n;
    float deepest = 0.0f;
    seen[c0] = 1;
    stack.assign(1, std::int32_t(c0));
    while (!stack.empty()) {
      const std::int32_t c = stack.back();
      stack.pop_back();
      lake.cells.push_back(c);
      deepest = std::max(deepest, f[c] - h[c]);
      const int i = c % n, j = c / n;
      lake.i0 = std::min(lake.i0, i), lake.i1 = std::max(lake.i1, i + 1);
      lake.j0 = std::min(lake.j0, j), lake.j1 = std::max(lake.j1, j + 1);
      for (int dj = -1; dj <= 1; ++dj) {
        for (int di = -1; di <= 1; ++di) {
          const int ni = i + di, nj = j + dj;
          if (ni < 0 || nj < 0 || ni >= n || nj >= n) continue;
          const std::size_t nc = std::size_t(nj) * std::size_t(n) + std::size_t(ni);
          if (seen[nc] != 0 || !flooded(nc)) continue;
          seen[nc] = 1;
          stack.push_back(std::int32_t(nc));
        }
      }
    }
    if (double(deepest) < s.min_depth_m) continue;
    std::sort(lake.cells.begin(), lake.cells.end());
    win->lakes.push_back(std::move(lake));
  }
  for (LakeWindow::Lake& l : win->lakes) l.cells.shrink_to_fit();
  return win;
}

// The first thread to ask for a window computes it; threads asking meanwhile wait for that
// result instead of computing it again. It is computed without the caller's cancel flag, since
// other chunks' jobs may be waiting for it (a window takes about 0.1 s).
std::shared_ptr<const LakeWindow> LakeSource::window(std::int64_t tx, std::int64_t tz,
                                                     const ExecContext& ctx,
                                                     const HeightEditSnapshot* edits) const {
  const LakeSettings& s = settings_;
  const auto key = std::make_pair(tx, tz);
  // The window's cells are block centres (x0 + i + 0.5) * block.
  const double x0_m = (double(tx * s.tile - s.margin) + 0.5) * s.block_m;
  const double z0_m = (double(tz * s.tile - s.margin) + 0.5) * s.block_m;
  const double side_m = double(s.tile + 2 * s.margin - 1) * s.block_m;
  EditDeps deps = edit_deps(edits, x0_m, z0_m, x0_m + side_m, z0_m + side_m);
  std::promise<std::shared_ptr<const LakeWindow>> promise;
  std::shared_future<std::shared_ptr<const LakeWindow>> future;
  bool mine = false;
  {
    const std::lock_guard lock(mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end() && it->second.deps == deps) {
      it->second.used = ++clock_;
      future = it->second.window;
    } else {
      // Not cached, or computed on other edits there (waiters keep their own future).
      mine = true;
      future = promise.get_future().share();
      if (it != cache_.end()) cache_.erase(it);
      cache_.emplace(key, Entry{++clock_, std::move(deps), future});
      if (cache_.size() > kWindowCache) {  // evict the least recently used other window
        auto oldest = cache_.end();
        for (auto c = cache_.begin(); c != cache_.end(); ++c) {
          if (c->first != key && (oldest == cache_.end() || c->second.used < oldest->second.used)) {
            oldest = c;
          }
        }
        cache_.erase(oldest);
      }
    }
  }
  if (mine) {
    ExecContext own = ctx;
    own.cancel = nullptr;
    own.progress = {};
    try {
      promise.set_value(compute(tx, tz, own, edits));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return future.get();
}

EditDeps LakeSource::deps(std::int64_t x0, std::int64_t z0, int w,
                          const HeightEditSnapshot* edits) const {
  const LakeSettings& s = settings_;
  // A window [t * tile - margin, t * tile + tile + margin) containing column x starts after
  // x - tile - 2 * margin and ends before x + tile + 2 * margin.
  const double reach = double(s.tile + 2 * s.margin);
  return edit_deps(edits, (double(x0) - reach) * s.block_m, (double(z0) - reach) * s.block_m,
                   (double(x0 + w) + reach) * s.block_m, (double(z0 + w) + reach) * s.block_m);
}

void LakeSource::levels(std::int64_t x0, std::int64_t z0, int w, std::vector<float>& out,
                        const ExecContext& ctx, const HeightEditSnapshot* edits) const {
  const LakeSettings& s = settings_;
  out.assign(std::size_t(w) * std::size_t(w), -std::numeric_limits<float>::infinity());
  // Tiles whose window [t * tile - margin, t * tile + tile + margin) meets [x0, x0 + w).
  const std::int64_t t_lo_x = floor_div(x0 - s.tile - s.margin, s.tile) + 1;
  const std::int64_t t_hi_x = floor_div(x0 + w - 1 + s.margin, s.tile);
  const std::int64_t t_lo_z = floor_div(z0 - s.tile - s.margin, s.tile) + 1;
  const std::int64_t t_hi_z = floor_div(z0 + w - 1 + s.margin, s.tile);
  for (std::int64_t tz = t_lo_z; tz <= t_hi_z; ++tz) {
    for (std::int64_t tx = t_lo_x; tx <= t_hi_x; ++tx) {
      const std::shared_ptr<const LakeWindow> win = window(tx, tz, ctx, edits);
      const std::int64_t di = x0 - win->x0, dj = z0 - win->z0;  // area origin in the window
      for (const LakeWindow::Lake& l : win->lakes) {
        if (l.i1 <= di || l.i0 >= di + w || l.j1 <= dj || l.j0 >= dj + w) continue;
        for (const std::int32_t c : l.cells) {
          const std::int64_t i = c % win->size - di, j = c / win->size - dj;
          if (i < 0 || j < 0 || i >= w || j >= w) continue;
          float& v = out[std::size_t(j) * std::size_t(w) + std::size_t(i)];
          v = std::max(v, l.level_m);
        }
      }
    }
  }
}

}  // namespace terrane::voxel_detail
