#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numbers>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "support/expect_error.hpp"
#include "support/test_rng.hpp"
#include "terrane/field.hpp"
#include "terrane/graph.hpp"
#include "terrane/noise.hpp"
#include "terrane/preset.hpp"
#include "terrane/surface.hpp"

namespace terrane {
namespace {

GridSpec grid(int w, int h, double spacing = 1.0) {
  return GridSpec{.width = w, .height = h, .spacing_m = spacing};
}

Field2D noise_terrain(const GridSpec& g, double base_m, double amplitude_m, double frequency) {
  NoiseParams p;
  p.fractal = FractalType::fbm;
  p.octaves = 5;
  p.seed = 5;
  p.frequency = frequency;
  Field2D f(g);
  noise_fill(p, g, f.data);
  for (float& v : f.data) v = float(base_m + amplitude_m * double(v));
  return f;
}

struct Surface {
  Climate climate;
  BiomeWeights biomes;
  Field2D slope;
  SplatMap splat;
};

Surface run_surface(const SurfaceParams& params, const Field2D& heights, int threads = 0) {
  Surface s;
  const ExecContext ctx{.threads = threads};
  compute_climate(params.climate, 42, heights, {}, s.climate, ctx);
  compute_biome_weights(params, heights, s.climate, s.biomes, ctx);
  slope_deg_clamped(heights, s.slope, ctx);
  compute_splat(params, 42, heights, s.slope, s.biomes, s.splat, ctx);
  return s;
}

// A world with lots of varied land: 0..1200 m over a few km, sea level 0.
WorldSettings test_world() {
  WorldSettings w;
  w.sea_level_m = 0.0;
  return w;
}

TEST(SurfaceDefaults, BuiltinPresetsValidateWithEightBiomes) {
  for (const std::string& name : builtin_preset_names()) {
    const Preset preset = load_preset(name);
    const SurfaceParams& p = preset.surface;
    ASSERT_EQ(p.biomes.size(), 8u) << name;
    std::vector<std::string> names;
    for (const Biome& b : p.biomes) names.push_back(b.name);
    for (const char* want :
         {"ocean", "beach", "grassland", "forest", "desert", "tundra", "snow", "rock"}) {
      EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
    }
    // In this order: the index is the value of the biome-id map.
    EXPECT_EQ(names, (std::vector<std::string>{"ocean", "beach", "grassland", "forest", "desert",
                                               "tundra", "snow", "rock"}))
        << name;
    std::vector<std::string> layers, species;
    for (const SplatLayer& l : p.layers) layers.push_back(l.name);
    for (const Species& sp : p.species) species.push_back(sp.name);
    EXPECT_EQ(layers, (std::vector<std::string>{"seabed", "sand", "grass", "forest_floor",
                                                "dry_soil", "moss", "rock", "snow"}))
        << name;
    EXPECT_EQ(p.rock_layer, 6) << name;
    EXPECT_EQ(species, (std::vector<std::string>{"tree", "bush", "boulder"})) << name;
  }
}

TEST(Splat, WeightsSumToOneAndBytesTo255) {
  const SurfaceParams params = default_surface(test_world());
  const Field2D h = noise_terrain(grid(257, 257, 8.0), 300.0, 900.0, 0.0008);
  const Surface s = run_surface(params, h);
  const std::size_t n = h.grid.sample_count();
  std::vector<int> dominant_seen(params.biomes.size(), 0);
  for (std::size_t c = 0; c < n; ++c) {
    float sum = 0.0f, bsum = 0.0f;
    for (int l = 0; l < s.splat.layer_count; ++l) {
      const float w = s.splat.weight(l, c);
      ASSERT_GE(w, 0.0f);
      ASSERT_LE(w, 1.0f);
      sum += w;
    }
    ASSERT_NEAR(sum, 1.0f, 1e-6f) << c;
    for (int b = 0; b < s.biomes.biome_count; ++b) bsum += s.biomes.weight(b, c);
    ASSERT_NEAR(bsum, 1.0f, 1e-6f) << c;
    ++dominant_seen[s.biomes.dominant[c]];
  }
  int kinds = 0;
  for (int k : dominant_seen) kinds += k > 0 ? 1 : 0;
  EXPECT_GE(kinds, 4) << "the test terrain should cross several biomes";
  std::vector<std::uint8_t> q;
  splat_to_u8(s.splat, q);
  ASSERT_EQ(q.size(), n * 8);
  for (std::size_t c = 0; c < n; ++c) {
    int total = 0;
    for (int l = 0; l < 8; ++l) total += q[c * 8 + std::size_t(l)];
    ASSERT_EQ(total, 255) << c;
  }
}

TEST(Splat, LargestRemainderRoundingOfHardCases) {
  SplatMap m;
  m.grid = grid(3, 1);
  m.layer_count = 3;
  // thirds, (0.5, 0.5, 0), (0.998, 0.001, 0.001)
  m.weights = {1.0f / 3, 0.5f, 0.998f, 1.0f / 3, 0.5f, 0.001f, 1.0f / 3, 0.0f, 0.001f};
  std::vector<std::uint8_t> q;
  splat_to_u8(m, q);
  EXPECT_EQ(q[0] + q[1] + q[2], 255);
  EXPECT_EQ(q[0], 85);
  EXPECT_EQ(q[3] + q[4] + q[5], 255);
  EXPECT_EQ(q[6] + q[7] + q[8], 255);
  EXPECT_EQ(q[6], 255);  // 254.49 + 0.255 + 0.255: the missing unit goes to 0.49
}

TEST(Splat, BitIdenticalAcrossThreadCountsAndSubGrids) {
  const SurfaceParams params = default_surface(test_world());
  const GridSpec g = grid(300, 200, 4.0);
  const Field2D h = noise_terrain(g, 300.0, 900.0, 0.001);
  const Surface one = run_surface(params, h, 1);
  for (int threads : {2, 0}) {
    const Surface many = run_surface(params, h, threads);
    EXPECT_EQ(hash_floats(one.splat.weights), hash_floats(many.splat.weights)) << threads;
    EXPECT_EQ(hash_floats(one.biomes.weights), hash_floats(many.biomes.weights)) << threads;
    EXPECT_EQ(one.biomes.dominant, many.biomes.dominant);
  }
  // Climate and biome weights are pointwise: a sub-grid gives the same bits as the whole.
  const GridSpec sub = g.sub(37, 51, 100, 80);
  Field2D hs(sub);
  for (int j = 0; j < sub.height; ++j)
    for (int i = 0; i < sub.width; ++i) hs.at(i, j) = h.at(i + 37, j + 51);
  Climate cs;
  compute_climate(params.climate, 42, hs, {}, cs);
  BiomeWeights bs;
  compute_biome_weights(params, hs, cs, bs);
  for (int j = 0; j < sub.height; ++j) {
    for (int i = 0; i < sub.width; ++i) {
      const std::size_t a = std::size_t(j) * std::size_t(sub.width) + std::size_t(i);
      const std::size_t b = std::size_t(j + 51) * 300u + std::size_t(i + 37);
      ASSERT_EQ(cs.temperature_c.data[a], one.climate.temperature_c.data[b]);
      ASSERT_EQ(cs.moisture_mm.data[a], one.climate.moisture_mm.data[b]);
      for (int k = 0; k < bs.biome_count; ++k) ASSERT_EQ(bs.weight(k, a), one.biomes.weight(k, b));
    }
  }
}

// Sweeps temperature, moisture, height and slope through biome and layer borders in fine steps:
// no weight may jump.
TEST(Splat, TransitionsAreContinuous) {
  SurfaceParams params = default_surface(test_world());
  params.layers[2].noise_amplitude = 0.0;  // the sweep runs along x: no spatial noise
  const int n = 4000;
  const GridSpec g = grid(n, 4);
  Field2D h(g), slope(g);
  Climate climate{Field2D(g), Field2D(g)};
  for (int i = 0; i < n; ++i) {
    const float t = float(i) / float(n - 1);
    // row 0: temperature -12 .. 8 C; row 1: moisture 0 .. 1600 mm; row 2: height -5 .. 10 m;
    // row 3: slope 0 .. 80 degrees.
    for (int j = 0; j < 4; ++j) {
      climate.temperature_c.at(i, j) = j == 0 ? -12.0f + 20.0f * t : 10.0f;
      climate.moisture_mm.at(i, j) = j == 1 ? 1600.0f * t : 500.0f;
      h.at(i, j) = j == 2 ? -5.0f + 15.0f * t : 50.0f;
      slope.at(i, j) = j == 3 ? 80.0f * t : 5.0f;
    }
  }
  BiomeWeights bw;
  compute_biome_weights(params, h, climate, bw);
  SplatMap sm;
  compute_splat(params, 1, h, slope, bw, sm);
  float worst_b = 0.0f, worst_s = 0.0f;
  for (int j = 0; j < 4; ++j) {
    for (int i = 1; i < n; ++i) {
      const std::size_t c = std::size_t(j) * n + std::size_t(i);
      for (int b = 0; b < bw.biome_count; ++b)
        worst_b = std::max(worst_b, std::fabs(bw.weight(b, c) - bw.weight(b, c - 1)));
      for (int l = 0; l < sm.layer_count; ++l)
        worst_s = std::max(worst_s, std::fabs(sm.weight(l, c) - sm.weight(l, c - 1)));
    }
  }
  // Steps are at most 0.4 mm / 0.005 C / 0.004 m / 0.02 deg: a smoothstep over 2 blend widths
  // changes by < 1.5 * step / (2 blend) per step.
  EXPECT_LT(worst_b, 0.01f);
  EXPECT_LT(worst_s, 0.02f);
  // Each sweep actually crosses borders.
  EXPECT_NE(bw.dominant[0], bw.dominant[std::size_t(n - 1)]);
  EXPECT_GT(sm.weight(params.rock_layer, std::size_t(3 * n + n - 1)), 0.99f);
  EXPECT_LT(sm.weight(params.rock_layer, std::size_t(3 * n)), 0.01f);
}

TEST(Biomes, AssignmentMatchesTheTableFarFromBorders) {
  const SurfaceParams params = default_surface(test_world());
  test::TestRng rng{3};
  const int n = 20000;
  const GridSpec g = grid(n, 1);
  Field2D h(g);
  Climate climate{Field2D(g), Field2D(g)};
  for (int i = 0; i < n; ++i) {
    climate.temperature_c.at(i, 0) = float(rng.uniform(-30.0, 40.0));
    climate.moisture_mm.at(i, 0) = float(rng.uniform(0.0, 3000.0));
    h.at(i, 0) = float(rng.uniform(-100.0, 500.0));
  }
  BiomeWeights bw;
  compute_biome_weights(params, h, climate, bw);
  int checked = 0;
  for (int i = 0; i < n; ++i) {
    const double t = climate.temperature_c.at(i, 0), m = climate.moisture_mm.at(i, 0),
                 hh = h.at(i, 0);
    auto clear = [](double v, double lo, double hi, double blend) {
      return v > lo + blend && v < hi - blend;
    };
    int owner = -1;
    for (std::size_t b = 0; b < params.biomes.size(); ++b) {
      const Biome& B = params.biomes[b];
      if (clear(t, B.temperature_min_c, B.temperature_max_c, params.blend.temperature_c) &&
          clear(m, B.moisture_min_mm, B.moisture_max_mm, params.blend.moisture_mm) &&
          clear(hh, B.height_min_m, B.height_max_m, params.blend.height_m)) {
        owner = int(b);
      }
    }
    if (owner < 0) continue;
    ++checked;
    ASSERT_EQ(bw.dominant[std::size_t(i)], owner) << "T " << t << " M " << m << " H " << hh;
    ASSERT_EQ(bw.weight(owner, std::size_t(i)), 1.0f);
  }
  EXPECT_GT(checked, n / 2);
}

TEST(Climate, GraphNodeSourcesReplaceTheNoise) {
  const Preset preset = parse_preset(
      R"({"graph": {"output": "h", "nodes": {"h": {"type": "fbm", "frequency": 0.01},
                                               "warmth": {"type": "constant", "value": 0.5},
                                               "rain": {"type": "perlin", "frequency": 0.02}}},
          "surface": {"climate": {"temperature_node": "warmth", "temperature_mean_c": 0,
                                  "temperature_amplitude_c": 10, "lapse_rate_c_per_km": 0,
                                  "moisture_node": "rain", "moisture_mean_mm": 1000,
                                  "moisture_amplitude_mm": 500}}})",
      "nodes.json");
  const SurfaceParams& p = preset.surface;
  const ClimateSources sources = compile_climate_sources(preset.generator(), p.climate);
  ASSERT_TRUE(sources.temperature && sources.moisture);
  const GridSpec g{.width = 40, .height = 30, .spacing_m = 3.0, .index_x0 = 5, .index_z0 = -7};
  Field2D h(g);
  Climate c;
  compute_climate(p.climate, preset.seed, h, {}, c, {}, &sources);
  std::vector<float> rain(g.sample_count());
  Graph rg = preset.graph;
  WorldSettings w = preset.world;
  w.height_min_m = -1.0;
  w.height_max_m = 1.0;
  for (std::size_t k = 0; k < rg.nodes.size(); ++k) {
    if (rg.nodes[k].id == "rain") rg.output = int(k);
  }
  evaluate(compile(rg, w, preset.seed), g, rain);
  for (std::size_t k = 0; k < g.sample_count(); ++k) {
    ASSERT_EQ(c.temperature_c.data[k], 5.0f);
    ASSERT_EQ(c.moisture_mm.data[k], std::max(1000.0f + 500.0f * rain[k], 0.0f));
  }
  test::expect_error_eq([&] { compute_climate(p.climate, preset.seed, h, {}, c); },
                        ErrorCategory::invalid_argument,
                        "compute_climate: a climate graph node is named but not compiled "
                        "(compile_climate_sources)");  // sources missing
}

