// Splat (texture-layer) weights: each layer's rule over height, slope, biome weights and a
// noise, smoothstep transitions, steep slopes to rock, normalised to sum 1 per cell; and the
// 8-bit quantisation by largest remainders (Hamilton's method) so each texel sums to 255.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/huge_pages.hpp"
#include "surface/surface_internal.hpp"

namespace terrane {

using surface_detail::fail;
using surface_detail::smooth01;
using surface_detail::soft_edge;
using surface_detail::SoftEdge;

void compute_splat(const SurfaceParams& params, std::uint64_t seed, const Field2D& heights,
                   const Field2D& slope_deg, const BiomeWeights& biomes, SplatMap& out,
                   const ExecContext& ctx) {
  params.validate();
  const GridSpec& grid = heights.grid;
  const std::size_t n = grid.sample_count();
  const int nb = int(params.biomes.size());
  const int nl = int(params.layers.size());
  if (heights.data.size() != n || slope_deg.data.size() != n || biomes.biome_count != nb ||
      biomes.weights.size() != n * std::size_t(nb)) {
    fail("compute_splat",
         "heights, slope and biome weights must share one grid and the biome table");
  }
  struct LayerRule {
    SoftEdge h_lo, h_hi, s_lo, s_hi;
    float amplitude = 0.0f;
  };
  std::vector<LayerRule> rules(static_cast<std::size_t>(nl));
  std::vector<std::unique_ptr<NoiseGridSampler>> noise(static_cast<std::size_t>(nl));
  for (int l = 0; l < nl; ++l) {
    const SplatLayer& L = params.layers[std::size_t(l)];
    // Slope bounds at 0 and 90 degrees are open ends.
    rules[std::size_t(l)] = {
        soft_edge(L.height_min_m, L.height_blend_m, false),
        soft_edge(L.height_max_m, L.height_blend_m, true),
        soft_edge(L.slope_min_deg > 0.0 ? L.slope_min_deg : -kUnbounded, L.slope_blend_deg, false),
        soft_edge(L.slope_max_deg < 90.0 ? L.slope_max_deg : kUnbounded, L.slope_blend_deg, true),
        float(L.noise_amplitude)};
    if (L.noise_amplitude > 0.0) {
      NoiseParams np = L.noise;
      np.seed = surface_detail::purpose_seed(seed, surface_detail::kTagSplat, np.seed);
      noise[std::size_t(l)] = std::make_unique<NoiseGridSampler>(np, grid, ctx.simd);
    }
  }
  const SoftEdge rock = soft_edge(params.rock_slope_deg, params.rock_blend_deg, false);
  out.grid = grid;
  out.layer_count = nl;
  // Every plane is fully written below; reserved first (on huge pages, core/huge_pages.hpp) so
  // that a reused output grows to exactly the size needed (resize alone may double the
  // capacity).
  core_detail::resize_huge(out.weights, n * std::size_t(nl), &ctx);
  parallel_for(ctx, grid.height, 16, [&](std::int64_t j0, std::int64_t j1) {
    const std::size_t W = std::size_t(grid.width);
    std::vector<float> mix(W * std::size_t(nl)), sum(W), nrow(W), inv(W), rock_w(W), best_w(W),
        rest(W);
    std::vector<float> big(W);
    for (std::int64_t j = j0; j < j1; ++j) {
      throw_if_cancelled(ctx);
      const std::size_t row0 = std::size_t(j) * W;
      const float* h = heights.data.data() + row0;
      const float* s = slope_deg.data.data() + row0;
      // Biome-mixed weight per layer (kept for the all-zero fallback).
      std::fill(mix.begin(), mix.end(), 0.0f);
      for (int b = 0; b < nb; ++b) {
        const float* wb = biomes.weights.data() + std::size_t(b) * n + row0;
        const std::vector<float>& splat = params.biomes[std::size_t(b)].splat;
        for (int l = 0; l < nl; ++l) {
          const float f = splat[std::size_t(l)];
          if (f == 0.0f) continue;
          float* ml = mix.data() + std::size_t(l) * W;
          for (std::size_t i = 0; i < W; ++i) ml[i] += wb[i] * f;
        }
      }
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (int l = 0; l < nl; ++l) {
        const LayerRule& r = rules[std::size_t(l)];
        float* out_l = out.weights.data() + std::size_t(l) * n + row0;
        std::copy_n(mix.data() + std::size_t(l) * W, W, out_l);
        surface_detail::apply_edge(r.h_lo, h, out_l, W);
        surface_detail::apply_edge(r.h_hi, h, out_l, W);
        surface_detail::apply_edge(r.s_lo, s, out_l, W);
        surface_detail::apply_edge(r.s_hi, s, out_l, W);
        if (noise[std::size_t(l)]) {
          noise[std::size_t(l)]->row(int(j), 0, nrow);
          const float a = r.amplitude;
          for (std::size_t i = 0; i < W; ++i) out_l[i] *= 1.0f + a * nrow[i];
        }
        for (std::size_t i = 0; i < W; ++i) sum[i] += out_l[i];
      }
      for (std::size_t i = 0; i < W; ++i) inv[i] = sum[i] > 0.0f ? 1.0f / sum[i] : 0.0f;
      if (params.rock_layer >= 0) {
        for (std::size_t i = 0; i < W; ++i)
          rock_w[i] = surface_detail::smooth01(s[i] * rock.scale + rock.offset);
        for (std::size_t i = 0; i < W; ++i) inv[i] *= 1.0f - rock_w[i];
      }
      std::fill(best_w.begin(), best_w.end(), -1.0f);
      for (int l = 0; l < nl; ++l) {
        float* out_l = out.weights.data() + std::size_t(l) * n + row0;
        for (std::size_t i = 0; i < W; ++i) out_l[i] *= inv[i];
      }
      for (std::size_t i = 0; i < W; ++i) {
        if (sum[i] > 0.0f) continue;
        // No layer applies: the one with the largest biome-mixed weight takes the cell.
        int best = 0;
        for (int l = 1; l < nl; ++l) {
          if (mix[std::size_t(l) * W + i] > mix[std::size_t(best) * W + i]) best = l;
        }
        const float keep = params.rock_layer >= 0 ? 1.0f - rock_w[i] : 1.0f;
        out.weights[std::size_t(best) * n + row0 + i] = keep;
      }
      if (params.rock_layer >= 0) {
        float* rk = out.weights.data() + std::size_t(params.rock_layer) * n + row0;
        for (std::size_t i = 0; i < W; ++i) rk[i] += rock_w[i];
      }
      // Exact float sum of 1: the largest weight absorbs the rounding.
      // Layer ids are kept as floats so the compare-and-select loops vectorise.
      float* bw = best_w.data();
      float* bg = big.data();
      float* rs = rest.data();
      std::fill(big.begin(), big.end(), 0.0f);
      for (int l = 0; l < nl; ++l) {
        const float* out_l = out.weights.data() + std::size_t(l) * n + row0;
        const float id = float(l);
        for (std::size_t i = 0; i < W; ++i) {
          const float v = out_l[i], old = bw[i], old_id = bg[i];
          const float gt = v > old ? 1.0f : 0.0f;  // exact: ids are small integers
          bw[i] = std::max(old, v);
          bg[i] = old_id + gt * (id - old_id);
        }
      }
      std::fill(rest.begin(), rest.end(), 0.0f);
      for (int l = 0; l < nl; ++l) {
        const float* out_l = out.weights.data() + std::size_t(l) * n + row0;
        const float id = float(l);
        for (std::size_t i = 0; i < W; ++i) {
          const float v = out_l[i];
          rs[i] += bg[i] == id ? 0.0f : v;
        }
      }
      for (std::size_t i = 0; i < W; ++i) {
        out.weights[std::size_t(bg[i]) * n + row0 + i] = std::max(1.0f - rs[i], 0.0f);
      }
    }
  });
}

void splat_to_u8(const SplatMap& splat, std::vector<std::uint8_t>& out, const ExecContext& ctx) {
  const std::size_t n = splat.grid.sample_count();
  const int nl = splat.layer_count;
  if (nl <= 0 || splat.weights.size() != n * std::size_t(nl)) {
    fail("splat_to_u8", "splat map weights do not match its grid and layer count");
  }
  core_detail::assign_huge(out, n * std::size_t(nl), std::uint8_t(0), &ctx);
  parallel_for(ctx, std::int64_t(n), 4096, [&](std::int64_t c0, std::int64_t c1) {
    std::vector<float> rem(static_cast<std::size_t>(nl));
    for (std::int64_t c = c0; c < c1; ++c) {
      int total = 0;
      std::uint8_t* q = out.data() + std::size_t(c) * std::size_t(nl);
      for (int l = 0; l < nl; ++l) {
        const float v =
            std::clamp(splat.weights[std::size_t(l) * n + std::size_t(c)], 0.0f, 1.0f) * 255.0f;
        const float f = std::floor(v);
        q[l] = std::uint8_t(f);
        rem[std::size_t(l)] = v - f;
        total += q[l];
      }
      // Hand the missing units to the largest remainders (lowest layer first on ties); remove
      // surplus units (possible only for weights summing above 1) from the smallest remainders.
      while (total < 255) {
        int best = -1;
        for (int l = 0; l < nl; ++l) {
          if (q[l] < 255 && (best < 0 || rem[std::size_t(l)] > rem[std::size_t(best)])) best = l;
        }
        ++q[best];
        rem[std::size_t(best)] = -1.0f;
        ++total;
      }
      while (total > 255) {
        int worst = -1;
        for (int l = 0; l < nl; ++l) {
          if (q[l] > 0 && (worst < 0 || rem[std::size_t(l)] < rem[std::size_t(worst)])) worst = l;
        }
        --q[worst];
        rem[std::size_t(worst)] = 2.0f;
        --total;
      }
    }
  });
}

void splat_cell_average(const SplatMap& in, int i0, int j0, int cells_x, int cells_z, SplatMap& out,
                        const ExecContext& ctx) {
  const GridSpec& g = in.grid;
  const int nl = in.layer_count;
  if (nl <= 0 || in.weights.size() != g.sample_count() * std::size_t(nl)) {
    fail("splat_cell_average", "splat map weights do not match its grid and layer count");
  }
  if (cells_x < 1 || cells_z < 1 || i0 < 0 || j0 < 0 ||
      std::int64_t(i0) + cells_x > std::int64_t(g.width) - 1 ||
      std::int64_t(j0) + cells_z > std::int64_t(g.height) - 1) {
    fail("splat_cell_average", "cells (" + std::to_string(i0) + ", " + std::to_string(j0) +
                                   ") + " + std::to_string(cells_x) + " x " +
                                   std::to_string(cells_z) + " do not lie within the map of " +
                                   std::to_string(g.width) + " x " + std::to_string(g.height) +
                                   " samples");
  }
  GridSpec og = g;
  og.width = cells_x;
  og.height = cells_z;
  og.index_x0 = g.index_x0 + i0;
  og.index_z0 = g.index_z0 + j0;
  og.origin_x_m = g.origin_x_m + 0.5 * g.spacing_m;  // texel centres are cell centres
  og.origin_z_m = g.origin_z_m + 0.5 * g.spacing_m;
  out.grid = og;
  out.layer_count = nl;
  const std::size_t n_in = g.sample_count(), n = og.sample_count();
  const std::size_t W = std::size_t(g.width);
  core_detail::assign_huge(out.weights, n * std::size_t(nl), 0.0f, &ctx);
  parallel_for(ctx, cells_z, 16, [&](std::int64_t jb, std::int64_t je) {
    for (std::int64_t j = jb; j < je; ++j) {
      for (int i = 0; i < cells_x; ++i) {
        const std::size_t c00 = std::size_t(j0 + j) * W + std::size_t(i0 + i);
        const std::size_t o = std::size_t(j) * std::size_t(cells_x) + std::size_t(i);
        // Each corner's weights sum to 1, so their mean does too; the float rounding goes to
        // the largest weight, as in compute_splat.
        int best = 0;
        float best_w = -1.0f, rest = 0.0f;
        for (int l = 0; l < nl; ++l) {
          const float* w = in.weights.data() + std::size_t(l) * n_in;
          const float v = float(0.25 * (double(w[c00]) + double(w[c00 + 1]) + double(w[c00 + W]) +
                                        double(w[c00 + W + 1])));
          out.weights[std::size_t(l) * n + o] = v;
          if (v > best_w) {
            best_w = v;
            best = l;
          }
        }
        for (int l = 0; l < nl; ++l) {
          if (l != best) rest += out.weights[std::size_t(l) * n + o];
        }
        out.weights[std::size_t(best) * n + o] = std::max(1.0f - rest, 0.0f);
      }
    }
  });
}

}  // namespace terrane
