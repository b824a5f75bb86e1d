#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>

#include "terrane/core.hpp"
#include "terrane/schema.hpp"

// ThreadSanitizer annotations of TBB's hand-offs (tsan preset only; no code otherwise).
#if defined(__SANITIZE_THREAD__)
#define TERRANE_TSAN_ANNOTATE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TERRANE_TSAN_ANNOTATE 1
#endif
#endif
#ifdef TERRANE_TSAN_ANNOTATE
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define TERRANE_TSAN_NOINLINE [[gnu::noinline]]
#else
#define TERRANE_TSAN_NOINLINE
#endif

namespace terrane {
namespace {

// TBB orders the caller's code before the loop before every body, and every body before the
// caller's code after the loop, through hand-offs inside libtbb.so, which Debian does not build
// with ThreadSanitizer: TSan would report the caller's and the bodies' accesses to the same
// memory as races. These calls tell TSan about those hand-offs (release before the loop and at
// the end of each body, acquire at the start of each body and after the loop, on one address per
// call); they compile to nothing in other builds. tests/tsan.supp, docs/TESTING.md.
inline void tsan_release([[maybe_unused]] void* sync) {
#ifdef TERRANE_TSAN_ANNOTATE
  __tsan_release(sync);
#endif
}
inline void tsan_acquire([[maybe_unused]] void* sync) {
#ifdef TERRANE_TSAN_ANNOTATE
  __tsan_acquire(sync);
#endif
}

// The first thing a task's body does: reads the sync address from the body's copy in the task
// (memory that libtbb.so recycles between tasks, so TSan cannot order this one read; it is named
// in tests/tsan.supp) and acquires on it. Not inlined under TSan, so that the read has this
// frame's name.
TERRANE_TSAN_NOINLINE void* tsan_enter_task(void* const* sync_in_task) {
  void* const sync = *sync_in_task;
  tsan_acquire(sync);
  return sync;
}

}  // namespace

int worker_count(const ExecContext& ctx) {
  if (ctx.threads > 0) return ctx.threads;
  return std::max(1, tbb::this_task_arena::max_concurrency());
}

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
  auto run_range = [&](std::int64_t b, std::int64_t e) {
    if (stop.load(std::memory_order_relaxed)) return;
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
    // The address TSan synchronizes on is that of run_range, the one thing a body reaches.
    void* const sync = &run_range;
    tsan_release(sync);
    // Acquires after the loop, also when a body threw: TBB has waited for every running body
    // then too, and the caller's unwinding (freeing what the bodies wrote) comes after them.
    struct Acquire {
      void* sync;
      ~Acquire() { tsan_acquire(sync); }
    } acquire{sync};
    arena.execute([&] {
      tbb::parallel_for(
          tbb::blocked_range<std::int64_t>(0, n, grain),
          [sync](const tbb::blocked_range<std::int64_t>& r) {
            struct Release {
              void* sync;
              ~Release() { tsan_release(sync); }  // also when the body throws
            } release{tsan_enter_task(&sync)};
            (*static_cast<decltype(run_range)*>(release.sync))(r.begin(), r.end());
          },
          tbb::simple_partitioner());
    });
  }
  // A body's exception propagates as thrown: directly on the serial path, and through TBB's
  // exact exception propagation (std::exception_ptr, rethrown by parallel_for in this thread)
  // on the parallel one.
  // Not throw_if_cancelled(): the flag may have been cleared again meanwhile, and work was skipped.
  if (stop) throw Error(ErrorCategory::cancelled, "cancelled");
}

}  // namespace terrane
