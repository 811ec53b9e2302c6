// The cpu and memory amounts the two resource scores compare, after upstream's
// noderesources/resource_allocation.go: NodeResourcesFit scores the non-zero-defaulted
// requests (docs/semantics.md §3.6), BalancedAllocation the actual ones; both against allocatable,
// both skipping a resource whose allocatable is 0.
#pragma once

#include <cstdint>

#include "sim/kube_types.h"

namespace knobsim {

struct CpuMemory {
  int64_t cpu = 0;     // millicores
  int64_t memory = 0;  // bytes
};

// The "cpu" and "memory" entries of a resource list (0 when absent).
CpuMemory CpuMemoryOf(const ResourceList& list);

}  // namespace knobsim
