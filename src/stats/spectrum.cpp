// Spectral exponent of the height field: P(k) ~ k^-beta.
//
// The least-squares plane is removed (no-data cells are set to the plane, so they add nothing),
// the residual is multiplied by a 2-D Hann window (numpy.hanning along each axis), zero-padded
// to sizes with small prime factors (KISS FFT is fast only for those; the window already takes
// the data to zero at the edges, so padding only interpolates the spectrum), and transformed
// (KISS FFT, float: a real FFT per row, then a complex FFT per column). The radial average:
// |F|^2 at every wavenumber k = |(kx, kz)| (cycles per metre) between 1 / (L / 4) and 1 / (8
// cells), L the shorter side of the map in metres and the cell the coarser one, falls into one
// of 20 logarithmically equal bins of that range; log10 of the bin's mean power is fitted
// against log10 of its mean k by least squares, and beta is minus the slope. (Linear rings of
// width 1 / L weight the short wavelengths far more and read 0.1 to 0.9 higher on real DEMs;
// the 20 log bins reproduce the reference measurements, docs/REALISM.md.) The profile exponent:
// mean power of the 1-D spectra of the rows (Hann window along the row) and of the columns,
// binned into the same rings: the ring means of the two directions are averaged.
// (Perron, Kirchner & Dietrich 2008, "Spectral signatures of characteristic spatial scales and
// nonfractal structure in landscapes", JGR 113, F04003, for the method.)
#include <kiss_fft.h>
#include <kiss_fftr.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>

#include "core/huge_pages.hpp"
#include "stats/stats_internal.hpp"

namespace terrane::stats_detail {
namespace {

struct FftrDeleter {
  void operator()(kiss_fftr_cfg c) const { kiss_fftr_free(c); }
};
struct FftDeleter {
  void operator()(kiss_fft_cfg c) const { kiss_fft_free(c); }
};
using FftrPtr = std::unique_ptr<std::remove_pointer_t<kiss_fftr_cfg>, FftrDeleter>;
using FftPtr = std::unique_ptr<std::remove_pointer_t<kiss_fft_cfg>, FftDeleter>;

FftrPtr make_fftr(int n) {
  FftrPtr p(kiss_fftr_alloc(n, 0, nullptr, nullptr));
  if (!p) throw Error(ErrorCategory::internal, "spectrum: kiss_fftr_alloc failed");
  return p;
}
FftPtr make_fft(int n) {
  FftPtr p(kiss_fft_alloc(n, 0, nullptr, nullptr));
  if (!p) throw Error(ErrorCategory::internal, "spectrum: kiss_fft_alloc failed");
  return p;
}

std::vector<double> hann(int n) {  // numpy.hanning(n)
  std::vector<double> w(std::size_t(n), 1.0);
  if (n > 1) {
    for (int k = 0; k < n; ++k) {
      w[std::size_t(k)] = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * k / double(n - 1));
    }
  }
  return w;
}

// Residual of the least-squares plane over the finite cells (0 at no-data), in double.
// Rows per block of the spectrum's sums: blocks summed on every worker, then in block order.
constexpr int kBlockRows = 16;

std::vector<double> detrended(const StatsGrid& g, const ExecContext& ctx) {
  const int w = g.width, h = g.height;
  const double ci = (w - 1) / 2.0, cj = (h - 1) / 2.0;
  // Normal equations of z = a + b x + c y with centred x, y.
  struct Sums {
    double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, sz = 0, sxz = 0, syz = 0;
  };
  std::vector<Sums> blocks(std::size_t((h + kBlockRows - 1) / kBlockRows));
  for_row_blocks(ctx, h, kBlockRows, [&](std::size_t b, int j0, int j1) {
    Sums s;
    for (int j = j0; j < j1; ++j) {
      for (int i = 0; i < w; ++i) {
        const float v = g.heights[std::size_t(j) * std::size_t(w) + std::size_t(i)];
        if (std::isnan(v)) continue;
        const double x = i - ci, y = j - cj, z = v;
        s.n += 1;
        s.sx += x;
        s.sy += y;
        s.sxx += x * x;
        s.syy += y * y;
        s.sxy += x * y;
        s.sz += z;
        s.sxz += x * z;
        s.syz += y * z;
      }
    }
    blocks[b] = s;
  });
  double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, sz = 0, sxz = 0, syz = 0;
  for (const Sums& s : blocks) {
    n += s.n;
    sx += s.sx;
    sy += s.sy;
    sxx += s.sxx;
    syy += s.syy;
    sxy += s.sxy;
    sz += s.sz;
    sxz += s.sxz;
    syz += s.syz;
  }
  // Solve the 3x3 system by Cramer's rule.
  const double m[3][3] = {{n, sx, sy}, {sx, sxx, sxy}, {sy, sxy, syy}};
  const double r[3] = {sz, sxz, syz};
  auto det3 = [](const double a[3][3]) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
           a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  };
  const double d = det3(m);
  double coef[3] = {n > 0 ? sz / n : 0.0, 0.0, 0.0};
  if (std::abs(d) > 0.0) {
    for (int k = 0; k < 3; ++k) {
      double mk[3][3];
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) mk[a][b] = b == k ? r[a] : m[a][b];
      }
      coef[k] = det3(mk) / d;
    }
  }
  std::vector<double> out;
  core_detail::resize_huge(out, std::size_t(w) * std::size_t(h), &ctx);
  parallel_for(ctx, h, 16, [&](std::int64_t j0, std::int64_t j1) {
    for (int j = int(j0); j < int(j1); ++j) {
      for (int i = 0; i < w; ++i) {
        const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
        const float v = g.heights[c];
        out[c] =
            std::isnan(v) ? 0.0 : double(v) - (coef[0] + coef[1] * (i - ci) + coef[2] * (j - cj));
      }
    }
  });
  return out;
}

