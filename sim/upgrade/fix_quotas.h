// FixQuotasToPeak: `knobsim upgrade --fix-quotas-first` — docs/design.md §1 item 2's right order
// for a cGPU upgrade: raise every shared-GPU quota to the workload's real peak first, then upgrade,
// so that the fixed module's memory isolation finds no pod above its quota.
//
// The peak is the workload's own model of its GPU memory (sim/whatif/knobs.h,
// PeakPodMemoryPerCardMib: context + weights + activation × the requests it can hold at once)
// on the card types it can land on; the new quota is PeakQuotaUnits with `headroom_percent`
// on top. 12 % keeps the peak below 90 % of the quota (100 / 112 = 89.3 %), under the warning
// threshold of docs/design.md §1 item 2, so `knobsim check` stays quiet afterwards.
//
// Assumption: the quotas are fixed before the upgrade starts — the run starts with them. The
// rolling update of each Deployment that applies a new quota is not simulated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/scenario.h"

namespace knobsim {

struct QuotaFix {
  std::string workload;  // namespace/name
  int from_units = 0;    // gpu-mem units (GiB) for the whole pod, before
  int to_units = 0;      // after; equal to from_units when the workload was left alone
  int64_t peak_mib =
      0;             // peak per card (the largest over the card types it can land on); 0: unbounded
  std::string note;  // why, in words
};

// Raises, in place, the gpu_mem of every workload with gpu_mem > 0 whose peak plus headroom
// needs more units than it has; never lowers one. A workload whose peak has no bound
// (concurrency 0) or that no shared-GPU pool can hold is left alone, with a note. Returns
// what changed and what was left alone, in scenario order; a workload whose quota already
// holds its peak is not listed. InputError (field "--headroom") for a negative or non-finite
// headroom.
Expected<std::vector<QuotaFix>> FixQuotasToPeak(Scenario& s, double headroom_percent = 12);

}  // namespace knobsim
