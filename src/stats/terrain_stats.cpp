// Terrain statistics (terrane/stats.hpp).
#include "terrane/stats.hpp"

namespace terrane {

StatsGrid stats_grid(const Field2D& field) {
  StatsGrid g;
  g.heights = field.data;
  g.width = field.grid.width;
  g.height = field.grid.height;
  g.cell_x_m = field.grid.spacing_m;
  g.cell_z_m = field.grid.spacing_m;
  return g;
}

}  // namespace terrane
