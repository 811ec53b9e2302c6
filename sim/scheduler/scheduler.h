// Scheduler: one scheduling cycle per pod, kube-scheduler's way, with ACK card placement (or
// one of the FGD paper's, per node pool: policy_placement.h).
//
// PreFilter runs first: a rejection there is the whole message, and a plugin's PreFilterResult
// (NodeAffinity's matchFields pin) leaves only its nodes to filter. On 100+ nodes only a sample
// is filtered (node_sample.h: percentageOfNodesToScore, the rotating start). Filters run in
// upstream order and a node stops at the first plugin that rejects it (NodeUnschedulable,
// TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, VolumeRestrictions, VolumeBinding,
// VolumeZone, PodTopologySpread, InterPodAffinity, the GPU-share filter, then HAMi's extender
// for pods with HAMi requests, which picks the node itself: hami_devices.h). Feasible nodes are
// scored by every score plugin, normalised, weighted (TaintToleration 3, NodeAffinity 2,
// NodeResourcesFit 1, PodTopologySpread 2, InterPodAffinity 2, BalancedAllocation 1,
// ImageLocality 1, GPU share and PlacementPolicy — settings) and summed; the highest total wins,
// ties to the lowest node index by default or uniformly at random (seeded) as upstream does. A
// pod that fits nowhere gets the FailedScheduling message of docs/semantics.md §3.7.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/random_stream.h"
#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/fgd/milli_view.h"
#include "sim/scheduler/framework.h"
#include "sim/scheduler/preemption.h"

namespace knobsim {

class PolicyPlacement;

struct SchedulerConfig {
  KubeVersion kube_version;
  bool random_tie_break = false;  // upstream breaks ties at random; default: lowest index
  uint64_t seed = 1;              // for the random tie-break
  CardPolicy default_placement = CardPolicy::kBinpack;  // nodes without ack.node.gpu.placement
  bool extender_best_fit = false;  // legacy gpushare extender card choice instead of the plugin
  int gpu_share_weight = 1;        // weight of the GPU-share score (unconfirmed for ACK: a setting)
  std::string node_resources_strategy = "LeastAllocated";  // or "MostAllocated"
  // InterPodAffinityArgs.hardPodAffinityWeight (0..100, upstream default 1): what an existing
  // pod's required affinity term adds to the score of the incoming pod it matches.
  int hard_pod_affinity_weight = 1;
  int policy0_max_inst = 0;  // POLICY 0's implicit max-pod per card (0 = none)
  // ACK's enableMemoryCoreMixSchedule: let gpu-mem-only pods onto nodes that also offer
  // gpu-core.percentage (off by default, as in ACK's plugin, docs/semantics.md §1.5 B).
  bool enable_memory_core_mix = false;
  // KubeSchedulerConfiguration.percentageOfNodesToScore (node_sample.h): 0 = upstream's adaptive
  // default (on 100+ nodes the search stops after 50 % - nodes/125, at least 5 %, at least 100
  // feasible nodes, and the next cycle starts where it stopped); 100 = filter and score every
  // node.
  int percentage_of_nodes_to_score = 0;
  // The FGD paper's placements (policy_placement.h): the weight of their score plugin (the
  // paper's 1000; an assumption beside the default scores), and the workload FGD's typical pods
  // are drawn from (every replica the cluster is meant to hold; empty = the pods bound when FGD
  // first scores).
  int placement_policy_weight = 1000;
  std::shared_ptr<const std::vector<fgd::TargetPod>> target_workload;
  // DefaultPreemption (preemption.h): a pod that fits nowhere may nominate a node and name the
  // lower-priority pods to evict there. false: a profile without it (no "preemption:" part).
  bool preemption = true;
  PreemptionSettings preemption_settings;
};

// Nodes that gave one status, for the FailedScheduling message.
struct CountedStatus {
  const PluginStatus* status;
  int64_t nodes;
};

// What DefaultPreemption said about a pod that fits nowhere, for the message's "preemption: "
// part (docs/semantics.md §3.7, §3.12).
struct PreemptionVerdict {
  enum class Outcome {
    kNoVictimAnywhere,  // no lower-priority pod on any node: each node rejected as Unschedulable
                        // "No preemption victims found for incoming pod", the others "not
                        // helpful" (the dry run's answer, without running it)
    kNotEligible,       // `not_eligible` is the whole part
    kDryRun,     // `tried`: the status of each node the dry run tried; the rest "not helpful"
    kNominated,  // a node was nominated: no preemption part
    kDisabled,   // no DefaultPreemption in the profile: no preemption part
  };
  Outcome outcome = Outcome::kNoVictimAnywhere;
  std::string not_eligible;  // "not eligible due to preemptionPolicy=Never."
  std::span<const CountedStatus> tried;
};

// One node's verdict in one cycle, for --explain.
struct NodeVerdict {
  int node = -1;
  // false: the search stopped before this node (percentageOfNodesToScore), no plugin ran on it
  bool evaluated = true;
  std::string failed_plugin;  // empty when feasible or not evaluated
  PluginStatus status;
  struct PluginScore {
    std::string plugin;
    int64_t raw = 0;
    int64_t normalized = 0;
    int weight = 0;
  };
  std::vector<PluginScore> scores;
  int64_t total = 0;

