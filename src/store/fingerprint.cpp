// The generator fingerprint (store.hpp): a hash of the base heights a preset gives, so a world
// file can tell whether this terrane would put its edits on the same ground.
#include <cstring>
#include <vector>

#include "terrane/store.hpp"

namespace terrane {
namespace {

// Bumped when the fingerprint's own recipe changes (probe places, sizes), never otherwise.
constexpr std::uint64_t kFingerprintRecipe = 1;
constexpr int kProbe = 17;
constexpr std::int64_t kFar = std::int64_t{1} << 20;  // cells from the origin

std::uint64_t double_bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

}  // namespace

std::uint64_t generator_fingerprint(const Preset& preset) {
  const CompiledGraph graph = compile(preset);
  const double cell = preset.world.cell_size_m;
  std::uint64_t h = hash_combine(kFingerprintRecipe, double_bits(cell));
  const std::int64_t places[5][2] = {{0, 0}, {kFar, 0}, {-kFar, 0}, {0, kFar}, {0, -kFar}};
  std::vector<float> heights(std::size_t(kProbe) * kProbe);
  for (const auto& p : places) {
    const GridSpec grid{.width = kProbe,
                        .height = kProbe,
                        .spacing_m = cell,
                        .origin_x_m = 0.0,
                        .origin_z_m = 0.0,
                        .index_x0 = p[0] - kProbe / 2,
                        .index_z0 = p[1] - kProbe / 2};
    evaluate(graph, grid, heights, ExecContext{.threads = 1});
    h = hash_combine(h, hash_floats(heights));
  }
  return h;
}

}  // namespace terrane
