// Hydraulic erosion by droplets (particles).
//
// Model: H. T. Beyer 2015, "Implementation of a method for hydraulic erosion" (bachelor's
// thesis, TU Munich), in the form popularised by S. Lague's "Hydraulic Erosion" (2019), whose
// default parameters DropletParams keeps: a droplet follows the bilinear gradient with inertia,
// carries sediment up to a capacity proportional to drop * speed * water, erodes through a
// radius brush and deposits bilinearly. Differences, all documented in erosion.hpp: the speed
// gains energy going downhill (Beyer's sign), a droplet that dies on the map drops its load
// (sediment is conserved), heights are not clamped at 0 (they are metres), and the optional
// physical-unit scaling and border falloff.
//
// Parallel schedule (terrane's own): droplets run in fixed-size batches; in each batch they are
// binned by start cell into tiles of side > 2 * reach, where reach bounds how far a droplet's
// reads and writes get from its start cell. Tiles of one colour of a 2x2 colouring are then at
// least one tile apart and never touch the same cells, so they run concurrently; the four
// colours run one after another, the droplets of a tile in index order. The tile grid is offset
// per batch by a hash, so tile borders move. Every step of the schedule is a function of the
// parameters and the grid, never of the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;

void DropletParams::validate(std::string_view path) const {
  ed::check_int(path, "droplets", droplets, 0, kMaxDroplets);
  ed::check_range(path, "inertia", inertia, 0.0, 1.0, false, true);
  ed::check_range(path, "capacity", capacity, 0.0, 1e6);
  ed::check_range(path, "min_capacity", min_capacity, 0.0, 1e6);
  ed::check_range(path, "erode_speed", erode_speed, 0.0, 1.0);
  ed::check_range(path, "deposit_speed", deposit_speed, 0.0, 1.0);
  ed::check_range(path, "evaporation", evaporation, 0.0, 1.0, false, true);
  ed::check_range(path, "gravity", gravity, 0.0, 1e6);
  ed::check_range(path, "initial_water", initial_water, 0.0, 1e6, true);
  ed::check_range(path, "initial_speed", initial_speed, 0.0, 1e6);
  ed::check_int(path, "max_lifetime", max_lifetime, 1, kMaxDropletLifetime);
  ed::check_range(path, "brush_radius", brush_radius, 1.0, kMaxBrushRadiusCells);
  ed::check_range(path, "height_unit_m", height_unit_m, 0.0, 1e6, true);
  if (!(reference_spacing_m == 0.0)) {
    ed::check_range(path, "reference_spacing_m", reference_spacing_m, 0.0, 1e6, true);
  }
  ed::check_range(path, "border_falloff_m", border_falloff_m, 0.0, 1e9);
}

