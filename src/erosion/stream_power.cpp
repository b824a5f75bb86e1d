// Stream-power landscape evolution.
//
// Braun & Willett 2013, "A very efficient O(n), implicit and parallel method to solve the stream
// power equation governing fluvial incision and landscape evolution", Geomorphology 180-181:
// dh/dt = U - K A^m S^n. With the cells ordered so that every receiver comes before its donors,
// the implicit Euler step for n = 1 is solved in one pass:
//   h_i' = (h_i + U_i dt + F_i h_r') / (1 + F_i),  F_i = K dt A_i^m / L_ir.
// Routing and depression handling: compute_flow_routing (D8; each pit drains across its spill
// pass, found on the basin graph, Cordonnier et al. 2019; filled levels as Priority-Flood). A
// cell whose receiver ends at or above its uplifted height (inside a depression) is only
// uplifted. Hillslope diffusion dh/dt = D laplacian(h) (5-point Laplacian) takes one forward
// Euler step where d = D dt / spacing^2 <= 0.2, else one backward Euler step split by direction
// (rows, then columns: tridiagonal solves, O(n) and stable for any d; as fastscapelib solves its
// diffusion implicitly by ADI, not by sub-steps).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <numbers>

#include "core/huge_pages.hpp"
#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;

std::span<const Field<StreamPowerParams>> StreamPowerParams::fields() {
  using P = StreamPowerParams;
  static const Field<P> table[] = {
      {"uplift_m_per_yr", TERRANE_FIELD_REF(P, uplift_m_per_yr), Range::closed(0.0, 1.0)},
      {"erodibility", TERRANE_FIELD_REF(P, erodibility), Range::closed(0.0, 1.0)},
      {"m", TERRANE_FIELD_REF(P, m), Range::closed(0.0, 2.0)},
      {"n", TERRANE_FIELD_REF(P, n), Range::closed(1.0, 1.0), FieldFlag::unchecked},
      {"diffusivity_m2_per_yr", TERRANE_FIELD_REF(P, diffusivity_m2_per_yr),
       Range::closed(0.0, 1e3)},
      {"dt_yr", TERRANE_FIELD_REF(P, dt_yr), Range::open_lo(0.0, 1e7)},
      {"steps", TERRANE_FIELD_REF(P, steps), Range::closed(0, kMaxStreamPowerSteps)},
      {"use_sea_level", TERRANE_FIELD_REF(P, routing.use_sea_level)},
      {"sea_level_m", TERRANE_FIELD_REF(P, routing.sea_level_m), Range::closed(-1e9, 1e9)},
  };
  return table;
}

void StreamPowerParams::validate(std::string_view path) const {
  check_fields(*this, fields(), path);
  if (!(n == 1.0)) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(path) + ".n = " + format_number(n) +
                    " is not supported: the implicit solver needs n = 1 (allowed: 1)");
  }
}

namespace {

constexpr double kExplicitDiffusionLimit = 0.2;

// One explicit diffusion step of an inner row: out = mid + alpha * laplacian, from the row
// (`mid`) and the rows above and below it, except where `mv` is 0 (outlets, which include the
// whole border). Branch-free so that it vectorises; the border columns are fixed, so the loop never
// reads outside the rows. `out` may not be any of the three rows.
[[gnu::always_inline]] inline void diffuse_row_impl(const float* up, const float* mid,
                                                    const float* dn, const std::uint8_t* mv,
                                                    float* out, int w, double alpha) {
  out[0] = mid[0];
  out[w - 1] = mid[w - 1];
  for (int i = 1; i < w - 1; ++i) {
    const double lap = (double(mid[i - 1]) + double(mid[i + 1])) + (double(up[i]) + double(dn[i])) -
                       4.0 * double(mid[i]);
    const double a = mv[i] == 0 ? 0.0 : alpha;  // fixed: mid + 0 * lap == mid
    out[i] = float(double(mid[i]) + a * lap);
  }
}

// The row kernel for the baseline target and, on x86-64, AVX2 and AVX-512 (chosen by terrane's
// SIMD setting): the same IEEE double operations per cell, so the same bits.
using DiffuseRow = void (*)(const float*, const float*, const float*, const std::uint8_t*, float*,
                            int, double);
void diffuse_row_base(const float* up, const float* mid, const float* dn, const std::uint8_t* mv,
                      float* out, int w, double alpha) {
  diffuse_row_impl(up, mid, dn, mv, out, w, alpha);
}
#if defined(__x86_64__)
[[gnu::target("avx2")]] void diffuse_row_avx2(const float* up, const float* mid, const float* dn,
                                              const std::uint8_t* mv, float* out, int w,
                                              double alpha) {
  diffuse_row_impl(up, mid, dn, mv, out, w, alpha);
}
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,avx2")]] void diffuse_row_avx3(
    const float* up, const float* mid, const float* dn, const std::uint8_t* mv, float* out, int w,
    double alpha) {
  diffuse_row_impl(up, mid, dn, mv, out, w, alpha);
}
#endif

