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

CapacitySearchResult Search(Threshold& t, int lower_bound, int max_nodes = 256) {
  CapacitySearchSettings s;
  s.lower_bound = lower_bound;
  s.max_nodes = max_nodes;
  return FindSmallestSize(s, [&t](int n) { return t(n); });
}

TEST_CASE("capacity search grows geometrically from the estimate, then bisects") {
  Threshold t(13);
  const CapacitySearchResult r = Search(t, 3);
  REQUIRE(r.nodes.has_value());
  CHECK(*r.nodes == 13);
  // 3 miss, 6 miss, 12 miss, 24 meet, then bisect (12, 24): 18, 15, 13, 12|13 settled.
  std::vector<int> sizes;
  for (const SearchStep& s : r.steps) sizes.push_back(s.nodes);
  CHECK(sizes == std::vector<int>{3, 6, 12, 24, 18, 15, 13});
  CHECK(t.calls == 7);
  CHECK(r.steps.back().met);
}

TEST_CASE("capacity search finds every answer from every start, in logarithmic evaluations") {
  for (int answer = 1; answer <= 200; ++answer) {
    for (int start : {1, 2, 7, 50, 199}) {
      Threshold t(answer);
      const CapacitySearchResult r = Search(t, start);
      REQUIRE(r.nodes.has_value());
      CHECK(*r.nodes == answer);
      // Growing or shrinking takes at most log2(256) + 1 steps, bisecting as many again.
      CHECK(t.calls <= 2 * 9 + 1);
    }
  }
}

TEST_CASE("capacity search steps down when the estimate already meets") {
  Threshold t(5);
  const CapacitySearchResult r = Search(t, 40);
  REQUIRE(r.nodes.has_value());
  CHECK(*r.nodes == 5);
  std::vector<int> sizes;
  for (const SearchStep& s : r.steps) sizes.push_back(s.nodes);
  // 40 meet, 20 meet, 10 meet, 5 meet, 2 miss, then bisect (2, 5): 3 miss, 4 miss.
  CHECK(sizes == std::vector<int>{40, 20, 10, 5, 2, 3, 4});
  CHECK(r.steps[4].met == false);
}

TEST_CASE("capacity search stops at one node when even that meets") {
  Threshold t(1);
  const CapacitySearchResult r = Search(t, 8);
  REQUIRE(r.nodes.has_value());
  CHECK(*r.nodes == 1);
  CHECK(r.steps.size() == 4);  // 8, 4, 2, 1
}

TEST_CASE("capacity search is infeasible with a reason when the max nodes limit is reached") {
  Threshold t(300);
  const CapacitySearchResult r = Search(t, 10);
  CHECK_FALSE(r.nodes.has_value());
  CHECK(r.reason == "max nodes 256 reached");
  std::vector<int> sizes;
  for (const SearchStep& s : r.steps) sizes.push_back(s.nodes);
  CHECK(sizes == std::vector<int>{10, 20, 40, 80, 160, 256});
}

TEST_CASE("capacity search answers the limit itself when only the limit meets") {
  Threshold t(256);
  const CapacitySearchResult r = Search(t, 100);
  REQUIRE(r.nodes.has_value());
  CHECK(*r.nodes == 256);
}

TEST_CASE("the offered-load estimate is the cards the load needs at the target utilization") {
  CHECK(OfferedLoadNodes(3.0, 1, 1.0) == 3);
  CHECK(OfferedLoadNodes(3.0, 2, 0.75) == 2);  // 3 / 1.5
  CHECK(OfferedLoadNodes(3.1, 2, 0.75) == 3);
  CHECK(OfferedLoadNodes(0.0, 4, 0.7) == 1);
}

}  // namespace
}  // namespace knobsim
