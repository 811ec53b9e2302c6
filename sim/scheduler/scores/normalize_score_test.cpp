#include "sim/scheduler/scores/normalize_score.h"

#include <doctest/doctest.h>

#include <vector>

namespace knobsim {
namespace {

struct Case {
  const char* rule;
  bool reverse;
  std::vector<int64_t> raw;
  std::vector<int64_t> want;
};

TEST_CASE("DefaultNormalizeScore scales to the maximum with integer division") {
  const Case cases[] = {
      {"largest raw score becomes 100", false, {1, 2, 4}, {25, 50, 100}},
      {"integer division truncates", false, {1, 3}, {33, 100}},
      {"all zero stays zero", false, {0, 0, 0}, {0, 0, 0}},
      {"reverse subtracts the scaled score from 100", true, {1, 2, 4}, {75, 50, 0}},
      {"reverse truncates before subtracting", true, {1, 3}, {67, 0}},
      {"reverse with every score zero gives 100 everywhere", true, {0, 0}, {100, 100}},
      {"an empty list is left alone", false, {}, {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    std::vector<int64_t> scores = c.raw;
    DefaultNormalizeScore(100, c.reverse, scores);
    CHECK(scores == c.want);
  }
}

}  // namespace
}  // namespace knobsim
