#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cmath>
#include <cstring>

#include <sys/mman.h>

#include "core/huge_pages.hpp"
#include "support/expect_error.hpp"
#include "terrane/core.hpp"
#include "terrane/curve.hpp"

namespace terrane {
namespace {

// The VmFlags of the mapping of this process that holds address p (/proc/self/smaps), or "" where
// there is no smaps.
std::string vm_flags_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= a && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// A buffer reserved by reserve_huge is marked for transparent huge pages (VmFlags "hg") where
// the kernel has them, and keeps its contents; a small one is left alone.
TEST(HugePages, LargeBuffersAreMarkedForTransparentHugePages) {
  std::vector<float> v(1000, 2.5f);
  core_detail::reserve_huge(v, std::size_t(8) << 20);  // 32 MiB
  ASSERT_GE(v.capacity(), std::size_t(8) << 20);
  ASSERT_EQ(v.size(), 1000u);
  EXPECT_EQ(v[999], 2.5f);
  v.resize(std::size_t(8) << 20, 1.0f);
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled") ||
      vm_flags_at(v.data()).empty()) {
    GTEST_SKIP() << "no transparent huge pages or no /proc/self/smaps here";
  }
  EXPECT_NE(vm_flags_at(v.data() + (std::size_t(4) << 20)).find(" hg"), std::string::npos)
      << vm_flags_at(v.data() + (std::size_t(4) << 20));
  std::vector<float> small;
  core_detail::reserve_huge(small, 1000);
  EXPECT_EQ(vm_flags_at(small.data()).find(" hg"), std::string::npos);
}

// Resident memory of the process, from /proc/self/statm (0 where it cannot be read).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * 4096;
}

// Pages given back by release_pages leave the resident set while the buffer stays usable: they
// read as zero, the pages around them keep their contents.
TEST(HugePages, ReleasedPagesLeaveTheResidentSetAndReadAsZero) {
  std::vector<std::uint32_t> v;
  core_detail::resize_huge(v, std::size_t(16) << 20);  // 64 MiB
  std::fill(v.begin(), v.end(), 7u);
  const std::size_t before = resident_bytes();
  if (before == 0) GTEST_SKIP() << "no /proc/self/statm here";
  // The middle half, from an odd offset: only the whole pages inside it go.
  const std::size_t from = (std::size_t(4) << 20) + 3, count = std::size_t(8) << 20;
  core_detail::release_pages(v.data() + from, count * sizeof(std::uint32_t));
  const std::size_t after = resident_bytes();
  EXPECT_LE(after + (std::size_t(28) << 20), before) << before << " -> " << after << " bytes";
  EXPECT_EQ(v[from - 1], 7u);
  EXPECT_EQ(v[from + count], 7u);
  EXPECT_EQ(v[from + count / 2], 0u);
  std::size_t sevens = 0;
  for (const std::uint32_t x : v) sevens += x == 7u ? 1 : 0;
  // Whole 4 KiB pages (1024 values) of the range are zero; at most a page's worth at each end
  // keeps its value.
  EXPECT_GE(sevens, v.size() - count);
  EXPECT_LE(sevens, v.size() - count + 2048);
}