TEST(Climate, LapseRateAndLatitudeGradient) {
  ClimateParams c;
  c.temperature_amplitude_c = 0.0;
  c.moisture_amplitude_mm = 0.0;
  c.latitude_gradient_c_per_km = -2.0;
  const GridSpec g = grid(3, 3, 1000.0);
  Field2D h(g);
  h.at(1, 0) = 2000.0f;
  h.at(2, 0) = -500.0f;
  Climate out;
  compute_climate(c, 1, h, {}, out);
  EXPECT_NEAR(out.temperature_c.at(0, 0), 14.0f, 1e-4f);
  EXPECT_NEAR(out.temperature_c.at(1, 0), 14.0f - 13.0f, 1e-4f);
  EXPECT_NEAR(out.temperature_c.at(2, 0), 14.0f, 1e-4f);  // below sea level: no lapse
  EXPECT_NEAR(out.temperature_c.at(0, 2), 14.0f - 4.0f, 1e-4f);
  EXPECT_NEAR(out.moisture_mm.at(0, 0), 800.0f, 1e-3f);
  // Water boost: wetter next to water than far from it.
  std::vector<std::uint8_t> water(9, 0);
  water[0] = 1;
  c.water_boost_distance_m = 1000.0;
  compute_climate(c, 1, h, water, out);
  EXPECT_GT(out.moisture_mm.at(0, 0), out.moisture_mm.at(2, 2));
  EXPECT_GT(out.moisture_mm.at(2, 2), 800.0f - 1e-3f);
}

