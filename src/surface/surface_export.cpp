// Surface exports: splat maps for Unity (RGBA control maps) and Unreal (one greyscale PNG per
// layer), previews, the biome-id map, and scatter instances as CSV + a JSON manifest.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <vector>

#include "core/huge_pages.hpp"
#include "surface/surface_internal.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;
using surface_detail::fail;

void write_text(const fs::path& path, const std::string& text) {
  write_file_atomic(path, std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()));
}

// Shortest decimal that round-trips ("%.9g" for float, "%.17g" for double).
void append_number(std::string& s, double v, bool is_float) {
  char buf[40];
  std::snprintf(buf, sizeof buf, is_float ? "%.9g" : "%.17g", v);
  s += buf;
}

constexpr std::array<std::array<std::uint8_t, 3>, 6> kSpeciesColours = {
    {{20, 60, 20}, {200, 40, 40}, {30, 30, 30}, {250, 200, 0}, {180, 0, 200}, {0, 180, 220}}};

}  // namespace

// The splat files are formed a row at a time as their encoders ask (write_png8 from rows): the
// quantised weights once per call, never an interleaved copy of them.
std::vector<fs::path> write_splat_unity(const fs::path& path_prefix, const SplatMap& splat,
                                        const ExecContext& ctx) {
  std::vector<std::uint8_t> q;
  splat_to_u8(splat, q, ctx);
  const auto nl = std::size_t(splat.layer_count);
  const auto w = std::size_t(splat.grid.width);
  std::vector<fs::path> files;
  for (std::size_t k = 0; k * 4 < nl; ++k) {
    fs::path p = path_prefix;
    p += "_splat" + std::to_string(k) + ".png";
    write_png8(
        p, splat.grid.width, splat.grid.height, 4,
        [&](int j, std::span<std::uint8_t> out) {
          const std::uint8_t* row = q.data() + std::size_t(j) * w * nl;
          for (std::size_t i = 0; i < w; ++i) {
            for (std::size_t ch = 0; ch < 4; ++ch) {
              out[i * 4 + ch] = k * 4 + ch < nl ? row[i * nl + k * 4 + ch] : std::uint8_t(0);
            }
          }
        },
        ctx);
    files.push_back(p);
  }
  return files;
}

std::vector<fs::path> write_splat_unreal(const fs::path& path_prefix, const SurfaceParams& params,
                                         const SplatMap& splat, const ExecContext& ctx) {
  if (int(params.layers.size()) != splat.layer_count) {
    fail("write_splat_unreal", "the splat map has " + std::to_string(splat.layer_count) +
                                   " layers, the parameters " +
                                   std::to_string(params.layers.size()));
  }
  std::vector<std::uint8_t> q;
  splat_to_u8(splat, q, ctx);
  const auto nl = std::size_t(splat.layer_count);
  const auto w = std::size_t(splat.grid.width);
  std::vector<fs::path> files;
  for (std::size_t l = 0; l < nl; ++l) {
    fs::path p = path_prefix;
    p += "_" + params.layers[l].name + ".png";
    write_png8(
        p, splat.grid.width, splat.grid.height, 1,
        [&](int j, std::span<std::uint8_t> out) {
          const std::uint8_t* row = q.data() + std::size_t(j) * w * nl;
          for (std::size_t i = 0; i < w; ++i) out[i] = row[i * nl + l];
        },
        ctx);
    files.push_back(p);
  }
  return files;
}

void write_splat_preview_png(const fs::path& path, const SurfaceParams& params,
                             const SplatMap& splat, const ExecContext& ctx) {
  const auto w = std::size_t(splat.grid.width);
  write_png8(
      path, splat.grid.width, splat.grid.height, 3,
      [&](int j, std::span<std::uint8_t> out) {
        for (std::size_t i = 0; i < w; ++i) {
          const std::size_t c = std::size_t(j) * w + i;
          float acc[3] = {0, 0, 0};
          for (int l = 0; l < splat.layer_count; ++l) {
            const float wt = splat.weight(l, c);
            for (int ch = 0; ch < 3; ++ch)
              acc[ch] += wt * float(params.layers[std::size_t(l)].colour[std::size_t(ch)]);
          }
          for (int ch = 0; ch < 3; ++ch) {
            out[i * 3 + std::size_t(ch)] =
                std::uint8_t(std::lround(std::clamp(acc[ch], 0.0f, 255.0f)));
          }
        }
      },
      ctx);
}

void write_biome_id_png(const fs::path& path, const BiomeWeights& biomes, const ExecContext& ctx) {
  write_png8(path, biomes.grid.width, biomes.grid.height, 1, biomes.dominant, ctx);
}

