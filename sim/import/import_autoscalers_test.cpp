// HpasFromObjects: exported HorizontalPodAutoscalers onto the workloads they scale, the metrics
// knobsim computes kept, the others named and left out; and the `hpa:` the writer prints reads
// back as the same HPA.
#include <doctest/doctest.h>

#include <string>

#include "sim/cron_schedule.h"
#include "sim/import/cluster_import.h"
#include "sim/import/scenario_writer.h"
#include "sim/io/kube_reader.h"
#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

const char* kDeployments = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: chat, namespace: ai}
spec:
  replicas: 1
  selector: {matchLabels: {app: chat}}
  template:
    metadata: {labels: {app: chat}}
    spec:
      containers:
        - name: server
          image: registry.example.com/chat:1.0
          resources: {limits: {aliyun.com/gpu-mem: 8}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ocr, namespace: ai}
spec:
  replicas: 9
  selector: {matchLabels: {app: ocr}}
  template:
    metadata: {labels: {app: ocr}}
    spec:
      containers:
        - name: server
          image: registry.example.com/ocr:1.0
          resources: {limits: {aliyun.com/gpu-mem: 4}}
)";

const char* kHpas = R"(---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: chat-gpu, namespace: ai}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: chat}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Pods
    pods:
      metric: {name: DCGM_FI_DEV_GPU_UTIL}
      target: {type: AverageValue, averageValue: "65"}
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 70}
  - type: Pods
    pods:
      metric: {name: DCGM_FI_DEV_FB_USED}
      target: {type: AverageValue, averageValue: "12288"}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 600
      policies: [{type: Pods, value: 1, periodSeconds: 60}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: ocr, namespace: ai}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: ocr}
  minReplicas: 1
  maxReplicas: 6
  metrics:
  - type: External
    external:
      metric: {name: gateway_rps}
      target: {type: Value, value: "300"}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: ghost, namespace: ai}
spec:
  scaleTargetRef: {kind: Deployment, name: nowhere}
  maxReplicas: 3
)";

const ImportedWorkload& Find(const ImportModel& m, const std::string& name) {
  for (const ImportedWorkload& w : m.workloads)
    if (w.spec.name == name) return w;
  FAIL("no workload " << name);
  return m.workloads.front();
}

bool Mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

ImportModel Import(const std::string& text, const ImportOptions& options = {}) {
  Expected<KubeObjects> objects = ReadKubeString(text, "export.yaml");
  REQUIRE_MESSAGE(objects.ok(), (objects.ok() ? "" : objects.error().ToString()));
  return ImportCluster(*objects, nullptr, options);
}

TEST_CASE("an HPA's GPU and cpu metrics are simulated; cpu without a request is warned about") {
  const ImportModel m = Import(std::string(kDeployments) + kHpas);
  const ImportedWorkload& chat = Find(m, "chat");
  REQUIRE(chat.spec.hpa.has_value());
  const HpaSpec& h = *chat.spec.hpa;
  CHECK(h.name == "chat-gpu");
  CHECK(h.min_replicas == 2);
  CHECK(h.max_replicas == 10);
  REQUIRE(h.metrics.size() == 3);
  CHECK(h.metrics[0].kind == HpaMetricKind::kGpuUtilization);
  CHECK(h.metrics[0].target_milli == 65'000);
  CHECK(h.metrics[1].kind == HpaMetricKind::kCpu);
  CHECK(h.metrics[1].target_type == HpaTargetType::kUtilization);
  CHECK(h.metrics[1].target_utilization == 70);
  CHECK(h.metrics[2].kind == HpaMetricKind::kGpuMemory);
  CHECK(h.metrics[2].target_milli == 12'288'000);
  REQUIRE(h.behavior.has_value());
  CHECK(h.behavior->scale_down->stabilization_window_s == 600);
  // replicas 1 is below minReplicas 2: the controller's first sync raises it.
  CHECK(chat.spec.replicas == 2);
  CHECK(chat.notes.at("hpa").find("not simulated") == std::string::npos);
  // chat's container requests no cpu: upstream's controller fails the metric each sync.
  CHECK(Mentions(m.warnings,
                 "export.yaml:41: HorizontalPodAutoscaler ai/chat-gpu: a cpu Utilization "
                 "target, and workload chat requests no cpu"));
  CHECK(Mentions(m.warnings,
                 "HorizontalPodAutoscaler ai/ghost scales Deployment nowhere, which "
                 "is not an imported workload; left out"));
}

// A Deployment `api` of `containers` (the first requests 500m cpu) with an HPA of `metrics`.
std::string CpuExport(const std::string& containers, const std::string& metrics) {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: ai}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
)" + containers +
         R"(---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: ai}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  maxReplicas: 5
)" + metrics;
}

