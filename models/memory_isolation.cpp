#include "models/memory_isolation.h"

#include <algorithm>

namespace knobsim {

int64_t VisibleQuotaMib(int64_t physical_mib, int quota_units, int card_units) {
  if (physical_mib <= 0 || quota_units <= 0 || card_units <= 0) return 0;
  // Integer arithmetic on purpose: cGPU shows floor(MiB * CONTAINER / DEV), and the ACK docs'
  // 4301 MiB (16130 MiB, 4 of 15) is exactly that floor (docs/semantics.md §1.8). A quota above the
  // card cannot make the virtual card larger than the physical one.
  const int quota = std::min(quota_units, card_units);
  return physical_mib * quota / card_units;
}

bool AllocationFits(const AllocationCheck& check, int64_t request_mib) {
  if (request_mib <= 0) return true;
  // The card's physical memory binds in both modes: a hard quota never exceeds it, but soft
  // neighbours may already hold what the quota promised.
  const bool card_fits = check.card_used_mib + request_mib <= check.card_physical_mib;
  if (check.isolation == MemoryIsolation::kSoft) return card_fits;
  return card_fits && check.pod_used_mib + request_mib <= check.pod_quota_mib;
}

}  // namespace knobsim
