#include "sim/scheduler/dra/device_taints.h"

#include <algorithm>
#include <string_view>

namespace knobsim::dra {

bool ToleratesTaint(const DraToleration& toleration, const DraDeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return toleration.op == "Exists";
}

bool TaintPreventsAllocation(const DraDevice& device,
                             const std::vector<DraToleration>& tolerations) {
  constexpr std::string_view kNoSchedule = "NoSchedule", kNoExecute = "NoExecute";
  for (const DraDeviceTaint& taint : device.taints) {
    if (taint.effect != kNoSchedule && taint.effect != kNoExecute) continue;
    const bool tolerated =
        std::any_of(tolerations.begin(), tolerations.end(),
                    [&](const DraToleration& t) { return ToleratesTaint(t, taint); });
    if (!tolerated) return true;
  }
  return false;
}

}  // namespace knobsim::dra
