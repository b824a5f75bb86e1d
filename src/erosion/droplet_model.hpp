// Internal: the droplet model of droplet.cpp (parameters resolved for a grid, the brush, one
// droplet step's building blocks) shared by the scheduler (droplet.cpp) and the per-SIMD-target
// lane kernel (droplet_lanes.cpp). Everything here is scalar C++; the lane kernel inlines it, so
// every target performs the same IEEE operations (no FMA: the project builds with
// -ffp-contract=off).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "terrane/core.hpp"

namespace terrane::droplet_detail {

// Parameters resolved for one grid (physical scaling applied), as floats.
struct Model {
  float inertia, capacity, min_capacity, erode, deposit, keep_water, gravity, water0, speed0;
  float drop_to_units;  // height-unit drop per metre of height drop, divided by q
  float inv_unit;       // 1 / height_unit_m (for the speed equation)
  float cap_to_metres;  // capacity (height units) -> metres of cell height, times 1 / q^2
  float area_scale;     // 1 / q^2: a brush of the same radius in metres covers 1/q^2 more cells
  int lifetime;
  float falloff_cells;  // 0: none
};

// Erosion brush: rows dy = -R..R, each a contiguous span of cells with weights.
struct Brush {
  int radius = 0;                    // R = ceil(r) - 1 or so: cells with distance < r
  std::vector<int> row_x0, row_len;  // per row: first dx and number of cells
  std::vector<int> row_off;          // per row: offset of its weights in `weight`
  std::vector<float> weight;         // normalised to sum 1 over the whole brush
  float total = 0.0f;                // float sum of `weight`
  std::vector<float> square;         // (2R+1)^2 weights, row-major, 0 outside the disc
};

struct Map {
  float* h;
  int w, ht;
  float x_end, y_end;  // float(w - 1), float(ht - 1): positions must stay below them
};

struct Sample {
  float height, gx, gy;
};

inline Sample sample(const Map& map, float x, float y) {
  const int ix = int(x), iy = int(y);
  const float u = x - float(ix), v = y - float(iy);
  const float* p = map.h + std::size_t(iy) * std::size_t(map.w) + ix;
  const float h00 = p[0], h10 = p[1], h01 = p[map.w], h11 = p[map.w + 1];
  Sample s;
  s.gx = (h10 - h00) * (1.0f - v) + (h11 - h01) * v;
  s.gy = (h01 - h00) * (1.0f - u) + (h11 - h10) * u;
  s.height = (h00 * (1.0f - u) + h10 * u) * (1.0f - v) + (h01 * (1.0f - u) + h11 * u) * v;
  return s;
}

struct Tally {
  double eroded = 0.0, deposited = 0.0, carried_off = 0.0;
  std::int64_t steps = 0;
};

inline void deposit_bilinear(const Map& map, int ix, int iy, float u, float v, float amount,
                             Tally& tally) {
  float* p = map.h + std::size_t(iy) * std::size_t(map.w) + ix;
  const float a00 = amount * ((1.0f - u) * (1.0f - v)), a10 = amount * (u * (1.0f - v));
  const float a01 = amount * ((1.0f - u) * v), a11 = amount * (u * v);
  p[0] += a00;
  p[1] += a10;
  p[map.w] += a01;
  p[map.w + 1] += a11;
  tally.deposited += (double(a00) + double(a10)) + (double(a01) + double(a11));
}

inline float take_from(float& cell, float want, float floor_m) {
  const float take = std::min(want, std::max(cell - floor_m, 0.0f));
  cell -= take;
  return take;
}

// The brush fully inside the map, as a (2R+1)^2 square whose cells outside the disc have weight
// 0 (they take min(0, ...) = 0 and stay as they are). What is taken is summed per column across
// the rows, then the columns in a fixed order: element-wise work the compiler can vectorise
// along a row, with a summation order that does not depend on whether it does.
template <int R>
inline float erode_square(float* centre, int w, const float* sq, float amount, float floor_m) {
  constexpr int S = 2 * R + 1;
  float col[S] = {};
  for (int r = 0; r < S; ++r) {
    float* row = centre + std::ptrdiff_t(r - R) * w - R;
    const float* wt = sq + r * S;
    for (int k = 0; k < S; ++k) col[k] += take_from(row[k], amount * wt[k], floor_m);
  }
  float removed = 0.0f;
  for (int k = 0; k < S; ++k) removed += col[k];
  return removed;
}

// The default brush (radius 3 cells: a 5 x 5 square) with 4-wide vectors (GCC/Clang vector
// extensions: SSE2 on x86-64, NEON on ARM, plain code elsewhere) for columns 0..3 and a scalar
// fifth column. The same IEEE operations per element as erode_square<2>, and the same column
// sums in the same order, so it gives its bits.
typedef float F4 __attribute__((vector_size(16)));

[[gnu::always_inline]] inline float erode_square5(float* centre, int w, const float* sq,
                                                  float amount, float floor_m) {
  const F4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
  const F4 fl = zero + floor_m, am = zero + amount;
  F4 col4 = zero;
  float col5 = 0.0f;
  for (int r = 0; r < 5; ++r) {
    float* row = centre + std::ptrdiff_t(r - 2) * w - 2;
    F4 cell, wt;
    std::memcpy(&cell, row, sizeof cell);
    std::memcpy(&wt, sq + r * 5, sizeof wt);
    const F4 want = am * wt;
    const F4 room = cell - fl;
    const F4 avail = room < zero ? zero : room;   // std::max(room, 0)
    const F4 take = avail < want ? avail : want;  // std::min(want, avail)
    cell -= take;
    std::memcpy(row, &cell, sizeof cell);
    col4 += take;
    col5 += take_from(row[4], amount * sq[r * 5 + 4], floor_m);
  }
  return (((col4[0] + col4[1]) + col4[2]) + col4[3]) + col5;
}

inline float erode_square_any(float* centre, int w, int R, const float* sq, float amount,
                              float floor_m) {
  const int S = 2 * R + 1;
  float removed = 0.0f;
  for (int r = 0; r < S; ++r) {
    float* row = centre + std::ptrdiff_t(r - R) * w - R;
    const float* wt = sq + r * S;
    float sum = 0.0f;
    for (int k = 0; k < S; ++k) sum += take_from(row[k], amount * wt[k], floor_m);
    removed += sum;
  }
  return removed;
}

// Removes up to `amount` metres through the brush centred on cell (cx, cy) and returns what it
// removed. No cell is lowered below `floor_m`, the height the droplet flows to: erosion never
// digs a pit under the droplet's own destination, so repeated droplets cannot deepen a hole
// without bound (as happens along the map edge, where droplets leave with their load and no
// deposit refills it). Near the edge the brush is clipped and the part outside removes nothing.
[[gnu::noinline]] inline float erode_brush_general(const Map& map, const Brush& b, int cx, int cy,
                                                   float amount, float floor_m) {
  const int R = b.radius;
  if (cx - R >= 0 && cy - R >= 0 && cx + R < map.w && cy + R < map.ht) {
    float* centre = map.h + std::size_t(cy) * std::size_t(map.w) + std::size_t(cx);
    switch (R) {
      case 1:
        return erode_square<1>(centre, map.w, b.square.data(), amount, floor_m);
      case 2:
        return erode_square5(centre, map.w, b.square.data(), amount, floor_m);
      case 3:
        return erode_square<3>(centre, map.w, b.square.data(), amount, floor_m);
      default:
        return erode_square_any(centre, map.w, R, b.square.data(), amount, floor_m);
    }
  }
  // Clipped at the edge: the part outside removes nothing. Same per-row sums as inside.
  float removed = 0.0f;
  for (int r = 0; r <= 2 * R; ++r) {
    const int y = cy - R + r;
    if (y < 0 || y >= map.ht) continue;
    float* row = map.h + std::size_t(y) * std::size_t(map.w);
    float sum = 0.0f;
    for (int k = 0; k < b.row_len[r]; ++k) {
      const int x = cx + b.row_x0[r] + k;
      if (x < 0 || x >= map.w) continue;
      sum += take_from(row[x], amount * b.weight[std::size_t(b.row_off[r] + k)], floor_m);
    }
    removed += sum;
  }
  return removed;
}

// erode_brush_general with its common case (the default brush, inside the map) inlined.
[[gnu::always_inline]] inline float erode_brush(const Map& map, const Brush& b, int cx, int cy,
                                                float amount, float floor_m) {
  if (b.radius == 2 && cx >= 2 && cy >= 2 && cx + 2 < map.w && cy + 2 < map.ht) {
    float* centre = map.h + std::size_t(cy) * std::size_t(map.w) + std::size_t(cx);
    return erode_square5(centre, map.w, b.square.data(), amount, floor_m);
  }
  return erode_brush_general(map, b, cx, cy, amount, floor_m);
}

// Spreads `amount` metres over the brush centred on cell (cx, cy) (clipped at the edge); returns
// what landed on the map. Used for the load a droplet drops where it dies, which bilinear
// deposition on four samples would pile into a spike.
inline float deposit_brush(const Map& map, const Brush& b, int cx, int cy, float amount) {
  const int R = b.radius;
  float added = 0.0f;
  for (int r = 0; r <= 2 * R; ++r) {
    const int y = cy - R + r;
    if (y < 0 || y >= map.ht) continue;
    float* row = map.h + std::size_t(y) * std::size_t(map.w);
    for (int k = 0; k < b.row_len[r]; ++k) {
      const int x = cx + b.row_x0[r] + k;
      if (x < 0 || x >= map.w) continue;
      const float give = amount * b.weight[std::size_t(b.row_off[r] + k)];
      row[x] += give;
      added += give;
    }
  }
  return added;
}

// Erosion weight of brush centre (ix, iy): 0 while the brush reaches the edge, rising by a
// smoothstep to 1 over the falloff distance.
inline float falloff(const Model& m, const Map& map, const Brush& b, int ix, int iy) {
  if (m.falloff_cells <= 0.0f) return 1.0f;
  const int d = std::min(std::min(ix, iy), std::min(map.w - 1 - ix, map.ht - 1 - iy)) - b.radius;
  const float t = std::clamp(float(d) / m.falloff_cells, 0.0f, 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

inline void start_point(std::uint64_t seed, std::int64_t k, const Map& map, float& x, float& y) {
  const std::uint64_t h = hash_combine(seed, std::uint64_t(k));
  x = unit_float(h) * float(map.w - 1);
  y = unit_float(mix64(h)) * float(map.ht - 1);
}

// A droplet that stopped at (x, y) drops its load through the brush (bilinear deposition on four
// samples would pile it into a spike) and counts its steps.
inline void finish(const Map& map, const Brush& brush, float x, float y, float load, int steps,
                   Tally& tally) {
  tally.steps += steps;
  if (load > 0.0f) {
    const float added = deposit_brush(map, brush, int(x), int(y), load);
    tally.deposited += double(added);
    tally.carried_off += double(load) - double(added);  // the brush part outside the map
  }
}

// A batch's droplets, binned by tile.
struct Batch {
  std::uint64_t seed;
  std::int64_t first;          // index of the batch's first droplet
  const std::uint32_t* count;  // CSR over tiles into `order`
  const std::uint32_t* order;  // droplet offsets within the batch, by tile
};

// One colour's tiles, shared by the workers: each takes the next tile from `next` (any split
// gives the same bits: tiles of one colour never touch the same cells, and a tile's droplets
// always run in index order, one after another).
struct TileRun {
  const Map* map;
  const Model* model;
  const Brush* brush;
  const Batch* batch;
  const std::uint32_t* tiles;
  std::int64_t tile_count;
  std::atomic<std::int64_t>* next;
  Tally* tally;  // per tile
};

// Runs tiles from r.tiles until none is left (droplet_lanes.cpp) on the resolved SIMD target.
void run_tiles(const TileRun& r, SimdTarget target);

}  // namespace terrane::droplet_detail
