// The Scheduler's PostFilter step, DefaultPreemption (preemption.h holds the upstream rules it
// calls: victims per node, the dry run, the choice of node).
#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "sim/scheduler/preemption.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {

bool Scheduler::MayHaveVictims(const PodSpec& pod) const {
  return config_.preemption && pod.preemption_policy != "Never" &&
         cluster_.HasBoundPodBelow(pod.priority);
}

PreemptionVerdict Scheduler::Preempt(const PodSpec& pod, std::span<const int> potential,
                                     ScheduleResult& result) {
  using Outcome = PreemptionVerdict::Outcome;
  PreemptionVerdict verdict;
  if (!config_.preemption) {
    verdict.outcome = Outcome::kDisabled;
    return verdict;
  }
  // PodEligibleToPreemptOthers.
  if (pod.preemption_policy == "Never") {
    verdict.outcome = Outcome::kNotEligible;
    verdict.not_eligible = "not eligible due to preemptionPolicy=Never.";
    return verdict;
  }
  if (!pod.nominated_node_name.empty()) {
    // Victims of an earlier preemption still terminating on the nominated node: wait for them,
    // unless the filters found that node unresolvable (then it is not among `potential`).
    const int nominated = cluster_.FindNode(pod.nominated_node_name);
    if (nominated >= 0 &&
        std::find(potential.begin(), potential.end(), nominated) != potential.end()) {
      for (int p : cluster_.node(nominated).pods) {
        const PodSpec& other = cluster_.pod(p);
        if (other.priority < pod.priority && other.terminating && other.preempted_by_scheduler) {
          verdict.outcome = Outcome::kNotEligible;
          verdict.not_eligible = "not eligible due to a terminating pod on the nominated node.";
          return verdict;
        }
      }
    }
  }
  // Without a lower-priority pod anywhere every dry run would end at "No preemption victims
  // found": the message says so without running it.
  if (potential.empty() || !cluster_.HasBoundPodBelow(pod.priority)) return verdict;

  const std::vector<PreemptionBudget> budgets =
      budgets_ ? budgets_() : std::vector<PreemptionBudget>{};
  const int n = static_cast<int>(potential.size());
  // Upstream starts the dry run at a random node; knobsim at the first unless ties are random.
  const int offset = config_.random_tie_break
                         ? static_cast<int>(preemption_stream_.Below(static_cast<uint64_t>(n)))
                         : 0;
  const NodeFit fit = [this](const PodSpec& p, int node) { return FilterOnNode(p, node); };
  DryRunResult dry =
      DryRunPreemption(cluster_, pod, potential, offset,
                       NumPreemptionCandidates(n, config_.preemption_settings), budgets, fit);
  if (!dry.candidates.empty()) {
    const int best = PickOneNodeForPreemption(cluster_, dry.candidates);
    result.preemption = std::move(dry.candidates[static_cast<size_t>(best)]);
    verdict.outcome = Outcome::kNominated;
    return verdict;
  }
  preemption_tried_.clear();
  preemption_counted_.clear();
  for (DryRunResult::Tried& t : dry.rejected) preemption_tried_.push_back(std::move(t.status));
  for (const PluginStatus& status : preemption_tried_) {
    preemption_counted_.push_back({&status, 1});
  }
  verdict.outcome = Outcome::kDryRun;
  verdict.tried = preemption_counted_;
  return verdict;
}

}  // namespace knobsim
