// HorizontalPodAutoscalers (autoscaling/v2, v2beta2 and v1), read with the API server's
// defaults and validation (kubernetes/kubernetes pkg/apis/autoscaling/v2/defaults.go,
// pkg/apis/autoscaling/validation/validation.go): what an export or a manifest says, every
// metric kept as written; sim/import/import_autoscalers.cpp decides what a run simulates.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "sim/io/kube/kinds.h"
#include "sim/io/kube/kube_text.h"
#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim::kube {
namespace {

// resource.Quantity's MilliValue (rounded up), above 0 as validateMetricTarget requires.
int64_t PositiveMilli(FieldReader& r, const Field& f) {
  const std::string text = r.String(f);
  const Parsed<int64_t> milli = ParseCpuMilli(text);
  if (!milli.ok()) r.Fail(f, Cat({Quote(text), " is not a quantity"}), "e.g. 30, 500m or 2k");
  if (*milli.value <= 0) r.Fail(f, "must be positive", "the HPA divides by its target");
  return *milli.value;
}

// MetricTarget: `type` with its one value (validateMetricTarget). `allowed` are the target
// types the metric's source takes: Resource Utilization or AverageValue, Pods AverageValue,
// Object and External Value or AverageValue.
void ReadTarget(FieldReader& r, const Field& metric, const Field& source,
                std::initializer_list<std::string_view> allowed, HpaMetricSource& out) {
  const Field target = r.Require(source, "target");
  r.ExpectMap(target);
  const std::string type = r.Enum(r.Require(target, "type"), allowed, "a target type");
  const std::optional<Field> utilization = r.Get(target, "averageUtilization");
  const std::optional<Field> average = r.Get(target, "averageValue");
  const std::optional<Field> value = r.Get(target, "value");
  if (type == "Utilization") {
    out.target_type = HpaTargetType::kUtilization;
    if (!utilization) r.Fail(target, "a Utilization target needs averageUtilization");
    out.target_utilization =
        static_cast<int32_t>(r.Int(*utilization, 1, std::numeric_limits<int32_t>::max()));
  } else if (type == "AverageValue") {
    out.target_type = HpaTargetType::kAverageValue;
    if (!average) r.Fail(target, "an AverageValue target needs averageValue");
    out.target_milli = PositiveMilli(r, *average);
  } else {
    out.target_type = HpaTargetType::kValue;
    if (!value) r.Fail(target, "a Value target needs value");
    out.target_milli = PositiveMilli(r, *value);
  }
  out.line = metric.line;
}

// MetricIdentifier: metric.name, and whether a selector narrows it.
void ReadMetricIdentifier(FieldReader& r, const Field& source, HpaMetricSource& out) {
  const Field metric = r.Require(source, "metric");
  r.ExpectMap(metric);
  out.name = r.String(r.Require(metric, "name"));
  if (out.name.empty()) r.Fail(metric, "the metric's name is empty");
  if (auto selector = r.Get(metric, "selector")) {
    r.ExpectMap(*selector);
    out.has_selector = !r.Entries(*selector).empty();
  }
}

HpaMetricSource ReadMetric(FieldReader& r, const Field& item) {
  r.ExpectMap(item);
  HpaMetricSource m;
  m.type = r.Enum(r.Require(item, "type"),
                  {"Resource", "ContainerResource", "Pods", "Object", "External"}, "a metric type");
  // The member named after the type (resource, containerResource, pods, object, external).
  std::string member = m.type;
  member[0] = static_cast<char>(member[0] - 'A' + 'a');
  const std::optional<Field> source = r.Get(item, member);
  if (!source) {
    r.Fail(item, Cat({"a ", m.type, " metric needs `", member, "`"}),
           "validateMetricSpec: the member of the metric's type must be set");
  }
  r.ExpectMap(*source);
  if (m.type == "Resource" || m.type == "ContainerResource") {
    m.name = r.String(r.Require(*source, "name"));
    if (m.name.empty()) r.Fail(*source, "the resource's name is empty");
    if (m.type == "ContainerResource") m.container = r.String(r.Require(*source, "container"));
    ReadTarget(r, item, *source, {"Utilization", "AverageValue"}, m);
  } else if (m.type == "Pods") {
    ReadMetricIdentifier(r, *source, m);
    ReadTarget(r, item, *source, {"AverageValue"}, m);
  } else {
    ReadMetricIdentifier(r, *source, m);
    if (m.type == "Object") {
      const Field described = r.Require(*source, "describedObject");
      r.ExpectMap(described);
      m.described_kind = r.String(r.Require(described, "kind"));
      m.described_name = r.String(r.Require(described, "name"));
    }
    ReadTarget(r, item, *source, {"Value", "AverageValue"}, m);
  }
  return m;
}

// HPAScalingRules within the API's bounds (validateScalingRules).
HpaScalingRules ReadRules(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  HpaScalingRules rules;
  if (auto v = r.Get(f, "stabilizationWindowSeconds"))
    rules.stabilization_window_s = static_cast<int32_t>(r.Int(*v, 0, 3600));
  if (auto v = r.Get(f, "selectPolicy")) {
    const std::string p = r.Enum(*v, {"Max", "Min", "Disabled"}, "a select policy");
    rules.select_policy = p == "Max"   ? HpaSelectPolicy::kMax
                          : p == "Min" ? HpaSelectPolicy::kMin
                                       : HpaSelectPolicy::kDisabled;
  }
  if (auto v = r.Get(f, "policies")) {
    for (const Field& item : r.Items(*v)) {
      r.ExpectMap(item);
      HpaScalingPolicy policy;
      policy.type = r.Enum(r.Require(item, "type"), {"Pods", "Percent"}, "a policy type") == "Pods"
                        ? HpaPolicyType::kPods
                        : HpaPolicyType::kPercent;
      policy.value = static_cast<int32_t>(
          r.Int(r.Require(item, "value"), 1, std::numeric_limits<int32_t>::max()));
      policy.period_s = static_cast<int32_t>(r.Int(r.Require(item, "periodSeconds"), 1, 1800));
      rules.policies.push_back(policy);
    }
  }
  if (auto v = r.Get(f, "tolerance")) {
    const Parsed<int64_t> milli = ParseCpuMilli(r.String(*v));
    if (!milli.ok()) r.Fail(*v, "not a quantity", "e.g. 0.05 or 50m");
    rules.tolerance = static_cast<double>(*milli.value) / 1000.0;
  }
  return rules;
}

// Resource cpu at `utilization` percent: the API's default metric and autoscaling/v1's one.
HpaMetricSource CpuUtilization(int32_t utilization, int line) {
  HpaMetricSource cpu;
  cpu.type = "Resource";
  cpu.name = "cpu";
  cpu.target_type = HpaTargetType::kUtilization;
  cpu.target_utilization = utilization;
  cpu.line = line;
  return cpu;
}

// spec.scaleTargetRef (CrossVersionObjectReference): kind and name required, apiVersion kept.
template <class T>
void ReadScaleTargetRef(ObjectReader& r, const Field& spec, T& out) {
  const Field target = r.Require(spec, "scaleTargetRef");
  r.ExpectMap(target);
  if (auto v = r.Get(target, "apiVersion")) out.target_api_version = r.String(*v);
  out.target_kind = r.String(r.Require(target, "kind"));
  out.target_name = r.String(r.Require(target, "name"));
  if (out.target_kind.empty()) r.Fail(target, "scaleTargetRef.kind is empty");
  if (out.target_name.empty()) r.Fail(target, "scaleTargetRef.name is empty");
}

}  // namespace

