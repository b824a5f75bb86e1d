// `terrane generate`: preset → height field → files (PNG16, RAW16, EXR, normal map, preview)
// plus a JSON sidecar. Every file is written atomically (temporary name, then rename).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "terrane/erosion.hpp"
#include "terrane/graph.hpp"
#include "terrane/io.hpp"

namespace terrane::cli {

void probe_writable(const std::filesystem::path& dir, const std::string& message) {
  const std::filesystem::path probe = dir / ".terrane-write-probe";
  FILE* f = std::fopen(probe.c_str(), "wb");
  if (f == nullptr) throw Error(ErrorCategory::io, message);
  std::fclose(f);
  std::error_code ec;
  std::filesystem::remove(probe, ec);
}

namespace {

namespace fs = std::filesystem;

const char* const kFormats[] = {"png16", "raw16", "exr", "normals", "preview", "rivers", "lakes",
                                "flow",  "glb",   "obj", "splat",   "biomes",  "scatter"};

std::set<std::string> parse_formats(const std::string& list) {
  std::set<std::string> out;
  std::stringstream in(list);
  std::string f;
  while (std::getline(in, f, ',')) {
    if (f.empty()) continue;
    bool known = false;
    for (const char* k : kFormats) known = known || f == k;
    if (!known) {
      throw Error(ErrorCategory::invalid_argument,
                  "--formats: unknown format '" + f +
                      "' (allowed: png16, raw16, exr, normals, preview, rivers, lakes, flow, "
                      "glb, obj, splat, biomes, scatter)");
    }
    out.insert(f);
  }
  return out;
}

// Fails early (before any work) when the directory cannot be created or written.
void prepare_output_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw Error(ErrorCategory::io, "output directory '" + dir.string() +
                                       "' cannot be created: " +
                                       (ec ? ec.message() : std::string("not a directory")));
  }
  probe_writable(dir, "output directory '" + dir.string() + "' is not writable");
}

std::string format_bytes(std::uintmax_t n) {
  char buf[32];
  if (n >= (1u << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(n) / double(1u << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(n) / 1024.0);
  }
  return buf;
}

// A 0/1 mask as a 16-bit PNG (0 or 65535).
Image16 mask_image(int w, int h, const std::function<bool(std::size_t)>& on) {
  Image16 img{w, h, std::vector<std::uint16_t>(std::size_t(w) * std::size_t(h))};
  for (std::size_t c = 0; c < img.samples.size(); ++c) img.samples[c] = on(c) ? 65535 : 0;
  return img;
}

// "--erode thermal,droplets" -> the preset's post list with those operations' defaults appended,
// as an override "post=[...]" (so the sidecar's preset hash covers it).
std::string erode_override(const Preset& preset, const std::string& list) {
  std::string post = preset.post_json;  // "[...]"
  std::stringstream in(list);
  std::string name;
  bool first = post == "[]";
  post.pop_back();
  while (std::getline(in, name, ',')) {
    if (name.empty()) continue;
    RegionOpKind kind{};
    try {
      kind = parse_region_op_kind(name);
    } catch (const Error& e) {
      throw Error(ErrorCategory::invalid_argument, std::string("--erode: ") + e.what());
    }
    if (kind == RegionOpKind::graph) {
      throw Error(ErrorCategory::invalid_argument,
                  "--erode: 'graph' has no default (it needs its nodes); add {\"op\": \"graph\", "
                  "\"output\": ..., \"nodes\": {...}} to the preset's post list instead (see "
                  "docs/PRESETS.md); --erode accepts thermal, droplets, stream_power, blur");
    }
    if (!first) post += ',';
    post += "{\"op\":\"";
    post += name;
    post += "\"}";
    first = false;
  }
  post += ']';
  post.insert(0, "post=");
  return post;
}

}  // namespace

