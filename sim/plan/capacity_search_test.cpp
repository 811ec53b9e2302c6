#include "sim/plan/capacity_search.h"

#include <doctest/doctest.h>

#include <set>

namespace knobsim {
namespace {

// A predicate "n >= answer" that counts its calls and checks no size is asked twice.
struct Threshold {
  explicit Threshold(int a) : answer(a) {}
  int answer;
  int calls = 0;
  std::set<int> seen;
  bool operator()(int n) {
    ++calls;
    CHECK(seen.insert(n).second);
    CHECK(n >= 1);
    return n >= answer;
  }
};

CapacitySearchResult Search(Threshold& t, int start, int max_nodes = 256) {
  CapacitySearchSettings s;
  s.start = start;
  s.max_nodes = max_nodes;
  return FindSmallestSize(s, [&t](int n) { return t(n); });
}

std::vector<int> Sizes(const CapacitySearchResult& r) {
  std::vector<int> sizes;
  for (const SearchStep& s : r.steps) sizes.push_back(s.nodes);
  return sizes;
}

TEST_CASE("capacity search gallops up from a guess that misses, then bisects") {
  Threshold t(13);
  const CapacitySearchResult r = Search(t, 3);
  REQUIRE(r.nodes.has_value());
  CHECK(*r.nodes == 13);
  // Steps 1, 2, 4, 8: 3 4 6 10 miss, 18 meets; bisect (10, 18): 14 meets, 12 misses, 13 meets.
  CHECK(Sizes(r) == std::vector<int>{3, 4, 6, 10, 18, 14, 12, 13});
  CHECK(t.calls == 8);
  CHECK(r.steps.back().met);
}

TEST_CASE("capacity search settles a right guess in two evaluations") {
  for (int answer : {2, 7, 40, 256}) {
    Threshold t(answer);
    const CapacitySearchResult r = Search(t, answer);
    REQUIRE(r.nodes.has_value());
    CHECK(*r.nodes == answer);
    CHECK(Sizes(r) == std::vector<int>{answer, answer - 1});
  }
  Threshold one(1);
  CHECK(Sizes(Search(one, 1)) == std::vector<int>{1});
  Threshold below(8);  // one node short
  CHECK(Sizes(Search(below, 7)) == std::vector<int>{7, 8});
}

TEST_CASE("capacity search finds every answer from every start, in logarithmic evaluations") {
  for (int answer = 1; answer <= 200; ++answer) {
    for (int start : {1, 2, 7, 50, 199}) {
      Threshold t(answer);
      const CapacitySearchResult r = Search(t, start);
      REQUIRE(r.nodes.has_value());
      CHECK(*r.nodes == answer);
      // Galloping takes at most log2(256) + 1 steps, bisecting as many again.
      CHECK(t.calls <= 2 * 9 + 1);
    }
  }
}

TEST_CASE("capacity search gallops down when the guess already meets") {
  Threshold t(5);
  const CapacitySearchResult r = Search(t, 40);
  REQUIRE(r.nodes.has_value());
  CHECK(*r.nodes == 5);
  // 40 39 37 33 25 9 meet (steps 1 2 4 8 16), 1 misses (the step of 32 floored at 1); bisect
  // (1, 9): 5 meets, 3 and 4 miss.
  CHECK(Sizes(r) == std::vector<int>{40, 39, 37, 33, 25, 9, 1, 5, 3, 4});
  CHECK(r.steps[6].met == false);
}

TEST_CASE("capacity search stops at one node when even that meets") {
  Threshold t(1);
  const CapacitySearchResult r = Search(t, 8);
  REQUIRE(r.nodes.has_value());
  CHECK(*r.nodes == 1);
  CHECK(Sizes(r) == std::vector<int>{8, 7, 5, 1});
}

TEST_CASE("capacity search is infeasible with a reason when the max nodes limit is reached") {
  Threshold t(300);
  const CapacitySearchResult r = Search(t, 10);
  CHECK_FALSE(r.nodes.has_value());
  CHECK(r.reason == "max nodes 256 reached");
  CHECK(Sizes(r) == std::vector<int>{10, 11, 13, 17, 25, 41, 73, 137, 256});
}

TEST_CASE("capacity search answers the limit itself when only the limit meets") {
  Threshold t(256);
  const CapacitySearchResult r = Search(t, 100);
  REQUIRE(r.nodes.has_value());
  CHECK(*r.nodes == 256);
}

TEST_CASE("the offered-load estimate is the nodes the load needs at the target utilization") {
  CHECK(OfferedLoadNodes(3.0, 1, 1.0) == 3);
  CHECK(OfferedLoadNodes(3.0, 2, 0.75) == 2);  // 3 / 1.5
  CHECK(OfferedLoadNodes(3.1, 2, 0.75) == 3);
  CHECK(OfferedLoadNodes(0.0, 4, 0.7) == 1);
}

}  // namespace
}  // namespace knobsim
