// GPU memory under cGPU: the visible quota, and whether an allocation succeeds.
//
// Hard isolation (cgpu / core_mem nodes with a working module): a pod sees a virtual card of
// floor(physical MiB * quota units / card units) MiB and an allocation beyond it fails.
// Soft isolation (share nodes, CGPU_DISABLE, cgpu.disable.isolation=true, the buggy module):
// the card is one pool; allocations succeed until physical memory runs out, and the one that
// crosses the line fails, whichever pod makes it. See docs/design.md §3.3, docs/semantics.md §1.8.
#pragma once

#include <cstdint>

namespace knobsim {

enum class MemoryIsolation { kHard, kSoft };

// floor(physical_mib * quota_units / card_units): 16130 MiB, 4 of 15 units -> 4301 MiB.
int64_t VisibleQuotaMib(int64_t physical_mib, int quota_units, int card_units);

// The card-wide and per-pod figures an allocation is checked against.
struct AllocationCheck {
  MemoryIsolation isolation = MemoryIsolation::kHard;
  int64_t pod_used_mib = 0;       // what the pod holds on this card now
  int64_t pod_quota_mib = 0;      // its visible quota on this card
  int64_t card_used_mib = 0;      // what all pods hold on this card now
  int64_t card_physical_mib = 0;  // the card's physical memory
};

// True when allocating `request_mib` more on the card succeeds under the isolation mode.
bool AllocationFits(const AllocationCheck& check, int64_t request_mib);

}  // namespace knobsim
