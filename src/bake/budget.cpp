// The bake's budget (terrane/bake.hpp, "Budget"): memory, work, files and scatter instances
// estimated from the request alone, before any work, and refused beyond their caps.
//
// The per-sample figures are peak resident bytes measured per stage on 2049 x 2049 maps
// (`/usr/bin/time -f %M terrane generate islands --size 2049 --set 'post=[]' --formats F`,
// docs/PERFORMANCE.md), rounded up; the per-cell times are medians measured on the reference
// machine (2-core x86-64, docs/PERFORMANCE.md). They bound what the code allocates today; a
// stage that changes its memory must update its figure here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "bake/bake_internal.hpp"

namespace terrane::bake_detail {
namespace {

constexpr double kSafety = 1.25;
constexpr double kFixedBytes = 64.0 * (1 << 20);  // code, libraries, thread stacks
// Per sample of the largest tile while it is simplified (--simplify-error).
constexpr double kSimplifyBytesPerSample = 300.0;

// Peak bytes per sample of a bake writing only `f` (heights and, where the format needs it,
// hydrology included).
double format_bytes_per_sample(OutputFormat f) {
  switch (f) {
    case OutputFormat::png16:
      return 8.0;  // the PNG encoder holds its compressed blocks and the file (issue 18)
    case OutputFormat::raw16:
      return 6.0;
    case OutputFormat::exr:
      return 6.0;
    case OutputFormat::normals:
      return 21.0;
    case OutputFormat::preview:
    case OutputFormat::rivers:
    case OutputFormat::lakes:
    case OutputFormat::flow:
      return 22.0;  // the hydrology's routing at its peak (35 until it released memory as it went)
    case OutputFormat::glb:
      return 70.0;  // per sample of the largest tile
    case OutputFormat::obj:
      return 80.0;  // per sample of the largest tile (its text is streamed in blocks)
    case OutputFormat::splat:
      return 190.0;
    case OutputFormat::biomes:
    case OutputFormat::scatter:
      return 110.0;  // plus the scatter's own, below
    case OutputFormat::stats:
      return 60.0;
    case OutputFormat::perspective:
      return 70.0;
  }
  return 400.0;
}

// Scratch bytes per sample a post operation adds to the heights while it runs.
double post_bytes_per_sample(const RegionOp& op) {
  switch (op.kind) {
    case RegionOpKind::thermal:
      return 1.0;  // in place: a few rows per band (8 before issue 18's round)
    case RegionOpKind::droplets:
      return 1.0;
    case RegionOpKind::stream_power:
      return 28.0;
    case RegionOpKind::blur:
      return 8.0;
    case RegionOpKind::graph:
      return 40.0;  // hydrology inputs and the output
    case RegionOpKind::breach:
      return 16.0;
  }
  return 40.0;
}

// Estimated seconds of a post operation on `cells` samples on the reference machine, and what
// it counts, for the message.
double post_seconds(const RegionOp& op, double cells, double spacing_m, std::string& what) {
  char buf[160];
  double s = 0.0;
  switch (op.kind) {
    case RegionOpKind::thermal:
      s = 3e-9 * cells * op.thermal.iterations;
      std::snprintf(buf, sizeof buf, "thermal: %d iterations", op.thermal.iterations);
      break;
    case RegionOpKind::droplets: {
      const double brush = std::numbers::pi * op.droplets.brush_radius * op.droplets.brush_radius;
      s = 2e-9 * double(op.droplets.droplets) * op.droplets.max_lifetime * std::max(brush, 25.0);
      std::snprintf(buf, sizeof buf, "droplets: %lld droplets x %d steps",
                    static_cast<long long>(op.droplets.droplets), op.droplets.max_lifetime);
      break;
    }
    case RegionOpKind::stream_power:
      s = 8e-8 * cells * op.stream_power.steps;
      std::snprintf(buf, sizeof buf, "stream_power: %d steps", op.stream_power.steps);
      break;
    case RegionOpKind::blur: {
      const double radius = std::ceil(3.0 * op.blur_sigma_m / spacing_m);
      s = 2e-9 * cells * (2.0 * radius + 1.0);
      std::snprintf(buf, sizeof buf, "blur: radius %.0f cells", radius);
      break;
    }
    case RegionOpKind::graph:
      s = 5e-7 * cells;
      std::snprintf(buf, sizeof buf, "graph");
      break;
    case RegionOpKind::breach:
      s = 5e-7 * cells;
      std::snprintf(buf, sizeof buf, "breach");
      break;
  }
  what = buf;
  return s;
}

std::string gib(double bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(std::uint64_t{1} << 30));
  return buf;
}

std::string duration(double s) {
  char buf[48];
  if (s < 120.0) {
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  } else if (s < 7200.0) {
    std::snprintf(buf, sizeof buf, "%.0f min", s / 60.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600.0);
  }
  return buf;
}

}  // namespace

