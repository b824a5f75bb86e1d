// Surface normals of a height field by central differences: for h(x, z), the unnormalised
// normal is (-dh/dx, 1, -dh/dz) with each derivative the symmetric difference
// (h[i+1] - h[i-1]) / 2s, second-order accurate (e.g. Burden & Faires, "Numerical Analysis",
// §4.1).
#include <algorithm>
#include <cmath>
#include <string>

#include "field/field_internal.hpp"
#include "terrane/field.hpp"

namespace terrane {
namespace {

void check_heights(const Field2D& h, int min_side, const char* fn) {
  h.grid.validate(std::string(fn) + " input");
  if (h.data.size() != h.grid.sample_count()) {
    throw Error(ErrorCategory::invalid_argument, std::string(fn) + ": input data size " +
                                                     std::to_string(h.data.size()) +
                                                     " does not match its grid");
  }
  if (h.grid.width < min_side || h.grid.height < min_side) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(fn) + ": input " + std::to_string(h.grid.width) + " x " +
                    std::to_string(h.grid.height) + " is too small; each side must be >= " +
                    std::to_string(min_side) + " (1-sample halo on each side)");
  }
}

// `offset` is 1 for a halo'd input (output (i, j) is input (i + 1, j + 1)), 0 for clamped.
void normals_core(const Field2D& in, int offset, Normals& out, const ExecContext& ctx) {
  if (&in == &out.x || &in == &out.y || &in == &out.z) {
    throw Error(ErrorCategory::invalid_argument,
                "normals: the input heights must not be one of the output fields");
  }
  const GridSpec g =
      in.grid.sub(offset, offset, in.grid.width - 2 * offset, in.grid.height - 2 * offset);
  field_detail::prepare_output(out.x, g);
  field_detail::prepare_output(out.y, g);
  field_detail::prepare_output(out.z, g);
  const double inv_2s = 1.0 / (2.0 * in.grid.spacing_m);
  field_detail::for_each_row(ctx, g.height, g.width, [&](int j) {
    auto nx = out.x.row(j), ny = out.y.row(j), nz = out.z.row(j);
    field_detail::normal_row(in, offset, j, g.width, inv_2s, [&](int i, float x, float y, float z) {
      nx[std::size_t(i)] = x;
      ny[std::size_t(i)] = y;
      nz[std::size_t(i)] = z;
    });
  });
}

}  // namespace

void normals(const Field2D& heights_with_halo, Normals& out, const ExecContext& ctx) {
  check_heights(heights_with_halo, 3, "normals");
  normals_core(heights_with_halo, 1, out, ctx);
}

void normals_clamped(const Field2D& heights, Normals& out, const ExecContext& ctx) {
  check_heights(heights, 1, "normals_clamped");
  normals_core(heights, 0, out, ctx);
}

}  // namespace terrane