// ---------------------------------------------------------------------------------------------
// Scatter

// One biome everywhere, one species: flat uniform land.
SurfaceParams uniform_params(double density, double min_distance) {
  SurfaceParams p = default_surface(test_world());
  p.species.resize(1);
  p.species[0] = Species{};
  p.species[0].name = "tree";
  p.species[0].density_per_m2 = density;
  p.species[0].min_distance_m = min_distance;
  Biome b;
  b.name = "everywhere";
  b.splat.assign(p.layers.size(), 1.0f);
  b.scatter = {1.0f};
  p.biomes = {b};
  return p;
}

struct Fields {
  Field2D heights;
  BiomeWeights biomes;
};

Fields fields_for(const SurfaceParams& p, const Field2D& heights) {
  Fields f{heights, {}};
  Climate c;
  compute_climate(p.climate, 42, f.heights, {}, c);
  compute_biome_weights(p, f.heights, c, f.biomes);
  return f;
}

void check_min_distance(const std::vector<ScatterInstance>& pts, int species, double r) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> cells;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    if (pts[k].species != species) continue;
    cells[{std::int64_t(std::floor(pts[k].x_m / r)), std::int64_t(std::floor(pts[k].z_m / r))}]
        .push_back(k);
  }
  std::int64_t pairs = 0;
  for (const auto& [key, list] : cells) {
    for (std::int64_t dz = -1; dz <= 1; ++dz) {
      for (std::int64_t dx = -1; dx <= 1; ++dx) {
        auto it = cells.find({key.first + dx, key.second + dz});
        if (it == cells.end()) continue;
        for (std::size_t a : list) {
          for (std::size_t b : it->second) {
            if (a == b) continue;
            ++pairs;
            const double ddx = pts[a].x_m - pts[b].x_m, ddz = pts[a].z_m - pts[b].z_m;
            ASSERT_GE(ddx * ddx + ddz * ddz, r * r) << "points " << a << " and " << b;
          }
        }
      }
    }
  }
  EXPECT_GT(pairs, 0);
}

