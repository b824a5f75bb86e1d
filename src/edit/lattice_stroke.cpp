// What the lattice layers share (lattice_stroke.hpp).
#include "edit/lattice_stroke.hpp"

#include <cmath>
#include <string>

namespace terrane::edit_detail {

namespace {
// Vertices one stroke may cover: a 1e4 m brush at 1 m cells is 4e8; refuse beyond 2^26.
constexpr std::int64_t kMaxStrokeVertices = std::int64_t{1} << 26;
}  // namespace

LatticeRect stroke_rect(double x_m, double z_m, double radius_m, double cell_m) {
  LatticeRect r;
  r.i0 = std::int64_t(std::ceil((x_m - radius_m) / cell_m));
  r.i1 = std::int64_t(std::floor((x_m + radius_m) / cell_m));
  r.j0 = std::int64_t(std::ceil((z_m - radius_m) / cell_m));
  r.j1 = std::int64_t(std::floor((z_m + radius_m) / cell_m));
  if (r.empty()) return LatticeRect{};
  const std::int64_t w = r.i1 - r.i0 + 1, h = r.j1 - r.j0 + 1;
  if (w * h > kMaxStrokeVertices) {
    throw Error(ErrorCategory::limit,
                "brush: radius_m = " + std::to_string(radius_m) + " covers " + std::to_string(w) +
                    " x " + std::to_string(h) +
                    " vertices at this cell size; the limit is 2^26 per stroke");
  }
  return r;
}

int lattice_level(const GridSpec& grid, double cell_m, const char* what) {
  int exponent = 0;
  const double ratio = std::frexp(grid.spacing_m / cell_m, &exponent);
  const int level = exponent - 1;
  if (ratio != 0.5 || level < 0 || level > 40 || grid.origin_x_m != 0.0 || grid.origin_z_m != 0.0) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(what) + ": the grid (spacing " + std::to_string(grid.spacing_m) +
                    " m, origin " + std::to_string(grid.origin_x_m) + ", " +
                    std::to_string(grid.origin_z_m) +
                    ") is not on the level-0 lattice: spacing cell * 2^L (cell " +
                    std::to_string(cell_m) + " m), origin 0, 0");
  }
  return level;
}

void check_lattice_sizes(double cell_size_m, int tile_cells, const char* what) {
  if (!(cell_size_m > 0.0 && cell_size_m <= 1e4)) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(what) + ": cell_size_m = " + std::to_string(cell_size_m) +
                    " is outside the allowed range (0, 10000]");
  }
  if (tile_cells < 8 || tile_cells > 1024) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(what) + ": tile_cells = " + std::to_string(tile_cells) +
                    " is outside the allowed range 8..1024");
  }
}

void check_tile_key(std::int64_t ti, std::int64_t tj, double side_m, const std::string& name) {
  if (std::abs(double(ti)) * side_m > kMaxEditCoordinate ||
      std::abs(double(tj)) * side_m > kMaxEditCoordinate) {
    throw Error(ErrorCategory::invalid_argument,
                name + " lies beyond the world's limit of 2^40 m from the origin");
  }
}

}  // namespace terrane::edit_detail
