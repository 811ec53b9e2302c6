// The HPA's behavior rules (stabilization windows, scale-rate policies, scale events, the legacy
// rules, the API defaults, the per-HPA tolerances) against upstream's own test tables:
//  * kubernetes/kubernetes pkg/controller/podautoscaler/horizontal_test.go, read through the
//    code-search index: the newest stored version is the omerap12/kubernetes fork at commit
//    060da1681551ba64d82dad3c8d4246ab81760d4d (file id 54693770825, 267 318 characters; the one
//    with TestConfigurableTolerance); the behavior tables were compared with kubernetes/kubernetes
//    at commit 003e86297d18a8538c9da3619871393f9703bf70 (file id 22044922564, 204 160
//    characters), which has the same numbers plus two table rows the newer one dropped (marked
//    "003e862 only" below). TestScalingWithRules, TestStoreScaleEvents,
//    TestNormalizeDesiredReplicasWithBehavior, TestNormalizeDesiredReplicas,
//    TestConvertDesiredReplicasWithRules, TestCalculateScaleUpLimitWithScalingRules,
//    TestCalculateScaleDownLimitWithBehaviors and TestConfigurableTolerance are from there.
//  * kubernetes/kubernetes pkg/apis/autoscaling/v2/defaults_test.go at commit
//    0a74a85ed8c08e0f0588ecc4a764883698a1b99e: TestGenerateScaleDownRules and
//    TestGenerateScaleUpRules.
//
// Upstream's harness, as reproduced here:
//  * time.Now() is kNow (10 000 s); an event or recommendation made "time.Now().Add(-N)" is at
//    kNow - N exactly. Upstream's code reads time.Now() again a little later, so its cutoffs lie
//    a few microseconds after ours; no case sits close enough to a cutoff for that to matter,
//    except where generateEventsUniformDistribution puts an event exactly one period back (see
//    EventsUniformDistribution): upstream's later clock then leaves it just outside the period,
//    and After(cutoff) leaves it outside here too.
//  * generateScalingRules(pods, podsPeriod, percent, percentPeriod, window) is
//    GenerateScalingRules; the table's rules go through GenerateHPAScaleUpRules /
//    GenerateHPAScaleDownRules, here DefaultedScaleUp / DefaultedScaleDown with the
//    controller's 5-minute downscale window.
//  * convertDesiredReplicasWithBehaviorRate and stabilizeRecommendationWithBehaviors are one
//    function here (NormalizeWithBehaviors). TestScalingWithRules runs it with no recommendations,
//    so the stabilization passes the proposal through; TestNormalizeDesiredReplicasWithBehavior
//    runs it with rate policies and bounds too wide to bind (WideRules, kWideMax), so the result
//    is the stabilized recommendation. stabilizeRecommendation and convertDesiredReplicasWithRules
//    are likewise one function (NormalizeLegacy); TestNormalizeDesiredReplicas runs it with a
//    current count and bounds that change nothing.
//  * The AbleToScale reason checked beside the table's own expectations (ReadyForNewScale,
//    ScaleUpStabilized, ScaleDownStabilized) is the one horizontal.go's
//    normalizeDesiredReplicas(WithBehaviors) sets from the stabilized value.
//  * TestConfigurableTolerance runs upstream's testCase harness: pod test-pod-i requests
//    reportedCPURequests[i] in two containers of half each, reports reportedLevels[i] / 2 per
//    container (integer halves), started at the zero time with Ready=True since then; the sample
//    is taken now with a 1-minute window; the controller has tolerance 0.1, a 5-minute downscale
//    window, CPU initialization period 2 min, initial readiness delay 10 s. Here through
//    HorizontalController::Reconcile.
//
// Not translated:
//  * TestConfigurableTolerance "No scaling because the configurable tolerance is ignored as the
//    feature gate is disabled": knobsim has no HPAConfigurableTolerance gate; TolerancesOf always
//    reads the HPA's tolerances.
//  * The timestamps of stored events and recommendations: upstream compares only the replica
//    changes, outdated flags and recommendation values (so does this file), the time being
//    time.Now() at the call.
// Translated with a difference:
//  * TestConvertDesiredReplicasWithRules "scaleUpLimit is the limit because scaleUpLimit <
//    maxReplicas" expects calculateScaleUpLimit(3) under the test binary's init(), which sets
//    scaleUpLimitFactor = 8 (24 replicas); ConvertDesiredReplicasWithRules has the controller's
//    factor 2, so the expectation is max(2 × 3, 4) = 6, still "ScaleUpLimit".
//  * TestGenerateScaleDownRules expects a nil stabilization window where the HPA sets none (the
//    controller fills it later, maybeInitScaleDownStabilizationWindow); DefaultedScaleDown does
//    both, so the expectation is the controller's window (300 s here).
//  * TestScalingWithRules "scaleDownLimit is the limit because scaleDownLimit > minReplicas with
//    user defined policies" (003e862 only) is skipped upstream (testThis: true returns before the
//    checks) and gone from the newer version; it is run here with its table values, which the
//    upstream algorithm gives.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/autoscaling/horizontal_controller.h"
#include "sim/autoscaling/hpa_behavior.h"
#include "sim/autoscaling/replica_calculator.h"
#include "sim/event_queue.h"
#include "sim/hpa_spec.h"

namespace knobsim::autoscaling {
namespace {

constexpr SimTime kSecond = kNanosPerSecond;
constexpr SimTime kMinute = 60 * kSecond;
constexpr SimTime kNow = 10'000 * kSecond;  // time.Now()
// The controller's --horizontal-pod-autoscaler-downscale-stabilization in upstream's harness.
constexpr SimTime kDownscaleWindow = 5 * kMinute;
constexpr int32_t kWideMax = 1'000'000;

constexpr HpaPolicyType kPods = HpaPolicyType::kPods;
constexpr HpaPolicyType kPercent = HpaPolicyType::kPercent;
constexpr HpaSelectPolicy kMax = HpaSelectPolicy::kMax;
constexpr HpaSelectPolicy kMin = HpaSelectPolicy::kMin;

// time.Now().Add(-seconds).
SimTime Ago(int64_t seconds) {
  return kNow - seconds * kSecond;
}

// generateScalingRules: MaxChangePolicySelect, the window, a Pods and/or a Percent policy.
HpaScalingRules GenerateScalingRules(int32_t pods, int32_t pods_period, int32_t percent,
                                     int32_t percent_period, int32_t stabilization_window) {
  HpaScalingRules r;
  r.stabilization_window_s = stabilization_window;
  r.select_policy = kMax;
  if (pods != 0) r.policies.push_back({kPods, pods, pods_period});
  if (percent != 0) r.policies.push_back({kPercent, percent, percent_period});
  return r;
}

// generateEventsUniformDistribution: event i in the middle of the i-th of len(raw) equal
// segments of the last period_s seconds, oldest first. Upstream converts the offset to a
// time.Duration (an integer) before multiplying by time.Second: whole seconds, truncated.
// {1, 5, 9} over 120 s: 100, 60, 20 s ago; {8, 12, 9, 11} over 120 s: 105, 75, 45, 15 s ago;
// one event over 120 s: 60 s ago.
std::vector<ScaleEvent> EventsUniformDistribution(const std::vector<int32_t>& raw, int period_s) {
  std::vector<ScaleEvent> events;
  const double segment = static_cast<double>(period_s) / static_cast<double>(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto boundary = static_cast<int64_t>(static_cast<double>(period_s) -
                                               segment * static_cast<double>(i + 1) + segment / 2);
    events.push_back({raw[i], Ago(boundary), false});
  }
  return events;
}

void CheckPolicies(const std::vector<HpaScalingPolicy>& got,
                   const std::vector<HpaScalingPolicy>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].type == want[i].type);
    CHECK(got[i].value == want[i].value);
    CHECK(got[i].period_s == want[i].period_s);
  }
}

