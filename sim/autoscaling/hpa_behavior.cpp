#include "sim/autoscaling/hpa_behavior.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace knobsim::autoscaling {
namespace {

constexpr int32_t kDefaultPeriodS = 15;

// copyHPAScalingRules: the fields the HPA sets replace the defaults'.
HpaScalingRules Overlay(const std::optional<HpaScalingRules>& given, HpaScalingRules defaults) {
  if (!given) return defaults;
  if (given->select_policy) defaults.select_policy = given->select_policy;
  if (given->stabilization_window_s) defaults.stabilization_window_s = given->stabilization_window_s;
  if (!given->policies.empty()) defaults.policies = given->policies;
  if (given->tolerance) defaults.tolerance = given->tolerance;
  return defaults;
}

SimTime Seconds(int64_t s) { return s * kNanosPerSecond; }

int32_t LongestPolicyPeriod(const HpaScalingRules& rules) {
  int32_t longest = 0;
  for (const HpaScalingPolicy& policy : rules.policies) longest = std::max(longest, policy.period_s);
  return longest;
}

// markScaleEventsOutdated, then the new event replaces the last outdated one, or is appended.
void Store(std::vector<ScaleEvent>& events, int32_t longest_period_s, int32_t change, SimTime now) {
  const SimTime cutoff = now - Seconds(longest_period_s);
  int outdated = -1;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].at < cutoff) events[i].outdated = true;
    if (events[i].outdated) outdated = static_cast<int>(i);
  }
  const ScaleEvent event{change, now, false};
  if (outdated >= 0) {
    events[outdated] = event;
  } else {
    events.push_back(event);
  }
}

// The recommendation is recorded in place of an entry older than every window, or appended.
void Record(std::vector<TimedRecommendation>& recs, int old_index, int32_t replicas, SimTime now) {
  if (old_index >= 0) {
    recs[old_index] = {replicas, now};
  } else {
    recs.push_back({replicas, now});
  }
}

// convertDesiredReplicasWithBehaviorRate: the policies' rate limits and the bounds.
Normalized BehaviorRate(const HpaHistory& history, const HpaScalingRules& up,
                        const HpaScalingRules& down, int32_t min_replicas, int32_t max_replicas,
                        int32_t current, int32_t desired, SimTime now) {
  Normalized n;
  n.replicas = desired;
  if (desired > current) {
    const int32_t limit = std::max(ScaleUpLimit(current, history, up, now), current);
    int32_t allowed = max_replicas;
    if (allowed > limit) {
      allowed = limit;
      n.limited_reason = "ScaleUpLimit";
      n.limited_message = "the desired replica count is increasing faster than the maximum scale rate";
    } else {
      n.limited_reason = "TooManyReplicas";
      n.limited_message = "the desired replica count is more than the maximum replica count";
    }
    if (desired > allowed) {
      n.replicas = allowed;
      return n;
    }
  } else if (desired < current) {
    const int32_t limit = std::min(ScaleDownLimit(current, history, down, now), current);
    int32_t allowed = min_replicas;
    if (allowed < limit) {
      allowed = limit;
      n.limited_reason = "ScaleDownLimit";
      n.limited_message = "the desired replica count is decreasing faster than the maximum scale rate";
    } else {
      n.limited_reason = "TooFewReplicas";
      n.limited_message = "the desired replica count is less than the minimum replica count";
    }
    if (desired < allowed) {
      n.replicas = allowed;
      return n;
    }
  }
  n.limited_reason = "DesiredWithinRange";
  n.limited_message = "the desired count is within the acceptable range";
  return n;
}

}  // namespace

HpaScalingRules DefaultedScaleUp(const std::optional<HpaScalingRules>& given) {
  HpaScalingRules defaults;
  defaults.stabilization_window_s = 0;
  defaults.select_policy = HpaSelectPolicy::kMax;
  defaults.policies = {{HpaPolicyType::kPods, 4, kDefaultPeriodS},
                       {HpaPolicyType::kPercent, 100, kDefaultPeriodS}};
  return Overlay(given, defaults);
}

