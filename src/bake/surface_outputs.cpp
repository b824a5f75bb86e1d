// Surface outputs of a bake (formats splat, biomes, scatter and PreviewMode::biomes): climate,
// biome weights, splat maps and scatter instances of the generated map (terrane/surface.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>

#include "bake/bake_internal.hpp"
#include "core/huge_pages.hpp"
#include "surface/surface_internal.hpp"
#include "terrane/field.hpp"
#include "terrane/world.hpp"

namespace terrane::bake_detail {
namespace {

namespace fs = std::filesystem;

struct Expanded {
  Field2D heights;
  std::vector<std::uint8_t> water;
  int margin_cells = 0;
};

// The map plus a margin of graph-evaluated samples on every side, so that slopes and scatter near
// the map's border see the same neighbourhood as everywhere else. The interior is the map itself
// (which may have been eroded); water comes from the map's hydrology when one is given (whole-map
// hydrology only).
Expanded expand(const CompiledGraph& graph, const Field2D& heights, const Hydrology* hydro,
                const HeightEditSnapshot* edits, int margin_cells, const ExecContext& ctx) {
  Expanded e;
  e.margin_cells = margin_cells;
  const GridSpec& g = heights.grid;
  GridSpec eg = g;
  eg.width = g.width + 2 * margin_cells;
  eg.height = g.height + 2 * margin_cells;
  eg.index_x0 = g.index_x0 - margin_cells;
  eg.index_z0 = g.index_z0 - margin_cells;
  eg.validate("map size plus scatter margin");
  e.heights = Field2D(eg, ctx);
  // Only the margin strips are evaluated (sub-grids give the same bits as the whole grid).
  const int m = margin_cells;
  const int strips[4][4] = {{0, 0, eg.width, m},             // top (smallest z)
                            {0, m + g.height, eg.width, m},  // bottom
                            {0, m, m, g.height},             // left
                            {m + g.width, m, m, g.height}};  // right
  for (const auto& st : strips) {
    if (st[2] <= 0 || st[3] <= 0) continue;
    const GridSpec sg = eg.sub(st[0], st[1], st[2], st[3]);
    Field2D part(sg);
    evaluate(graph, sg, part.data, ctx);
    add_edits(edits, sg, part.data);
    for (int j = 0; j < st[3]; ++j) {
      std::copy(part.row(j).begin(), part.row(j).end(), e.heights.row(st[1] + j).begin() + st[0]);
    }
  }
  for (int j = 0; j < g.height; ++j) {
    std::copy(heights.row(j).begin(), heights.row(j).end(),
              e.heights.row(j + margin_cells).begin() + margin_cells);
  }
  if (hydro != nullptr) {
    core_detail::assign_huge(e.water, eg.sample_count(), std::uint8_t(0), &ctx);
    for (int j = 0; j < g.height; ++j) {
      for (int i = 0; i < g.width; ++i) {
        const std::size_t c = std::size_t(j) * std::size_t(g.width) + std::size_t(i);
        const bool wet = hydro->river[c] != 0 || hydro->sea[c] != 0 || hydro->lake_id[c] != kNoLake;
        e.water[std::size_t(j + margin_cells) * std::size_t(eg.width) +
                std::size_t(i + margin_cells)] = wet ? 1 : 0;
      }
    }
  }
  return e;
}

// The map's samples of a field of the expanded grid, rows on ctx's workers.
Field2D interior(const Field2D& in, int m, const GridSpec& map, const ExecContext& ctx) {
  Field2D out;
  out.grid = map;
  core_detail::resize_huge(out.data, map.sample_count(), &ctx);
  parallel_for(ctx, map.height, 64, [&](std::int64_t j0, std::int64_t j1) {
    for (auto j = int(j0); j < int(j1); ++j) {
      const auto row = in.row(j + m);
      std::copy_n(row.begin() + m, map.width, out.row(j).begin());
    }
  });
  return out;
}

// The map's rows of the expanded grid's biome weights, rows on ctx's workers, a biome's plane
// at a time. With `release`, each plane of `in` is given back to the kernel once copied (it
// reads as zeros afterwards), so that the two sets of weights are never both whole.
BiomeWeights interior(BiomeWeights& in, int m, const GridSpec& map, bool release,
                      const ExecContext& ctx) {
  BiomeWeights out;
  out.grid = map;
  out.biome_count = in.biome_count;
  const std::size_t n = map.sample_count(), en = in.grid.sample_count();
  core_detail::resize_huge(out.weights, n * std::size_t(in.biome_count), &ctx);
  core_detail::resize_huge(out.dominant, n, &ctx);
  const auto copy_rows = [&](const auto* from, auto* to) {
    parallel_for(ctx, map.height, 64, [&](std::int64_t j0, std::int64_t j1) {
      for (auto j = int(j0); j < int(j1); ++j) {
        std::copy_n(from + std::size_t(j + m) * std::size_t(in.grid.width) + std::size_t(m),
                    map.width, to + std::size_t(j) * std::size_t(map.width));
      }
    });
  };
  for (int b = 0; b < in.biome_count; ++b) {
    float* plane = in.weights.data() + std::size_t(b) * en;
    copy_rows(plane, out.weights.data() + std::size_t(b) * n);
    if (release) core_detail::release_pages(plane, en * sizeof(float));
  }
  copy_rows(in.dominant.data(), out.dominant.data());
  return out;
}

void write_text(const fs::path& path, const std::string& text) {
  write_file_atomic(path, std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()));
}

}  // namespace