// ---------------------------------------------------------------------------------------------
// calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors.

TEST_CASE("HpaBehavior: TestCalculateScaleUpLimitWithScalingRules (upstream horizontal_test.go)") {
  HpaScalingRules rules;
  rules.stabilization_window_s = 300;
  rules.select_policy = kMin;
  rules.policies = {{kPods, 2, 60}, {kPercent, 50, 60}};
  // Min of 1 + 2 and ceil(1 × 1.5).
  CHECK(ScaleUpLimit(1, HpaHistory{}, rules, kNow) == 2);
}

TEST_CASE("HpaBehavior: TestCalculateScaleDownLimitWithBehaviors (upstream horizontal_test.go)") {
  HpaScalingRules rules;
  rules.stabilization_window_s = 300;
  rules.select_policy = kMin;
  rules.policies = {{kPods, 2, 60}, {kPercent, 50, 60}};
  // The smallest change: max of 5 - 2 and int(5 × 0.5).
  CHECK(ScaleDownLimit(5, HpaHistory{}, rules, kNow) == 3);
}

// ---------------------------------------------------------------------------------------------
// TestScalingWithRules: convertDesiredReplicasWithBehaviorRate's table.

struct ScalingWithRulesCase {
  const char* name = "";
  std::vector<ScaleEvent> scale_up_events = {};
  std::vector<ScaleEvent> scale_down_events = {};
  int32_t spec_min_replicas = 0;
  int32_t spec_max_replicas = 0;
  std::optional<HpaScalingRules> scale_up_rules = {};
  std::optional<HpaScalingRules> scale_down_rules = {};
  int32_t current_replicas = 0;
  int32_t prenormalized_desired_replicas = 0;
  int32_t expected_replicas = 0;
  const char* expected_condition = "";
};

