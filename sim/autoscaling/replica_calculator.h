// The HPA's replica calculation, as kube-controller-manager's ReplicaCalculator does it
// (kubernetes/kubernetes pkg/controller/podautoscaler/replica_calculator.go and
// metrics/utilization.go): one metric's proposal from the pods of the target and their samples.
//
// Pods are grouped first (groupPods): deleted or Failed pods are ignored; Pending pods are
// unready; a pod without a sample is missing; for CPU only, a pod still inside the CPU
// initialization period whose Ready condition is False or changed less than one metric window
// before its sample, or one past it that has never been Ready since the initial readiness delay,
// is unready. Without missing pods, and unless unready pods exist on a scale-up, the proposal is
// ceil(ratio × ready pods) — or the current count while the ratio is within the tolerances.
// Otherwise missing pods count on a scale-down as using 100 % (or the target, if higher) of
// their request (Utilization) or exactly the target (plain metrics), and 0 on a scale-up;
// unready pods 0 on a scale-up; and the ratio is computed again. A ratio now within the
// tolerances, or on the other side of 1, keeps the current count, and so does a new count that
// would move against the direction (more pods below 1, fewer above).
//
// Values are milli-units, integers as upstream's (its integer divisions are kept: utilization is
// truncated to a whole percent before the ratio, an average to a whole milli-unit). Pod order does
// not matter. A calculation that cannot propose returns its error message instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/event_queue.h"

namespace knobsim::autoscaling {

enum class ApiPodPhase { kPending, kRunning, kSucceeded, kFailed };

// One pod of the target as the controller lists it, with the metrics API's sample of it.
struct PodSample {
  std::string name;
  ApiPodPhase phase = ApiPodPhase::kRunning;
  bool deleting = false;  // deletionTimestamp set
  // The Ready condition: unset when the pod has none; its status and last transition.
  std::optional<bool> ready = true;
  SimTime ready_transition = 0;
  std::optional<SimTime> start_time = 0;  // status.startTime; unset before the kubelet sets it
  // The sample: unset when the metrics API returned none for this pod.
  std::optional<int64_t> value;
  SimTime sample_time = 0;
  SimTime sample_window = 0;
  // The pod's request of the resource (Utilization targets), milli-units; unset when a
  // container declares none (a Utilization target then fails, as upstream's).
  std::optional<int64_t> request;
};

// The band around 1 inside which the ratio keeps the current count (Tolerances.isWithin).
struct Tolerances {
  double scale_down = 0.1;
  double scale_up = 0.1;
  bool Within(double ratio) const { return 1.0 - scale_down <= ratio && ratio <= 1.0 + scale_up; }
};

struct ReadinessSettings {
  SimTime cpu_initialization_period = 300 * kNanosPerSecond;
  SimTime initial_readiness_delay = 30 * kNanosPerSecond;
};

struct ReplicaProposal {
  int32_t replicas = 0;
  int64_t usage = 0;      // utilization percent (Utilization) or the average / total, milli
  int64_t raw_usage = 0;  // Utilization targets: the average raw value per pod, milli
  std::string error;      // not empty: no proposal (the metric is invalid this cycle)
  bool ok() const { return error.empty(); }
};

// A Resource (or ContainerResource) metric with a Utilization target (percent of request).
// `cpu` selects the CPU readiness rules. `now` is the controller's clock.
ReplicaProposal ResourceReplicas(int32_t current_replicas, int32_t target_utilization, bool cpu,
                                 const std::vector<PodSample>& pods, const Tolerances& tolerances,
                                 const ReadinessSettings& readiness, SimTime now);

// A Resource metric with an AverageValue target (GetRawResourceReplicas) when `cpu` or a
// resource is named, or a Pods metric (GetMetricReplicas) when `cpu` is false.
ReplicaProposal PlainMetricReplicas(int32_t current_replicas, int64_t target_usage, bool cpu,
                                    const std::vector<PodSample>& pods, const Tolerances& tolerances,
                                    const ReadinessSettings& readiness, SimTime now);

// An Object metric with a Value target, or an External metric's summed values with a Value
// target: ceil(ratio × ready pods), or ceil(ratio) from zero replicas (scale from zero).
// `ready_pods` counts the Running, Ready pods of the target.
ReplicaProposal ValueMetricReplicas(int32_t current_replicas, int64_t usage, int64_t target,
                                    int32_t ready_pods, const Tolerances& tolerances);

// An Object or External metric with an AverageValue target: ceil(usage / target) unless the
// ratio to statusReplicas × target is within the tolerances. `usage` is the object's value or
// the external values' sum; the proposal's usage is the per-pod average.
ReplicaProposal AverageValueMetricReplicas(int32_t status_replicas, int64_t usage,
                                           int64_t target_per_pod, const Tolerances& tolerances);

}  // namespace knobsim::autoscaling
