// HAMi's scheduler extender for NVIDIA vGPUs (Project-HAMi/HAMi v2.10.0; docs/semantics.md §2.8).
//
// kube-scheduler runs its filters with HAMi's resources ignored (the chart's
// ignoredByScheduler); HAMi's Filter then fits the pod's containers on each remaining node's
// cards and returns the one node its policy ranks first. This file is that extender:
//
//  * Card fit (pkg/device/nvidia/device.go Fit): per container, the node's cards sorted by card
//    score (binpack: ascending, spread: descending; mutex: descending vGPUs held), tried from the
//    END of the list; a card is taken when it passes, in order: the type annotations
//    (nvidia.com/use-gputype, nouse-gputype: case-insensitive substring of the card type), a
//    free slot (Used < Count), under mutex no vGPU held at all,
//    the memory (gpumem MiB, else devmem × gpumem-percentage / 100), the cores, a 100-core
//    request only on an unused card, a 0-core request not on a card whose cores are all taken.
//    A container of N vGPUs takes N distinct cards; the next container sees the earlier ones'
//    usage (pkg/scheduler/score.go fitInDevices).
//  * Card score (pkg/scheduler/policy/gpu_policy.go ComputeScore), float32:
//    10 × (Used/Count + Usedcores/Totalcore + Usedmem/Totalmem); 0 when a total is 0. The request
//    adds nothing for NVIDIA cards since v2.9 (its type "NVIDIA" never equals a card's model
//    name), unlike what HAMi's docs say.
//  * Node score (pkg/scheduler/policy/node_policy.go ComputeDefaultScore), before the pod:
//    10 × (ΣUsed/ΣCount + ΣUsedcores/ΣTotalcore + ΣUsedmem/ΣTotalmem); binpack (the default
//    node policy) takes the highest, spread the lowest.
//  * A node's failure reason is HAMi's GenReason: "<n>/<cards> <Reason>" per reason, sorted,
//    joined by ", " (pkg/device/common/common.go), or NodeInsufficientDevice.
//
// HAMi breaks ties by Go map and goroutine order, which is arbitrary; knobsim's convention (a
// named assumption): equal cards keep index order before the walk from the end, so the highest
// index is tried first, and equal nodes go to the lowest node index.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {

// The scheduler's defaults (--node-scheduler-policy, --gpu-scheduler-policy: the chart's
// binpack and spread) and the pod's own annotations over them. The GPU policy `mutex` takes only
// idle cards (Fit's check "isMutex && Used > 0"), the emptiest first (DeviceUsageList.Less:
// descending Used).
enum class HamiGpuPolicy { kSpread, kBinpack, kMutex };
struct HamiPolicies {
  bool node_spread = false;  // hami.io/node-scheduler-policy: spread; anything else binpack
  HamiGpuPolicy gpu = HamiGpuPolicy::kSpread;  // hami.io/gpu-scheduler-policy; else spread
};
HamiPolicies HamiPoliciesOf(const PodSpec& pod);

// HAMi's score of one card (float32, as ComputeScore).
float HamiCardScore(const CardState& card);
// HAMi's node score (float32, as ComputeDefaultScore).
float HamiNodeScore(const NodeState& node);

// The cards each container takes: card index, MiB and cores on it (one entry per vGPU).
struct HamiDevice {
  int card = -1;
  int mem_mib = 0;
  int cores = 0;
};
struct HamiFit {
  bool fits = false;
  std::vector<std::vector<HamiDevice>> containers;  // parallel to PodSpec::hami
  std::string reason;                               // HAMi's reason when it does not fit
};
// HAMi's Fit for one container: `cards` in the order HAMi sorted them (`order`: card indexes),
// walked from the end; the cards it takes go to `taken`. Returns "" when the container fits,
// else HAMi's reason. `card_type` is what nvidia.com/use-gputype is matched against.
std::string FitHamiContainer(const PodSpec& pod, const std::string& card_type,
                             const HamiRequest& request, const std::vector<CardState>& cards,
                             std::span<const int> order, std::vector<HamiDevice>& taken);

// Fits `pod`'s HAMi requests on `node`'s cards as they are now.
HamiFit FitHamiPod(const PodSpec& pod, const NodeState& node);

// The pod on exactly `cards` of `node` (its containers' vGPUs in order, as a scenario's `pods:`
// lists them): each card must pass HAMi's checks as the node is now.
HamiFit FitHamiPodOnCards(const PodSpec& pod, const NodeState& node, std::span<const int> cards);

// A bound pod's vGPUs where its hami.io/vgpu-devices-allocated puts them (PodSpec::
// hami_allocated, mapped by the node's card UUIDs), each with its request's MiB and cores, as
// HAMi's usage cache counts them, checked against nothing: an export shows what is. Empty when
// a UUID is not the node's or the count is not the pod's.
std::optional<HamiFit> AllocatedHamiPod(const PodSpec& pod, const NodeState& node);

// The placement of a fit: each card once, with the vGPUs, MiB and cores all containers take on
// it, in the order the containers took them.
Placement HamiPlacement(int node, const HamiFit& fit);

// HAMi's node among `feasible` (node indexes, each one where FitHamiPod fits): the best node
// score under the pod's node policy; ties to the lowest index.
int ChooseHamiNode(const PodSpec& pod, const ClusterState& cluster, std::span<const int> feasible);

}  // namespace knobsim
