#include "sim/plan/plan_evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/replication_stats.h"
#include "sim/slo_check.h"

namespace knobsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What one replication contributes to a workload's three bounds (MeetsSlo in plan.h).
struct ReplicationValues {
  double latency_ms = 0;  // at the SLO percentile; infinite when every request failed
  double error_ratio = 0;
  double overdue_ratio = 0;  // requests overdue at the end, per request
};

ReplicationValues ValuesOf(const WorkloadResult& x, const Workload& w) {
  ReplicationValues v;
  v.error_ratio = x.error_ratio;
  // A run none of whose requests left the system has them all overdue, however young.
  const bool nothing_left = CheckSlo(x, w.slo).nothing_left;
  v.overdue_ratio = x.requests > 0
                        ? static_cast<double>(nothing_left ? x.requests : x.in_system_overdue) /
                              static_cast<double>(x.requests)
                        : 0.0;
  // A replication whose requests all failed has no latency: it cannot meet.
  v.latency_ms = x.completed > 0 ? x.slo_latency_ms : x.requests > 0 ? kInf : 0.0;
  return v;
}

}  // namespace

const Evaluation& EvaluationCache::Get(const Key& key, const std::function<Evaluation()>& compute) {
  std::unique_lock<std::mutex> lock(mu_);
  auto [it, inserted] = slots_.try_emplace(key);
  Slot& slot = it->second;  // std::map: the node stays put while others are inserted
  if (!inserted) {
    ready_cv_.wait(lock, [&] { return slot.ready; });
    if (slot.failure) std::rethrow_exception(slot.failure);
    return slot.evaluation;
  }
  lock.unlock();
  Evaluation e;
  std::exception_ptr failure;
  try {
    e = compute();
  } catch (...) {
    failure = std::current_exception();
  }
  lock.lock();
  slot.evaluation = std::move(e);
  slot.failure = failure;
  slot.ready = true;
  ready_cv_.notify_all();
  if (failure) std::rethrow_exception(failure);
  return slot.evaluation;
}

double SloLatencyRatio(const PlanWorkload& w) {
  if (w.slo.latency <= 0 || w.latency_replications <= 0) return 0;
  return w.slo_latency_ms.mean / (static_cast<double>(w.slo.latency) / kNanosPerMilli);
}

Evaluation AssessRuns(const Scenario& scenario, const RunSetResult& rs, int replications,
                      double confidence, bool pending_misses) {
  Evaluation e;
  const VariantSummary& v = rs.variants.front();

  bool pending = false;
  for (const RunResult& r : v.runs) pending = pending || r.cluster.pending_pods > 0;
  pending = pending && pending_misses;
  // Stopped early (CertainMiss): a miss, however the replications run so far summarize.
  e.met = !pending && rs.replications == replications;
  for (size_t i = 0; i < v.workloads.size(); ++i) {
    const WorkloadStats& st = v.workloads[i];
    const Workload& wl = scenario.workloads[i];
    PlanWorkload pw;
    pw.name = st.name;
    pw.namespace_ = st.namespace_;
    pw.replicas = wl.replicas;
    pw.slo = wl.slo;
    pw.latency_replications = st.latency_replications;
    pw.p50_ms = st.latency_ms.p50;
    pw.p99_ms = st.latency_ms.p99;
    pw.slo_latency_ms = st.slo_latency_ms;
    pw.error_ratio = st.error_ratio;
    pw.slo_met_replications = st.slo_met_replications;
    std::vector<double> latency, errors, overdue;
    bool any_requests = false;
    for (const RunResult& r : v.runs) {
      const ReplicationValues values = ValuesOf(r.workloads[i], wl);
      latency.push_back(values.latency_ms);
      errors.push_back(values.error_ratio);
      overdue.push_back(values.overdue_ratio);
      any_requests = any_requests || r.workloads[i].requests > 0;
    }
    pw.slo_latency_bound_ms = any_requests ? UpperBound(latency, confidence) : 0.0;
    pw.error_ratio_bound = UpperBound(errors, confidence);
    pw.overdue_ratio_bound = UpperBound(overdue, confidence);
    const double slo_ms = static_cast<double>(wl.slo.latency) / kNanosPerMilli;
    double margin = 0;
    bool met = true;
    if (wl.slo.latency > 0 && any_requests) {
      met = met && pw.slo_latency_bound_ms <= slo_ms;
      margin = std::max(margin, pw.slo_latency_bound_ms / slo_ms);
    }
    met = met && pw.error_ratio_bound <= wl.slo.error_budget;
    met = met && pw.overdue_ratio_bound <= BacklogAllowance(wl.slo, 1.0);
    if (wl.slo.error_budget > 0) {
      margin = std::max(margin, pw.error_ratio_bound / wl.slo.error_budget);
    } else if (pw.error_ratio_bound > 0) {
      margin = kInf;
    }
    pw.margin_ratio = margin;
    pw.slo_met = met;
    e.met = e.met && met;
    e.workloads.push_back(std::move(pw));
  }
  for (const CardStats& c : v.cards) {
    e.cards.push_back({c.node, c.index, c.gpu, c.busy.mean, c.effective.mean, 1.0 - c.busy.mean});
  }
  e.pool_nodes_mean.assign(scenario.node_pools.size(), 0.0);
  for (const RunResult& r : v.runs) {
    for (size_t p = 0; p < r.pools.size() && p < e.pool_nodes_mean.size(); ++p)
      e.pool_nodes_mean[p] += r.pools[p].nodes_mean / static_cast<double>(v.runs.size());
  }
  return e;
}

bool CertainMiss(const Scenario& scenario, const std::vector<RunResult>& finished,
                 int replications) {
  for (const RunResult& r : finished) {
    if (r.cluster.pending_pods > 0) return true;
  }
  const double reps = replications;
  // A hair above the objective, so that summing in another order never turns a tie into a miss.
  auto above = [&](double sum, double objective) { return sum / reps > objective * (1 + 1e-9); };
  for (size_t i = 0; i < scenario.workloads.size(); ++i) {
    const Workload& w = scenario.workloads[i];
    double latency = 0, errors = 0, overdue = 0;
    for (const RunResult& r : finished) {
      const ReplicationValues v = ValuesOf(r.workloads[i], w);
      latency += v.latency_ms;
      errors += v.error_ratio;
      overdue += v.overdue_ratio;
    }
    const double slo_ms = static_cast<double>(w.slo.latency) / kNanosPerMilli;
    if (w.slo.latency > 0 && above(latency, slo_ms)) return true;
    if (above(errors, w.slo.error_budget)) return true;
    if (above(overdue, BacklogAllowance(w.slo, 1.0))) return true;
  }
  return false;
}

double UpperBound(const std::vector<double>& values, double confidence) {
  if (values.empty()) return kInf;
  for (double v : values) {
    if (!std::isfinite(v)) return kInf;
  }
  const MeanCi m = Summarize(values);
  if (values.size() < 2) return m.mean;
  // Summarize's half-width is two-sided at 95 %; the bound is one-sided at `confidence`.
  const double n = static_cast<double>(values.size());
  double ss = 0;
  for (double v : values) ss += (v - m.mean) * (v - m.mean);
  const double sd = std::sqrt(ss / (n - 1));
  return m.mean + StudentT(confidence, static_cast<int>(values.size()) - 1) * sd / std::sqrt(n);
}

}  // namespace knobsim
