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
// colours run one after another, the droplets of a tile in index order (each tile in one SIMD
// lane of one worker, droplet_lanes.cpp). The tile grid is offset
// per batch by a hash, so tile borders move. Every step of the schedule is a function of the
// parameters and the grid, never of the thread count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "erosion/droplet_model.hpp"
#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;
using droplet_detail::Batch;
using droplet_detail::Brush;
using droplet_detail::Map;
using droplet_detail::Model;
using droplet_detail::Tally;
using droplet_detail::TileRun;

std::span<const Field<DropletParams>> DropletParams::fields() {
  using P = DropletParams;
  static const Field<P> table[] = {
      {"droplets", TERRANE_FIELD_REF(P, droplets), Range::closed(0, double(kMaxDroplets))},
      {"seed", TERRANE_FIELD_REF(P, seed)},
      {"inertia", TERRANE_FIELD_REF(P, inertia), Range::open_hi(0.0, 1.0)},
      {"capacity", TERRANE_FIELD_REF(P, capacity), Range::closed(0.0, 1e6)},
      {"min_capacity", TERRANE_FIELD_REF(P, min_capacity), Range::closed(0.0, 1e6)},
      {"erode_speed", TERRANE_FIELD_REF(P, erode_speed), Range::closed(0.0, 1.0)},
      {"deposit_speed", TERRANE_FIELD_REF(P, deposit_speed), Range::closed(0.0, 1.0)},
      {"evaporation", TERRANE_FIELD_REF(P, evaporation), Range::open_hi(0.0, 1.0)},
      {"gravity", TERRANE_FIELD_REF(P, gravity), Range::closed(0.0, 1e6)},
      {"initial_water", TERRANE_FIELD_REF(P, initial_water), Range::open_lo(0.0, 1e6)},
      {"initial_speed", TERRANE_FIELD_REF(P, initial_speed), Range::closed(0.0, 1e6)},
      {"max_lifetime", TERRANE_FIELD_REF(P, max_lifetime), Range::closed(1, kMaxDropletLifetime)},
      {"brush_radius", TERRANE_FIELD_REF(P, brush_radius),
       Range::closed(1.0, kMaxBrushRadiusCells)},
      {"height_unit_m", TERRANE_FIELD_REF(P, height_unit_m), Range::open_lo(0.0, 1e6)},
      {"reference_spacing_m", TERRANE_FIELD_REF(P, reference_spacing_m), Range::open_lo(0.0, 1e6),
       FieldFlag::zero_or_range},
      {"border_falloff_m", TERRANE_FIELD_REF(P, border_falloff_m), Range::closed(0.0, 1e9)},
  };
  return table;
}

void DropletParams::validate(std::string_view path) const {
  check_fields(*this, fields(), path);
}

namespace {

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
  // Lengths in metres can become less than a cell (or more than the limits) on a grid much
  // coarser (finer) than the reference: a droplet walks at least one step and at most
  // kMaxDropletLifetime, its brush covers at least one cell and at most kMaxBrushRadiusCells.
  const double life =
      std::clamp(std::round(double(p.max_lifetime) / q), 1.0, double(kMaxDropletLifetime));
  brush_radius_cells = std::clamp(p.brush_radius / q, 1.0, kMaxBrushRadiusCells);
  m.lifetime = int(life);
  m.falloff_cells = float(p.border_falloff_m / spacing_m);
  return m;
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
  const SimdTarget simd = resolved_simd_target(ctx);  // refuses an unsupported target first
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
  // About 512 droplets per tile per batch (at least 16384, at most 262144 droplets): long enough
  // phases that the SIMD lanes and workers end together (128 per tile gave 2-thread scaling of
  // 1.71-1.86x on the 1024^2 benchmark, 512 gives 1.80-1.89x and 15% less time per core).
  const std::int64_t batch = std::clamp<std::int64_t>(tiles * 512, 16384, 262144);
  const std::int64_t batches = (params.droplets + batch - 1) / batch;

  std::vector<std::uint32_t> count(static_cast<std::size_t>(tiles) + 1),
      order(static_cast<std::size_t>(batch));
  std::vector<std::uint32_t> tile_of(static_cast<std::size_t>(batch));
  std::vector<Tally> tally(static_cast<std::size_t>(tiles));
  std::vector<std::uint32_t> phase_tiles;
  const ExecContext inner = ed::quiet(ctx);
  const std::int64_t workers =
      ctx.threads > 0 ? ctx.threads
                      : std::int64_t(std::max(1u, std::thread::hardware_concurrency()));

  for (std::int64_t b = 0; b < batches; ++b) {
    ed::check_cancel(ctx);
    const std::int64_t first = b * batch;
    const std::int64_t n = std::min(batch, params.droplets - first);
    const std::uint64_t shift =
        hash_combine(params.seed ^ 0x7469'6c65'5f73'6869ull, std::uint64_t(b));
    const int ox = int(shift % std::uint64_t(tile)), oy = int((shift >> 32) % std::uint64_t(tile));
    // Counting sort of the batch's droplets by tile (stable: index order within a tile).
    // The start points (a hash each) in parallel, the counts serially.
    parallel_for(inner, (n + 4095) / 4096, 1, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t k = lo * 4096; k < std::min(n, hi * 4096); ++k) {
        float x, y;
        droplet_detail::start_point(params.seed, first + k, map, x, y);
        const int tx = (int(x) + ox) / tile, ty = (int(y) + oy) / tile;
        tile_of[std::size_t(k)] = std::uint32_t(ty * tiles_x + tx);
      }
    });
    std::fill(count.begin(), count.end(), 0u);
    for (std::int64_t k = 0; k < n; ++k) ++count[tile_of[std::size_t(k)] + 1];
    for (std::int64_t t = 0; t < tiles; ++t) count[std::size_t(t + 1)] += count[std::size_t(t)];
    {
      std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
      for (std::int64_t k = 0; k < n; ++k)
        order[fill[tile_of[std::size_t(k)]]++] = std::uint32_t(k);
    }
    const Batch bt{params.seed, first, count.data(), order.data()};
    for (int phase = 0; phase < 4; ++phase) {
      phase_tiles.clear();
      for (int ty = phase >> 1; ty < tiles_y; ty += 2) {
        for (int tx = phase & 1; tx < tiles_x; tx += 2) {
          const std::uint32_t t = std::uint32_t(ty * tiles_x + tx);
          if (count[t + 1] > count[t]) phase_tiles.push_back(t);
        }
      }
      // Most droplets first, so that the lanes and workers end together (the order in which
      // tiles run never changes the result).
      std::stable_sort(phase_tiles.begin(), phase_tiles.end(),
                       [&](std::uint32_t a, std::uint32_t c) {
                         return count[a + 1] - count[a] > count[c + 1] - count[c];
                       });
      // Tiles of one colour are independent: the workers take them one at a time from a shared
      // counter, each into a SIMD lane (droplet_lanes.cpp); any split gives the same bits.
      std::atomic<std::int64_t> next{0};
      const TileRun run{.map = &map,
                        .model = &model,
                        .brush = &brush,
                        .batch = &bt,
                        .tiles = phase_tiles.data(),
                        .tile_count = std::int64_t(phase_tiles.size()),
                        .next = &next,
                        .tally = tally.data()};
      parallel_for(inner, workers, 1, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t k = lo; k < hi; ++k) droplet_detail::run_tiles(run, simd);
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
