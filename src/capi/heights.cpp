// The C API's height grids and scatter over a rectangle (terrane.h): the pure terrain function
// through terrane::evaluate on the caller's buffer, and ChunkGenerator::instances_near per tile.
#include <algorithm>
#include <cmath>
#include <string>

#include "capi_internal.hpp"
#include "terrane/graph.hpp"
#include "terrane/surface.hpp"

namespace terrane::capi {
namespace {

void check_finite(const char* what, double v) {
  if (!std::isfinite(v)) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(what) + " = " + format_number(v) + " is not a finite number");
  }
}

void check_in_world(const char* what, double v) {
  check_finite(what, v);
  if (std::abs(v) > kMaxWorldCoordinate) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(what) + " = " + format_number(v) +
                    " m is outside the world (|coordinate| <= 1099511627776 m)");
  }
}

// The index k with k * cell == x exactly, when there is one (the world's lattice).
bool lattice_index(double x, double cell, std::int64_t& k) {
  const double q = x / cell;
  if (!(std::abs(q) < 9.0e15) || std::floor(q) != q) return false;
  k = std::int64_t(q);
  return double(k) * cell == x;
}

}  // namespace

terrane_status heights(const CompiledGraph& graph, const HeightEditSnapshot* edits,
                       double world_cell_m, double x0_m, double z0_m, std::int32_t width,
                       std::int32_t height, double cell_m, std::int32_t threads, float* out,
                       std::size_t capacity, std::size_t* count) {
  if (width < 1 || width > kMaxGridSide || height < 1 || height > kMaxGridSide) {
    throw Error(ErrorCategory::invalid_argument,
                "width x height = " + std::to_string(width) + " x " + std::to_string(height) +
                    " is outside the allowed range 1..65536 per side");
  }
  const std::size_t n = std::size_t(width) * std::size_t(height);
  if (n > std::size_t(kMaxGridSamples)) {
    throw Error(ErrorCategory::limit, "width x height = " + std::to_string(n) +
                                          " samples is above the limit of 2^30 (1073741824)");
  }
  check_finite("cell_m", cell_m);
  if (cell_m < 0.0) {
    throw Error(ErrorCategory::invalid_argument,
                "cell_m = " + format_number(cell_m) + " is negative (0 means the preset's cell)");
  }
  const double cell = cell_m == 0.0 ? world_cell_m : cell_m;
  if (cell > 1.0e4) {
    throw Error(ErrorCategory::invalid_argument,
                "cell_m = " + format_number(cell) + " is outside the allowed range (0, 10000]");
  }
  check_in_world("x0_m", x0_m);
  check_in_world("z0_m", z0_m);
  check_in_world("x0_m + (width - 1) * cell_m", x0_m + double(width - 1) * cell);
  check_in_world("z0_m + (height - 1) * cell_m", z0_m + double(height - 1) * cell);
  if (threads < 0 || threads > kMaxThreads) {
    throw Error(ErrorCategory::invalid_argument,
                "threads = " + std::to_string(threads) + " is outside the allowed range 0..256");
  }
  const terrane_status s = check_capacity(out, capacity, n, count, "heights");
  if (s != TERRANE_OK) return s;

  GridSpec grid;
  grid.width = width;
  grid.height = height;
  grid.spacing_m = cell;
  std::int64_t i0 = 0, j0 = 0;
  const bool on_lattice = lattice_index(x0_m, cell, i0) && lattice_index(z0_m, cell, j0);
  if (on_lattice) {
    grid.index_x0 = i0;
    grid.index_z0 = j0;
  } else {
    grid.origin_x_m = x0_m;
    grid.origin_z_m = z0_m;
  }
  const bool edited = edits != nullptr && !edits->empty();
  if (edited && !on_lattice) {
    throw Error(ErrorCategory::invalid_argument,
                "the world has height edits: x0_m = " + format_number(x0_m) +
                    " and z0_m = " + format_number(z0_m) +
                    " must be whole multiples of cell_m = " + format_number(cell));
  }
  ExecContext ctx;
  ctx.threads = threads;
  std::span<float> samples(out, n);
  evaluate(graph, grid, samples, ctx);
  if (edited) edits->add_to(grid, samples);
  return TERRANE_OK;
}

void copy_instance(const ScatterInstance& in, terrane_instance& out) {
  out = terrane_instance{};
  out.x_m = in.x_m;
  out.z_m = in.z_m;
  out.y_m = in.y_m;
  out.yaw_deg = in.yaw_deg;
  out.scale_xz = in.scale_xz;
  out.scale_y = in.scale_y;
  out.normal[0] = in.normal[0];
  out.normal[1] = in.normal[1];
  out.normal[2] = in.normal[2];
  out.species = in.species;
  out.id = in.id;
  out.state = in.state;
}

}  // namespace terrane::capi

using namespace terrane;
using terrane::capi::guarded;
using terrane::capi::require;

extern "C" {

terrane_status terrane_heights(const terrane_preset* preset, double x0_m, double z0_m,
                               int32_t width, int32_t height, double cell_m, int32_t threads,
                               float* out, size_t capacity, size_t* count) {
  return guarded([&] {
    require(preset, "preset");
    return capi::heights(*preset->graph, nullptr, preset->preset.world.cell_size_m, x0_m, z0_m,
                         width, height, cell_m, threads, out, capacity, count);
  });
}

size_t terrane_heights_bound(int32_t width, int32_t height) {
  if (width < 1 || width > kMaxGridSide || height < 1 || height > kMaxGridSide) return 0;
  const std::size_t n = std::size_t(width) * std::size_t(height);
  return n > std::size_t(kMaxGridSamples) ? 0 : n;
}

terrane_status terrane_scatter(const terrane_preset* preset, double x0_m, double z0_m, double x1_m,
                               double z1_m, terrane_instance* out, size_t capacity, size_t* count) {
  return guarded([&] {
    require(preset, "preset");
    capi::check_in_world("x0_m", x0_m);
    capi::check_in_world("z0_m", z0_m);
    capi::check_in_world("x1_m", x1_m);
    capi::check_in_world("z1_m", z1_m);
    if (!(x1_m > x0_m && z1_m > z0_m)) {
      throw Error(ErrorCategory::invalid_argument,
                  "the rectangle [" + format_number(x0_m) + ", " + format_number(x1_m) + ") x [" +
                      format_number(z0_m) + ", " + format_number(z1_m) +
                      ") is empty (it needs x1_m > x0_m and z1_m > z0_m)");
    }
    constexpr double kMaxSide = 65536.0;
    if (x1_m - x0_m > kMaxSide || z1_m - z0_m > kMaxSide) {
      throw Error(ErrorCategory::limit, "the rectangle spans " + format_number(x1_m - x0_m) +
                                            " x " + format_number(z1_m - z0_m) +
                                            " m: at most 65536 m per side");
    }
    // The rectangle alone (scatter_chunk is seamless: the same points for any split of a
    // region), on the triangulation of the default 128-cell chunks.
    std::vector<ScatterInstance> found;
    if (!preset->preset.surface.species.empty()) {
      scatter_chunk(*preset->graph, preset->preset.surface, preset->preset.seed, x0_m, z0_m, x1_m,
                    z1_m, ChunkSettings{}.cells, found, {}, preset->climate.get());
    }
    const terrane_status s =
        capi::check_capacity(out, capacity, found.size(), count, "terrane_scatter");
    if (s != TERRANE_OK) return s;
    for (std::size_t k = 0; k < found.size(); ++k) capi::copy_instance(found[k], out[k]);
    return TERRANE_OK;
  });
}

}  // extern "C"
