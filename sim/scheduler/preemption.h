// DefaultPreemption, kube-scheduler's PostFilter plugin (docs/semantics.md §3.12): when a pod
// fits on no node, find a node where evicting pods of lower priority lets it fit, and which pods.
// Upstream sources: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
// (SelectVictimsOnNode, filterPodsWithPDBViolation, PodEligibleToPreemptOthers) and
// pkg/scheduler/framework/preemption/preemption.go (findCandidates, DryRunPreemption,
// pickOneNodeForPreemption).
//
// The dry run takes a node's potential victims out of the ClusterState, asks the filters, puts
// back as many as still fit (the most important first, those a PodDisruptionBudget protects
// before the others) and restores the node exactly; the Scheduler then nominates the best
// candidate and its caller evicts the victims. Nothing here binds the preemptor.
//
// Not modelled: nominated pods of other preemptors (knobsim's callers bind a preemptor as soon as
// its victims are gone, so none waits nominated while another pod is filtered), extenders, and the
// async preemption of 1.33+ (the same victims, chosen the same way).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/framework.h"

namespace knobsim {

// A PodDisruptionBudget as preemption reads it: upstream takes status.disruptionsAllowed as the
// disruption controller last wrote it.
struct PreemptionBudget {
  std::string namespace_ = "default";
  std::optional<LabelSelector> selector;  // nullopt or empty: matches no pod (upstream's rule)
  int disruptions_allowed = 0;
  // status.disruptedPods: pods whose eviction the API server processed and the controller has
  // not yet seen go; they no longer count against the budget.
  std::set<std::string> disrupted_pods;
};

// A node where the preemptor fits once `victims` are gone.
struct PreemptionCandidate {
  int node = -1;
  std::vector<int> victims;  // ClusterState pod indexes, most important first
  int pdb_violations = 0;    // victims whose eviction takes a budget below zero
};

// DefaultPreemptionArgs and the order the dry run walks the nodes in.
struct PreemptionSettings {
  int min_candidate_nodes_percentage = 10;  // upstream defaults
  int min_candidate_nodes_absolute = 100;
};

// Whether the budget selects the pod as filterPodsWithPDBViolation reads it: same namespace, and
// a selector that is neither nil nor empty matches the pod's labels.
bool BudgetSelects(const PreemptionBudget& budget, const PodSpec& pod);

// util.MoreImportantPod: the higher priority, then the earlier start (an unset start is "now",
// the latest). Equal pods are not more important than each other.
bool MoreImportantPod(const PodSpec& a, const PodSpec& b);

// calculateNumCandidates: the dry run stops once it holds this many candidates (at least one
// of them violating no budget): max(nodes × percentage / 100, absolute), at most `nodes`.
int NumPreemptionCandidates(int potential_nodes, const PreemptionSettings& settings);

// filterPodsWithPDBViolation: `pods` (in their order) into those whose eviction, one after the
// other, takes some budget of their namespace that selects them below zero, and the others.
void SplitByBudgetViolation(const ClusterState& cluster, std::span<const int> pods,
                            std::span<const PreemptionBudget> budgets, std::vector<int>& violating,
                            std::vector<int>& non_violating);

// The filters' verdict for the pod on one node of the cluster as it is now (PreFilter included).
using NodeFit = std::function<PluginStatus(const PodSpec& pod, int node)>;

// SelectVictimsOnNode: the victims on `node` (into `out`), or why there are none: "No preemption
// victims found for incoming pod" when no pod there has a lower priority, or the filters' status
// with every lower-priority pod gone. The cluster is as before when it returns.
PluginStatus SelectVictimsOnNode(ClusterState& cluster, const PodSpec& pod, int node,
                                 std::span<const PreemptionBudget> budgets, const NodeFit& fit,
                                 PreemptionCandidate& out);

struct DryRunResult {
  // Candidates violating no budget first, then the others, each in the order tried.
  std::vector<PreemptionCandidate> candidates;
  struct Tried {
    int node = -1;
    PluginStatus status;
  };
  std::vector<Tried> rejected;  // the nodes tried that are not candidates, with the reason
};

// DryRunPreemption over `potential` nodes (the ones the filters rejected as Unschedulable),
// starting at `offset` and wrapping, until `num_candidates` candidates are found with at least
// one that violates no budget.
DryRunResult DryRunPreemption(ClusterState& cluster, const PodSpec& pod,
                              std::span<const int> potential, int offset, int num_candidates,
                              std::span<const PreemptionBudget> budgets, const NodeFit& fit);

// pickOneNodeForPreemption: the fewest budget violations, then the lowest highest victim
// priority, the lowest sum of victim priorities (each + 2^31), the fewest victims, the latest
// earliest start among the highest-priority victims, then the first candidate. Returns the
// index into `candidates`; -1 when it is empty.
int PickOneNodeForPreemption(const ClusterState& cluster,
                             std::span<const PreemptionCandidate> candidates);

}  // namespace knobsim
