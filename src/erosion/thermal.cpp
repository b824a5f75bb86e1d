// Thermal (talus) erosion.
//
// Model: Musgrave, Kolb & Mace 1989, "The synthesis and rendering of eroded fractal terrains"
// (SIGGRAPH '89): material slides to lower neighbours while the height difference exceeds the
// talus threshold. Transfer rule after Olsen 2004, "Realtime procedural terrain generation":
// a cell moves half of its largest excess (times `strength`), split between its downhill
// neighbours in proportion to their excess, so it never overshoots its steepest neighbour.
//
// Race-free formulation (the two passes are fused per band of rows, see band()): pass 1 computes,
// from the old heights only, one factor per cell f = strength * 0.5 * max_excess / sum_excess. Pass
// 2 gathers into a second buffer: each cell subtracts f * e for each of its own excesses and adds
// f_n * e_n for each neighbour's excess towards it, all recomputed from the old heights with the
// same expression, so the amount a cell gives and the amount its neighbour receives are the same
// float. Both passes write only their own cell: any split over threads gives the same bits.
//
// Boundary: the field is surrounded by a ring of huge heights with factor 0, which never gives
// or receives (closed boundary, volume conserved).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <thread>
#include <vector>

#include "core/huge_pages.hpp"
#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;

std::span<const Field<ThermalParams>> ThermalParams::fields() {
  using P = ThermalParams;
  static const Field<P> table[] = {
      {"talus_deg", TERRANE_FIELD_REF(P, talus_deg), Range::open_hi(0.0, 90.0)},
      {"strength", TERRANE_FIELD_REF(P, strength), Range::open_lo(0.0, 1.0)},
      {"iterations", TERRANE_FIELD_REF(P, iterations), Range::closed(0, kMaxThermalIterations)},
  };
  return table;
}

void ThermalParams::validate(std::string_view path) const {
  check_fields(*this, fields(), path);
}

namespace {

// Height of the padding ring: above any terrain, small enough that (pad - h) stays finite and
// pad * 0 == 0.
constexpr float kPad = 1.0e30f;

struct Excess {
  float axial;
  float diagonal;
};

// By value and branch-free (a < b ? b : a, as std::max) so the row loops vectorise.
inline float max2(float a, float b) {
  return a < b ? b : a;
}
inline float excess(float a, float b, float t) {
  return max2((a - b) - t, 0.0f);
}

// Pass 1 over one padded row: f for cells 1..w of row `r` (padded coordinates).
[[gnu::always_inline]] inline void factors_row(const float* up, const float* mid, const float* dn,
                                               float* f, int w, Excess t, float half_strength) {
  for (int i = 1; i <= w; ++i) {
    const float h = mid[i];
    const float e0 = excess(h, mid[i + 1], t.axial);
    const float e1 = excess(h, mid[i - 1], t.axial);
    const float e2 = excess(h, dn[i], t.axial);
    const float e3 = excess(h, up[i], t.axial);
    const float e4 = excess(h, dn[i + 1], t.diagonal);
    const float e5 = excess(h, dn[i - 1], t.diagonal);
    const float e6 = excess(h, up[i + 1], t.diagonal);
    const float e7 = excess(h, up[i - 1], t.diagonal);
    const float sum = ((e0 + e1) + (e2 + e3)) + ((e4 + e5) + (e6 + e7));
    const float mx = max2(max2(max2(e0, e1), max2(e2, e3)), max2(max2(e4, e5), max2(e6, e7)));
    // sum == 0 implies mx == 0: 0 / FLT_MIN = 0. Otherwise sum >= mx > 0.
    f[i] = (half_strength * mx) / max2(sum, 1.17549435e-38f);
  }
}

// Pass 2 over one padded row: new heights of cells 1..w.
[[gnu::always_inline]] inline void gather_row(const float* hu, const float* hm, const float* hd,
                                              const float* fu, const float* fm, const float* fd,
                                              float* out, int w, Excess t) {
  for (int i = 1; i <= w; ++i) {
    const float h = hm[i];
    const float fc = fm[i];
    // Given away: the same products pass 1's neighbours will count as received.
    const float give =
        ((fc * excess(h, hm[i + 1], t.axial) + fc * excess(h, hm[i - 1], t.axial)) +
         (fc * excess(h, hd[i], t.axial) + fc * excess(h, hu[i], t.axial))) +
        ((fc * excess(h, hd[i + 1], t.diagonal) + fc * excess(h, hd[i - 1], t.diagonal)) +
         (fc * excess(h, hu[i + 1], t.diagonal) + fc * excess(h, hu[i - 1], t.diagonal)));
    const float take =
        ((fm[i + 1] * excess(hm[i + 1], h, t.axial) + fm[i - 1] * excess(hm[i - 1], h, t.axial)) +
         (fd[i] * excess(hd[i], h, t.axial) + fu[i] * excess(hu[i], h, t.axial))) +
        ((fd[i + 1] * excess(hd[i + 1], h, t.diagonal) +
          fd[i - 1] * excess(hd[i - 1], h, t.diagonal)) +
         (fu[i + 1] * excess(hu[i + 1], h, t.diagonal) +
          fu[i - 1] * excess(hu[i - 1], h, t.diagonal)));
    out[i] = (h - give) + take;
  }
}

// One iteration over padded rows [j0, j1) of `cur` into `next`, fused: the factors of rows
// j0 - 1 .. j1 go through a ring of three rows (`ring`, 3 * (w + 2) floats) instead of a full
// field, so each band reads its heights once per iteration. A band recomputes the factors of
// the rows just outside it with the same expression, so any split into bands gives the same
// bits. Padding rows (0 and h + 1) have factor 0.
[[gnu::always_inline]] inline void band(const float* cur, float* next, float* ring, std::size_t pw,
                                        int w, int h, int j0, int j1, Excess t,
                                        float half_strength) {
  const auto frow = [&](int j) { return ring + std::size_t((j + 3) % 3) * pw; };
  const auto factors_of = [&](int j) {
    float* f = frow(j);
    f[0] = 0.0f;
    f[pw - 1] = 0.0f;
    if (j < 1 || j > h) {
      for (std::size_t i = 1; i + 1 < pw; ++i) f[i] = 0.0f;
      return;
    }
    const float* m = cur + std::size_t(j) * pw;
    factors_row(m - pw, m, m + pw, f, w, t, half_strength);
  };
  factors_of(j0 - 1);
  factors_of(j0);
  for (int j = j0; j < j1; ++j) {
    factors_of(j + 1);
    const float* m = cur + std::size_t(j) * pw;
    gather_row(m - pw, m, m + pw, frow(j - 1), frow(j), frow(j + 1), next + std::size_t(j) * pw, w,
               t);
  }
}

// The band kernel compiled for the baseline x86-64 target (SSE2), AVX2 and AVX-512, chosen by
// terrane's SIMD setting. They are the same IEEE operations in the same order (no FMA: the
// project builds with -ffp-contract=off), so all give the same bits; tests check it.
using BandKernel = void (*)(const float*, float*, float*, std::size_t, int, int, int, int, Excess,
                            float);

void band_base(const float* cur, float* next, float* ring, std::size_t pw, int w, int h, int j0,
               int j1, Excess t, float s) {
  band(cur, next, ring, pw, w, h, j0, j1, t, s);
}
#if defined(__x86_64__)
[[gnu::target("avx2")]] void band_avx2(const float* cur, float* next, float* ring, std::size_t pw,
                                       int w, int h, int j0, int j1, Excess t, float s) {
  band(cur, next, ring, pw, w, h, j0, j1, t, s);
}
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,avx2")]] void band_avx3(const float* cur,
                                                                          float* next, float* ring,
                                                                          std::size_t pw, int w,
                                                                          int h, int j0, int j1,
                                                                          Excess t, float s) {
  band(cur, next, ring, pw, w, h, j0, j1, t, s);
}
#endif

