// Height and hydrology outputs of a bake: PNG16, RAW16, EXR, normal map, relief preview and the
// rivers / lakes / flow masks. Each file is an independent job; they run concurrently (the
// encoders are mostly single-threaded zlib) and are listed in a fixed order whatever finishes
// first.
#include <algorithm>
#include <cmath>
#include <functional>

#include "bake/bake_internal.hpp"

namespace terrane::bake_detail {
namespace {

namespace fs = std::filesystem;

// A 0/1 mask as a 16-bit PNG (0 or 65535).
Image16 mask_image(int w, int h, const std::function<bool(std::size_t)>& on) {
  Image16 img{w, h, std::vector<std::uint16_t>(std::size_t(w) * std::size_t(h))};
  for (std::size_t c = 0; c < img.samples.size(); ++c) img.samples[c] = on(c) ? 65535 : 0;
  return img;
}

// log10 of the drainage area, from one cell (0) to the whole map (65535).
Image16 flow_image(const GridSpec& grid, const Hydrology& hydro) {
  const double lo = std::log10(grid.spacing_m * grid.spacing_m);
  const double hi = lo + std::log10(double(grid.sample_count()));
  Image16 img{grid.width, grid.height, std::vector<std::uint16_t>(grid.sample_count())};
  for (std::size_t c = 0; c < img.samples.size(); ++c) {
    const double v =
        (std::log10(double(hydro.drainage_area_m2.data[c])) - lo) / std::max(hi - lo, 1e-9);
    img.samples[c] = std::uint16_t(std::lround(std::clamp(v, 0.0, 1.0) * 65535.0));
  }
  return img;
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
                      write_png16(p,
                                  mask_image(grid.width, grid.height,
                                             [&](std::size_t c) { return hydro.river[c] != 0; }),
                                  ctx);
                    }});
  }
  if (wants(OutputFormat::lakes)) {
    jobs.push_back({base + "_lakes.png", "lakes_png", [&](const fs::path& p) {
                      write_png16(
                          p,
                          mask_image(grid.width, grid.height,
                                     [&](std::size_t c) { return hydro.lake_id[c] != kNoLake; }),
                          ctx);
                    }});
  }
  if (wants(OutputFormat::flow)) {
    jobs.push_back({base + "_flow.png", "flow_png",
                    [&](const fs::path& p) { write_png16(p, flow_image(grid, hydro), ctx); }});
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
