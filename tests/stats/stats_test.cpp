// Tests of the stats module (terrane/stats.hpp).
#include <gtest/gtest.h>

#include "terrane/stats.hpp"

namespace terrane {
namespace {

TEST(StatsGrid, ViewsAField) {
  Field2D f(GridSpec{3, 2, 2.5});
  const StatsGrid g = stats_grid(f);
  EXPECT_EQ(g.width, 3);
  EXPECT_EQ(g.height, 2);
  EXPECT_EQ(g.heights.size(), 6U);
  EXPECT_EQ(g.cell_x_m, 2.5);
  EXPECT_EQ(g.cell_z_m, 2.5);
}

}  // namespace
}  // namespace terrane