int run_generate(const GenerateOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::set<std::string> formats = parse_formats(opt.formats);

  // Command-line settings become preset overrides so the sidecar's preset hash covers them.
  std::vector<std::string> overrides = opt.overrides;
  if (opt.has_seed) overrides.push_back("seed=" + std::to_string(opt.seed));
  if (opt.has_size) overrides.push_back("world.size=" + std::to_string(opt.size));
  if (opt.has_cell) {
    std::ostringstream s;
    s.precision(17);
    s << "world.cell_size_m=" << opt.cell_m;
    overrides.push_back(s.str());
  }
  Preset preset = load_preset(opt.preset, overrides);
  if (!opt.erode.empty()) {
    overrides.push_back(erode_override(preset, opt.erode));
    preset = load_preset(opt.preset, overrides);
  }
  const std::vector<RegionOp> post_ops = parse_region_ops(preset);

  GridSpec grid = default_grid(preset.world);
  if (opt.has_width != opt.has_height) {
    throw Error(ErrorCategory::invalid_argument, "--width and --height must be given together");
  }
  if (opt.has_width) {
    if (opt.has_size) {
      throw Error(ErrorCategory::invalid_argument, "--size cannot be combined with --width/--height");
    }
    grid.width = opt.width;
    grid.height = opt.height;
  }
  if (opt.has_origin) {
    grid.origin_x_m = opt.origin_x;
    grid.origin_z_m = opt.origin_z;
  }
  const std::string engine_warning = snap_size_for_engine(opt.engine, grid);
  if (!engine_warning.empty()) std::fprintf(stderr, "warning: %s\n", engine_warning.c_str());
  grid.validate("map size");  // before allocating anything large

  const fs::path dir(opt.out_dir);
  const std::string base = preset.name.empty() ? "terrain" : preset.name;
  const MeshExportPlan mesh_plan = plan_mesh_export(
      opt, formats.count("glb") != 0U, formats.count("obj") != 0U, grid, dir, base);
  const SurfaceExportPlan surface_plan =
      plan_surface_export(preset, formats.count("splat") != 0U, formats.count("biomes") != 0U,
                          formats.count("scatter") != 0U, opt.preview);
  prepare_output_dir(dir);
  const CompiledGraph graph = compile(preset);

  ProgressBar bar("generate", !opt.quiet);
  ExecContext ctx{.threads = opt.threads};
  ctx.progress = [&bar](double f) { bar.update(f); };
  Field2D heights(grid);
  evaluate(graph, grid, heights.data, ctx);
  bar.finish();
  if (!post_ops.empty()) {
    ProgressBar post_bar("erode", !opt.quiet);
    ExecContext post_ctx{.threads = opt.threads};
    post_ctx.progress = [&post_bar](double f) { post_bar.update(f); };
    apply_region_ops(heights, preset, post_ops, post_ctx);
    post_bar.finish();
  }
  Hydrology hydro;
  const bool want_hydrology = formats.count("rivers") != 0U || formats.count("lakes") != 0U ||
                              formats.count("flow") != 0U || surface_plan.any();
  if (want_hydrology) {
    HydrologyParams hp;
    hp.routing.use_sea_level = true;
    hp.routing.sea_level_m = preset.world.sea_level_m;
    hp.river_area_m2 = opt.river_area_m2;
    compute_hydrology(heights, hp, hydro, ExecContext{.threads = opt.threads});
  }
  const auto t_gen = std::chrono::steady_clock::now();

  const HeightRange range{preset.world.height_min_m, preset.world.height_max_m};
  const ExecContext io_ctx{.threads = opt.threads};
  Sidecar sidecar;
  sidecar.width = grid.width;
  sidecar.height = grid.height;
  sidecar.spacing_m = grid.spacing_m;
  sidecar.origin_x_m = grid.origin_x_m;
  sidecar.origin_z_m = grid.origin_z_m;
  sidecar.range = range;
  sidecar.sea_level_m = preset.world.sea_level_m;
  sidecar.seed = preset.seed;
  sidecar.preset = preset.name;
  sidecar.preset_hash = preset.hash;

  // Each output is an independent job; they run concurrently (the encoders are mostly
  // single-threaded zlib), and the sidecar lists them in a fixed order whatever finishes first.
  struct Job {
    std::string file;
    const char* format;
    std::function<void(const fs::path&)> write;
  };
  std::vector<Job> jobs;
  std::string raw_warning;
  if (formats.count("png16") != 0U) {
    jobs.push_back({base + ".png", "png16", [&](const fs::path& p) { write_png16(p, heights, range); }});
  }
  if (formats.count("raw16") != 0U) {
    jobs.push_back({base + ".r16", "raw16", [&](const fs::path& p) {
                      ExecContext raw_ctx{.threads = opt.threads};
                      raw_ctx.log = [&](LogLevel level, std::string_view m) {
                        if (level == LogLevel::warning) raw_warning = m;
                      };
                      write_raw16(p, heights, range, raw_ctx);
                    }});
  }
  if (formats.count("exr") != 0U) {
    jobs.push_back({base + ".exr", "exr", [&](const fs::path& p) { write_exr(p, heights); }});
  }
  if (formats.count("normals") != 0U) {
    jobs.push_back({base + "_normals.png", "normal_png",
                    [&](const fs::path& p) { write_normal_map_png(p, heights, io_ctx); }});
  }
  if (formats.count("preview") != 0U && !surface_plan.biome_preview) {
    PreviewParams pp;
    pp.range = range;
    pp.sea_level_m = preset.world.sea_level_m;
    pp.palette = parse_preview_palette(preset.world.preview_palette);
    jobs.push_back({base + "_preview.png", "preview_png",
                    [&, pp](const fs::path& p) { write_preview_png(p, heights, pp, io_ctx); }});
  }
  if (formats.count("rivers") != 0U) {
    jobs.push_back({base + "_rivers.png", "rivers_png", [&](const fs::path& p) {
                      write_png16(p, mask_image(grid.width, grid.height,
                                                [&](std::size_t c) { return hydro.river[c] != 0; }));
                    }});
  }
  if (formats.count("lakes") != 0U) {
    jobs.push_back({base + "_lakes.png", "lakes_png", [&](const fs::path& p) {
                      write_png16(p, mask_image(grid.width, grid.height, [&](std::size_t c) {
                                    return hydro.lake_id[c] != kNoLake;
                                  }));
                    }});
  }
  if (formats.count("flow") != 0U) {
    // log10 of the drainage area, from one cell (0) to the whole map (65535).
    jobs.push_back({base + "_flow.png", "flow_png", [&](const fs::path& p) {
                      const double lo = std::log10(grid.spacing_m * grid.spacing_m);
                      const double hi = lo + std::log10(double(grid.sample_count()));
                      Image16 img{grid.width, grid.height,
                                  std::vector<std::uint16_t>(grid.sample_count())};
                      for (std::size_t c = 0; c < img.samples.size(); ++c) {
                        const double v = (std::log10(double(hydro.drainage_area_m2.data[c])) - lo) /
                                         std::max(hi - lo, 1e-9);
                        img.samples[c] = std::uint16_t(std::lround(std::clamp(v, 0.0, 1.0) * 65535.0));
                      }
                      write_png16(p, img);
                    }});
  }
  parallel_for(io_ctx, std::int64_t(jobs.size()), 1, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t k = b; k < e; ++k) jobs[k].write(dir / jobs[k].file);
  });
  std::vector<fs::path> written;
  for (const Job& job : jobs) {
    written.push_back(dir / job.file);
    sidecar.files.push_back({job.file, job.format});
  }
  for (const auto& files :
       {write_mesh_exports(mesh_plan, heights, dir, base, opt.quiet),
        write_engine_export(opt.engine, heights, range, dir, base),
        write_surface_exports(surface_plan, preset, graph, heights,
                              want_hydrology ? &hydro : nullptr, io_ctx, dir, base)}) {
    for (const WrittenFile& f : files) {
      written.push_back(dir / f.file);
      sidecar.files.push_back({f.file, f.format});
    }
  }
  if (!engine_warning.empty()) sidecar.warnings.push_back(engine_warning);
  if (!raw_warning.empty()) {
    std::fprintf(stderr, "warning: %s\n", raw_warning.c_str());
    sidecar.warnings.push_back(raw_warning);
  }
  write_sidecar_json(dir / (base + ".json"), sidecar);
  written.push_back(dir / (base + ".json"));
  const auto t1 = std::chrono::steady_clock::now();

  std::uintmax_t total = 0;
  std::string names;
  for (const fs::path& p : written) {
    total += fs::file_size(p);
    names += (names.empty() ? "" : ", ") + p.string();
  }
  const double gen_s = std::chrono::duration<double>(t_gen - t0).count();
  const double all_s = std::chrono::duration<double>(t1 - t0).count();
  std::printf("%s: %dx%d samples at %g m, seed %llu, heights %.1f..%.1f m; generated in %.2f s, "
              "total %.2f s (%s); wrote %s\n",
              base.c_str(), grid.width, grid.height, grid.spacing_m,
              static_cast<unsigned long long>(preset.seed), preset.world.height_min_m,
              preset.world.height_max_m, gen_s, all_s, format_bytes(total).c_str(), names.c_str());
  return 0;
}

}  // namespace terrane::cli
