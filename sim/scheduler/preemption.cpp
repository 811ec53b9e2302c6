#include "sim/scheduler/preemption.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "sim/scheduler/node_matching.h"

namespace knobsim {
namespace {

// GetPodStartTime: a pod the kubelet has not started yet reads as started now, after any other.
double StartTime(const PodSpec& pod) {
  return pod.start_time.value_or(std::numeric_limits<double>::infinity());
}

// The victims' earliest start among those of the highest priority (GetEarliestPodStartTime).
double EarliestStartOfHighest(const ClusterState& cluster, const std::vector<int>& victims) {
  int highest = std::numeric_limits<int>::min();
  double earliest = std::numeric_limits<double>::infinity();
  for (int v : victims) {
    const PodSpec& pod = cluster.pod(v);
    if (pod.priority > highest) {
      highest = pod.priority;
      earliest = StartTime(pod);
    } else if (pod.priority == highest) {
      earliest = std::min(earliest, StartTime(pod));
    }
  }
  return earliest;
}

}  // namespace

bool BudgetSelects(const PreemptionBudget& budget, const PodSpec& pod) {
  if (budget.namespace_ != pod.namespace_ || !budget.selector) return false;
  const LabelSelector& s = *budget.selector;
  if (s.match_labels.empty() && s.match_expressions.empty()) return false;
  return MatchesLabelSelector(s, pod.labels);
}

bool MoreImportantPod(const PodSpec& a, const PodSpec& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  return StartTime(a) < StartTime(b);
}

int NumPreemptionCandidates(int potential_nodes, const PreemptionSettings& settings) {
  int64_t n = int64_t{potential_nodes} * settings.min_candidate_nodes_percentage / 100;
  n = std::max<int64_t>(n, settings.min_candidate_nodes_absolute);
  return static_cast<int>(std::min<int64_t>(n, potential_nodes));
}

void SplitByBudgetViolation(const ClusterState& cluster, std::span<const int> pods,
                            std::span<const PreemptionBudget> budgets, std::vector<int>& violating,
                            std::vector<int>& non_violating) {
  std::vector<int> allowed;
  allowed.reserve(budgets.size());
  for (const PreemptionBudget& b : budgets) allowed.push_back(b.disruptions_allowed);
  for (int p : pods) {
    const PodSpec& pod = cluster.pod(p);
    bool violated = false;
    // A pod without labels matches no budget.
    if (!pod.labels.empty()) {
      for (size_t i = 0; i < budgets.size(); ++i) {
        if (!BudgetSelects(budgets[i], pod)) continue;
        // An eviction the API server has processed already is counted in the budget.
        if (budgets[i].disrupted_pods.count(pod.name) > 0) continue;
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : non_violating).push_back(p);
  }
}

PluginStatus SelectVictimsOnNode(ClusterState& cluster, const PodSpec& pod, int node,
                                 std::span<const PreemptionBudget> budgets, const NodeFit& fit,
                                 PreemptionCandidate& out) {
  out = PreemptionCandidate{node, {}, 0};
  std::vector<int> potential;
  for (int p : cluster.node(node).pods) {
    if (cluster.pod(p).priority < pod.priority) potential.push_back(p);
  }
  if (potential.empty()) {
    return PluginStatus::Unresolvable("No preemption victims found for incoming pod");
  }
  std::vector<Placement> placements;
  placements.reserve(potential.size());
  for (int p : potential) {
    placements.push_back(cluster.placement(p));
    cluster.Unbind(p);
  }
  auto placement_of = [&](int p) -> const Placement& {
    return placements[static_cast<size_t>(std::find(potential.begin(), potential.end(), p) -
                                          potential.begin())];
  };
  auto restore = [&] {
    for (int p : potential) {
      if (!cluster.bound(p)) cluster.Rebind(p, placement_of(p));
    }
  };
  // Without every lower-priority pod the pod must fit, or this node cannot help.
  if (PluginStatus status = fit(pod, node); !status.ok()) {
    restore();
    return status;
  }
  // The most important first (upstream sorts in place without a stable order; equal pods keep
  // their order on the node here, so the outcome is reproducible).
  std::vector<int> order = potential;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return MoreImportantPod(cluster.pod(a), cluster.pod(b)); });
  std::vector<int> violating, non_violating;
  SplitByBudgetViolation(cluster, order, budgets, violating, non_violating);
  // Reprieve as many as still fit: the budget-protected ones first, each group most important
  // first.
  auto reprieve = [&](int p) {
    cluster.Rebind(p, placement_of(p));
    if (fit(pod, node).ok()) return true;
    cluster.Unbind(p);
    out.victims.push_back(p);
    return false;
  };
  for (int p : violating) {
    if (!reprieve(p)) ++out.pdb_violations;
  }
  for (int p : non_violating) reprieve(p);
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(out.victims.begin(), out.victims.end(), [&](int a, int b) {
      return MoreImportantPod(cluster.pod(a), cluster.pod(b));
    });
  }
  restore();
  if (out.victims.empty()) {
    // Upstream's "expected at least one victim pod on node": the node fits with every pod back,
    // which the filters that rejected it say cannot happen.
    return PluginStatus::Unschedulable("expected at least one victim pod on node " +
                                       cluster.node(node).spec.name);
  }
  return PluginStatus::Success();
}

