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
#include <terrane/preset.hpp>

int main() {
  try {
    const terrane::Preset preset = terrane::load_preset("default");
    const terrane::CompiledGraph graph = terrane::compile(preset);

    // 64 x 48 samples at 0.7 m with integer offsets whose products the origin nearly cancels,
    // so that a product's rounding shows in the sum. The values go through volatiles so that
    // nothing below is folded at compile time.
    volatile double spacing_m = 0.7, origin_x_m = -2867.25, origin_z_m = 1433.35;
    terrane::GridSpec grid;
    grid.width = 64;
    grid.height = 48;
    grid.spacing_m = spacing_m;
    grid.origin_x_m = origin_x_m;
    grid.origin_z_m = origin_z_m;
    grid.index_x0 = 4096;
    grid.index_z0 = -2048;

    // The inline GridSpec::x_m / z_m, compiled here with this program's flags, must give the
    // library's sample positions: a rounded product, then a rounded sum. With FMA contraction
    // (GCC's default on FMA targets unless -ffp-contract=off, which terrane::terrane and
    // terrane.pc pass on) most of these samples differ in their last bits.
    for (int i = 0; i < grid.width; ++i) {
      volatile double index = double(grid.index_x0 + i);
      volatile double step_m = index * grid.spacing_m;
      if (grid.x_m(i) != grid.origin_x_m + step_m) {
        std::fprintf(stderr, "consumer: GridSpec::x_m(%d) was contracted to an FMA\n", i);
        return 1;
      }
    }
    for (int j = 0; j < grid.height; ++j) {
      volatile double index = double(grid.index_z0 + j);
      volatile double step_m = index * grid.spacing_m;
      if (grid.z_m(j) != grid.origin_z_m + step_m) {
        std::fprintf(stderr, "consumer: GridSpec::z_m(%d) was contracted to an FMA\n", j);
        return 1;
      }
    }

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
