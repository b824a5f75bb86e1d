// The world's level-0 surface as a NavTerrain: the compiled graph at the lattice vertices, plus
// height edits for EditedNavTerrain.
#include <string>

#include "terrane/nav.hpp"

namespace terrane {

std::shared_ptr<const NavTerrain> make_nav_terrain(
    std::shared_ptr<const ChunkGenerator> generator) {
  if (generator == nullptr) {
    throw Error(ErrorCategory::invalid_argument, "make_nav_terrain: generator is null");
  }
  return std::make_shared<EditedNavTerrain>(std::move(generator));
}

namespace {

void check_edits(const ChunkGenerator& gen, const HeightEditSnapshot* edits) {
  if (edits != nullptr && edits->cell_size_m() != gen.cell_size_m()) {
    throw Error(ErrorCategory::invalid_argument,
                "EditedNavTerrain: height edits of cell " + std::to_string(edits->cell_size_m()) +
                    " m on a world of cell " + std::to_string(gen.cell_size_m()) + " m");
  }
}

}  // namespace

EditedNavTerrain::EditedNavTerrain(std::shared_ptr<const ChunkGenerator> generator,
                                   std::shared_ptr<const HeightEditSnapshot> edits)
    : generator_(std::move(generator)) {
  if (generator_ == nullptr) {
    throw Error(ErrorCategory::invalid_argument, "EditedNavTerrain: generator is null");
  }
  check_edits(*generator_, edits.get());
  edits_ = std::move(edits);
}

double EditedNavTerrain::cell_size_m() const {
  return generator_->cell_size_m();
}
int EditedNavTerrain::chunk_cells() const {
  return generator_->settings().cells;
}
double EditedNavTerrain::sea_level_m() const {
  return generator_->graph().world().sea_level_m;
}

void EditedNavTerrain::heights(std::int64_t i0, std::int64_t j0, int width, int height,
                               std::span<float> out) const {
  const std::shared_ptr<const HeightEditSnapshot> e = edits();
  GridSpec g;
  g.width = width;
  g.height = height;
  g.spacing_m = generator_->cell_size_m();
  g.index_x0 = i0;
  g.index_z0 = j0;
  evaluate(generator_->graph(), g, out, ExecContext{.threads = 1});
  if (e != nullptr) e->add_to(g, out);
}

void EditedNavTerrain::set_edits(std::shared_ptr<const HeightEditSnapshot> edits) {
  check_edits(*generator_, edits.get());
  const std::lock_guard lock(mutex_);
  edits_ = std::move(edits);
}

std::shared_ptr<const HeightEditSnapshot> EditedNavTerrain::edits() const {
  const std::lock_guard lock(mutex_);
  return edits_;
}

std::array<double, 4> edited_area_m(const LatticeRect& changed, double cell_size_m) {
  // The triangles that use a changed vertex lie within one cell of it.
  return {double(changed.i0 - 1) * cell_size_m, double(changed.j0 - 1) * cell_size_m,
          double(changed.i1 + 1) * cell_size_m, double(changed.j1 + 1) * cell_size_m};
}

}  // namespace terrane