TEST_CASE("Resource cpu, and ContainerResource cpu of a one-container pod, become the cpu metric") {
  const std::string one =
      "        - {name: server, image: r.example.com/api:1, resources: {requests: {cpu: 500m}}}\n";
  const std::string two = one + "        - {name: proxy, image: r.example.com/envoy:1}\n";
  struct Case {
    const char* rule;
    std::string containers;
    std::string metrics;
    HpaTargetType type;  // of the one cpu metric; unused when left out
    int32_t utilization;
    int64_t milli;
    const char* warning;  // the metric is left out with it; nullptr: kept
  };
  const Case cases[] = {
      {"Resource cpu Utilization: percent of the request", one,
       "  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, "
       "averageUtilization: 60}}}]\n",
       HpaTargetType::kUtilization, 60, 0, nullptr},
      {"Resource cpu AverageValue: millicores per pod", one,
       "  metrics: [{type: Resource, resource: {name: cpu, target: {type: AverageValue, "
       "averageValue: 300m}}}]\n",
       HpaTargetType::kAverageValue, 0, 300, nullptr},
      {"no metrics: cpu at 80 % (the API's default)", one, "", HpaTargetType::kUtilization, 80, 0,
       nullptr},
      {"ContainerResource cpu of the pod's one container", one,
       "  metrics: [{type: ContainerResource, containerResource: {name: cpu, container: server, "
       "target: {type: Utilization, averageUtilization: 50}}}]\n",
       HpaTargetType::kUtilization, 50, 0, nullptr},
      {"ContainerResource cpu of one of two containers: left out", two,
       "  metrics: [{type: ContainerResource, containerResource: {name: cpu, container: server, "
       "target: {type: Utilization, averageUtilization: 50}}}]\n",
       HpaTargetType::kUtilization, 0, 0,
       "ContainerResource metric \"cpu\": container \"server\" is one of 2 containers"},
      {"ContainerResource cpu of a container the pod lacks: left out", one,
       "  metrics: [{type: ContainerResource, containerResource: {name: cpu, container: side, "
       "target: {type: Utilization, averageUtilization: 50}}}]\n",
       HpaTargetType::kUtilization, 0, 0, "the pod has no container \"side\""},
      {"Resource memory: left out", one,
       "  metrics: [{type: Resource, resource: {name: memory, target: {type: AverageValue, "
       "averageValue: 1Gi}}}]\n",
       HpaTargetType::kUtilization, 0, 0,
       "Resource metric \"memory\": knobsim simulates no usage of memory"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    const ImportModel m = Import(CpuExport(c.containers, c.metrics));
    const ImportedWorkload& api = Find(m, "api");
    if (c.warning != nullptr) {
      CHECK_FALSE(api.spec.hpa.has_value());
      CHECK(Mentions(m.warnings, c.warning));
      continue;
    }
    REQUIRE(api.spec.hpa.has_value());
    REQUIRE(api.spec.hpa->metrics.size() == 1);
    const HpaMetric& cpu = api.spec.hpa->metrics[0];
    CHECK(cpu.kind == HpaMetricKind::kCpu);
    CHECK(cpu.target_type == c.type);
    CHECK(cpu.target_utilization == c.utilization);
    CHECK(cpu.target_milli == c.milli);
    CHECK_FALSE(Mentions(m.warnings, "requests no cpu"));
    // What the writer prints reads back as the same metric.
    const std::string yaml = WriteScenarioYaml(m);
    CAPTURE(yaml);
    Expected<Scenario> s = ReadScenarioString(yaml, "imported.yaml");
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
    REQUIRE(s->workloads[0].hpa->metrics.size() == 1);
    CHECK(s->workloads[0].hpa->metrics[0].target_utilization == c.utilization);
    CHECK(s->workloads[0].hpa->metrics[0].target_milli == c.milli);
  }
}

TEST_CASE("a metric knobsim does not know leaves the workload fixed unless --hpa-metric maps it") {
  const ImportModel fixed = Import(std::string(kDeployments) + kHpas);
  const ImportedWorkload& ocr = Find(fixed, "ocr");
  CHECK_FALSE(ocr.spec.hpa.has_value());
  CHECK(ocr.spec.replicas == 9);
  CHECK(Mentions(fixed.warnings,
                 "External metric \"gateway_rps\": not a metric knobsim knows; "
                 "map it with --hpa-metric gateway_rps="));
  CHECK(Mentions(fixed.warnings,
                 "workload ocr: its HorizontalPodAutoscaler ai/ocr has no metric "
                 "knobsim computes; the workload keeps 9 replicas"));

  ImportOptions options;
  const auto rule = ParseHpaMetricRule("gateway_rps=external_request_rate");
  REQUIRE(rule.ok());
  options.hpa_metric_kinds.insert(*rule);
  const ImportModel mapped = Import(std::string(kDeployments) + kHpas, options);
  const ImportedWorkload& scaled = Find(mapped, "ocr");
  REQUIRE(scaled.spec.hpa.has_value());
  REQUIRE(scaled.spec.hpa->metrics.size() == 1);
  CHECK(scaled.spec.hpa->metrics[0].kind == HpaMetricKind::kExternalRequestRate);
  CHECK(scaled.spec.hpa->metrics[0].target_type == HpaTargetType::kValue);
  CHECK(scaled.spec.replicas == 6);  // 9 above maxReplicas 6

  // A per-pod kind for a whole-target metric is refused, not reinterpreted.
  ImportOptions wrong;
  wrong.hpa_metric_kinds["gateway_rps"] = HpaMetricKind::kRequestRate;
  const ImportModel refused = Import(std::string(kDeployments) + kHpas, wrong);
  CHECK_FALSE(Find(refused, "ocr").spec.hpa.has_value());
  CHECK(Mentions(refused.warnings, "an External metric is one value for the whole target"));
}

TEST_CASE("two HPAs on one workload: the controller acts on neither, nor does the import") {
  const std::string second = R"(---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: chat-2, namespace: ai}
spec:
  scaleTargetRef: {kind: Deployment, name: chat}
  maxReplicas: 4
  metrics:
  - {type: Pods, pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, target: {type: AverageValue, averageValue: "50"}}}
)";
  const ImportModel m = Import(std::string(kDeployments) + kHpas + second);
  CHECK_FALSE(Find(m, "chat").spec.hpa.has_value());
  CHECK(Mentions(m.warnings,
                 "workload chat is the target of several HorizontalPodAutoscalers "
                 "(ai/chat-gpu, ai/chat-2)"));
}

