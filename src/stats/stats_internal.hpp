// Internal interfaces between the statistics of terrane/stats.hpp: each algorithm file fills
// its part of TerrainStats from a prepared grid (land mask, finite heights).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "terrane/stats.hpp"

namespace terrane::stats_detail {

// The grid being measured, with its land mask computed once.
struct Prepared {
  const StatsGrid* grid = nullptr;
  const StatsParams* params = nullptr;
  std::vector<std::uint8_t> land;  // 1: finite and above the sea level
  std::int64_t land_cells = 0;
  std::size_t cells() const { return std::size_t(grid->width) * std::size_t(grid->height); }
};

inline Stat stat_value(double v) {
  return Stat{v, {}};
}
inline Stat stat_none(std::string why) {
  return Stat{std::nullopt, std::move(why)};
}

// numpy.percentile's default ("linear"): rank p / 100 * (n - 1), interpolated. `values` is
// reordered. Requires a non-empty span.
double percentile(std::span<float> values, double p);
// numpy.median: the mean of the two middle values for an even count. Reorders `values`.
double median(std::span<float> values);
// Order statistics of a map-sized array of floats, NaN values left out, found on every worker: a
// histogram of the top 16 bits of each value's order-preserving key, then nth_element inside the
// one bin that holds the wanted rank. The values are those nth_element gives on the compacted
// array (-0 ranks below +0), whatever the thread count; `values` is not reordered and must
// outlive the selector.
class RankSelect {
 public:
  RankSelect(std::span<const float> values, const ExecContext& ctx);
  // How many values are not NaN.
  std::size_t count() const { return std::size_t(cumulative_.back()); }
  // The k-th smallest value, 0-based; k < count().
  float kth(std::size_t k) const;
  // percentile() above on the values that are not NaN; count() > 0.
  double percentile(double p) const;

 private:
  std::span<const float> values_;
  const ExecContext* ctx_;
  std::vector<std::uint64_t> cumulative_;  // values below each bin; 65,537 entries
};

// Calls body(b, j0, j1) for fixed blocks of `block` rows of a map `rows` high, on every worker,
// and returns how many blocks there were: block b is rows [b * block, min(rows, (b + 1) *
// block)). Per-block sums combined in block order give the same bits on any thread count.
std::size_t for_row_blocks(const ExecContext& ctx, int rows, int block,
                           const std::function<void(std::size_t b, int j0, int j1)>& body);

// Least-squares slope of y against x (at least 2 points with distinct x).
double fit_slope(std::span<const double> x, std::span<const double> y);

// "%g"-style short number for messages.
std::string num(double v);

// Slope percentiles, shares, walkable share and histogram (slope_stats.cpp).
void measure_slopes(const Prepared& p, TerrainStats& out, const ExecContext& ctx);
// Hypsometric integral and curve (hypsometry.cpp).
void measure_hypsometry(const Prepared& p, TerrainStats& out);
// Local relief in a window of about relief_window_m (local_relief.cpp).
void measure_local_relief(const Prepared& p, TerrainStats& out, const ExecContext& ctx);
// Spectral exponents (spectrum.cpp).
void measure_spectrum(const Prepared& p, TerrainStats& out, const ExecContext& ctx);
// Drainage density, Hack's law, depressions (drainage_stats.cpp).
void measure_drainage(const Prepared& p, TerrainStats& out, const ExecContext& ctx);

}  // namespace terrane::stats_detail
