#include "sim/huge_pages.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>

namespace knobsim {
namespace {

struct alignas(64) Wide {
  int64_t value = 0;
};

TEST_CASE("huge-page tables hold what a plain vector holds, small or large") {
  // Sizes either side of kHugePageMin, and growth across it (each reallocation copies).
  for (const size_t n : {size_t{10}, kHugePageMin / sizeof(int64_t) - 1,
                         kHugePageMin / sizeof(int64_t), 3 * kHugePageBytes / sizeof(int64_t)}) {
    CAPTURE(n);
    HugeVector<int64_t> v;
    for (size_t i = 0; i < n; ++i) v.push_back(static_cast<int64_t>(i));
    REQUIRE(v.size() == n);
    CHECK(std::accumulate(v.begin(), v.end(), int64_t{0}) == static_cast<int64_t>(n * (n - 1) / 2));
  }
}

TEST_CASE("huge-page tables keep their element type's alignment") {
  for (const size_t n : {size_t{3}, 4 * kHugePageMin / sizeof(Wide)}) {
    CAPTURE(n);
    HugeVector<Wide> v(n);
    CHECK(reinterpret_cast<uintptr_t>(v.data()) % alignof(Wide) == 0);
    v.back().value = 42;
    CHECK(v.back().value == 42);
  }
}

TEST_CASE("a large table starts on a huge-page boundary") {
  void* p = AllocateHugePages(kHugePageMin, 8);
#if defined(__linux__)
  CHECK(reinterpret_cast<uintptr_t>(p) % kHugePageBytes == 0);
#endif
  static_cast<char*>(p)[kHugePageMin - 1] = 1;  // the whole request is usable
  FreeHugePages(p, kHugePageMin, 8);
}

}  // namespace
}  // namespace knobsim
