// Biome weights from a Whittaker-style table (Whittaker 1975, "Communities and Ecosystems":
// biomes as regions of mean annual temperature and precipitation), extended by a height range.
// Each biome's membership is a product of smoothstep edges, normalised over biomes, so borders
// blend over a configurable width and the weights sum to 1.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/huge_pages.hpp"
#include "surface/surface_internal.hpp"

namespace terrane {

using surface_detail::fail;
using surface_detail::soft_edge;
using surface_detail::SoftEdge;

namespace {

struct BiomeEdges {
  SoftEdge t_lo, t_hi, m_lo, m_hi, h_lo, h_hi;
};

// Distance outside the biome's box, in blend units (0 inside).
float box_distance(const Biome& b, const BiomeBlend& blend, float t, float m, float h) {
  auto d = [](double v, double lo, double hi, double w) {
    return float(std::max({lo - v, v - hi, 0.0}) / w);
  };
  return d(t, b.temperature_min_c, b.temperature_max_c, blend.temperature_c) +
         d(m, b.moisture_min_mm, b.moisture_max_mm, blend.moisture_mm) +
         d(h, b.height_min_m, b.height_max_m, blend.height_m);
}

}  // namespace

void compute_biome_weights(const SurfaceParams& params, const Field2D& heights,
                           const Climate& climate, BiomeWeights& out, const ExecContext& ctx) {
  params.validate();
  const GridSpec& grid = heights.grid;
  const std::size_t n = grid.sample_count();
  if (heights.data.size() != n || climate.temperature_c.data.size() != n ||
      climate.moisture_mm.data.size() != n) {
    fail("compute_biome_weights", "heights and climate fields must have the same grid");
  }
  const int nb = int(params.biomes.size());
  std::vector<BiomeEdges> edges(static_cast<std::size_t>(nb));
  for (int b = 0; b < nb; ++b) {
    const Biome& B = params.biomes[std::size_t(b)];
    const BiomeBlend& w = params.blend;
    edges[std::size_t(b)] = {soft_edge(B.temperature_min_c, w.temperature_c, false),
                             soft_edge(B.temperature_max_c, w.temperature_c, true),
                             soft_edge(B.moisture_min_mm, w.moisture_mm, false),
                             soft_edge(B.moisture_max_mm, w.moisture_mm, true),
                             soft_edge(B.height_min_m, w.height_m, false),
                             soft_edge(B.height_max_m, w.height_m, true)};
  }
  out.grid = grid;
  out.biome_count = nb;
  // Every plane is fully written below; reserved first (on huge pages, core/huge_pages.hpp) so
  // that a reused output grows to exactly the size needed (resize alone may double the
  // capacity).
  core_detail::resize_huge(out.weights, n * std::size_t(nb), &ctx);
  core_detail::resize_huge(out.dominant, n, &ctx);
  parallel_for(ctx, grid.height, 16, [&](std::int64_t j0, std::int64_t j1) {
    const std::size_t W = std::size_t(grid.width);
    std::vector<float> sum(W), inv(W), best_w(W), best_id(W);
    for (std::int64_t j = j0; j < j1; ++j) {
      throw_if_cancelled(ctx);
      const std::size_t row0 = std::size_t(j) * W;
      const float* t = climate.temperature_c.data.data() + row0;
      const float* m = climate.moisture_mm.data.data() + row0;
      const float* h = heights.data.data() + row0;
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (int b = 0; b < nb; ++b) {
        const BiomeEdges& e = edges[std::size_t(b)];
        float* wb = out.weights.data() + std::size_t(b) * n + row0;
        std::fill(wb, wb + W, 1.0f);
        surface_detail::apply_edge(e.t_lo, t, wb, W);
        surface_detail::apply_edge(e.t_hi, t, wb, W);
        surface_detail::apply_edge(e.m_lo, m, wb, W);
        surface_detail::apply_edge(e.m_hi, m, wb, W);
        surface_detail::apply_edge(e.h_lo, h, wb, W);
        surface_detail::apply_edge(e.h_hi, h, wb, W);
        for (std::size_t i = 0; i < W; ++i) sum[i] += wb[i];
      }
      // Normalise plane by plane (vectorisable); cells with sum 0 are fixed below.
      for (std::size_t i = 0; i < W; ++i) inv[i] = sum[i] > 0.0f ? 1.0f / sum[i] : 0.0f;
      std::fill(best_w.begin(), best_w.end(), -1.0f);
      std::uint8_t* dom = out.dominant.data() + row0;
      for (int b = 0; b < nb; ++b) {
        float* wb = out.weights.data() + std::size_t(b) * n + row0;
        const float id = float(b);
        float* bw = best_w.data();
        float* bi = best_id.data();
        const float* iv = inv.data();
        for (std::size_t i = 0; i < W; ++i) {
          const float v = wb[i] * iv[i];
          const float old = bw[i], old_id = bi[i];
          wb[i] = v;
          bw[i] = v > old ? v : old;
          bi[i] = v > old ? id : old_id;
        }
      }
      for (std::size_t i = 0; i < W; ++i) dom[i] = std::uint8_t(best_id[i]);
      for (std::size_t i = 0; i < W; ++i) {
        if (sum[i] > 0.0f) continue;
        // A gap in the table: the nearest box takes the cell.
        int best = 0;
        float best_d = INFINITY;
        for (int b = 0; b < nb; ++b) {
          const float d =
              box_distance(params.biomes[std::size_t(b)], params.blend, t[i], m[i], h[i]);
          if (d < best_d) {
            best_d = d;
            best = b;
          }
        }
        out.weights[std::size_t(best) * n + row0 + i] = 1.0f;
        dom[i] = std::uint8_t(best);
      }
    }
  });
}

}  // namespace terrane