// A field built with a context holds the same zeros as one built without, on any thread count,
// whether its pages are faulted in on the workers (a large field) or not (a small one); the
// grid is checked first either way.
TEST(Field2D, BuiltWithAContextHoldsItsGridsZeros) {
  for (const int side : {3, 2049}) {  // 2049^2 floats: 16 MiB, faulted in on the workers
    const GridSpec g{.width = side, .height = side, .spacing_m = 2.0};
    for (const int threads : {1, 2}) {
      const Field2D f(g, ExecContext{.threads = threads});
      EXPECT_EQ(f.grid.width, side);
      EXPECT_EQ(f.grid.spacing_m, 2.0);
      ASSERT_EQ(f.data.size(), g.sample_count());
      EXPECT_TRUE(std::all_of(f.data.begin(), f.data.end(),
                              [](float v) {
                                return std::memcmp(&v, "\0\0\0\0", sizeof v) == 0;  // +0, not -0
                              }))
          << side << " on " << threads << " threads";
    }
  }
  // Its workers' pages are not the caller's progress (a bake's bar would jump to 100%).
  int calls = 0;
  ExecContext with_progress{.threads = 2};
  with_progress.progress = [&](double) { ++calls; };
  const Field2D large(GridSpec{.width = 2049, .height = 2049}, with_progress);
  EXPECT_EQ(calls, 0);
  test::expect_error_eq([] { Field2D(GridSpec{.width = 0, .height = 4}, ExecContext{}); },
                        ErrorCategory::invalid_argument,
                        "field: width = 0 is outside the allowed range 1..65536");
}

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
  test::expect_error_eq([&] { g.validate("map"); }, ErrorCategory::limit,
                        "map: width = 1000000 is outside the allowed range 1..65536");
  test::expect_error_eq([] { GridSpec{.width = 0, .height = 4}.validate(); },
                        ErrorCategory::invalid_argument,
                        "grid: width = 0 is outside the allowed range 1..65536");
  test::expect_error_eq([] { GridSpec{.width = 4, .height = -2}.validate("tile"); },
                        ErrorCategory::invalid_argument,
                        "tile: height = -2 is outside the allowed range 1..65536");
  test::expect_error_eq([] { GridSpec{.width = 4, .height = 4, .spacing_m = -1.0}.validate(); },
                        ErrorCategory::invalid_argument,
                        "grid: spacing -1 m must be finite and > 0");
  test::expect_error_eq([] { GridSpec{.width = 40000, .height = 40000}.validate(); },
                        ErrorCategory::limit,
                        "grid: 40000 x 40000 = 1600000000 samples exceeds the cap of 1073741824 "
                        "samples (4 GiB of float heights)");
}

TEST(Simd, ParsesAndRejectsNames) {
  EXPECT_EQ(parse_simd_target("avx2"), SimdTarget::avx2);
  test::expect_error_eq([] { parse_simd_target("neon"); }, ErrorCategory::invalid_argument,
                        "unknown SIMD target 'neon' (allowed: scalar, sse4, avx2, avx3, best)");
  auto targets = supported_simd_targets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(targets.back(), SimdTarget::scalar);
}

TEST(Hash, Mix64IsStable) {
  // Golden values: hashing is part of the determinism contract.
  EXPECT_EQ(mix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_NE(hash_combine(1, 2), hash_combine(2, 1));
}

// Issue 12, defect 2: the library refuses a thread count TBB cannot take (the CLI checks the
// same range on --threads).
TEST(ParallelFor, ThreadsOutsideTheRangeAreRefused) {
  for (const int n : {-5, kMaxThreads + 1, 2147483647}) {
    ExecContext ctx;
    ctx.threads = n;
    try {
      parallel_for(ctx, 100, 1, [](std::int64_t, std::int64_t) {});
      ADD_FAILURE() << n;
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
      EXPECT_EQ(std::string(e.what()), "threads = " + std::to_string(n) +
                                           " is outside the allowed range 0..256");
    }
  }
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

// ---------------------------------------------------------------------------------------------
// ExecContext

TEST(ExecContext, CancellationIsItsOwnCategory) {
  EXPECT_STREQ(to_string(ErrorCategory::cancelled), "cancelled");
  std::atomic<bool> stop{true};
  for (int threads : {1, 2}) {
    ExecContext ctx{.threads = threads, .cancel = &stop};
    std::atomic<int> ran{0};
    try {
      parallel_for(ctx, 1000, 10, [&](std::int64_t, std::int64_t) { ++ran; });
      FAIL() << "expected cancellation";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::cancelled) << e.what();
    }
    EXPECT_EQ(ran.load(), 0);
    try {
      throw_if_cancelled(ctx);
      FAIL() << "expected cancellation";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::cancelled);
    }
  }
  stop = false;
  EXPECT_NO_THROW(throw_if_cancelled(ExecContext{.cancel = &stop}));
  EXPECT_NO_THROW(throw_if_cancelled(ExecContext{}));
}

