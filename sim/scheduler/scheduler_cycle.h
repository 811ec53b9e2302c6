// The Scheduler's private state (scheduler.cpp only): the plugin positions, the per-cycle scratch
// (Cycle) and the equivalence classes' cached verdicts (PodClass). Not part of the Scheduler's
// interface; kept apart so that scheduler.cpp reads as the cycle's steps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/scheduler/node_sample.h"
#include "sim/scheduler/pod_equivalence.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace scheduler_internal {

// Positions in the plugin lists the constructor builds (upstream order, §3.1).
enum FilterIndex {
  kNodeUnschedulableFilter,
  kTaintTolerationFilter,
  kNodeAffinityFilter,
  kNodePortsFilter,
  kNodeResourcesFitFilter,
  kVolumeRestrictionsFilter,  // looks beyond the node (claims used anywhere): run every cycle
  kVolumeBindingFilter,
  kVolumeZoneFilter,
  kPodTopologySpreadFilter,  // with InterPodAffinity, looks beyond the node: run every cycle
  kInterPodAffinityFilter,
  kDynamicResourcesFilter,  // DRA: devices of slices any node may reach: run every cycle
  kGpuShareFilter,
  kHamiFilter,  // HAMi's extender: node-local (its fit reads only the node's cards)
  kNumFilters
};
enum ScoreIndex {
  kTaintTolerationScore,
  kNodeAffinityScore,
  kNodeResourcesFitScore,
  kPodTopologySpreadScore,  // the two scores that look beyond the node
  kInterPodAffinityScore,
  kDynamicResourcesScore,  // prioritized lists (1.35+); reads allocations: run every cycle
  kBalancedAllocationScore,
  kImageLocalityScore,
  kGpuShareScore,
  kPlacementPolicyScore,  // the FGD paper's policies; normalising (BestFit, Random)
  kNumScores
};

// Scores that are already 0..100 and have no Normalize (scheduler_test pins this down).
constexpr bool IsSelfNormalized(int p) {
  return p == kNodeResourcesFitScore || p == kBalancedAllocationScore || p == kGpuShareScore;
}

// Plugins whose answer on a node depends on pods elsewhere: never cached.
constexpr bool IsClusterWideFilter(int f) {
  return f == kVolumeRestrictionsFilter || f == kPodTopologySpreadFilter ||
         f == kInterPodAffinityFilter || f == kDynamicResourcesFilter;
}
constexpr bool IsClusterWideScore(int p) {
  return p == kPodTopologySpreadScore || p == kInterPodAffinityScore || p == kDynamicResourcesScore;
}
// Scores --explain lists only where they apply (not skipped for the pod): knobsim's
// PlacementPolicy (a paper policy on some feasible node), InterPodAffinity (some pod has terms
// to score) and DynamicResources (some claim has a prioritized list), so explained totals equal
// the real ones and pods without them read as before.
constexpr bool ExplainedOnlyWhenActive(int p) {
  return p == kPlacementPolicyScore || p == kInterPodAffinityScore || p == kDynamicResourcesScore;
}

// failed_at of a node outside the PreFilter result: no filter ran on it.
constexpr int kOutsidePreFilterResult = kNumFilters;
// failed_at of a node the search stopped before (percentageOfNodesToScore).
constexpr int kNotEvaluated = kNumFilters + 1;

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();  // no generation yet
constexpr size_t kMaxPodClasses = 64;
constexpr size_t kMaxStatusesPerNode = 4;  // PodClass::statuses
constexpr size_t kMaxFixedTables = 256;    // Cycle::fixed, per filter

// Node-local filters whose verdict on a node is fixed for the node's life: they read only the
// node's labels, name and taints (never changed after ClusterState::AddNode) and the pod's
// tolerations or node affinity. Their verdicts are shared by every class with the same inputs.
constexpr int FixedVerdictSlot(int f) {
  return f == kTaintTolerationFilter ? 0 : f == kNodeAffinityFilter ? 1 : -1;
}

}  // namespace scheduler_internal

// One pod equivalence class (pod_equivalence.h): what the node-local plugins said about each
// node for pods of the class, kept until the node's generation moves.
struct Scheduler::PodClass {
  struct NodeMemo {
    uint64_t generation =
        scheduler_internal::kNever;  // the node's generation the entry was computed at
    uint32_t score_epoch = 0;        // scores valid when equal to the class's (0: never)
    int verdict = -1;                // first rejecting node-local filter, -1 = all pass
    int32_t status = -1;             // that filter's status (statuses), -1 = not asked yet
    int64_t self_normalized = 0;     // Σ weight × score of the active self-normalised plugins
  };
  PodSpec pod;  // the first pod of the class; only its node-local fields matter
  uint64_t hash = 0;
  uint64_t last_used = 0;
  uint32_t active_mask = 0;  // score plugins active when the scores were cached
  uint32_t score_epoch = 1;
  std::vector<NodeMemo> nodes;
  std::vector<int64_t>
      raw[scheduler_internal::kNumScores];  // by node, for the normalising node-local plugins
  // The rejecting node-local filters' statuses, each distinct one once: an unschedulable pod's
  // message then costs a count per node instead of a filter run and its strings. A deque, so
  // the references RejectionStatus returns stay valid while more are added.
  std::deque<PluginStatus> statuses;
  std::unordered_map<std::string, int32_t> status_ids;