SurfacePlan plan_surface(const BakeRequest& request, const Preset& preset) {
  SurfacePlan plan;
  plan.splat = request.formats.count(OutputFormat::splat) != 0U;
  plan.biomes = request.formats.count(OutputFormat::biomes) != 0U;
  plan.scatter = request.formats.count(OutputFormat::scatter) != 0U;
  plan.biome_preview = request.preview == PreviewMode::biomes;
  if (plan.any()) plan.params = preset.surface;
  plan.mesh_tiles = request.tiles;
  plan.unity_terrains = request.engine == Engine::unity;
  plan.whole_map_hydrology = request.whole_map_hydrology;
  return plan;
}

std::vector<WrittenFile> write_surface_outputs(const SurfacePlan& plan, const Preset& preset,
                                               const CompiledGraph& graph, const Field2D& heights,
                                               const Hydrology* hydro, const BakeRequest& world,
                                               const ExecContext& ctx, const fs::path& dir,
                                               const std::string& base, SurfaceSummary* summary) {
  std::vector<WrittenFile> files;
  if (!plan.any()) return files;
  const SurfaceParams& params = plan.params;
  const GridSpec& g = heights.grid;
  // The biome preview draws the scatter from its density (its cost follows its pixels), so
  // only the scatter output needs the points.
  const bool want_points = plan.scatter;
  // Outputs are functions of location unless the map's hydrology is asked for: no water but the
  // sea below sea level (scatter's height rule), no moisture boost (as in the streamed world).
  if (plan.whole_map_hydrology && hydro == nullptr) {
    throw Error(ErrorCategory::internal, "write_surface_outputs: whole-map hydrology not computed");
  }
  const Hydrology* water = plan.whole_map_hydrology ? hydro : nullptr;
  // One sample of margin at least: slopes at the map's border are central differences, as
  // inside a larger map.
  const int margin = want_points ? int(std::ceil(scatter_margin_m(params) / g.spacing_m)) + 2 : 1;
  // What each step needs is released once the next has it: the climate after the biome
  // weights, the margin's weights after their interior (unless the scatter reads them), the
  // slope after the splat weights, the biome weights but their dominant ids after the splat
  // (unless the biome preview draws them); and the files are written one after the other.
  const Expanded ex = expand(graph, heights, water, world.edits.get(), margin, ctx);
  BiomeWeights ex_biomes;
  {
    Climate climate;
    const ClimateSources sources = compile_climate_sources(preset.generator(), params.climate);
    compute_climate(params.climate, preset.seed, ex.heights, ex.water, climate, ctx, &sources);
    compute_biome_weights(params, ex.heights, climate, ex_biomes, ctx);
  }
  BiomeWeights biomes = interior(ex_biomes, margin, g, !want_points, ctx);
  if (!want_points) ex_biomes = {};

  std::vector<ScatterInstance> points;
  if (want_points) {
    // On the exported level-0 mesh: the map's tiles, each triangulated by its own radial rule.
    // Which points exist is decided on the streamed world's level-0 chunk triangulation (world
    // anchored, default chunk size), so that it does not depend on the map's extent; each
    // point then takes the height and normal of the exported mesh under it.
    const ScatterMesh mesh{g.index_x0, g.index_z0, (g.width - 1) / plan.mesh_tiles,
                           (g.height - 1) / plan.mesh_tiles};
    const int chunk = ChunkSettings{}.cells;
    const ScatterMesh rules{0, 0, chunk, chunk};
    scatter_region(
        params, preset.seed, ScatterInput{&ex.heights, &ex_biomes, ex.water, mesh, rules}, g.x_m(0),
        g.z_m(0), g.x_m(g.width - 1) + g.spacing_m, g.z_m(g.height - 1) + g.spacing_m, points, ctx);
    // The world's instance overrides, as the streamed chunks apply them; added instances stand
    // on the exported mesh, as the scattered ones do.
    if (world.instance_edits) {
      const std::size_t added =
          world.instance_edits->apply_to(g.x_m(0), g.z_m(0), g.x_m(g.width - 1) + g.spacing_m,
                                         g.z_m(g.height - 1) + g.spacing_m, points);
      for (std::size_t k = points.size() - added; k < points.size(); ++k) {
        ScatterInstance& inst = points[k];
        const surface_detail::MeshPoint on =
            surface_detail::mesh_point(ex.heights, mesh, inst.x_m, inst.z_m);
        inst.y_m = on.y_m;
        if (params.species[std::size_t(inst.species)].align_to_normal) inst.normal = on.normal;
      }
    }
  }
  if (summary != nullptr) {
    std::vector<std::int64_t> dominant(params.biomes.size(), 0);
    for (const std::uint8_t b : biomes.dominant) {
      if (b < dominant.size()) ++dominant[b];
    }
    for (std::size_t b = 0; b < params.biomes.size(); ++b) {
      summary->biome_shares.emplace_back(params.biomes[b].name,
                                         double(dominant[b]) / double(g.sample_count()));
    }
    if (want_points) {
      std::vector<std::int64_t> count(params.species.size(), 0);
      for (const ScatterInstance& q : points) {
        if (q.species >= 0 && std::size_t(q.species) < count.size())
          ++count[std::size_t(q.species)];
      }
      const double km2 = double(g.width) * g.spacing_m * double(g.height) * g.spacing_m * 1e-6;
      for (std::size_t k = 0; k < params.species.size(); ++k) {
        summary->scatter_per_km2.emplace_back(params.species[k].name, double(count[k]) / km2);
      }
    }
  }
  struct Job {
    std::function<std::vector<WrittenFile>()> write;
  };
  std::vector<Job> jobs;
  SplatMap splat;
  if (plan.splat) {
    {
      Field2D slope;
      {
        Field2D ex_slope;
        slope_deg_clamped(ex.heights, ex_slope, ctx);
        slope = interior(ex_slope, margin, g, ctx);
      }
      compute_splat(params, preset.seed, heights, slope, biomes, splat, ctx);
    }
    apply_paint(world.paint.get(), splat);
    if (summary != nullptr) {
      const std::size_t cells = g.sample_count();
      for (int l = 0; l < splat.layer_count; ++l) {
        double sum = 0.0;
        for (std::size_t c = 0; c < cells; ++c) sum += double(splat.weight(l, c));
        summary->splat_shares.emplace_back(params.layers[std::size_t(l)].name, sum / double(cells));
      }
    }
    jobs.push_back({[&] {
      // Unity's alphamaps have a texel per heightmap cell (2^n per side for a Unity terrain of
      // 2^n + 1 samples), so the control maps are the splat weights averaged over each cell;
      // with --engine unity one set per Unity terrain, named like its heightmap.
      std::vector<WrittenFile> out;
      const int terrains = plan.unity_terrains ? unity_terrains_per_side(g) : 1;
      const int cells_x = plan.unity_terrains ? unity_terrain_cells(g) : g.width - 1;
      const int cells_z = plan.unity_terrains ? unity_terrain_cells(g) : g.height - 1;
      SplatMap cells;
      for (int tz = 0; tz < terrains; ++tz) {
        for (int tx = 0; tx < terrains; ++tx) {
          splat_cell_average(splat, tx * cells_x, tz * cells_z, cells_x, cells_z, cells, ctx);
          const std::string prefix =
              terrains == 1 ? base
                            : base + "_unity_x" + std::to_string(tx) + "_z" + std::to_string(tz);
          for (const fs::path& p : write_splat_unity(dir / prefix, cells, ctx)) {
            out.push_back({p.filename().string(), "splat_unity_png"});
          }
        }
      }
      return out;
    }});
    jobs.push_back({[&] {
      std::vector<WrittenFile> out;
      for (const fs::path& p : write_splat_unreal(dir / (base + "_layer"), params, splat, ctx)) {
        out.push_back({p.filename().string(), "splat_unreal_png"});
      }
      return out;
    }});
    jobs.push_back({[&] {
      write_splat_preview_png(dir / (base + "_splat_preview.png"), params, splat, ctx);
      return std::vector<WrittenFile>{{base + "_splat_preview.png", "splat_preview_png"}};
    }});
  }
  if (plan.biomes) {
    jobs.push_back({[&] {
      write_biome_id_png(dir / (base + "_biomes.png"), biomes, ctx);
      nlohmann::ordered_json legend = nlohmann::ordered_json::array();
      for (std::size_t b = 0; b < params.biomes.size(); ++b) {
        const Biome& B = params.biomes[b];
        legend.push_back({{"id", b}, {"name", B.name}, {"colour", B.colour}});
      }
      write_text(dir / (base + "_biomes.json"),
                 nlohmann::ordered_json{{"biomes", legend}}.dump(2) + "\n");
      return std::vector<WrittenFile>{{base + "_biomes.png", "biome_id_png"},
                                      {base + "_biomes.json", "biome_legend_json"}};
    }});
  }
  // A world with instance overrides carries the instances' states in the CSV.
  const bool with_state = world.instance_edits != nullptr && !world.instance_edits->empty();
  if (plan.scatter) {
    jobs.push_back({[&] {
      const std::string csv = base + "_scatter.csv", unity = base + "_scatter_unity.csv";
      write_scatter_csv(dir / csv, points, with_state);
      write_scatter_unity_csv(dir / unity, points, g, preset.world.height_min_m,
                              preset.world.height_max_m);
      const std::vector<std::string> listed = {csv, unity};
      write_scatter_manifest(dir / (base + "_scatter.json"), params, points, g, listed, with_state);
      return std::vector<WrittenFile>{{csv, "scatter_csv"},
                                      {unity, "scatter_unity_csv"},
                                      {base + "_scatter.json", "scatter_manifest_json"}};
    }});
  }
  if (plan.biome_preview) {
    jobs.push_back({[&] {
      PreviewWater preview_water;
      if (water != nullptr) preview_water = PreviewWater{water->water_level_m.data, water->river};
      write_biome_preview_png(dir / (base + "_preview.png"), params, preset.seed, heights, biomes,
                              preview_water, ctx);
      return std::vector<WrittenFile>{{base + "_preview.png", "biome_preview_png"}};
    }});
  }
  if (!plan.biome_preview) std::vector<float>().swap(biomes.weights);
  // One file after the other: each writer spreads its own work over the workers, and side by
  // side they held their quantised weights and averaged cells at the same time.
  for (const Job& job : jobs) {
    throw_if_cancelled(ctx);
    const std::vector<WrittenFile> written = job.write();
    files.insert(files.end(), written.begin(), written.end());
  }
  return files;
}

}  // namespace terrane::bake_detail
