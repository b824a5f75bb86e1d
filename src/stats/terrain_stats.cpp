// Terrain statistics (terrane/stats.hpp): checks, the land mask, then one algorithm per file
// (slope_stats.cpp, hypsometry.cpp, local_relief.cpp, spectrum.cpp, drainage_stats.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

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

namespace {

constexpr int kRankBinBits = 16;

// Orders floats as integers: negative values reversed below the positive ones.
inline std::uint32_t rank_key(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return (b & 0x80000000u) != 0 ? ~b : (b | 0x80000000u);
}

// Chunks of the selector's passes over the values.
constexpr std::int64_t kRankGrain = std::int64_t(1) << 18;

}  // namespace

RankSelect::RankSelect(std::span<const float> values, const ExecContext& ctx)
    : values_(values), ctx_(&ctx), cumulative_((std::size_t(1) << kRankBinBits) + 1, 0) {
  std::vector<std::uint64_t> counts(std::size_t(1) << kRankBinBits, 0);
  std::mutex merge;
  parallel_for(ctx, std::int64_t(values.size()), kRankGrain, [&](std::int64_t b, std::int64_t e) {
    std::vector<std::uint32_t> local(counts.size(), 0);
    for (std::int64_t c = b; c < e; ++c) {
      const float v = values[std::size_t(c)];
      if (!std::isnan(v)) ++local[rank_key(v) >> (32 - kRankBinBits)];
    }
    const std::lock_guard lock(merge);
    for (std::size_t k = 0; k < local.size(); ++k) counts[k] += local[k];
  });
  for (std::size_t k = 0; k < counts.size(); ++k) cumulative_[k + 1] = cumulative_[k] + counts[k];
}

float RankSelect::kth(std::size_t k) const {
  // The bin holding rank k: the last with cumulative_[bin] <= k.
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), std::uint64_t(k));
  const auto bin = std::uint32_t(it - cumulative_.begin() - 1);
  const std::size_t chunks =
      (values_.size() + std::size_t(kRankGrain) - 1) / std::size_t(kRankGrain);
  std::vector<std::vector<float>> found(chunks);
  parallel_for(*ctx_, std::int64_t(chunks), 1, [&](std::int64_t q0, std::int64_t q1) {
    for (std::int64_t q = q0; q < q1; ++q) {
      const std::size_t b = std::size_t(q) * std::size_t(kRankGrain);
      const std::size_t e = std::min(values_.size(), b + std::size_t(kRankGrain));
      for (std::size_t c = b; c < e; ++c) {
        const float v = values_[c];
        if (!std::isnan(v) && rank_key(v) >> (32 - kRankBinBits) == bin) {
          found[std::size_t(q)].push_back(v);
        }
      }
    }
  });
  std::vector<float> in_bin;
  in_bin.reserve(std::size_t(cumulative_[bin + 1] - cumulative_[bin]));
  for (const std::vector<float>& f : found) in_bin.insert(in_bin.end(), f.begin(), f.end());
  // Inside one bin, -0 and +0 never meet (their keys' top bits differ), so < orders as the keys.
  const auto nth = in_bin.begin() + std::ptrdiff_t(k - cumulative_[bin]);
  std::nth_element(in_bin.begin(), nth, in_bin.end());
  return *nth;
}

double RankSelect::percentile(double p) const {
  const std::size_t n = count();
  const double rank = p / 100.0 * double(n - 1);
  const auto lo = std::size_t(std::floor(rank));
  const double a = kth(lo);
  if (lo + 1 >= n) return a;
  const double b = kth(lo + 1);
  return a + (b - a) * (rank - double(lo));
}

std::size_t for_row_blocks(const ExecContext& ctx, int rows, int block,
                           const std::function<void(std::size_t b, int j0, int j1)>& body) {
  const std::size_t blocks = std::size_t((rows + block - 1) / block);
  parallel_for(ctx, std::int64_t(blocks), 1, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) {
      const int j0 = int(b) * block;
      body(std::size_t(b), j0, std::min(rows, j0 + block));
    }
  });
  return blocks;
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
  core_detail::assign_huge(p.land, n, std::uint8_t(0), &ctx);
  TerrainStats out;
  out.width = grid.width;
  out.height = grid.height;
  out.cell_x_m = grid.cell_x_m;
  out.cell_z_m = grid.cell_z_m;
  out.sea_level_m = params.sea_level_m;
  out.agent_slope_deg = params.agent_slope_deg;
  // The land mask and the height range, blocks of rows on every worker (counts, minima and maxima
  // do not depend on the order they are taken in).
  struct Range {
    std::int64_t nodata = 0, land = 0;
    double flo = INFINITY, fhi = -INFINITY, llo = INFINITY, lhi = -INFINITY;
  };
  constexpr int kBlockRows = 16;
  std::vector<Range> ranges(std::size_t((grid.height + kBlockRows - 1) / kBlockRows));
  sd::for_row_blocks(ctx, grid.height, kBlockRows, [&](std::size_t b, int j0, int j1) {
    Range r;
    const std::size_t c1 = std::size_t(j1) * std::size_t(grid.width);
    for (std::size_t c = std::size_t(j0) * std::size_t(grid.width); c < c1; ++c) {
      const float v = grid.heights[c];
      if (std::isnan(v)) {
        ++r.nodata;
        continue;
      }
      r.flo = std::min(r.flo, double(v));
      r.fhi = std::max(r.fhi, double(v));
      if (!params.sea_level_m || double(v) > *params.sea_level_m) {
        p.land[c] = 1;
        ++r.land;
        r.llo = std::min(r.llo, double(v));
        r.lhi = std::max(r.lhi, double(v));
      }
    }
    ranges[b] = r;
  });
  double flo = INFINITY, fhi = -INFINITY, llo = INFINITY, lhi = -INFINITY;
  for (const Range& r : ranges) {
    out.nodata_cells += r.nodata;
    p.land_cells += r.land;
    flo = std::min(flo, r.flo);
    fhi = std::max(fhi, r.fhi);
    llo = std::min(llo, r.llo);
    lhi = std::max(lhi, r.lhi);
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
