// Separable Gaussian blur. The 2D Gaussian factors into a horizontal and a vertical 1D
// convolution (e.g. Gonzalez & Woods, "Digital Image Processing", 4th ed., §3.5), cutting the
// cost from O(r^2) to O(r) per sample. Truncation at 3 sigma keeps > 99.7% of the weight; the
// truncated kernel is renormalised to sum 1.
//
// Both public entry points run one core that reads the source with clamped indices. With a halo
// of r samples the clamp never triggers for an output sample, so the arithmetic for a sample is
// the same fixed sequence whichever field (whole map or halo'd chunk) it came from.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "field/field_internal.hpp"
#include "terrane/field.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

std::vector<double> gaussian_weights(double sigma_cells, int r) {
  std::vector<double> w(std::size_t(2 * r + 1));
  if (r == 0) {
    w[0] = 1.0;
    return w;
  }
  double sum = 0.0;
  for (int k = -r; k <= r; ++k) {
    const double x = double(k) / sigma_cells;
    w[std::size_t(k + r)] = std::exp(-0.5 * x * x);
  }
  for (double v : w) sum += v;
  for (double& v : w) v /= sum;
  return w;
}

// Blurs the out_w x out_h window of `src` whose top-left sample is (ox, oy); source indices
// outside [0, src_w) x [0, src_h) are clamped to the border.
void blur_core(const Field2D& src, int ox, int oy, int r, const std::vector<double>& w,
               Field2D& out, const ExecContext& ctx) {
  const int src_w = src.grid.width, src_h = src.grid.height;
  const int out_w = out.grid.width, out_h = out.grid.height;
  // Horizontal pass over every source row, only for the output columns.
  std::vector<float> tmp(std::size_t(out_w) * std::size_t(src_h));
  field_detail::for_each_row(ctx, src_h, out_w, [&](int y) {
    std::vector<float> padded(std::size_t(out_w + 2 * r));
    const auto row = src.row(y);
    for (int p = 0; p < out_w + 2 * r; ++p) {
      const int x = std::clamp(ox - r + p, 0, src_w - 1);
      padded[std::size_t(p)] = row[std::size_t(x)];
    }
    float* dst = tmp.data() + std::size_t(y) * std::size_t(out_w);
    for (int i = 0; i < out_w; ++i) {
      double acc = 0.0;
      const float* s = padded.data() + i;
      for (int k = 0; k <= 2 * r; ++k) acc += w[std::size_t(k)] * double(s[k]);
      dst[i] = float(acc);
    }
  });
  // Vertical pass: accumulate whole rows in increasing k (same per-sample order as above).
  field_detail::for_each_row(ctx, out_h, out_w, [&](int j) {
    std::vector<double> acc(std::size_t(out_w), 0.0);
    for (int k = 0; k <= 2 * r; ++k) {
      const int y = std::clamp(oy + j - r + k, 0, src_h - 1);
      const float* s = tmp.data() + std::size_t(y) * std::size_t(out_w);
      const double wk = w[std::size_t(k)];
      for (int i = 0; i < out_w; ++i) acc[std::size_t(i)] += wk * double(s[i]);
    }
    auto dst = out.row(j);
    for (int i = 0; i < out_w; ++i) dst[std::size_t(i)] = float(acc[std::size_t(i)]);
  });
}

void check_input(const Field2D& in, const Field2D& out, const char* fn) {
  if (&in == &out) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(fn) + ": input and output must be different fields");
  }
  in.grid.validate(std::string(fn) + " input");
  if (in.data.size() != in.grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(fn) + ": input data size " + std::to_string(in.data.size()) +
                    " does not match its grid " + std::to_string(in.grid.width) + " x " +
                    std::to_string(in.grid.height));
  }
}

}  // namespace

int gaussian_radius_cells(double sigma_m, double spacing_m) {
  if (!std::isfinite(sigma_m) || sigma_m < 0.0) {
    throw Error(ErrorCategory::invalid_argument,
                "gaussian blur: sigma " + format_number(sigma_m) + " m must be finite and >= 0");
  }
  if (!std::isfinite(spacing_m) || spacing_m <= 0.0) {
    throw Error(
        ErrorCategory::invalid_argument,
        "gaussian blur: grid spacing " + format_number(spacing_m) + " m must be finite and > 0");
  }
  const double r = std::ceil(3.0 * sigma_m / spacing_m);
  if (r > double(kMaxBlurRadiusCells)) {
    throw Error(ErrorCategory::limit,
                "gaussian blur: sigma " + format_number(sigma_m) + " m at spacing " +
                    format_number(spacing_m) + " m needs a radius of " + format_number(r) +
                    " cells; the allowed range is 0.." + std::to_string(kMaxBlurRadiusCells));
  }
  return int(r);
}

void gaussian_blur(const Field2D& in, double sigma_m, Field2D& out, const ExecContext& ctx) {
  check_input(in, out, "gaussian_blur");
  const int r = gaussian_radius_cells(sigma_m, in.grid.spacing_m);
  const auto w = gaussian_weights(sigma_m / in.grid.spacing_m, r);
  field_detail::prepare_output(out, in.grid);
  blur_core(in, 0, 0, r, w, out, ctx);
}

void gaussian_blur_halo(const Field2D& in_with_halo, double sigma_m, Field2D& out,
                        const ExecContext& ctx) {
  const Field2D& in = in_with_halo;
  check_input(in, out, "gaussian_blur_halo");
  const int r = gaussian_radius_cells(sigma_m, in.grid.spacing_m);
  if (in.grid.width <= 2 * r || in.grid.height <= 2 * r) {
    throw Error(ErrorCategory::invalid_argument,
                "gaussian_blur_halo: input " + std::to_string(in.grid.width) + " x " +
                    std::to_string(in.grid.height) + " is too small for a halo of " +
                    format_number(r) + " cells on each side; each side must exceed " +
                    std::to_string(2 * r));
  }
  const auto w = gaussian_weights(sigma_m / in.grid.spacing_m, r);
  field_detail::prepare_output(out,
                               in.grid.sub(r, r, in.grid.width - 2 * r, in.grid.height - 2 * r));
  blur_core(in, r, r, r, w, out, ctx);
}

}  // namespace terrane
