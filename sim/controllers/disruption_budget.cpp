#include "sim/controllers/disruption_budget.h"

#include <algorithm>
#include <set>

#include "sim/scheduler/node_matching.h"
#include "sim/text.h"

namespace knobsim {
namespace {

// Upstream getExpectedScale: each controller's scale once (by controller), pods without one
// listed as unmanaged; a controller that cannot be found fails the sync.
int ExpectedScale(const std::vector<BudgetPod>& pods, BudgetStatus* status) {
  std::set<std::string> seen;
  int expected = 0;
  for (const BudgetPod& p : pods) {
    if (p.controller.empty()) {
      status->unmanaged_pods.push_back(p.name);
      continue;
    }
    if (!seen.insert(p.controller).second) continue;
    if (p.controller_scale < 0) {
      status->sync_failed = true;
      status->sync_error = "found no controllers for pod " + Quote(p.name);
      continue;
    }
    expected += p.controller_scale;
  }
  return expected;
}

bool CanIgnoreBudget(const BudgetPod& pod) {
  return pod.phase == "Succeeded" || pod.phase == "Failed" || pod.phase == "Pending" ||
         pod.terminating;
}

}  // namespace

bool BudgetSelects(const PodDisruptionBudgetSpec& pdb, const std::string& ns,
                   const Labels& labels) {
  if (pdb.namespace_ != ns || !pdb.selector) return false;
  return MatchesLabelSelector(*pdb.selector, labels);
}

BudgetStatus ComputeBudgetStatus(const PodDisruptionBudgetSpec& pdb,
                                 const std::vector<BudgetPod>& pods) {
  BudgetStatus s;
  if (pdb.max_unavailable) {
    s.expected_pods = ExpectedScale(pods, &s);
    const int mu = pdb.max_unavailable->Scaled(s.expected_pods, /*round_up=*/true);
    s.desired_healthy = std::max(0, s.expected_pods - mu);
  } else if (pdb.min_available) {
    if (pdb.min_available->percent) {
      s.expected_pods = ExpectedScale(pods, &s);
      s.desired_healthy = pdb.min_available->Scaled(s.expected_pods, /*round_up=*/true);
    } else {
      s.expected_pods = static_cast<int>(pods.size());
      s.desired_healthy = pdb.min_available->value;
    }
  }
  for (const BudgetPod& p : pods)
    if (!p.terminating && !p.recently_disrupted && p.ready) ++s.current_healthy;
  if (s.sync_failed) {
    // On a sync error the controller writes disruptionsAllowed = 0 and keeps nothing else.
    s.disruptions_allowed = 0;
    return s;
  }
  s.disruptions_allowed = s.current_healthy - s.desired_healthy;
  if (s.expected_pods <= 0 || s.disruptions_allowed < 0) s.disruptions_allowed = 0;
  return s;
}

EvictionDecision DecideEviction(const BudgetPod& pod, const std::vector<MatchingBudget>& budgets) {
  EvictionDecision d;
  if (CanIgnoreBudget(pod)) {
    d.message = pod.terminating ? "already terminating: deleted without a budget check"
                                : "phase " + pod.phase + ": deleted without a budget check";
    return d;
  }
  if (budgets.size() > 1) {
    d.outcome = EvictionOutcome::kMultipleBudgets;
    d.http_status = 500;
    d.message = kEvictionMultipleBudgets;
    return d;
  }
  if (budgets.empty()) {
    d.message = "no disruption budget selects the pod";
    return d;
  }
  const PodDisruptionBudgetSpec& pdb = *budgets.front().pdb;
  const BudgetStatus& s = budgets.front().status;
  if (!pod.ready) {
    if (pdb.unhealthy_pod_eviction_policy == "AlwaysAllow") {
      d.message = "not Ready, and budget " + pdb.name +
                  " has unhealthyPodEvictionPolicy AlwaysAllow: deleted without decrement";
      return d;
    }
    if (s.current_healthy >= s.desired_healthy && s.desired_healthy > 0) {
      d.message = "not Ready, and budget " + pdb.name + " is healthy (" +
                  std::to_string(s.current_healthy) + " of " + std::to_string(s.desired_healthy) +
                  " needed): deleted without decrement (IfHealthyBudget)";
      return d;
    }
  }
  if (s.disruptions_allowed <= 0) {
    d.outcome = EvictionOutcome::kTooManyRequests;
    d.http_status = 429;
    d.message = kEvictionViolatesBudget;
    d.cause = "The disruption budget " + pdb.name + " needs " + std::to_string(s.desired_healthy) +
              " healthy pods and has " + std::to_string(s.current_healthy) + " currently";
    return d;
  }
  d.outcome = EvictionOutcome::kEvicted;
  d.message = "evicted: budget " + pdb.name + " allowed " + std::to_string(s.disruptions_allowed) +
              " disruption" + (s.disruptions_allowed == 1 ? "" : "s");
  return d;
}

namespace {

const Workload* WorkloadOf(const Scenario& s, const PodView& pod) {
  if (pod.workload < 0 || pod.workload >= static_cast<int>(s.workloads.size())) return nullptr;
  return &s.workloads[static_cast<size_t>(pod.workload)];
}

const Labels& LabelsOf(const Scenario& s, const PodView& pod) {
  static const Labels kNone;
  const Workload* w = WorkloadOf(s, pod);
  return w == nullptr ? kNone : w->labels;
}

BudgetPod ToBudgetPod(const Scenario& s, const PodView& pod) {
  BudgetPod b;
  b.name = pod.name;
  b.phase = pod.phase;
  b.ready = pod.ready;
  b.terminating = pod.terminating;
  const Workload* w = WorkloadOf(s, pod);
  if (w != nullptr && w->kind != "Pod") {
    b.controller = w->kind + "/" + w->namespace_ + "/" + w->name;
    // The run's scale when it knows it: an HPA moves spec.replicas, and the budget follows.
    b.controller_scale = pod.controller_scale >= 0 ? pod.controller_scale : w->replicas;
  } else {
    b.controller_scale = 0;
  }
  return b;
}

}  // namespace

std::vector<PreemptionBudget> PreemptionBudgets(const Scenario& s,
                                                const std::vector<PodView>& pods) {
  std::vector<PreemptionBudget> budgets;
  for (const PodDisruptionBudgetSpec& pdb : s.kube.pdbs) {
    std::vector<BudgetPod> members;
    for (const PodView& q : pods)
      if (BudgetSelects(pdb, q.namespace_, LabelsOf(s, q))) members.push_back(ToBudgetPod(s, q));
    PreemptionBudget& b = budgets.emplace_back();
    b.namespace_ = pdb.namespace_;
    b.selector = pdb.selector;
    b.disruptions_allowed = ComputeBudgetStatus(pdb, members).disruptions_allowed;
  }
  return budgets;
}

RunEviction EvaluateEviction(const Scenario& s, const std::vector<PodView>& pods,
                             const PodView& pod) {
  RunEviction e;
  std::vector<MatchingBudget> matching;
  for (const PodDisruptionBudgetSpec& pdb : s.kube.pdbs) {
    if (!BudgetSelects(pdb, pod.namespace_, LabelsOf(s, pod))) continue;
    std::vector<BudgetPod> members;
    for (const PodView& q : pods)
      if (BudgetSelects(pdb, q.namespace_, LabelsOf(s, q))) members.push_back(ToBudgetPod(s, q));
    matching.push_back({&pdb, ComputeBudgetStatus(pdb, members)});
    e.budgets.push_back(pdb.namespace_ + "/" + pdb.name);
  }
  e.decision = DecideEviction(ToBudgetPod(s, pod), matching);
  return e;
}

}  // namespace knobsim
