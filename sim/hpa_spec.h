// HpaSpec: a HorizontalPodAutoscaler (autoscaling/v2) as knobsim reads it from an export, a
// manifest or a scenario — the replica bounds, the metrics with their targets, and the scaling
// behavior — plus the controller's own settings (kube-controller-manager flags). Plain data; the
// controller that reads them is sim/autoscaling/ (docs/autoscaling.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/event_queue.h"

namespace knobsim {

// HPAScalingPolicy: at most `value` pods (Pods) or `value` % (Percent) per `period_s` seconds.
enum class HpaPolicyType { kPods, kPercent };
struct HpaScalingPolicy {
  HpaPolicyType type = HpaPolicyType::kPods;
  int32_t value = 0;
  int32_t period_s = 0;
};

// selectPolicy: the policy allowing the largest change (Max), the smallest (Min), or none.
enum class HpaSelectPolicy { kMax, kMin, kDisabled };

// HPAScalingRules as written: unset fields take their defaults (DefaultedScaleUp/Down in
// sim/autoscaling/hpa_behavior.h), as the API server's defaulting does.
struct HpaScalingRules {
  std::optional<int32_t> stabilization_window_s;
  std::optional<HpaSelectPolicy> select_policy;
  std::vector<HpaScalingPolicy> policies;  // empty = the default policies
  std::optional<double> tolerance;         // HPAConfigurableTolerance; unset = the flag's
};

// stabilizationWindowSeconds: whole seconds in [0, 3600] (the API server's validation).
inline bool ValidStabilizationWindow(SimTime ns) {
  return ns >= 0 && ns <= 3600 * kNanosPerSecond && ns % kNanosPerSecond == 0;
}

struct HpaBehavior {
  std::optional<HpaScalingRules> scale_up;
  std::optional<HpaScalingRules> scale_down;
};

// What a metric measures. knobsim computes each from the simulated pods (docs/autoscaling.md
// says how): the GPU utilization of a pod's cards (DCGM_FI_DEV_GPU_UTIL through a metrics
// adapter), its GPU memory in use (DCGM_FI_DEV_FB_USED), its request rate, its requests in
// flight, and CPU. A metric of an export that is none of these is refused by the reader.
enum class HpaMetricKind {
  kCpu,             // Resource cpu: busy cores of the pod's CPU stages, in millicores
  kGpuUtilization,  // Pods metric: percent of time the pod's cards ran kernels, 0..100
  kGpuMemory,       // Pods metric: GPU memory the pod holds, MiB
  kRequestRate,     // Pods metric: requests routed to the pod per second
  kInFlight,        // Pods metric: the pod's requests queued or in service
  kExternalRequestRate,  // External metric: the Service's total arrival rate, per second
};

// MetricTarget: Utilization (percent of the request; Resource metrics), AverageValue (per pod),
// Value (the whole metric; Object/External).
enum class HpaTargetType { kUtilization, kAverageValue, kValue };

struct HpaMetric {
  HpaMetricKind kind = HpaMetricKind::kCpu;
  std::string name;  // as written in the HPA (metric name, or "cpu"), for messages
  HpaTargetType target_type = HpaTargetType::kUtilization;
  int32_t target_utilization = 0;  // percent, kUtilization
  int64_t target_milli = 0;        // milli-units, kAverageValue / kValue
};

// The metric of an HPA that lists none: Resource cpu at 80 % utilization (the API server's
// SetDefaults_HorizontalPodAutoscaler, DefaultCPUUtilization).
inline HpaMetric DefaultCpuMetric() {
  HpaMetric cpu;
  cpu.kind = HpaMetricKind::kCpu;
  cpu.name = "cpu";
  cpu.target_type = HpaTargetType::kUtilization;
  cpu.target_utilization = 80;
  return cpu;
}

struct HpaSpec {
  std::string name;
  std::string namespace_ = "default";
  std::string target_kind = "Deployment";  // scaleTargetRef
  std::string target_name;
  int32_t min_replicas = 1;  // API default 1
  int32_t max_replicas = 1;
  std::vector<HpaMetric> metrics;       // empty = CPU at 80 % (the API default)
  std::optional<HpaBehavior> behavior;  // unset: the legacy rules (horizontal.go)
};

// The controller's settings: kube-controller-manager's --horizontal-pod-autoscaler-* flags.
struct HpaControllerSettings {
  SimTime sync_period = 15 * kNanosPerSecond;
  double tolerance = 0.1;
  SimTime downscale_stabilization = 300 * kNanosPerSecond;
  SimTime cpu_initialization_period = 300 * kNanosPerSecond;
  SimTime initial_readiness_delay = 30 * kNanosPerSecond;
  // Not a controller flag: the window the metrics pipeline averages a pod's sample over (a
  // Prometheus adapter's rate()/avg_over_time() range; the assumption of docs/autoscaling.md).
  SimTime metric_window = 60 * kNanosPerSecond;
};

}  // namespace knobsim