  bool feasible() const { return evaluated && failed_plugin.empty(); }
};

struct ScheduleResult {
  Placement placement;               // node -1 when unschedulable
  std::string message;               // FailedScheduling text when unschedulable
  std::vector<NodeVerdict> explain;  // filled when asked
  // What a pod's line reports, with or without --explain and equal to what the explain record
  // says: the nodes the search reached (every node present when the pod is unschedulable), the
  // feasible ones, and the winner's total as --explain sums it (every upstream plugin, skipped
  // ones at their constant; 0 when unschedulable or not asked for).
  int evaluated = 0;
  int feasible = 0;
  int64_t score = 0;
  // Unschedulable, with a preemption that helps: the node to nominate and the pods to evict
  // there (node -1 otherwise). The message is then the filters' alone, as upstream's.
  PreemptionCandidate preemption;
  // Placed on its status.nominatedNodeName, which passed every filter: no other node was tried.
  bool on_nominated_node = false;
};

class Scheduler {
 public:
  Scheduler(ClusterState& cluster, SchedulerConfig config);
  ~Scheduler();

  // Finds a placement for `pod` without binding it. The explain record when `explain`; the
  // winner's score (ScheduleResult::score) with it or when `score` (outside --explain it costs a
  // few plugin calls on the winner, which a simulation's placements do without).
  ScheduleResult Schedule(const PodSpec& pod, bool explain = false, bool score = false);
  // Schedules and, when it fits, binds. Returns the result (placement.node -1 = Pending).
  ScheduleResult ScheduleAndBind(const PodSpec& pod, bool explain = false, bool score = false);

  const SchedulerConfig& config() const { return config_; }

  // The PodDisruptionBudgets preemption weighs, asked for only when a dry run has victims to
  // weigh (their disruptionsAllowed moves as pods come and go). None by default.
  using BudgetSource = std::function<std::vector<PreemptionBudget>()>;
  void SetBudgetSource(BudgetSource source) { budgets_ = std::move(source); }

  // The filters' verdict for `pod` on one node as the cluster is now: PreFilter (when
  // `pre_filter`), then every filter in order, the first rejection returned. The nominated node's
  // check and preemption's dry run use it; it leaves the cycle's own verdicts alone.
  PluginStatus FilterOnNode(const PodSpec& pod, int node, bool pre_filter = true);

 private:
  struct Cycle;     // per-cycle scratch and the node equivalence classes, reused across pods
  struct PodClass;  // one equivalence class's cached filter verdicts and scores, by node

