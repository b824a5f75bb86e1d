// Large working buffers on transparent huge pages (internal).
//
// The first touch of a fresh page costs a page fault. A map's working buffers are tens of MiB:
// a fresh flow routing of a 2049^2 map touches about 92 MB, some 23,000 faults with 4 KiB pages,
// and on a VM each is expensive (docs/PERFORMANCE.md, "Page faults": a fresh routing took up to
// twice as long as a reused one). Linux
// backs memory marked MADV_HUGEPAGE with 2 MiB pages (THP in "madvise" mode, Debian's default):
// one fault per 2 MiB. glibc's malloc does this itself only when the process starts with
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which a library cannot set, so the buffers that are
// sized per map ask for it here, before their first touch.
#pragma once

#include <cstddef>
#include <vector>

namespace terrane {
struct ExecContext;
}

namespace terrane::core_detail {

// Marks the whole 2 MiB pages inside [p, p + bytes) for transparent huge pages. A no-op for
// ranges under 4 MiB, where THP is not available, and when the kernel refuses (the memory then
// stays on ordinary pages: only speed depends on it).
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

// Faults in the pages of [p, p + bytes) for writing, slices of whole 2 MiB pages on ctx's
// workers, so that the kernel zeroes them on every core rather than on the one thread that
// first writes the block (a map-sized vector's value-initialisation: one memset). Used for
// ranges of 8 MiB and more; a kernel without MADV_POPULATE_WRITE (before Linux 5.14) leaves the
// pages to be faulted on first touch as before: only speed depends on it.
void prefault_pages(void* p, std::size_t bytes, const ExecContext& ctx) noexcept;

// Gives the whole 4 KiB pages inside [p, p + bytes) back to the kernel (MADV_DONTNEED) while
// they stay mapped: for a map-sized buffer read once from front to back, released as it is
// read rather than when it is freed. Anything read there afterwards is zero. A no-op where the
// kernel refuses (only the peak memory depends on it).
void release_pages(void* p, std::size_t bytes) noexcept;

// v.reserve(n), with the new block marked for huge pages before anything touches it (elements
// already in v are copied into it first, as reserve does). Nothing happens when v already holds
// capacity for n. With a context, the new block's pages are also faulted in on its workers
// (prefault_pages) before the elements are copied.
template <class T, class A>
void reserve_huge(std::vector<T, A>& v, std::size_t n, const ExecContext* ctx = nullptr) {
  if (v.capacity() >= n) return;
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
  if (ctx != nullptr) {
    prefault_pages(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(T), *ctx);
  }
}

// resize / assign with the block reserved by reserve_huge first (with a context, faulted in on
// its workers first: the value-initialisation then writes memory that is already there).
template <class T, class A>
void resize_huge(std::vector<T, A>& v, std::size_t n, const ExecContext* ctx = nullptr) {
  reserve_huge(v, n, ctx);
  v.resize(n);
}
template <class T, class A>
void assign_huge(std::vector<T, A>& v, std::size_t n, const T& value,
                 const ExecContext* ctx = nullptr) {
  reserve_huge(v, n, ctx);
  v.assign(n, value);
}

}  // namespace terrane::core_detail
