// Local relief: max - min of the heights in a centred window of about relief_window_m.
//
// The window has 2 r + 1 cells along each axis, r = round(relief_window_m / 2 / cell) (at least
// 1): 92.74 m cells give r = 5, 11 cells = 1020.1 m; 30 m cells 35 cells = 1050 m. Its max and min
// are separable running extrema, each computed with the van Herk / Gil-Werman algorithm (van Herk
// 1992, "A fast algorithm for local minimum and maximum filters on rectangular and octagonal
// kernels"; Gil & Werman 1993): per line, block prefix and suffix extrema over blocks of the
// window's length, then one max of two per sample, O(n) whatever the window. No-data cells take
// part in no window. Windows are clipped at the map's border and the median is over every land cell
// (the reference measurements do the same: keeping only cells whose whole window is inside the map
// reads 0.5 to 9% more on real DEMs).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/huge_pages.hpp"
#include "stats/stats_internal.hpp"

namespace terrane::stats_detail {
namespace {

// out[k] = extremum of in[k - r .. k + r] (clipped to the line) for a line of n samples; Op is
// std::max or std::min on floats, `pad` its identity. scratch holds 2 * (n + 2 r) floats.
template <class Op>
void running_extremum(const float* in, std::ptrdiff_t stride, int n, int r, float pad, Op op,
                      float* out, std::ptrdiff_t out_stride, std::vector<float>& scratch) {
  const int len = 2 * r + 1;
  const int m = n + 2 * r;  // padded line
  scratch.resize(2 * std::size_t(m));
  float* prefix = scratch.data();
  float* suffix = prefix + m;
  auto at = [&](int k) {  // padded index k -> sample k - r
    const int s = k - r;
    return (s < 0 || s >= n) ? pad : in[std::ptrdiff_t(s) * stride];
  };
  for (int b = 0; b < m; b += len) {
    const int e = std::min(b + len, m);
    prefix[b] = at(b);
    for (int k = b + 1; k < e; ++k) prefix[k] = op(prefix[k - 1], at(k));
    suffix[e - 1] = at(e - 1);
    for (int k = e - 2; k >= b; --k) suffix[k] = op(suffix[k + 1], at(k));
  }
  // Window of sample s: padded [s, s + 2r].
  for (int s = 0; s < n; ++s)
    out[std::ptrdiff_t(s) * out_stride] = op(suffix[s], prefix[s + 2 * r]);
}

}  // namespace

void measure_local_relief(const Prepared& p, TerrainStats& out, const ExecContext& ctx) {
  const StatsGrid& g = *p.grid;
  const int w = g.width, h = g.height;
  const double half = p.params->relief_window_m / 2.0;
  const int rx = std::max(1, int(std::lround(half / g.cell_x_m)));
  const int rz = std::max(1, int(std::lround(half / g.cell_z_m)));
  out.relief_window_x_m = double(2 * rx + 1) * g.cell_x_m;
  out.relief_window_z_m = double(2 * rz + 1) * g.cell_z_m;
  if (p.land_cells == 0) {
    out.local_relief_m = stat_none("no land");
    return;
  }
  if (w < 2 * rx + 1 || h < 2 * rz + 1) {
    out.local_relief_m =
        stat_none("the map is " + std::to_string(w) + " x " + std::to_string(h) +
                  " cells; the relief window of " + num(out.relief_window_x_m) + " x " +
                  num(out.relief_window_z_m) + " m needs " + std::to_string(2 * rx + 1) + " x " +
                  std::to_string(2 * rz + 1) + " cells");
    return;
  }
  const std::size_t n = p.cells();
  // NaN takes part in no window: it becomes the identity of each pass (-inf for max, +inf for min).
  std::vector<float> hi, lo, tmp_hi, tmp_lo;
  for (std::vector<float>* v : {&hi, &lo, &tmp_hi, &tmp_lo}) core_detail::resize_huge(*v, n, &ctx);
  const float* hs = g.heights.data();
  auto fmax = [](float a, float b) { return a > b ? a : b; };
  auto fmin = [](float a, float b) { return a < b ? a : b; };
  // Rows (along i).
  parallel_for(ctx, h, 8, [&](std::int64_t j0, std::int64_t j1) {
    std::vector<float> scratch;
    std::vector<float> line(static_cast<std::size_t>(w));
    for (std::int64_t j = j0; j < j1; ++j) {
      const float* row = hs + std::size_t(j) * std::size_t(w);
      for (int i = 0; i < w; ++i) line[std::size_t(i)] = std::isnan(row[i]) ? -INFINITY : row[i];
      running_extremum(line.data(), 1, w, rx, -INFINITY, fmax,
                       tmp_hi.data() + std::size_t(j) * std::size_t(w), 1, scratch);
      for (int i = 0; i < w; ++i) line[std::size_t(i)] = std::isnan(row[i]) ? INFINITY : row[i];
      running_extremum(line.data(), 1, w, rx, INFINITY, fmin,
                       tmp_lo.data() + std::size_t(j) * std::size_t(w), 1, scratch);
    }
  });
  // Columns (along j).
  parallel_for(ctx, w, 8, [&](std::int64_t i0, std::int64_t i1) {
    std::vector<float> scratch;
    for (std::int64_t i = i0; i < i1; ++i) {
      running_extremum(tmp_hi.data() + i, w, h, rz, -INFINITY, fmax, hi.data() + i, w, scratch);
      running_extremum(tmp_lo.data() + i, w, h, rz, INFINITY, fmin, lo.data() + i, w, scratch);
    }
  });
  // The relief of each land cell (NaN elsewhere), into tmp_hi, no longer needed.
  std::vector<float>& relief = tmp_hi;
  parallel_for(ctx, std::int64_t(n), std::int64_t(1) << 16, [&](std::int64_t c0, std::int64_t c1) {
    for (auto c = std::size_t(c0); c < std::size_t(c1); ++c) {
      relief[c] = p.land[c] ? hi[c] - lo[c] : std::numeric_limits<float>::quiet_NaN();
    }
  });
  const RankSelect values(relief, ctx);
  if (values.count() == 0) {
    out.local_relief_m = stat_none("no land");
    return;
  }
  out.local_relief_m = stat_value(values.percentile(50.0));
}

}  // namespace terrane::stats_detail
