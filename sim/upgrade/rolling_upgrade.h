// RollingUpgrade: `knobsim upgrade`'s procedure as a ClusterOperator (sim/engine/cluster_control.h)
// — the node-by-node reset a cGPU kernel-module upgrade needs (docs/design.md §1 item 4), while the
// simulator keeps traffic flowing:
//
//   for each node, in order, at most `max_unavailable` at a time:
//     cordon → drain (kubectl drain --ignore-daemonsets: every pod evicted through the Eviction
//     API, docs/semantics.md §4.2; a 429 retried every 5 s; `drain_timeout` > 0 gives up, uncordons
//     and puts the node back at the end of the queue) → wait for the pods to be gone →
//     reset (node down for `reset_time`: remove, reset the system disk, re-add) → node back with
//     the `after` settings → uncordon.
//
// PodDisruptionBudgets come from the scenario's `kube.pdbs`; their status is recomputed from
// the pods before every eviction (sim/controllers/disruption_budget), so an eviction sees the
// effect of the one before it. Everything it did is in `timeline()`.
//
// As kubectl drain --ignore-daemonsets --delete-emptydir-data does it: DaemonSet pods stay;
// every other pod is evicted at once, one after the other within the same instant; the drain
// is done when none of them is left, terminating ones included. A pod without a controller
// (kind Pod) fails kubectl's pre-flight check unless `force` (kubectl drain --force): the drain
// evicts nothing and fails with kubectl's message. A failed drain, and a pod two budgets select
// (HTTP 500, once that instant's evictions are done), leave the node uncordoned and never tried
// again, since nothing resolves them by itself.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sim/engine/cluster_control.h"
#include "sim/input_error.h"
#include "sim/scenario.h"

