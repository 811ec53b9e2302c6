// The autoscalers: a workload's `hpa:` and `cron_hpa:`, a pool's `autoscaling:`, and their
// controllers' settings under `cluster:` (docs/autoscaling.md; scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "sim/autoscaling/node_group_expander.h"
#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim::scenario_internal {

// `cluster.cron_hpa_controller`: the controller's time zone as a fixed UTC offset.
CronHpaControllerSettings Reader::ReadCronHpaController(const Field& f) const {
  Section s(*this, f, {"utc_offset"});
  CronHpaControllerSettings c;
  if (auto v = s.Get("utc_offset")) {
    const std::string text = Scalar(*v, "a UTC offset");
    const bool sign = text.size() == 6 && (text[0] == '+' || text[0] == '-') && text[3] == ':';
    const auto digits = [&](size_t at) {
      return std::isdigit(static_cast<unsigned char>(text[at])) &&
             std::isdigit(static_cast<unsigned char>(text[at + 1]));
    };
    if (text == "Z" || text == "UTC") {
      c.utc_offset_s = 0;
    } else if (sign && digits(1) && digits(4)) {
      const int hours = (text[1] - '0') * 10 + (text[2] - '0');
      const int minutes = (text[4] - '0') * 10 + (text[5] - '0');
      if (hours > 14 || minutes > 59)
        Fail(*v, Quote(text) + " is not a UTC offset (-14:00..+14:00)");
      c.utc_offset_s = (text[0] == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
    } else {
      Fail(*v, Quote(text) + " is not a UTC offset",
           "write +HH:MM, -HH:MM or Z, e.g. +08:00 for the controller's default Asia/Shanghai");
    }
  }
  return c;
}

// A CronHPA schedule: go-cron's six fields (sim/cron_schedule.h), its errors at the field.
CronSchedule Reader::ReadCronSchedule(const Field& f) const {
  const std::string text = NonEmptyString(f);
  Expected<CronSchedule> schedule = ParseCronSchedule(text);
  if (!schedule) Fail(f, schedule.error().message, schedule.error().hint);
  return *schedule;
}

// A workload's `cron_hpa:` (docs/autoscaling.md "CronHPA"): ACK's CronHorizontalPodAutoscaler
// on the workload itself, or on its HPA.
CronHpaSpec Reader::ReadCronHpa(const Field& f, const Workload& w) const {
  Section s(*this, f, {"name", "target", "exclude_dates", "jobs"});
  CronHpaSpec c;
  c.name = w.name;
  if (auto v = s.Get("name")) c.name = DnsName(*v);
  c.namespace_ = w.namespace_;
  const bool on_hpa = s.Get("target") && Enum<bool>(*s.Get("target"), "CronHPA target",
                                                    {{"workload", false}, {"hpa", true}});
  if (on_hpa) {
    if (!w.hpa)
      Fail(*s.Get("target"), "the workload has no hpa: to scale", "add hpa:, or target: workload");
    c.target_kind = "HorizontalPodAutoscaler";
    c.target_name = w.hpa->name;
  } else {
    if (w.hpa) {
      Fail(s.Get("target") ? *s.Get("target") : f,
           "a CronHPA that scales the workload fights its HPA (each undoes the other; the "
           "controller's README)",
           "write target: hpa, so the CronHPA moves the HPA's bounds as ACK documents");
    }
    c.target_kind = w.kind;
    c.target_name = w.name;
  }
  if (auto v = s.Get("exclude_dates")) {
    for (const Field& item : Items(*v))
      c.exclude_dates.push_back(CronExcludeDate{NonEmptyString(item), ReadCronSchedule(item)});
  }
  const Field jobs = s.Require("jobs");
  for (const Field& item : Items(jobs)) {
    Section j(*this, item, {"name", "schedule", "target_size", "run_once"});
    CronHpaJob job;
    job.name = NonEmptyString(j.Require("name"));
    for (const CronHpaJob& other : c.jobs)
      if (other.name == job.name)
        Fail(EntryOf(item, "name"), "duplicate job name " + Quote(job.name));
    const Field schedule = j.Require("schedule");
    job.schedule = ReadCronSchedule(schedule);
    job.schedule_text = String(schedule);
    job.target_size = Int(j.Require("target_size"), on_hpa ? 1 : 0);
    if (auto r = j.Get("run_once")) job.run_once = Bool(*r);
    c.jobs.push_back(std::move(job));
  }
  if (c.jobs.empty()) Fail(jobs, "list at least one job");
  return c;
}

// `cluster.hpa_controller`: kube-controller-manager's HPA flags and the metric window.
HpaControllerSettings Reader::ReadHpaController(const Field& f) const {
  Section s(*this, f, {"sync_period", "tolerance", "downscale_stabilization", "metric_window"});
  HpaControllerSettings c;
  if (auto v = s.Get("sync_period")) c.sync_period = Duration(*v);
  if (auto v = s.Get("tolerance")) c.tolerance = Number(*v, 0, 1, false, true);
  if (auto v = s.Get("downscale_stabilization")) c.downscale_stabilization = Duration(*v);
  if (auto v = s.Get("metric_window")) c.metric_window = Duration(*v);
  if (c.sync_period <= 0) Fail(*s.Get("sync_period"), "the sync period must be above 0");
  if (c.metric_window <= 0) Fail(*s.Get("metric_window"), "the metric window must be above 0");
  return c;
}

// A workload's `hpa:` (docs/autoscaling.md): bounds, metrics with their targets, behavior.
HpaSpec Reader::ReadHpa(const Field& f, const Workload& w) const {
  Section s(*this, f, {"name", "min_replicas", "max_replicas", "metrics", "behavior"});
  HpaSpec h;
  h.name = w.name;
  if (auto v = s.Get("name")) h.name = DnsName(*v);
  h.namespace_ = w.namespace_;
  h.target_kind = w.kind;
  h.target_name = w.name;
  if (auto v = s.Get("min_replicas")) h.min_replicas = Int(*v, 0);
  const Field max = s.Require("max_replicas");
  h.max_replicas = Int(max, 1);
  if (h.min_replicas > h.max_replicas) Fail(max, "max_replicas is below min_replicas");
  // No metrics (absent or []): Resource cpu at 80 % (the API server's defaulting; MetricsOf).
  if (auto metrics = s.Get("metrics"))
    for (const Field& item : Items(*metrics)) h.metrics.push_back(ReadHpaMetric(item));
  if (auto v = s.Get("behavior")) {
    Section b(*this, *v, {"scale_up", "scale_down"});
    HpaBehavior behavior;
    if (auto r = b.Get("scale_up")) behavior.scale_up = ReadHpaRules(*r);
    if (auto r = b.Get("scale_down")) behavior.scale_down = ReadHpaRules(*r);
    h.behavior = behavior;
  }
  return h;
}

// One metric with its target: `average` per pod or `value` in all, or cpu's `utilization`
// (percent of the pod's cpu request) or `average` (a cpu quantity per pod).
HpaMetric Reader::ReadHpaMetric(const Field& item) const {
  Section m(*this, item, {"metric", "average", "value", "utilization"});
  HpaMetric metric;
  const Field name = m.Require("metric");
  metric.kind =
      Enum<HpaMetricKind>(name, "HPA metric",
                          {{"cpu", HpaMetricKind::kCpu},
                           {"gpu_utilization", HpaMetricKind::kGpuUtilization},
                           {"gpu_memory", HpaMetricKind::kGpuMemory},
                           {"request_rate", HpaMetricKind::kRequestRate},
                           {"in_flight", HpaMetricKind::kInFlight},
                           {"external_request_rate", HpaMetricKind::kExternalRequestRate}});
  metric.name = String(name);
  const std::optional<Field> average = m.Get("average");
  const std::optional<Field> value = m.Get("value");
  const std::optional<Field> utilization = m.Get("utilization");
  const bool cpu = metric.kind == HpaMetricKind::kCpu;
  if (utilization && !cpu)
    Fail(*utilization, "utilization is a percent of the pod's request: only cpu has one",
         "write average: instead");
  if (cpu) {
    if (average.has_value() == utilization.has_value())
      Fail(item, "give cpu's target as `utilization` (percent of request) or `average` (per pod)");
    if (value) Fail(*value, "a Resource metric has no Value target", "write average: instead");
    if (utilization) {
      metric.target_type = HpaTargetType::kUtilization;
      metric.target_utilization = Int(*utilization, 1);
    } else {
      metric.target_type = HpaTargetType::kAverageValue;
      metric.target_milli = Unit(*average, &ParseCpuMilli, "a quantity");
      if (metric.target_milli <= 0) Fail(*average, "the target must be at least 1m");
    }
    return metric;
  }
  if (average.has_value() == value.has_value())
    Fail(item, "give the target as `average` (per pod) or `value` (in all), one of them");
  if (value && metric.kind != HpaMetricKind::kExternalRequestRate)
    Fail(*value, "a per-pod metric takes an `average` target", "write average: instead");
  const Field& target = average ? *average : *value;
  metric.target_type = average ? HpaTargetType::kAverageValue : HpaTargetType::kValue;
  const double x = metric.kind == HpaMetricKind::kGpuMemory
                       ? static_cast<double>(Unit(target, &ParseMemoryMib, "a quantity"))
                       : Number(target, 0, INFINITY, true, true);
  if (metric.kind == HpaMetricKind::kGpuUtilization && x > 100)
    Fail(target, "GPU utilization is a percent, at most 100");
  metric.target_milli = std::llround(x * 1000);
  if (metric.target_milli <= 0) Fail(target, "the target must be at least 0.001");
  return metric;
}

// HPAScalingRules: unset fields take the API server's defaults.
HpaScalingRules Reader::ReadHpaRules(const Field& f) const {
  Section s(*this, f, {"stabilization_window", "select_policy", "policies", "tolerance"});
  HpaScalingRules r;
  if (auto v = s.Get("stabilization_window")) {
    const int64_t ns = Duration(*v);
    if (!ValidStabilizationWindow(ns))
      Fail(*v, "a stabilization window is whole seconds, 0 to 1h (the API's bounds)");
    r.stabilization_window_s = static_cast<int32_t>(ns / kNanosPerSecond);
  }
  if (auto v = s.Get("select_policy")) {
    r.select_policy = Enum<HpaSelectPolicy>(*v, "select policy",
                                            {{"Max", HpaSelectPolicy::kMax},
                                             {"Min", HpaSelectPolicy::kMin},
                                             {"Disabled", HpaSelectPolicy::kDisabled}});
  }
  if (auto v = s.Get("policies")) {
    for (const Field& item : Items(*v)) {
      Section p(*this, item, {"type", "value", "period"});
      HpaScalingPolicy policy;
      policy.type = Enum<HpaPolicyType>(
          p.Require("type"), "scaling policy type",
          {{"Pods", HpaPolicyType::kPods}, {"Percent", HpaPolicyType::kPercent}});
      policy.value = Int(p.Require("value"), 1);
      const Field period = p.Require("period");
      const int64_t ns = Duration(period);
      if (ns <= 0 || ns > 1800 * kNanosPerSecond || ns % kNanosPerSecond != 0)
        Fail(period, "a policy period is whole seconds, 1s to 30m (the API's bounds)");
      policy.period_s = static_cast<int32_t>(ns / kNanosPerSecond);
      r.policies.push_back(policy);
    }
    if (r.policies.empty()) Fail(*v, "list at least one policy");
  }
  if (auto v = s.Get("tolerance")) r.tolerance = Number(*v, 0, 1, false, true);
  return r;
}

// A pool's `autoscaling:` (docs/autoscaling.md "Node pools"): the node group's bounds, its
// provisioning delay and its priority for the priority expander. Without `count` the pool
// starts at its minimum.
PoolAutoscaling Reader::ReadPoolAutoscaling(const Field& f, NodePool& pool,
                                            const std::optional<Field>& count) const {
  Section s(*this, f, {"min", "max", "provisioning", "priority"});
  PoolAutoscaling a;
  a.min = Int(s.Require("min"), 0);
  const Field max = s.Require("max");
  a.max = Int(max, 1);
  if (a.max < a.min) Fail(max, "max is below min");
  if (!pool.nodes.empty())
    Fail(f, "a pool with listed nodes cannot autoscale", "write count instead of nodes");
  if (!count) {
    pool.count = a.min;
  } else if (pool.count < a.min || pool.count > a.max) {
    Fail(*count, "count " + std::to_string(pool.count) + " is outside the autoscaling bounds [" +
                     std::to_string(a.min) + ", " + std::to_string(a.max) + "]");
  }
  if (auto v = s.Get("provisioning")) {
    // One duration, or a uniform range {min, max}.
    if (v->node.IsMap()) {
      Section r(*this, *v, {"min", "max"});
      a.provisioning_min = Duration(r.Require("min"));
      const Field rmax = r.Require("max");
      a.provisioning_max = Duration(rmax);
      if (a.provisioning_max < a.provisioning_min) Fail(rmax, "max is below min");
    } else {
      a.provisioning_min = a.provisioning_max = Duration(*v);
    }
    // A node slower than that is given up on and taken out (ScaleUpTimedOut) while it still
    // boots; knobsim does not model a node that registers after its scale-up failed.
    if (a.provisioning_max > max_node_provision_time_)
      Fail(*v,
           "provisioning can take longer than the cluster-autoscaler's max_node_provision_time (" +
               FormatDuration(max_node_provision_time_) + ")",
           "raise cluster.cluster_autoscaler.max_node_provision_time, as you would "
           "--max-node-provision-time");
  }
  if (auto v = s.Get("priority")) a.priority = Int(*v, std::numeric_limits<int>::min());
  return a;
}

// `cluster.cluster_autoscaler`: the autoscaler's flags (sim/cluster_autoscaler_spec.h).
ClusterAutoscalerSettings Reader::ReadClusterAutoscaler(const Field& f) const {
  Section s(*this, f,
            {"scan_interval", "expander", "scale_down_utilization_threshold",
             "scale_down_gpu_utilization_threshold", "scale_down_unneeded_time",
             "scale_down_delay_after_add", "scale_down_delay_after_delete", "scale_down_enabled",
             "max_scale_down_parallelism", "expendable_pods_priority_cutoff", "knows_gpu_share",
             "max_node_provision_time", "initial_node_group_backoff", "max_node_group_backoff",
             "node_group_backoff_reset"});
  ClusterAutoscalerSettings c;
  if (auto v = s.Get("scan_interval")) {
    c.scan_interval = Duration(*v);
    if (c.scan_interval <= 0) Fail(*v, "the scan interval must be above 0");
  }
  if (auto v = s.Get("expander")) {
    c.expander = NonEmptyString(*v);
    const autoscaling::ExpanderParse parsed = autoscaling::ParseExpanderChain(c.expander);
    if (!parsed.error.empty()) Fail(*v, parsed.error);
  }
  if (auto v = s.Get("scale_down_utilization_threshold"))
    c.utilization_threshold = Number(*v, 0, 1, true, true);
  if (auto v = s.Get("scale_down_gpu_utilization_threshold"))
    c.gpu_utilization_threshold = Number(*v, 0, 1, true, true);
  if (auto v = s.Get("scale_down_unneeded_time")) c.unneeded_time = Duration(*v);
  if (auto v = s.Get("scale_down_delay_after_add")) c.delay_after_add = Duration(*v);
  if (auto v = s.Get("scale_down_delay_after_delete")) c.delay_after_delete = Duration(*v);
  if (auto v = s.Get("scale_down_enabled")) c.scale_down = Bool(*v);
  if (auto v = s.Get("max_scale_down_parallelism")) c.max_scale_down_parallelism = Int(*v, 1);
  if (auto v = s.Get("expendable_pods_priority_cutoff"))
    c.expendable_pods_priority_cutoff = Int(*v, std::numeric_limits<int>::min());
  if (auto v = s.Get("knows_gpu_share")) c.knows_gpu_share = Bool(*v);
  const auto positive = [&](const Field& v) {
    const SimTime d = Duration(v);
    if (d <= 0) Fail(v, "must be above 0");
    return d;
  };
  if (auto v = s.Get("max_node_provision_time")) c.max_node_provision_time = positive(*v);
  if (auto v = s.Get("initial_node_group_backoff")) c.backoff.initial = positive(*v);
  if (auto v = s.Get("max_node_group_backoff")) c.backoff.max = positive(*v);
  if (auto v = s.Get("node_group_backoff_reset")) c.backoff.reset_after = positive(*v);
  return c;
}

}  // namespace knobsim::scenario_internal
