// `terrane generate --mode voxel`: a box of the block world -> .vox, GLB and a sidecar, staged
// and published together. Every limit is checked before the box is generated.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "bake/bake_internal.hpp"
#include "terrane/bake.hpp"
#include "terrane/voxel.hpp"

namespace terrane {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxVoxelBakeSide = 4096;
constexpr std::int64_t kMaxVoxelBakeRows = 4096;

Preset voxel_preset(const VoxelBakeRequest& r) {
  std::vector<std::string> overrides = r.overrides;
  if (r.seed) overrides.push_back("seed=" + std::to_string(*r.seed));
  if (const auto* name = std::get_if<std::string>(&r.preset)) return load_preset(*name, overrides);
  const Preset& p = std::get<Preset>(r.preset);
  return overrides.empty() ? p : apply_overrides(p, overrides);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::uintmax_t VoxelBakeReport::total_bytes() const {
  std::uintmax_t n = 0;
  for (const BakedFile& f : files) n += f.bytes;
  return n;
}

VoxelBakeReport bake_voxel(const VoxelBakeRequest& request, const ExecContext& ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!request.vox && !request.glb) {
    throw Error(ErrorCategory::invalid_argument,
                "--formats: a voxel bake writes vox and/or glb; none was asked for");
  }
  for (const auto& [what, v] : {std::pair{"width", request.size_x}, {"height", request.size_z}}) {
    if (v < 1 || v > kMaxVoxelBakeSide) {
      throw Error(ErrorCategory::limit, std::string("--size: the box's ") + what + " of " +
                                            std::to_string(v) + " blocks is outside 1.." +
                                            std::to_string(kMaxVoxelBakeSide));
    }
  }
  const Preset preset = voxel_preset(request);
  const VoxelParams& v = preset.voxel;
  const double bs = v.block_size_m;
  for (const std::int64_t c :
       {request.x0, request.z0, request.x0 + request.size_x, request.z0 + request.size_z}) {
    if (!(std::fabs(double(c) * bs) <= 1e9)) {
      throw Error(ErrorCategory::invalid_argument,
                  "--origin: the box reaches " + format_number(double(c) * bs) +
                      " m, beyond the block world's limit of 1e9 m");
    }
  }
  // The vertical range.
  std::int64_t y0 = 0, y1 = 0;
  if (request.y0.has_value() != request.y1.has_value()) {
    throw Error(ErrorCategory::invalid_argument, "--y-range: give both ends (lo,hi)");
  }
  if (request.y0) {
    y0 = *request.y0, y1 = *request.y1;
  } else {
    const CompiledGraph g = compile(preset);
    const int step = std::max(1, std::max(request.size_x, request.size_z) / 128);
    const GridSpec probe{.width = int(ceil_div(request.size_x, step)) + 1,
                         .height = int(ceil_div(request.size_z, step)) + 1,
                         .spacing_m = double(step) * bs,
                         .origin_x_m = (double(request.x0) + 0.5) * bs,
                         .origin_z_m = (double(request.z0) + 0.5) * bs};
    std::vector<float> h(probe.sample_count());
    evaluate(g, probe, h, ctx);
    if (request.edits) request.edits->add_sampled(probe, h);
    const auto [lo, hi] = std::minmax_element(h.begin(), h.end());
    y0 = std::int64_t(std::floor(double(*lo) / bs)) - 24;
    y1 = std::int64_t(std::ceil(double(*hi) / bs)) + 12;
    y0 = std::max(y0, v.min_y);
    y1 = std::min(y1, v.max_y);
    y0 = std::min(y0, y1);
  }
  if (y1 < y0 || y1 - y0 + 1 > kMaxVoxelBakeRows) {
    throw Error(ErrorCategory::limit, "--y-range: rows " + std::to_string(y0) + ".." +
                                          std::to_string(y1) + " must hold 1.." +
                                          std::to_string(kMaxVoxelBakeRows) + " rows");
  }
  const int size_y = int(y1 - y0 + 1);
  const double blocks = double(request.size_x) * double(size_y) * double(request.size_z);
  if (blocks > double(std::size_t{1} << 28)) {
    throw Error(ErrorCategory::limit,
                "--size / --y-range: " + std::to_string(request.size_x) + " x " +
                    std::to_string(size_y) + " x " + std::to_string(request.size_z) +
                    " blocks is more than a voxel bake's limit of 2^28 (268435456)");
  }
  if (request.vox) {
    const std::int64_t models =
        ceil_div(request.size_x, 256) * ceil_div(size_y, 256) * ceil_div(request.size_z, 256);
    if (models > kMaxVoxModels) {
      throw Error(ErrorCategory::limit, "vox: the box needs " + std::to_string(models) +
                                            " models of 256^3, more than the limit of " +
                                            std::to_string(kMaxVoxModels));
    }
    if (v.palette.types.size() > 256) {
      throw Error(ErrorCategory::limit, "vox: the palette has " +
                                            std::to_string(v.palette.types.size() - 1) +
                                            " block types; a .vox palette holds 255");
    }
  }
  const fs::path dir = request.out_dir;
  bake_detail::prepare_output_dir(dir);
  StagedOutputs staged(dir);

  VoxelBakeReport report;
  report.name = preset.name.empty() ? std::string("terrain") : preset.name;
  report.seed = preset.seed;
  report.preset_hash = preset.hash;
  const BlockWorldGenerator gen(preset.generator(), preset.surface, v);
  report.warnings = gen.warnings();
  for (const std::string& w : report.warnings) {
    if (ctx.log) ctx.log(LogLevel::warning, w);
  }
  BlockRegion& region = report.region;
  gen.generate_region(request.x0, y0, request.z0, request.size_x, size_y, request.size_z, region,
                      ctx, request.edits.get(), request.block_edits.get());
  report.solid_blocks = std::size_t(std::count_if(region.blocks.begin(), region.blocks.end(),
                                                  [](std::uint16_t b) { return b != 0; }));
  report.generation_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<std::string> names;
  const std::string base = report.name + "_blocks";
  auto add = [&](const std::string& name, const char* format) {
    names.push_back(name);
    report.files.push_back(BakedFile{name, format, fs::file_size(staged.staging() / name)});
  };
  if (request.vox) {
    write_vox(staged.staging() / (base + ".vox"), region, v.palette);
    add(base + ".vox", "vox");
  }
  if (request.glb) {
    write_block_glb(staged.staging() / (base + ".glb"), region, v.palette, bs);
    add(base + ".glb", "glb");
  }
  nlohmann::json side;
  side["generator"] = "terrane";
  side["mode"] = "voxel";
  side["preset"] = preset.name;
  side["preset_hash"] = std::to_string(preset.hash);
  side["seed"] = std::to_string(preset.seed);
  side["block_size_m"] = bs;
  side["origin_blocks"] = {region.x0, region.y0, region.z0};
  side["size_blocks"] = {region.size_x, region.size_y, region.size_z};
  side["origin_m"] = {double(region.x0) * bs, double(region.y0) * bs, double(region.z0) * bs};
  side["sea_level_m"] = preset.world.sea_level_m;
  side["vox_axes"] = "vox x = terrane x, vox y = terrane z, vox z = terrane y (Z up)";
  nlohmann::json pal = nlohmann::json::array();
  for (std::size_t k = 0; k < v.palette.types.size(); ++k) {
    const BlockType& t = v.palette.types[k];
    const char* kind = t.kind == BlockKind::air           ? "air"
                       : t.kind == BlockKind::opaque      ? "opaque"
                       : t.kind == BlockKind::transparent ? "transparent"
                                                          : "liquid";
    pal.push_back({{"id", k},
                   {"name", t.name},
                   {"kind", kind},
                   {"colour", {t.colour[0], t.colour[1], t.colour[2]}}});
  }
  side["blocks"] = pal;
  const bool heights = request.edits && !request.edits->empty();
  const bool overrides = request.block_edits && !request.block_edits->empty();
  if (heights || overrides) {
    const auto hex = [](std::uint64_t value) {
      char hash[17];
      std::snprintf(hash, sizeof hash, "%016" PRIx64, value);
      return std::string(hash);
    };
    nlohmann::json e = {{"source", request.edits_source}};
    if (heights) {
      e["tiles"] = request.edits->tile_count();
      e["hash"] = hex(request.edits->content_hash());
    }
    if (overrides) {
      e["block_chunks"] = request.block_edits->chunk_count();
      e["block_overrides"] = request.block_edits->override_count();
      e["block_hash"] = hex(request.block_edits->content_hash());
    }
    side["edits"] = e;
  }
  nlohmann::json files = nlohmann::json::array();
  for (const BakedFile& f : report.files) files.push_back({{"name", f.name}, {"format", f.format}});
  side["files"] = files;
  const std::string sidecar = base + ".json";
  const std::string text = side.dump(2) + "\n";
  write_file_atomic(
      staged.staging() / sidecar,
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(text.data()), text.size()));
  add(sidecar, "sidecar_json");
  staged.publish(names, sidecar);
  region.blocks.clear();
  region.blocks.shrink_to_fit();
  report.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace terrane