HpaScalingRules DefaultedScaleDown(const std::optional<HpaScalingRules>& given,
                                   SimTime downscale_stabilization) {
  HpaScalingRules defaults;
  defaults.select_policy = HpaSelectPolicy::kMax;
  defaults.policies = {{HpaPolicyType::kPercent, 100, kDefaultPeriodS}};
  HpaScalingRules rules = Overlay(given, defaults);
  // maybeInitScaleDownStabilizationWindow: the controller's flag where the HPA sets none.
  if (!rules.stabilization_window_s)
    rules.stabilization_window_s = static_cast<int32_t>(downscale_stabilization / kNanosPerSecond);
  return rules;
}

Tolerances TolerancesOf(const HpaSpec& hpa, double controller_tolerance) {
  Tolerances t{controller_tolerance, controller_tolerance};
  if (!hpa.behavior) return t;
  if (hpa.behavior->scale_down && hpa.behavior->scale_down->tolerance)
    t.scale_down = *hpa.behavior->scale_down->tolerance;
  if (hpa.behavior->scale_up && hpa.behavior->scale_up->tolerance)
    t.scale_up = *hpa.behavior->scale_up->tolerance;
  return t;
}

int32_t ReplicasChangePerPeriod(int32_t period_s, const std::vector<ScaleEvent>& events,
                                SimTime now) {
  const SimTime cutoff = now - Seconds(period_s);
  int32_t replicas = 0;
  for (const ScaleEvent& e : events)
    if (e.at > cutoff) replicas += e.change;
  return replicas;
}

namespace {

// Both directions' limit: each policy proposes from the count at its period's start (the count
// less the changes inside the period); Max takes the largest change, Min the smallest.
int32_t PolicyLimit(int32_t current_replicas, const HpaHistory& history,
                    const HpaScalingRules& rules, SimTime now, bool up) {
  const HpaSelectPolicy select = rules.select_policy.value_or(HpaSelectPolicy::kMax);
  if (select == HpaSelectPolicy::kDisabled) return current_replicas;
  // The largest change is the highest limit up and the lowest down.
  const bool take_highest = (select == HpaSelectPolicy::kMax) == up;
  int32_t result = take_highest ? std::numeric_limits<int32_t>::min()
                                : std::numeric_limits<int32_t>::max();
  for (const HpaScalingPolicy& policy : rules.policies) {
    const int32_t added = ReplicasChangePerPeriod(policy.period_s, history.scale_up_events, now);
    const int32_t removed =
        ReplicasChangePerPeriod(policy.period_s, history.scale_down_events, now);
    const int32_t period_start = current_replicas - added + removed;
    const double start = static_cast<double>(period_start);
    const double percent = static_cast<double>(policy.value) / 100;
    int32_t proposed = 0;
    if (policy.type == HpaPolicyType::kPods) {
      proposed = up ? period_start + policy.value : period_start - policy.value;
    } else if (up) {
      // A percent rounds up: otherwise a small target could never grow.
      proposed = static_cast<int32_t>(std::ceil(start * (1 + percent)));
    } else {
      proposed = static_cast<int32_t>(start * (1 - percent));
    }
    result = take_highest ? std::max(result, proposed) : std::min(result, proposed);
  }
  return result;
}

}  // namespace

int32_t ScaleUpLimit(int32_t current_replicas, const HpaHistory& history,
                     const HpaScalingRules& rules, SimTime now) {
  return PolicyLimit(current_replicas, history, rules, now, true);
}

int32_t ScaleDownLimit(int32_t current_replicas, const HpaHistory& history,
                       const HpaScalingRules& rules, SimTime now) {
  return PolicyLimit(current_replicas, history, rules, now, false);
}

void StoreScaleEvent(HpaHistory& history, const std::optional<HpaBehavior>& behavior,
                     int32_t previous, int32_t next, SimTime now, SimTime downscale_stabilization) {
  if (!behavior) return;  // only the behavior's policies read the events
  if (next > previous) {
    Store(history.scale_up_events, LongestPolicyPeriod(DefaultedScaleUp(behavior->scale_up)),
          next - previous, now);
  } else {
    Store(history.scale_down_events,
          LongestPolicyPeriod(DefaultedScaleDown(behavior->scale_down, downscale_stabilization)),
          previous - next, now);
  }
}

