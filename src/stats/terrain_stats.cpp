// Terrain statistics (terrane/stats.hpp): checks, the land mask, then one algorithm per file
// (slope_stats.cpp, hypsometry.cpp, local_relief.cpp, spectrum.cpp, drainage_stats.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/huge_pages.hpp"
#include "stats/stats_internal.hpp"
#include "terrane/stats.hpp"

namespace terrane {

namespace sd = stats_detail;

StatsGrid stats_grid(const Field2D& field) {
  StatsGrid g;
  g.heights = field.data;
  g.width = field.grid.width;
  g.height = field.grid.height;
  g.cell_x_m = field.grid.spacing_m;
  g.cell_z_m = field.grid.spacing_m;
  return g;
}

void StatsParams::validate() const {
  auto bad = [](const std::string& what) {
    throw Error(ErrorCategory::invalid_argument, "stats: " + what);
  };
  if (sea_level_m && !std::isfinite(*sea_level_m)) bad("sea_level_m must be finite");
  if (!(agent_slope_deg >= 0.0 && agent_slope_deg <= 90.0)) {
    bad("agent_slope_deg " + sd::num(agent_slope_deg) + " is outside [0, 90]");
  }
  if (!(relief_window_m > 0.0 && std::isfinite(relief_window_m))) {
    bad("relief_window_m " + sd::num(relief_window_m) + " must be > 0 and finite");
  }
  if (!(channel_area_m2 > 0.0 && std::isfinite(channel_area_m2))) {
    bad("channel_area_m2 " + sd::num(channel_area_m2) + " must be > 0 and finite");
  }
  if (!(depression_depth_m >= 0.0 && std::isfinite(depression_depth_m))) {
    bad("depression_depth_m " + sd::num(depression_depth_m) + " must be >= 0 and finite");
  }
  if (!(depression_tolerance_m >= 0.0 && std::isfinite(depression_tolerance_m))) {
    bad("depression_tolerance_m " + sd::num(depression_tolerance_m) + " must be >= 0 and finite");
  }
}

namespace stats_detail {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

double percentile(std::span<float> values, double p) {
  const double rank = p / 100.0 * double(values.size() - 1);
  const auto lo = std::size_t(std::floor(rank));
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(lo), values.end());
  const double a = values[lo];
  if (lo + 1 >= values.size()) return a;
  const double b = *std::min_element(values.begin() + std::ptrdiff_t(lo) + 1, values.end());
  return a + (b - a) * (rank - double(lo));
}

double median(std::span<float> values) {
  return percentile(values, 50.0);
}

double fit_slope(std::span<const double> x, std::span<const double> y) {
  const double n = double(x.size());
  double mx = 0, my = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    mx += x[k];
    my += y[k];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    sxy += (x[k] - mx) * (y[k] - my);
    sxx += (x[k] - mx) * (x[k] - mx);
  }
  return sxx > 0 ? sxy / sxx : 0.0;
}

}  // namespace stats_detail

TerrainStats compute_terrain_stats(const StatsGrid& grid, const StatsParams& params,
                                   const ExecContext& ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  params.validate();
  if (grid.width < 1 || grid.height < 1 || grid.width > kMaxGridSide ||
      grid.height > kMaxGridSide ||
      std::int64_t(grid.width) * std::int64_t(grid.height) > kMaxGridSamples) {
    throw Error(ErrorCategory::invalid_argument, "stats: grid size " + std::to_string(grid.width) +
                                                     " x " + std::to_string(grid.height) +
                                                     " is outside 1.." +
                                                     std::to_string(kMaxGridSide) + " per side");
  }
  const std::size_t n = std::size_t(grid.width) * std::size_t(grid.height);
  if (grid.heights.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "stats: the grid holds " + std::to_string(grid.heights.size()) + " heights, " +
                    std::to_string(grid.width) + " x " + std::to_string(grid.height) + " needs " +
                    std::to_string(n));
  }
  for (double cell : {grid.cell_x_m, grid.cell_z_m}) {
    if (!(cell > 0.0 && cell <= 1e5)) {
      throw Error(ErrorCategory::invalid_argument,
                  "stats: cell size " + sd::num(cell) + " m is outside (0, 1e5]");
    }
  }
  throw_if_cancelled(ctx);

  sd::Prepared p;
  p.grid = &grid;
  p.params = &params;
  core_detail::assign_huge(p.land, n, std::uint8_t(0));
  TerrainStats out;
  out.width = grid.width;
  out.height = grid.height;
  out.cell_x_m = grid.cell_x_m;
  out.cell_z_m = grid.cell_z_m;
  out.sea_level_m = params.sea_level_m;
  out.agent_slope_deg = params.agent_slope_deg;
  double flo = INFINITY, fhi = -INFINITY, llo = INFINITY, lhi = -INFINITY;
  for (std::size_t c = 0; c < n; ++c) {
    const float v = grid.heights[c];
    if (std::isnan(v)) {
      ++out.nodata_cells;
      continue;
    }
    flo = std::min(flo, double(v));
    fhi = std::max(fhi, double(v));
    if (!params.sea_level_m || double(v) > *params.sea_level_m) {
      p.land[c] = 1;
      ++p.land_cells;
      llo = std::min(llo, double(v));
      lhi = std::max(lhi, double(v));
    }
  }
  out.land_cells = p.land_cells;
  const std::int64_t finite = std::int64_t(n) - out.nodata_cells;
  out.land_fraction = finite > 0 ? double(p.land_cells) / double(finite) : 0.0;
  if (p.land_cells > 0) {
    out.height_min_m = llo;
    out.height_max_m = lhi;
  } else if (finite > 0) {
    out.height_min_m = flo;
    out.height_max_m = fhi;
  }

  sd::measure_slopes(p, out, ctx);
  throw_if_cancelled(ctx);
  sd::measure_hypsometry(p, out);
  sd::measure_local_relief(p, out, ctx);
  throw_if_cancelled(ctx);
  sd::measure_spectrum(p, out, ctx);
  throw_if_cancelled(ctx);
  sd::measure_drainage(p, out, ctx);
  out.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace terrane
