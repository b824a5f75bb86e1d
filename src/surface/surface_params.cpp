// Surface parameters: defaults, the built-in biome set, validation.
#include <cmath>
#include <cstdio>
#include <numbers>
#include <set>
#include <string>

#include "surface/surface_internal.hpp"

namespace terrane {
namespace {

using surface_detail::fail;

void check_range(std::string_view path, const char* field, double v, double lo, double hi,
                 bool lo_open = false) {
  terrane::check_range(std::string(path) + "." + field, v, Range{lo, hi, lo_open, false});
}

void check_interval(std::string_view path, const char* lo_name, const char* hi_name, double lo,
                    double hi) {
  if (std::isnan(lo) || std::isnan(hi) || lo == kUnbounded || hi == -kUnbounded || !(lo < hi)) {
    fail(std::string(path) + "." + lo_name, "empty range [" + format_number(lo) + ", " +
                                                format_number(hi) + "] (" + lo_name +
                                                " must be below " + hi_name + ")");
  }
}

NoiseParams climate_noise(std::uint64_t seed, double frequency) {
  NoiseParams n;
  n.type = NoiseType::opensimplex2;
  n.fractal = FractalType::fbm;
  n.octaves = 3;
  n.seed = seed;
  n.frequency = frequency;
  return n;
}

std::string biome_box(const Biome& b) {
  return "temperature [" + format_number(b.temperature_min_c) + ", " +
         format_number(b.temperature_max_c) + "] C, moisture [" + format_number(b.moisture_min_mm) +
         ", " + format_number(b.moisture_max_mm) + "] mm, height [" +
         format_number(b.height_min_m) + ", " + format_number(b.height_max_m) + "] m";
}

}  // namespace

ClimateParams::ClimateParams()
    : temperature_noise(climate_noise(1, 1.0 / 3000.0)),
      moisture_noise(climate_noise(2, 1.0 / 2000.0)) {}

#define REF TERRANE_FIELD_REF

std::span<const Field<ClimateParams>> ClimateParams::fields() {
  using P = ClimateParams;
  static const Field<P> table[] = {
      {"temperature_mean_c", REF(P, temperature_mean_c), Range::closed(-100.0, 100.0)},
      {"temperature_amplitude_c", REF(P, temperature_amplitude_c), Range::closed(0.0, 100.0)},
      {"latitude_gradient_c_per_km", REF(P, latitude_gradient_c_per_km),
       Range::closed(-100.0, 100.0)},
      {"lapse_rate_c_per_km", REF(P, lapse_rate_c_per_km), Range::closed(0.0, 50.0)},
      {"moisture_mean_mm", REF(P, moisture_mean_mm), Range::closed(0.0, 20000.0)},
      {"moisture_amplitude_mm", REF(P, moisture_amplitude_mm), Range::closed(0.0, 20000.0)},
      {"water_boost_mm", REF(P, water_boost_mm), Range::closed(0.0, 20000.0)},
      {"water_boost_distance_m", REF(P, water_boost_distance_m), Range::open_lo(0.0, 1e5)},
      {"temperature_node", REF(P, temperature_node)},
      {"moisture_node", REF(P, moisture_node)},
  };
  return table;
}

std::span<const Field<BiomeBlend>> BiomeBlend::fields() {
  using P = BiomeBlend;
  static const Field<P> table[] = {
      {"temperature_c", REF(P, temperature_c), Range::open_lo(0.0, 100.0)},
      {"moisture_mm", REF(P, moisture_mm), Range::open_lo(0.0, 20000.0)},
      {"height_m", REF(P, height_m), Range::open_lo(0.0, 1e5)},
  };
  return table;
}

std::span<const Field<SplatLayer>> SplatLayer::fields() {
  using P = SplatLayer;
  static const Field<P> table[] = {
      {"name", REF(P, name)},
      {"height_min_m", REF(P, height_min_m), Range::any(), FieldFlag::unbounded_null},
      {"height_max_m", REF(P, height_max_m), Range::any(), FieldFlag::unbounded_null},
      {"height_blend_m", REF(P, height_blend_m), Range::open_lo(0.0, 1e5)},
      {"slope_min_deg", REF(P, slope_min_deg), Range::closed(0.0, 90.0)},
      {"slope_max_deg", REF(P, slope_max_deg), Range::closed(0.0, 90.0)},
      {"slope_blend_deg", REF(P, slope_blend_deg), Range::open_lo(0.0, 90.0)},
      {"noise_amplitude", REF(P, noise_amplitude), Range::closed(0.0, 1.0)},
  };
  return table;
}

std::span<const Field<Biome>> Biome::fields() {
  using P = Biome;
  static const Field<P> table[] = {
      {"name", REF(P, name)},
      {"temperature_min_c", REF(P, temperature_min_c), Range::any(), FieldFlag::unbounded_null},
      {"temperature_max_c", REF(P, temperature_max_c), Range::any(), FieldFlag::unbounded_null},
      {"moisture_min_mm", REF(P, moisture_min_mm), Range::any(), FieldFlag::unbounded_null},
      {"moisture_max_mm", REF(P, moisture_max_mm), Range::any(), FieldFlag::unbounded_null},
      {"height_min_m", REF(P, height_min_m), Range::any(), FieldFlag::unbounded_null},
      {"height_max_m", REF(P, height_max_m), Range::any(), FieldFlag::unbounded_null},
  };
  return table;
}

std::span<const Field<SpeciesExclusion>> SpeciesExclusion::fields() {
  using P = SpeciesExclusion;
  static const Field<P> table[] = {
      {"distance_m", REF(P, distance_m), Range::open_lo(0.0, 1000.0)},
  };
  return table;
}

std::span<const Field<Species>> Species::fields() {
  using P = Species;
  // yaw_max_deg, scale_*_max: at least the matching minimum (checked by validate()).
  static const Field<P> table[] = {
      {"name", REF(P, name)},
      {"density_per_m2", REF(P, density_per_m2), Range::closed(0.0, 1e4)},
      {"min_distance_m", REF(P, min_distance_m), Range::open_lo(0.0, 1000.0)},
      {"height_min_m", REF(P, height_min_m), Range::any(), FieldFlag::unbounded_null},
      {"height_max_m", REF(P, height_max_m), Range::any(), FieldFlag::unbounded_null},
      {"slope_max_deg", REF(P, slope_max_deg), Range::closed(0.0, 90.0)},
      {"min_biome_weight", REF(P, min_biome_weight), Range::closed(0.0, 1.0)},
      {"cluster_amplitude", REF(P, cluster_amplitude), Range::closed(0.0, 1.0)},
      {"avoid_water", REF(P, avoid_water)},
      {"yaw_min_deg", REF(P, yaw_min_deg), Range::closed(-1e4, 1e4)},
      {"yaw_max_deg", REF(P, yaw_max_deg), Range::closed(-1e4, 1e4), FieldFlag::unchecked},
      {"scale_xz_min", REF(P, scale_xz_min), Range::open_lo(0.0, 1e4)},
      {"scale_xz_max", REF(P, scale_xz_max), Range::open_lo(0.0, 1e4), FieldFlag::unchecked},
      {"scale_y_min", REF(P, scale_y_min), Range::open_lo(0.0, 1e4)},
      {"scale_y_max", REF(P, scale_y_max), Range::open_lo(0.0, 1e4), FieldFlag::unchecked},
      {"align_to_normal", REF(P, align_to_normal)},
      {"seed", REF(P, seed)},
  };
  return table;
}

std::span<const Field<SurfaceParams>> SurfaceParams::fields() {
  using P = SurfaceParams;
  static const Field<P> table[] = {
      {"rock_slope_deg", REF(P, rock_slope_deg), Range::open_lo(0.0, 90.0)},
      {"rock_blend_deg", REF(P, rock_blend_deg), Range::open_lo(0.0, 90.0)},
  };
  return table;
}

#undef REF

void ClimateParams::validate(std::string_view path) const {
  temperature_noise.validate(std::string(path) + ".temperature_noise");
  moisture_noise.validate(std::string(path) + ".moisture_noise");
  check_fields(*this, fields(), path);
  check_range(path, "sea_level_m", sea_level_m, -1e6, 1e6);
}

void SurfaceParams::validate(std::string_view path) const {
  const std::string p(path);
  climate.validate(p + ".climate");
  check_fields(blend, BiomeBlend::fields(), p + ".blend");
  if (layers.empty() || layers.size() > std::size_t(kMaxSplatLayers)) {
    fail(p + ".layers", std::to_string(layers.size()) + " layers (allowed: 1.." +
                            std::to_string(kMaxSplatLayers) + ")");
  }
  std::set<std::string> names;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const SplatLayer& L = layers[l];
    const std::string lp = p + ".layers[" + std::to_string(l) + "]";
    if (L.name.empty()) fail(lp + ".name", "empty name");
    if (!names.insert(L.name).second) fail(lp + ".name", "duplicate layer name '" + L.name + "'");
    check_interval(lp, "height_min_m", "height_max_m", L.height_min_m, L.height_max_m);
    check_fields(L, SplatLayer::fields(), lp);
    check_interval(lp, "slope_min_deg", "slope_max_deg", L.slope_min_deg, L.slope_max_deg);
    L.noise.validate(lp + ".noise");
  }
  if (rock_layer < -1 || rock_layer >= int(layers.size())) {
    fail(p + ".rock_layer", "layer index " + std::to_string(rock_layer) +
                                " out of range (allowed: -1.." + std::to_string(layers.size() - 1) +
                                ")");
  }
  check_fields(*this, fields(), p);
  check_range(p, "sea_level_m", sea_level_m, -1e6, 1e6);