TEST_CASE("--hpa-metric rules: NAME=KIND, the kind one knobsim computes") {
  CHECK(ParseHpaMetricRule("rps=request_rate")->second == HpaMetricKind::kRequestRate);
  CHECK(ParseHpaMetricRule("q=in_flight")->second == HpaMetricKind::kInFlight);
  CHECK(ParseHpaMetricRule("rps=cpu").error().ToString().find("\"cpu\" is not a metric knobsim "
                                                              "computes") != std::string::npos);
  CHECK_FALSE(ParseHpaMetricRule("=gpu_memory").ok());
  CHECK_FALSE(ParseHpaMetricRule("rps").ok());
}

TEST_CASE("the written hpa: reads back as the imported HPA") {
  const ImportModel m = Import(std::string(kDeployments) + kHpas);
  const std::string yaml = WriteScenarioYaml(m);
  CAPTURE(yaml);
  Expected<Scenario> s = ReadScenarioString(yaml, "imported.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  const Workload* chat = nullptr;
  for (const Workload& w : s->workloads)
    if (w.name == "chat") chat = &w;
  REQUIRE(chat != nullptr);
  REQUIRE(chat->hpa.has_value());
  const HpaSpec& want = *Find(m, "chat").spec.hpa;
  CHECK(chat->hpa->name == want.name);
  CHECK(chat->hpa->min_replicas == want.min_replicas);
  CHECK(chat->hpa->max_replicas == want.max_replicas);
  REQUIRE(chat->hpa->metrics.size() == want.metrics.size());
  for (size_t i = 0; i < want.metrics.size(); ++i) {
    CHECK(chat->hpa->metrics[i].kind == want.metrics[i].kind);
    CHECK(chat->hpa->metrics[i].target_type == want.metrics[i].target_type);
    CHECK(chat->hpa->metrics[i].target_milli == want.metrics[i].target_milli);
    CHECK(chat->hpa->metrics[i].target_utilization == want.metrics[i].target_utilization);
  }
  REQUIRE(chat->hpa->behavior.has_value());
  REQUIRE(chat->hpa->behavior->scale_down.has_value());
  CHECK(chat->hpa->behavior->scale_down->stabilization_window_s == 600);
  REQUIRE(chat->hpa->behavior->scale_down->policies.size() == 1);
  CHECK(chat->hpa->behavior->scale_down->policies[0].period_s == 60);
  CHECK(chat->replicas == 2);
}

// ACK CronHPAs: one on the chat HPA, one on the ocr Deployment (which has an HPA: refused), one
// on a StatefulSet-less name, and a batch Deployment without an HPA scaled directly.
const char* kCronHpas = R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: ai}
spec:
  replicas: 2
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers:
        - name: worker
          image: registry.example.com/batch:1.0
          resources: {limits: {aliyun.com/gpu-mem: 4}}
