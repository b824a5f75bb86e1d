// A world's edits in a bake (bake_internal.hpp): height edits and splat paint: the map is a grid on
// the edits' level-0 lattice, shifted by a whole number of cells, so each sample is one lattice
// vertex and gets exactly the delta the streamed world's chunks give it.
#include <cmath>

#include "bake/bake_internal.hpp"
#include "terrane/schema.hpp"

namespace terrane::bake_detail {
namespace {

// The vertex index of `origin`, or nothing when it is not on the lattice.
bool lattice_index(double origin, double cell, std::int64_t& k) {
  const double q = origin / cell;
  if (!std::isfinite(q) || std::floor(q) != q || std::fabs(q) > 9.0e15) return false;
  k = std::int64_t(q);
  return double(k) * cell == origin;
}

// `grid` as a grid of the lattice of `cell` (origin 0, indices shifted), or Error naming the
// layer (`what`).
GridSpec on_lattice(double cell, const GridSpec& grid, const char* what) {
  std::int64_t kx = 0, kz = 0;
  if (grid.spacing_m != cell || !lattice_index(grid.origin_x_m, cell, kx) ||
      !lattice_index(grid.origin_z_m, cell, kz)) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(what) + ": the map (spacing " + format_number(grid.spacing_m) +
                    " m, origin " + format_number(grid.origin_x_m) + ", " +
                    format_number(grid.origin_z_m) +
                    " m) is not on the edits' lattice: the spacing must be their cell, " +
                    format_number(cell) + " m, and the origin a multiple of it");
  }
  GridSpec g = grid;
  g.origin_x_m = 0.0;
  g.origin_z_m = 0.0;
  g.index_x0 += kx;
  g.index_z0 += kz;
  return g;
}

}  // namespace

void check_edits_grid(const HeightEditSnapshot* edits, const GridSpec& grid) {
  if (edits != nullptr && !edits->empty())
    (void)on_lattice(edits->cell_size_m(), grid, "height edits");
}

void add_edits(const HeightEditSnapshot* edits, const GridSpec& grid, std::span<float> heights) {
  if (edits == nullptr || edits->empty()) return;
  edits->add_to(on_lattice(edits->cell_size_m(), grid, "height edits"), heights);
}

void check_world_layers(const BakeRequest& request, const Preset& preset, const GridSpec& grid) {
  check_edits_grid(request.edits.get(), grid);
  const SurfaceParams& surface = preset.surface;
  if (const SplatPaintSnapshot* paint = request.paint.get(); paint != nullptr && !paint->empty()) {
    (void)on_lattice(paint->cell_size_m(), grid, "splat paint");
    if (paint->layers() != int(surface.layers.size())) {
      throw Error(ErrorCategory::invalid_argument,
                  "splat paint of " + std::to_string(paint->layers()) + " layers; the preset has " +
                      std::to_string(surface.layers.size()) + " splat layers");
    }
  }
  if (const InstanceEditSnapshot* inst = request.instance_edits.get(); inst != nullptr) {
    const int top = inst->max_species();
    if (top >= int(surface.species.size())) {
      throw Error(ErrorCategory::invalid_argument,
                  "instance edits add species " + std::to_string(top) + "; the preset has " +
                      std::to_string(surface.species.size()) + " species");
    }
  }
}

void apply_paint(const SplatPaintSnapshot* paint, SplatMap& splat) {
  if (paint == nullptr || paint->empty()) return;
  const GridSpec map = splat.grid;
  splat.grid = on_lattice(paint->cell_size_m(), map, "splat paint");
  paint->apply_to(splat);
  splat.grid = map;
}

}  // namespace terrane::bake_detail
