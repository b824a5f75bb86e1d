// terrane stats: terrain statistics measured as a geomorphologist would, and a perspective
// render on the CPU (module `stats`; depends on core, field, io, erosion, surface, preset).
//
// compute_terrain_stats() measures a height grid against the figures real landscapes have
// (docs/REALISM.md lists the definitions and the ranges of real DEMs): slope distribution,
// walkability, hypsometry, local relief, the power spectrum's exponent, drainage density,
// Hack's law and closed depressions. Each statistic that the grid is too small (or too dry) to
// give is reported as not available with the reason, never as a made-up number.
//
// Determinism: every figure is a pure function of the grid, its cell size and the parameters
// (no dependence on ctx.threads).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/field.hpp"

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Terrain statistics

// A height grid to measure: row-major (row j, column i), `width * height` heights in metres.
// NaN marks no-data cells (they are neither land nor sea: excluded from every statistic, and a
// border of the drainage network: water reaching one leaves the map).
struct StatsGrid {
  std::span<const float> heights;
  int width = 0;
  int height = 0;
  double cell_x_m = 1.0;  // spacing along i [Units: m] [Limit: (0, 1e5]]
  double cell_z_m = 1.0;  // spacing along j [Units: m] [Limit: (0, 1e5]]
};
StatsGrid stats_grid(const Field2D& field);

struct StatsParams {
  // Land is height > sea_level_m; no value (std::nullopt): every finite cell is land.
  std::optional<double> sea_level_m;
  double agent_slope_deg = 45.0;         // walkable share: slope <= this [Limit: [0, 90]]
  double relief_window_m = 1000.0;       // local relief window side [Units: m] [Limit: > 0]
  double channel_area_m2 = 1.0e5;        // drainage area of a channel cell [Units: m^2] [> 0]
  double depression_depth_m = 1.0;       // a closed depression counts when deeper [Units: m]
  double depression_tolerance_m = 0.01;  // a cell is in it when this far below spill [Units: m]
  void validate() const;
};

// A statistic that may be unavailable: `value` when measured, else `why` says why not
// ("the map is 12 cells wide; the spectrum needs at least 64", "no land", ...).
struct Stat {
  std::optional<double> value;
  std::string why;
  bool ok() const { return value.has_value(); }
};

struct TerrainStats {
  int width = 0, height = 0;
  double cell_x_m = 1.0, cell_z_m = 1.0;
  std::optional<double> sea_level_m;
  std::int64_t land_cells = 0;
  std::int64_t nodata_cells = 0;
  double land_fraction = 0.0;  // land / finite cells
  // Over land cells (over the finite cells when there is no land; 0 when none) [Units: m].
  double height_min_m = 0.0, height_max_m = 0.0;

  // Slope of land cells from central differences (one-sided at the border) [Units: degrees].
  Stat slope_p10_deg, slope_p50_deg, slope_p90_deg;
  Stat slope_lt15, slope_lt30, slope_gt45;  // shares of land
  Stat walkable_share;                      // slope <= agent_slope_deg, share of land
  double agent_slope_deg = 45.0;
  std::vector<double> slope_histogram;      // land share per 1-degree bin, 90 bins

  // (mean - min) / (max - min) of land heights; the curve: share of land above each of 101
  // equally spaced relative heights.
  Stat hypsometric_integral;
  std::vector<double> hypsometric_curve;

  // max - min in a centred window of about relief_window_m: 2 round(relief_window_m / 2 / cell)
  // + 1 cells per axis, clipped at the map's border; the median over land cells [Units: m].
  Stat local_relief_m;
  double relief_window_x_m = 0.0, relief_window_z_m = 0.0;  // the window actually used

  // Power spectrum: plane removed, Hann window, radially averaged in 20 log-spaced wavenumber
  // bins over the fit range; beta is minus the least-squares slope of log mean power against
  // log mean wavenumber, over wavelengths from 8 cells (of the coarser axis) to a quarter of the
  // shorter side. beta_profile: the mean of the exponents of the row-averaged and the
  // column-averaged 1-D spectra, fitted the same way.
  Stat beta, beta_profile;
  double beta_fit_min_m = 0.0, beta_fit_max_m = 0.0;  // the fit range [Units: m]
  // The radial average in bins of the same width over every wavelength (for charts), longest
  // first, and the fit: log10 P = spectrum_fit_slope * log10 k + spectrum_fit_intercept.
  std::vector<double> spectrum_wavelength_m, spectrum_power;
  double spectrum_fit_slope = 0.0, spectrum_fit_intercept = 0.0;

  // Drainage on the Priority-Flood filled surface, D8 (compute_flow_routing).
  Stat drainage_density_km_per_km2;  // km of flow path through channel cells per km^2 of land
  std::int64_t channel_cells = 0;
  Stat hack_h;  // least-squares slope of log median longest-upstream-length vs log area
  std::vector<double> hack_area_m2, hack_length_m;  // the binned medians, for charts
  double max_drainage_area_m2 = 0.0;
  // Share of land more than depression_tolerance_m below its spill level inside closed
  // depressions deeper than depression_depth_m; and the deepest depression [Units: m].
  Stat depression_share;
  // Share of land more than depression_tolerance_m below its spill level, in any depression.
  Stat pit_share;
  double max_depression_depth_m = 0.0;

  double elapsed_s = 0.0;
};

// Measures `grid`. ctx.threads workers; ctx.cancel is honoured. Throws Error(invalid_argument)
// for a grid whose span does not hold width * height values or a bad parameter.
TerrainStats compute_terrain_stats(const StatsGrid& grid, const StatsParams& params = {},
                                   const ExecContext& ctx = {});

// One JSON object on one line (no newline) with the keys of the reference measurements
// (docs/REALISM.md): name (when not empty), rows, cols, cell_size_m, cell_size_y_m (when not
// square), sea_level_m, land_fraction, height_min_m, height_max_m, slope_p10_deg, slope_p50_deg,
// slope_p90_deg, slope_lt15, slope_lt30, slope_gt45, walkable_share, agent_slope_deg,
// hypsometric_integral, local_relief_1km_m, relief_window_m [x, z], beta, beta_profile,
// beta_fit_wavelength_m [min, max], drainage_density_km_per_km2, channel_cells, hack_h,
// hack_bins, max_drainage_area_km2, depression_share_gt1m, pit_share_any,
// max_depression_depth_m, nodata_cells, elapsed_s; and "why": {key: reason} for every statistic
// that is null. Numbers are rounded as in the reference (4 to 5 significant digits).
std::string terrain_stats_json(const TerrainStats& stats, std::string_view name = {});

// The chart sheet of `stats` as an 8-bit RGB image (row 0 at the top): 2 x 2 panels (slope
// histogram, hypsometric curve, power spectrum log-log with the fit line, Hack's area-length
// log-log with the fit line), axes with ticks and labels in a built-in bitmap font. Panels of
// unavailable statistics say why. Deterministic.
struct ChartImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // 3 * width * height
};
ChartImage render_stats_charts(const TerrainStats& stats, std::string_view title = {});

// ---------------------------------------------------------------------------------------------
// Perspective render
//
// (declarations of the perspective renderer go here)

}  // namespace terrane