TEST(Scatter, DensityWithinTenPercentOnFlatUniformLand) {
  for (auto [density, r] : {std::pair{0.05, 2.0}, std::pair{0.01, 5.0}, std::pair{0.2, 1.0}}) {
    const SurfaceParams p = uniform_params(density, r);
    Field2D flat(grid(521, 521, 1.0));
    std::fill(flat.data.begin(), flat.data.end(), 10.0f);
    const Fields f = fields_for(p, flat);
    std::vector<ScatterInstance> pts;
    scatter_region(p, 7, {&f.heights, &f.biomes, {}, {}}, 50.0, 50.0, 450.0, 450.0, pts);
    const double expected = density * 400.0 * 400.0;
    EXPECT_NEAR(double(pts.size()), expected, 0.1 * expected) << density << " / " << r;
    check_min_distance(pts, 0, r);
  }
}

// Rolling land 20..260 m with a warm, wet climate: forest, grassland and some rock.
Preset rolling_preset() {
  return parse_preset(
      R"({"seed": 9, "world": {"cell_size_m": 1.0, "height_min_m": 20, "height_max_m": 260},
          "graph": {"output": "h", "nodes": {"h": {"type": "fbm", "frequency": 0.004, "octaves": 4}}},
          "surface": {"climate": {"moisture_mean_mm": 1000}}})",
      "rolling.json");
}