DiffuseRow diffuse_row_kernel([[maybe_unused]] SimdTarget target) {
#if defined(__x86_64__)
  if (target == SimdTarget::avx3) return diffuse_row_avx3;
  if (target == SimdTarget::avx2) return diffuse_row_avx2;
#endif
  return diffuse_row_base;
}

// Backward-Euler diffusion along `lanes` independent lines of `len` cells (Thomas algorithm, in
// double): (1 + 2r) x_k - r (x_{k-1} + x_{k+1}) = src_k, except where `moves` is 0 (outlets;
// both ends are always border cells), where x_k = src_k. Cell (k, l) is at
// k * along + l * across. The system is diagonally dominant, so the sweep is stable for every
// r; a fixed cell gets cp = -0 and dp = src exactly, so it comes back bit for bit. `cp`, `dp`:
// len * lanes doubles of scratch. The same operations in the same order on every target.
void implicit_lines(const float* src, float* dst, const std::uint8_t* moves, std::ptrdiff_t along,
                    std::ptrdiff_t across, int len, int lanes, double r, double* cp, double* dp) {
  for (int k = 0; k < len; ++k) {
    const bool end = k == 0 || k == len - 1;
    for (int l = 0; l < lanes; ++l) {
      const std::ptrdiff_t o = std::ptrdiff_t(k) * along + std::ptrdiff_t(l) * across;
      const std::size_t q = std::size_t(k) * std::size_t(lanes) + std::size_t(l);
      const double a = end || moves[o] == 0 ? 0.0 : r;
      const double cp_prev = k == 0 ? 0.0 : cp[q - std::size_t(lanes)];
      const double dp_prev = k == 0 ? 0.0 : dp[q - std::size_t(lanes)];
      const double m = 1.0 + 2.0 * a + a * cp_prev;  // b - a_sub * cp_prev, a_sub = -a
      cp[q] = -a / m;
      dp[q] = (double(src[o]) + a * dp_prev) / m;
    }
  }
  for (int k = len - 1; k >= 0; --k) {
    for (int l = 0; l < lanes; ++l) {
      const std::ptrdiff_t o = std::ptrdiff_t(k) * along + std::ptrdiff_t(l) * across;
      const std::size_t q = std::size_t(k) * std::size_t(lanes) + std::size_t(l);
      if (k < len - 1) dp[q] -= cp[q] * dp[q + std::size_t(lanes)];
      dst[o] = float(dp[q]);
    }
  }
}