Normalized NormalizeWithBehaviors(HpaHistory& history, const HpaScalingRules& rules_up,
                                  const HpaScalingRules& rules_down, int32_t min_replicas,
                                  int32_t max_replicas, int32_t current_replicas,
                                  int32_t desired_replicas, SimTime now) {
  // stabilizeRecommendationWithBehaviors: the lowest recommendation of the scale-up window and
  // the highest of the scale-down window bound the current count.
  const SimTime up_cutoff = now - Seconds(rules_up.stabilization_window_s.value_or(0));
  const SimTime down_cutoff = now - Seconds(rules_down.stabilization_window_s.value_or(0));
  int32_t up = desired_replicas, down = desired_replicas;
  int old_index = -1;
  for (size_t i = 0; i < history.recommendations.size(); ++i) {
    const TimedRecommendation& rec = history.recommendations[i];
    if (rec.at > up_cutoff) up = std::min(rec.replicas, up);
    if (rec.at > down_cutoff) down = std::max(rec.replicas, down);
    if (rec.at < up_cutoff && rec.at < down_cutoff) old_index = static_cast<int>(i);
  }
  int32_t stabilized = current_replicas;
  if (stabilized < up) stabilized = up;
  if (stabilized > down) stabilized = down;
  Record(history.recommendations, old_index, desired_replicas, now);

  Normalized n = BehaviorRate(history, rules_up, rules_down, min_replicas, max_replicas,
                              current_replicas, stabilized, now);
  if (stabilized != desired_replicas) {
    n.able_reason =
        desired_replicas >= current_replicas ? "ScaleUpStabilized" : "ScaleDownStabilized";
  } else {
    n.able_reason = "ReadyForNewScale";
  }
  n.limited = n.replicas != stabilized;
  return n;
}

Normalized NormalizeLegacy(HpaHistory& history, int32_t min_replicas, int32_t max_replicas,
                           int32_t current_replicas, int32_t desired_replicas, SimTime now,
                           SimTime downscale_stabilization) {
  // stabilizeRecommendation: the highest recommendation not older than the window.
  const SimTime cutoff = now - downscale_stabilization;
  int32_t highest = desired_replicas;
  int old_index = -1;
  for (size_t i = 0; i < history.recommendations.size(); ++i) {
    const TimedRecommendation& rec = history.recommendations[i];
    if (rec.at < cutoff) {
      old_index = static_cast<int>(i);
    } else if (rec.replicas > highest) {
      highest = rec.replicas;
    }
  }
  Record(history.recommendations, old_index, desired_replicas, now);
  Normalized n = ConvertDesiredReplicasWithRules(current_replicas, highest, min_replicas,
                                                 max_replicas);
  n.able_reason = highest != desired_replicas ? "ScaleDownStabilized" : "ReadyForNewScale";
  n.limited = n.replicas != highest;
  return n;
}

Normalized ConvertDesiredReplicasWithRules(int32_t current_replicas, int32_t desired_replicas,
                                           int32_t min_replicas, int32_t max_replicas) {
  // A scale-up of at most max(2 × current, 4): a bogus usage report cannot explode the target.
  const auto scale_up_limit =
      static_cast<int32_t>(std::max(2.0 * static_cast<double>(current_replicas), 4.0));
  Normalized n;
  int32_t maximum = max_replicas;
  if (max_replicas > scale_up_limit) {
    maximum = scale_up_limit;
    n.limited_reason = "ScaleUpLimit";
    n.limited_message = "the desired replica count is increasing faster than the maximum scale rate";
  } else {
    n.limited_reason = "TooManyReplicas";
    n.limited_message = "the desired replica count is more than the maximum replica count";
  }
  if (desired_replicas < min_replicas) {
    n.replicas = min_replicas;
    n.limited_reason = "TooFewReplicas";
    n.limited_message = "the desired replica count is less than the minimum replica count";
  } else if (desired_replicas > maximum) {
    n.replicas = maximum;
  } else {
    n.replicas = desired_replicas;
    n.limited_reason = "DesiredWithinRange";
    n.limited_message = "the desired count is within the acceptable range";
  }
  n.limited = n.replicas != desired_replicas;
  return n;
}

}  // namespace knobsim::autoscaling
