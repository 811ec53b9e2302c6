// HugePageAllocator: the allocator of a run's big tables (pods, cards, requests, jobs, the event
// queue), which backs a large table with transparent huge pages.
//
// Why: a run touches records of these tables at random, one or a few per event. On a large
// cluster they span tens of MiB, and with 4 KiB pages nearly every touch also misses the TLB; in
// a virtual machine a page walk costs several memory reads of its own. With 2 MiB pages the same
// tables need a few dozen TLB entries (issue 23; docs/benchmarks.md "Cost per request and
// cluster size": about a fifth of the time per request at 5 000 nodes).
//
// Contract: a request of at least kHugePageMin bytes is served by its own anonymous mapping, 2
// MiB-aligned and rounded up to whole 2 MiB pages, advised MADV_HUGEPAGE before it is first
// touched (the kernel's setting "madvise", Debian's default, then backs it with huge pages when
// it has them; "never" leaves 4 KiB pages, nothing else changes). Smaller requests, and every
// request off Linux, go to the ordinary operator new. Contents and results never depend on
// which: only where the bytes live.
#pragma once

#include <cstddef>
#include <vector>

namespace knobsim {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;
// Below a megabyte a huge page would be mostly waste, and the table is cached anyway.
inline constexpr size_t kHugePageMin = size_t{1} << 20;

// `bytes` aligned to `align` (a power of two, at most 2 MiB); throws std::bad_alloc.
void* AllocateHugePages(size_t bytes, size_t align);
// Frees what AllocateHugePages(bytes, align) returned.
void FreeHugePages(void* p, size_t bytes, size_t align) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(AllocateHugePages(n * sizeof(T), alignof(T))); }
  void deallocate(T* p, size_t n) noexcept { FreeHugePages(p, n * sizeof(T), alignof(T)); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

// A table of a run: a std::vector whose storage, once large, lies on huge pages.
template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace knobsim
