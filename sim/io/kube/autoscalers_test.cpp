// HorizontalPodAutoscalers: autoscaling/v2's metrics, behavior and defaults, autoscaling/v1's
// CPU target, and the API server's validation as errors (pkg/apis/autoscaling/validation).
#include <doctest/doctest.h>

#include <string>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

const char* const kGpuHpa = R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: chat, namespace: ai-infer}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: chat}
  minReplicas: 2
  maxReplicas: 12
  metrics:
  - type: Pods
    pods:
      metric: {name: DCGM_FI_DEV_GPU_UTIL}
      target: {type: AverageValue, averageValue: "60"}
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 70}
  - type: External
    external:
      metric:
        name: gateway_requests_per_second
        selector: {matchLabels: {service: chat}}
      target: {type: Value, value: 1500m}
  - type: Object
    object:
      describedObject: {apiVersion: networking.k8s.io/v1, kind: Ingress, name: chat}
      metric: {name: requests_per_second}
      target: {type: AverageValue, averageValue: 2k}
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 60
      selectPolicy: Min
      policies:
      - {type: Pods, value: 2, periodSeconds: 30}
      - {type: Percent, value: 50, periodSeconds: 60}
    scaleDown:
      tolerance: 50m
status: {currentReplicas: 3, desiredReplicas: 4}
)";

TEST_CASE("autoscaling/v2 HPAs keep every metric as written, with its target in milli-units") {
  const KubeObjects objects = MustRead(kGpuHpa);
  REQUIRE(objects.hpas.size() == 1);
  REQUIRE(objects.hpa_sources.size() == 1);
  CHECK(objects.hpa_sources[0].line == 1);
  const HorizontalPodAutoscalerObject& h = objects.hpas[0];
  CHECK(h.namespace_ == "ai-infer");
  CHECK(h.name == "chat");
  CHECK(h.api_version == "autoscaling/v2");
  CHECK(h.target_kind == "Deployment");
  CHECK(h.target_name == "chat");
  CHECK(h.min_replicas == 2);
  CHECK(h.max_replicas == 12);
  REQUIRE(h.metrics.size() == 4);
  CHECK(h.metrics[0].type == "Pods");
  CHECK(h.metrics[0].name == "DCGM_FI_DEV_GPU_UTIL");
  CHECK(h.metrics[0].target_type == HpaTargetType::kAverageValue);
  CHECK(h.metrics[0].target_milli == 60'000);
  CHECK(h.metrics[0].line == 9);
  CHECK(h.metrics[1].type == "Resource");
  CHECK(h.metrics[1].name == "cpu");
  CHECK(h.metrics[1].target_type == HpaTargetType::kUtilization);
  CHECK(h.metrics[1].target_utilization == 70);
  CHECK(h.metrics[2].type == "External");
  CHECK(h.metrics[2].has_selector);
  CHECK(h.metrics[2].target_type == HpaTargetType::kValue);
  CHECK(h.metrics[2].target_milli == 1500);
  CHECK(h.metrics[3].described_kind == "Ingress");
  CHECK(h.metrics[3].described_name == "chat");
  CHECK(h.metrics[3].target_milli == 2'000'000);
  REQUIRE(h.behavior.has_value());
  REQUIRE(h.behavior->scale_up.has_value());
  CHECK(h.behavior->scale_up->stabilization_window_s == 60);
  CHECK(h.behavior->scale_up->select_policy == HpaSelectPolicy::kMin);
  REQUIRE(h.behavior->scale_up->policies.size() == 2);
  CHECK(h.behavior->scale_up->policies[1].type == HpaPolicyType::kPercent);
  CHECK(h.behavior->scale_up->policies[1].value == 50);
  CHECK(h.behavior->scale_up->policies[1].period_s == 60);
  REQUIRE(h.behavior->scale_down.has_value());
  CHECK(h.behavior->scale_down->tolerance == doctest::Approx(0.05));
  CHECK_FALSE(h.behavior->scale_down->stabilization_window_s.has_value());
  CHECK(h.current_replicas == 3);
  CHECK(h.desired_replicas == 4);
}

// SetDefaults_HorizontalPodAutoscaler (pkg/apis/autoscaling/v2/defaults.go): minReplicas 1, and
// no metrics is CPU at 80 %. autoscaling/v1 without targetCPUUtilizationPercentage converts to
// the same.
TEST_CASE("HPA defaults: minReplicas 1 and CPU at 80 % utilization when no metric is listed") {
  struct Case {
    const char* name;
    const char* text;
    int32_t utilization;
  };
  const Case cases[] = {
      {"v2 without metrics", R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: a}
spec: {scaleTargetRef: {kind: Deployment, name: a}, maxReplicas: 3}
)",
       80},
      {"v1 without a CPU target", R"(apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: a}
spec: {scaleTargetRef: {kind: Deployment, name: a}, maxReplicas: 3}
)",
       80},
      {"v1 with a CPU target", R"(apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: a}
spec: {scaleTargetRef: {kind: Deployment, name: a}, maxReplicas: 3,
       targetCPUUtilizationPercentage: 55}
)",
       55},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const KubeObjects objects = MustRead(c.text);
    REQUIRE(objects.hpas.size() == 1);
    const HorizontalPodAutoscalerObject& h = objects.hpas[0];
    CHECK(h.min_replicas == 1);
    CHECK(h.max_replicas == 3);
    REQUIRE(h.metrics.size() == 1);
    CHECK(h.metrics[0].type == "Resource");
    CHECK(h.metrics[0].name == "cpu");
    CHECK(h.metrics[0].target_type == HpaTargetType::kUtilization);
    CHECK(h.metrics[0].target_utilization == c.utilization);
    CHECK_FALSE(h.behavior.has_value());
  }
}

