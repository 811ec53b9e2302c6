// ACK's record of where a bound GPU-sharing pod sits (docs/semantics.md §1.3): the card -> units
// allocation of the scheduler framework's annotations (v2, and the v3 name with the same JSON)
// or the extender's (v1: one card index and the pod's units).
#pragma once

#include "sim/io/kube/fields.h"
#include "sim/kube_types.h"

namespace knobsim::kube {

// Fills pod.allocated_mem and pod.allocated_core from metadata.annotations, the first form
// present in ACK's order (v2, v3, then v1). Reads pod.gpu_mem, the units v1 falls back to.
// Annotation values are parsed but never quoted back whole: they are ours to read, not to echo.
void ReadAllocation(FieldReader& r, const Field& annotations, PodSpec& pod);

}  // namespace knobsim::kube