HorizontalPodAutoscalerObject ReadHorizontalPodAutoscaler(ObjectReader& r, const Field& object) {
  HorizontalPodAutoscalerObject hpa;
  const ObjectMeta meta = ReadObjectMeta(r, object, "HorizontalPodAutoscaler", hpa);
  const std::optional<Field> api_version = r.Get(object, "apiVersion");
  hpa.api_version = api_version ? r.String(*api_version) : "autoscaling/v2";
  if (hpa.api_version == "autoscaling/v2beta1") {
    r.Fail(api_version ? *api_version : object,
           "autoscaling/v2beta1 HorizontalPodAutoscalers are not read (the API removed it in 1.25)",
           "export them as autoscaling/v2: kubectl get hpa.v2.autoscaling -o yaml");
  }
  const bool v1 = hpa.api_version == "autoscaling/v1";
  if (!v1 && hpa.api_version != "autoscaling/v2" && hpa.api_version != "autoscaling/v2beta2") {
    r.Fail(*api_version,
           Cat({"unknown HorizontalPodAutoscaler apiVersion ", Quote(hpa.api_version)}),
           "autoscaling/v2, autoscaling/v2beta2 or autoscaling/v1");
  }
  if (v1 && meta.annotations) {
    // autoscaling/v1 keeps what it cannot say (other metrics, behavior) in annotations; the
    // object holds a different HPA than its fields show.
    for (const auto& [key, value] : r.Entries(*meta.annotations)) {
      if (key == "autoscaling.alpha.kubernetes.io/metrics" ||
          key == "autoscaling.alpha.kubernetes.io/behavior") {
        r.Fail(value,
               Cat({"this autoscaling/v1 HPA keeps its ", key.substr(key.find('/') + 1),
                    " in an annotation"}),
               "export it as autoscaling/v2: kubectl get hpa.v2.autoscaling -o yaml");
      }
    }
  }
  const Field spec = r.Require(object, "spec");
  r.ExpectMap(spec);
  ReadScaleTargetRef(r, spec, hpa);
  const std::optional<Field> min = r.Get(spec, "minReplicas");
  if (min)
    hpa.min_replicas = static_cast<int32_t>(r.Int(*min, 0, std::numeric_limits<int32_t>::max()));
  const Field max = r.Require(spec, "maxReplicas");
  hpa.max_replicas = static_cast<int32_t>(r.Int(max, 1, std::numeric_limits<int32_t>::max()));
  if (hpa.max_replicas < hpa.min_replicas)
    r.Fail(max, "maxReplicas is below minReplicas", "validation: must be >= minReplicas");

  if (v1) {
    const std::optional<Field> cpu = r.Get(spec, "targetCPUUtilizationPercentage");
    hpa.metrics.push_back(cpu ? CpuUtilization(static_cast<int32_t>(r.Int(
                                                   *cpu, 1, std::numeric_limits<int32_t>::max())),
                                               cpu->line)
                              : CpuUtilization(80, spec.line));
  } else {
    if (auto metrics = r.Get(spec, "metrics")) {
      for (const Field& item : r.Items(*metrics)) hpa.metrics.push_back(ReadMetric(r, item));
    }
    if (hpa.metrics.empty()) {
      // SetDefaults_HorizontalPodAutoscaler: no metrics is CPU at 80 % utilization.
      hpa.metrics.push_back(CpuUtilization(80, spec.line));
    }
    if (auto behavior = r.Get(spec, "behavior")) {
      r.ExpectMap(*behavior);
      HpaBehavior b;
      if (auto up = r.Get(*behavior, "scaleUp")) b.scale_up = ReadRules(r, *up);
      if (auto down = r.Get(*behavior, "scaleDown")) b.scale_down = ReadRules(r, *down);
      hpa.behavior = b;
    }
  }
  // minReplicas 0 is the alpha HPAScaleToZero gate, allowed only with an Object or External
  // metric (validateHorizontalPodAutoscalerSpec).
  if (min && hpa.min_replicas == 0) {
    bool object_or_external = false;
    for (const HpaMetricSource& m : hpa.metrics)
      object_or_external |= m.type == "Object" || m.type == "External";
    if (!object_or_external) {
      r.Fail(*min, "minReplicas 0 needs an Object or External metric",
             "validation: must be >= 1 unless the HPAScaleToZero gate and such a metric");
    }
  }
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    if (auto v = r.Get(*status, "currentReplicas")) hpa.current_replicas = r.Count(v, 0);
    if (auto v = r.Get(*status, "desiredReplicas")) hpa.desired_replicas = r.Count(v, 0);
  }
  return hpa;
}

