#include "sim/time_slice_rules.h"

#include "sim/text.h"

namespace knobsim {

std::string TimeSliceRefusal(const Scenario& s) {
  if (!s.cluster.time_slice.enabled()) return "";
  if (s.cluster.interference)
    return "the co-location model (cluster.interference) already replaces native time-slicing's "
           "split";
  for (const NodePool& pool : s.node_pools) {
    if (pool.gpu_type.empty()) continue;
    const std::string name = "node pool " + Quote(pool.name);
    if (pool.device_sharing.strategy == DeviceSharingStrategy::kMps)
      return name + " shares its cards by MPS (clients side by side, not in turns)";
    if (pool.hami.enabled() && pool.hami.core_policy != HamiCorePolicy::kDisable)
      return name + "'s cards are capped by HAMi-core's gpucores";
    const auto policy = static_cast<int>(s.cluster.policy);
    if (pool.cgpu_active && policy != 0 && policy != 5)
      return name + " runs cGPU with POLICY " + std::to_string(policy) +
             ", whose shares are not equal slices";
  }
  for (const Workload& w : s.workloads) {
    if (!w.dra.enabled()) continue;
    if (w.dra.driver == DraDriver::kHamiCore)
      return "workload " + Quote(w.name) + "'s claim is capped by HAMi-core";
    if (w.dra.shared && w.dra.sharing == DeviceSharingStrategy::kMps)
      return "workload " + Quote(w.name) + "'s claim shares its GPUs by MPS";
  }
  return "";
}

}  // namespace knobsim