namespace knobsim {

enum class UpgradeOrder {
  kPool,      // pools in scenario order, nodes in pool order
  kZone,      // zone by zone (zones sorted by name), pool order inside a zone
  kNodeList,  // UpgradeOptions::nodes, as given
};

struct UpgradeOptions {
  UpgradeOrder order = UpgradeOrder::kPool;
  std::vector<std::string> nodes;  // kNodeList: the nodes, in order (the scope too)
  std::vector<std::string> pools;  // scope for kPool / kZone; empty: every pool with GPUs
  int max_unavailable = 1;         // nodes cordoned-to-uncordoned at once
  // When the first cordon happens; -1: once the cluster is up, i.e. the scenario's warm-up end or,
  // when later, the longest start-up (image_pull + model_load) of its workloads: the run
  // replays the start of pods that were running when the scenario was written.
  SimTime start = -1;
  SimTime reset_time = 15 * 60 * kNanosPerSecond;  // drained → back (remove, reset disk, re-add)
  // 0 waits forever, like kubectl drain's own default (--timeout=0s).
  SimTime drain_timeout = 10 * 60 * kNanosPerSecond;
  SimTime retry_interval = 5 * kNanosPerSecond;  // kubectl drain's wait after a 429
  SimTime tail = 10 * 60 * kNanosPerSecond;      // simulated after the last node is back
  bool force = false;  // kubectl drain --force: pods without a controller are deleted too
  NodeSettings after;  // what every reset node comes back with
};

// One thing that happened to a node; `what` is one of
//   cordoned, eviction-refused (the first 429 of a pod in a drain attempt), evicted, deleted
//   (deleted without the budget: not Ready, no budget), drain-timeout, drain-failed (a 500:
//   two budgets select a pod; the node is uncordoned and not tried again), uncordoned,
//   drained, reset, back.
struct NodeStep {
  SimTime at = 0;
  std::string what;
  std::string pod;     // namespace/name, for pod steps
  std::string detail;  // the 429 cause, the settings it came back with, ...
};

struct NodeUpgrade {
  std::string node;
  std::string pool;
  std::string zone;
  // upgraded | blocked (its last drain attempt timed out or failed, or it is still draining at
  // the end) |
  // in-progress (down or coming back at the end) | not-started
  std::string outcome = "not-started";
  int attempts = 0;       // drain attempts
  int refusals = 0;       // 429 answers over all attempts
  SimTime cordoned = -1;  // first cordon
  SimTime drained = -1;   // the drain that succeeded
  SimTime back = -1;      // back with the new settings and uncordoned
  std::vector<NodeStep> steps;
};

// An eviction a PodDisruptionBudget kept refusing.
struct BlockedDrain {
  std::string node;
  std::string pod;     // namespace/name
  std::string budget;  // namespace/name of the PDB
  SimTime from = 0;    // first 429
  SimTime until = -1;  // the eviction went through, or the drain gave up; -1: still at the end
  int refusals = 0;
  // The 429's DisruptionBudget cause, as the API server words it (the latest one); for a 500,
  // the error message, and `budget` lists every budget that selects the pod.
  std::string cause;
  bool gave_up = false;  // the drain timed out (or failed on a 500)
};

struct UpgradeTimeline {
  SimTime started = -1;
  SimTime finished = -1;           // the last node back; -1: not finished when the run ended
  std::vector<NodeUpgrade> nodes;  // in upgrade order
  std::vector<BlockedDrain> blocked;
};

// The nodes the upgrade touches, in order, as indexes in BuildCluster's order (pools in
// scenario order, then ordinal). The scope: `nodes` for kNodeList, else the `pools` named
// (every pool with GPUs when none is). InputError whose path names the option ("--nodes",
// "--pools", "--max-unavailable", "--reset-time", "--drain-timeout", "--retry-interval",
// "--tail") for an unknown node or pool (with a did-you-mean hint), one listed twice, an
// empty scope, `nodes` without kNodeList or `pools` with it, max_unavailable < 1, negative
// times or a retry interval that is not positive.
Expected<std::vector<int>> UpgradePlanOrder(const Scenario& scenario,
                                            const UpgradeOptions& options);

// Starts at `options.start` (the scenario's warm-up end when < 0) and asks the run to end
// `tail` after the last node is back, or once only nodes blocked for good are left.
class RollingUpgrade : public ClusterOperator {
 public:
  // `order`: UpgradePlanOrder's answer for the same scenario and options.
  RollingUpgrade(UpgradeOptions options, std::vector<int> order);
  ~RollingUpgrade() override;  // out of line: NodeRun is defined in the .cpp
  RollingUpgrade(const RollingUpgrade&) = delete;
  RollingUpgrade& operator=(const RollingUpgrade&) = delete;
  void Start(ClusterControl& cluster) override;
  void Wake(ClusterControl& cluster, uint64_t token) override;
  void PodGone(ClusterControl& cluster, int pod) override;
  // At the end of the run: settles the outcome of every node not upgraded (blocked,
  // in-progress, not-started); blocked drains still open keep `until` = -1. The cluster is not
  // needed (the overload without it serves callers that hold none once Simulate returned).
  const UpgradeTimeline& Finish(const ClusterControl& cluster);
  const UpgradeTimeline& Finish();
  const UpgradeTimeline& timeline() const { return timeline_; }

 private:
  struct NodeRun;
  void Advance(ClusterControl& cluster);  // starts nodes while slots are free
  void StartAttempt(ClusterControl& cluster, int run);
  void DrainPass(ClusterControl& cluster, int run);
  void CheckDrained(ClusterControl& cluster, int run);
  void GiveUp(ClusterControl& cluster, int run);
  void FailDrain(ClusterControl& cluster, int run, const std::string& why);
  void BringBack(ClusterControl& cluster, int run);
  void CloseBlocked(int run, SimTime at, bool gave_up);
  UpgradeOptions options_;
  std::vector<int> order_;
  UpgradeTimeline timeline_;
  std::vector<NodeRun> runs_;  // parallel to order_ and timeline_.nodes; defined in the .cpp
  std::deque<int> queue_;      // runs waiting for a slot, front first
  int in_progress_ = 0;        // runs between cordon and uncordon
  bool end_requested_ = false;
};

}  // namespace knobsim