int check_budget(const BakeRequest& request, const Preset& preset, const GridSpec& grid,
                 const MeshPlan& meshes, const SurfacePlan& surface, bool hydrology, int workers) {
  if (request.max_memory_bytes < kMinBakeMemoryBytes ||
      request.max_memory_bytes > kMaxBakeMemoryBytes) {
    throw Error(ErrorCategory::invalid_argument,
                "--max-memory: " + gib(double(request.max_memory_bytes)) +
                    " is outside the allowed range 0.0625 to 4096 GiB");
  }
  const double n = double(grid.sample_count());
  const double width_m = grid.spacing_m * (grid.width - 1),
               height_m = grid.spacing_m * (grid.height - 1);

  // Files: the mesh tiles' (the other outputs are a few files each).
  if (meshes.any()) {
    const std::int64_t per_tile = (meshes.glb ? 1 : 0) + (meshes.obj ? 1 : 0);
    const std::int64_t files = std::int64_t(meshes.tiles.tiles) * meshes.tiles.tiles * per_tile;
    if (files > kMaxMeshFiles) {
      throw Error(ErrorCategory::limit,
                  "--tiles " + std::to_string(meshes.tiles.tiles) + ": " + std::to_string(files) +
                      " mesh files; a bake writes at most " + std::to_string(kMaxMeshFiles) +
                      " (use fewer tiles, or bake the map in parts with --origin)");
    }
  }

  // Work: the post operations, in all.
  double seconds = 0.0, largest = -1.0;
  std::string largest_what;
  for (const RegionOp& op : preset.post) {
    std::string what;
    const double s = post_seconds(op, n, grid.spacing_m, what);
    seconds += s;
    if (s > largest) {
      largest = s;
      largest_what = what;
    }
  }
  if (seconds > kMaxBakeWorkSeconds) {
    throw Error(ErrorCategory::limit,
                "post: the operations need an estimated " + duration(seconds) +
                    " on the reference machine (most: " + largest_what + " on " +
                    std::to_string(grid.width) + " x " + std::to_string(grid.height) +
                    " samples, " + duration(largest) + "); at most " +
                    duration(kMaxBakeWorkSeconds) +
                    " per bake: lower iterations / steps / droplets or the map size");
  }

  // Scatter: instances (an upper bound) and the Poisson-disk blocks over the map.
  double scatter_bytes = 0.0;
  if (surface.scatter) {
    double max_multiplier = 0.0;
    double instances = 0.0;
    for (std::size_t s = 0; s < surface.params.species.size(); ++s) {
      const Species& sp = surface.params.species[s];
      double mult = 0.0;
      for (const Biome& b : surface.params.biomes) {
        if (s < b.scatter.size()) mult = std::max(mult, double(b.scatter[s]));
      }
      max_multiplier = std::max(max_multiplier, mult);
      instances += width_m * height_m * sp.density_per_m2 * mult * (1.0 + sp.cluster_amplitude);
      const double cell = sp.min_distance_m * 0.7071;
      scatter_bytes += (width_m / cell + 8.0) * (height_m / cell + 8.0) * 56.0;
    }
    if (instances > kMaxScatterInstances) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.0f", instances);
      throw Error(ErrorCategory::limit,
                  "scatter: up to " + std::string(buf) + " instances on " +
                      format_number(width_m / 1000.0) + " x " + format_number(height_m / 1000.0) +
                      " km (the species' density_per_m2 at their largest biome multiplier); at "
                      "most 4194304 per bake: lower the densities or bake a smaller area");
    }
    scatter_bytes += instances * 240.0;  // the instance and its CSV lines
  }

  // Memory: the hungriest stage (they run one after the other) plus the scatter's own.
  double per_sample = 4.0;
  for (const RegionOp& op : preset.post)
    per_sample = std::max(per_sample, 4.0 + post_bytes_per_sample(op));
  if (hydrology) per_sample = std::max(per_sample, 22.0);
  double mesh_bytes = 0.0;
  const double tile_samples =
      double(meshes.tiles.tile_cells_x + 1) * double(meshes.tiles.tile_cells_z + 1);
  for (const OutputFormat f : request.formats) {
    if (f == OutputFormat::glb || f == OutputFormat::obj) {
      mesh_bytes = std::max(mesh_bytes, format_bytes_per_sample(f) * tile_samples);
    } else {
      per_sample = std::max(per_sample, format_bytes_per_sample(f));
    }
  }
  // meshoptimizer's simplifier holds far more than the mesh while it runs.
  if (meshes.simplify) mesh_bytes = std::max(mesh_bytes, kSimplifyBytesPerSample * tile_samples);
  const double heights_bytes = n * per_sample;
  const auto estimate = [&](int tiles_at_once) {
    return kFixedBytes + kSafety * (std::max(heights_bytes, 4.0 * n + tiles_at_once * mesh_bytes) +
                                    scatter_bytes);
  };
  const std::int64_t tile_count = std::int64_t(meshes.tiles.tiles) * meshes.tiles.tiles;
  int concurrent =
      int(std::clamp<std::int64_t>(std::min<std::int64_t>(workers, tile_count), 1, kMaxMeshFiles));
  while (concurrent > 1 && estimate(concurrent) > double(request.max_memory_bytes)) --concurrent;
  const double bytes = estimate(concurrent);
  if (bytes > double(request.max_memory_bytes)) {
    std::string part = "the map's " + std::to_string(grid.width) + " x " +
                       std::to_string(grid.height) + " samples";
    if (scatter_bytes > heights_bytes && scatter_bytes > mesh_bytes) {
      part = "the scatter (species min_distance_m and densities)";
    } else if (mesh_bytes > heights_bytes) {
      part = "the meshes of " + std::to_string(meshes.tiles.tile_cells_x + 1) + " x " +
             std::to_string(meshes.tiles.tile_cells_z + 1) + " samples per tile";
    }
    throw Error(ErrorCategory::limit,
                "the bake needs an estimated " + gib(bytes) + " of memory (most for " + part +
                    "); the limit is " + gib(double(request.max_memory_bytes)) +
                    " (--max-memory): use a smaller map, more --tiles for meshes, or raise it");
  }
  return concurrent;
}

}  // namespace terrane::bake_detail
