// The scheduling cycle (docs/semantics.md §3.1): PreFilter, Filter in upstream order stopping at a
// node's first rejecting plugin, PreScore / Score / Normalize over the feasible nodes, the
// weighted sum, the highest total, then the ACK card choice on the winning node.
//
// Speed (issue 3: >= 50 000 pods/s on 1 213 nodes; issue 23: 5 000 nodes) comes from these,
// none of which can change the node chosen:
//  * The equivalence cache (pod_equivalence.h): every plugin but VolumeRestrictions,
//    PodTopologySpread and InterPodAffinity is node-local — its answer on a node depends only on
//    the pod and that node's own state — so per pod class and node the Scheduler keeps the first
//    rejecting node-local filter and the raw scores, and recomputes them only where
//    NodeState::generation moved since. Replicas of a workload then cost a few table reads per
//    node.
//  * Skipped scores: after PreScore a plugin may say every feasible node gets the same
//    normalised score (ScorePlugin::Skipped: upstream's PreScore Skip, e.g. NodeAffinity without
//    preferred terms, or a constant, e.g. TaintToleration where no node has a PreferNoSchedule
//    taint). Adding the same number to every node changes neither the maximum nor the ties, so
//    outside --explain such plugins are left out. --explain runs every plugin, so its totals are
//    the full sums (upstream's skipped plugins contribute 0 there too; knobsim's constant skips
//    show their constant).
//  * Plugins that score 0..100 themselves (NodeResourcesFit, BalancedAllocation, GPU share:
//    no Normalize) go into one cached weighted sum per node; only the normalising ones keep
//    per-node arrays.
//  * Fixed verdicts: TaintToleration and NodeAffinity read only what a node keeps for life
//    (labels, name, taints) and the pod's tolerations or node affinity, so their verdicts are
//    kept by those inputs (Cycle::fixed) and shared by every class: a class new to the cycle —
//    a workload's first pod, or one of more workloads than the classes kept — reads them.
//  * No allocation per node: the per-cycle vectors live in Cycle and keep their capacity.
//  * A pod that fits nowhere: each class keeps its node-local rejection statuses (one copy of
//    each distinct one), so the message counts statuses instead of rerunning filters; and while
//    the cluster's revision has not moved, the next pod of the class that only node-local
//    filters judge gets the class's last message without the walk.
// As upstream, a single feasible node is taken without scoring.
//
// The node sample (node_sample.h): nodes are filtered in the node tree's order from the rotating
// start index until NumFeasibleNodesToFind nodes are feasible (41 % of 1 213 nodes by default);
// only those are scored, in node index order (so "ties to the lowest index" still holds).
#include "sim/scheduler/scheduler.h"
#include "sim/scheduler/dra/extended_resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "sim/scheduler/gpu_share_plugin.h"
#include "sim/scheduler/hami_devices.h"
#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/node_sample.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/pod_equivalence.h"
#include "sim/scheduler/policy_placement.h"
#include "sim/scheduler/scheduler_cycle.h"
#include "sim/text.h"

