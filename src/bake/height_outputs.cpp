// Height and hydrology outputs of a bake: PNG16, RAW16, EXR, normal map, relief preview and the
// rivers / lakes / flow masks. Each file is a job; they run one after the other, each spreading
// its own work (conversion, rendering, compression) over the workers, and are listed in a fixed
// order.
#include <algorithm>
#include <cmath>
#include <functional>

#include "bake/bake_internal.hpp"

namespace terrane::bake_detail {
namespace {

namespace fs = std::filesystem;

// A 16-bit mask of the cells where on(c): 65535 there, else 0, formed a row at a time as the
// encoder asks for it.
void write_mask_png(const fs::path& path, const GridSpec& grid,
                    const std::function<bool(std::size_t)>& on, const ExecContext& ctx) {
  const auto w = std::size_t(grid.width);
  write_png16(
      path, grid.width, grid.height,
      [&](int j, std::span<std::uint16_t> out) {
        const std::size_t row0 = std::size_t(j) * w;
        for (std::size_t i = 0; i < w; ++i) out[i] = on(row0 + i) ? 65535 : 0;
      },
      ctx);
}

// log10 of the drainage area, from one cell (0) to the whole map (65535), a row at a time.
void write_flow_png(const fs::path& path, const GridSpec& grid, const Hydrology& hydro,
                    const ExecContext& ctx) {
  const double lo = std::log10(grid.spacing_m * grid.spacing_m);
  const double hi = lo + std::log10(double(grid.sample_count()));
  const auto w = std::size_t(grid.width);
  const float* area = hydro.drainage_area_m2.data.data();
  write_png16(
      path, grid.width, grid.height,
      [&](int j, std::span<std::uint16_t> out) {
        const float* row = area + std::size_t(j) * w;
        for (std::size_t i = 0; i < w; ++i) {
          const double v = (std::log10(double(row[i])) - lo) / std::max(hi - lo, 1e-9);
          out[i] = std::uint16_t(std::lround(std::clamp(v, 0.0, 1.0) * 65535.0));
        }
      },
      ctx);
}

}  // namespace

HeightOutputsPlan plan_height_outputs(const BakeRequest& request, const Preset& preset) {
  HeightOutputsPlan plan;
  plan.formats = request.formats;
  plan.relief_preview =
      request.formats.count(OutputFormat::preview) != 0U && request.preview == PreviewMode::relief;
  plan.range = HeightRange{preset.world.height_min_m, preset.world.height_max_m};
  plan.preview.range = plan.range;
  plan.preview.sea_level_m = preset.world.sea_level_m;
  if (plan.relief_preview) {
    plan.preview.palette = parse_preview_palette(preset.world.preview_palette);
  }
  return plan;
}

std::vector<WrittenFile> write_height_outputs(const HeightOutputsPlan& plan, const Field2D& heights,
                                              const Hydrology& hydro, const ExecContext& ctx,
                                              const fs::path& dir, const std::string& base,
                                              std::string& raw_warning) {
  struct Job {
    std::string file;
    const char* format;
    std::function<void(const fs::path&)> write;
  };
  const GridSpec& grid = heights.grid;
  const HeightRange& range = plan.range;
  const auto wants = [&](OutputFormat f) { return plan.formats.count(f) != 0U; };
  std::vector<Job> jobs;
  if (wants(OutputFormat::png16)) {
    jobs.push_back(
        {base + ".png", "png16", [&](const fs::path& p) { write_png16(p, heights, range, ctx); }});
  }
  if (wants(OutputFormat::raw16)) {
    jobs.push_back({base + ".r16", "raw16", [&](const fs::path& p) {
                      // The size warning is the bake's to report (add_warning), after the jobs.
                      ExecContext raw_ctx = ctx;
                      raw_ctx.log = [&](LogLevel level, std::string_view message) {
                        if (level == LogLevel::warning) raw_warning = std::string(message);
                      };
                      write_raw16(p, heights, range, raw_ctx);
                    }});
  }
  if (wants(OutputFormat::exr)) {
    jobs.push_back({base + ".exr", "exr", [&](const fs::path& p) { write_exr(p, heights, ctx); }});
  }
  if (wants(OutputFormat::normals)) {
    jobs.push_back({base + "_normals.png", "normal_png",
                    [&](const fs::path& p) { write_normal_map_png(p, heights, ctx); }});
  }
  if (plan.relief_preview) {
    jobs.push_back({base + "_preview.png", "preview_png", [&](const fs::path& p) {
                      // Lakes and rivers when the hydrology was computed (empty spans otherwise).
                      const PreviewWater water{hydro.water_level_m.data, hydro.river};
                      write_preview_png(p, heights, plan.preview, water, ctx);
                    }});
  }
  if (wants(OutputFormat::rivers)) {
    jobs.push_back({base + "_rivers.png", "rivers_png", [&](const fs::path& p) {
                      write_mask_png(
                          p, grid, [&](std::size_t c) { return hydro.river[c] != 0; }, ctx);
                    }});
  }
  if (wants(OutputFormat::lakes)) {
    jobs.push_back({base + "_lakes.png", "lakes_png", [&](const fs::path& p) {
                      write_mask_png(
                          p, grid, [&](std::size_t c) { return hydro.lake_id[c] != kNoLake; }, ctx);
                    }});
  }
  if (wants(OutputFormat::flow)) {
    jobs.push_back({base + "_flow.png", "flow_png",
                    [&](const fs::path& p) { write_flow_png(p, grid, hydro, ctx); }});
  }
  // One file after the other: each writer spreads its own work (conversion, rendering, the
  // encoder's blocks) over the workers, so the files written side by side were no faster, and
  // they held their images and encoded streams at the same time (generate's default PNG16 and
  // preview at 4097^2: the whole run's peak, 302 MiB against 237 one at a time).
  for (const Job& job : jobs) {
    throw_if_cancelled(ctx);
    job.write(dir / job.file);
  }
  std::vector<WrittenFile> written;
  for (const Job& job : jobs) written.push_back({job.file, job.format});
  return written;
}

}  // namespace terrane::bake_detail
