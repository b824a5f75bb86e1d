// Thermal (talus) erosion.
//
// Model: Musgrave, Kolb & Mace 1989, "The synthesis and rendering of eroded fractal terrains"
// (SIGGRAPH '89): material slides to lower neighbours while the height difference exceeds the
// talus threshold. Transfer rule after Olsen 2004, "Realtime procedural terrain generation":
// a cell moves half of its largest excess (times `strength`), split between its downhill
// neighbours in proportion to their excess, so it never overshoots its steepest neighbour.
//
// Race-free formulation: pass 1 computes, from the old heights only, one factor per cell
// f = strength * 0.5 * max_excess / sum_excess. Pass 2 gathers into a second buffer: each cell
// subtracts f * e for each of its own excesses and adds f_n * e_n for each neighbour's excess
// towards it, all recomputed from the old heights with the same expression, so the amount a
// cell gives and the amount its neighbour receives are the same float. Both passes write only
// their own cell: any split over threads gives the same bits.
//
// Boundary: the field is surrounded by a ring of huge heights with factor 0, which never gives
// or receives (closed boundary, volume conserved).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;

void ThermalParams::validate(std::string_view path) const {
  ed::check_range(path, "talus_deg", talus_deg, 0.0, 90.0, false, true);
  ed::check_range(path, "strength", strength, 0.0, 1.0, true, false);
  ed::check_int(path, "iterations", iterations, 0, kMaxThermalIterations);
}

namespace {

// Height of the padding ring: above any terrain, small enough that (pad - h) stays finite and
// pad * 0 == 0.
constexpr float kPad = 1.0e30f;

struct Excess {
  float axial;
  float diagonal;
};

inline float excess(float a, float b, float t) { return std::max((a - b) - t, 0.0f); }

// Pass 1 over one padded row: f for cells 1..w of row `r` (padded coordinates).
[[gnu::always_inline]] inline void factors_row(const float* up, const float* mid, const float* dn, float* f, int w, Excess t,
                 float half_strength) {
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
    const float mx = std::max(std::max(std::max(e0, e1), std::max(e2, e3)),
                              std::max(std::max(e4, e5), std::max(e6, e7)));
    // sum == 0 implies mx == 0: 0 / FLT_MIN = 0. Otherwise sum >= mx > 0.
    f[i] = (half_strength * mx) / std::max(sum, 1.17549435e-38f);
  }
}

// Pass 2 over one padded row: new heights of cells 1..w.
[[gnu::always_inline]] inline void gather_row(const float* hu, const float* hm, const float* hd, const float* fu, const float* fm,
                const float* fd, float* out, int w, Excess t) {
  for (int i = 1; i <= w; ++i) {
    const float h = hm[i];
    const float fc = fm[i];
    // Given away: the same products pass 1's neighbours will count as received.
    const float give = ((fc * excess(h, hm[i + 1], t.axial) + fc * excess(h, hm[i - 1], t.axial)) +
                        (fc * excess(h, hd[i], t.axial) + fc * excess(h, hu[i], t.axial))) +
                       ((fc * excess(h, hd[i + 1], t.diagonal) + fc * excess(h, hd[i - 1], t.diagonal)) +
                        (fc * excess(h, hu[i + 1], t.diagonal) + fc * excess(h, hu[i - 1], t.diagonal)));
    const float take =
        ((fm[i + 1] * excess(hm[i + 1], h, t.axial) + fm[i - 1] * excess(hm[i - 1], h, t.axial)) +
         (fd[i] * excess(hd[i], h, t.axial) + fu[i] * excess(hu[i], h, t.axial))) +
        ((fd[i + 1] * excess(hd[i + 1], h, t.diagonal) + fd[i - 1] * excess(hd[i - 1], h, t.diagonal)) +
         (fu[i + 1] * excess(hu[i + 1], h, t.diagonal) + fu[i - 1] * excess(hu[i - 1], h, t.diagonal)));
    out[i] = (h - give) + take;
  }
}

// The row kernels compiled twice: for the baseline x86-64 target (SSE2) and for AVX2, chosen by
// terrane's SIMD setting. They are the same IEEE operations in the same order (no FMA: the
// project builds with -ffp-contract=off), so both give the same bits; tests check it.
struct RowKernels {
  void (*factors)(const float*, const float*, const float*, float*, int, Excess, float);
  void (*gather)(const float*, const float*, const float*, const float*, const float*,
                 const float*, float*, int, Excess);
};

void factors_base(const float* u, const float* m, const float* d, float* f, int w, Excess t, float s) {
  factors_row(u, m, d, f, w, t, s);
}
void gather_base(const float* hu, const float* hm, const float* hd, const float* fu, const float* fm,
                 const float* fd, float* out, int w, Excess t) {
  gather_row(hu, hm, hd, fu, fm, fd, out, w, t);
}
#if defined(__x86_64__)
[[gnu::target("avx2")]] void factors_avx2(const float* u, const float* m, const float* d, float* f,
                                          int w, Excess t, float s) {
  factors_row(u, m, d, f, w, t, s);
}
[[gnu::target("avx2")]] void gather_avx2(const float* hu, const float* hm, const float* hd,
                                         const float* fu, const float* fm, const float* fd,
                                         float* out, int w, Excess t) {
  gather_row(hu, hm, hd, fu, fm, fd, out, w, t);
}
#endif

RowKernels row_kernels() {
#if defined(__x86_64__)
  const SimdTarget target = resolved_simd_target();
  if (target == SimdTarget::avx2 || target == SimdTarget::avx3) return {factors_avx2, gather_avx2};
#endif
  return {factors_base, gather_base};
}

}  // namespace

void thermal_erosion(Field2D& heights, const ThermalParams& params, const ExecContext& ctx) {
  params.validate();
  heights.grid.validate("thermal_erosion heights");
  if (heights.data.size() != heights.grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument, "thermal_erosion: heights.data has " +
                                                     std::to_string(heights.data.size()) +
                                                     " samples, the grid needs " +
                                                     std::to_string(heights.grid.sample_count()));
  }
  if (params.iterations == 0) return;
  const int w = heights.grid.width, h = heights.grid.height;
  const std::size_t pw = std::size_t(w) + 2;
  const double tan_talus = std::tan(params.talus_deg * (std::numbers::pi / 180.0));
  const Excess t{float(tan_talus * heights.grid.spacing_m),
                 float(tan_talus * heights.grid.spacing_m * std::numbers::sqrt2)};
  const float half_strength = float(0.5 * params.strength);

  const std::size_t padded = pw * (std::size_t(h) + 2);
  std::vector<float> cur(padded, kPad), next(padded, kPad), f(padded, 0.0f);
  for (int j = 0; j < h; ++j) {
    std::memcpy(&cur[(std::size_t(j) + 1) * pw + 1], heights.row(j).data(), sizeof(float) * w);
  }
  const ExecContext inner = ed::quiet(ctx);
  const RowKernels kernels = row_kernels();
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max(1, w));
  for (int it = 0; it < params.iterations; ++it) {
    ed::check_cancel(ctx);
    parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t j = b + 1; j <= e; ++j) {
        const std::size_t r = std::size_t(j) * pw;
        kernels.factors(&cur[r - pw], &cur[r], &cur[r + pw], &f[r], w, t, half_strength);
      }
    });
    parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t j = b + 1; j <= e; ++j) {
        const std::size_t r = std::size_t(j) * pw;
        kernels.gather(&cur[r - pw], &cur[r], &cur[r + pw], &f[r - pw], &f[r], &f[r + pw], &next[r],
                   w, t);
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