  int32_t Intern(PluginStatus status) {
    std::string key(1, static_cast<char>(status.code));
    for (const std::string& reason : status.reasons) key.append(1, '\0').append(reason);
    const auto [it, added] = status_ids.emplace(std::move(key), statuses.size());
    if (added) statuses.push_back(std::move(status));
    return it->second;
  }
  // The last verdict on a pod of the class that no cluster-wide filter judged and that fitted
  // nowhere: at the same cluster revision the next such pod gets the same message without the
  // walk (upstream likewise leaves an unschedulable pod alone until the cluster changes).
  struct Unschedulable {
    uint64_t revision = 0;  // ClusterState::revision() of the verdict; 0: none
    bool preemption_never = false;
    int priority = 0;  // preemption's answer depends on it
    std::string message;
  } unschedulable;

  // Forgets the statuses (between cycles only: references into them are gone by then).
  void ForgetStatuses() {
    statuses.clear();
    status_ids.clear();
    for (NodeMemo& memo : nodes) memo.status = -1;
  }
};

struct Scheduler::Cycle {
  // The cached classes are for one node list: a change of it (nodes added) clears them.
  const NodeState* nodes_data = nullptr;
  size_t num_nodes = 0;
  uint64_t membership = ~uint64_t{0};  // ClusterState::membership() tree_order was built at
  std::vector<std::unique_ptr<PodClass>> classes;
  PodClass uncached;      // for --explain and a cluster without generations: always recomputed
  bool use_cache = true;  // false once a bind is seen not to move the node's generation
  uint64_t cycles = 0;

  // The node tree's order of the node list (node_sample.h), rebuilt when the list changes, the
  // nodes a cycle filters (that order, or the PreFilter result in it), and where the next
  // cycle's search starts (upstream's nextStartNodeIndex).
  std::vector<int> tree_order;
  std::vector<int> candidates;
  int64_t next_start = 0;

  std::vector<int> feasible;
  int evaluated = 0;                       // nodes the last walk reached
  std::vector<int> failed_at;              // by node: the rejecting filter, -1 when feasible
  std::vector<char> in_pre_filter_result;  // by node; empty when PreFilter kept every node
  PluginStatus outside_status;             // for nodes outside the PreFilter result
  std::string outside_plugins;             // "NodeAffinity": the plugins that narrowed
  std::vector<PluginStatus> node_status;   // by node, from PodTopologySpread's filter
  // A filter's error status (StatusCode::kError) ended the walk: the cycle aborts with it.
  PluginStatus error;
  int error_filter = -1;
  bool active[scheduler_internal::kNumScores] = {};          // scored in this cycle (not skipped)
  std::vector<int64_t> raw[scheduler_internal::kNumScores];  // [plugin][feasible position]
  std::vector<int64_t>
      norm[scheduler_internal::kNumScores];  // [plugin][feasible position], explain only
  std::vector<int64_t> total;                // [feasible position]
  std::vector<CountedStatus> counted;        // an unschedulable pod's distinct statuses
  std::vector<int> count_at;                 // [interned status]: its entry in counted, or -1
  // The fixed verdicts (FixedVerdictSlot), by the pod's inputs (TolerationsKey,
  // NodeAffinityKey): by node, -1 not asked yet, 0 rejects, 1 passes. A class new to the cycle
  // (more workloads than kMaxPodClasses, or a workload's first pod) then reads most of its
  // verdicts instead of running the filters node by node.
  std::unordered_map<std::string, std::vector<int8_t>> fixed[2];

  // The table of `slot` for `inputs`, sized to the node list. Between pods the tables are
  // dropped when there are too many (FilterNodes takes them at the start of its walk).
  std::vector<int8_t>& FixedVerdicts(int slot, std::string inputs) {
    if (fixed[slot].size() > scheduler_internal::kMaxFixedTables) fixed[slot].clear();
    std::vector<int8_t>& table = fixed[slot][std::move(inputs)];
    table.resize(num_nodes, -1);
    return table;
  }

  PodClass& ClassFor(const PodSpec& pod, const ClusterState& cluster, bool cached) {
    const auto& nodes = cluster.nodes();
    if (nodes.data() != nodes_data || nodes.size() != num_nodes) {
      nodes_data = nodes.data();
      num_nodes = nodes.size();
      classes.clear();
      for (auto& tables : fixed) tables.clear();
      membership = ~uint64_t{0};
    }
    // Nodes leaving or joining (SetAbsent) change the list, not the nodes' memos: each such
    // node's generation moved.
    if (cluster.membership() != membership) {
      membership = cluster.membership();
      tree_order = NodeTreeOrder(nodes);
    }
    ++cycles;
    PodClass* c = &uncached;
    if (cached) {
      const uint64_t hash = NodeLocalHash(pod);
      c = nullptr;
      for (const auto& k : classes) {
        if (k->hash == hash && SameNodeLocalInputs(k->pod, pod)) {
          c = k.get();
          break;
        }
      }
      if (c == nullptr) {
        if (classes.size() < scheduler_internal::kMaxPodClasses) {
          c = classes.emplace_back(std::make_unique<PodClass>()).get();
        } else {
          c = std::min_element(classes.begin(), classes.end(), [](const auto& a, const auto& b) {
                return a->last_used < b->last_used;
              })->get();
          *c = PodClass{};
        }
        c->pod = pod;
        c->hash = hash;
      }
    } else {
      c->nodes.clear();  // forget everything
      c->active_mask = 0;
      c->ForgetStatuses();
    }
    // Texts naming a node or an amount may each be new when a node changes: the table is kept
    // to a few per node.
    if (c->statuses.size() >
        scheduler_internal::kMaxStatusesPerNode * num_nodes + scheduler_internal::kMaxPodClasses) {
      c->ForgetStatuses();
    }
    c->last_used = cycles;
    c->nodes.resize(num_nodes);
    return *c;
  }
};

}  // namespace knobsim