DryRunResult DryRunPreemption(ClusterState& cluster, const PodSpec& pod,
                              std::span<const int> potential, int offset, int num_candidates,
                              std::span<const PreemptionBudget> budgets, const NodeFit& fit) {
  DryRunResult result;
  // Upstream keeps each kind in a list of num_candidates slots; a candidate beyond them is
  // dropped, and the stop rule counts the lists as kept.
  const size_t slots = static_cast<size_t>(std::max(num_candidates, 0));
  std::vector<PreemptionCandidate> non_violating, violating;
  const size_t n = potential.size();
  for (size_t i = 0; i < n; ++i) {
    const int node = potential[(static_cast<size_t>(offset) + i) % n];
    PreemptionCandidate candidate;
    PluginStatus status = SelectVictimsOnNode(cluster, pod, node, budgets, fit, candidate);
    if (!status.ok()) {
      result.rejected.push_back({node, std::move(status)});
      continue;
    }
    std::vector<PreemptionCandidate>& list =
        candidate.pdb_violations == 0 ? non_violating : violating;
    if (list.size() < slots) list.push_back(std::move(candidate));
    if (!non_violating.empty() && non_violating.size() + violating.size() >= slots) break;
  }
  result.candidates = std::move(non_violating);
  for (PreemptionCandidate& c : violating) result.candidates.push_back(std::move(c));
  return result;
}

int PickOneNodeForPreemption(const ClusterState& cluster,
                             std::span<const PreemptionCandidate> candidates) {
  if (candidates.empty()) return -1;
  // Each criterion scores a candidate (higher is better); the next one breaks the ties.
  using Score = int64_t;
  auto highest_priority = [&](const PreemptionCandidate& c) -> Score {
    return -Score{cluster.pod(c.victims.front()).priority};
  };
  auto sum_of_priorities = [&](const PreemptionCandidate& c) -> Score {
    Score sum = 0;
    for (int v : c.victims) {
      sum += Score{cluster.pod(v).priority} + Score{std::numeric_limits<int32_t>::max()} + 1;
    }
    return -sum;
  };
  std::vector<size_t> tied(candidates.size());
  for (size_t i = 0; i < tied.size(); ++i) tied[i] = i;
  auto keep_best = [&](auto score) {
    std::vector<size_t> best;
    auto best_score = std::numeric_limits<decltype(score(candidates[0]))>::lowest();
    for (size_t i : tied) {
      const auto s = score(candidates[i]);
      if (s > best_score) {
        best_score = s;
        best.clear();
      }
      if (s == best_score) best.push_back(i);
    }
    tied = std::move(best);
    return tied.size() == 1;
  };
  // Each criterion that leaves one candidate ends the search; the rest are not asked.
  (void)(keep_best([](const PreemptionCandidate& c) { return -Score{c.pdb_violations}; }) ||
         keep_best(highest_priority) || keep_best(sum_of_priorities) ||
         keep_best(
             [](const PreemptionCandidate& c) { return -static_cast<Score>(c.victims.size()); }) ||
         keep_best([&](const PreemptionCandidate& c) {
           return EarliestStartOfHighest(cluster, c.victims);
         }));
  return static_cast<int>(tied.front());
}

}  // namespace knobsim