// Logarithmic wavenumber bins: kBins per fit range [k_lo, k_hi), extended by the same width
// below and above it (for the charts). Each bin keeps the sums of k, power and weight.
constexpr int kBins = 20;
struct LogBins {
  double k_lo, k_hi, per_bin;  // log10 width of a bin
  int first;                   // bin index of bins[0] (negative: below the fit range)
  std::vector<double> k, power, weight;
  LogBins(double lo, double hi, double k_min, double k_max)
      : k_lo(lo), k_hi(hi), per_bin(std::log10(hi / lo) / kBins) {
    first = int(std::floor(std::log10(k_min / lo) / per_bin));
    const int last = int(std::floor(std::log10(k_max / lo) / per_bin));
    const std::size_t n = std::size_t(std::max(1, last - first + 1));
    k.assign(n, 0.0);
    power.assign(n, 0.0);
    weight.assign(n, 0.0);
  }
  int index(double kk) const {  // numpy.digitize against the fit range's edges, minus 1
    if (kk >= k_lo && kk < k_hi) {
      return std::clamp(int(std::floor(std::log10(kk / k_lo) / per_bin)), 0, kBins - 1);
    }
    return int(std::floor(std::log10(kk / k_lo) / per_bin));
  }
  void add(double kk, double pw, double wt) {
    if (!(kk > 0.0)) return;
    const int b = index(kk) - first;
    if (b < 0 || b >= int(k.size())) return;
    k[std::size_t(b)] += kk * wt;
    power[std::size_t(b)] += pw * wt;
    weight[std::size_t(b)] += wt;
  }
  // Least-squares slope of log10 mean power against log10 mean k over the fit range's bins; NaN
  // with fewer than 3 non-empty bins.
  double fit(double* intercept = nullptr) const {
    std::vector<double> x, y;
    for (std::size_t b = 0; b < k.size(); ++b) {
      const int idx = int(b) + first;
      if (idx < 0 || idx >= kBins || weight[b] <= 0.0 || !(power[b] > 0.0)) continue;
      x.push_back(std::log10(k[b] / weight[b]));
      y.push_back(std::log10(power[b] / weight[b]));
    }
    if (x.size() < 3) return std::numeric_limits<double>::quiet_NaN();
    const double slope = fit_slope(x, y);
    if (intercept != nullptr) {
      double mx = 0.0, my = 0.0;
      for (std::size_t q = 0; q < x.size(); ++q) {
        mx += x[q];
        my += y[q];
      }
      *intercept = (my - slope * mx) / double(x.size());
    }
    return slope;
  }
};