void write_biome_preview_png(const fs::path& path, const SurfaceParams& params, std::uint64_t seed,
                             const Field2D& heights, const BiomeWeights& biomes,
                             const PreviewWater& water, const ExecContext& ctx) {
  const GridSpec& g = biomes.grid;
  const std::size_t W = std::size_t(g.width), n = g.sample_count();
  if (heights.data.size() != n)
    fail("write_biome_preview_png", "heights and biomes differ in size");
  water.validate(n, "write_biome_preview_png");
  // Lakes (level above the ground) and rivers on land; the sea keeps its biome's colour.
  std::vector<std::uint8_t> wet(n, 0);
  std::vector<float> depth(n, 0.0f);
  for (std::size_t c = 0; c < n; ++c) {
    const float h = heights.data[c];
    if (!(h >= float(params.sea_level_m))) continue;
    if (!water.water_level_m.empty() && water.water_level_m[c] > h) {
      depth[c] = water.water_level_m[c] - h;
    }
    wet[c] = depth[c] > 0.0f || (!water.river.empty() && water.river[c] != 0) ? 1 : 0;
  }
  std::vector<std::uint8_t> rgb(n * 3);
  parallel_for(ctx, g.height, 16, [&](std::int64_t jb, std::int64_t je) {
    for (auto j = int(jb); j < int(je); ++j) {
      for (int i = 0; i < g.width; ++i) {
        const std::size_t c = std::size_t(j) * W + std::size_t(i);
        // Lambert shading, light from the north-west, 45 degrees up.
        const double hx =
            (heights.at(std::min(i + 1, g.width - 1), j) - heights.at(std::max(i - 1, 0), j)) /
            (2.0 * g.spacing_m);
        const double hz =
            (heights.at(i, std::min(j + 1, g.height - 1)) - heights.at(i, std::max(j - 1, 0))) /
            (2.0 * g.spacing_m);
        const double len = std::sqrt(hx * hx + 1.0 + hz * hz);
        const double lambert = (hx * 0.5 + 1.0 * 0.70710678 + hz * 0.5) / len / 0.70710678;
        double shade = std::min(0.35 + 0.65 * std::max(lambert, 0.0), 1.3);
        double acc[3] = {0, 0, 0};
        if (wet[c] != 0) {
          const std::array<float, 3> w = preview_water_albedo(depth[c]);
          for (int ch = 0; ch < 3; ++ch) acc[ch] = w[std::size_t(ch)];
          shade = 1.0 + 0.25 * (shade - 1.0);
        } else {
          for (int b = 0; b < biomes.biome_count; ++b) {
            const double w = biomes.weight(b, c);
            for (int ch = 0; ch < 3; ++ch)
              acc[ch] += w * params.biomes[std::size_t(b)].colour[std::size_t(ch)];
          }
        }
        for (int ch = 0; ch < 3; ++ch)
          rgb[c * 3 + std::size_t(ch)] =
              std::uint8_t(std::lround(std::clamp(acc[ch] * shade, 0.0, 255.0)));
      }
    }
  });
  // Scatter dots from the density, one chance per dot cell (see the header).
  const std::size_t ns = params.species.size();
  if (ns > 0) {
    const int side = std::max(2, int(std::lround(double(std::min(g.width, g.height)) / 128.0)));
    const int cw = (g.width + side - 1) / side, ch = (g.height + side - 1) / side;
    const double radius = 0.35 * double(side);
    const double cell_area = double(side) * g.spacing_m * double(side) * g.spacing_m;
    const ScatterInput input{&heights, &biomes, wet, {}};
    struct Dot {
      double u = 0.0, v = 0.0;  // pixel position of the centre
      int species = -1;
    };
    std::vector<Dot> dots(std::size_t(cw) * std::size_t(ch));
    const std::uint64_t dot_seed = hash_combine(seed, 0x62696f6d65707276ULL);  // "biomeprv"
    parallel_for(ctx, ch, 4, [&](std::int64_t rb, std::int64_t re) {
      std::vector<double> rho(ns);
      for (std::int64_t r = rb; r < re; ++r) {
        for (int k = 0; k < cw; ++k) {
          const std::uint64_t h =
              hash_combine(hash_combine(dot_seed, std::uint64_t(k)), std::uint64_t(r));
          Dot d;
          d.u = std::min((double(k) + 0.15 + 0.7 * double(unit_float(mix64(h + 1)))) * double(side),
                         double(g.width - 1));
          d.v = std::min((double(r) + 0.15 + 0.7 * double(unit_float(mix64(h + 2)))) * double(side),
                         double(g.height - 1));
          scatter_density(params, seed, input, g.x_m(0) + d.u * g.spacing_m,
                          g.z_m(0) + d.v * g.spacing_m, rho, ctx.simd);
          double total = 0.0;
          for (const double x : rho) total += x;
          const double expected = total * cell_area;
          if (!(expected > 0.0) ||
              double(unit_float(mix64(h + 3))) >= 0.7 * (1.0 - std::exp(-expected))) {
            continue;
          }
          double pick = double(unit_float(mix64(h + 4))) * total;
          d.species = int(ns - 1);
          for (std::size_t s = 0; s < ns; ++s) {
            if (pick < rho[s]) {
              d.species = int(s);
              break;
            }
            pick -= rho[s];
          }
          dots[std::size_t(r) * std::size_t(cw) + std::size_t(k)] = d;
        }
      }
    });
    for (const Dot& d : dots) {
      if (d.species < 0) continue;
      const auto& col = kSpeciesColours[std::size_t(d.species) % kSpeciesColours.size()];
      const int i0 = std::max(0, int(std::floor(d.u - radius))),
                i1 = std::min(g.width - 1, int(std::ceil(d.u + radius)));
      const int j0 = std::max(0, int(std::floor(d.v - radius))),
                j1 = std::min(g.height - 1, int(std::ceil(d.v + radius)));
      for (int j = j0; j <= j1; ++j) {
        for (int i = i0; i <= i1; ++i) {
          const double du = double(i) - d.u, dv = double(j) - d.v;
          if (du * du + dv * dv > radius * radius) continue;
          const std::size_t c = std::size_t(j) * W + std::size_t(i);
          for (int k = 0; k < 3; ++k) rgb[c * 3 + std::size_t(k)] = col[std::size_t(k)];
        }
      }
    }
  }
  write_png8(path, g.width, g.height, 3, rgb, ctx);
}

