// Lookup of the built-in presets embedded at build time (see CMakeLists.txt).
#include <string>

#include "preset/builtin_presets.hpp"
#include "terrane/preset.hpp"

namespace terrane {

std::vector<std::string> builtin_preset_names() {
  std::vector<std::string> names;
  for (std::size_t k = 0; k < preset_detail::kBuiltinPresetCount; ++k) {
    names.emplace_back(preset_detail::kBuiltinPresets[k].name);
  }
  return names;
}

std::string_view builtin_preset_json(std::string_view name) {
  std::string list;
  for (std::size_t k = 0; k < preset_detail::kBuiltinPresetCount; ++k) {
    const preset_detail::BuiltinPresetText& p = preset_detail::kBuiltinPresets[k];
    if (name == p.name) return p.json;
    list += (k ? ", " : "") + std::string(p.name);
  }
  throw Error(ErrorCategory::invalid_argument,
              "unknown builtin preset '" + std::string(name) + "'; builtins: " + list);
}

}  // namespace terrane