BandKernel band_kernel([[maybe_unused]] SimdTarget target) {
#if defined(__x86_64__)
  if (target == SimdTarget::avx3) return band_avx3;
  if (target == SimdTarget::avx2) return band_avx2;
#endif
  return band_base;
}

}  // namespace

void thermal_erosion(Field2D& heights, const ThermalParams& params, const ExecContext& ctx) {
  params.validate();
  heights.grid.validate("thermal_erosion heights");
  if (heights.data.size() != heights.grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                "thermal_erosion: heights.data has " + std::to_string(heights.data.size()) +
                    " samples, the grid needs " + std::to_string(heights.grid.sample_count()));
  }
  const BandKernel kernel = band_kernel(resolved_simd_target(ctx));  // refuses unsupported first
  if (params.iterations == 0) return;
  const int w = heights.grid.width, h = heights.grid.height;
  const std::size_t pw = std::size_t(w) + 2;
  const double tan_talus = std::tan(params.talus_deg * (std::numbers::pi / 180.0));
  const Excess t{float(tan_talus * heights.grid.spacing_m),
                 float(tan_talus * heights.grid.spacing_m * std::numbers::sqrt2)};
  const float half_strength = float(0.5 * params.strength);

  const std::size_t padded = pw * (std::size_t(h) + 2);
  std::vector<float> cur, next;
  core_detail::assign_huge(cur, padded, kPad, &ctx);
  core_detail::assign_huge(next, padded, kPad, &ctx);
  for (int j = 0; j < h; ++j) {
    std::memcpy(&cur[(std::size_t(j) + 1) * pw + 1], heights.row(j).data(), sizeof(float) * w);
  }
  const ExecContext inner = ed::quiet(ctx);
  // Bands of rows: enough for the workers to balance, long enough that the two recomputed halo
  // rows per band stay cheap. The split never changes the result.
  const int workers =
      ctx.threads > 0 ? ctx.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  const int band_rows = std::max(8, (h + 4 * workers - 1) / (4 * workers));
  const std::int64_t bands = (h + band_rows - 1) / band_rows;
  for (int it = 0; it < params.iterations; ++it) {
    ed::check_cancel(ctx);
    parallel_for(inner, bands, 1, [&](std::int64_t b, std::int64_t e) {
      std::vector<float> ring(3 * pw);
      for (std::int64_t k = b; k < e; ++k) {
        const int j0 = 1 + int(k) * band_rows, j1 = std::min(h + 1, j0 + band_rows);
        kernel(cur.data(), next.data(), ring.data(), pw, w, h, j0, j1, t, half_strength);
      }
    });
    cur.swap(next);
    ed::report(ctx, double(it + 1) / double(params.iterations));
  }
  for (int j = 0; j < h; ++j) {
    std::memcpy(heights.row(j).data(), &cur[(std::size_t(j) + 1) * pw + 1], sizeof(float) * w);
  }
}

}  // namespace terrane