std::vector<ScalingWithRulesCase> ScalingWithRulesCases() {
  const std::vector<ScaleEvent> up159 = EventsUniformDistribution({1, 5, 9}, 120);
  const std::vector<ScaleEvent> four_events = EventsUniformDistribution({8, 12, 9, 11}, 120);
  const std::vector<ScaleEvent> tens = EventsUniformDistribution({10, 10, 10}, 120);
  return {
      {.name = "prenormalized desired replicas within range",
       .spec_min_replicas = 3,
       .spec_max_replicas = 8,
       .current_replicas = 5,
       .prenormalized_desired_replicas = 7,
       .expected_replicas = 7,
       .expected_condition = "DesiredWithinRange"},
      {.name = "prenormalized desired replicas < minReplicas",
       .spec_min_replicas = 2,
       .spec_max_replicas = 8,
       .current_replicas = 3,
       .prenormalized_desired_replicas = 1,
       .expected_replicas = 2,
       .expected_condition = "TooFewReplicas"},
      {.name = "prenormalized desired replicas within range when minReplicas is 0",
       .spec_min_replicas = 0,
       .spec_max_replicas = 10,
       .current_replicas = 1,
       .prenormalized_desired_replicas = 0,
       .expected_replicas = 0,
       .expected_condition = "DesiredWithinRange"},
      {.name = "maxReplicas is the limit because maxReplicas < scaleUpLimit",
       .spec_min_replicas = 1,
       .spec_max_replicas = 10,
       .current_replicas = 20,
       .prenormalized_desired_replicas = 1000,
       .expected_replicas = 10,
       .expected_condition = "TooManyReplicas"},
      {.name = "desired replica count is more than the maximum replica count",
       .spec_min_replicas = 100,
       .spec_max_replicas = 150,
       .current_replicas = 100,
       .prenormalized_desired_replicas = 1000,
       .expected_replicas = 150,
       .expected_condition = "TooManyReplicas"},
      {.name = "scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies",
       .spec_min_replicas = 1,
       .spec_max_replicas = 2000,
       .scale_up_rules = GenerateScalingRules(0, 0, 1, 60, 0),
       .current_replicas = 3,
       .prenormalized_desired_replicas = 1000,
       .expected_replicas = 4,
       .expected_condition = "ScaleUpLimit"},
      // 003e862 only, skipped there (testThis): see the note at the top.
      {.name = "scaleDownLimit is the limit because scaleDownLimit > minReplicas with user "
               "defined policies",
       .spec_min_replicas = 3,
       .spec_max_replicas = 2000,
       .scale_down_rules = GenerateScalingRules(20, 60, 0, 0, 0),
       .current_replicas = 1000,
       .prenormalized_desired_replicas = 3,
       .expected_replicas = 980,
       .expected_condition = "ScaleDownLimit"},
      // ScaleUp without PeriodSeconds usage
      {.name = "scaleUp with default behavior",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .current_replicas = 10,
       .prenormalized_desired_replicas = 50,
       .expected_replicas = 20,
       .expected_condition = "ScaleUpLimit"},
      {.name = "scaleUp with pods policy larger than percent policy",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(100, 60, 100, 60, 0),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 500,
       .expected_replicas = 110,
       .expected_condition = "ScaleUpLimit"},
      {.name = "scaleUp with percent policy larger than pods policy",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(2, 60, 100, 60, 0),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 500,
       .expected_replicas = 20,
       .expected_condition = "ScaleUpLimit"},
      {.name = "scaleUp with spec MaxReplicas limitation with large pod policy",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(100, 60, 0, 0, 0),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 50,
       .expected_replicas = 50,
       .expected_condition = "DesiredWithinRange"},
      {.name = "scaleUp with spec MaxReplicas limitation with large percent policy",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(10000, 60, 0, 0, 0),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 50,
       .expected_replicas = 50,
       .expected_condition = "DesiredWithinRange"},
      {.name = "scaleUp with pod policy limitation",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(30, 60, 0, 0, 0),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 50,
       .expected_replicas = 40,
       .expected_condition = "ScaleUpLimit"},
      {.name = "scaleUp with percent policy limitation",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(0, 0, 200, 60, 0),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 50,
       .expected_replicas = 30,
       .expected_condition = "ScaleUpLimit"},
      {.name = "scaleDown with percent policy larger than pod policy",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(20, 60, 1, 60, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 2,
       .expected_replicas = 80,
       .expected_condition = "ScaleDownLimit"},
      {.name = "scaleDown with pod policy larger than percent policy",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(2, 60, 1, 60, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 2,
       .expected_replicas = 98,
       .expected_condition = "ScaleDownLimit"},
      // 003e862 only (the newer version keeps the next row, with the same numbers).
      {.name = "scaleDown with spec MinReplicas=nil limitation with large pod policy",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(100, 60, 0, 0, 300),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 0,
       .expected_replicas = 1,
       .expected_condition = "TooFewReplicas"},
      {.name = "scaleDown with spec MinReplicas limitation with large pod policy",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(100, 60, 0, 0, 300),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 0,
       .expected_replicas = 1,
       .expected_condition = "TooFewReplicas"},
      {.name = "scaleDown with spec MinReplicas limitation with large percent policy",
       .spec_min_replicas = 5,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(0, 0, 100, 60, 300),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 2,
       .expected_replicas = 5,
       .expected_condition = "TooFewReplicas"},
      {.name = "scaleDown with pod policy limitation",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(5, 60, 0, 0, 300),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 2,
       .expected_replicas = 5,
       .expected_condition = "ScaleDownLimit"},
      {.name = "scaleDown with percent policy limitation",
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(0, 0, 50, 60, 300),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 5,
       .expected_replicas = 5,
       .expected_condition = "DesiredWithinRange"},
      {.name = "scaleUp with spec MaxReplicas limitation with large pod policy and events",
       .scale_up_events = up159,
       .spec_min_replicas = 1,
       .spec_max_replicas = 200,
       .scale_up_rules = GenerateScalingRules(300, 60, 0, 0, 0),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 500,
       .expected_replicas = 200,  // 200 < 100 - 9 + 300 (the events of the last 60 s: 9)
       .expected_condition = "TooManyReplicas"},
      {.name = "scaleUp with spec MaxReplicas limitation with large percent policy and events",
       .scale_up_events = up159,
       .spec_min_replicas = 1,
       .spec_max_replicas = 200,
       .scale_up_rules = GenerateScalingRules(0, 0, 10000, 60, 0),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 500,
       .expected_replicas = 200,
       .expected_condition = "TooManyReplicas"},
      // A lot of recent scale-ups: 120 s ago there were 100 - 15; + 5 is below the current 100,
      // which is kept.
      {.name = "scaleUp with currentReplicas limitation with rate.PeriodSeconds with a lot of "
               "recent scale up events",
       .scale_up_events = up159,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(5, 120, 0, 0, 0),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 500,
       .expected_replicas = 100,
       .expected_condition = "ScaleUpLimit"},
      {.name = "scaleUp with pod policy and previous scale up events",
       .scale_up_events = up159,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(150, 120, 0, 0, 0),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 500,
       .expected_replicas = 235,  // 100 - 15 + 150
       .expected_condition = "ScaleUpLimit"},
      {.name = "scaleUp with percent policy and previous scale up events",
       .scale_up_events = up159,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(0, 0, 200, 120, 0),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 500,
       .expected_replicas = 255,  // (100 - 15) + 200 %
       .expected_condition = "ScaleUpLimit"},
      {.name = "scaleUp with percent policy and previous scale up and down events",
       .scale_up_events = EventsUniformDistribution({4}, 120),
       .scale_down_events = EventsUniformDistribution({2}, 120),
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(0, 0, 300, 300, 0),
       .current_replicas = 6,
       .prenormalized_desired_replicas = 24,
       .expected_replicas = 16,  // (6 - 4 + 2) + 300 %
       .expected_condition = "ScaleUpLimit"},
      // ScaleDown with PeriodSeconds usage
      {.name = "scaleDown with default policy and previous events",
       .scale_down_events = up159,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .current_replicas = 10,
       .prenormalized_desired_replicas = 5,
       .expected_replicas = 5,
       .expected_condition = "DesiredWithinRange"},
      {.name = "scaleDown with spec MinReplicas=nil limitation with large pod policy and "
               "previous events",
       .scale_down_events = up159,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(115, 120, 0, 0, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 0,
       .expected_replicas = 1,
       .expected_condition = "TooFewReplicas"},
      {.name = "scaleDown with spec MinReplicas limitation with large pod policy and previous "
               "events",
       .scale_down_events = up159,
       .spec_min_replicas = 5,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(130, 120, 0, 0, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 0,
       .expected_replicas = 5,
       .expected_condition = "TooFewReplicas"},
      {.name = "scaleDown with spec MinReplicas limitation with large percent policy and "
               "previous events",
       .scale_down_events = up159,
       .spec_min_replicas = 5,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(0, 0, 100, 120, 300),  // 100 %: always to 0
       .current_replicas = 100,
       .prenormalized_desired_replicas = 2,
       .expected_replicas = 5,
       .expected_condition = "TooFewReplicas"},
      {.name = "scaleDown with pod policy limitation and previous events",
       .scale_down_events = up159,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(5, 120, 0, 0, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 2,
       .expected_replicas = 100,  // 100 + 15 - 5 is above the current 100
       .expected_condition = "ScaleDownLimit"},
      {.name = "scaleDown with percent policy limitation and previous events",
       .scale_down_events = EventsUniformDistribution({2, 4, 6}, 120),
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(0, 0, 50, 120, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 0,
       .expected_replicas = 56,  // (100 + 12) - 50 %
       .expected_condition = "ScaleDownLimit"},
      {.name = "scaleDown with percent policy and previous scale up and down events",
       .scale_up_events = EventsUniformDistribution({2}, 120),
       .scale_down_events = EventsUniformDistribution({4}, 120),
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(0, 0, 50, 180, 0),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 1,
       .expected_replicas = 6,  // (10 - 2 + 4) - 50 %
       .expected_condition = "ScaleDownLimit"},
      // (100 + 30) - 10 % = 117 is above the current 100: keep 100.
      {.name = "scaleDown with previous events preventing further scale down",
       .scale_down_events = tens,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(0, 0, 10, 120, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 0,
       .expected_replicas = 100,
       .expected_condition = "ScaleDownLimit"},
      // (10 + 30) - 1000 % = -360 is below 0 and below the 5 the metrics ask for: 5.
      {.name = "scaleDown with with previous events still allowing more scale down",
       .scale_down_events = tens,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(0, 0, 1000, 120, 300),
       .current_replicas = 10,
       .prenormalized_desired_replicas = 5,
       .expected_replicas = 5,
       .expected_condition = "DesiredWithinRange"},
      {.name = "check 'outdated' flag for events for one behavior for up",
       .scale_up_events = four_events,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(1000, 60, 0, 0, 0),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 200,
       .expected_replicas = 200,
       .expected_condition = "DesiredWithinRange"},
      {.name = "check that events were not marked 'outdated' for two different policies in the "
               "behavior for up",
       .scale_up_events = four_events,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(1000, 120, 100, 60, 0),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 200,
       .expected_replicas = 200,
       .expected_condition = "DesiredWithinRange"},
      {.name = "check that events were marked 'outdated' for two different policies in the "
               "behavior for up",
       .scale_up_events = four_events,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_up_rules = GenerateScalingRules(1000, 30, 100, 60, 0),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 200,
       .expected_replicas = 200,
       .expected_condition = "DesiredWithinRange"},
      {.name = "check 'outdated' flag for events for one behavior for down",
       .scale_down_events = four_events,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(1000, 60, 0, 0, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 5,
       .expected_replicas = 5,
       .expected_condition = "DesiredWithinRange"},
      {.name = "check that events were not marked 'outdated' for two different policies in the "
               "behavior for down",
       .scale_down_events = four_events,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(1000, 120, 100, 60, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 5,
       .expected_replicas = 5,
       .expected_condition = "DesiredWithinRange"},
      {.name = "check that events were marked 'outdated' for two different policies in the "
               "behavior for down",
       .scale_down_events = four_events,
       .spec_min_replicas = 1,
       .spec_max_replicas = 1000,
       .scale_down_rules = GenerateScalingRules(1000, 30, 100, 60, 300),
       .current_replicas = 100,
       .prenormalized_desired_replicas = 5,
       .expected_replicas = 5,
       .expected_condition = "DesiredWithinRange"},
  };
}

TEST_CASE("HpaBehavior: TestScalingWithRules (upstream horizontal_test.go)") {
  for (const ScalingWithRulesCase& c : ScalingWithRulesCases()) {
    SUBCASE(c.name) {
      HpaHistory history;
      history.scale_up_events = c.scale_up_events;
      history.scale_down_events = c.scale_down_events;
      const Normalized n = NormalizeWithBehaviors(
          history, DefaultedScaleUp(c.scale_up_rules),
          DefaultedScaleDown(c.scale_down_rules, kDownscaleWindow), c.spec_min_replicas,
          c.spec_max_replicas, c.current_replicas, c.prenormalized_desired_replicas, kNow);
      CHECK(n.replicas == c.expected_replicas);
      CHECK(n.limited_reason == c.expected_condition);
      // No recommendations: the stabilization keeps the proposal.
      CHECK(n.able_reason == "ReadyForNewScale");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// TestStoreScaleEvents: storeScaleEvent, each case once for a scale-up (10 → 10 + change) and
// once for a scale-down (10 → 10 - change), the rules being the behavior's direction.

struct StoreCase {
  const char* name = "";
  int32_t replica_change = 0;
  std::vector<ScaleEvent> prev_scale_events = {};
  std::vector<ScaleEvent> new_scale_events = {};  // only change and outdated are compared
  std::optional<HpaScalingRules> scaling_rules = {};
  int32_t expected_replicas_change = 0;  // getReplicasChangePerPeriod(60, prev) before storing
};

std::vector<StoreCase> StoreCases() {
  return {
      {.name = "empty entries with default behavior",
       .replica_change = 5,
       .prev_scale_events = {},  // no history -> 0 replica change
       .new_scale_events = {},   // no behavior -> no events are stored
       .expected_replicas_change = 0},
      {.name = "empty entries with two-policy-behavior",
       .replica_change = 5,
       .prev_scale_events = {},
       .new_scale_events = {{5, kNow, false}},
       .scaling_rules = GenerateScalingRules(10, 60, 100, 60, 0),
       .expected_replicas_change = 0},
      {.name = "one outdated entry to be kept untouched without behavior",
       .replica_change = 5,
       .prev_scale_events = {{7, Ago(61), false}},
       .new_scale_events = {{7, kNow, false}},  // no behavior -> stored events are not touched
       .expected_replicas_change = 0},
      {.name = "one outdated entry to be replaced with behavior",
       .replica_change = 5,
       .prev_scale_events = {{7, Ago(61), false}},  // outdated, replaced
       .new_scale_events = {{5, kNow, false}},
       .scaling_rules = GenerateScalingRules(10, 60, 100, 60, 0),
       .expected_replicas_change = 0},
      {.name = "one actual entry to be not touched with behavior",
       .replica_change = 5,
       .prev_scale_events = {{7, Ago(58), false}},
       .new_scale_events = {{7, kNow, false}, {5, kNow, false}},
       .scaling_rules = GenerateScalingRules(10, 60, 100, 60, 0),
       .expected_replicas_change = 7},
      {.name = "two entries, one of them to be replaced",
       .replica_change = 5,
       .prev_scale_events = {{7, Ago(61), false},  // outdated, replaced
                             {6, Ago(59), false}},
       .new_scale_events = {{5, kNow, false}, {6, kNow, false}},
       .scaling_rules = GenerateScalingRules(10, 60, 0, 0, 0),
       .expected_replicas_change = 6},
      {.name = "replace one entry, use policies with different periods",
       .replica_change = 5,
       .prev_scale_events = {{8, Ago(29), false},
                             {6, Ago(59), false},
                             {7, Ago(61), false},   // outdated, marked as outdated
                             {9, Ago(61), false}},  // outdated, replaced (the last one)
       .new_scale_events = {{8, kNow, false}, {6, kNow, false}, {7, kNow, true}, {5, kNow, false}},
       .scaling_rules = GenerateScalingRules(10, 60, 100, 30, 0),
       .expected_replicas_change = 14},
      {.name = "two entries, both actual",
       .replica_change = 5,
       .prev_scale_events = {{7, Ago(58), false}, {6, Ago(59), false}},
       .new_scale_events = {{7, kNow, false}, {6, kNow, false}, {5, kNow, false}},
       .scaling_rules = GenerateScalingRules(10, 120, 100, 30, 0),
       .expected_replicas_change = 13},
  };
}

void CheckEvents(const std::vector<ScaleEvent>& got, const std::vector<ScaleEvent>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].change == want[i].change);
    CHECK(got[i].outdated == want[i].outdated);
  }
}

TEST_CASE("HpaBehavior: TestStoreScaleEvents (upstream horizontal_test.go)") {
  for (const StoreCase& c : StoreCases()) {
    SUBCASE(c.name) {
      SUBCASE("up") {
        std::optional<HpaBehavior> behavior;
        if (c.scaling_rules) behavior = HpaBehavior{c.scaling_rules, std::nullopt};
        HpaHistory history;
        history.scale_up_events = c.prev_scale_events;
        CHECK(ReplicasChangePerPeriod(60, history.scale_up_events, kNow) ==
              c.expected_replicas_change);
        StoreScaleEvent(history, behavior, 10, 10 + c.replica_change, kNow, kDownscaleWindow);
        CheckEvents(history.scale_up_events, c.new_scale_events);
        CHECK(history.scale_down_events.empty());
      }
      SUBCASE("down") {
        std::optional<HpaBehavior> behavior;
        if (c.scaling_rules) behavior = HpaBehavior{std::nullopt, c.scaling_rules};
        HpaHistory history;
        history.scale_down_events = c.prev_scale_events;
        CHECK(ReplicasChangePerPeriod(60, history.scale_down_events, kNow) ==
              c.expected_replicas_change);
        StoreScaleEvent(history, behavior, 10, 10 - c.replica_change, kNow, kDownscaleWindow);
        CheckEvents(history.scale_down_events, c.new_scale_events);
        CHECK(history.scale_up_events.empty());
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// TestNormalizeDesiredReplicasWithBehavior: stabilizeRecommendationWithBehaviors with only the
// windows set; the rates and bounds here are too wide to change the stabilized value.

HpaScalingRules WideRules(int32_t stabilization_window) {
  HpaScalingRules r;
  r.stabilization_window_s = stabilization_window;
  r.select_policy = kMax;
  r.policies = {{kPods, kWideMax, 15}, {kPercent, 100, 15}};
  return r;
}

struct StabilizeCase {
  const char* name = "";
  std::vector<TimedRecommendation> recommendations = {};
  int32_t current_replicas = 0;
  int32_t prenormalized_desired_replicas = 0;
  int32_t expected_stabilized_replicas = 0;
  std::optional<std::vector<int32_t>> expected_recommendations = {};  // unset: not checked
  int32_t scale_up_stabilization_window_seconds = 0;
  int32_t scale_down_stabilization_window_seconds = 0;
};

std::vector<StabilizeCase> StabilizeCases() {
  const SimTime now = kNow;
  return {
      {.name = "empty recommendations for scaling down",
       .recommendations = {},
       .current_replicas = 100,
       .prenormalized_desired_replicas = 5,
       .expected_stabilized_replicas = 5,
       .expected_recommendations = std::vector<int32_t>{5}},
      {.name = "simple scale down stabilization",
       .recommendations = {{4, now - 2 * kMinute}, {5, now - 1 * kMinute}},
       .current_replicas = 100,
       .prenormalized_desired_replicas = 3,
       .expected_stabilized_replicas = 5,
       .expected_recommendations = std::vector<int32_t>{4, 5, 3},
       .scale_down_stabilization_window_seconds = 60 * 3},
      {.name = "simple scale up stabilization",
       .recommendations = {{4, now - 2 * kMinute}, {5, now - 1 * kMinute}},
       .current_replicas = 1,
       .prenormalized_desired_replicas = 7,
       .expected_stabilized_replicas = 4,
       .expected_recommendations = std::vector<int32_t>{4, 5, 7},
       .scale_up_stabilization_window_seconds = 60 * 5},
      {.name = "no scale down stabilization",
       .recommendations = {{1, now - 2 * kMinute}, {2, now - 1 * kMinute}},
       .current_replicas = 100,  // to apply scaleDown delay we should have current > desired
       .prenormalized_desired_replicas = 3,
       .expected_stabilized_replicas = 3,
       .expected_recommendations = std::vector<int32_t>{1, 2, 3},
       .scale_up_stabilization_window_seconds = 60 * 5},
      {.name = "no scale up stabilization",
       .recommendations = {{4, now - 2 * kMinute}, {5, now - 1 * kMinute}},
       .current_replicas = 1,
       .prenormalized_desired_replicas = 3,
       .expected_stabilized_replicas = 3,
       .expected_recommendations = std::vector<int32_t>{4, 5, 3},
       .scale_down_stabilization_window_seconds = 60 * 5},
      {.name = "no scale down stabilization, reuse recommendation element",
       .recommendations = {{10, now - 10 * kMinute}, {9, now - 9 * kMinute}},
       .current_replicas = 100,
       .prenormalized_desired_replicas = 3,
       .expected_stabilized_replicas = 3,
       .expected_recommendations = std::vector<int32_t>{10, 3}},
      {.name = "no scale up stabilization, reuse recommendation element",
       .recommendations = {{10, now - 10 * kMinute}, {9, now - 9 * kMinute}},
       .current_replicas = 1,
       .prenormalized_desired_replicas = 100,
       .expected_stabilized_replicas = 100,
       .expected_recommendations = std::vector<int32_t>{10, 100}},
      {.name = "scale down stabilization, reuse one of obsolete recommendation element",
       .recommendations = {{10, now - 10 * kMinute},
                           {4, now - 1 * kMinute},
                           {5, now - 2 * kMinute},
                           {9, now - 9 * kMinute}},
       .current_replicas = 100,
       .prenormalized_desired_replicas = 3,
       .expected_stabilized_replicas = 5,
       .expected_recommendations = std::vector<int32_t>{10, 4, 5, 3},
       .scale_down_stabilization_window_seconds = 3 * 60},
      // Only the first recommendation is older than both windows, so only it is reused.
      {.name = "scale up stabilization, reuse one of obsolete recommendation element",
       .recommendations = {{10, now - 100 * kMinute},
                           {6, now - 1 * kMinute},
                           {5, now - 2 * kMinute},
                           {9, now - 3 * kMinute}},
       .current_replicas = 1,
       .prenormalized_desired_replicas = 100,
       .expected_stabilized_replicas = 5,
       .expected_recommendations = std::vector<int32_t>{100, 6, 5, 9},
       .scale_up_stabilization_window_seconds = 300},
      {.name = "scale up and down stabilization, do not scale up when prenormalized rec goes "
               "down",
       .recommendations = {{2, now - 100 * kMinute}, {3, now - 3 * kMinute}},
       .current_replicas = 2,
       .prenormalized_desired_replicas = 1,
       .expected_stabilized_replicas = 2,
       .scale_up_stabilization_window_seconds = 300,
       .scale_down_stabilization_window_seconds = 300},
      {.name = "scale up and down stabilization, do not scale down when prenormalized rec goes "
               "up",
       .recommendations = {{2, now - 100 * kMinute}, {1, now - 3 * kMinute}},
       .current_replicas = 2,
       .prenormalized_desired_replicas = 3,
       .expected_stabilized_replicas = 2,
       .scale_up_stabilization_window_seconds = 300,
       .scale_down_stabilization_window_seconds = 300},
  };
}

TEST_CASE("HpaBehavior: TestNormalizeDesiredReplicasWithBehavior (upstream horizontal_test.go)") {
  for (const StabilizeCase& c : StabilizeCases()) {
    SUBCASE(c.name) {
      HpaHistory history;
      history.recommendations = c.recommendations;
      const Normalized n = NormalizeWithBehaviors(
          history, DefaultedScaleUp(WideRules(c.scale_up_stabilization_window_seconds)),
          DefaultedScaleDown(WideRules(c.scale_down_stabilization_window_seconds),
                             kDownscaleWindow),
          0, kWideMax, c.current_replicas, c.prenormalized_desired_replicas, kNow);
      CHECK(n.replicas == c.expected_stabilized_replicas);
      CHECK(n.limited_reason == "DesiredWithinRange");
      // normalizeDesiredReplicasWithBehaviors' AbleToScale reason.
      if (c.expected_stabilized_replicas == c.prenormalized_desired_replicas) {
        CHECK(n.able_reason == "ReadyForNewScale");
      } else if (c.prenormalized_desired_replicas >= c.current_replicas) {
        CHECK(n.able_reason == "ScaleUpStabilized");
      } else {
        CHECK(n.able_reason == "ScaleDownStabilized");
      }
      if (c.expected_recommendations) {
        const std::vector<int32_t>& want = *c.expected_recommendations;
        REQUIRE(history.recommendations.size() == want.size());
        for (size_t i = 0; i < want.size(); ++i) {
          CAPTURE(i);
          CHECK(history.recommendations[i].replicas == want[i]);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// TestNormalizeDesiredReplicas: the legacy stabilizeRecommendation (the highest recommendation
// of the controller's 5-minute window), with a current count of 10 and bounds 0..1000 that the
// legacy conversion leaves alone.

struct LegacyCase {
  const char* name = "";
  std::vector<TimedRecommendation> recommendations = {};
  int32_t prenormalized_desired_replicas = 0;
  int32_t expected_stabilized_replicas = 0;
  size_t expected_log_length = 0;
};

TEST_CASE("HpaBehavior: TestNormalizeDesiredReplicas (upstream horizontal_test.go)") {
  const LegacyCase cases[] = {
      {"empty log", {}, 5, 5, 1},
      {"stabilize", {{4, Ago(2 * 60)}, {5, Ago(1 * 60)}}, 3, 5, 3},
      {"no stabilize", {{1, Ago(2 * 60)}, {2, Ago(1 * 60)}}, 3, 3, 3},
      {"no stabilize - old recommendations", {{10, Ago(10 * 60)}, {9, Ago(9 * 60)}}, 3, 3, 2},
      {"stabilize - old recommendations",
       {{10, Ago(10 * 60)}, {4, Ago(1 * 60)}, {5, Ago(2 * 60)}, {9, Ago(9 * 60)}},
       3,
       5,
       4},
  };
  for (const LegacyCase& c : cases) {
    SUBCASE(c.name) {
      HpaHistory history;
      history.recommendations = c.recommendations;
      const Normalized n = NormalizeLegacy(history, 0, 1000, 10, c.prenormalized_desired_replicas,
                                           kNow, kDownscaleWindow);
      CHECK(n.replicas == c.expected_stabilized_replicas);
      CHECK(history.recommendations.size() == c.expected_log_length);
      CHECK(n.limited_reason == "DesiredWithinRange");
      // normalizeDesiredReplicas' AbleToScale reason.
      CHECK(n.able_reason == (c.expected_stabilized_replicas != c.prenormalized_desired_replicas
                                  ? "ScaleDownStabilized"
                                  : "ReadyForNewScale"));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// TestConvertDesiredReplicasWithRules: the legacy bounds and scale-up limit.

TEST_CASE("HpaBehavior: TestConvertDesiredReplicasWithRules (upstream horizontal_test.go)") {
  struct Case {
    int32_t current_replicas;
    int32_t expected_desired_replicas;  // upstream's name for the proposal
    int32_t hpa_min_replicas;
    int32_t hpa_max_replicas;
    int32_t expected_converted_desired_replicas;
    const char* expected_condition;
    const char* annotation;
  };
  const Case cases[] = {
      {5, 7, 3, 8, 7, "DesiredWithinRange", "prenormalized desired replicas within range"},
      {3, 1, 2, 8, 2, "TooFewReplicas", "prenormalized desired replicas < minReplicas"},
      {1, 0, 0, 10, 0, "DesiredWithinRange", "prenormalized desired zeroed replicas within range"},
      {20, 1000, 1, 10, 10, "TooManyReplicas",
       "maxReplicas is the limit because maxReplicas < scaleUpLimit"},
      // calculateScaleUpLimit(3) with the controller's factor 2 (upstream's test binary uses 8).
      {3, 1000, 1, 2000, 6, "ScaleUpLimit",
       "scaleUpLimit is the limit because scaleUpLimit < maxReplicas"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.annotation) {
      const Normalized n = ConvertDesiredReplicasWithRules(
          c.current_replicas, c.expected_desired_replicas, c.hpa_min_replicas, c.hpa_max_replicas);
      CHECK(n.replicas == c.expected_converted_desired_replicas);
      CHECK(n.limited_reason == c.expected_condition);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// defaults_test.go: GenerateHPAScaleDownRules / GenerateHPAScaleUpRules.

struct DefaultsCase {
  const char* annotation = "";
  int32_t rate_pods = 0;
  int32_t rate_pods_period_seconds = 0;
  int32_t rate_percent = 0;
  int32_t rate_percent_period_seconds = 0;
  std::optional<int32_t> stabilization_seconds = {};
  std::optional<HpaSelectPolicy> select_policy = {};
  std::vector<HpaScalingPolicy> expected_policies = {};
  int32_t expected_stabilization = 0;
  HpaSelectPolicy expected_select_policy = kMax;
};

// The rules the test builds: a Pods and/or a Percent policy when either of its numbers is set.
HpaScalingRules GivenRules(const DefaultsCase& c) {
  HpaScalingRules r;
  r.stabilization_window_s = c.stabilization_seconds;
  r.select_policy = c.select_policy;
  if (c.rate_pods != 0 || c.rate_pods_period_seconds != 0)
    r.policies.push_back({kPods, c.rate_pods, c.rate_pods_period_seconds});
  if (c.rate_percent != 0 || c.rate_percent_period_seconds != 0)
    r.policies.push_back({kPercent, c.rate_percent, c.rate_percent_period_seconds});
  return r;
}

TEST_CASE("HpaBehavior: TestGenerateScaleDownRules (upstream autoscaling/v2 defaults_test.go)") {
  // Upstream expects a nil window where none is given; DefaultedScaleDown puts the controller's.
  constexpr int32_t kControllerWindow = static_cast<int32_t>(kDownscaleWindow / kSecond);
  const DefaultsCase cases[] = {
      {.annotation = "Default values",
       .expected_policies = {{kPercent, 100, 15}},
       .expected_stabilization = kControllerWindow,
       .expected_select_policy = kMax},
      {.annotation = "All parameters are specified",
       .rate_pods = 1,
       .rate_pods_period_seconds = 2,
       .rate_percent = 3,
       .rate_percent_period_seconds = 4,
       .stabilization_seconds = 25,
       .select_policy = kMax,
       .expected_policies = {{kPods, 1, 2}, {kPercent, 3, 4}},
       .expected_stabilization = 25,
       .expected_select_policy = kMax},
      {.annotation = "Percent policy is specified",
       .rate_percent = 1,
       .rate_percent_period_seconds = 2,
       .select_policy = kMin,
       .expected_policies = {{kPercent, 1, 2}},
       .expected_stabilization = kControllerWindow,
       .expected_select_policy = kMin},
      {.annotation = "Pods policy is specified",
       .rate_pods = 3,
       .rate_pods_period_seconds = 4,
       .expected_policies = {{kPods, 3, 4}},
       .expected_stabilization = kControllerWindow,
       .expected_select_policy = kMax},
  };
  for (const DefaultsCase& c : cases) {
    SUBCASE(c.annotation) {
      const HpaScalingRules down = DefaultedScaleDown(GivenRules(c), kDownscaleWindow);
      CheckPolicies(down.policies, c.expected_policies);
      REQUIRE(down.stabilization_window_s.has_value());
      CHECK(*down.stabilization_window_s == c.expected_stabilization);
      REQUIRE(down.select_policy.has_value());
      CHECK(*down.select_policy == c.expected_select_policy);
    }
  }
}

TEST_CASE("HpaBehavior: TestGenerateScaleUpRules (upstream autoscaling/v2 defaults_test.go)") {
  const DefaultsCase cases[] = {
      {.annotation = "Default values",
       .expected_policies = {{kPods, 4, 15}, {kPercent, 100, 15}},
       .expected_stabilization = 0,
       .expected_select_policy = kMax},
      {.annotation = "All parameters are specified",
       .rate_pods = 1,
       .rate_pods_period_seconds = 2,
       .rate_percent = 3,
       .rate_percent_period_seconds = 4,
       .stabilization_seconds = 25,
       .select_policy = kMax,
       .expected_policies = {{kPods, 1, 2}, {kPercent, 3, 4}},
       .expected_stabilization = 25,
       .expected_select_policy = kMax},
      {.annotation = "Pod policy is specified",
       .rate_pods = 1,
       .rate_pods_period_seconds = 2,
       .select_policy = kMin,
       .expected_policies = {{kPods, 1, 2}},
       .expected_stabilization = 0,
       .expected_select_policy = kMin},
      {.annotation = "Percent policy is specified",
       .rate_percent = 7,
       .rate_percent_period_seconds = 10,
       .expected_policies = {{kPercent, 7, 10}},
       .expected_stabilization = 0,
       .expected_select_policy = kMax},
      {.annotation = "Pod policy and stabilization window are specified",
       .rate_pods = 4,
       .rate_pods_period_seconds = 2,
       .stabilization_seconds = 25,
       .expected_policies = {{kPods, 4, 2}},
       .expected_stabilization = 25,
       .expected_select_policy = kMax},
      {.annotation = "Percent policy and stabilization window are specified",
       .rate_percent = 7,
       .rate_percent_period_seconds = 60,
       .stabilization_seconds = 25,
       .expected_policies = {{kPercent, 7, 60}},
       .expected_stabilization = 25,
       .expected_select_policy = kMax},
  };
  for (const DefaultsCase& c : cases) {
    SUBCASE(c.annotation) {
      const HpaScalingRules up = DefaultedScaleUp(GivenRules(c));
      CheckPolicies(up.policies, c.expected_policies);
      REQUIRE(up.stabilization_window_s.has_value());
      CHECK(*up.stabilization_window_s == c.expected_stabilization);
      REQUIRE(up.select_policy.has_value());
      CHECK(*up.select_policy == c.expected_select_policy);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// TestConfigurableTolerance: a CPU Utilization target of 100 %, 3 replicas, bounds 1..5.

struct ToleranceCase {
  const char* name = "";
  std::optional<HpaScalingRules> scale_up_rules = {};
  std::optional<HpaScalingRules> scale_down_rules = {};
  std::vector<int64_t> reported_levels = {};        // milli-CPU per pod
  std::vector<int64_t> reported_cpu_requests = {};  // milli-CPU per pod
  int32_t expected_desired_replicas = 0;
  const char* expected_condition_reason = "";  // AbleToScale
  Tolerances expected_tolerances = {};         // TolerancesOf, checked beside
};

HpaScalingRules ToleranceRules(double tolerance) {
  HpaScalingRules r;
  r.tolerance = tolerance;
  return r;
}

std::vector<PodSample> TolerancePods(const ToleranceCase& c) {
  std::vector<PodSample> pods;
  for (size_t i = 0; i < c.reported_levels.size(); ++i) {
    PodSample p;
    p.name = "test-pod-" + std::to_string(i);
    p.ready = true;
    p.ready_transition = 0;  // LastTransitionTime: the pod's start time, the zero time
    p.start_time = 0;
    p.value = 2 * (c.reported_levels[i] / 2);  // two containers reporting level / 2 each
    p.sample_time = kNow;
    p.sample_window = kMinute;
    p.request = 2 * (c.reported_cpu_requests[i] / 2);  // two containers requesting half each
    pods.push_back(p);
  }
  return pods;
}

TEST_CASE("HpaBehavior: TestConfigurableTolerance (upstream horizontal_test.go)") {
  const ToleranceCase cases[] = {
      {.name = "Scaling up because of a 1% configurable tolerance",
       .scale_up_rules = ToleranceRules(0.01),
       .reported_levels = {1010, 1030, 1020},
       .reported_cpu_requests = {900, 1000, 1100},
       .expected_desired_replicas = 4,
       .expected_condition_reason = "SucceededRescale",
       .expected_tolerances = {0.1, 0.01}},
      {.name = "No scale-down because of a 90% configurable tolerance",
       .scale_down_rules = ToleranceRules(0.9),
       .reported_levels = {300, 300, 300},
       .reported_cpu_requests = {1000, 1000, 1000},
       .expected_desired_replicas = 3,
       .expected_condition_reason = "ReadyForNewScale",
       .expected_tolerances = {0.9, 0.1}},
      {.name = "No scaling because of the large default tolerance",
       .reported_levels = {1010, 1030, 1020},
       .reported_cpu_requests = {900, 1000, 1100},
       .expected_desired_replicas = 3,
       .expected_condition_reason = "ReadyForNewScale",
       .expected_tolerances = {0.1, 0.1}},
  };
  for (const ToleranceCase& c : cases) {
    SUBCASE(c.name) {
      HpaSpec spec;
      spec.name = "test-hpa";
      spec.namespace_ = "test-namespace";
      spec.target_kind = "ReplicationController";
      spec.target_name = "test-rc";
      spec.min_replicas = 1;
      spec.max_replicas = 5;
      HpaMetric cpu;
      cpu.kind = HpaMetricKind::kCpu;
      cpu.name = "cpu";
      cpu.target_type = HpaTargetType::kUtilization;
      cpu.target_utilization = 100;
      spec.metrics = {cpu};
      if (c.scale_up_rules || c.scale_down_rules)
        spec.behavior = HpaBehavior{c.scale_up_rules, c.scale_down_rules};

      HpaControllerSettings settings;
      settings.tolerance = 0.1;                             // defaultTestingTolerance
      settings.downscale_stabilization = kDownscaleWindow;  // 5 min in upstream's setupController
      settings.cpu_initialization_period = 2 * kMinute;     // defaultTestingCPUInitializationPeriod
      settings.initial_readiness_delay = 10 * kSecond;  // defaultTestingDelayOfInitialReadiness...

      const Tolerances t = TolerancesOf(spec, settings.tolerance);
      CHECK(t.scale_down == doctest::Approx(c.expected_tolerances.scale_down));
      CHECK(t.scale_up == doctest::Approx(c.expected_tolerances.scale_up));

      HorizontalController controller(spec, settings);
      MetricInput input;
      input.pods = TolerancePods(c);
      const HpaDecision d = controller.Reconcile(3, 3, {input}, kNow);
      CHECK(d.desired == c.expected_desired_replicas);
      CHECK(d.active);
      CHECK(d.active_reason == "ValidMetricFound");
      // statusOkWithOverrides: ScalingLimited False, DesiredWithinRange.
      CHECK(d.normalized.limited_reason == "DesiredWithinRange");
      CHECK_FALSE(d.normalized.limited);
      // AbleToScale: SucceededRescale after a rescale, else normalization's ReadyForNewScale.
      if (std::string(c.expected_condition_reason) == "SucceededRescale") {
        CHECK(d.rescale);
      } else {
        CHECK_FALSE(d.rescale);
        CHECK(d.normalized.able_reason == c.expected_condition_reason);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The cutoffs at their boundaries (horizontal.go; no upstream table sits on them): the rate
// policies and the behavior's windows count what is strictly After(cutoff); an event is
// outdated, and a recommendation reusable, when strictly Before(cutoff); the legacy window keeps
// a recommendation that is not Before(cutoff), so one exactly at the cutoff still counts.

TEST_CASE(
    "HpaBehavior: getReplicasChangePerPeriod counts events after now - period (horizontal.go)") {
  const std::vector<ScaleEvent> at_cutoff = {{7, Ago(60), false}};
  CHECK(ReplicasChangePerPeriod(60, at_cutoff, kNow) == 0);
  const std::vector<ScaleEvent> inside = {{7, Ago(60) + 1, false}};
  CHECK(ReplicasChangePerPeriod(60, inside, kNow) == 7);
}

TEST_CASE("HpaBehavior: markScaleEventsOutdated marks events before now - period (horizontal.go)") {
  const HpaBehavior behavior{GenerateScalingRules(10, 60, 0, 0, 0), std::nullopt};
  SUBCASE("exactly one period old: kept, the new event appended") {
    HpaHistory history;
    history.scale_up_events = {{7, Ago(60), false}};
    StoreScaleEvent(history, behavior, 10, 15, kNow, kDownscaleWindow);
    CheckEvents(history.scale_up_events, {{7, kNow, false}, {5, kNow, false}});
  }
  SUBCASE("one nanosecond older: replaced") {
    HpaHistory history;
    history.scale_up_events = {{7, Ago(60) - 1, false}};
    StoreScaleEvent(history, behavior, 10, 15, kNow, kDownscaleWindow);
    CheckEvents(history.scale_up_events, {{5, kNow, false}});
  }
}

TEST_CASE(
    "HpaBehavior: stabilizeRecommendationWithBehaviors counts recommendations after the cutoff "
    "(horizontal.go)") {
  const HpaScalingRules up = DefaultedScaleUp(WideRules(300));
  const HpaScalingRules down = DefaultedScaleDown(WideRules(300), kDownscaleWindow);
  SUBCASE("exactly at the cutoff: neither counted nor reused") {
    HpaHistory history;
    history.recommendations = {{9, Ago(300)}};
    const Normalized n = NormalizeWithBehaviors(history, up, down, 0, kWideMax, 5, 3, kNow);
    CHECK(n.replicas == 3);
    CHECK(n.able_reason == "ReadyForNewScale");
    CHECK(history.recommendations.size() == 2);
  }
  SUBCASE("one nanosecond inside: counted") {
    HpaHistory history;
    history.recommendations = {{9, Ago(300) + 1}};
    const Normalized n = NormalizeWithBehaviors(history, up, down, 0, kWideMax, 5, 3, kNow);
    CHECK(n.replicas == 5);
    CHECK(n.able_reason == "ScaleDownStabilized");
    CHECK(history.recommendations.size() == 2);
  }
  SUBCASE("one nanosecond older: reused") {
    HpaHistory history;
    history.recommendations = {{9, Ago(300) - 1}};
    const Normalized n = NormalizeWithBehaviors(history, up, down, 0, kWideMax, 5, 3, kNow);
    CHECK(n.replicas == 3);
    REQUIRE(history.recommendations.size() == 1);
    CHECK(history.recommendations[0].replicas == 3);
  }
}

TEST_CASE(
    "HpaBehavior: stabilizeRecommendation keeps a recommendation at the cutoff (horizontal.go)") {
  SUBCASE("exactly at the cutoff: kept and counted") {
    HpaHistory history;
    history.recommendations = {{9, Ago(300)}};
    const Normalized n = NormalizeLegacy(history, 0, 1000, 10, 3, kNow, kDownscaleWindow);
    CHECK(n.replicas == 9);
    CHECK(n.able_reason == "ScaleDownStabilized");
    CHECK(history.recommendations.size() == 2);
  }
  SUBCASE("one nanosecond older: reused") {
    HpaHistory history;
    history.recommendations = {{9, Ago(300) - 1}};
    const Normalized n = NormalizeLegacy(history, 0, 1000, 10, 3, kNow, kDownscaleWindow);
    CHECK(n.replicas == 3);
    CHECK(n.able_reason == "ReadyForNewScale");
    REQUIRE(history.recommendations.size() == 1);
    CHECK(history.recommendations[0].replicas == 3);
  }
}

}  // namespace
}  // namespace knobsim::autoscaling
