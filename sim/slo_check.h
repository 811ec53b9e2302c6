// SloCheck: the rules one run of a workload is judged by against its objective (docs/results.md
// "SLO"), one function that the run recorder (which sets WorkloadResult::slo_met), the run-set
// summary (how many replications met each rule) and the verdict (why) all call, so that the
// table, the exit code of --fail-on-slo and the reason printed are the same judgement.
//
//  * latency: the SLO percentile of the successes is within the latency target; a run with
//    requests and no success misses it. Met when the objective has no latency bound.
//  * errors: failed requests / requests within the error budget.
//  * backlog: requests still queued or in service at the end are not silently dropped. One that
//    is younger than its *overdue age* is explained by the run stopping (it would have finished
//    a little later); one older has already missed the objective — slower than the latency
//    target, or, without one, older than `slo.unanswered_after` (default 60 s,
//    kDefaultUnansweredAfter), when a client behind an ordinary proxy has given up. The rule
//    lets the overdue requests spend the objective's own budget of bad requests, and no more:
//    (1 - percentile / 100) × requests with a latency target (the requests the percentile lets
//    be slow), error_budget × requests without. A run with requests none of which left the system
//    (no success, no error) misses it whatever their age, as before this rule.
// A run with no requests meets every rule.
#pragma once

#include <cstdint>

#include "sim/event_queue.h"
#include "sim/results.h"
#include "sim/scenario.h"

namespace knobsim {

struct SloCheck {
  bool latency_met = true;
  bool errors_met = true;
  bool backlog_met = true;
  bool nothing_left = false;  // requests arrived and none left the system (backlog missed)
  bool met() const { return latency_met && errors_met && backlog_met; }
};

// The age past which a request unanswered at the end is overdue: the latency target, else
// slo.unanswered_after.
SimTime OverdueAge(const Slo& slo);

// How many overdue requests `slo` tolerates in a run of `requests` requests (see above).
double BacklogAllowance(const Slo& slo, double requests);

// The rules above on one run's result (its requests, completed, errors, error_ratio,
// slo_latency_ms and in_system_overdue).
SloCheck CheckSlo(const WorkloadResult& run, const Slo& slo);

}  // namespace knobsim
