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
// 2 gathers the new height: each cell subtracts f * e for each of its own excesses and adds
// f_n * e_n for each neighbour's excess towards it, all recomputed from the old heights with the
// same expression, so the amount a cell gives and the amount its neighbour receives are the same
// float. Both passes write only their own cell: any split over threads gives the same bits. The
// new heights are written in place, each row once the old heights the band still reads are held
// in a few rows of its own (and each band's neighbouring rows were copied before any band wrote):
// no second map.
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

// Pass 2 over one padded row: new heights of cells 1..w, into out[0, w).
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
    out[i - 1] = (h - give) + take;
  }
}

// One iteration over map rows [j0, j1) of `hs` (w wide), in place. A row's old heights are read
// into a ring of four padded rows (pw = w + 2 floats each, kPad at both ends) before the row
// two above it is rewritten, so the band reads each old row once; the rows just outside the
// band come from `halo` (rows j0 - 2, j0 - 1, j1, j1 + 1, padded; copied before any band of
// this iteration wrote), and rows beyond the map are `pad` (kPad throughout). The factors of
// rows j0 - 1 .. j1 go through a ring of three rows; a band recomputes those of the rows just
// outside it with the same expression, so any split into bands gives the same bits. `ring`
// holds 4 + 3 padded rows (old heights, factors).
[[gnu::always_inline]] inline void band(float* hs, const float* halo, const float* pad, float* ring,
                                        std::size_t pw, int w, int h, int j0, int j1, Excess t,
                                        float half_strength) {
  const std::size_t sw = std::size_t(w);
  float* const rows = ring;            // old heights of row j at (j mod 4)
  float* const frows = ring + 4 * pw;  // factors of row j at (j mod 3)
  const auto old = [&](int j) -> const float* {
    if (j < 0 || j >= h) return pad;
    if (j < j0) return halo + std::size_t(j - (j0 - 2)) * pw;
    if (j >= j1) return halo + std::size_t(2 + j - j1) * pw;
    return rows + std::size_t((j + 4) % 4) * pw;
  };
  const auto load = [&](int j) {
    if (j < j0 || j >= j1 || j >= h) return;  // from the halo or the padding
    float* r = rows + std::size_t(j % 4) * pw;
    r[0] = kPad;
    std::memcpy(r + 1, hs + std::size_t(j) * sw, sizeof(float) * sw);
    r[pw - 1] = kPad;
  };
  const auto frow = [&](int j) { return frows + std::size_t((j + 3) % 3) * pw; };
  const auto factors_of = [&](int j) {
    float* f = frow(j);
    f[0] = 0.0f;
    f[pw - 1] = 0.0f;
    if (j < 0 || j >= h) {
      for (std::size_t i = 1; i + 1 < pw; ++i) f[i] = 0.0f;
      return;
    }
    factors_row(old(j - 1), old(j), old(j + 1), f, w, t, half_strength);
  };
  load(j0);
  load(j0 + 1);
  factors_of(j0 - 1);
  factors_of(j0);
  for (int j = j0; j < j1; ++j) {
    load(j + 2);  // overwrites row j - 2's old heights, which nothing reads again
    factors_of(j + 1);
    gather_row(old(j - 1), old(j), old(j + 1), frow(j - 1), frow(j), frow(j + 1),
               hs + std::size_t(j) * sw, w, t);
  }
}

// The band kernel compiled for the baseline x86-64 target (SSE2), AVX2 and AVX-512, chosen by
// terrane's SIMD setting. They are the same IEEE operations in the same order (no FMA: the
// project builds with -ffp-contract=off), so all give the same bits; tests check it.
using BandKernel = void (*)(float*, const float*, const float*, float*, std::size_t, int, int, int,
                            int, Excess, float);

void band_base(float* hs, const float* halo, const float* pad, float* ring, std::size_t pw, int w,
               int h, int j0, int j1, Excess t, float s) {
  band(hs, halo, pad, ring, pw, w, h, j0, j1, t, s);
}
#if defined(__x86_64__)
[[gnu::target("avx2")]] void band_avx2(float* hs, const float* halo, const float* pad, float* ring,
                                       std::size_t pw, int w, int h, int j0, int j1, Excess t,
                                       float s) {
  band(hs, halo, pad, ring, pw, w, h, j0, j1, t, s);
}
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,avx2")]] void band_avx3(
    float* hs, const float* halo, const float* pad, float* ring, std::size_t pw, int w, int h,
    int j0, int j1, Excess t, float s) {
  band(hs, halo, pad, ring, pw, w, h, j0, j1, t, s);
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

  const ExecContext inner = ed::quiet(ctx);
  // Bands of rows: enough for the workers to balance, long enough that the two recomputed halo
  // rows per band stay cheap. The split never changes the result.
  const int workers =
      ctx.threads > 0 ? ctx.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  const int band_rows = std::max(8, (h + 4 * workers - 1) / (4 * workers));
  const std::int64_t bands = (h + band_rows - 1) / band_rows;
  // Each band's halo: the two rows above it and the two below, padded, copied from the old
  // heights before any band rewrites them.
  std::vector<float> halos(std::size_t(bands) * 4 * pw), pad(pw, kPad);
  float* const hs = heights.data.data();
  const std::size_t sw = std::size_t(w);
  for (int it = 0; it < params.iterations; ++it) {
    ed::check_cancel(ctx);
    parallel_for(inner, bands, 1, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t k = b; k < e; ++k) {
        const int j0 = int(k) * band_rows, j1 = std::min(h, j0 + band_rows);
        const int halo_rows[4] = {j0 - 2, j0 - 1, j1, j1 + 1};
        for (int r = 0; r < 4; ++r) {
          float* dst = halos.data() + (std::size_t(k) * 4 + std::size_t(r)) * pw;
          const int j = halo_rows[r];
          if (j < 0 || j >= h) {
            std::fill(dst, dst + pw, kPad);
            continue;
          }
          dst[0] = kPad;
          std::memcpy(dst + 1, hs + std::size_t(j) * sw, sizeof(float) * sw);
          dst[pw - 1] = kPad;
        }
      }
    });
    parallel_for(inner, bands, 1, [&](std::int64_t b, std::int64_t e) {
      std::vector<float> ring(7 * pw);
      for (std::int64_t k = b; k < e; ++k) {
        const int j0 = int(k) * band_rows, j1 = std::min(h, j0 + band_rows);
        kernel(hs, halos.data() + std::size_t(k) * 4 * pw, pad.data(), ring.data(), pw, w, h, j0,
               j1, t, half_strength);
      }
    });
    ed::report(ctx, double(it + 1) / double(params.iterations));
  }
}

}  // namespace terrane