// An Error thrown inside a body reaches the caller with its category and message, whether the
// body ran on the calling thread or on a worker.
TEST(ExecContext, WorkerErrorKeepsItsCategoryAndMessage) {
  const std::string message = "scatter: 2^31 candidates exceed the cap";
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> thrown_on_worker{false};
    try {
      parallel_for(ExecContext{.threads = threads}, 64, 1, [&](std::int64_t b, std::int64_t) {
        if (threads == 1) {
          if (b == 5) throw Error(ErrorCategory::limit, message);
          return;
        }
        if (std::this_thread::get_id() != caller) {
          thrown_on_worker = true;
          throw Error(ErrorCategory::limit, message);
        }
        // The calling thread holds its first chunk until a worker has thrown (TBB's calling
        // thread takes part in the work; without this it might run every chunk itself).
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (!thrown_on_worker && std::chrono::steady_clock::now() < give_up) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      });
      FAIL() << "expected the body's error";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::limit);
      EXPECT_EQ(std::string(e.what()), message);
    }
    if (threads == 2) {
      EXPECT_TRUE(thrown_on_worker.load()) << "no worker thread ran a chunk";
    }
  }
  // Other exceptions propagate as they are too.
  EXPECT_THROW(parallel_for(ExecContext{.threads = 2}, 64, 1,
                            [](std::int64_t, std::int64_t) { throw std::out_of_range("x"); }),
               std::out_of_range);
}

TEST(ExecContext, LogSinkGetsMessagesAndEmptySinkDropsThem) {
  EXPECT_STREQ(to_string(LogLevel::warning), "warning");
  EXPECT_NO_THROW(warn(ExecContext{}, "nobody listens"));
  std::mutex m;
  std::vector<std::pair<LogLevel, std::string>> got;
  ExecContext ctx{.threads = 2};
  ctx.log = [&](LogLevel level, std::string_view text) {
    std::lock_guard lock(m);
    got.emplace_back(level, text);
  };
  warn(ctx, "a warning");
  log_message(ctx, LogLevel::info, "some info");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], std::make_pair(LogLevel::warning, std::string("a warning")));
  EXPECT_EQ(got[1], std::make_pair(LogLevel::info, std::string("some info")));
}

// Each stage's peak is its own: 96 MiB touched and unmapped again in the second stage raise its
// peak, not the first one's nor the third's.
TEST(StageClock, EachStageRecordsItsOwnPeakMemory) {
  std::vector<StageTiming> stages;
  StageClock clock(&stages, true);
  clock.stop("before");
  constexpr std::size_t kBytes = std::size_t(96) << 20;
  void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  std::memset(p, 1, kBytes);
  ASSERT_EQ(munmap(p, kBytes), 0);
  clock.stop("touched");
  clock.stop("after");
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[1].name, "touched");
  if (stages[0].peak_rss_bytes == 0) GTEST_SKIP() << "no VmHWM on this system";
  EXPECT_GE(stages[1].peak_rss_bytes, stages[0].peak_rss_bytes + (std::size_t(80) << 20));
  EXPECT_LE(stages[2].peak_rss_bytes + (std::size_t(64) << 20), stages[1].peak_rss_bytes);
  // Not asked for, nothing is measured (and the counter is left alone).
  std::vector<StageTiming> times;
  StageClock plain(&times);
  plain.stop("timed");
  ASSERT_EQ(times.size(), 1u);
  EXPECT_EQ(times[0].peak_rss_bytes, 0u);
  StageClock silent(nullptr, true);
  silent.stop("nowhere");
}

TEST(ExecContext, SimdTargetResolvesToTheContextsOrTheProcessWideOne) {
  EXPECT_EQ(resolved_simd_target(ExecContext{}), resolved_simd_target());
  for (SimdTarget t : supported_simd_targets()) {
    EXPECT_EQ(resolved_simd_target(ExecContext{.simd = t}), t);
  }
}

