// Slope angle of a height field: atan(|grad h|) in degrees, with the gradient by central
// differences (the same arithmetic as normals.cpp, see field_internal.hpp). Scalar path with
// std::atan: not a SIMD kernel.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "field/field_internal.hpp"
#include "terrane/field.hpp"

namespace terrane {
namespace {

void slope_core(const Field2D& in, int offset, int min_side, const char* fn, Field2D& out,
                const ExecContext& ctx) {
  if (&in == &out) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(fn) + ": input and output must be different fields");
  }
  in.grid.validate(std::string(fn) + " input");
  if (in.data.size() != in.grid.sample_count() || in.grid.width < min_side ||
      in.grid.height < min_side) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(fn) + ": input " + std::to_string(in.grid.width) + " x " +
                    std::to_string(in.grid.height) + " with " + std::to_string(in.data.size()) +
                    " samples is invalid; each side must be >= " + std::to_string(min_side));
  }
  const GridSpec g =
      in.grid.sub(offset, offset, in.grid.width - 2 * offset, in.grid.height - 2 * offset);
  field_detail::prepare_output(out, g);
  const double inv_2s = 1.0 / (2.0 * in.grid.spacing_m);
  const double to_deg = 180.0 / std::numbers::pi;
  const int max_i = in.grid.width - 1, max_j = in.grid.height - 1;
  field_detail::for_each_row(ctx, g.height, g.width, [&](int j) {
    auto dst = out.row(j);
    for (int i = 0; i < g.width; ++i) {
      const auto h = [&](int di, int dj) {
        return in.at(std::clamp(i + offset + di, 0, max_i), std::clamp(j + offset + dj, 0, max_j));
      };
      const auto grad = field_detail::central_gradient(h, inv_2s);
      const double m = std::sqrt(grad.dhdx * grad.dhdx + grad.dhdz * grad.dhdz);
      dst[std::size_t(i)] = float(std::atan(m) * to_deg);
    }
  });
}

}  // namespace

void slope_deg(const Field2D& heights_with_halo, Field2D& out, const ExecContext& ctx) {
  slope_core(heights_with_halo, 1, 3, "slope_deg", out, ctx);
}

void slope_deg_clamped(const Field2D& heights, Field2D& out, const ExecContext& ctx) {
  slope_core(heights, 0, 1, "slope_deg_clamped", out, ctx);
}

}  // namespace terrane