namespace {

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

Brush make_brush(double r) {
  Brush b;
  const int R = int(std::ceil(r)) - 1 < 1 ? 1 : int(std::ceil(r)) - 1;
  b.radius = R;
  double sum = 0.0;
  std::vector<double> wd;
  for (int dy = -R; dy <= R; ++dy) {
    int x0 = 0, len = 0;
    b.row_off.push_back(int(wd.size()));
    for (int dx = -R; dx <= R; ++dx) {
      const double d = std::sqrt(double(dx * dx + dy * dy));
      if (d < r) {
        if (len == 0) x0 = dx;
        ++len;
        wd.push_back(r - d);
        sum += r - d;
      }
    }
    b.row_x0.push_back(x0);
    b.row_len.push_back(len);
  }
  for (double v : wd) b.weight.push_back(float(v / sum));
  for (float v : b.weight) b.total += v;
  const int S = 2 * R + 1;
  b.square.assign(std::size_t(S) * std::size_t(S), 0.0f);
  for (int row_i = 0; row_i < S; ++row_i) {
    for (int k = 0; k < b.row_len[std::size_t(row_i)]; ++k) {
      b.square[std::size_t(row_i * S + (b.row_x0[std::size_t(row_i)] + R) + k)] =
          b.weight[std::size_t(b.row_off[std::size_t(row_i)] + k)];
    }
  }
  return b;
}

Model resolve(const DropletParams& p, double spacing_m, double& brush_radius_cells) {
  const double q = p.reference_spacing_m > 0.0 ? spacing_m / p.reference_spacing_m : 1.0;
  const auto rate = [&](double r) { return q == 1.0 ? r : 1.0 - std::pow(1.0 - r, q); };
  Model m{};
  m.inertia = float(p.inertia);
  m.capacity = float(p.capacity);
  m.min_capacity = float(p.min_capacity);
  m.erode = float(rate(p.erode_speed));
  m.deposit = float(rate(p.deposit_speed));
  m.keep_water = float(1.0 - rate(p.evaporation));
  m.gravity = float(p.gravity);
  m.water0 = float(p.initial_water);
  m.speed0 = float(p.initial_speed);
  m.drop_to_units = float(1.0 / (p.height_unit_m * q));
  m.inv_unit = float(1.0 / p.height_unit_m);
  m.cap_to_metres = float(p.height_unit_m / (q * q));
  m.area_scale = float(1.0 / (q * q));
  const double life = std::round(double(p.max_lifetime) / q);
  brush_radius_cells = p.brush_radius / q;
  if (!(life >= 1.0 && life <= double(kMaxDropletLifetime))) {
    throw Error(ErrorCategory::invalid_argument,
                "droplets.max_lifetime = " + std::to_string(p.max_lifetime) + " becomes " +
                    ed::fmt(life) + " steps on a grid of spacing " + ed::fmt(spacing_m) +
                    " m (reference_spacing_m = " + ed::fmt(p.reference_spacing_m) +
                    "); allowed 1.." + std::to_string(kMaxDropletLifetime));
  }
  if (!(brush_radius_cells >= 1.0 && brush_radius_cells <= kMaxBrushRadiusCells)) {
    throw Error(ErrorCategory::invalid_argument,
                "droplets.brush_radius = " + ed::fmt(p.brush_radius) + " becomes " +
                    ed::fmt(brush_radius_cells) + " cells on a grid of spacing " +
                    ed::fmt(spacing_m) +
                    " m (reference_spacing_m = " + ed::fmt(p.reference_spacing_m) +
                    "); allowed [1, " + ed::fmt(kMaxBrushRadiusCells) + "]");
  }
  m.lifetime = int(life);
  m.falloff_cells = float(p.border_falloff_m / spacing_m);
  return m;
}

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

inline float erode_square5(float* centre, int w, const float* sq, float amount, float floor_m) {
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
inline float erode_brush(const Map& map, const Brush& b, int cx, int cy, float amount,
                         float floor_m) {
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

void start_point(std::uint64_t seed, std::int64_t k, const Map& map, float& x, float& y) {
  const std::uint64_t h = hash_combine(seed, std::uint64_t(k));
  x = unit_float(h) * float(map.w - 1);
  y = unit_float(mix64(h)) * float(map.ht - 1);
}

// One droplet in flight: its state between steps.
struct Droplet {
  float x, y, dx, dy, speed, water, load;
  int step;
};

inline Droplet launch(const Model& m, float x, float y) {
  return Droplet{x, y, 0.0f, 0.0f, m.speed0, m.water0, 0.0f, 0};
}

// Moves droplet `d` one step; returns false once it has stopped (lifetime, standstill or left
// the map), after which finish() drops its load.
[[gnu::always_inline]] inline bool advance(const Map& map, const Model& m, const Brush& brush,
                                           Droplet& d, Tally& tally) {
  if (d.step >= m.lifetime) return false;
  const float x = d.x, y = d.y;
  const int ix = int(x), iy = int(y);
  const float u = x - float(ix), v = y - float(iy);
  const Sample s = sample(map, x, y);
  float dx = d.dx * m.inertia - s.gx * (1.0f - m.inertia);
  float dy = d.dy * m.inertia - s.gy * (1.0f - m.inertia);
  const float len = std::sqrt(dx * dx + dy * dy);
  if (len == 0.0f) return false;  // standstill: drop the load in finish()
  dx /= len;
  dy /= len;
  d.dx = dx;
  d.dy = dy;
  const float nx = x + dx, ny = y + dy;
  if (!(nx >= 0.0f && nx < map.x_end && ny >= 0.0f && ny < map.y_end)) {
    tally.carried_off += double(d.load);
    d.load = 0.0f;
    ++d.step;
    return false;
  }
  const float next_height = sample(map, nx, ny).height;
  const float drop = s.height - next_height;  // > 0 downhill, metres
  const float speed = d.speed, load = d.load;
  const float cap =
      std::max(drop * m.drop_to_units * speed * d.water * m.capacity, m.min_capacity) *
      m.cap_to_metres;
  if (drop < 0.0f || load > cap) {
    const float amount = drop < 0.0f ? std::min(-drop, load) : (load - cap) * m.deposit;
    d.load = load - amount;
    deposit_bilinear(map, ix, iy, u, v, amount, tally);
  } else {
    const float amount =
        std::min((cap - load) * m.erode, drop * m.area_scale) * falloff(m, map, brush, ix, iy);
    const float removed = erode_brush(map, brush, ix, iy, amount, next_height);
    d.load = load + removed;
    tally.eroded += double(removed);
  }
  d.speed = std::sqrt(std::max(0.0f, speed * speed + drop * m.inv_unit * m.gravity));
  d.water *= m.keep_water;
  d.x = nx;
  d.y = ny;
  ++d.step;
  return true;
}

inline void finish(const Map& map, const Brush& brush, const Droplet& d, Tally& tally) {
  tally.steps += d.step;
  if (d.load > 0.0f) {
    const float added = deposit_brush(map, brush, int(d.x), int(d.y), d.load);
    tally.deposited += double(added);
    tally.carried_off += double(d.load) - double(added);  // the brush part outside the map
  }
}

// A batch's droplets, binned by tile.
struct Batch {
  std::uint64_t seed;
  std::int64_t first;          // index of the batch's first droplet
  const std::uint32_t* count;  // CSR over tiles into `order`
  const std::uint32_t* order;  // droplet offsets within the batch, by tile
};

// Runs the droplets of tiles[0, n) (one colour), each tile's in index order.
void run_tiles(const Map& map_in, const Model& model, const Brush& brush, const Batch& batch,
               const std::uint32_t* tiles, std::int64_t n, Tally* tally) {
  // Local copies: the map's floats are written through pointers, so fields read through a
  // reference would be reloaded after every store; locals whose address stays here are not.
  const Map map = map_in;
  const Model m = model;
  for (std::int64_t p = 0; p < n; ++p) {
    const std::uint32_t t = tiles[p];
    Tally& tl = tally[t];
    for (std::uint32_t q = batch.count[t]; q < batch.count[t + 1]; ++q) {
      float x, y;
      start_point(batch.seed, batch.first + batch.order[q], map, x, y);
      Droplet d = launch(m, x, y);
      while (advance(map, m, brush, d, tl)) {
      }
      finish(map, brush, d, tl);
    }
  }
}

}  // namespace

DropletStats droplet_erosion(Field2D& heights, const DropletParams& params,
                             const ExecContext& ctx) {
  params.validate();
  heights.grid.validate("droplet_erosion heights");
  if (heights.data.size() != heights.grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                "droplet_erosion: heights.data has " + std::to_string(heights.data.size()) +
                    " samples, the grid needs " + std::to_string(heights.grid.sample_count()));
  }
  double brush_r = 0.0;
  const Model model = resolve(params, heights.grid.spacing_m, brush_r);
  DropletStats stats;
  const int w = heights.grid.width, ht = heights.grid.height;
  if (w < 2 || ht < 2 || params.droplets == 0) return stats;
  const Brush brush = make_brush(brush_r);
  const Map map{heights.data.data(), w, ht, float(w - 1), float(ht - 1)};

  // Reach: cells a droplet may read or write, counted from its start cell.
  const int reach = model.lifetime + brush.radius + 2;
  const int tile = 2 * reach + 1;
  const int tiles_x = (w - 1) / tile + 2, tiles_y = (ht - 1) / tile + 2;
  const std::int64_t tiles = std::int64_t(tiles_x) * tiles_y;
  const std::int64_t batch = std::clamp<std::int64_t>(tiles * 128, 16384, 262144);
  const std::int64_t batches = (params.droplets + batch - 1) / batch;

  std::vector<std::uint32_t> count(static_cast<std::size_t>(tiles) + 1),
      order(static_cast<std::size_t>(batch));
  std::vector<std::uint32_t> tile_of(static_cast<std::size_t>(batch));
  std::vector<Tally> tally(static_cast<std::size_t>(tiles));
  std::vector<std::uint32_t> phase_tiles;
  const ExecContext inner = ed::quiet(ctx);

  for (std::int64_t b = 0; b < batches; ++b) {
    ed::check_cancel(ctx);
    const std::int64_t first = b * batch;
    const std::int64_t n = std::min(batch, params.droplets - first);
    const std::uint64_t shift =
        hash_combine(params.seed ^ 0x7469'6c65'5f73'6869ull, std::uint64_t(b));
    const int ox = int(shift % std::uint64_t(tile)), oy = int((shift >> 32) % std::uint64_t(tile));
    // Counting sort of the batch's droplets by tile (stable: index order within a tile).
    std::fill(count.begin(), count.end(), 0u);
    for (std::int64_t k = 0; k < n; ++k) {
      float x, y;
      start_point(params.seed, first + k, map, x, y);
      const int tx = (int(x) + ox) / tile, ty = (int(y) + oy) / tile;
      const std::uint32_t t = std::uint32_t(ty * tiles_x + tx);
      tile_of[std::size_t(k)] = t;
      ++count[t + 1];
    }
    for (std::int64_t t = 0; t < tiles; ++t) count[std::size_t(t + 1)] += count[std::size_t(t)];
    {
      std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
      for (std::int64_t k = 0; k < n; ++k)
        order[fill[tile_of[std::size_t(k)]]++] = std::uint32_t(k);
    }
    for (int phase = 0; phase < 4; ++phase) {
      phase_tiles.clear();
      for (int ty = phase >> 1; ty < tiles_y; ty += 2) {
        for (int tx = phase & 1; tx < tiles_x; tx += 2) {
          const std::uint32_t t = std::uint32_t(ty * tiles_x + tx);
          if (count[t + 1] > count[t]) phase_tiles.push_back(t);
        }
      }
      // Tiles of one colour are independent: any split over the workers gives the same bits.
      const Batch bt{params.seed, first, count.data(), order.data()};
      parallel_for(
          inner, std::int64_t(phase_tiles.size()), 1, [&](std::int64_t lo, std::int64_t hi) {
            run_tiles(map, model, brush, bt, phase_tiles.data() + lo, hi - lo, tally.data());
          });
    }
    ed::report(ctx, double(b + 1) / double(batches));
  }
  const double area = heights.grid.spacing_m * heights.grid.spacing_m;
  for (const Tally& t : tally) {  // fixed tile order
    stats.eroded_m3 += t.eroded * area;
    stats.deposited_m3 += t.deposited * area;
    stats.carried_off_m3 += t.carried_off * area;
    stats.steps += t.steps;
  }
  return stats;
}

}  // namespace terrane
