// FGD fragmentation (fgd-policies.md §5) of a knobsim cluster after placement, for the results
// document: an adapter from knobsim's units (gpu-mem units per card, nvidia.com/gpu whole cards)
// to the replay's measure (sim/replay/fragmentation.h, milli-GPU with 1000 per card).
//
// Unit mapping (an assumption; the reference only knows milli-GPU):
//  - a card's used milli = round(1000 × used units / card units); a card held by a whole-GPU pod
//    (or used units ≥ card units) is 1000 used;
//  - a typical pod's per-card milli on a node = min(1000, round(1000 × (gpu_mem / gpu_count) /
//    that node's card units)) on gpu_count cards; a whole-GPU pod takes 1000 on whole_gpus cards;
//    a pod without GPU is a CPU-only type (its idle GPU counts as fragment, §5.2 XL/XR);
//  - the typical pods (§5.1, 95 % threshold) are computed once per distinct card-units value, so
//    each node is measured against the workload converted for its own cards. On a node with no
//    gpu-mem units (exclusive nodes) a gpu-mem pod cannot run: its type is "no access" (NA).
//  - the target workload is the scenario's pods, every replica of every workload; there is no
//    card-model constraint (every type may use every node's cards).
//  - a node with more than 16 cards is measured on its first 16 (the replay's NodeState limit).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/results.h"

namespace knobsim {

struct FragCardInput {
  int used_units = 0;  // gpu-mem units allocated on the card
  bool whole = false;  // held by an nvidia.com/gpu pod
};

struct FragNodeInput {
  std::string name;
  int64_t cpu_milli = 0;   // allocatable
  int64_t memory_mib = 0;  // allocatable
  int card_units = 0;      // gpu-mem units per card; 0 on exclusive (whole-GPU) nodes
  std::vector<FragCardInput> cards;
  int64_t cpu_used_milli = 0;
  int64_t memory_used_mib = 0;
};

struct FragPodInput {  // one replica
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpu_mem = 0;  // units for the whole pod
  int gpu_count = 1;
  int whole_gpus = 0;
};

FragmentationResult MeasureFragmentation(std::span<const FragNodeInput> nodes,
                                         std::span<const FragPodInput> pods);

}  // namespace knobsim
