// Climate: temperature (°C) and moisture (annual precipitation, mm/yr) per sample.
// Temperature follows the standard-atmosphere lapse rate (6.5 °C/km by default) above sea
// level, plus a noise and an optional latitude gradient; moisture is a noise plus a boost near
// water, spread by a Gaussian blur of the water mask.
#include <algorithm>
#include <vector>

#include "core/huge_pages.hpp"
#include "surface/surface_internal.hpp"
#include "terrane/field.hpp"

namespace terrane {

using surface_detail::fail;

namespace {

std::unique_ptr<CompiledGraph> compile_node(const GraphSource& preset, const std::string& id,
                                            const char* field) {
  if (id.empty()) return nullptr;
  Graph g = *preset.graph;
  g.output = -1;
  std::string known;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    if (g.nodes[k].id == id) g.output = int(k);
    known += (known.empty() ? "" : ", ") + g.nodes[k].id;
  }
  if (g.output < 0) {
    fail(preset.source + ": surface.climate." + field,
         "unknown graph node '" + id + "' (known: " + known + ")");
  }
  // Heights range [-1, 1]: the compiled graph returns the node's output itself.
  WorldSettings w = preset.world;
  w.height_min_m = -1.0;
  w.height_max_m = 1.0;
  return std::make_unique<CompiledGraph>(compile(g, w, preset.seed, preset.source));
}

}  // namespace

ClimateSources compile_climate_sources(const GraphSource& preset, const ClimateParams& params) {
  ClimateSources s;
  s.temperature = compile_node(preset, params.temperature_node, "temperature_node");
  s.moisture = compile_node(preset, params.moisture_node, "moisture_node");
  return s;
}

void compute_climate(const ClimateParams& params, std::uint64_t seed, const Field2D& heights,
                     std::span<const std::uint8_t> water, Climate& out, const ExecContext& ctx,
                     const ClimateSources* sources) {
  params.validate();
  const GridSpec& grid = heights.grid;
  grid.validate("climate grid");
  if (heights.data.size() != grid.sample_count())
    fail("compute_climate", "heights size does not match its grid");
  if (!water.empty() && water.size() != grid.sample_count()) {
    fail("compute_climate", "water mask has " + std::to_string(water.size()) + " bytes for " +
                                std::to_string(grid.sample_count()) + " samples");
  }
  NoiseParams tn = params.temperature_noise;
  tn.seed = surface_detail::purpose_seed(seed, surface_detail::kTagTemperature, tn.seed);
  NoiseParams mn = params.moisture_noise;
  mn.seed = surface_detail::purpose_seed(seed, surface_detail::kTagMoisture, mn.seed);
  const NoiseGridSampler t_sampler(tn, grid, ctx.simd);
  const NoiseGridSampler m_sampler(mn, grid, ctx.simd);
  const CompiledGraph* t_graph = sources != nullptr ? sources->temperature.get() : nullptr;
  const CompiledGraph* m_graph = sources != nullptr ? sources->moisture.get() : nullptr;
  if ((!params.temperature_node.empty() && t_graph == nullptr) ||
      (!params.moisture_node.empty() && m_graph == nullptr)) {
    fail("compute_climate",
         "a climate graph node is named but not compiled (compile_climate_sources)");
  }
  Field2D t_node, m_node;
  if (t_graph != nullptr) {
    t_node = Field2D(grid, ctx);
    evaluate(*t_graph, grid, t_node.data, ctx);
  }
  if (m_graph != nullptr) {
    m_node = Field2D(grid, ctx);
    evaluate(*m_graph, grid, m_node.data, ctx);
  }

  Field2D boost;
  if (!water.empty() && params.water_boost_mm > 0.0) {
    Field2D mask(grid, ctx);
    for (std::size_t c = 0; c < mask.data.size(); ++c) mask.data[c] = water[c] != 0 ? 1.0f : 0.0f;
    gaussian_blur(mask, params.water_boost_distance_m, boost, ctx);
  }

  // Every sample is written below: keep the outputs' buffers when they fit (callers that
  // compute many chunks reuse one Climate without reallocating); when they grow, to exactly the
  // size needed (reserved first, on huge pages: resize alone may double the capacity).
  for (Field2D* f : {&out.temperature_c, &out.moisture_mm}) {
    f->grid = grid;
    core_detail::resize_huge(f->data, grid.sample_count(), &ctx);
  }
  const float t_mean = float(params.temperature_mean_c);
  const float t_amp = float(params.temperature_amplitude_c);
  const float lat = float(params.latitude_gradient_c_per_km / 1000.0);
  const float lapse = float(params.lapse_rate_c_per_km / 1000.0);
  const float sea = float(params.sea_level_m);
  const float m_mean = float(params.moisture_mean_mm);
  const float m_amp = float(params.moisture_amplitude_mm);
  const float w_boost = float(params.water_boost_mm);
  parallel_for(ctx, grid.height, 16, [&](std::int64_t j0, std::int64_t j1) {
    std::vector<float> tn_row(std::size_t(grid.width)), mn_row(std::size_t(grid.width));
    for (std::int64_t j = j0; j < j1; ++j) {
      throw_if_cancelled(ctx);
      const int jj = int(j);
      if (t_graph != nullptr) {
        std::copy(t_node.row(jj).begin(), t_node.row(jj).end(), tn_row.begin());
      } else {
        t_sampler.row(jj, 0, tn_row);
      }
      if (m_graph != nullptr) {
        std::copy(m_node.row(jj).begin(), m_node.row(jj).end(), mn_row.begin());
      } else {
        m_sampler.row(jj, 0, mn_row);
      }
      const float lat_term = lat * float(grid.z_m(j));
      const std::span<const float> h = heights.row(jj);
      const std::span<float> t = out.temperature_c.row(jj);
      const std::span<float> m = out.moisture_mm.row(jj);
      for (int i = 0; i < grid.width; ++i) {
        const float above = std::max(h[i] - sea, 0.0f);
        t[i] = t_mean + t_amp * tn_row[i] + lat_term - lapse * above;
        m[i] = std::max(m_mean + m_amp * mn_row[i], 0.0f);
      }
      if (!boost.data.empty()) {
        const std::span<const float> b = boost.row(jj);
        for (int i = 0; i < grid.width; ++i) m[i] = m[i] + w_boost * b[i];
      }
    }
  });
}

}  // namespace terrane