// One explicit diffusion step of d = D dt / spacing^2 <= 0.2, in place: bands of rows in
// parallel, each row formed from the old heights of the rows above and below it. Each band keeps
// the old row above the one it forms, and the rows just above and below every band are copied
// before any band writes: a few rows per band instead of a copy of the map. The border rows are
// fixed (and skipped); the same operations per cell as from a copy, so the same bits.
void explicit_diffusion(float* hs, const std::uint8_t* moves, int w, int h, double d,
                        DiffuseRow diffuse_row, const ExecContext& ctx) {
  if (h < 3 || w < 3) return;  // every cell is on the border
  const std::size_t sw = std::size_t(w);
  // Bands of inner rows [1 + k * rows, ...): a fixed split (any split gives the same heights).
  const int rows = std::max(8, 65536 / w);
  const int bands = (h - 2 + rows - 1) / rows;
  const auto band_rows = [&](int k) {
    return std::pair{1 + k * rows, std::min(h - 1, 1 + (k + 1) * rows)};
  };
  // Each band's old row above its first and below its last.
  std::vector<float> halo(std::size_t(bands) * 2 * sw);
  parallel_for(ctx, bands, 1, [&](std::int64_t k0, std::int64_t k1) {
    for (auto k = int(k0); k < int(k1); ++k) {
      const auto [b, e] = band_rows(k);
      float* above = halo.data() + std::size_t(k) * 2 * sw;
      std::copy(hs + std::size_t(b - 1) * sw, hs + std::size_t(b) * sw, above);
      std::copy(hs + std::size_t(e) * sw, hs + std::size_t(e + 1) * sw, above + sw);
    }
  });
  parallel_for(ctx, bands, 1, [&](std::int64_t k0, std::int64_t k1) {
    std::vector<float> up(sw), out(sw);
    for (auto k = int(k0); k < int(k1); ++k) {
      const auto [b, e] = band_rows(k);
      const float* below = halo.data() + (std::size_t(k) * 2 + 1) * sw;
      std::copy_n(halo.data() + std::size_t(k) * 2 * sw, sw, up.data());
      for (int j = b; j < e; ++j) {
        float* mid = hs + std::size_t(j) * sw;
        const float* dn = j + 1 == e ? below : mid + sw;
        diffuse_row(up.data(), mid, dn, moves + std::size_t(j) * sw, out.data(), w, d);
        std::copy_n(mid, sw, up.data());  // the old row, above the next one
        std::copy_n(out.data(), sw, mid);
      }
    }
  });
}

// One implicit diffusion step of d = D dt / spacing^2, split by direction (locally
// one-dimensional backward Euler: (I - d dxx) h* = h, then (I - d dzz) h' = h*): rows in
// parallel, then blocks of kColumns columns (read and written row by row, so the column sweep
// stays cache-friendly), each line solved in place (its forward sweep reads the whole line
// before its back substitution writes it). Unconditionally stable and monotone, two O(n) passes
// whatever d is. The border rows and columns are fixed, so they are skipped. The Thomas
// coefficients live in thread_local buffers (16 bytes per cell of a line or block), kept by
// each worker for its next solve rather than allocated and faulted in per block.
void implicit_diffusion(float* hs, const std::uint8_t* moves, int w, int h, double d,
                        const ExecContext& ctx) {
  constexpr int kColumns = 16;
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max(1, w));
  parallel_for(ctx, h, grain, [&](std::int64_t b, std::int64_t e) {
    thread_local std::vector<double> cp, dp;
    cp.resize(std::size_t(w));
    dp.resize(std::size_t(w));
    for (std::int64_t j = b; j < e; ++j) {
      const std::size_t row = std::size_t(j) * std::size_t(w);
      if (j == 0 || j == h - 1) continue;
      implicit_lines(hs + row, hs + row, moves + row, 1, 0, w, 1, d, cp.data(), dp.data());
    }
  });
  const std::int64_t blocks = (std::int64_t(w) + kColumns - 1) / kColumns;
  parallel_for(ctx, blocks, 1, [&](std::int64_t b, std::int64_t e) {
    thread_local std::vector<double> cp, dp;
    cp.resize(std::size_t(h) * kColumns);
    dp.resize(std::size_t(h) * kColumns);
    for (std::int64_t blk = b; blk < e; ++blk) {
      const int i0 = int(blk) * kColumns, i1 = std::min(w, i0 + kColumns);
      implicit_lines(hs + i0, hs + i0, moves + i0, w, 1, h, i1 - i0, d, cp.data(), dp.data());
    }
  });
}

