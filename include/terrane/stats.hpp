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
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/field.hpp"
#include "terrane/io.hpp"

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
// render_perspective() draws a height field as a camera sees it, on the CPU: the grid's
// triangles (two per cell, split along the (i, j)-(i+1, j+1) diagonal) are rasterised into a
// visibility buffer that keeps, per pixel, the nearest triangle (ties: the lower triangle
// index); each pixel's ray is then intersected exactly with its triangle and shaded: albedo
// (the preview's hypsometric palette, io's preview_albedo, or a caller's per-cell colours) lit
// by a directional sun (Lambert, cast shadows from a sweep of the height field towards the
// sun) plus sky ambient; sea, lakes and rivers as water (depth tint, sky reflection); sky
// gradient above the horizon and exponential distance haze (aerial perspective).
//
// Conventions: Y up, right-handed, the map lies in X/Z (docs/DESIGN.md §3). yaw_deg is the
// heading of the view measured from +X towards +Z (0: looking along +X, 90: along +Z, so
// -90 looks "north", towards the preview's top row); pitch_deg < 0 looks down.
// Image row 0 is the top of the picture. True scale: one metre up is one metre across unless
// vertical_exaggeration says otherwise.
//
// Determinism: the bytes depend only on the inputs and the parameters (not ctx.threads).
// Cost: O(cells + pixels); 1280 x 720 of a 1025^2 map in well under a second on 2 cores
// (docs/PERFORMANCE.md). Maps with more than 2 * max(width, height) samples per side are
// rendered from every s-th sample (s the smallest stride that brings them under that).

// A pinhole camera without roll.
struct Camera {
  double x_m = 0.0, y_m = 0.0, z_m = 0.0;  // eye position [Units: m] [Limit: finite]
  double yaw_deg = 0.0;     // heading, from +X towards +Z [Units: degrees] [Limit: finite]
  double pitch_deg = 0.0;   // up (> 0) or down (< 0) [Units: degrees] [Limit: (-90, 90)]
  double fov_y_deg = 40.0;  // vertical field of view [Units: degrees] [Limit: [1, 150]]
  // Throws Error(invalid_argument) naming the field, its value and the allowed range.
  void validate() const;
};

// The camera at `eye` looking at `target` (not straight up or down: the pitch must lie in
// (-90, 90); Error(invalid_argument) otherwise).
Camera camera_look_at(double eye_x_m, double eye_y_m, double eye_z_m, double target_x_m,
                      double target_y_m, double target_z_m, double fov_y_deg = 40.0);

// The default view of a map: from beyond its south-west corner (smallest x, largest z) looking
// at the map's centre (at the mid height) pitch_deg down, as near as the whole map (its corners
// at height_min_m and height_max_m) still fits in a width x height image with a small margin.
// Throws Error(invalid_argument) for an invalid grid, a bad size or heights.
Camera auto_camera(const GridSpec& grid, double height_min_m, double height_max_m, int width,
                   int height, double fov_y_deg = 40.0, double pitch_deg = -32.0);

// Parses "x,y,z,yaw,pitch[,fov]" (metres, degrees) into a validated camera; "auto" or "" gives
// no value (the auto camera). Errors are Error(invalid_argument) starting with "--camera: ".
std::optional<Camera> parse_camera(std::string_view text);
// Parses "WxH" (e.g. "1920x1080") with each side in [kMinPerspectiveSide, kMaxPerspectiveSide];
// errors are Error(invalid_argument) starting with "--perspective-size: ".
inline constexpr int kMinPerspectiveSide = 16;
inline constexpr int kMaxPerspectiveSide = 8192;
void parse_perspective_size(std::string_view text, int& width, int& height);

// What is drawn. Spans are empty or one value per cell of `heights` (row 0 first).
struct PerspectiveScene {
  const Field2D* heights = nullptr;          // required
  PreviewWater water;                        // lakes (level > height) and rivers; may be empty
  std::span<const std::uint8_t> colour_rgb;  // per-cell albedo, 3 bytes per cell; empty: palette
};

struct PerspectiveParams {
  int width = 1280, height = 720;      // [Limit: kMinPerspectiveSide..kMaxPerspectiveSide]
  std::optional<Camera> camera;        // none: as auto_camera(), framing the drawn surface itself
                                       // (a lattice of its vertices, not its bounding box)
  PreviewParams palette;               // palette and height range (where colours are placed),
                                       // sea level (water below it); ambient and
                                       // vertical_exaggeration there are not used
  double vertical_exaggeration = 1.0;  // heights scaled about sea level [Limit: (0, 100]]
  double sun_azimuth_deg = 225.0;      // direction the light comes from, from +X towards +Z
                                       // (225: from the north-west, as the preview) [finite]
  double sun_elevation_deg = 35.0;     // [Units: degrees] [Limit: [1, 90]]
  double ambient = 0.28;               // sky light on shaded ground [Limit: [0, 1]]
  bool shadows = true;                 // cast shadows of the terrain
  // Distance over which haze covers 1 - 1/e of a colour [Units: m] [Limit: >= 0, finite];
  // 0: automatic, twice the depth of the map in view (farthest minus nearest vertex). With the
  // automatic camera the haze starts at the map's nearest vertex, with a given one at the eye.
  double haze_distance_m = 0.0;
  // Throws Error(invalid_argument) naming the field, its value and the allowed range.
  void validate() const;
};

// Renders `scene` into caller-owned RGB8 (3 * width * height bytes, row 0 at the top).
// Throws Error(invalid_argument) for a bad parameter, camera or span size. ctx.threads workers;
// ctx.cancel honoured. Allocates O(cells + pixels) scratch.
void render_perspective(const PerspectiveScene& scene, const PerspectiveParams& params,
                        std::span<std::uint8_t> rgb, const ExecContext& ctx = {});
// render_perspective into an 8-bit RGB PNG (atomic write).
void write_perspective_png(const std::filesystem::path& path, const PerspectiveScene& scene,
                           const PerspectiveParams& params, const ExecContext& ctx = {});

}  // namespace terrane
