// Tests' shorthand for a workload's claim of the NVIDIA DRA driver's whole GPUs (scenario.h
// DraAsk), spelled field by field so that adding a field to DraAsk changes no test.
#pragma once

#include <cstdint>

#include "sim/scenario.h"

namespace knobsim {

inline DraAsk WholeGpuAsk(int gpus, bool shared,
                          DeviceSharingStrategy sharing = DeviceSharingStrategy::kTimeSlicing,
                          int mps_active_thread_percentage = 0, int64_t mps_pinned_memory_mib = 0) {
  DraAsk ask;
  ask.gpus = gpus;
  ask.shared = shared;
  ask.sharing = sharing;
  ask.mps_active_thread_percentage = mps_active_thread_percentage;
  ask.mps_pinned_memory_mib = mps_pinned_memory_mib;
  return ask;
}

}  // namespace knobsim
