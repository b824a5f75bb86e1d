// `terrane presets`: the built-in presets with their descriptions.
#include <cstdio>

#include "commands.hpp"
#include "terrane/preset.hpp"

namespace terrane::cli {

int run_presets() {
  for (const std::string& name : builtin_preset_names()) {
    const Preset p = load_preset(name);
    std::printf("%-10s %s (%d x %d at %g m, %.0f..%.0f m)\n", name.c_str(), p.description.c_str(),
                p.world.size, p.world.size, p.world.cell_size_m, p.world.height_min_m,
                p.world.height_max_m);
  }
  return 0;
}

}  // namespace terrane::cli
