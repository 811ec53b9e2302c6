// The FGD paper's placement policies (docs/fgd-policies.md §4: random, dotprod, clustering,
// packing, bestfit, fgd) inside knobsim's scheduler, for node pools whose placement names one of
// them — so `knobsim run` can set ACK's binpack beside FGD on a user's own cluster.
//
// A pool keeps ACK's GPU-share filter (card fit in gpu-mem units, gpu-core, max-pod,
// require-whole-device, aliyun.com/gpu-count over distinct cards); the policy replaces ACK's
// card score and card choice there. It sees the cluster in milli-GPU
// (sim/scheduler/fgd/milli_view.h) and runs the same Policy objects as `knobsim replay`, so its
// scores are the paper's.
//
// Assumptions (named settings in SchedulerConfig, documented in docs/scenario.md):
//  * The policy's score plugin ("PlacementPolicy") has weight placement_policy_weight, default
//    1000 as in the paper's configuration. The paper runs it alone; knobsim keeps
//    kube-scheduler's default scores beside it, whose weighted sum (at most 1000 together) then
//    separates mostly nodes the policy scores alike.
//  * It scores GPU pods, and CPU-only pods only when every feasible node is placed by a paper
//    policy (the paper scores CPU pods too; on a cluster with CPU pools, comparing a policy
//    score with nodes it does not apply to would pull CPU pods onto GPU nodes). Nodes placed by
//    ACK score 0 in it.
//  * BestFit's min-max normalisation runs over the feasible BestFit nodes; Random draws one
//    feasible Random node per cycle (Go's math/rand seeded with SchedulerConfig::seed) and
//    gives it 100.
//  * FGD's typical pods (§5.1) come from SchedulerConfig::target_workload, converted per card
//    size; without one, from the pods bound when FGD first scores plus that pod, then fixed.
//  * The card choice is the policy's (milli-GPU); where it is not a set ACK would accept in
//    units (a gpu-core or require-whole-device pod, a multi-card share the paper would stack on
//    one card), ACK's binpack choice is taken instead and counted in fallbacks().
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/fgd/go_rand.h"
#include "sim/scheduler/fgd/milli_view.h"
#include "sim/scheduler/fgd/policy.h"
#include "sim/scheduler/framework.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {

// The paper's policy for a placement value; nullopt for ACK's and the extender's.
std::optional<fgd::PolicyKind> PaperPolicyKind(CardPolicy policy);

// percentageOfNodesToScore when none is set: 100 where a node of `cluster` uses one of the
// paper's placements (the paper's simulator scores every node), else upstream's adaptive 0.
int DefaultPercentageOfNodesToScore(const ClusterState& cluster, const SchedulerConfig& config);

class PolicyPlacement {
 public:
  explicit PolicyPlacement(const SchedulerConfig& config);
  ~PolicyPlacement();
  PolicyPlacement(const PolicyPlacement&) = delete;
  PolicyPlacement& operator=(const PolicyPlacement&) = delete;

  // The node's paper policy; nullopt when ACK (or the extender) places its cards, or when the
  // node has no cards.
  std::optional<fgd::PolicyKind> PolicyOn(const ClusterState& cluster, int node) const;

  // The policy's raw score of `node` for `pod` (0..100; BestFit before normalisation, Random 0).
  // Call Prepare once per cycle before.
  int Score(const PodSpec& pod, const ClusterState& cluster, int node);
  // Per-cycle preparation: the model table when the node list changed, FGD's typical pods.
  void Prepare(const PodSpec& pod, const ClusterState& cluster);

  // The card(s) the node's policy gives `pod` on `node` (Reserve), checked against ACK's fit.
  CardPlacementResult ChooseCards(const PodSpec& pod, const ClusterState& cluster, int node);

  // Go's math/rand as the paper's Random draws from it.
  fgd::GoRand& rng() { return rng_; }
  int fallbacks() const { return fallbacks_; }

 private:
  fgd::Policy& PolicyFor(fgd::PolicyKind kind, int card_units);
  fgd::PodRequest RequestOn(const PodSpec& pod, int card_units) const;

  SchedulerConfig config_;
  fgd::GoRand rng_;
  fgd::ModelTable models_;
  size_t models_for_nodes_ = 0;
  bool types_fixed_ = false;
  std::vector<fgd::TargetPod> targets_;
  // FGD's typical pods per card size (a pod's share of a card depends on the card's units).
  std::map<int, std::vector<fgd::TypicalPod>> types_;
  std::map<std::pair<fgd::PolicyKind, int>, std::unique_ptr<fgd::Policy>> policies_;
  int fallbacks_ = 0;
};

// The score plugin over a PolicyPlacement the Scheduler owns.
std::unique_ptr<ScorePlugin> NewPlacementPolicyScore(PolicyPlacement& placement,
                                                     const SchedulerConfig& config);

}  // namespace knobsim
