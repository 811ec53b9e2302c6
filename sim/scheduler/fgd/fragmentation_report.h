// FGD fragmentation (docs/fgd-policies.md §5) of a knobsim cluster after placement, for the results
// document: an adapter from knobsim's units (gpu-mem units per card, nvidia.com/gpu whole cards)
// to the replay's measure (sim/scheduler/fgd/fragmentation.h, milli-GPU with 1000 per card).
//
// Units as sim/scheduler/fgd/milli_view.h maps them (the same view FGD placement scores with); the
// typical pods (§5.1, 95 % threshold) are computed once per distinct card-units value, so each
// node is measured against the workload converted for its own cards. The target workload is
// the scenario's pods, every replica of every workload.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/results.h"
#include "sim/scheduler/fgd/milli_view.h"

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

using FragPodInput = fgd::TargetPod;  // one replica

FragmentationResult MeasureFragmentation(std::span<const FragNodeInput> nodes,
                                         std::span<const FragPodInput> pods);

}  // namespace knobsim