// Highway's test hook makes this CPU look like one with SSE4 only: forcing AVX2 or AVX-512
// through a context is then a clear error, raised before the work starts.
TEST(ExecContext, UnsupportedSimdTargetIsInvalidArgument) {
  (void)resolved_simd_target();  // initialise the process-wide setting before the mock
  struct Unmock {
    ~Unmock() { hwy::SetSupportedTargetsForTest(0); }
  } unmock;
  hwy::SetSupportedTargetsForTest(HWY_SSE4);
  ASSERT_EQ(supported_simd_targets().front(), SimdTarget::sse4);
  for (SimdTarget t : {SimdTarget::avx2, SimdTarget::avx3}) {
    const ExecContext ctx{.simd = t};
    try {
      (void)resolved_simd_target(ctx);
      FAIL() << "expected an error for " << to_string(t);
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::invalid_argument);
      const std::string w = e.what();
      EXPECT_NE(w.find(std::string("'") + to_string(t) + "'"), std::string::npos) << w;
      EXPECT_NE(w.find("supported: sse4, scalar"), std::string::npos) << w;
    }
    bool ran = false;
    EXPECT_THROW(parallel_for(ctx, 10, 1, [&](std::int64_t, std::int64_t) { ran = true; }), Error);
    EXPECT_FALSE(ran);
  }
  EXPECT_EQ(resolved_simd_target(ExecContext{.simd = SimdTarget::sse4}), SimdTarget::sse4);
  EXPECT_EQ(resolved_simd_target(ExecContext{.simd = SimdTarget::scalar}), SimdTarget::scalar);
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
  test::expect_error_eq([&] { MonotoneCurve(std::span<const CurvePoint>(one), "h.curve"); },
                        ErrorCategory::invalid_argument,
                        "h.curve: a curve needs at least 2 points, got 1");
  const CurvePoint unsorted[] = {{0, 0}, {1, 1}, {0.5, 2}};
  try {
    MonotoneCurve c(unsorted, "graph.nodes.c.points");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("graph.nodes.c.points[2]"), std::string::npos) << e.what();
  }
  test::expect_error_eq([&] { MonotoneCurve c(unsorted, "graph.nodes.c.points"); },
                        ErrorCategory::invalid_argument,
                        "graph.nodes.c.points[2]: x = 0.5 must be greater than the previous "
                        "x = 1 (points sorted by strictly increasing x)");
  const CurvePoint inf[] = {{0, 0}, {1, INFINITY}};
  test::expect_error_eq([&] { MonotoneCurve c(inf, "p"); }, ErrorCategory::invalid_argument,
                        "p[1]: coordinates must be finite");
}

// Regression (issue 10): messages formatted doubles with std::to_string (6 fixed
// decimals), so small values are misstated: a spacing of -1e-9 m reads "spacing -0.000000 m",
// and curve points x = 2e-7, 1e-7 read "x = 0.000000 must be greater than the previous
// x = 0.000000". docs/DESIGN.md §1.6 promises the value; they now print with format_number().
TEST(Messages, SmallValuesAreNamedAsGiven) {
  const std::string spacing =
      test::expect_error([] { GridSpec{.width = 4, .height = 4, .spacing_m = -1e-9}.validate(); },
                         ErrorCategory::invalid_argument, {"grid: spacing -1e-"});
  EXPECT_EQ(spacing.find("0.000000"), std::string::npos) << spacing;
  const CurvePoint pts[] = {{0, 0}, {2e-7, 1}, {1e-7, 2}};
  const std::string curve = test::expect_error([&] { MonotoneCurve c(pts, "p"); },
                                               ErrorCategory::invalid_argument, {"p[2]: x = 1e-"});
  EXPECT_NE(curve.find("previous x = 2e-"), std::string::npos) << curve;
}

}  // namespace
}  // namespace terrane
