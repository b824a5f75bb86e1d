#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>

#include "terrane/core.hpp"
#include "terrane/schema.hpp"

namespace terrane {

void parallel_for(const ExecContext& ctx, std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& body) {
  // A forced target this CPU lacks is refused before any work.
  if (ctx.simd != SimdTarget::best) (void)resolved_simd_target(ctx);
  // A thread count TBB cannot take (negative, or millions of arenas' threads) is refused too.
  if (ctx.threads < 0 || ctx.threads > kMaxThreads) {
    check_range("threads", std::int64_t{ctx.threads}, 0, kMaxThreads);
  }
  if (n <= 0) return;
  grain = std::max<std::int64_t>(1, grain);
  std::atomic<std::int64_t> done{0};
  std::atomic<bool> stop{false};
  // The caller's writes before the loop happen before every body (the release store here, the
  // acquire load in run_range), and every body happens before the caller's code after the loop
  // (the read-modify-writes of `done`, then the acquire load below). TBB guarantees both through
  // its own handshakes, but those run inside libtbb.so, which ThreadSanitizer does not see: these
  // atomics state the same order in C++ atomics it does see (tests/tsan.supp, docs/TESTING.md).
  stop.store(false, std::memory_order_release);
  auto run_range = [&](std::int64_t b, std::int64_t e) {
    if (stop.load(std::memory_order_acquire)) return;
    if (ctx.cancelled()) {
      stop = true;
      return;
    }
    body(b, e);
    const std::int64_t d = done.fetch_add(e - b) + (e - b);
    if (ctx.progress) ctx.progress(double(d) / double(n));
  };
  if (ctx.threads == 1 || n <= grain) {
    for (std::int64_t b = 0; b < n; b += grain) run_range(b, std::min(n, b + grain));
  } else {
    const int threads = ctx.threads > 0 ? ctx.threads : tbb::task_arena::automatic;
    tbb::task_arena arena(threads);
    arena.execute([&] {
      tbb::parallel_for(
          tbb::blocked_range<std::int64_t>(0, n, grain),
          [&](const tbb::blocked_range<std::int64_t>& r) { run_range(r.begin(), r.end()); },
          tbb::simple_partitioner());
    });
    (void)done.load(std::memory_order_acquire);
  }
  // A body's exception propagates as thrown: directly on the serial path, and through TBB's
  // exact exception propagation (std::exception_ptr, rethrown by parallel_for in this thread)
  // on the parallel one.
  // Not throw_if_cancelled(): the flag may have been cleared again meanwhile, and work was skipped.
  if (stop) throw Error(ErrorCategory::cancelled, "cancelled");
}

}  // namespace terrane