  if (species.size() > std::size_t(kMaxSpecies)) {
    fail(p + ".species", std::to_string(species.size()) + " species (allowed: 0.." +
                             std::to_string(kMaxSpecies) + ")");
  }
  if (biomes.empty()) {
    fail(p + ".biomes", "empty biome table: at least one biome is needed");
  }
  if (biomes.size() > std::size_t(kMaxBiomes)) {
    fail(p + ".biomes", std::to_string(biomes.size()) + " biomes (allowed: 1.." +
                            std::to_string(kMaxBiomes) + ")");
  }
  names.clear();
  for (std::size_t b = 0; b < biomes.size(); ++b) {
    const Biome& B = biomes[b];
    const std::string bp = p + ".biomes[" + std::to_string(b) + "]";
    if (B.name.empty()) fail(bp + ".name", "empty name");
    if (!names.insert(B.name).second) fail(bp + ".name", "duplicate biome name '" + B.name + "'");
    check_interval(bp, "temperature_min_c", "temperature_max_c", B.temperature_min_c,
                   B.temperature_max_c);
    check_interval(bp, "moisture_min_mm", "moisture_max_mm", B.moisture_min_mm, B.moisture_max_mm);
    check_interval(bp, "height_min_m", "height_max_m", B.height_min_m, B.height_max_m);
    if (B.splat.size() != layers.size()) {
      fail(bp + ".splat", std::to_string(B.splat.size()) + " weights for " +
                              std::to_string(layers.size()) + " layers");
    }
    if (B.scatter.size() != species.size()) {
      fail(bp + ".scatter", std::to_string(B.scatter.size()) + " multipliers for " +
                                std::to_string(species.size()) + " species");
    }
    for (std::size_t l = 0; l < B.splat.size(); ++l) {
      if (!std::isfinite(B.splat[l]) || B.splat[l] < 0.0f) {
        throw_out_of_range(bp + ".splat." + layers[l].name, format_number(B.splat[l]), "[0, inf)");
      }
    }
    for (std::size_t s = 0; s < B.scatter.size(); ++s) {
      if (!std::isfinite(B.scatter[s]) || B.scatter[s] < 0.0f) {
        throw_out_of_range(bp + ".scatter." + species[s].name, format_number(B.scatter[s]),
                           "[0, inf)");
      }
    }
    for (std::size_t o = 0; o < b; ++o) {
      const Biome& O = biomes[o];
      const bool overlap =
          std::max(B.temperature_min_c, O.temperature_min_c) <
              std::min(B.temperature_max_c, O.temperature_max_c) &&
          std::max(B.moisture_min_mm, O.moisture_min_mm) <
              std::min(B.moisture_max_mm, O.moisture_max_mm) &&
          std::max(B.height_min_m, O.height_min_m) < std::min(B.height_max_m, O.height_max_m);
      if (overlap) {
        fail(bp, "biome '" + B.name + "' (" + biome_box(B) + ") overlaps " + p + ".biomes[" +
                     std::to_string(o) + "] '" + O.name + "' (" + biome_box(O) + ")");
      }
    }
  }
  names.clear();
  for (std::size_t s = 0; s < species.size(); ++s) {
    const Species& S = species[s];
    const std::string sp = p + ".species[" + std::to_string(s) + "]";
    if (S.name.empty()) fail(sp + ".name", "empty name");
    if (!names.insert(S.name).second) fail(sp + ".name", "duplicate species name '" + S.name + "'");
    check_fields(S, Species::fields(), sp);
    const double packing =
        S.density_per_m2 * std::numbers::pi * S.min_distance_m * S.min_distance_m;
    if (!(packing < 0.9)) {
      fail(sp + ".density_per_m2",
           format_number(S.density_per_m2) + " per m^2 cannot be reached with min_distance_m " +
               format_number(S.min_distance_m) +
               " (density * pi * min_distance^2 = " + format_number(packing) + ", allowed: < 0.9)");
    }
    check_interval(sp, "height_min_m", "height_max_m", S.height_min_m, S.height_max_m);
    S.cluster_noise.validate(sp + ".cluster_noise");
    check_range(sp, "yaw_max_deg", S.yaw_max_deg, S.yaw_min_deg, 1e4);
    check_range(sp, "scale_xz_max", S.scale_xz_max, S.scale_xz_min, 1e4);
    check_range(sp, "scale_y_max", S.scale_y_max, S.scale_y_min, 1e4);
    for (std::size_t e = 0; e < S.exclusions.size(); ++e) {
      const SpeciesExclusion& X = S.exclusions[e];
      const std::string xp = sp + ".exclude[" + std::to_string(e) + "]";
      if (X.species < 0 || X.species >= int(s)) {
        fail(xp + ".species", "species index " + std::to_string(X.species) +
                                  " must name an earlier species (allowed: 0.." +
                                  std::to_string(int(s) - 1) + ")");
      }
      check_fields(X, SpeciesExclusion::fields(), xp);
    }
  }
}

