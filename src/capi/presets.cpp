// The C API's presets: builtin names, loading, parsing, info and canonical JSON (terrane.h).
#include <cstring>
#include <string>
#include <vector>

#include "capi_internal.hpp"

namespace terrane::capi {
namespace {

std::vector<std::string> override_list(const char* const* overrides, std::size_t count) {
  if (count > 0 && overrides == nullptr) {
    throw Error(ErrorCategory::invalid_argument,
                "overrides is NULL with override_count " + std::to_string(count));
  }
  if (count > 4096) {
    throw Error(ErrorCategory::limit,
                "override_count " + std::to_string(count) + " is above the limit of 4096");
  }
  std::vector<std::string> list;
  for (std::size_t k = 0; k < count; ++k) {
    if (overrides[k] == nullptr) {
      throw Error(ErrorCategory::invalid_argument, "overrides[" + std::to_string(k) + "] is NULL");
    }
    list.emplace_back(overrides[k]);
  }
  return list;
}

terrane_preset* make_handle(Preset preset) {
  auto handle = std::make_unique<terrane_preset>();
  handle->preset = std::move(preset);
  handle->graph = std::make_shared<const CompiledGraph>(compile(handle->preset));
  handle->generator = std::make_shared<const ChunkGenerator>(handle->preset);
  handle->climate = std::make_shared<const ClimateSources>(
      compile_climate_sources(handle->preset.generator(), handle->preset.surface.climate));
  return handle.release();
}

}  // namespace
}  // namespace terrane::capi

using namespace terrane;
using terrane::capi::guarded;
using terrane::capi::require;

extern "C" {

size_t terrane_builtin_preset_count(void) {
  try {
    return builtin_preset_names().size();
  } catch (...) {
    return 0;
  }
}

const char* terrane_builtin_preset_name(size_t index) {
  try {
    // Names live as long as the process: builtin_preset_names() is fixed at build time.
    static const std::vector<std::string> names = builtin_preset_names();
    return index < names.size() ? names[index].c_str() : nullptr;
  } catch (...) {
    return nullptr;
  }
}

terrane_status terrane_preset_load(const char* name_or_path, const char* const* overrides,
                                   size_t override_count, terrane_preset** out) {
  return guarded([&] {
    require(out, "out");
    *out = nullptr;
    require(name_or_path, "name_or_path");
    const std::vector<std::string> list = capi::override_list(overrides, override_count);
    *out = capi::make_handle(load_preset(name_or_path, list));
    return TERRANE_OK;
  });
}

terrane_status terrane_preset_parse(const char* json, size_t length, const char* source,
                                    const char* const* overrides, size_t override_count,
                                    terrane_preset** out) {
  return guarded([&] {
    require(out, "out");
    *out = nullptr;
    require(json, "json");
    const std::vector<std::string> list = capi::override_list(overrides, override_count);
    *out = capi::make_handle(
        parse_preset(std::string_view(json, length), source != nullptr ? source : "json", list));
    return TERRANE_OK;
  });
}

void terrane_preset_free(terrane_preset* preset) {
  delete preset;
}

terrane_status terrane_preset_get_info(const terrane_preset* preset, terrane_preset_info* out) {
  return guarded([&] {
    require(preset, "preset");
    require(out, "out");
    const Preset& p = preset->preset;
    terrane_preset_info info{};
    info.seed = p.seed;
    info.hash = p.hash;
    info.cell_size_m = p.world.cell_size_m;
    info.size = p.world.size;
    info.height_min_m = p.world.height_min_m;
    info.height_max_m = p.world.height_max_m;
    info.sea_level_m = p.world.sea_level_m;
    info.splat_layers = std::int32_t(p.surface.layers.size());
    info.species = std::int32_t(p.surface.species.size());
    info.has_post = p.post.empty() ? 0 : 1;
    *out = info;
    return TERRANE_OK;
  });
}

const char* terrane_preset_name(const terrane_preset* preset) {
  return preset != nullptr ? preset->preset.name.c_str() : nullptr;
}

const char* terrane_preset_layer_name(const terrane_preset* preset, size_t index) {
  if (preset == nullptr || index >= preset->preset.surface.layers.size()) return nullptr;
  return preset->preset.surface.layers[index].name.c_str();
}

const char* terrane_preset_species_name(const terrane_preset* preset, size_t index) {
  if (preset == nullptr || index >= preset->preset.surface.species.size()) return nullptr;
  return preset->preset.surface.species[index].name.c_str();
}

terrane_status terrane_preset_json(const terrane_preset* preset, char* buffer, size_t capacity,
                                   size_t* count) {
  return guarded([&] {
    require(preset, "preset");
    const std::string& text = preset->preset.canonical_json;
    const terrane_status s =
        capi::check_capacity(buffer, capacity, text.size(), count, "terrane_preset_json");
    if (s != TERRANE_OK) return s;
    if (!text.empty()) std::memcpy(buffer, text.data(), text.size());
    return TERRANE_OK;
  });
}

}  // extern "C"
