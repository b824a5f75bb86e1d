// Lakes of block worlds: Priority-Flood of fixed windows of 2D heights (block_lakes.hpp).
//
// Why the union of windows holds its water. Write h for the 2D height of a block column and, in
// one window, F for the flooded level (compute_hydrology's filled surface: the window's border
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

std::size_t LakeWindow::bytes() const {
  std::size_t b = sizeof(*this) + lakes.capacity() * sizeof(Lake);
  for (const Lake& l : lakes) b += l.cells.capacity() * sizeof(std::int32_t);
  return b;
}

LakeSource::LakeSource(const CompiledGraph& terrain, const LakeSettings& settings)
    : terrain_(terrain), settings_(settings) {}

std::shared_ptr<const LakeWindow> LakeSource::compute(std::int64_t tx, std::int64_t tz,
                                                      const ExecContext& ctx) const {
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
  HydrologyParams hp;
  hp.routing.use_sea_level = true;
  hp.routing.sea_level_m = s.sea_level_m;
  hp.river_area_m2 = 1e300;  // no rivers needed
  hp.min_lake_depth_m = s.min_depth_m;
  Hydrology hyd;
  compute_hydrology(heights, hp, hyd, ctx);
  const int n = win->size;
  win->lakes.resize(hyd.lakes.size());
  for (std::size_t k = 0; k < hyd.lakes.size(); ++k) {
    LakeWindow::Lake& l = win->lakes[k];
    l.level_m = float(hyd.lakes[k].level_m);
    l.i0 = l.j0 = n;
    l.i1 = l.j1 = 0;
  }
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const std::int32_t id = hyd.lake_id[std::size_t(j) * std::size_t(n) + std::size_t(i)];
      if (id == kNoLake) continue;
      LakeWindow::Lake& l = win->lakes[std::size_t(id - 1)];
      l.cells.push_back(j * n + i);
      l.i0 = std::min(l.i0, i), l.i1 = std::max(l.i1, i + 1);
      l.j0 = std::min(l.j0, j), l.j1 = std::max(l.j1, j + 1);
    }
  }
  for (LakeWindow::Lake& l : win->lakes) l.cells.shrink_to_fit();
  return win;
}

std::shared_ptr<const LakeWindow> LakeSource::window(std::int64_t tx, std::int64_t tz,
                                                     const ExecContext& ctx) const {
  const auto key = std::make_pair(tx, tz);
  {
    const std::lock_guard lock(mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) {
      it->second.first = ++clock_;
      return it->second.second;
    }
  }
  // Computed outside the lock; two threads may compute the same window, with the same result.
  std::shared_ptr<const LakeWindow> win = compute(tx, tz, ctx);
  const std::lock_guard lock(mutex_);
  auto [it, inserted] = cache_.try_emplace(key, ++clock_, win);
  if (!inserted) return it->second.second;
  if (cache_.size() > kWindowCache) {
    auto oldest = cache_.begin();
    for (auto c = cache_.begin(); c != cache_.end(); ++c) {
      if (c->second.first < oldest->second.first) oldest = c;
    }
    cache_.erase(oldest);
  }
  return win;
}

void LakeSource::levels(std::int64_t x0, std::int64_t z0, int w, std::vector<float>& out,
                        const ExecContext& ctx) const {
  const LakeSettings& s = settings_;
  out.assign(std::size_t(w) * std::size_t(w), -std::numeric_limits<float>::infinity());
  // Tiles whose window [t * tile - margin, t * tile + tile + margin) meets [x0, x0 + w).
  const std::int64_t t_lo_x = floor_div(x0 - s.tile - s.margin, s.tile) + 1;
  const std::int64_t t_hi_x = floor_div(x0 + w - 1 + s.margin, s.tile);
  const std::int64_t t_lo_z = floor_div(z0 - s.tile - s.margin, s.tile) + 1;
  const std::int64_t t_hi_z = floor_div(z0 + w - 1 + s.margin, s.tile);
  for (std::int64_t tz = t_lo_z; tz <= t_hi_z; ++tz) {
    for (std::int64_t tx = t_lo_x; tx <= t_hi_x; ++tx) {
      const std::shared_ptr<const LakeWindow> win = window(tx, tz, ctx);
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