// validateHorizontalPodAutoscalerSpec, validateMetricSpec, validateMetricTarget,
// validateScalingRules; and the versions knobsim does not read.
TEST_CASE("HPAs the API server would reject, and versions not read, are errors at their field") {
  struct Case {
    const char* name;
    const char* spec;  // under `spec:`, indented by two
    const char* error;
  };
  const Case cases[] = {
      {"maxReplicas below minReplicas",
       "  scaleTargetRef: {kind: Deployment, name: a}\n  minReplicas: 4\n  maxReplicas: 3\n",
       "bad.yaml:7: spec.maxReplicas: maxReplicas is below minReplicas; validation: must be >= "
       "minReplicas"},
      {"maxReplicas missing", "  scaleTargetRef: {kind: Deployment, name: a}\n",
       "bad.yaml:4: spec: missing required key `maxReplicas`"},
      {"scale to zero without an object or external metric",
       "  scaleTargetRef: {kind: Deployment, name: a}\n  minReplicas: 0\n  maxReplicas: 3\n",
       "bad.yaml:6: spec.minReplicas: minReplicas 0 needs an Object or External metric; "
       "validation: must be >= 1 unless the HPAScaleToZero gate and such a metric"},
      {"a Pods metric with a Value target",
       "  scaleTargetRef: {kind: Deployment, name: a}\n  maxReplicas: 3\n  metrics:\n"
       "  - type: Pods\n    pods: {metric: {name: x}, target: {type: Value, value: 3}}\n",
       "bad.yaml:9: spec.metrics[0].pods.target.type: \"Value\" is not a target type; use "
       "AverageValue"},
      {"the member of the type missing",
       "  scaleTargetRef: {kind: Deployment, name: a}\n  maxReplicas: 3\n  metrics:\n"
       "  - type: External\n    pods: {metric: {name: x}, target: {type: AverageValue, "
       "averageValue: 3}}\n",
       "bad.yaml:8: spec.metrics[0]: a External metric needs `external`; validateMetricSpec: the "
       "member of the metric's type must be set"},
      {"a zero target",
       "  scaleTargetRef: {kind: Deployment, name: a}\n  maxReplicas: 3\n  metrics:\n"
       "  - type: Pods\n    pods: {metric: {name: x}, target: {type: AverageValue, "
       "averageValue: \"0\"}}\n",
       "bad.yaml:9: spec.metrics[0].pods.target.averageValue: must be positive; the HPA divides "
       "by its target"},
      {"a policy period above 30 minutes",
       "  scaleTargetRef: {kind: Deployment, name: a}\n  maxReplicas: 3\n  behavior:\n"
       "    scaleDown: {policies: [{type: Pods, value: 1, periodSeconds: 1801}]}\n",
       "bad.yaml:8: spec.behavior.scaleDown.policies[0].periodSeconds: 1801 is more than "
       "1800"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string text = std::string(
                                 "apiVersion: autoscaling/v2\nkind: "
                                 "HorizontalPodAutoscaler\nmetadata: {name: a}\n"
                                 "spec:\n") +
                             c.spec;
    CHECK(ErrorOf(text) == c.error);
  }
  CHECK(ErrorOf(R"(apiVersion: autoscaling/v2beta1
kind: HorizontalPodAutoscaler
metadata: {name: a}
spec: {scaleTargetRef: {kind: Deployment, name: a}, maxReplicas: 3}
)") == "bad.yaml:1: apiVersion: autoscaling/v2beta1 HorizontalPodAutoscalers are not read (the "
       "API removed it in 1.25); export them as autoscaling/v2: kubectl get "
       "hpa.v2.autoscaling -o yaml");
  // autoscaling/v1 keeps the v2 metrics of an HPA in an annotation: its fields alone would be a
  // different autoscaler.
  CHECK(ErrorOf(R"(apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: a
  annotations:
    autoscaling.alpha.kubernetes.io/metrics: '[{"type":"Pods"}]'
spec: {scaleTargetRef: {kind: Deployment, name: a}, maxReplicas: 3}
)") == "bad.yaml:6: metadata.annotations.autoscaling.alpha.kubernetes.io/metrics: this "
       "autoscaling/v1 HPA keeps its metrics in an annotation; export it as autoscaling/v2: "
       "kubectl get hpa.v2.autoscaling -o yaml");
}

TEST_CASE("two HPAs of one name in one namespace are a duplicate") {
  const std::string one =
      "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n"
      "metadata: {name: a}\nspec: {scaleTargetRef: {kind: Deployment, "
      "name: a}, maxReplicas: 3}\n";
  const std::string error = ErrorOf(one + "---\n" + one);
  CHECK(error.find("duplicate") != std::string::npos);
}

TEST_CASE("ACK CronHPAs are read as written; other versions and missing fields are refused") {
  const std::string ok = R"(apiVersion: autoscaling.alibabacloud.com/v1beta1
kind: CronHorizontalPodAutoscaler
metadata: {name: web-cron, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  excludeDates: ["* * * 15 11 *"]
  jobs:
  - name: up
    schedule: "0 0 8 * * *"
    targetSize: 6
  - {name: once, schedule: "@date 2026-12-24 18:00:00", targetSize: 1, runOnce: true}
status: {conditions: []}
)";
  Expected<KubeObjects> objects = ReadKubeString(ok, "cron.yaml");
  REQUIRE_MESSAGE(objects.ok(), (objects.ok() ? "" : objects.error().ToString()));
  REQUIRE(objects->cron_hpas.size() == 1);
  const CronHorizontalPodAutoscalerObject& c = objects->cron_hpas[0];
  CHECK(c.namespace_ == "shop");
  CHECK(c.name == "web-cron");
  CHECK(c.target_kind == "Deployment");
  CHECK(c.target_name == "web");
  CHECK(c.exclude_dates == std::vector<std::string>{"* * * 15 11 *"});
  REQUIRE(c.jobs.size() == 2);
  CHECK(c.jobs[0].schedule == "0 0 8 * * *");
  CHECK(c.jobs[0].target_size == 6);
  CHECK(!c.jobs[0].run_once);
  CHECK(c.jobs[1].run_once);
  CHECK(objects->cron_hpa_sources[0].line == 1);

  struct Case {
    std::string yaml;
    std::string error;
  };
  const std::string head = "kind: CronHorizontalPodAutoscaler\nmetadata: {name: c}\n";
  const Case cases[] = {
      {"apiVersion: autoscaling.alibabacloud.com/v1\n" + head +
           "spec: {scaleTargetRef: {kind: Deployment, name: w}, jobs: []}\n",
       "unknown CronHorizontalPodAutoscaler apiVersion"},
      {head + "spec: {jobs: []}\n", "missing required key `scaleTargetRef`"},
      {head + "spec: {scaleTargetRef: {kind: Deployment, name: w}}\n",
       "missing required key `jobs`"},
      {head + "spec: {scaleTargetRef: {kind: Deployment, name: w}, jobs: [{name: a, schedule: "
              "\"@daily\"}]}\n",
       "missing required key `targetSize`"},
      {head + "spec: {scaleTargetRef: {kind: Deployment, name: w}, jobs: [{name: a, schedule: "
              "\"@daily\", targetSize: -1}]}\n",
       "targetSize"},
      {head + "spec: {scaleTargetRef: {kind: Deployment, name: w}, jobs: [{name: a, schedule: "
              "\"@daily\", targetSize: 1}, {name: a, schedule: \"@daily\", targetSize: 2}]}\n",
       "duplicate job name \"a\""},
  };
  for (const Case& k : cases) {
    CAPTURE(k.yaml);
    Expected<KubeObjects> r = ReadKubeString(k.yaml, "c.yaml");
    REQUIRE(!r.ok());
    CHECK_MESSAGE(r.error().ToString().find(k.error) != std::string::npos, r.error().ToString());
  }
}

}  // namespace
}  // namespace knobsim
