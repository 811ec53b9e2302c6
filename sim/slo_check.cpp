#include "sim/slo_check.h"

namespace knobsim {

SimTime OverdueAge(const Slo& slo) {
  return slo.latency > 0 ? slo.latency : slo.unanswered_after;
}

double BacklogAllowance(const Slo& slo, double requests) {
  const double fraction = slo.latency > 0 ? 1 - slo.percentile / 100 : slo.error_budget;
  return fraction * requests;
}

SloCheck CheckSlo(const WorkloadResult& run, const Slo& slo) {
  SloCheck c;
  if (slo.latency > 0 && run.requests > 0) {
    c.latency_met = run.completed > 0 &&
                    run.slo_latency_ms <= static_cast<double>(slo.latency) / kNanosPerMilli;
  }
  c.errors_met = run.error_ratio <= slo.error_budget;
  c.nothing_left = run.requests > 0 && run.completed == 0 && run.errors.total() == 0;
  const bool overdue_within = static_cast<double>(run.in_system_overdue) <=
                              BacklogAllowance(slo, static_cast<double>(run.requests));
  c.backlog_met = !c.nothing_left && overdue_within;
  return c;
}

}  // namespace knobsim
