#include <gtest/gtest.h>

#include "terrane/core.hpp"

namespace terrane {
namespace {

TEST(GridSpec, SubGridKeepsWorldPositions) {
  GridSpec g{.width = 100, .height = 50, .spacing_m = 0.37, .origin_x_m = 1e8, .origin_z_m = -3.5};
  GridSpec s = g.sub(17, 9, 10, 10);
  for (int k = 0; k < 10; ++k) {
    EXPECT_EQ(s.x_m(k), g.x_m(17 + k));
    EXPECT_EQ(s.z_m(k), g.z_m(9 + k));
  }
}

TEST(GridSpec, RejectsBadSizesBeforeAllocating) {
  GridSpec g{.width = 1000000, .height = 1000000};
  try {
    g.validate("map");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::limit);
    EXPECT_NE(std::string(e.what()).find("1000000"), std::string::npos);
  }
  EXPECT_THROW((GridSpec{.width = 0, .height = 4}.validate()), Error);
  EXPECT_THROW((GridSpec{.width = 4, .height = 4, .spacing_m = -1.0}.validate()), Error);
  EXPECT_THROW((GridSpec{.width = 40000, .height = 40000}.validate()), Error);
}

TEST(Simd, ParsesAndRejectsNames) {
  EXPECT_EQ(parse_simd_target("avx2"), SimdTarget::avx2);
  EXPECT_THROW(parse_simd_target("neon"), Error);
  auto targets = supported_simd_targets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(targets.back(), SimdTarget::scalar);
}

TEST(Hash, Mix64IsStable) {
  // Golden values: hashing is part of the determinism contract.
  EXPECT_EQ(mix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_NE(hash_combine(1, 2), hash_combine(2, 1));
}

TEST(ParallelFor, CoversEveryIndexOnce) {
  std::vector<int> hits(10007, 0);
  for (int threads : {1, 2, 4}) {
    std::fill(hits.begin(), hits.end(), 0);
    parallel_for(ExecContext{.threads = threads}, 10007, 64, [&](std::int64_t b, std::int64_t e) {
      for (auto i = b; i < e; ++i) hits[i]++;
    });
    for (int h : hits) ASSERT_EQ(h, 1);
  }
}

}  // namespace
}  // namespace terrane

#include "terrane/curve.hpp"

namespace terrane {
namespace {

TEST(MonotoneCurve, InterpolatesKnotsAndStaysMonotone) {
  const CurvePoint pts[] = {{-1, -1}, {-0.2, -0.15}, {0, 0}, {0.3, 0.05}, {1, 1}};
  MonotoneCurve c(pts);
  for (const auto& p : pts) EXPECT_NEAR(c(float(p.x)), p.y, 1e-6);
  float prev = c(-1.0f);
  for (int k = 0; k <= 2000; ++k) {
    const float v = c(-1.0f + 2.0f * float(k) / 2000.0f);
    ASSERT_GE(v, prev) << "not monotone at step " << k;
    prev = v;
  }
  EXPECT_EQ(c(-5.0f), -1.0f);
  EXPECT_EQ(c(5.0f), 1.0f);
}

TEST(MonotoneCurve, RejectsUnsortedAndTooFewPoints) {
  const CurvePoint one[] = {{0, 0}};
  EXPECT_THROW(MonotoneCurve(std::span<const CurvePoint>(one), "h.curve"), Error);
  const CurvePoint unsorted[] = {{0, 0}, {1, 1}, {0.5, 2}};
  try {
    MonotoneCurve c(unsorted, "graph.nodes.c.points");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("graph.nodes.c.points[2]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace terrane