TEST(Scatter, IdenticalWholeOrChunksInRandomOrderAndAcrossThreads) {
  const Preset preset = rolling_preset();
  const CompiledGraph graph = compile(preset);
  SurfaceParams p = preset.surface;
  const double x0 = 100.0, z0 = -60.0, side = 192.0;
  std::vector<ScatterInstance> whole;
  scatter_chunk(graph, p, preset.seed, x0, z0, x0 + side, z0 + side, 64, whole,
                ExecContext{.threads = 1});
  ASSERT_GT(whole.size(), 50u);
  std::vector<std::pair<int, int>> order;
  for (int cz = 0; cz < 3; ++cz)
    for (int cx = 0; cx < 3; ++cx) order.push_back({cx, cz});
  test::shuffle(order, 11);
  std::vector<ScatterInstance> parts;
  ScatterScratch scratch;  // reused from chunk to chunk, as a streamer's worker does
  for (auto [cx, cz] : order) {
    scatter_chunk(graph, p, preset.seed, x0 + 64.0 * cx, z0 + 64.0 * cz, x0 + 64.0 * (cx + 1),
                  z0 + 64.0 * (cz + 1), 64, parts, ExecContext{.threads = 2}, nullptr, &scratch);
  }
  auto key = [](const ScatterInstance& a) { return std::tuple(a.species, a.z_m, a.x_m); };
  auto less = [&](const ScatterInstance& a, const ScatterInstance& b) { return key(a) < key(b); };
  std::sort(whole.begin(), whole.end(), less);
  std::sort(parts.begin(), parts.end(), less);
  ASSERT_EQ(whole.size(), parts.size());
  for (std::size_t k = 0; k < whole.size(); ++k) {
    ASSERT_EQ(std::memcmp(&whole[k], &parts[k], sizeof(ScatterInstance)), 0) << k;
  }
  // Whole region on several thread counts: same bytes, same order.
  for (int threads : {2, 0}) {
    std::vector<ScatterInstance> again;
    scatter_chunk(graph, p, preset.seed, x0, z0, x0 + side, z0 + side, 64, again,
                  ExecContext{.threads = threads});
    std::sort(again.begin(), again.end(), less);
    ASSERT_EQ(again.size(), whole.size());
    EXPECT_EQ(std::memcmp(again.data(), whole.data(), whole.size() * sizeof(ScatterInstance)), 0);
  }
}

// Instance ids: unique over a region, the same for the same instance in overlapping regions
// (chunks of another size, another origin), and another world seed gives other ids.
TEST(Scatter, InstanceIdsAreUniqueAndStable) {
  const Preset preset = rolling_preset();
  const CompiledGraph graph = compile(preset);
  std::vector<ScatterInstance> a, b, other;
  scatter_chunk(graph, preset.surface, preset.seed, 0.0, 0.0, 256.0, 256.0, 64, a);
  scatter_chunk(graph, preset.surface, preset.seed, 128.0, 64.0, 384.0, 192.0, 128, b);
  scatter_chunk(graph, preset.surface, preset.seed + 1, 0.0, 0.0, 256.0, 256.0, 64, other);
  ASSERT_GT(a.size(), 200u);
  std::set<std::uint64_t> ids;
  std::map<std::tuple<int, double, double>, std::uint64_t> by_place;
  for (const ScatterInstance& s : a) {
    EXPECT_TRUE(ids.insert(s.id).second) << "two instances share id " << s.id;
    by_place[{s.species, s.x_m, s.z_m}] = s.id;
  }
  std::size_t shared = 0;
  for (const ScatterInstance& s : b) {
    const auto it = by_place.find({s.species, s.x_m, s.z_m});
    if (it == by_place.end()) continue;
    ++shared;
    EXPECT_EQ(it->second, s.id);
  }
  EXPECT_GT(shared, 50u);
  std::size_t reused = 0;
  for (const ScatterInstance& s : other) reused += ids.count(s.id);
  EXPECT_EQ(reused, 0u);
}

