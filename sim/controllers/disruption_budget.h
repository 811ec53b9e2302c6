// The disruption controller's arithmetic and the Eviction API's decision, for `knobsim check`
// (which PDB blocks a drain now), `knobsim upgrade` (each eviction of a rolling drain) and the
// cluster-autoscaler's drain of a node it removes (node_autoscaling.h).
// docs/semantics.md §4.1-4.2 is the reference; upstream's pkg/controller/disruption/disruption.go
// and pkg/registry/core/pod/storage/eviction.go are its sources. No I/O: plain values in and out.
//
// What is left out, and why: `observedGeneration < generation` (429 "still being processed")
// needs the API server's generation bookkeeping, which no export carries; the Forbidden errors
// for a negative budget or an oversized disruptedPods map cannot arise from recomputed statuses.
#pragma once

#include <string>
#include <vector>

#include "sim/engine/cluster_control.h"
#include "sim/kube_types.h"
#include "sim/scenario.h"
#include "sim/scheduler/preemption.h"

namespace knobsim {

// One pod as the disruption controller counts it.
struct BudgetPod {
  std::string name;
  std::string phase = "Running";    // Pending | Running | Succeeded | Failed | Unknown
  bool ready = false;               // condition Ready=True
  bool terminating = false;         // metadata.deletionTimestamp set
  bool recently_disrupted = false;  // in status.disruptedPods less than 2 min ago (DeletionTimeout)
  // The controller whose `/scale` the percentage and maxUnavailable rules sum, once per
  // controller: a Deployment for a Deployment's ReplicaSet, else the owner itself. Empty key: the
  // pod has no controller (an "unmanaged" pod). scale < 0: the controller is not known, which
  // makes upstream's sync fail ("found no controllers for pod").
  std::string controller;  // e.g. "StatefulSet/infra/etcd"
  int controller_scale = -1;
};

struct BudgetStatus {
  int expected_pods = 0;
  int desired_healthy = 0;
  int current_healthy = 0;
  int disruptions_allowed = 0;
  std::vector<std::string> unmanaged_pods;  // no controller: counted healthy, never expected
  // The controller wrote disruptionsAllowed = 0 and condition reason SyncFailed.
  bool sync_failed = false;
  std::string sync_error;
};

// Whether `pdb` selects a pod of namespace `ns` with `labels`: same namespace, and the selector
// matches (nullopt matches none; an empty selector matches every pod, policy/v1).
bool BudgetSelects(const PodDisruptionBudgetSpec& pdb, const std::string& ns, const Labels& labels);

// The status the disruption controller computes from the pods the budget selects:
//   maxUnavailable (int or %):  expected = Σ controller scales, desired = max(0, expected − ⌈mu⌉)
//   minAvailable int:           expected = number of pods,      desired = minAvailable
//   minAvailable %:             expected = Σ controller scales, desired = ⌈pct × expected / 100⌉
//   currentHealthy = pods not terminating, not recently disrupted, Ready;
//   disruptionsAllowed = currentHealthy − desired, 0 when negative or expected ≤ 0.
// A budget with neither field expects nothing and allows nothing.
BudgetStatus ComputeBudgetStatus(const PodDisruptionBudgetSpec& pdb,
                                 const std::vector<BudgetPod>& pods);

enum class EvictionOutcome {
  kEvicted,          // 201: the budget is decremented, then the pod is deleted
  kDeleted,          // 201: deleted without touching any budget (see `reason`)
  kTooManyRequests,  // 429: the budget allows no disruption now; kubectl drain retries in 5 s
  kMultipleBudgets,  // 500: the eviction subresource does not support two budgets
};

struct EvictionDecision {
  EvictionOutcome outcome = EvictionOutcome::kDeleted;
  int http_status = 201;
  std::string message;  // the Status message (429, 500), or why the pod was deleted
  std::string cause;    // 429: the DisruptionBudget cause, upstream's wording
};

// A budget that selects the pod, with the status it has when the eviction arrives.
struct MatchingBudget {
  const PodDisruptionBudgetSpec* pdb = nullptr;
  BudgetStatus status;
};

// The Eviction API's answer for `pod` (docs/semantics.md §4.2), in upstream's order: a Pending,
// Succeeded, Failed or terminating pod is deleted without a budget check; two or more budgets
// are a 500; none, a plain delete; a not-Ready pod under AlwaysAllow is deleted; under
// IfHealthyBudget (the default) it is deleted without decrement iff currentHealthy ≥
// desiredHealthy and desiredHealthy > 0; otherwise disruptionsAllowed == 0 is a 429 whose cause
// reads "The disruption budget <name> needs <desired> healthy pods and has <current> currently",
// and anything else evicts, decrementing the budget.
EvictionDecision DecideEviction(const BudgetPod& pod, const std::vector<MatchingBudget>& budgets);

// The Eviction API's answer for `pod` of a run (ClusterControl::Pods), every budget of the
// scenario's `kube.pdbs` that selects it recomputed from `pods` now: a pod's controller is its
// workload, whose scale is PodView::controller_scale (its replicas now, as an HPA set them), or
// the scenario's replicas when unknown (a Deployment's ReplicaSet summed once per Deployment);
// a bare Pod has none. `budgets`: namespace/name of the budgets that select the pod.
struct RunEviction {
  EvictionDecision decision;
  std::vector<std::string> budgets;
};
RunEviction EvaluateEviction(const Scenario& s, const std::vector<PodView>& pods,
                             const PodView& pod);

// The scenario's budgets as preemption weighs them (sim/scheduler/preemption.h): each one's
// disruptionsAllowed recomputed from the run's `pods` now, as the disruption controller keeps it.
std::vector<PreemptionBudget> PreemptionBudgets(const Scenario& s,
                                                const std::vector<PodView>& pods);

// The 429 message and the 500 message, verbatim from upstream.
inline constexpr const char* kEvictionViolatesBudget =
    "Cannot evict pod as it would violate the pod's disruption budget.";
inline constexpr const char* kEvictionMultipleBudgets =
    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not "
    "support.";

}  // namespace knobsim
