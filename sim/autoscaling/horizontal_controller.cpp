#include "sim/autoscaling/horizontal_controller.h"

#include <utility>

namespace knobsim::autoscaling {
namespace {

// How upstream names a metric in its rescale reason and conditions.
std::string Describe(const HpaMetric& m) {
  switch (SourceOf(m.kind)) {
    case MetricSource::kResource:
      return m.target_type == HpaTargetType::kUtilization
                 ? m.name + " resource utilization (percentage of request)"
                 : m.name + " resource";
    case MetricSource::kPods:
      return "pods metric " + m.name;
    case MetricSource::kObject:
      return "object metric " + m.name;
    case MetricSource::kExternal:
      return "external metric " + m.name;
  }
  return m.name;
}

std::string FailureReason(MetricSource source) {
  switch (source) {
    case MetricSource::kResource:
      return "FailedGetResourceMetric";
    case MetricSource::kPods:
      return "FailedGetPodsMetric";
    case MetricSource::kObject:
      return "FailedGetObjectMetric";
    case MetricSource::kExternal:
      return "FailedGetExternalMetric";
  }
  return "FailedGetMetric";
}

}  // namespace

MetricSource SourceOf(HpaMetricKind kind) {
  switch (kind) {
    case HpaMetricKind::kCpu:
      return MetricSource::kResource;
    case HpaMetricKind::kGpuUtilization:
    case HpaMetricKind::kGpuMemory:
    case HpaMetricKind::kRequestRate:
    case HpaMetricKind::kInFlight:
      return MetricSource::kPods;
    case HpaMetricKind::kExternalRequestRate:
      return MetricSource::kExternal;
  }
  return MetricSource::kPods;
}

std::vector<HpaMetric> MetricsOf(const HpaSpec& spec) {
  if (!spec.metrics.empty()) return spec.metrics;
  return {DefaultCpuMetric()};
}

HorizontalController::HorizontalController(HpaSpec spec, HpaControllerSettings settings)
    : spec_(std::move(spec)),
      settings_(settings),
      tolerances_(TolerancesOf(spec_, settings.tolerance)) {}

HpaDecision HorizontalController::Reconcile(int32_t spec_replicas, int32_t status_replicas,
                                            const std::vector<MetricInput>& inputs, SimTime now) {
  HpaDecision d;
  d.desired = spec_replicas;
  const int32_t min_replicas = spec_.min_replicas;
  if (spec_replicas == 0 && min_replicas != 0) {
    d.active = false;
    d.active_reason = "ScalingDisabled";
    d.active_message = "scaling is disabled since the replica count of the target is zero";
    d.desired = 0;
    return d;
  }
  if (spec_replicas > spec_.max_replicas) {
    d.desired = spec_.max_replicas;
    d.reason = "Current number of replicas above Spec.MaxReplicas";
  } else if (spec_replicas < min_replicas) {
    d.desired = min_replicas;
    d.reason = "Current number of replicas below Spec.MinReplicas";
  } else {
    // computeReplicasForMetrics: the highest valid proposal.
    const std::vector<HpaMetric> metrics = MetricsOf(spec_);
    const ReadinessSettings readiness{settings_.cpu_initialization_period,
                                      settings_.initial_readiness_delay};
    int32_t replicas = 0;
    int invalid = 0;
    for (size_t i = 0; i < metrics.size(); ++i) {
      const HpaMetric& m = metrics[i];
      const MetricInput& in = inputs.at(i);
      const MetricSource source = SourceOf(m.kind);
      ReplicaProposal p;
      if (!in.error.empty()) {
        p.error = in.error;
      } else if (source == MetricSource::kResource && m.target_type == HpaTargetType::kUtilization) {
        p = ResourceReplicas(spec_replicas, m.target_utilization, m.kind == HpaMetricKind::kCpu,
                             in.pods, tolerances_, readiness, now);
      } else if (source == MetricSource::kResource || source == MetricSource::kPods) {
        p = PlainMetricReplicas(spec_replicas, m.target_milli, m.kind == HpaMetricKind::kCpu,
                                in.pods, tolerances_, readiness, now);
      } else if (m.target_type == HpaTargetType::kValue) {
        p = ValueMetricReplicas(spec_replicas, in.value, m.target_milli, in.ready_pods,
                                tolerances_);
      } else {
        p = AverageValueMetricReplicas(status_replicas, in.value, m.target_milli, tolerances_);
      }
      if (!p.ok()) {
        if (invalid == 0) {
          d.active_reason = FailureReason(source);
          d.active_message = "the HPA was unable to compute the replica count: " + p.error;
        }
        ++invalid;
      } else if (replicas == 0 || p.replicas > replicas) {
        replicas = p.replicas;
        d.metric = Describe(m);
      }
      d.proposals.push_back(std::move(p));
    }
    if (invalid >= static_cast<int>(metrics.size()) || (invalid > 0 && replicas < spec_replicas)) {
      d.active = false;
      d.desired = spec_replicas;
      d.metric.clear();
      return d;
    }
    d.active_reason = "ValidMetricFound";
    d.active_message = "the HPA was able to successfully calculate a replica count from " + d.metric;
    int32_t desired = 0;
    if (replicas > desired) desired = replicas;
    if (desired > spec_replicas) d.reason = d.metric + " above target";
    if (desired < spec_replicas) d.reason = "All metrics below target";
    if (spec_.behavior) {
      d.normalized = NormalizeWithBehaviors(
          history_, DefaultedScaleUp(spec_.behavior->scale_up),
          DefaultedScaleDown(spec_.behavior->scale_down, settings_.downscale_stabilization),
          min_replicas, spec_.max_replicas, spec_replicas, desired, now);
    } else {
      d.normalized = NormalizeLegacy(history_, min_replicas, spec_.max_replicas, spec_replicas,
                                     desired, now, settings_.downscale_stabilization);
    }
    d.desired = d.normalized.replicas;
  }
  d.rescale = d.desired != spec_replicas;
  if (d.rescale)
    StoreScaleEvent(history_, spec_.behavior, spec_replicas, d.desired, now,
                    settings_.downscale_stabilization);
  return d;
}

}  // namespace knobsim::autoscaling