---
apiVersion: autoscaling.alibabacloud.com/v1beta1
kind: CronHorizontalPodAutoscaler
metadata: {name: chat-office-hours, namespace: ai}
spec:
  scaleTargetRef: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, name: chat-gpu}
  excludeDates: ["* * * 1 10 *", "not a date"]
  jobs:
  - {name: morning, schedule: "0 30 7 * * MON-FRI", targetSize: 5}
  - {name: night, schedule: "0 0 23 * * *", targetSize: 2}
  - {name: broken, schedule: "0 0 25 * * *", targetSize: 3}
  - {name: launch, schedule: "@date 2026-03-02 06:00:00", targetSize: 6, runOnce: true}
---
apiVersion: autoscaling.alibabacloud.com/v1beta1
kind: CronHorizontalPodAutoscaler
metadata: {name: ocr-direct, namespace: ai}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: ocr}
  jobs:
  - {name: up, schedule: "@daily", targetSize: 4}
---
apiVersion: autoscaling.alibabacloud.com/v1beta1
kind: CronHorizontalPodAutoscaler
metadata: {name: batch-night, namespace: ai}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: batch}
  jobs:
  - {name: stop, schedule: "0 0 8 * * *", targetSize: 0}
  - {name: start, schedule: "0 0 20 * * *", targetSize: 3}
---
apiVersion: autoscaling.alibabacloud.com/v1beta1
kind: CronHorizontalPodAutoscaler
metadata: {name: ghost, namespace: ai}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: nowhere}
  jobs:
  - {name: up, schedule: "@daily", targetSize: 4}
)";

TEST_CASE(
    "CronHPAs go onto the HPA or the workload they scale; what the controller cannot run is said") {
  const ImportModel m = Import(std::string(kDeployments) + kHpas + kCronHpas);
  const ImportedWorkload& chat = Find(m, "chat");
  REQUIRE(chat.spec.cron_hpa.has_value());
  const CronHpaSpec& c = *chat.spec.cron_hpa;
  CHECK(c.name == "chat-office-hours");
  CHECK(c.target_kind == "HorizontalPodAutoscaler");
  CHECK(c.target_name == "chat-gpu");
  REQUIRE(c.jobs.size() == 3);  // "broken" (hour 25) never runs
  CHECK(c.jobs[0].schedule == *ParseCronSchedule("0 30 7 * * 1-5"));
  CHECK(c.jobs[2].run_once);
  REQUIRE(c.exclude_dates.size() == 1);  // IsTodayOff skips the one it cannot parse
  CHECK(Mentions(m.warnings, "job broken: schedule \"0 0 25 * * *\""));
  CHECK(Mentions(m.warnings, "excludeDates \"not a date\""));
  // ocr has an HPA: a CronHPA on its Deployment would fight it.
  CHECK(!Find(m, "ocr").spec.cron_hpa.has_value());
  CHECK(Mentions(m.warnings,
                 "ocr-direct sets Deployment ocr's replicas while an HPA also scales it"));
  const ImportedWorkload& batch = Find(m, "batch");
  REQUIRE(batch.spec.cron_hpa.has_value());
  CHECK(batch.spec.cron_hpa->target_kind == "Deployment");
  CHECK(batch.spec.cron_hpa->jobs[0].target_size == 0);
  CHECK(Mentions(m.warnings, "ghost scales Deployment nowhere, which is not an imported workload"));
  CHECK(Mentions(m.warnings, "set run.start"));
}

TEST_CASE("the written cron_hpa: reads back as the imported CronHPA") {
  const ImportModel m = Import(std::string(kDeployments) + kHpas + kCronHpas);
  const std::string yaml = WriteScenarioYaml(m);
  CAPTURE(yaml);
  Expected<Scenario> s = ReadScenarioString(yaml, "imported.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  for (const char* name : {"chat", "batch"}) {
    const Workload* w = nullptr;
    for (const Workload& x : s->workloads)
      if (x.name == name) w = &x;
    REQUIRE(w != nullptr);
    REQUIRE(w->cron_hpa.has_value());
    const CronHpaSpec& want = *Find(m, name).spec.cron_hpa;
    CHECK(w->cron_hpa->name == want.name);
    CHECK(w->cron_hpa->target_kind == want.target_kind);
    CHECK(w->cron_hpa->target_name == want.target_name);
    REQUIRE(w->cron_hpa->jobs.size() == want.jobs.size());
    for (size_t j = 0; j < want.jobs.size(); ++j) {
      CHECK(w->cron_hpa->jobs[j].name == want.jobs[j].name);
      CHECK(w->cron_hpa->jobs[j].schedule == want.jobs[j].schedule);
      CHECK(w->cron_hpa->jobs[j].target_size == want.jobs[j].target_size);
      CHECK(w->cron_hpa->jobs[j].run_once == want.jobs[j].run_once);
    }
    CHECK(w->cron_hpa->exclude_dates.size() == want.exclude_dates.size());
  }
}

}  // namespace
}  // namespace knobsim