// A scratch reused over regions of different sizes, on every SIMD target (ExecContext::simd,
// over a process-wide scalar; clustering evaluates noise per candidate), gives the bytes of a
// fresh call, and stays within scatter_chunk_scratch_bytes().
TEST(Scatter, ScratchReuseAndSimdTargetGiveSameBytesWithinTheBound) {
  struct Restore {
    ~Restore() { set_simd_target(SimdTarget::best); }
  } restore;
  const Preset preset = parse_preset(
      R"({"seed": 4, "world": {"cell_size_m": 2.0, "height_min_m": 20, "height_max_m": 260},
          "graph": {"output": "h", "nodes": {"h": {"type": "fbm", "frequency": 0.004, "octaves": 4}}},
          "surface": {"climate": {"moisture_mean_mm": 1000}}})",
      "rolling.json");
  const CompiledGraph graph = compile(preset);
  SurfaceParams p = preset.surface;
  ASSERT_FALSE(p.species.empty());
  p.species[0].cluster_amplitude = 0.6;
  const double bound = double(scatter_chunk_scratch_bytes(p, 160.0, 2.0));
  ScatterScratch scratch;
  EXPECT_EQ(scratch.bytes(), 0u);
  const double regions[][3] = {{-40.0, 10.0, 64.0}, {300.0, -500.0, 160.0}, {0.0, 0.0, 32.0}};
  for (SimdTarget t : supported_simd_targets()) {
    for (const auto& r : regions) {
      set_simd_target(SimdTarget::scalar);
      std::vector<ScatterInstance> fresh, reused;
      scatter_chunk(graph, p, preset.seed, r[0], r[1], r[0] + r[2], r[1] + r[2], 64, fresh);
      scatter_chunk(graph, p, preset.seed, r[0], r[1], r[0] + r[2], r[1] + r[2], 64, reused,
                    ExecContext{.threads = 2, .simd = t}, nullptr, &scratch);
      ASSERT_EQ(reused.size(), fresh.size()) << to_string(t);
      EXPECT_EQ(std::memcmp(reused.data(), fresh.data(), fresh.size() * sizeof(ScatterInstance)), 0)
          << to_string(t) << " region " << r[2];
      EXPECT_LE(double(scratch.bytes()), bound);
    }
  }
  EXPECT_GT(double(scratch.bytes()), 0.5 * bound);
  EXPECT_THROW(scatter_chunk_scratch_bytes(p, -1.0, 2.0), Error);
  EXPECT_THROW(scatter_chunk_scratch_bytes(p, 64.0, 0.0), Error);
}

