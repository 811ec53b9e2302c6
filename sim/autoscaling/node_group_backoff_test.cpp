#include "sim/autoscaling/node_group_backoff.h"

#include <doctest/doctest.h>

#include <vector>

namespace knobsim::autoscaling {
namespace {

constexpr SimTime kMin = 60 * kNanosPerSecond;

// Each case: failures at these minutes, and the backoff end (minutes) each one returns.
struct BackoffCase {
  const char* name;
  std::vector<SimTime> failures_min;
  std::vector<SimTime> until_min;
};

TEST_CASE(
    "NodeGroupBackoff: exponential, capped, not lengthened during a backoff, reset after 3h") {
  const NodeGroupBackoffSettings settings;  // 5m, 30m, 3h
  const std::vector<BackoffCase> cases = {
      {"first failure: the initial 5 minutes", {0}, {5}},
      {"after the backoff ran out: doubled", {0, 6, 17}, {5, 16, 37}},
      {"during a backoff: the same duration from now", {0, 2}, {5, 7}},
      {"doubling stops at the 30 minute cap", {0, 6, 17, 38, 79, 120}, {5, 16, 37, 68, 109, 150}},
      {"more than 3h after the last failure: back to 5 minutes", {0, 6, 17, 198}, {5, 16, 37, 203}},
      {"exactly 3h after: not reset (Before is strict)", {0, 6, 186}, {5, 16, 206}},
  };
  for (const BackoffCase& c : cases) {
    CAPTURE(c.name);
    NodeGroupBackoff b;
    for (size_t k = 0; k < c.failures_min.size(); ++k) {
      CHECK(b.Fail(c.failures_min[k] * kMin, settings) == c.until_min[k] * kMin);
    }
  }
}

TEST_CASE("NodeGroupBackoff: active until its end, not at it, and never before a failure") {
  NodeGroupBackoff b;
  CHECK_FALSE(b.Active(0));
  b.Fail(10 * kMin, NodeGroupBackoffSettings{});
  CHECK(b.Active(10 * kMin));
  CHECK(b.Active(15 * kMin - 1));
  CHECK_FALSE(b.Active(15 * kMin));
}

}  // namespace
}  // namespace knobsim::autoscaling
