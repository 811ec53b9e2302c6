// knobsim's clusters in the units of the FGD paper's policies (docs/fgd-policies.md §1): each card
// holds 1000 milli-GPU. The fragmentation report (sim/scheduler/fgd/fragmentation_report.h) and the
// paper's policies inside knobsim's scheduler (sim/scheduler/policy_placement.h) both see a cluster
// through this one conversion, so the FGD score a placement optimises and the fragmentation
// `knobsim run` reports are the same measure.
//
// Unit mapping (an assumption: the paper only knows milli-GPU):
//  - an amount of gpu-mem units on a card of U units is MilliOfUnits(units, U): 1000·units/U
//    rounded half to even, clamped to 0..1000. One rounding rule for what is used and what is
//    asked makes "fits in milli" the same as "fits in units" on cards of fewer than 1000 units
//    (GiB-unit cards are): the rounding is symmetric about 500, so used + free stays 1000.
//  - a card held whole (nvidia.com/gpu) or filled to its units is 1000 used; a card at its
//    max-pod limit (ack.node.gpu.max-pod, POLICY 0's max_inst) is seen as full: no pod can
//    take it, which is what fragmentation is about.
//  - a gpu-mem pod asks MilliOfUnits(gpu_mem / gpu_count, U) (at least 1) on gpu_count cards;
//    an nvidia.com/gpu pod asks 1000 on each of whole_gpus cards; a pod asking neither is a
//    CPU-only pod (its request still counts in CPU, §5.2's XL/XR classes).
//  - a gpu-mem pod seen on a node without gpu-mem units (an exclusive node) cannot run there:
//    its type carries an empty model set, i.e. fragmentation class "no access" (§5.2 NA).
//  - card models come from NodeSpec::gpu_model; knobsim pods carry no model constraint (node
//    selectors do that job, through the scheduler's filters), so every type may use every model.
//  - nodes of more than kMaxCardsPerNode cards are seen through their first kMaxCardsPerNode.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/fgd/fragmentation.h"
#include "sim/scheduler/fgd/node_state.h"
#include "sim/scheduler/fgd/request.h"

namespace knobsim::fgd {

int MilliOfUnits(double units, int card_units);

// One card's free milli-GPU: 0 when held whole, filled to its units, or closed by a max-pod
// limit (`at_pod_limit`); on a card without gpu-mem units (exclusive), 0 once any pod holds it.
int CardFreeMilli(int used_units, int card_units, bool whole, bool at_pod_limit, bool occupied);

// One replica of the workload a cluster is planned for, in knobsim's units: what FGD's typical
// pods (§5.1) are drawn from.
struct TargetPod {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpu_mem = 0;  // units for the whole pod
  int gpu_count = 1;
  int whole_gpus = 0;
};

TargetPod TargetPodOf(const knobsim::PodSpec& pod);

// The pod as the policies see it on a node whose cards hold `card_units` gpu-mem units each
// (0 on exclusive nodes).
PodRequest RequestOnCards(const TargetPod& pod, int card_units);

// §5.1's typical pods of `pods` seen on cards of `card_units` units.
std::vector<TypicalPod> TypicalPodsOnCards(std::span<const TargetPod> pods, int card_units);

// The node's state in milli-GPU; `models` numbers the cluster's card models (ModelsOf),
// `max_pods_per_card` is the node's effective limit (0 = none).
NodeState MilliViewOf(const knobsim::ClusterState& cluster, int node, const ModelTable& models,
                      int max_pods_per_card);

// The card models of a cluster's nodes, in node order.
ModelTable ModelsOf(const knobsim::ClusterState& cluster);

}  // namespace knobsim::fgd