TEST(Scatter, EveryConstraintIsRespected) {
  SurfaceParams p = default_surface(test_world());
  // Limits that bind on this terrain.
  p.species[0].height_min_m = 40.0;
  p.species[0].height_max_m = 400.0;
  p.species[0].slope_max_deg = 12.0;
  p.species[0].min_biome_weight = 0.6;
  p.species[1].density_per_m2 = 0.05;
  p.species[1].exclusions = {{0, 3.0}};
  p.species[2].density_per_m2 = 0.02;
  p.species[2].slope_max_deg = 60.0;
  for (Biome& b : p.biomes) b.scatter = {1.0f, 1.0f, 1.0f};
  p.biomes[3].scatter = {0.0f, 1.0f, 1.0f};  // no trees in the forest: a biome limit
  const GridSpec g = grid(401, 401, 1.0);
  const Field2D h = noise_terrain(g, 60.0, 120.0, 0.004);
  Fields f = fields_for(p, h);
  std::vector<std::uint8_t> water(g.sample_count(), 0);
  for (std::size_t c = 0; c < water.size(); ++c) water[c] = (c / 401) % 50 < 5 ? 1 : 0;  // stripes
  std::vector<ScatterInstance> pts;
  const double m = scatter_margin_m(p);
  scatter_region(p, 3, {&f.heights, &f.biomes, water, {}}, m + 2, m + 2, 400 - m - 2, 400 - m - 2,
                 pts);
  ASSERT_GT(pts.size(), 100u);
  std::vector<int> per_species(3, 0);
  for (const ScatterInstance& s : pts) {
    ++per_species[std::size_t(s.species)];
    const Species& S = p.species[std::size_t(s.species)];
    const int i = int(std::floor(s.x_m)), j = int(std::floor(s.z_m));
    const double fx = s.x_m - i, fz = s.z_m - j;
    const double h00 = h.at(i, j), h10 = h.at(i + 1, j), h01 = h.at(i, j + 1),
                 h11 = h.at(i + 1, j + 1);
    // The triangle of the grid's level-0 mesh (one block of 400 x 400 cells, each split along
    // the diagonal through the corner farthest from the centre).
    const bool main = (2 * i + 1 < 400) == (2 * j + 1 < 400);
    double y = 0.0, gx = 0.0, gz = 0.0;
    if (main && fx >= fz) {
      gx = h10 - h00, gz = h11 - h10, y = h00 + gx * fx + gz * fz;
    } else if (main) {
      gx = h11 - h01, gz = h01 - h00, y = h00 + gx * fx + gz * fz;
    } else if (fx + fz <= 1.0) {
      gx = h10 - h00, gz = h01 - h00, y = h00 + gx * fx + gz * fz;
    } else {
      gx = h11 - h01, gz = h11 - h10, y = h11 + gx * (fx - 1.0) + gz * (fz - 1.0);
    }
    EXPECT_EQ(s.y_m, float(y));
    EXPECT_GE(s.y_m, S.height_min_m);
    EXPECT_LE(s.y_m, S.height_max_m);
    EXPECT_GE(s.y_m, p.sea_level_m);
    EXPECT_LE(std::atan(std::sqrt(gx * gx + gz * gz)) * 180.0 / std::numbers::pi,
              S.slope_max_deg + 1e-9);
    const std::size_t nearest = std::size_t(j + (fz >= 0.5)) * 401 + std::size_t(i + (fx >= 0.5));
    EXPECT_EQ(water[nearest], 0);
    EXPECT_GE(s.scale_xz, S.scale_xz_min);
    EXPECT_LE(s.scale_xz, S.scale_xz_max);
    EXPECT_GE(s.scale_y, S.scale_y_min);
    EXPECT_LE(s.scale_y, S.scale_y_max);
    EXPECT_GE(s.yaw_deg, S.yaw_min_deg);
    EXPECT_LE(s.yaw_deg, S.yaw_max_deg);
    if (s.species == 0) {
      EXPECT_LT(f.biomes.weight(3, nearest), 0.4f + 1e-6f);  // min_biome_weight 0.6 of others
    }
    if (s.species == 2) {
      EXPECT_NEAR(s.normal[0] * s.normal[0] + s.normal[1] * s.normal[1] + s.normal[2] * s.normal[2],
                  1.0f, 1e-5f);
    }
  }
  for (int k : per_species) EXPECT_GT(k, 10);
  for (int s = 0; s < 3; ++s) check_min_distance(pts, s, p.species[std::size_t(s)].min_distance_m);
  // Exclusions: no bush within 3 m, no boulder within 1.5 m of a tree / 1 m of a bush.
  for (const ScatterInstance& a : pts) {
    for (const SpeciesExclusion& x : p.species[std::size_t(a.species)].exclusions) {
      for (const ScatterInstance& b : pts) {
        if (b.species != x.species) continue;
        const double dx = a.x_m - b.x_m, dz = a.z_m - b.z_m;
        ASSERT_GE(dx * dx + dz * dz, x.distance_m * x.distance_m);
      }
    }
  }
}

TEST(Scatter, InputTooSmallForTheRegionIsAnError) {
  const SurfaceParams p = uniform_params(0.05, 2.0);
  Field2D flat(grid(64, 64));
  const Fields f = fields_for(p, flat);
  std::vector<ScatterInstance> pts;
  try {
    scatter_region(p, 1, {&f.heights, &f.biomes, {}, {}}, 0.0, 0.0, 64.0, 64.0, pts);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not cover the region plus the scatter margin"),
              std::string::npos)
        << e.what();
  }
  // The grid's extent, the region and the margin it needed.
  test::expect_error(
      [&] {
        scatter_region(p, 1, {&f.heights, &f.biomes, {}, {}}, 0.0, 0.0, 64.0, 64.0, pts);
      },
      ErrorCategory::invalid_argument,
      {"scatter_region: the input grid [0, 63] x [0, 63] m does not cover the region plus the "
       "scatter margin (",
       " m) plus one cell"});
}

// ---------------------------------------------------------------------------------------------
// Bad input

