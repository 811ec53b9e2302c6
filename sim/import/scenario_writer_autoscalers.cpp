// The `hpa:` values of an imported scenario (scenario_writer.h).
#include <cmath>
#include <string>
#include <vector>

#include "sim/import/scenario_writer.h"
#include "sim/text.h"

namespace knobsim {

std::string HpaMetricValue(const HpaMetric& m) {
  if (m.kind == HpaMetricKind::kCpu) {
    return m.target_type == HpaTargetType::kUtilization
               ? "{metric: cpu, utilization: " + std::to_string(m.target_utilization) + "}"
               : "{metric: cpu, average: " + ScenarioCpu(m.target_milli) + "}";
  }
  const double x = static_cast<double>(m.target_milli) / 1000.0;
  const std::string value = m.kind == HpaMetricKind::kGpuMemory
                                ? ScenarioMemory(static_cast<int64_t>(std::ceil(x)))
                                : ScenarioDecimal(x);
  return "{metric: " + std::string(HpaMetricKindName(m.kind)) +
         (m.target_type == HpaTargetType::kValue ? ", value: " : ", average: ") + value + "}";
}

std::string HpaRulesValue(const HpaScalingRules& r) {
  std::vector<std::string> parts;
  if (r.stabilization_window_s)
    parts.push_back("stabilization_window: " + std::to_string(*r.stabilization_window_s) + "s");
  if (r.select_policy) {
    parts.push_back(std::string("select_policy: ") +
                    (*r.select_policy == HpaSelectPolicy::kMax   ? "Max"
                     : *r.select_policy == HpaSelectPolicy::kMin ? "Min"
                                                                 : "Disabled"));
  }
  if (!r.policies.empty()) {
    std::vector<std::string> policies;
    for (const HpaScalingPolicy& p : r.policies) {
      policies.push_back(
          std::string("{type: ") + (p.type == HpaPolicyType::kPods ? "Pods" : "Percent") +
          ", value: " + std::to_string(p.value) + ", period: " + std::to_string(p.period_s) + "s}");
    }
    parts.push_back("policies: [" + Join(policies, ", ") + "]");
  }
  if (r.tolerance) parts.push_back("tolerance: " + ScenarioDecimal(*r.tolerance));
  return "{" + Join(parts, ", ") + "}";
}

}  // namespace knobsim
