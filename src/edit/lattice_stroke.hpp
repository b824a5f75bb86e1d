// What the lattice layers of edit.hpp (height edits, splat paint) share (module `edit`,
// internal): the brush falloff, the vertices a stroke covers and the check that a grid lies on
// the level-0 lattice.
#pragma once

#include <cstdint>
#include <string>

#include "terrane/core.hpp"
#include "terrane/edit.hpp"

namespace terrane::edit_detail {

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// 1 inside falloff_start * radius, then a smoothstep down to 0 at the radius.
inline double brush_weight(double radius_m, double falloff_start, double d) {
  if (d >= radius_m) return 0.0;
  const double inner = falloff_start * radius_m;
  if (d <= inner) return 1.0;
  const double t = (radius_m - d) / (radius_m - inner);
  return t * t * (3.0 - 2.0 * t);
}

// The lattice vertices within radius_m of (x, z) lie in this rectangle (empty when none does).
// Throws Error(limit) beyond 2^26 vertices (a 4096 m brush at 1 m cells), before any allocation.
LatticeRect stroke_rect(double x_m, double z_m, double radius_m, double cell_m);

// The level L of a grid on the lattice of cell `cell_m` (spacing cell * 2^L, origin 0); throws
// Error(invalid_argument) "`what`: the grid ... is not on the level-0 lattice" otherwise.
int lattice_level(const GridSpec& grid, double cell_m, const char* what);

// Error(invalid_argument) unless cell_size_m is in (0, 1e4] and tile_cells in 8..1024, naming
// the layer (`what`: "height edits", "splat paint").
void check_lattice_sizes(double cell_size_m, int tile_cells, const char* what);

// Error(invalid_argument) when tile (ti, tj) of that side lies beyond kMaxEditCoordinate.
void check_tile_key(std::int64_t ti, std::int64_t tj, double side_m, const std::string& name);

}  // namespace terrane::edit_detail
