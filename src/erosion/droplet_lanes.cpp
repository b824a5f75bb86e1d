// Droplets of different tiles in SIMD lanes (the kernel of droplet.cpp's tiled scheduler).
//
// A droplet step is one long dependency chain (bilinear sample -> sqrt -> divide -> sample ->
// brush stores, which the next sample reads), so one droplet at a time leaves most of a core
// idle. Here each SIMD lane runs the droplets of one tile, one after another in index order;
// tiles of one colour never touch the same cells, so the lanes' gathers and brush stores never
// meet, and a lane whose droplet stops launches the tile's next droplet (or takes the next
// tile). Each step has two phases:
//   1. vector, all lanes: both bilinear samples (gathers), the new direction, the capacity, the
//      deposit/erode decision and amounts, the new speed and water (the model of droplet.cpp,
//      Beyer 2015 / Lague 2019);
//   2. per lane, in lane order: the map writes (bilinear deposit or brush erosion), the tile's
//      tally, and relaunching.
// Every lane performs the same IEEE operations as the one-droplet-at-a-time formulation (no FMA:
// -ffp-contract=off; std::min/std::max written as the same selects), and a tile's droplets run in
// the same order with the same tally sums, so the map and the statistics are bit-identical for
// any SIMD target (1, 4, 8 or 16 lanes) and any thread count.
//
// Lanes with no tile left keep their last position (cells this worker already read) and take no
// step, so they never read cells another worker may write.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "erosion/droplet_lanes.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/simd_dispatch.hpp"
#include "erosion/droplet_model.hpp"

HWY_BEFORE_NAMESPACE();
namespace terrane::droplet_detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// What phase 1 decided for a lane.
enum : std::int32_t { kStandstill = 0, kLeft = 1, kDeposit = 2, kErode = 3 };

constexpr std::size_t kMaxLanes = 16;

// std::min / std::max as the scalar model writes them: min(a, b) = b < a ? b : a,
// max(a, b) = a < b ? b : a (the same element, also for signed zeros).
template <class V>
HWY_INLINE V StdMin(V a, V b) {
  return hn::IfThenElse(b < a, b, a);
}
template <class V>
HWY_INLINE V StdMax(V a, V b) {
  return hn::IfThenElse(a < b, b, a);
}

