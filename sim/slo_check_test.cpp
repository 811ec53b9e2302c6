#include "sim/slo_check.h"

#include <doctest/doctest.h>

namespace knobsim {
namespace {

Slo LatencySlo() {
  Slo slo;
  slo.percentile = 99;
  slo.latency = 300 * kNanosPerMilli;
  slo.error_budget = 0.01;
  return slo;
}

Slo ErrorsOnlySlo() {
  Slo slo;
  slo.error_budget = 0.001;
  return slo;
}

// 10 000 requests, 9 000 done in 120 ms at the percentile, `overdue` of the rest past due.
WorkloadResult Run(int64_t in_system, int64_t overdue) {
  WorkloadResult r;
  r.requests = 10000;
  r.completed = r.requests - in_system;
  r.slo_latency_ms = 120;
  r.in_system_end = in_system;
  r.in_system_overdue = overdue;
  return r;
}

TEST_CASE("backlog rule: the overdue age is the latency target, else unanswered_after") {
  CHECK(OverdueAge(LatencySlo()) == 300 * kNanosPerMilli);
  CHECK(OverdueAge(ErrorsOnlySlo()) == kDefaultUnansweredAfter);
  CHECK(kDefaultUnansweredAfter == 60 * kNanosPerSecond);
  Slo custom = ErrorsOnlySlo();
  custom.unanswered_after = 5 * kNanosPerSecond;
  CHECK(OverdueAge(custom) == 5 * kNanosPerSecond);
}

TEST_CASE("backlog rule: overdue requests may spend the objective's budget of bad requests") {
  // p99: 1 % of the requests may be slow; errors only: the error budget.
  CHECK(BacklogAllowance(LatencySlo(), 10000) == doctest::Approx(100));
  CHECK(BacklogAllowance(ErrorsOnlySlo(), 10000) == doctest::Approx(10));
  Slo p100 = LatencySlo();
  p100.percentile = 100;
  CHECK(BacklogAllowance(p100, 10000) == 0);

  const struct {
    const char* rule;
    Slo slo;
    int64_t in_system, overdue;
    bool met;
  } cases[] = {
      {"young requests at the end are explained by the run stopping", LatencySlo(), 5000, 0, true},
      {"overdue within the percentile's budget", LatencySlo(), 150, 100, true},
      {"overdue beyond the percentile's budget", LatencySlo(), 150, 101, false},
      {"errors only: overdue within the error budget", ErrorsOnlySlo(), 40, 10, true},
      {"errors only: a backlog older than unanswered_after", ErrorsOnlySlo(), 5251, 5000, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.rule);
    const SloCheck check = CheckSlo(Run(c.in_system, c.overdue), c.slo);
    CHECK(check.backlog_met == c.met);
    CHECK(check.latency_met);  // the successes alone are fast: the backlog is its own rule
    CHECK(check.errors_met);
    CHECK(check.met() == c.met);
  }
}

TEST_CASE("backlog rule: a run whose requests all stayed in the system misses it at any age") {
  WorkloadResult r = Run(10000, 0);
  const SloCheck errors_only = CheckSlo(r, ErrorsOnlySlo());
  CHECK(errors_only.nothing_left);
  CHECK_FALSE(errors_only.backlog_met);
  CHECK(errors_only.errors_met);
  const SloCheck latency = CheckSlo(r, LatencySlo());
  CHECK_FALSE(latency.latency_met);  // no success: no percentile within the target
  CHECK_FALSE(latency.backlog_met);
}

TEST_CASE("latency and error rules: the percentile against the target, errors against budget") {
  WorkloadResult r = Run(0, 0);
  r.slo_latency_ms = 301;
  CHECK_FALSE(CheckSlo(r, LatencySlo()).latency_met);
  CHECK(CheckSlo(r, ErrorsOnlySlo()).latency_met);  // no latency bound
  r.slo_latency_ms = 300;
  CHECK(CheckSlo(r, LatencySlo()).latency_met);
  r.error_ratio = 0.02;
  CHECK_FALSE(CheckSlo(r, LatencySlo()).errors_met);
  WorkloadResult idle;  // no requests: nothing to judge
  CHECK(CheckSlo(idle, LatencySlo()).met());
}

}  // namespace
}  // namespace knobsim
