// The C API's bake (terrane.h): terrane::bake with the request `terrane generate` builds.
#include <cmath>
#include <string>

#include "capi_internal.hpp"
#include "terrane/bake.hpp"

using namespace terrane;
using terrane::capi::guarded;
using terrane::capi::require;

extern "C" {

void terrane_bake_options_init(terrane_bake_options* options) {
  if (options != nullptr) *options = terrane_bake_options{};
}

terrane_status terrane_bake(const terrane_preset* preset, const terrane_bake_options* options,
                            terrane_bake_result* result) {
  return guarded([&] {
    require(preset, "preset");
    require(options, "options");
    const terrane_bake_options& o = *options;
    BakeRequest request;
    request.preset = preset->preset;
    if (o.out_dir != nullptr) request.out_dir = o.out_dir;
    if (o.formats != nullptr) request.formats = parse_formats(o.formats);
    if (o.engine != nullptr) request.engine = parse_engine(o.engine);
    if (o.erode != nullptr) request.erode = parse_erode(o.erode);
    if (o.size != 0) request.size = o.size;
    if (o.width != 0 || o.height != 0) {
      request.width = o.width;
      request.height = o.height;
    }
    if (o.cell_m != 0.0) request.cell_m = o.cell_m;
    if (o.origin_x_m != 0.0 || o.origin_z_m != 0.0) {
      request.origin_x_m = o.origin_x_m;
      request.origin_z_m = o.origin_z_m;
    }
    if (o.has_seed != 0) request.seed = o.seed;
    if (o.tiles != 0) request.tiles = o.tiles;
    request.lod = o.lod;
    ExecContext ctx;
    ctx.threads = o.threads;
    const BakeReport report = bake(request, ctx);
    if (result != nullptr) {
      terrane_bake_result r{};
      r.files = std::uint32_t(report.files.size());
      r.bytes = std::uint64_t(report.total_bytes());
      r.warnings = std::uint32_t(report.warnings.size());
      r.width = report.grid.width;
      r.height = report.grid.height;
      r.generation_s = report.generation_s;
      r.total_s = report.total_s;
      *result = r;
    }
    return TERRANE_OK;
  });
}

}  // extern "C"
