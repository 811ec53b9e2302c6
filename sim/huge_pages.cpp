#include "sim/huge_pages.h"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>

#include <cstdint>
#endif

namespace knobsim {
namespace {

size_t RoundToHugePages(size_t bytes) {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

}  // namespace

void* AllocateHugePages(size_t bytes, size_t align) {
#if defined(__linux__)
  if (bytes >= kHugePageMin) {
    const size_t size = RoundToHugePages(bytes);
    // Map a huge page more than needed and unmap the ends: the kernel aligns a mapping to 4 KiB
    // only, and a huge page must start on a 2 MiB boundary.
    void* raw = mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
    if (aligned > start) munmap(raw, aligned - start);
    const uintptr_t end = start + size + kHugePageBytes;
    if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - aligned - size);
    // Advice only: without huge pages (THP "never", or none free) the mapping works as is.
    madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<void*>(aligned);
  }
#endif
  return ::operator new (bytes, std::align_val_t{align});
}

void FreeHugePages(void* p, size_t bytes, size_t align) noexcept {
#if defined(__linux__)
  if (bytes >= kHugePageMin) {
    munmap(p, RoundToHugePages(bytes));
    return;
  }
#endif
  ::operator delete (p, std::align_val_t{align});
}

}  // namespace knobsim