  // The steps of Schedule, in order; each works on the Cycle.
  // PreFilter: false when a plugin rejects the pod (result then holds the message).
  bool PassesPreFilter(const PodSpec& pod, bool explain, ScheduleResult& result);
  // After PreFilter: marks the nodes of the plugins' PreFilter results (Cycle), or rejects the
  // pod when those results have no node name in common.
  PluginStatus NarrowToPreFilterResult();
  // The node walk: each node's first rejecting filter, and the feasible nodes in index order.
  void FilterNodes(const PodSpec& pod, PodClass& cls);
  // No node feasible: the FailedScheduling message (and each node's rejection for --explain).
  void ReportUnschedulable(const PodSpec& pod, PodClass& cls, bool explain, ScheduleResult& result);
  const PluginStatus& RejectionStatus(const PodSpec& pod, PodClass& cls, int node);
  std::string RejectingPlugin(int node) const;
  // Score: the weighted sum of every active plugin over the feasible nodes, and its winner.
  void ScoreFeasibleNodes(const PodSpec& pod, PodClass& cls, bool explain);
  int HighestScoredNode();
  // The winner's total as --explain sums it, from a cycle scored without --explain (`scored`:
  // more than one node was feasible) or not scored at all (a lone feasible node).
  int64_t ExplainedTotal(const PodSpec& pod, int winner, bool scored);
  // `extender_node` >= 0: HAMi's extender chose that node, unscored; the other feasible nodes
  // are shown as dropped by it.
  void ExplainScoredCycle(const PodSpec& pod, PodClass& cls, ScheduleResult& result,
                          int extender_node = -1);
  // The cards (and DRA devices) on the winning node, into result.placement.
  void ChooseCardsOn(const PodSpec& pod, int winner, ScheduleResult& result);
  // ACK's or the paper policy's card choice for pods that are not HAMi's.
  void ChooseSharedCards(const PodSpec& pod, int winner, ScheduleResult& result);
  // The pod's nominated node when it passes every filter (upstream evaluates it first): the
  // placement there, unscored. False when there is none or it does not fit.
  bool PlaceOnNominatedNode(const PodSpec& pod, bool explain, bool score, ScheduleResult& result);
  // DefaultPreemption's PostFilter for a pod the filters rejected everywhere: fills
  // result.preemption and returns what the message says about it. `potential`: the nodes
  // rejected as Unschedulable (preemption might help there), in the node tree's order.
  PreemptionVerdict Preempt(const PodSpec& pod, std::span<const int> potential,
                            ScheduleResult& result);
  // Whether a dry run could find a victim at all (preemption on, the pod may preempt, some bound
  // pod has a lower priority); when not, Preempt answers from the filters' codes alone and
  // needs no list of potential nodes.
  bool MayHaveVictims(const PodSpec& pod) const;

  ClusterState& cluster_;
  SchedulerConfig config_;
  RandomStream tie_stream_;
  std::vector<std::unique_ptr<FilterPlugin>> filters_;
  DynamicResourcesPlugin* dynamic_resources_ = nullptr;  // one of filters_
  std::vector<std::unique_ptr<ScorePlugin>> scores_;
  std::unique_ptr<PolicyPlacement> policy_placement_;  // the paper's policies, where pools use them
  std::unique_ptr<Cycle> cycle_;
  BudgetSource budgets_;
  RandomStream preemption_stream_;  // the dry run's starting node, with random_tie_break
  // The last dry run's status per node it tried, and those counted for the message (the
  // verdict Preempt returns points into them until the next cycle).
  std::vector<PluginStatus> preemption_tried_;
  std::vector<CountedStatus> preemption_counted_;
};

// "0/N nodes are available: <histogram>. preemption: ..." from per-node statuses (§3.7).
// `pre_filter` is set when a PreFilter rejected the pod (its reasons then replace the histogram).
// `preemption_never`: the pod has preemptionPolicy Never (the suffix then says it may not preempt).
std::string FailedSchedulingMessage(int num_nodes, const std::vector<PluginStatus>& node_statuses,
                                    const KubeVersion& version,
                                    const PluginStatus* pre_filter = nullptr,
                                    bool preemption_never = false);
// The same from each distinct status and the number of nodes that gave it (CountedStatus).
std::string FailedSchedulingMessageFromCounts(int num_nodes,
                                              std::span<const CountedStatus> node_statuses,
                                              const KubeVersion& version,
                                              const PluginStatus* pre_filter = nullptr,
                                              bool preemption_never = false);
// The same with what DefaultPreemption answered (preemption.h).
std::string FailedSchedulingMessageFromCounts(int num_nodes,
                                              std::span<const CountedStatus> node_statuses,
                                              const KubeVersion& version,
                                              const PluginStatus* pre_filter,
                                              const PreemptionVerdict& preemption);

// The status of a node outside the PreFilter result of `plugins` (sorted names), as the release
// gives it: "node(s) didn't satisfy plugin(s) [NodeAffinity]" since 1.32 (kubernetes#126022),
// no reason of its own in 1.27-1.31 (#125197, back-ported to the 1.27+ patch releases) and 1.24,
// "node is filtered out by the prefilter result" in 1.25-1.26 (#119779's back-port). Always
// UnschedulableAndUnresolvable: preemption cannot help there.
PluginStatus OutsidePreFilterResultStatus(const KubeVersion& version,
                                          const std::vector<std::string>& plugins);
// PreFilter results of `plugins` (sorted names) that share no node name: upstream
// RunPreFilterPlugins' rejection, "node(s) didn't satisfy plugin X" for one plugin,
// "... plugin(s) [X Y] simultaneously" for several.
PluginStatus PreFilterResultsConflict(const std::vector<std::string>& plugins);

}  // namespace knobsim
