// HorizontalController: one HPA's sync as kube-controller-manager's reconcileAutoscaler does it
// (kubernetes/kubernetes pkg/controller/podautoscaler/horizontal.go). From the target's scale
// and one input per metric it decides the replicas to set:
//  * spec replicas 0 with minReplicas ≠ 0: scaling is disabled (ScalingActive=False), no change;
//  * above maxReplicas or below minReplicas: the bound, at once;
//  * otherwise every metric proposes (replica_calculator.h) and the highest proposal wins; a
//    metric that cannot propose is skipped, unless every metric fails or the others would scale
//    down (then nothing changes and ScalingActive=False names the first failure);
//  * the winner is normalized (hpa_behavior.h): with `behavior` by its windows and policies,
//    without by the legacy rules.
// The controller keeps its history (recommendations, scale events) between syncs, as the
// upstream controller does in memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/autoscaling/hpa_behavior.h"
#include "sim/autoscaling/replica_calculator.h"
#include "sim/hpa_spec.h"

namespace knobsim::autoscaling {

// Where a metric comes from in the autoscaling/v2 API.
enum class MetricSource { kResource, kPods, kObject, kExternal };
MetricSource SourceOf(HpaMetricKind kind);

// What the metrics pipeline gives one metric this sync.
struct MetricInput {
  std::vector<PodSample> pods;  // Resource and Pods metrics: the target's pods and samples
  int64_t value = 0;            // Object and External metrics: the value (summed), milli
  int32_t ready_pods = 0;       // Object / External Value targets: Running and Ready pods
  std::string error;            // not empty: the metrics API failed for this metric
};

struct HpaDecision {
  int32_t desired = 0;
  bool rescale = false;
  std::string reason;          // the rescale reason upstream logs: "<metric> above target", ...
  std::string metric;          // the metric whose proposal won ("" when a bound decided)
  bool active = true;          // ScalingActive
  std::string active_reason;   // ValidMetricFound, ScalingDisabled, FailedGet...Metric
  std::string active_message;  // the first failure, when not active
  std::vector<ReplicaProposal> proposals;  // one per metric, in spec order
  Normalized normalized;
};

class HorizontalController {
 public:
  HorizontalController(HpaSpec spec, HpaControllerSettings settings);

  const HpaSpec& spec() const { return spec_; }
  // spec.minReplicas / maxReplicas written by another controller (ACK's CronHPA scaling the
  // HPA); the next sync reads them.
  void SetReplicaBounds(int32_t min_replicas, int32_t max_replicas) {
    spec_.min_replicas = min_replicas;
    spec_.max_replicas = max_replicas;
  }
  const HpaControllerSettings& settings() const { return settings_; }

  // One sync at `now`. `inputs` has one entry per metric of the spec (the default CPU metric
  // when the spec lists none). A decision to rescale is recorded as a scale event.
  HpaDecision Reconcile(int32_t spec_replicas, int32_t status_replicas,
                        const std::vector<MetricInput>& inputs, SimTime now);

 private:
  HpaSpec spec_;
  HpaControllerSettings settings_;
  Tolerances tolerances_;
  HpaHistory history_;
};

// The metrics of an HPA: its own, or CPU at 80 % utilization when it lists none (API default).
std::vector<HpaMetric> MetricsOf(const HpaSpec& spec);

}  // namespace knobsim::autoscaling