std::string surface_error(const std::string& surface_json) {
  const std::string doc =
      R"({"graph":{"output":"c","nodes":{"c":{"type":"constant","value":0}}},"surface":)" +
      surface_json + "}";
  try {
    (void)parse_preset(doc, "test.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(SurfaceBadInput, PreciseMessages) {
  EXPECT_EQ(surface_error(R"({"biomes":[]})"),
            "test.json: surface.biomes: empty biome table: at least one biome is needed");
  const std::string overlap = surface_error(
      R"({"biomes":[{"name":"a","temperature_max_c":10},{"name":"b","temperature_min_c":5}]})");
  EXPECT_NE(overlap.find("surface.biomes[1]: biome 'b' (temperature [5, inf] C"), std::string::npos)
      << overlap;
  EXPECT_NE(overlap.find("overlaps test.json: surface.biomes[0] 'a'"), std::string::npos)
      << overlap;
  EXPECT_EQ(overlap,
            "test.json: surface.biomes[1]: biome 'b' (temperature [5, inf] C, moisture [-inf, inf] "
            "mm, height [-inf, inf] m) overlaps test.json: surface.biomes[0] 'a' (temperature "
            "[-inf, 10] C, moisture [-inf, inf] mm, height [-inf, inf] m)");
  const std::string neg = surface_error(
      R"({"biomes":[{"name":"a","scatter":{"t":1}}],"species":[{"name":"t","density_per_m2":-0.5}]})");
  EXPECT_EQ(neg,
            "test.json: surface.species[0].density_per_m2 = -0.5 is outside the allowed range [0, "
            "10000]");
  const std::string dist =
      surface_error(R"({"biomes":[{"name":"a"}],"species":[{"name":"t","min_distance_m":0}]})");
  EXPECT_EQ(
      dist,
      "test.json: surface.species[0].min_distance_m = 0 is outside the allowed range (0, 1000]");
  const std::string packing = surface_error(
      R"({"biomes":[{"name":"a"}],"species":[{"name":"t","min_distance_m":5,"density_per_m2":0.05}]})");
  EXPECT_NE(packing.find("cannot be reached with min_distance_m 5"), std::string::npos) << packing;
  EXPECT_EQ(
      packing,
      "test.json: surface.species[0].density_per_m2: 0.05 per m^2 cannot be reached with "
      "min_distance_m 5 (density * pi * min_distance^2 = 3.9269908169872414, allowed: < 0.9)");
  std::string layers = "[";
  for (int l = 0; l < 33; ++l)
    layers += std::string(l ? "," : "") + "{\"name\":\"l" + std::to_string(l) + "\"}";
  layers += "]";
  EXPECT_EQ(surface_error(R"({"biomes":[{"name":"a"}],"layers":)" + layers + "}"),
            "test.json: surface.layers: 33 layers (allowed: 1..32)");
  EXPECT_EQ(surface_error(R"({"biomes":[{"name":"a","splat":{"gras":1}}]})"),
            "test.json: surface.biomes[0].splat.gras: unknown layer (known: seabed, sand, grass, "
            "forest_floor, dry_soil, moss, rock, snow)");
  EXPECT_EQ(surface_error(R"({"layers":[{"name":"x"}]})"),
            "test.json: surface.biomes: required when surface.layers or surface.species are given "
            "(biomes name their splat layers and species)");
  EXPECT_EQ(surface_error(R"({"climate":{"temperature_node":"warm"}})"),
            "test.json: surface.climate.temperature_node: unknown graph node 'warm' (known: c)");
  const std::string unknown = surface_error(R"({"clmate":{}})");
  EXPECT_NE(
      unknown.find("surface.clmate: unknown key 'clmate' in surface (did you mean 'climate'?)"),
      std::string::npos)
      << unknown;
  EXPECT_EQ(unknown,
            "test.json: surface.clmate: unknown key 'clmate' in surface (did you mean 'climate'?); "
            "allowed keys: climate, blend, layers, species, "
            "biomes, rock_layer, rock_slope_deg, rock_blend_deg");
  EXPECT_EQ(
      surface_error(R"({"biomes":[{"name":"a","temperature_min_c":5,"temperature_max_c":5}]})"),
      "test.json: surface.biomes[0].temperature_min_c: empty range [5, 5] (temperature_min_c "
      "must be below temperature_max_c)");
  try {
    parse_preset(R"({"graph":{"output":"c","nodes":{"c":{"type":"constant"}}},"surface":[]})",
                 "p.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("surface"), std::string::npos) << e.what();
  }
  test::expect_error(
      [] {
        parse_preset(R"({"graph":{"output":"c","nodes":{"c":{"type":"constant"}}},"surface":[]})",
                     "p.json");
      },
      ErrorCategory::invalid_argument,
      {"p.json: surface: expected an object (climate, biomes, layers, species), got array []"});
}

}  // namespace
}  // namespace terrane
