// Transparent huge pages for large working buffers (core/huge_pages.hpp).
#include "core/huge_pages.hpp"

#include <algorithm>
#include <cstdint>

#include "terrane/core.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace terrane::core_detail {
namespace {

// The whole pages of `align` bytes inside [p, p + bytes): [begin, end), empty when end <= begin.
// (Named members, not a structured binding: clang before 16 does not let a lambda capture one.)
struct Pages {
  std::uintptr_t begin, end;
};
[[maybe_unused]] Pages pages_inside(const void* p, std::size_t bytes, std::uintptr_t align) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  return {(at + align - 1) & ~(align - 1), (at + bytes) & ~(align - 1)};
}

}  // namespace

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  if (p == nullptr || bytes < 2 * kHuge) return;
  const Pages pages = pages_inside(p, bytes, kHuge);
  const std::uintptr_t begin = pages.begin, end = pages.end;
  if (end <= begin) return;
  // Refusal (EINVAL without THP support, ...) leaves the memory as it is: nothing to report.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

void prefault_pages(void* p, std::size_t bytes, const ExecContext& ctx) noexcept {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  constexpr std::uintptr_t kSlice = 4 * kHuge;
  if (p == nullptr || bytes < kSlice || worker_count(ctx) < 2) return;
  const Pages pages = pages_inside(p, bytes, kHuge);
  const std::uintptr_t begin = pages.begin, end = pages.end;
  if (end <= begin) return;
  const auto slices = std::int64_t((end - begin + kSlice - 1) / kSlice);
  try {
    parallel_for(ctx, slices, 1, [&](std::int64_t s0, std::int64_t s1) {
      for (std::int64_t s = s0; s < s1; ++s) {
        const std::uintptr_t a = begin + std::uintptr_t(s) * kSlice;
        const std::uintptr_t b = std::min(end, a + kSlice);
        // Refusal (EINVAL before Linux 5.14, ENOMEM, ...) leaves the pages to the first touch.
        (void)madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);
      }
    });
  } catch (...) {
    // Cancelled or a forced SIMD target refused: the caller's own work reports it; the pages are
    // then faulted on first touch.
  }
#else
  (void)p;
  (void)bytes;
  (void)ctx;
#endif
}

void release_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_DONTNEED)
  if (p == nullptr) return;
  const Pages pages = pages_inside(p, bytes, 4096);
  const std::uintptr_t begin = pages.begin, end = pages.end;
  if (end <= begin) return;
  // Refusal leaves the pages resident: only the peak depends on it.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace terrane::core_detail