SurfaceParams default_surface(const WorldSettings& world) {
  SurfaceParams p;
  const double sea = world.sea_level_m;
  p.sea_level_m = sea;
  p.climate.sea_level_m = sea;
  if (world.preview_palette == "arid") {
    p.climate.temperature_mean_c = 26.0;
    p.climate.moisture_mean_mm = 220.0;
    p.climate.moisture_amplitude_mm = 250.0;
  }
  auto layer = [](const char* name, std::array<std::uint8_t, 3> colour) {
    SplatLayer l;
    l.name = name;
    l.colour = colour;
    return l;
  };
  p.layers = {layer("seabed", {92, 84, 66}),     layer("sand", {214, 196, 146}),
              layer("grass", {96, 142, 58}),     layer("forest_floor", {58, 84, 40}),
              layer("dry_soil", {176, 140, 92}), layer("moss", {128, 136, 96}),
              layer("rock", {120, 116, 110}),    layer("snow", {240, 244, 248})};
  p.layers[2].noise_amplitude = 0.5;  // grass patches
  p.layers[2].noise.frequency = 0.05;
  p.layers[2].noise.seed = 3;
  p.rock_layer = 6;

  Species tree;
  tree.name = "tree";
  tree.density_per_m2 = 0.05;
  tree.min_distance_m = 2.0;
  tree.slope_max_deg = 30.0;
  tree.scale_xz_min = 0.8;
  tree.scale_xz_max = 1.3;
  tree.scale_y_min = 0.8;
  tree.scale_y_max = 1.4;
  tree.cluster_amplitude = 0.4;
  tree.cluster_noise.frequency = 0.02;
  tree.cluster_noise.seed = 11;
  Species bush;
  bush.name = "bush";
  bush.density_per_m2 = 0.02;
  bush.min_distance_m = 1.5;
  bush.slope_max_deg = 35.0;
  bush.exclusions = {{0, 1.0}};
  bush.seed = 1;
  Species boulder;
  boulder.name = "boulder";
  boulder.density_per_m2 = 0.005;
  boulder.min_distance_m = 3.0;
  boulder.slope_max_deg = 50.0;
  boulder.align_to_normal = true;
  boulder.scale_xz_min = 0.5;
  boulder.scale_xz_max = 2.0;
  boulder.scale_y_min = 0.5;
  boulder.scale_y_max = 1.5;
  boulder.exclusions = {{0, 1.5}, {1, 1.0}};
  boulder.seed = 2;
  p.species = {tree, bush, boulder};

  const double shore = sea + 4.0;
  auto biome = [&](const char* name, std::array<std::uint8_t, 3> colour, double t0, double t1,
                   double m0, double m1, double h0, double h1, std::vector<float> splat,
                   std::vector<float> scatter) {
    Biome b;
    b.name = name;
    b.colour = colour;
    b.temperature_min_c = t0;
    b.temperature_max_c = t1;
    b.moisture_min_mm = m0;
    b.moisture_max_mm = m1;
    b.height_min_m = h0;
    b.height_max_m = h1;
    b.splat = std::move(splat);
    b.scatter = std::move(scatter);
    return b;
  };
  const double inf = kUnbounded;
  //                      seabed sand grass forest dry  moss rock snow     tree  bush  boulder
  p.biomes = {
      biome("ocean", {40, 80, 150}, -inf, inf, -inf, inf, -inf, sea, {1, 0, 0, 0, 0, 0, 0, 0},
            {0, 0, 0}),
      biome("beach", {222, 206, 150}, -inf, inf, -inf, inf, sea, shore, {0, 1, 0, 0, 0, 0, 0, 0},
            {0, 0.05f, 0.1f}),
      biome("grassland", {120, 170, 70}, 2, inf, 300, 1000, shore, inf,
            {0, 0, 1, 0, 0.15f, 0, 0, 0}, {0.05f, 1, 0.1f}),
      biome("forest", {40, 100, 45}, 2, inf, 1000, inf, shore, inf, {0, 0, 0.3f, 1, 0, 0, 0, 0},
            {1, 0.3f, 0.2f}),
      biome("desert", {220, 190, 120}, 2, inf, -inf, 300, shore, inf, {0, 1, 0, 0, 0.6f, 0, 0, 0},
            {0, 0.1f, 0.3f}),
      biome("tundra", {150, 160, 130}, -6, 2, 300, inf, shore, inf, {0, 0, 0.2f, 0, 0, 1, 0.2f, 0},
            {0.02f, 0.3f, 0.5f}),
      biome("snow", {245, 248, 252}, -inf, -6, -inf, inf, shore, inf, {0, 0, 0, 0, 0, 0, 0.1f, 1},
            {0, 0, 0.1f}),
      biome("rock", {130, 125, 118}, -6, 2, -inf, 300, shore, inf, {0, 0, 0, 0, 0.2f, 0, 1, 0},
            {0, 0.05f, 1}),
  };
  return p;
}

}  // namespace terrane
