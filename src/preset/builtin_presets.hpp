// The table of built-in presets, generated at build time (builtin_presets_data.cpp.in).
#pragma once

#include <cstddef>

namespace terrane::preset_detail {

struct BuiltinPresetText {
  const char* name;
  const char* json;
};

extern const BuiltinPresetText kBuiltinPresets[];
extern const std::size_t kBuiltinPresetCount;

}  // namespace terrane::preset_detail
