// Device taints (KEP-5055, DRADeviceTaints): a driver or admin marks a device NoSchedule (no new
// allocations) or NoExecute (also evict its users); a request gets such a device only if one of
// its tolerations tolerates every such taint. Upstream: taintPreventsAllocation in
// k8s.io/dynamic-resource-allocation structured/internal/incubating/allocator_incubating.go and
// resourceclaim.ToleratesTaint. The device twin of sim/scheduler/node_matching.h's node rules.
#pragma once

#include <vector>

#include "sim/kube_dra.h"

namespace knobsim::dra {

// The toleration matches the taint: effects agree (empty tolerates all), keys agree (empty key
// matches any), and for Equal (or empty) the values agree; Exists needs no value.
bool ToleratesTaint(const DraToleration& toleration, const DraDeviceTaint& taint);

// Some NoSchedule or NoExecute taint of the device is tolerated by none of `tolerations` (None
// and unknown effects never keep a device from being allocated).
bool TaintPreventsAllocation(const DraDevice& device,
                             const std::vector<DraToleration>& tolerations);

}  // namespace knobsim::dra