void write_scatter_csv(const fs::path& path, std::span<const ScatterInstance> instances,
                       bool with_state) {
  std::string s = with_state ? "x,y,z,yaw,scale_xz,scale_y,species,id,state\n"
                             : "x,y,z,yaw,scale_xz,scale_y,species,id\n";
  s.reserve(instances.size() * 64 + s.size());
  for (const ScatterInstance& in : instances) {
    append_number(s, in.x_m, false);
    s += ',';
    append_number(s, in.y_m, true);
    s += ',';
    append_number(s, in.z_m, false);
    s += ',';
    append_number(s, in.yaw_deg, true);
    s += ',';
    append_number(s, in.scale_xz, true);
    s += ',';
    append_number(s, in.scale_y, true);
    char id[20];
    std::snprintf(id, sizeof id, ",%016llx", static_cast<unsigned long long>(in.id));
    s += ',' + std::to_string(in.species) + id;
    if (with_state) s += ',' + std::to_string(in.state);
    s += '\n';
  }
  write_text(path, s);
}

void write_scatter_unity_csv(const fs::path& path, std::span<const ScatterInstance> instances,
                             const GridSpec& grid, double height_min_m, double height_max_m) {
  if (!(height_max_m > height_min_m) || grid.width < 2 || grid.height < 2) {
    fail(path.string(), "needs a grid of at least 2 x 2 samples and height_max_m > height_min_m");
  }
  const double sx = double(grid.width - 1) * grid.spacing_m;
  const double sz = double(grid.height - 1) * grid.spacing_m;
  std::string s = "x,y,z,rotation,width_scale,height_scale,prototype\n";
  for (const ScatterInstance& in : instances) {
    append_number(s, float((in.x_m - grid.x_m(0)) / sx), true);
    s += ',';
    append_number(s, float((double(in.y_m) - height_min_m) / (height_max_m - height_min_m)), true);
    s += ',';
    append_number(s, float((in.z_m - grid.z_m(0)) / sz), true);
    s += ',';
    append_number(s, float(double(in.yaw_deg) * std::numbers::pi / 180.0), true);
    s += ',';
    append_number(s, in.scale_xz, true);
    s += ',';
    append_number(s, in.scale_y, true);
    s += ',' + std::to_string(in.species) + '\n';
  }
  write_text(path, s);
}

void write_scatter_manifest(const fs::path& path, const SurfaceParams& params,
                            std::span<const ScatterInstance> instances, const GridSpec& grid,
                            std::span<const std::string> files, bool with_state) {
  nlohmann::ordered_json doc;
  std::vector<std::int64_t> counts(params.species.size(), 0);
  for (const ScatterInstance& in : instances) ++counts[std::size_t(in.species)];
  doc["columns"] = with_state ? "x,y,z,yaw,scale_xz,scale_y,species,id,state"
                              : "x,y,z,yaw,scale_xz,scale_y,species,id";
  doc["units"] = {{"position", "m"}, {"yaw", "degrees about +Y"}, {"scale", "factor"}};
  doc["region"] = {{"x0_m", grid.x_m(0)},
                   {"z0_m", grid.z_m(0)},
                   {"x1_m", grid.x_m(grid.width - 1)},
                   {"z1_m", grid.z_m(grid.height - 1)}};
  doc["instances"] = instances.size();
  nlohmann::ordered_json species = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < params.species.size(); ++s) {
    const Species& S = params.species[s];
    species.push_back({{"id", s},
                       {"name", S.name},
                       {"count", counts[s]},
                       {"density_per_m2", S.density_per_m2},
                       {"min_distance_m", S.min_distance_m},
                       {"yaw_deg", {S.yaw_min_deg, S.yaw_max_deg}},
                       {"scale_xz", {S.scale_xz_min, S.scale_xz_max}},
                       {"scale_y", {S.scale_y_min, S.scale_y_max}},
                       {"align_to_normal", S.align_to_normal}});
  }
  doc["species"] = species;
  doc["files"] = std::vector<std::string>(files.begin(), files.end());
  write_text(path, doc.dump(2) + "\n");
}

}  // namespace terrane