namespace knobsim {
using namespace scheduler_internal;  // NOLINT(google-build-using-namespace): this file's own

namespace {

bool HasConstraint(const PodSpec& pod, std::string_view when);

// Which of the filters that look beyond the node run for `pod` in this cycle (after PreFilter);
// true when any does.
bool ClusterWideFilters(const std::vector<std::unique_ptr<FilterPlugin>>& filters,
                        const PodSpec& pod, bool (&on)[kNumFilters]) {
  std::fill(std::begin(on), std::end(on), false);
  on[kVolumeRestrictionsFilter] = !filters[kVolumeRestrictionsFilter]->Skipped();
  on[kPodTopologySpreadFilter] = HasConstraint(pod, "DoNotSchedule");
  on[kInterPodAffinityFilter] = !filters[kInterPodAffinityFilter]->Skipped();
  on[kDynamicResourcesFilter] = !filters[kDynamicResourcesFilter]->Skipped();
  return on[kVolumeRestrictionsFilter] || on[kPodTopologySpreadFilter] ||
         on[kInterPodAffinityFilter] || on[kDynamicResourcesFilter];
}

// Filter f's verdict on `node`; `fixed` (FixedVerdictSlot) keeps it for the node's life.
bool PassesFilter(const FilterPlugin& filter, const PodSpec& pod, const ClusterState& cluster,
                  int node, std::vector<int8_t>* fixed) {
  if (fixed == nullptr) return filter.Filter(pod, cluster, node).ok();
  int8_t& verdict = (*fixed)[static_cast<size_t>(node)];
  if (verdict < 0) verdict = filter.Filter(pod, cluster, node).ok() ? 1 : 0;
  return verdict == 1;
}

bool HasConstraint(const PodSpec& pod, std::string_view when) {
  return std::any_of(
      pod.topology_spread.begin(), pod.topology_spread.end(),
      [&](const TopologySpreadConstraint& c) { return c.when_unsatisfiable == when; });
}

}  // namespace

Scheduler::Scheduler(ClusterState& cluster, SchedulerConfig config)
    : cluster_(cluster),
      config_(std::move(config)),
      tie_stream_(config_.seed, "scheduler/tie-break"),
      cycle_(std::make_unique<Cycle>()),
      preemption_stream_(config_.seed, "scheduler/preemption") {
  policy_placement_ = std::make_unique<PolicyPlacement>(config_);
  const KubeVersion& version = config_.kube_version;
  filters_.push_back(NewNodeUnschedulableFilter());
  filters_.push_back(NewTaintTolerationFilter(version));
  filters_.push_back(NewNodeAffinityFilter(version));
  filters_.push_back(NewNodePortsFilter());
  filters_.push_back(NewNodeResourcesFitFilter(version));
  filters_.push_back(NewVolumeRestrictionsFilter());
  filters_.push_back(NewVolumeBindingFilter());
  filters_.push_back(NewVolumeZoneFilter());
  filters_.push_back(NewPodTopologySpreadFilter());
  filters_.push_back(NewInterPodAffinityFilter());
  std::unique_ptr<DynamicResourcesPlugin> dra = NewDynamicResourcesFilter(version);
  dynamic_resources_ = dra.get();
  filters_.push_back(std::move(dra));
  filters_.push_back(NewGpuShareFilter(config_));
  filters_.push_back(NewHamiFilter());
  scores_.push_back(NewTaintTolerationScore());
  scores_.push_back(NewNodeAffinityScore());
  scores_.push_back(NewNodeResourcesFitScore(config_.node_resources_strategy));
  scores_.push_back(NewPodTopologySpreadScore());
  scores_.push_back(NewInterPodAffinityScore(config_.hard_pod_affinity_weight));
  scores_.push_back(NewDynamicResourcesScore(*dynamic_resources_, version));
  scores_.push_back(NewBalancedAllocationScore());
  scores_.push_back(NewImageLocalityScore());
  scores_.push_back(NewGpuShareScore(config_));
  scores_.push_back(NewPlacementPolicyScore(*policy_placement_, config_));
}

Scheduler::~Scheduler() = default;

ScheduleResult Scheduler::Schedule(const PodSpec& pod, bool explain, bool score) {
  Cycle& cy = *cycle_;
  ScheduleResult result;
  if (!PassesPreFilter(pod, explain, result)) {
    result.evaluated = cluster_.present_count();
    return result;
  }
  if (!pod.nominated_node_name.empty() && PlaceOnNominatedNode(pod, explain, score, result)) {
    return result;
  }
  PodClass& cls = cy.ClassFor(pod, cluster_, cy.use_cache && !explain);
  // Only node-local filters judge the pod, on every node: the class's last unschedulable verdict
  // holds while the cluster is as it was (the walk would leave the sample's start where it is).
  bool cluster_wide[kNumFilters];
  const bool node_local = !explain && cy.use_cache && cy.in_pre_filter_result.empty() &&
                          pod.nominated_node_name.empty() &&
                          !ClusterWideFilters(filters_, pod, cluster_wide);
  const bool never = pod.preemption_policy == "Never";
  if (node_local && cls.unschedulable.revision == cluster_.revision() &&
      cls.unschedulable.preemption_never == never && cls.unschedulable.priority == pod.priority) {
    result.message = cls.unschedulable.message;
    result.evaluated = cluster_.present_count();
    return result;
  }
  FilterNodes(pod, cls);
  if (cy.error_filter >= 0) {
    // Upstream's RunFilterPlugins wraps the error and the cycle ends with it (a SchedulerError),
    // without a PostFilter: the FailedScheduling text is the error's.
    result.message =
        fmt::format("running \"{}\" filter plugin: {}", filters_[cy.error_filter]->Name(),
                    fmt::join(cy.error.reasons, ", "));
    result.evaluated = cy.evaluated;
    return result;
  }
  result.evaluated = cy.evaluated;
  result.feasible = static_cast<int>(cy.feasible.size());
  if (cy.feasible.empty()) {
    ReportUnschedulable(pod, cls, explain, result);
    // A dry run restores the cluster under a new revision: the verdict holds from there on. A
    // nomination does not repeat (its victims go).
    if (node_local && result.preemption.node < 0) {
      cls.unschedulable = {cluster_.revision(), never, pod.priority, result.message};
    }
    return result;
  }
  if (!pod.hami.empty()) {
    // HAMi's extender answers its Filter with the one node its policy ranks first
    // (hami_devices.h), so kube-scheduler has a lone feasible node and takes it unscored.
    const int winner = ChooseHamiNode(pod, cluster_, cy.feasible);
    result.feasible = 1;
    if (explain) ExplainScoredCycle(pod, cls, result, winner);
    ChooseCardsOn(pod, winner, result);
    return result;
  }
  // Score. Upstream takes a lone feasible node without scoring it.
  int winner = cy.feasible[0];
  const bool scored = cy.feasible.size() > 1 || explain;
  if (scored) {
    ScoreFeasibleNodes(pod, cls, explain);
    winner = HighestScoredNode();
    if (explain) ExplainScoredCycle(pod, cls, result);
  }
  if (explain) {
    const auto at = std::lower_bound(cy.feasible.begin(), cy.feasible.end(), winner);
    result.score = cy.total[static_cast<size_t>(at - cy.feasible.begin())];
  } else if (score) {
    result.score = ExplainedTotal(pod, winner, scored);
  }
  ChooseCardsOn(pod, winner, result);
  return result;
}

// PreFilter: a rejection there holds for every node (§3.7 step 2).
bool Scheduler::PassesPreFilter(const PodSpec& pod, bool explain, ScheduleResult& result) {
  const int num_nodes = static_cast<int>(cluster_.nodes().size());
  auto reject_in_pre_filter = [&](const PluginStatus& status, std::string_view plugin) {
    // Every node carries the PreFilter status: preemption may help on all of them or none.
    std::vector<int> potential;
    if (status.code == StatusCode::kUnschedulable && MayHaveVictims(pod)) {
      for (int i = 0; i < num_nodes; ++i) {
        if (!cluster_.node(i).absent) potential.push_back(i);
      }
    }
    const PreemptionVerdict verdict = Preempt(pod, potential, result);
    // A pod with claims shows the cluster runs DRA: its PostFilter speaks (its PreFilter did not
    // get to the claims, so it has none to deallocate).
    KubeVersion version = config_.kube_version;
    version.dra = version.dra || !pod.resource_claims.empty();
    result.message =
        FailedSchedulingMessageFromCounts(cluster_.present_count(), {}, version, &status, verdict);
    if (!explain) return;
    for (int i = 0; i < num_nodes; ++i) {
      if (cluster_.node(i).absent) continue;
      NodeVerdict& v = result.explain.emplace_back();
      v.node = i;
      v.failed_plugin = plugin;
      v.status = status;
    }
  };
  for (const auto& filter : filters_) {
    PluginStatus status = filter->PreFilter(pod, cluster_);
    if (status.ok()) continue;
    if (status.code == StatusCode::kError) {
      // Upstream's RunPreFilterPlugins wraps it; the cycle ends there, without a PostFilter.
      result.message = fmt::format("running PreFilter plugin \"{}\": {}", filter->Name(),
                                   fmt::join(status.reasons, ", "));
      return false;
    }
    reject_in_pre_filter(status, filter->Name());
    return false;
  }
  if (PluginStatus status = NarrowToPreFilterResult(); !status.ok()) {
    reject_in_pre_filter(status, cycle_->outside_plugins);
    return false;
  }
  return true;
}

// Filter: each node stops at the first plugin that rejects it (§3.1). The node-local filters'
// verdict comes from the cache; the cluster-wide ones run when they come before that verdict
// and can reject: PodTopologySpread for a pod with a DoNotSchedule constraint, InterPodAffinity
// unless its PreFilter skipped.
void Scheduler::FilterNodes(const PodSpec& pod, PodClass& cls) {
  Cycle& cy = *cycle_;
  // Node indexes run over every slot; the walk counts the nodes present.
  const int num_nodes = static_cast<int>(cluster_.nodes().size());
  const int num_present = cluster_.present_count();
  bool cluster_wide[kNumFilters];
  const bool any_cluster_wide = ClusterWideFilters(filters_, pod, cluster_wide);
  cy.feasible.clear();
  cy.error_filter = -1;
  cy.failed_at.assign(num_nodes, kNotEvaluated);
  if (any_cluster_wide) cy.node_status.resize(num_nodes);
  // The nodes to search: the node tree's list, or the PreFilter result in that order (upstream
  // takes the result's set in map order; its order only moves the sample, and a PreFilter
  // result holds the few nodes a pod is pinned to).
  const std::vector<int>* candidates = &cy.tree_order;
  if (!cy.in_pre_filter_result.empty()) {
    cy.candidates.clear();
    for (int i : cy.tree_order) {
      if (cy.in_pre_filter_result[i]) {
        cy.candidates.push_back(i);
      } else {
        cy.failed_at[i] = kOutsidePreFilterResult;
      }
    }
    candidates = &cy.candidates;
  }
  const int num_candidates = static_cast<int>(candidates->size());
  const size_t to_find = static_cast<size_t>(
      NumFeasibleNodesToFind(config_.percentage_of_nodes_to_score, num_candidates));
  const int start = num_candidates > 0 ? static_cast<int>(cy.next_start % num_candidates) : 0;
  std::vector<int8_t>* fixed[kNumFilters] = {};
  fixed[kTaintTolerationFilter] =
      &cy.FixedVerdicts(FixedVerdictSlot(kTaintTolerationFilter), TolerationsKey(pod.tolerations));
  fixed[kNodeAffinityFilter] =
      &cy.FixedVerdicts(FixedVerdictSlot(kNodeAffinityFilter), NodeAffinityKey(pod));
  int processed = 0;
  size_t found = 0;
  for (int j = 0; j < num_candidates; ++j) {
    const int i = (*candidates)[(start + j) % num_candidates];
    PodClass::NodeMemo& memo = cls.nodes[i];
    const uint64_t generation = cluster_.node(i).generation;
    if (memo.generation != generation) {
      memo.generation = generation;
      memo.score_epoch = 0;
      memo.verdict = -1;
      memo.status = -1;
      for (int f = 0; f < kNumFilters; ++f) {
        if (IsClusterWideFilter(f)) continue;
        if (!PassesFilter(*filters_[f], pod, cluster_, i, fixed[f])) {
          memo.verdict = f;
          break;
        }
      }
    }
    int verdict = memo.verdict;
    for (int f : {kVolumeRestrictionsFilter, kPodTopologySpreadFilter, kInterPodAffinityFilter,
                  kDynamicResourcesFilter}) {
      if (!cluster_wide[f] || (verdict >= 0 && verdict < f)) continue;
      PluginStatus status = filters_[f]->Filter(pod, cluster_, i);
      if (status.code == StatusCode::kError) {
        cy.error = std::move(status);
        cy.error_filter = f;
        break;
      }
      if (!status.ok()) {
        verdict = f;
        cy.node_status[i] = std::move(status);
      }
    }
    // An error aborts the search (upstream cancels the parallel walk on the first one).
    if (cy.error_filter >= 0) break;
    // Upstream cancels the search at the first feasible node beyond the count; that node is
    // neither kept nor counted as processed, the rejected ones before it are.
    if (verdict < 0 && found == to_find) break;
    cy.failed_at[i] = verdict;
    if (verdict < 0) ++found;
    ++processed;
  }
  // Upstream advances the start by the nodes processed, modulo every node of the cluster.
  if (num_present > 0) cy.next_start = (cy.next_start + processed) % num_present;
  // Reached: the nodes processed, and those outside the PreFilter result (rejected by it).
  cy.evaluated = processed + static_cast<int>(cy.tree_order.size()) - num_candidates;
  // The feasible nodes in index order (the walk's order is the tree's): one pass over the
  // verdicts costs less than sorting the walk's list.
  for (int i = 0; i < num_nodes && cy.feasible.size() < found; ++i) {
    if (cy.failed_at[i] < 0) cy.feasible.push_back(i);
  }
}

// A rejected node's status. A cluster-wide filter's was kept by the walk; a node-local filter's
// is asked once per class and node generation (the verdict cache keeps only which filter
// rejected), only for messages and --explain.
const PluginStatus& Scheduler::RejectionStatus(const PodSpec& pod, PodClass& cls, int node) {
  const Cycle& cy = *cycle_;
  const int f = cy.failed_at[node];
  if (f == kOutsidePreFilterResult) return cy.outside_status;
  if (IsClusterWideFilter(f)) return cy.node_status[node];
  PodClass::NodeMemo& memo = cls.nodes[node];
  if (memo.status < 0) memo.status = cls.Intern(filters_[f]->Filter(pod, cluster_, node));
  return cls.statuses[static_cast<size_t>(memo.status)];
}

// Only for nodes a filter rejected: when no node is feasible, every node was searched.
std::string Scheduler::RejectingPlugin(int node) const {
  const int f = cycle_->failed_at[node];
  if (f == kOutsidePreFilterResult) return cycle_->outside_plugins;
  return std::string(filters_[f]->Name());
}

// No feasible node: the FailedScheduling message over every node present, and each one's
// rejection for --explain. The message counts each distinct status's nodes.
void Scheduler::ReportUnschedulable(const PodSpec& pod, PodClass& cls, bool explain,
                                    ScheduleResult& result) {
  Cycle& cy = *cycle_;
  const int num_nodes = static_cast<int>(cluster_.nodes().size());
  cy.counted.clear();
  cy.count_at.clear();
  for (int i = 0; i < num_nodes; ++i) {
    if (cluster_.node(i).absent) continue;
    const PluginStatus& status = RejectionStatus(pod, cls, i);
    if (explain) {
      NodeVerdict& v = result.explain.emplace_back();
      v.node = i;
      v.failed_plugin = RejectingPlugin(i);
      v.status = status;
    }
    // Interned statuses are counted by their index; the others (cluster-wide filters, outside
    // the PreFilter result) one entry per node.
    const int32_t id = cy.failed_at[i] < kNumFilters && !IsClusterWideFilter(cy.failed_at[i])
                           ? cls.nodes[i].status
                           : -1;
    if (id < 0) {
      cy.counted.push_back({&status, 1});
      continue;
    }
    if (static_cast<size_t>(id) >= cy.count_at.size()) cy.count_at.resize(id + 1, -1);
    int& at = cy.count_at[static_cast<size_t>(id)];
    if (at < 0) {
      at = static_cast<int>(cy.counted.size());
      cy.counted.push_back({&status, 0});
    }
    ++cy.counted[static_cast<size_t>(at)].nodes;
  }
  // Preemption might help where a filter said Unschedulable (upstream NodesForStatusCode), in
  // the node tree's order.
  std::vector<int> potential;
  for (int i : cy.tree_order) {
    if (!MayHaveVictims(pod)) break;  // the message needs no list then (Preempt's fast answer)
    if (cy.failed_at[i] >= 0 && cy.failed_at[i] < kNumFilters &&
        RejectionStatus(pod, cls, i).code == StatusCode::kUnschedulable) {
      potential.push_back(i);
    }
  }
  // PostFilter: DynamicResources first (it may deallocate a claim no node would take), then
  // DefaultPreemption.
  KubeVersion version = config_.kube_version;
  if (!pod.resource_claims.empty() || dynamic_resources_->MakesExtendedResourceClaim())
    version.dra_answer = dynamic_resources_->PostFilter(pod, cluster_);
  const PreemptionVerdict verdict = Preempt(pod, potential, result);
  result.message = FailedSchedulingMessageFromCounts(cluster_.present_count(), cy.counted, version,
                                                     nullptr, verdict);
}

// PreScore, Score, Normalize and the weighted sum over the feasible nodes, into cy.total (and,
// for --explain, every active plugin's raw and normalised scores).
void Scheduler::ScoreFeasibleNodes(const PodSpec& pod, PodClass& cls, bool explain) {
  Cycle& cy = *cycle_;
  const size_t num_feasible = cy.feasible.size();
  uint32_t mask = 0;
  for (int p = 0; p < kNumScores; ++p) {
    scores_[p]->PreScore(pod, cluster_, cy.feasible);
    // --explain shows every upstream plugin, some only where they apply.
    cy.active[p] = (explain && !ExplainedOnlyWhenActive(p)) || !scores_[p]->Skipped();
    if (cy.active[p]) mask |= 1u << p;
  }
  if (mask != cls.active_mask) {
    cls.active_mask = mask;
    ++cls.score_epoch;
  }
  // Node-local scores from the cache: the self-normalised ones as one weighted sum (outside
  // explain), the normalising ones into per-node arrays.
  int64_t weight[kNumScores];
  bool in_sum[kNumScores];
  for (int p = 0; p < kNumScores; ++p) {
    weight[p] = scores_[p]->Weight();
    in_sum[p] = cy.active[p] && !explain && IsSelfNormalized(p);
    if (cy.active[p] && !in_sum[p] && !IsClusterWideScore(p) &&
        cls.raw[p].size() != cls.nodes.size()) {
      cls.raw[p].resize(cls.nodes.size());
    }
  }
  cy.total.resize(num_feasible);
  for (size_t k = 0; k < num_feasible; ++k) {
    const int i = cy.feasible[k];
    PodClass::NodeMemo& memo = cls.nodes[i];
    if (memo.score_epoch != cls.score_epoch) {
      memo.score_epoch = cls.score_epoch;
      memo.self_normalized = 0;
      for (int p = 0; p < kNumScores; ++p) {
        if (!cy.active[p] || IsClusterWideScore(p)) continue;
        const int64_t score = scores_[p]->Score(pod, cluster_, i);
        if (in_sum[p]) {
          memo.self_normalized += weight[p] * score;
        } else {
          cls.raw[p][i] = score;
        }
      }
    }
    cy.total[k] = memo.self_normalized;
  }
  for (int p = 0; p < kNumScores; ++p) {
    if (!cy.active[p] || in_sum[p]) continue;
    std::vector<int64_t>& raw = cy.raw[p];
    raw.resize(num_feasible);
    if (IsClusterWideScore(p)) {
      for (size_t k = 0; k < num_feasible; ++k) {
        raw[k] = scores_[p]->Score(pod, cluster_, cy.feasible[k]);
      }
    } else {
      for (size_t k = 0; k < num_feasible; ++k) raw[k] = cls.raw[p][cy.feasible[k]];
    }
    // Outside explain the raw scores are normalised in place; explain keeps both.
    std::vector<int64_t>& scores = explain ? cy.norm[p] : raw;
    if (explain) scores = raw;
    scores_[p]->Normalize(cy.feasible, scores);
    for (size_t k = 0; k < num_feasible; ++k) cy.total[k] += weight[p] * scores[k];
  }
}

// The highest total; ties to the lowest node index, or uniformly at random among the tied nodes
// as upstream's selectHost does (one draw over the number of ties instead of its reservoir
// sampling: the same distribution).
int Scheduler::HighestScoredNode() {
  const Cycle& cy = *cycle_;
  const int64_t best = *std::max_element(cy.total.begin(), cy.total.end());
  uint64_t pick = 0;
  if (config_.random_tie_break) {
    const auto ties = static_cast<uint64_t>(std::count(cy.total.begin(), cy.total.end(), best));
    if (ties > 1) pick = tie_stream_.Below(ties);
  }
  for (size_t k = 0; k < cy.feasible.size(); ++k) {
    if (cy.total[k] != best) continue;
    if (pick-- == 0) return cy.feasible[k];
  }
  return cy.feasible[0];
}

// Outside --explain the skipped plugins are left out of the sum (ScoreFeasibleNodes); each gives
// every feasible node the same normalised score (ScorePlugin::Skipped), so the winner's score
// normalised alone is that constant, and adding it back gives the total --explain shows. A lone
// feasible node was not scored at all: every plugin --explain shows is scored on it alone, as
// --explain itself does with one feasible node.
int64_t Scheduler::ExplainedTotal(const PodSpec& pod, int winner, bool scored) {
  const Cycle& cy = *cycle_;
  const std::span<const int> alone(&winner, 1);
  int64_t total = 0;
  if (scored) {
    const auto at = std::lower_bound(cy.feasible.begin(), cy.feasible.end(), winner);
    total = cy.total[static_cast<size_t>(at - cy.feasible.begin())];
  }
  for (int p = 0; p < kNumScores; ++p) {
    if (scored && cy.active[p]) continue;  // already in the total
    if (!scored) scores_[p]->PreScore(pod, cluster_, alone);
    const bool shown = !ExplainedOnlyWhenActive(p) || !scores_[p]->Skipped();
    if (!shown) continue;
    int64_t score = scores_[p]->Score(pod, cluster_, winner);
    scores_[p]->Normalize(alone, std::span<int64_t>(&score, 1));
    total += scores_[p]->Weight() * score;
  }
  return total;
}

// --explain of a scored cycle: each node present, not evaluated, rejected or with its scores.
void Scheduler::ExplainScoredCycle(const PodSpec& pod, PodClass& cls, ScheduleResult& result,
                                   int extender_node) {
  const Cycle& cy = *cycle_;
  const int num_nodes = static_cast<int>(cluster_.nodes().size());
  size_t k = 0;
  for (int i = 0; i < num_nodes; ++i) {
    if (cluster_.node(i).absent) continue;
    NodeVerdict& v = result.explain.emplace_back();
    v.node = i;
    if (cy.failed_at[i] == kNotEvaluated) {
      v.evaluated = false;
      continue;
    }
    if (cy.failed_at[i] >= 0) {
      v.failed_plugin = RejectingPlugin(i);
      v.status = RejectionStatus(pod, cls, i);
      continue;
    }
    if (extender_node >= 0) {
      if (i == extender_node) continue;
      v.failed_plugin = filters_[kHamiFilter]->Name();
      v.status = PluginStatus::Unschedulable("HAMi's node policy chose node " +
                                             cluster_.node(extender_node).spec.name);
      continue;
    }
    for (int p = 0; p < kNumScores; ++p) {
      if (!cy.active[p]) continue;
      NodeVerdict::PluginScore& s = v.scores.emplace_back();
      s.plugin = scores_[p]->Name();
      s.raw = cy.raw[p][k];
      s.normalized = cy.norm[p][k];
      s.weight = scores_[p]->Weight();
    }
    v.total = cy.total[k];
    ++k;
  }
}

// The card(s) on the winning node: the node's paper policy, or ACK's card choice by the same
// policy the GPU-share filter accepted it with.
void Scheduler::ChooseCardsOn(const PodSpec& pod, int winner, ScheduleResult& result) {
  if (!pod.hami.empty()) {
    result.placement = HamiPlacement(winner, FitHamiPod(pod, cluster_.node(winner)));
  } else if (pod.whole_gpus > 0 &&
             dra::DelegatedToDra(dra::WholeGpuResource(pod), cluster_.node(winner).spec,
                                 cluster_.dra().classes(), config_.kube_version.minor)) {
    result.placement.node = winner;  // its GPUs come from the claim DynamicResources makes
  } else {
    ChooseSharedCards(pod, winner, result);
  }
  // The devices DynamicResources allocates on the winner, for the bind to record.
  if (!pod.resource_claims.empty() || dynamic_resources_->MakesExtendedResourceClaim()) {
    result.placement.dra_allocations = dynamic_resources_->Allocations(cluster_, winner);
    result.placement.extended_resource_claim = dynamic_resources_->ExtendedResourceClaim(winner);
  }
}

void Scheduler::ChooseSharedCards(const PodSpec& pod, int winner, ScheduleResult& result) {
  CardPlacementResult cards = policy_placement_->ChooseCards(pod, cluster_, winner);
  if (!cards.choice) {
    // A programming error, not bad input: the filter and the card choice disagree about the
    // same node, so the throw stays (no input can be corrected to avoid it).
    std::string what = "GPU-share filter passed node ";
    what.append(cluster_.node(winner).spec.name).append(" but no card set fits: ");
    what.append(cards.reason);
    throw std::logic_error(what);
  }
  result.placement.node = winner;
  result.placement.cards = std::move(cards.choice->cards);
  result.placement.mem_units = std::move(cards.choice->mem_units);
  result.placement.core_units = std::move(cards.choice->core_units);
  result.placement.replicas = std::move(cards.choice->replicas);
  result.placement.bottleneck_gbps = cards.choice->bottleneck_gbps;
}

PluginStatus Scheduler::NarrowToPreFilterResult() {
  Cycle& cy = *cycle_;
  cy.in_pre_filter_result.clear();
  cy.outside_plugins.clear();
  // Upstream PreFilterResult.Merge: the intersection of every narrowing plugin's names (each
  // list sorted and unique, as PreFilterNodeNames promises).
  std::optional<std::vector<std::string>> names;
  std::vector<std::string> plugins;
  for (const auto& filter : filters_) {
    const std::vector<std::string>* own = filter->PreFilterNodeNames();
    if (own == nullptr) continue;
    plugins.emplace_back(filter->Name());
    if (!names) {
      names = *own;
    } else {
      std::vector<std::string> both;
      std::set_intersection(names->begin(), names->end(), own->begin(), own->end(),
                            std::back_inserter(both));
      *names = std::move(both);
    }
    if (names->empty()) break;
  }
  if (!names) return PluginStatus::Success();
  std::sort(plugins.begin(), plugins.end());
  cy.outside_plugins = Join(plugins);
  if (names->empty()) return PreFilterResultsConflict(plugins);
  cy.outside_status = OutsidePreFilterResultStatus(config_.kube_version, plugins);
  cy.in_pre_filter_result.assign(cluster_.nodes().size(), 0);
  for (const std::string& name : *names) {
    if (const int node = cluster_.FindNode(name); node >= 0) cy.in_pre_filter_result[node] = 1;
  }
  return PluginStatus::Success();
}

ScheduleResult Scheduler::ScheduleAndBind(const PodSpec& pod, bool explain, bool score) {
  ScheduleResult result = Schedule(pod, explain, score);
  const int node = result.placement.node;
  if (node < 0) return result;
  const uint64_t before = cluster_.node(node).generation;
  cluster_.Bind(pod, result.placement);
  // The cache is only as good as the generations; a cluster that does not keep them gets every
  // node recomputed on every cycle from now on.
  if (cluster_.node(node).generation == before) cycle_->use_cache = false;
  return result;
}

PluginStatus Scheduler::FilterOnNode(const PodSpec& pod, int node, bool pre_filter) {
  if (pre_filter) {
    for (const auto& filter : filters_) {
      if (PluginStatus status = filter->PreFilter(pod, cluster_); !status.ok()) return status;
    }
  }
  bool cluster_wide[kNumFilters];
  ClusterWideFilters(filters_, pod, cluster_wide);
  for (int f = 0; f < kNumFilters; ++f) {
    if (IsClusterWideFilter(f) && !cluster_wide[f]) continue;
    if (PluginStatus status = filters_[f]->Filter(pod, cluster_, node); !status.ok()) {
      return status;
    }
  }
  return PluginStatus::Success();
}

// Upstream's evaluateNominatedNode: a pod with status.nominatedNodeName tries that node alone
// first, and a lone feasible node is taken without scoring.
bool Scheduler::PlaceOnNominatedNode(const PodSpec& pod, bool explain, bool score,
                                     ScheduleResult& result) {
  Cycle& cy = *cycle_;
  const int node = cluster_.FindNode(pod.nominated_node_name);
  if (node < 0 || cluster_.node(node).absent) return false;
  if (!cy.in_pre_filter_result.empty() && !cy.in_pre_filter_result[node]) return false;
  if (!FilterOnNode(pod, node, /*pre_filter=*/false).ok()) return false;
  result.on_nominated_node = true;
  result.evaluated = 1;
  result.feasible = 1;
  if (explain) {
    PodClass& cls = cy.ClassFor(pod, cluster_, /*cached=*/false);
    cy.feasible.assign(1, node);
    cy.failed_at.assign(cluster_.nodes().size(), kNotEvaluated);
    cy.failed_at[node] = -1;
    ScoreFeasibleNodes(pod, cls, /*explain=*/true);
    ExplainScoredCycle(pod, cls, result);
    result.score = cy.total[0];
  } else if (score) {
    result.score = ExplainedTotal(pod, node, /*scored=*/false);
  }
  ChooseCardsOn(pod, node, result);
  return true;
}

}  // namespace knobsim
