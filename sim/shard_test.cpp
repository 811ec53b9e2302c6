#include "sim/shard.h"

#include <doctest/doctest.h>

namespace knobsim {

TEST_CASE("shard i of N owns the jobs whose index is i mod N, and every job has one owner") {
  for (int n = 1; n <= 5; ++n) {
    for (long long job = 0; job < 40; ++job) {
      int owners = 0;
      for (int i = 0; i < n; ++i) owners += Shard{i, n}.Owns(job) ? 1 : 0;
      CHECK(owners == 1);
    }
  }
  CHECK(Shard{1, 3}.Owns(4));
  CHECK_FALSE(Shard{1, 3}.Owns(5));
}

TEST_CASE("ParseShard reads i/N with 0-based i and refuses anything else") {
  const Expected<Shard> s = ParseShard("2/3");
  REQUIRE(s);
  CHECK(s->index == 2);
  CHECK(s->count == 3);
  CHECK(ShardText(*s) == "2/3");
  for (const char* bad : {"3/3", "-1/3", "1/0", "1", "a/b", "1/3x", "/3", ""}) {
    CAPTURE(bad);
    const Expected<Shard> refused = ParseShard(bad);
    CHECK_FALSE(refused);
    CHECK_FALSE(refused.error().message.empty());
  }
}

}  // namespace knobsim