// Sum of the heights: rows in parallel, each summed in order, then the row sums in row order,
// so the result does not depend on the thread count.
double total_m(const float* hs, int w, int h, std::vector<double>& row_sum,
               const ExecContext& ctx) {
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max(1, w));
  parallel_for(ctx, h, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t j = b; j < e; ++j) {
      const float* row = hs + std::size_t(j) * std::size_t(w);
      double s = 0.0;
      for (int i = 0; i < w; ++i) s += double(row[i]);
      row_sum[std::size_t(j)] = s;
    }
  });
  double total = 0.0;
  for (double s : row_sum) total += s;
  return total;
}

}  // namespace

StreamPowerStats stream_power(Field2D& heights, const StreamPowerParams& params,
                              const Field2D* uplift_map, const ExecContext& ctx,
                              StreamPowerScratch* scratch) {
  params.validate();
  heights.grid.validate("stream_power heights");
  const GridSpec& g = heights.grid;
  const int w = g.width, h = g.height;
  const std::size_t n = g.sample_count();
  if (heights.data.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "stream_power: heights.data has " + std::to_string(heights.data.size()) +
                    " samples, the grid needs " + std::to_string(n));
  }
  if (uplift_map != nullptr) {
    if (uplift_map->grid.width != w || uplift_map->grid.height != h ||
        uplift_map->data.size() != n) {
      throw Error(ErrorCategory::invalid_argument,
                  "stream_power: the uplift map is " + std::to_string(uplift_map->grid.width) +
                      " x " + std::to_string(uplift_map->grid.height) + ", the heights are " +
                      std::to_string(w) + " x " + std::to_string(h));
    }
    for (std::size_t c = 0; c < n; ++c) {
      const float u = uplift_map->data[c];
      if (!(std::isfinite(u) && u >= 0.0f && u <= 1e3f)) {
        throw Error(ErrorCategory::invalid_argument,
                    "stream_power: uplift map at (" + std::to_string(c % std::size_t(w)) + ", " +
                        std::to_string(c / std::size_t(w)) + ") = " + format_number(u) +
                        " is outside the allowed range [0, 1000]");
      }
    }
  }
  const SimdTarget simd = resolved_simd_target(ctx);  // refuses an unsupported target first
  StreamPowerStats stats;
  if (params.steps == 0) return stats;

  const ExecContext inner = ed::quiet(ctx);
  const double dt = params.dt_yr;
  const double cell_area = g.spacing_m * g.spacing_m;
  const double inv_axial = 1.0 / g.spacing_m, inv_diag = 1.0 / (g.spacing_m * std::numbers::sqrt2);
  const double kdt = params.erodibility * dt;
  const bool sqrt_m = params.m == 0.5;
  // Diffusion: one explicit step where it is stable and accurate (D dt / spacing^2 <= 0.2),
  // else one implicit step.
  const double d_number = params.diffusivity_m2_per_yr * dt / cell_area;
  const bool explicit_step = d_number <= kExplicitDiffusionLimit;

  StreamPowerScratch own;
  StreamPowerScratch& sc = scratch != nullptr ? *scratch : own;
  FlowRouting& routing = sc.routing;
  std::vector<double>& row_sum = sc.row_sum;
  row_sum.resize(static_cast<std::size_t>(h));
  float* hs = heights.data.data();
  // Where every partial sum of the drainage area is exact (a cell area with few significant
  // bits: 30 m, 0.5 m; not 0.7 m), cells are counted instead, in any order, and the area is
  // double(count) * cell_area: the same bits as the doubles summed along the order. The steps
  // then need no map-wide order. The routing gives its receivers as codes and donor masks (1
  // byte per cell each, not 4 for the receivers and 4 for the order); its labels' storage,
  // kept for the next step (FlowRouting::scratch.label, which each call overwrites whole),
  // holds the counts between its calls. Each outlet's cells are walked breadth-first into a
  // worker's buffer, counted along it backwards and incised along it forwards. Otherwise the
  // routing's order and double areas, as before.
  const bool counted = ed::exact_cell_multiples(cell_area, n);
  routing.keep_scratch = true;
  if (counted) {
    routing.parts = {.order = false, .levels = false, .receiver_codes = true};
    std::vector<double>().swap(sc.area);
    std::vector<std::uint8_t>().swap(sc.moves);
  } else {
    routing.parts = {.order = true, .levels = false};  // the steps never read the levels
    core_detail::resize_huge(sc.area, n, &ctx);
    core_detail::resize_huge(sc.moves, n, &ctx);
  }
  double* const area = sc.area.data();
  const std::uint32_t* receiver = nullptr;
  const ed::NeighbourOffsets nb(w);
  std::vector<std::uint32_t> largest;
  std::vector<double> part_sum;
  ed::TileOrder tiles{sc.tile_order, sc.tile_cells};  // the outlets' walks (counted steps)
  // The implicit incision of cell c (not an outlet) into its receiver r, whose height is final,
  // with drainage area a; adds its uplift and incision, in metres, to the sums.
  const auto incise_cell = [&](std::uint32_t c, std::uint32_t r, bool axial, double a,
                               double& uplift_sum, double& incision_sum) {
    const double u = params.uplift_m_per_yr * dt * (uplift_map ? double(uplift_map->data[c]) : 1.0);
    const double hu = double(hs[c]) + u;
    const double hr = double(hs[r]);
    // F_i = K dt A^m / L.
    const double am = sqrt_m ? std::sqrt(a) : std::pow(a, params.m);
    const double f = kdt * am * (axial ? inv_axial : inv_diag);
    const float next = hr >= hu ? float(hu) : float((hu + f * hr) / (1.0 + f));
    uplift_sum += u;
    incision_sum += hu - double(next);
    hs[c] = next;
  };
  // Implicit incision along `count` cells of the order (receivers first); adds the part's
  // uplift and incision, in metres, to sum[0] and sum[1].
  const auto incise = [&](const std::uint32_t* order, std::size_t count, double* sum) {
    double uplift_sum = 0.0, incision_sum = 0.0;
    for (std::size_t k = 0; k < count; ++k) {
      if (k + ed::kAhead < count) {
        const std::uint32_t far = order[k + ed::kAhead];
        ed::prefetch(&receiver[far]);
        ed::prefetch(&hs[far]);
        ed::prefetch(&area[far]);
        if (uplift_map) ed::prefetch(&uplift_map->data[far]);
        ed::prefetch(&hs[receiver[order[k + ed::kAhead / 2]]]);
      }
      const std::uint32_t c = order[k];
      const std::uint32_t r = receiver[c];
      if (r == c) continue;  // outlet: fixed base level
      const std::int64_t d = std::int64_t(r) - std::int64_t(c);
      incise_cell(c, r, d == 1 || d == -1 || d == w || d == -w, area[c], uplift_sum, incision_sum);
    }
    sum[0] += uplift_sum;
    sum[1] += incision_sum;
  };
  // Drainage area, then implicit incision, along each part of the order (receivers first): the
  // parts share no receiver, so they run in parallel, largest first. A cell's sums and heights
  // come out bit for bit as along the whole order; the volumes are summed per part, then over
  // the parts in their order.
  const auto along_the_order = [&]() {
    receiver = routing.receiver.data();
    parallel_for(inner, std::int64_t(n), 65536,
                 [&](std::int64_t b, std::int64_t e) { std::fill(area + b, area + e, cell_area); });
    const std::vector<std::size_t>& part_begin = routing.part_begin;
    const std::size_t parts = part_begin.size() - 1;
    largest.resize(parts);
    for (std::size_t p = 0; p < parts; ++p) largest[p] = std::uint32_t(p);
    std::stable_sort(largest.begin(), largest.end(), [&](std::uint32_t a, std::uint32_t b) {
      return part_begin[a + 1] - part_begin[a] > part_begin[b + 1] - part_begin[b];
    });
    part_sum.assign(2 * parts, 0.0);
    parallel_for(inner, std::int64_t(parts), ed::part_grain(parts),
                 [&](std::int64_t q0, std::int64_t q1) {
                   for (std::int64_t q = q0; q < q1; ++q) {
                     const std::uint32_t p = largest[std::size_t(q)];
                     const std::uint32_t* order = routing.order.data() + part_begin[p];
                     const std::size_t count = part_begin[p + 1] - part_begin[p];
                     ed::accumulate_downstream(order, receiver, area, count);
                     incise(order, count, &part_sum[2 * std::size_t(p)]);
                   }
                 });
    std::uint8_t* const moves = sc.moves.data();
    parallel_for(inner, std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t c = b; c < e; ++c) moves[c] = receiver[c] == std::uint32_t(c) ? 0 : 1;
    });
  };
  // Each outlet's cells, breadth-first from it into the worker's buffer (every receiver before
  // its donors), counted along the buffer from its end and incised along it from its start:
  // each cell's height depends only on its own values, its count and its receiver's final
  // height, so it comes out bit for bit as along the order. The volumes are summed per walk,
  // per tile of outlets, then over the tiles in their order: fixed by the map alone.
  const auto from_the_outlets = [&]() {
    const std::uint8_t* const code = routing.receiver_code.data();
    const std::uint8_t* const mask = routing.donor_mask.data();
    std::uint32_t* const count = routing.scratch.label.data();
    part_sum.assign(2 * ed::tile_count(w, h), 0.0);
    ed::for_each_outlet(
        code, w, h, tiles, sc.walks, inner,
        [&](std::uint32_t root, std::size_t tile, std::vector<std::uint32_t>& cells) {
          ed::walk_tree(root, mask, nb, count, cells);
          ed::count_back(cells, code, nb, count);
          const std::size_t size = cells.size();
          double uplift_sum = 0.0, incision_sum = 0.0;
          for (std::size_t k = 1; k < size; ++k) {
            if (k + ed::kAhead < size) {
              const std::uint32_t far = cells[k + ed::kAhead];
              ed::prefetch(&hs[far]);
              ed::prefetch(&count[far]);
              if (uplift_map) ed::prefetch(&uplift_map->data[far]);
            }
            const std::uint32_t c = cells[k];
            const std::uint8_t rc = code[c];
            incise_cell(c, nb.receiver(c, rc), ed::axial_code(rc), double(count[c]) * cell_area,
                        uplift_sum, incision_sum);
          }
          part_sum[2 * tile] += uplift_sum;
          part_sum[2 * tile + 1] += incision_sum;
          return size;
        });
  };
  for (int step = 0; step < params.steps; ++step) {
    ed::check_cancel(ctx);
    compute_flow_routing(heights, params.routing, routing, inner);
    stats.depressions += routing.depressions;
    if (counted) {
      from_the_outlets();
    } else {
      along_the_order();
    }
    double uplift_sum = 0.0, incision_sum = 0.0;
    for (std::size_t p = 0; p < part_sum.size() / 2; ++p) {
      uplift_sum += part_sum[2 * p];
      incision_sum += part_sum[2 * p + 1];
    }
    stats.uplift_m3 += uplift_sum * cell_area;
    stats.incision_m3 += incision_sum * cell_area;
    // Hillslope diffusion; outlets (code 0, moves 0) stay fixed. Rows (then, implicitly,
    // columns) are split over the workers; each cell is written by one.
    if (d_number > 0.0) {
      const std::uint8_t* moves = counted ? routing.receiver_code.data() : sc.moves.data();
      const double before = total_m(hs, w, h, row_sum, inner);
      if (explicit_step) {
        explicit_diffusion(hs, moves, w, h, d_number, diffuse_row_kernel(simd), inner);
      } else {
        implicit_diffusion(hs, moves, w, h, d_number, inner);
      }
      const double after = total_m(hs, w, h, row_sum, inner);
      stats.diffusion_m3 += (after - before) * cell_area;
    }
    ed::report(ctx, double(step + 1) / double(params.steps));
  }
  return stats;
}

}  // namespace terrane
