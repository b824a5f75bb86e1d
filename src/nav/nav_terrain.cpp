// The world's level-0 surface as a NavTerrain: the compiled graph at the lattice vertices.
#include "terrane/nav.hpp"

namespace terrane {
namespace {

class WorldNavTerrain final : public NavTerrain {
 public:
  explicit WorldNavTerrain(std::shared_ptr<const ChunkGenerator> generator)
      : generator_(std::move(generator)) {}
  double cell_size_m() const override { return generator_->cell_size_m(); }
  int chunk_cells() const override { return generator_->settings().cells; }
  double sea_level_m() const override { return generator_->graph().world().sea_level_m; }
  void heights(std::int64_t i0, std::int64_t j0, int width, int height,
               std::span<float> out) const override {
    GridSpec g;
    g.width = width;
    g.height = height;
    g.spacing_m = generator_->cell_size_m();
    g.index_x0 = i0;
    g.index_z0 = j0;
    ExecContext one;
    one.threads = 1;
    evaluate(generator_->graph(), g, out, one);
  }

 private:
  std::shared_ptr<const ChunkGenerator> generator_;
};

}  // namespace

std::shared_ptr<const NavTerrain> make_nav_terrain(
    std::shared_ptr<const ChunkGenerator> generator) {
  if (generator == nullptr) {
    throw Error(ErrorCategory::invalid_argument, "make_nav_terrain: generator is null");
  }
  return std::make_shared<WorldNavTerrain>(std::move(generator));
}

}  // namespace terrane
