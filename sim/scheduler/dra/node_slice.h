// What a DRA driver's kubelet plugin publishes for one node, as the drivers knobsim builds
// clusters for do it (nvidia_gpu_devices.h, hami_gpu_devices.h): one ResourceSlice, its pool
// named after the node, and devices whose attributes are single strings or integers.
#pragma once

#include <cstdint>
#include <string>

#include "sim/kube_dra.h"

namespace knobsim::dra {

// The empty slice `<node>-<driver>` of `driver` on `node`, pool `node` (generation 0, one slice).
ResourceSliceSpec NodeSlice(const std::string& node, const std::string& driver);

// An attribute holding one string, or one integer.
DraAttribute StringAttribute(std::string value);
DraAttribute IntAttribute(int64_t value);

}  // namespace knobsim::dra