// Mean 1-D power spectrum of the lines of `res` (count lines of n samples, sample k of line l
// at res[l * line_stride + k * stride]) with a Hann window, padded to `padded` (even), added to
// `bins` at k = index / (padded * step).
void line_spectra(const std::vector<double>& res, int lines, int n, std::ptrdiff_t line_stride,
                  std::ptrdiff_t stride, int padded, double step, LogBins& bins,
                  const ExecContext& ctx) {
  const int half = padded / 2 + 1;
  std::vector<double> power;  // every entry written below
  core_detail::resize_huge(power, std::size_t(lines) * std::size_t(half), &ctx);
  const std::vector<double> win = hann(n);
  parallel_for(ctx, lines, 32, [&](std::int64_t l0, std::int64_t l1) {
    FftrPtr cfg = make_fftr(padded);
    std::vector<float> in(static_cast<std::size_t>(padded), 0.0f);
    std::vector<kiss_fft_cpx> out(static_cast<std::size_t>(half));
    for (std::int64_t l = l0; l < l1; ++l) {
      for (int k = 0; k < n; ++k) {
        in[std::size_t(k)] =
            float(res[std::size_t(l * line_stride + k * stride)] * win[std::size_t(k)]);
      }
      kiss_fftr(cfg.get(), in.data(), out.data());
      double* pw = power.data() + std::size_t(l) * std::size_t(half);
      for (int k = 0; k < half; ++k) {
        pw[k] = double(out[std::size_t(k)].r) * out[std::size_t(k)].r +
                double(out[std::size_t(k)].i) * out[std::size_t(k)].i;
      }
    }
  });
  // Each frequency's sum over the lines, in line order; frequencies on every worker.
  std::vector<double> sums(std::size_t(half), 0.0);
  parallel_for(ctx, half, 64, [&](std::int64_t k0, std::int64_t k1) {
    for (int l = 0; l < lines; ++l) {
      const double* pw = power.data() + std::size_t(l) * std::size_t(half);
      for (auto k = std::size_t(k0); k < std::size_t(k1); ++k) sums[k] += pw[k];
    }
  });
  for (int k = 1; k < half; ++k) {
    bins.add(double(k) / (double(padded) * step), sums[std::size_t(k)] / double(lines), 1.0);
  }
}

}  // namespace