// pkg/apis/autoscaling/v1beta1/cronhorizontalpodautoscaler_types.go of
// AliyunContainerService/kubernetes-cronhpa-controller: scaleTargetRef {apiVersion, kind, name},
// excludeDates []string, jobs [{name, schedule, targetSize, runOnce}]. The CRD requires
// scaleTargetRef and jobs, and each job's name, schedule and targetSize.
CronHorizontalPodAutoscalerObject ReadCronHorizontalPodAutoscaler(ObjectReader& r,
                                                                  const Field& object) {
  CronHorizontalPodAutoscalerObject c;
  ReadObjectMeta(r, object, "CronHorizontalPodAutoscaler", c);
  const std::optional<Field> api_version = r.Get(object, "apiVersion");
  const std::string version =
      api_version ? r.String(*api_version) : "autoscaling.alibabacloud.com/v1beta1";
  if (version != "autoscaling.alibabacloud.com/v1beta1") {
    r.Fail(*api_version, Cat({"unknown CronHorizontalPodAutoscaler apiVersion ", Quote(version)}),
           "ACK's CronHPA is autoscaling.alibabacloud.com/v1beta1");
  }
  const Field spec = r.Require(object, "spec");
  r.ExpectMap(spec);
  ReadScaleTargetRef(r, spec, c);
  if (auto dates = r.Get(spec, "excludeDates")) {
    c.exclude_dates_line = dates->line;
    for (const Field& item : r.Items(*dates)) c.exclude_dates.push_back(r.String(item));
  }
  const Field jobs = r.Require(spec, "jobs");
  for (const Field& item : r.Items(jobs)) {
    r.ExpectMap(item);
    CronHpaJobObject job;
    job.name = r.String(r.Require(item, "name"));
    if (job.name.empty()) r.Fail(item, "the job's name is empty");
    for (const CronHpaJobObject& other : c.jobs)
      if (other.name == job.name) r.Fail(item, Cat({"duplicate job name ", Quote(job.name)}));
    job.schedule = r.String(r.Require(item, "schedule"));
    job.target_size = static_cast<int32_t>(
        r.Int(r.Require(item, "targetSize"), 0, std::numeric_limits<int32_t>::max()));
    if (auto once = r.Get(item, "runOnce")) job.run_once = r.Bool(*once);
    job.line = item.line;
    c.jobs.push_back(std::move(job));
  }
  return c;
}

}  // namespace knobsim::kube