void RunTiles(const TileRun& r) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  using VF = hn::Vec<decltype(df)>;
  using VI = hn::Vec<decltype(di)>;
  const std::size_t lanes = hn::Lanes(df);
  HWY_ASSERT(lanes <= kMaxLanes);

  // Locals: the map's floats are written through pointers, so fields read through a reference
  // would be reloaded after every store.
  const Map map = *r.map;
  const Model m = *r.model;
  const Brush& brush = *r.brush;
  const Batch batch = *r.batch;
  const float* h = map.h;
  const int w = map.w;

  // Lane state (structure of arrays).
  alignas(64) float X[kMaxLanes], Y[kMaxLanes], DX[kMaxLanes], DY[kMaxLanes];
  alignas(64) float SPEED[kMaxLanes], WATER[kMaxLanes], LOAD[kMaxLanes];
  alignas(64) std::int32_t ACTIVE[kMaxLanes];
  std::int32_t steps[kMaxLanes];
  std::uint32_t q[kMaxLanes], q_end[kMaxLanes];
  Tally* tally[kMaxLanes];
  // Phase 1 results.
  alignas(64) std::int32_t MODE[kMaxLanes], IX[kMaxLanes], IY[kMaxLanes];
  alignas(64) float U[kMaxLanes], V[kMaxLanes], AMOUNT[kMaxLanes], FLOOR[kMaxLanes];

  // Launches lane l's next droplet: the tile's next one, else the first of the next tile with
  // droplets left; returns false when no tile is left.
  const auto launch = [&](std::size_t l) {
    while (q[l] == q_end[l]) {
      const std::int64_t k = r.next->fetch_add(1, std::memory_order_relaxed);
      if (k >= r.tile_count) return false;
      const std::uint32_t t = r.tiles[k];
      q[l] = batch.count[t];
      q_end[l] = batch.count[t + 1];
      tally[l] = r.tally + t;
    }
    start_point(batch.seed, batch.first + batch.order[q[l]++], map, X[l], Y[l]);
    DX[l] = 0.0f;
    DY[l] = 0.0f;
    SPEED[l] = m.speed0;
    WATER[l] = m.water0;
    LOAD[l] = 0.0f;
    steps[l] = 0;
    return true;
  };
  std::size_t active = 0;
  for (std::size_t l = 0; l < lanes; ++l) {
    q[l] = q_end[l] = 0;
    ACTIVE[l] = launch(l) ? 1 : 0;
    if (ACTIVE[l] != 0) {
      ++active;
    } else {  // never launched: park on lane 0's start cell (or nowhere if none has a tile)
      X[l] = X[0];
      Y[l] = Y[0];
    }
  }
  if (active == 0) return;

  const VF zero = hn::Zero(df), one = hn::Set(df, 1.0f);
  const VF inertia = hn::Set(df, m.inertia), keep_dir = hn::Set(df, 1.0f - m.inertia);
  const VF x_end = hn::Set(df, map.x_end), y_end = hn::Set(df, map.y_end);
  const VF drop_to_units = hn::Set(df, m.drop_to_units), capacity = hn::Set(df, m.capacity);
  const VF min_capacity = hn::Set(df, m.min_capacity), cap_to_metres = hn::Set(df, m.cap_to_metres);
  const VF deposit = hn::Set(df, m.deposit), erode = hn::Set(df, m.erode);
  const VF area_scale = hn::Set(df, m.area_scale), inv_unit = hn::Set(df, m.inv_unit);
  const VF gravity = hn::Set(df, m.gravity), keep_water = hn::Set(df, m.keep_water);
  const VI width = hn::Set(di, w);
  const float* h10p = h + 1;
  const float* h01p = h + w;
  const float* h11p = h + w + 1;

  // Bilinear height from the four corners at fractions (u, v): the scalar model's expression
  // and operation order, lane-wise.
  const auto bilinear = [&](VF c00, VF c10, VF c01, VF c11, VF u, VF v) {
    const VF ou = hn::Sub(one, u), ov = hn::Sub(one, v);
    return hn::Add(hn::Mul(hn::Add(hn::Mul(c00, ou), hn::Mul(c10, u)), ov),
                   hn::Mul(hn::Add(hn::Mul(c01, ou), hn::Mul(c11, u)), v));
  };

  while (active > 0) {
    // Phase 1, all lanes at once.
    {
      constexpr std::size_t l0 = 0;
      const VF x = hn::Load(df, X + l0), y = hn::Load(df, Y + l0);
      const VI ix = hn::ConvertTo(di, x), iy = hn::ConvertTo(di, y);
      const VF u = hn::Sub(x, hn::ConvertTo(df, ix)), v = hn::Sub(y, hn::ConvertTo(df, iy));
      const VI c = hn::Add(hn::Mul(iy, width), ix);
      const VF h00 = hn::GatherIndex(df, h, c), h10 = hn::GatherIndex(df, h10p, c);
      const VF h01 = hn::GatherIndex(df, h01p, c), h11 = hn::GatherIndex(df, h11p, c);
      const VF ou = hn::Sub(one, u), ov = hn::Sub(one, v);
      const VF gx = hn::Add(hn::Mul(hn::Sub(h10, h00), ov), hn::Mul(hn::Sub(h11, h01), v));
      const VF gy = hn::Add(hn::Mul(hn::Sub(h01, h00), ou), hn::Mul(hn::Sub(h11, h10), u));
      const VF height = bilinear(h00, h10, h01, h11, u, v);
      VF dx = hn::Sub(hn::Mul(hn::Load(df, DX + l0), inertia), hn::Mul(gx, keep_dir));
      VF dy = hn::Sub(hn::Mul(hn::Load(df, DY + l0), inertia), hn::Mul(gy, keep_dir));
      const VF len = hn::Sqrt(hn::Add(hn::Mul(dx, dx), hn::Mul(dy, dy)));
      const auto moving =
          hn::And(len != zero, hn::RebindMask(df, hn::Load(di, ACTIVE + l0) != hn::Zero(di)));
      const VF divisor = hn::IfThenElse(len == zero, one, len);  // standstill lanes stop anyway
      dx = hn::Div(dx, divisor);
      dy = hn::Div(dy, divisor);
      const VF nx = hn::Add(x, dx), ny = hn::Add(y, dy);
      const auto on_map = hn::And(hn::And(moving, hn::And(nx >= zero, nx < x_end)),
                                  hn::And(ny >= zero, ny < y_end));
      // Lanes that do not move stay where they are (their cells, already read, are safe).
      const VF sx = hn::IfThenElse(on_map, nx, x), sy = hn::IfThenElse(on_map, ny, y);
      const VI jx = hn::ConvertTo(di, sx), jy = hn::ConvertTo(di, sy);
      const VF s = hn::Sub(sx, hn::ConvertTo(df, jx)), t = hn::Sub(sy, hn::ConvertTo(df, jy));
      const VI e = hn::Add(hn::Mul(jy, width), jx);
      const VF next_height =
          bilinear(hn::GatherIndex(df, h, e), hn::GatherIndex(df, h10p, e),
                   hn::GatherIndex(df, h01p, e), hn::GatherIndex(df, h11p, e), s, t);
      const VF drop = hn::Sub(height, next_height);  // > 0 downhill, metres
      const VF speed = hn::Load(df, SPEED + l0), water = hn::Load(df, WATER + l0);
      const VF load = hn::Load(df, LOAD + l0);
      const VF cap = hn::Mul(
          StdMax(hn::Mul(hn::Mul(hn::Mul(hn::Mul(drop, drop_to_units), speed), water), capacity),
                 min_capacity),
          cap_to_metres);
      const auto uphill = drop < zero;
      const auto deposits = hn::Or(uphill, load > cap);
      const VF deposit_amount =
          hn::IfThenElse(uphill, StdMin(hn::Neg(drop), load), hn::Mul(hn::Sub(load, cap), deposit));
      // Erosion before the border falloff weight, which phase 2 applies.
      const VF erode_amount = StdMin(hn::Mul(hn::Sub(cap, load), erode), hn::Mul(drop, area_scale));
      const VF new_speed = hn::Sqrt(
          StdMax(zero, hn::Add(hn::Mul(speed, speed), hn::Mul(hn::Mul(drop, inv_unit), gravity))));
      const VI mode = hn::IfThenElse(
          hn::RebindMask(di, on_map),
          hn::IfThenElse(hn::RebindMask(di, deposits), hn::Set(di, kDeposit), hn::Set(di, kErode)),
          hn::IfThenElse(hn::RebindMask(di, len == zero), hn::Set(di, kStandstill),
                         hn::Set(di, kLeft)));
      hn::Store(mode, di, MODE + l0);
      hn::Store(ix, di, IX + l0);
      hn::Store(iy, di, IY + l0);
      hn::Store(u, df, U + l0);
      hn::Store(v, df, V + l0);
      hn::Store(hn::IfThenElse(deposits, deposit_amount, erode_amount), df, AMOUNT + l0);
      hn::Store(next_height, df, FLOOR + l0);
      hn::Store(sx, df, X + l0);
      hn::Store(sy, df, Y + l0);
      hn::Store(dx, df, DX + l0);
      hn::Store(dy, df, DY + l0);
      hn::Store(new_speed, df, SPEED + l0);
      hn::Store(hn::Mul(water, keep_water), df, WATER + l0);
    }
    // Phase 2, lane by lane: map writes, tallies, relaunches.
    for (std::size_t l = 0; l < lanes; ++l) {
      if (ACTIVE[l] == 0) continue;
      Tally& tl = *tally[l];
      bool stopped = false;
      switch (MODE[l]) {
        case kDeposit: {
          const float amount = AMOUNT[l];
          LOAD[l] -= amount;
          deposit_bilinear(map, IX[l], IY[l], U[l], V[l], amount, tl);
          stopped = ++steps[l] >= m.lifetime;
          break;
        }
        case kErode: {
          const int ix = IX[l], iy = IY[l];
          const float amount = AMOUNT[l] * falloff(m, map, brush, ix, iy);
          const float removed = erode_brush(map, brush, ix, iy, amount, FLOOR[l]);
          LOAD[l] += removed;
          tl.eroded += double(removed);
          stopped = ++steps[l] >= m.lifetime;
          break;
        }
        case kLeft:  // carried off the map with its load
          tl.carried_off += double(LOAD[l]);
          LOAD[l] = 0.0f;
          ++steps[l];
          stopped = true;
          break;
        default:  // standstill: drops its load where it is
          stopped = true;
          break;
      }
      if (!stopped) continue;
      finish(map, brush, X[l], Y[l], LOAD[l], steps[l], tl);
      if (!launch(l)) {
        ACTIVE[l] = 0;  // keeps its position: parked on cells this worker already read
        --active;
      }
    }
  }
}

}  // namespace terrane::droplet_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace terrane::droplet_detail {
HWY_EXPORT(RunTiles);
void run_tiles(const TileRun& r, SimdTarget target) {
  TERRANE_DISPATCH_TO(RunTiles, target)(r);
}
}  // namespace terrane::droplet_detail
#endif