void measure_spectrum(const Prepared& p, TerrainStats& out, const ExecContext& ctx) {
  const StatsGrid& g = *p.grid;
  const int w = g.width, h = g.height;
  constexpr int kMinSide = 64;
  const double lx = w * g.cell_x_m, lz = h * g.cell_z_m;
  const double length_m = std::min(lx, lz);
  out.beta_fit_min_m = 8.0 * std::max(g.cell_x_m, g.cell_z_m);
  out.beta_fit_max_m = length_m / 4.0;
  out.spectrum_wavelength_m.clear();
  out.spectrum_power.clear();
  if (w < kMinSide || h < kMinSide) {
    const Stat none = stat_none("the map is " + std::to_string(w) + " x " + std::to_string(h) +
                                " cells; the spectrum needs at least " + std::to_string(kMinSide) +
                                " along each axis");
    out.beta = out.beta_profile = none;
    return;
  }
  if (out.beta_fit_max_m < 2.0 * out.beta_fit_min_m) {
    const Stat none = stat_none("the map's shorter side (" + num(length_m) +
                                " m) gives no wavelengths between 8 cells and a quarter of it");
    out.beta = out.beta_profile = none;
    return;
  }
  const std::vector<double> res = detrended(g, ctx);
  const int nx = kiss_fftr_next_fast_size_real(w);
  const int nz = kiss_fft_next_fast_size(h);
  const int half = nx / 2 + 1;
  const double k_lo = 1.0 / out.beta_fit_max_m, k_hi = 1.0 / out.beta_fit_min_m;
  const double k_max = std::hypot(0.5 / g.cell_x_m, 0.5 / g.cell_z_m);
  const double k_min = 1.0 / (std::max(nx * g.cell_x_m, nz * g.cell_z_m));
  // 2-D: rows (real FFT of length nx), then columns (complex FFT of length nz).
  std::vector<kiss_fft_cpx> spec;
  core_detail::resize_huge(spec, std::size_t(h) * std::size_t(half), &ctx);
  {
    const std::vector<double> wx = hann(w), wz = hann(h);
    parallel_for(ctx, h, 16, [&](std::int64_t j0, std::int64_t j1) {
      FftrPtr cfg = make_fftr(nx);
      std::vector<float> in(static_cast<std::size_t>(nx), 0.0f);
      for (std::int64_t j = j0; j < j1; ++j) {
        for (int i = 0; i < w; ++i) {
          const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
          in[std::size_t(i)] = float(res[c] * wx[std::size_t(i)] * wz[std::size_t(j)]);
        }
        kiss_fftr(cfg.get(), in.data(), spec.data() + std::size_t(j) * std::size_t(half));
      }
    });
  }
  std::vector<float> power;  // [kz][kx], every entry written below
  core_detail::resize_huge(power, std::size_t(nz) * std::size_t(half), &ctx);
  parallel_for(ctx, half, 16, [&](std::int64_t k0, std::int64_t k1) {
    FftPtr cfg = make_fft(nz);
    std::vector<kiss_fft_cpx> in(static_cast<std::size_t>(nz), kiss_fft_cpx{0.0f, 0.0f}),
        o(static_cast<std::size_t>(nz));
    for (std::int64_t kx = k0; kx < k1; ++kx) {
      for (int j = 0; j < h; ++j)
        in[std::size_t(j)] = spec[std::size_t(j) * std::size_t(half) + std::size_t(kx)];
      kiss_fft(cfg.get(), in.data(), o.data());
      for (int kz = 0; kz < nz; ++kz) {
        const kiss_fft_cpx v = o[std::size_t(kz)];
        power[std::size_t(kz) * std::size_t(half) + std::size_t(kx)] = v.r * v.r + v.i * v.i;
      }
    }
  });
  spec.clear();
  spec.shrink_to_fit();
  // Radial bins per block of kz rows on every worker, then added in block order.
  std::vector<LogBins> block_bins(std::size_t((nz + kBlockRows - 1) / kBlockRows),
                                  LogBins(k_lo, k_hi, k_min, k_max));
  for_row_blocks(ctx, nz, kBlockRows, [&](std::size_t b, int kz0, int kz1) {
    LogBins& bins = block_bins[b];
    for (int kz = kz0; kz < kz1; ++kz) {
      const int fz = kz <= nz / 2 ? kz : kz - nz;
      for (int kx = 0; kx < half; ++kx) {
        // Columns 1 .. nx/2 - 1 stand for their mirror images too.
        const double weight = (kx == 0 || kx == nx / 2) ? 1.0 : 2.0;
        const double k = std::hypot(double(kx) / (double(nx) * g.cell_x_m),
                                    double(fz) / (double(nz) * g.cell_z_m));
        bins.add(k, double(power[std::size_t(kz) * std::size_t(half) + std::size_t(kx)]), weight);
      }
    }
  });
  LogBins bins2(k_lo, k_hi, k_min, k_max);
  for (const LogBins& bins : block_bins) {
    for (std::size_t q = 0; q < bins2.k.size(); ++q) {
      bins2.k[q] += bins.k[q];
      bins2.power[q] += bins.power[q];
      bins2.weight[q] += bins.weight[q];
    }
  }
  power.clear();
  power.shrink_to_fit();
  for (std::size_t b = 0; b < bins2.k.size(); ++b) {
    if (bins2.weight[b] <= 0.0) continue;
    out.spectrum_wavelength_m.push_back(bins2.weight[b] / bins2.k[b]);
    out.spectrum_power.push_back(bins2.power[b] / bins2.weight[b]);
  }

  // 1-D: rows and columns, each fitted; the profile exponent is their mean.
  LogBins rows(k_lo, k_hi, k_min, k_max), cols(k_lo, k_hi, k_min, k_max);
  line_spectra(res, h, w, w, 1, nx, g.cell_x_m, rows, ctx);
  line_spectra(res, w, h, 1, w, kiss_fftr_next_fast_size_real(h), g.cell_z_m, cols, ctx);

  double intercept = 0.0;
  const double b2 = -bins2.fit(&intercept);
  const double b1 = -0.5 * (rows.fit() + cols.fit());
  std::string few = "fewer than 3 non-empty spectrum bins between ";
  few += num(out.beta_fit_min_m);
  few += " and ";
  few += num(out.beta_fit_max_m);
  few += " m";
  out.beta = std::isnan(b2) ? stat_none(few) : stat_value(b2);
  out.beta_profile = std::isnan(b1) ? stat_none(few) : stat_value(b1);
  out.spectrum_fit_slope = -b2;
  out.spectrum_fit_intercept = intercept;
}

}  // namespace terrane::stats_detail
