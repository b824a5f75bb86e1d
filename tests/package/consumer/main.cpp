// A program outside terrane that uses it the way a game would: the builtin preset "default",
// compiled and evaluated on a small grid through the public API only. It prints the FNV-1a 64
// hash of the heights; the package tests (tests/package) build it against the installed
// package, through pkg-config and with add_subdirectory, and require every build to print what
// the same file prints when built inside terrane's own tree.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>

#include <terrane/core.hpp>
#include <terrane/graph.hpp>

int main() {
  try {
    const terrane::Preset preset = terrane::load_preset("default");
    const terrane::CompiledGraph graph = terrane::compile(preset);

    // 64 x 48 samples at 7.5 m, away from the origin and with integer offsets, so that the
    // inline GridSpec::x_m / z_m (compiled here, by the consumer) take part in the result.
    terrane::GridSpec grid;
    grid.width = 64;
    grid.height = 48;
    grid.spacing_m = 7.5;
    grid.origin_x_m = 1234.25;
    grid.origin_z_m = -987.5;
    grid.index_x0 = 4096;
    grid.index_z0 = -2048;
    terrane::Field2D heights(grid);
    terrane::ExecContext ctx;
    ctx.threads = 2;
    terrane::evaluate(graph, grid, heights.data, ctx);

    for (float h : heights.data) {
      if (!std::isfinite(h) || h < preset.world.height_min_m || h > preset.world.height_max_m) {
        std::fprintf(stderr, "consumer: height %g outside [%g, %g]\n", double(h),
                     preset.world.height_min_m, preset.world.height_max_m);
        return 1;
      }
    }
    // A point sample computed by this program's own (inlined) GridSpec::x_m / z_m.
    const float corner =
        terrane::evaluate_at(graph, grid.x_m(grid.width - 1), grid.z_m(grid.height - 1));
    if (corner != heights.at(grid.width - 1, grid.height - 1)) {
      std::fprintf(stderr, "consumer: evaluate_at differs from evaluate at the last sample\n");
      return 1;
    }
    std::printf("terrane-consumer %016llx\n",
                static_cast<unsigned long long>(terrane::hash_floats(heights.data)));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
