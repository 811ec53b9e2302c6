// The ACK GPU-share plugin (docs/semantics.md §1.5): its filter and score are built by
// NewGpuShareFilter / NewGpuShareScore (plugins.h); this header gives the Scheduler the card
// choice on the node it picked, with the same policy, max-pod limit and GPU topology the filter
// and score used.
#pragma once

#include <span>

#include "sim/kube_types.h"
#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {

// The node takes aliyun.com/gpu-mem pods: ack.node.gpu.schedule share, cgpu or core_mem, or
// per-card gpu-mem capacity (ACK's plugin goes by capacity, so an import without the label
// still shares).
bool IsGpuShareNode(const NodeSpec& node);

// The card policy on `node`: best-fit when config.extender_best_fit (the legacy extender has no
// binpack/spread), else the node's ack.node.gpu.placement, else config.default_placement (also
// for a value knobsim does not know yet, e.g. the FGD policies of issue 4).
CardPolicy NodeCardPolicy(const NodeSpec& node, const SchedulerConfig& config);

// Max pods per card: ack.node.gpu.max-pod and, where cGPU runs (cgpu / core_mem nodes without
// cgpu.disable.isolation=true), POLICY 0's implicit max_inst; the smaller when both are set;
// 0 = no limit (docs/design.md §3.2).
int MaxPodsPerCard(const NodeSpec& node, const SchedulerConfig& config);

// The card(s) `pod` takes on `node`, as PlaceOnCards with the node's policy and limit, plus the
// node's GPU topology (NodeSpec::interconnect, models/gpu_topology.h) to break ties between
// multi-card sets and fill CardChoice::bottleneck_gbps. The Scheduler calls it once on the
// winning node and binds with Placement{node, choice->cards, choice->mem_units,
// choice->core_units}.
// A paper policy's node gets ACK's binpack choice here (policy_placement.h chooses its own
// cards and falls back on this).
CardPlacementResult ChooseCards(const PodSpec& pod, const NodeState& node,
                                const SchedulerConfig& config);

// The bottleneck bandwidth (GB/s) of `cards` on `node` from its interconnect
// (models/gpu_topology.h); 0 for fewer than two cards or an unknown interconnect.
double CardSetBandwidthOf(const NodeState& node, std::span<const int> cards);

}  // namespace knobsim
