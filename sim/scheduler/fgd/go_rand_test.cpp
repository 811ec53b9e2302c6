#include "sim/scheduler/fgd/go_rand.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

namespace knobsim::fgd {
namespace {

TEST_CASE("GoRand's first Int63 for seeds 42 and 43 is Go's (docs/fgd-policies.md §2.2)") {
  CHECK(GoRand(42).Int63() == 3440579354231278675);
  CHECK(GoRand(43).Int63() == 251513763977812265);
}

TEST_CASE("GoRand seeded 1 gives Go's well-known default stream") {
  // Go before 1.20 seeded the global source with 1: rand.Int() started 5577006791947779410,
  // and rand.Intn(100) printed 81 87 47 59 81 18 25 40 56 0.
  GoRand a(1);
  CHECK(a.Int() == 5577006791947779410);
  CHECK(a.Int() == 8674665223082153551);
  GoRand b(1);
  const int expected[] = {81, 87, 47, 59, 81, 18, 25, 40, 56, 0};
  for (int e : expected) CHECK(b.Intn(100) == e);
}

TEST_CASE("GoRand reduces the seed modulo 2^31-1, mapping 0 to 89482311 as Go does") {
  CHECK(GoRand(0).Int63() == GoRand(89482311).Int63());
  CHECK(GoRand(2147483647).Int63() == GoRand(0).Int63());
  CHECK(GoRand(-1).Int63() == GoRand(2147483646).Int63());
}

TEST_CASE("Int31 and Uint32 are slices of one Int63 draw") {
  GoRand a(7), b(7), c(7);
  const int64_t v = a.Int63();
  CHECK(b.Int31() == static_cast<int32_t>(v >> 32));
  CHECK(c.Uint32() == static_cast<uint32_t>(v >> 31));
}

TEST_CASE("Intn of a power of two masks one draw, Intn(1) still consumes one") {
  GoRand a(5), b(5);
  CHECK(a.Intn(8) == (b.Int31() & 7));
  a.Intn(1);
  b.Int63();
  CHECK(a.Int63() == b.Int63());
}

TEST_CASE("Perm is a permutation and Shuffle permutes in place") {
  GoRand rng(42);
  std::vector<int> p = rng.Perm(1000);
  std::vector<int> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> iota(1000);
  std::iota(iota.begin(), iota.end(), 0);
  CHECK(sorted == iota);
  CHECK(p != iota);
  std::vector<int> v = iota;
  rng.Shuffle(v);
  std::sort(v.begin(), v.end());
  CHECK(v == iota);
}

TEST_CASE("Lemire's bounded draw stays in range and covers it") {
  GoRand rng(3);
  std::vector<int> seen(7, 0);
  for (int i = 0; i < 7000; ++i) {
    const int v = rng.Int31nLemire(7);
    REQUIRE(v >= 0);
    REQUIRE(v < 7);
    ++seen[v];
  }
  for (int count : seen) CHECK(count > 800);
}

}  // namespace
}  // namespace knobsim::fgd
