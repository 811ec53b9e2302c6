// What the HPA controller does with a proposal before it scales (kubernetes/kubernetes
// pkg/controller/podautoscaler/horizontal.go): the stabilization window over recent
// recommendations, the rate limits of the behavior's policies over recent scale events, and
// the replica bounds — or, for an HPA without `behavior`, the legacy rules (a 5-minute
// downscale window, at most max(2 × current, 4) on a scale-up). The defaults of an HPA's
// `behavior` are the API server's (pkg/apis/autoscaling/v2/defaults.go).
//
// HpaHistory is the controller's memory of one HPA: its recommendations and scale events with
// their times, pruned as upstream prunes them (an outdated entry is overwritten by the next).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/autoscaling/replica_calculator.h"
#include "sim/event_queue.h"
#include "sim/hpa_spec.h"

namespace knobsim::autoscaling {

// Rules with every field set (GenerateHPAScaleUpRules / GenerateHPAScaleDownRules): scale-up
// window 0, Max of {4 pods, 100 %} per 15 s; scale-down Max of {100 %} per 15 s with the
// controller's downscale window where the HPA sets none.
HpaScalingRules DefaultedScaleUp(const std::optional<HpaScalingRules>& given);
HpaScalingRules DefaultedScaleDown(const std::optional<HpaScalingRules>& given,
                                   SimTime downscale_stabilization);

// The tolerances of an HPA: the controller's, or each direction's own (HPAConfigurableTolerance).
Tolerances TolerancesOf(const HpaSpec& hpa, double controller_tolerance);

struct TimedRecommendation {
  int32_t replicas = 0;
  SimTime at = 0;
};

struct ScaleEvent {
  int32_t change = 0;  // pods added (scale-up list) or removed (scale-down list), > 0
  SimTime at = 0;
  bool outdated = false;
};

struct HpaHistory {
  std::vector<TimedRecommendation> recommendations;
  std::vector<ScaleEvent> scale_up_events;
  std::vector<ScaleEvent> scale_down_events;
};

// Replicas changed by the events after now − period (getReplicasChangePerPeriod).
int32_t ReplicasChangePerPeriod(int32_t period_s, const std::vector<ScaleEvent>& events,
                                SimTime now);

// The most replicas the scale-up rules allow now (calculateScaleUpLimitWithScalingRules); the
// fewest the scale-down rules allow (calculateScaleDownLimitWithBehaviors). Rules are defaulted.
int32_t ScaleUpLimit(int32_t current_replicas, const HpaHistory& history,
                     const HpaScalingRules& rules, SimTime now);
int32_t ScaleDownLimit(int32_t current_replicas, const HpaHistory& history,
                       const HpaScalingRules& rules, SimTime now);

// Records a scale from `previous` to `next` (storeScaleEvent); nothing without a behavior.
void StoreScaleEvent(HpaHistory& history, const std::optional<HpaBehavior>& behavior,
                     int32_t previous, int32_t next, SimTime now, SimTime downscale_stabilization);

// A normalized recommendation with the HPA's conditions as upstream sets them: AbleToScale's
// reason (ReadyForNewScale, ScaleUpStabilized, ScaleDownStabilized) and ScalingLimited's
// (DesiredWithinRange, ScaleUpLimit, ScaleDownLimit, TooManyReplicas, TooFewReplicas).
struct Normalized {
  int32_t replicas = 0;
  std::string able_reason;
  std::string limited_reason;
  std::string limited_message;
  bool limited = false;  // ScalingLimited=True: the bounds or rates changed the recommendation
};

// normalizeDesiredReplicasWithBehaviors: stabilize, then apply the rate limits and the bounds.
// `rules_up` / `rules_down` are defaulted rules. Records the recommendation in `history`.
Normalized NormalizeWithBehaviors(HpaHistory& history, const HpaScalingRules& rules_up,
                                  const HpaScalingRules& rules_down, int32_t min_replicas,
                                  int32_t max_replicas, int32_t current_replicas,
                                  int32_t desired_replicas, SimTime now);

// normalizeDesiredReplicas (no behavior): the highest recommendation of the downscale window,
// then convertDesiredReplicasWithRules. Records the recommendation in `history`.
Normalized NormalizeLegacy(HpaHistory& history, int32_t min_replicas, int32_t max_replicas,
                           int32_t current_replicas, int32_t desired_replicas, SimTime now,
                           SimTime downscale_stabilization);

// convertDesiredReplicasWithRules: the bounds and the legacy scale-up limit max(2 × current, 4).
Normalized ConvertDesiredReplicasWithRules(int32_t current_replicas, int32_t desired_replicas,
                                           int32_t min_replicas, int32_t max_replicas);

}  // namespace knobsim::autoscaling
