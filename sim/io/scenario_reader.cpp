#include "sim/io/scenario_reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "sim/autoscaling/node_group_expander.h"
#include "sim/dns_label.h"
#include "sim/io/arrival_file.h"
#include "sim/io/evidence_fingerprint.h"
#include "sim/io/interference_files.h"
#include "sim/io/quantity.h"
#include "sim/io/spelling.h"
#include "sim/io/yaml_fields.h"
#include "sim/scenario_objects.h"
#include "sim/scheduler/card_placement.h"
#include "sim/text.h"

namespace knobsim {
namespace {

// ---- Small text helpers ------------------------------------------------------------------

std::string FormatDuration(SimTime ns) {
  const std::pair<SimTime, const char*> units[] = {{3600 * kNanosPerSecond, "h"},
                                                   {60 * kNanosPerSecond, "m"},
                                                   {kNanosPerSecond, "s"},
                                                   {kNanosPerMilli, "ms"},
                                                   {1000, "us"}};
  for (const auto& [size, name] : units) {
    if (ns != 0 && ns % size == 0) return std::to_string(ns / size) + name;
  }
  return std::to_string(ns) + "ns";
}

std::string DnsLabelHint(std::string_view s) {
  std::string fixed;
  for (char c : s) {
    fixed += c == '_' || c == '.' || c == ' '
                 ? '-'
                 : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  std::string hint =
      "names are DNS-1123 labels: lower-case letters, digits and '-', at most 63 characters";
  if (IsDnsLabel(fixed)) hint = "did you mean `" + fixed + "`? " + hint;
  return hint;
}

// The scenario's sections on top of the shared field helpers (sim/io/yaml_fields.h).
class Reader : public YamlFieldReader {
 public:
  explicit Reader(std::string file) : YamlFieldReader(std::move(file)) {}

  Scenario Read(const YAML::Node& root) const;

 private:
  // Values of the scenario only.
  std::string Placement(const Field& f) const;
  std::string DnsName(const Field& f) const;

  // Sections.
  void ReadGpuTypes(const Field& f, GpuCatalog& catalog) const;
  ClusterKnobs ReadCluster(const Field& f) const;
  NodePool ReadNodePool(const Field& f, const GpuCatalog& catalog) const;
  PoolAutoscaling ReadPoolAutoscaling(const Field& f, NodePool& pool,
                                      const std::optional<Field>& count) const;
  ClusterAutoscalerSettings ReadClusterAutoscaler(const Field& f) const;
  Taint ReadTaint(const Field& f) const;
  Workload ReadWorkload(const Field& f) const;
  // Node names of every pool, once the pools are read (current pods refer to them).
  mutable std::set<std::string> known_nodes_;
  // cluster.interference, once the cluster is read (workloads name its jobs).
  mutable std::shared_ptr<const InterferenceSetup> interference_;
  std::shared_ptr<const InterferenceSetup> ReadInterferenceSetup(const Field& f) const;
  JobProfile ReadInterferenceProfile(const Field& f) const;
  NodeAffinity ReadNodeAffinity(const Field& f) const;
  std::vector<NodeSelectorRequirement> ReadNodeSelectorTerm(const Field& f) const;
  Toleration ReadToleration(const Field& f) const;
  HostPort ReadHostPort(const Field& f) const;
  HpaSpec ReadHpa(const Field& f, const Workload& w) const;
  HpaScalingRules ReadHpaRules(const Field& f) const;
  HpaControllerSettings ReadHpaController(const Field& f) const;
  CronHpaSpec ReadCronHpa(const Field& f, const Workload& w) const;
  CronSchedule ReadCronSchedule(const Field& f) const;
  CronHpaControllerSettings ReadCronHpaController(const Field& f) const;
  TopologySpreadConstraint ReadSpread(const Field& f, const Labels& own_labels) const;
  std::vector<TopologySpreadConstraint> ReadSpreadList(const Field& f, const Labels& own) const;
  LabelSelector ReadLabelSelector(const Field& f) const;
  PodAffinity ReadPodAffinity(const Field& f, const Labels& own) const;
  void CheckValues(const Field& f, std::string_view op, const std::vector<std::string>& values,
                   bool numeric_ops) const;
  Traffic ReadTraffic(const Field& f, const std::vector<CurrentPod>& pods) const;
  IntervalCounts ReadCounts(const Field& f, const std::vector<CurrentPod>& pods) const;
  std::string Beside(const std::string& path) const;
  WorkModel ReadWork(const Field& f) const;
  Slo ReadSlo(const Field& f) const;
  RunSettings ReadRun(const Field& f) const;
  Variant ReadVariant(const Field& f, const Scenario& s) const;
  void CheckGpuMemSplit(const Field& f, int gpu_mem, int gpu_count) const;
  // The `kube:` section (cluster objects the checks read).
  ScenarioKube ReadKube(const Field& f) const;
  PodDisruptionBudgetSpec ReadPdb(const Field& f) const;
  StatefulSetSpec ReadStatefulSet(const Field& f) const;
  PersistentVolumeClaimSpec ReadPvc(const Field& f) const;
  PersistentVolumeSpec ReadPv(const Field& f) const;
  std::vector<std::string> AccessModes(const Field& f) const;
  StorageClassSpec ReadStorageClass(const Field& f) const;
  ResourceQuotaSpec ReadResourceQuota(const Field& f) const;
  IntOrPercent ReadIntOrPercent(const Field& f) const;
  ResourceList ReadResourceAmounts(const Field& f) const;
};

// ---- Values of the scenario only ------------------------------------------------------------

std::string Reader::Placement(const Field& f) const {
  const std::string text = Scalar(f, "a placement");
  if (auto p = NormalizePlacement(text)) return *p;
  Fail(f, Quote(text) + " is not a valid placement",
       SuggestName(text, PlacementNames(), "use one of"));
}

std::string Reader::DnsName(const Field& f) const {
  const std::string name = NonEmptyString(f);
  if (!IsDnsLabel(name)) Fail(f, Quote(name) + " is not a valid name", DnsLabelHint(name));
  return name;
}

// ---- Sections ----------------------------------------------------------------------------

// gpu_types: add a card or override fields of a catalog entry; an override keeps the fields it
// does not name, so `{name: A10, speed: 1.1}` changes only the speed.
void Reader::ReadGpuTypes(const Field& f, GpuCatalog& catalog) const {
  std::set<std::string> seen;
  for (const Field& item : Items(f)) {
    Section s(*this, item, {"name", "memory", "speed", "context", "interconnect", "source"});
    const Field name_field = s.Require("name");
    GpuType type;
    type.name = NonEmptyString(name_field);
    std::string lower = type.name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!seen.insert(lower).second) Fail(name_field, "duplicate GPU type " + Quote(type.name));
    if (const GpuType* existing = catalog.Find(type.name)) {
      type = *existing;
    } else {
      type.interconnect = "pcie";
      s.Require("memory");
    }
    if (auto v = s.Get("memory")) {
      type.memory_mib = Unit(*v, &ParseMemoryMib, "a quantity");
      if (type.memory_mib <= 0) Fail(*v, "a card needs memory");
    }
    if (auto v = s.Get("speed")) {
      type.speed = Number(*v, 0, INFINITY, true, false, "speed is relative to the A10 (1.0)");
    }
    if (auto v = s.Get("context")) type.context_mib = Unit(*v, &ParseMemoryMib, "a quantity");
    if (auto v = s.Get("interconnect")) {
      type.interconnect = std::string(
          Enum<std::string_view>(*v, "interconnect", {{"pcie", "pcie"}, {"nvlink", "nvlink"}}));
    }
    if (auto v = s.Get("source")) type.source = String(*v);
    catalog.Put(std::move(type));
  }
}

ClusterKnobs Reader::ReadCluster(const Field& f) const {
  Section s(
      *this, f,
      {"policy", "max_inst", "switch_overhead", "default_placement", "percentage_of_nodes_to_score",
       "interference", "hpa_controller", "cron_hpa_controller", "cluster_autoscaler"});
  ClusterKnobs c;
  if (auto v = s.Get("policy")) {
    c.policy = static_cast<SharingPolicy>(
        Int(*v, 0, 5, "cGPU POLICY is 0 (fixed equal slices) to 5 (native time-slicing)"));
  }
  if (auto v = s.Get("max_inst")) {
    c.max_inst = Int(*v, 1, 25, "cGPU runs at most 25 instances per card");
  }
  if (auto v = s.Get("switch_overhead")) c.switch_overhead = Number(*v, 0, 1, false, true);
  if (auto v = s.Get("default_placement")) c.default_placement = Placement(*v);
  if (auto v = s.Get("percentage_of_nodes_to_score")) {
    c.percentage_of_nodes_to_score =
        Int(*v, 0, 100, "kube-scheduler's percentageOfNodesToScore is 0 (adaptive) to 100");
  }
  if (auto v = s.Get("interference")) c.interference = ReadInterferenceSetup(*v);
  if (auto v = s.Get("hpa_controller")) c.hpa_controller = ReadHpaController(*v);
  if (auto v = s.Get("cron_hpa_controller")) c.cron_hpa_controller = ReadCronHpaController(*v);
  if (auto v = s.Get("cluster_autoscaler")) c.cluster_autoscaler = ReadClusterAutoscaler(*v);
  return c;
}

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
    if (auto r = j.Get("run_once"))
      job.run_once = Enum<bool>(*r, "true or false", {{"true", true}, {"false", false}});
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
  const Field metrics = s.Require("metrics");
  for (const Field& item : Items(metrics)) {
    Section m(*this, item, {"metric", "average", "value"});
    HpaMetric metric;
    const Field name = m.Require("metric");
    metric.kind =
        Enum<HpaMetricKind>(name, "HPA metric",
                            {{"gpu_utilization", HpaMetricKind::kGpuUtilization},
                             {"gpu_memory", HpaMetricKind::kGpuMemory},
                             {"request_rate", HpaMetricKind::kRequestRate},
                             {"in_flight", HpaMetricKind::kInFlight},
                             {"external_request_rate", HpaMetricKind::kExternalRequestRate}});
    metric.name = String(name);
    const std::optional<Field> average = m.Get("average");
    const std::optional<Field> value = m.Get("value");
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
    h.metrics.push_back(std::move(metric));
  }
  if (h.metrics.empty()) Fail(metrics, "list at least one metric");
  if (auto v = s.Get("behavior")) {
    Section b(*this, *v, {"scale_up", "scale_down"});
    HpaBehavior behavior;
    if (auto r = b.Get("scale_up")) behavior.scale_up = ReadHpaRules(*r);
    if (auto r = b.Get("scale_down")) behavior.scale_down = ReadHpaRules(*r);
    h.behavior = behavior;
  }
  return h;
}

// HPAScalingRules: unset fields take the API server's defaults.
HpaScalingRules Reader::ReadHpaRules(const Field& f) const {
  Section s(*this, f, {"stabilization_window", "select_policy", "policies", "tolerance"});
  HpaScalingRules r;
  if (auto v = s.Get("stabilization_window")) {
    const int64_t ns = Duration(*v);
    if (ns < 0 || ns > 3600 * kNanosPerSecond || ns % kNanosPerSecond != 0)
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

// `interference: MODEL.json` (under cluster:, or at the top level): the model file, read now so
// that workloads can name its jobs and a bad file fails before any run.
std::shared_ptr<const InterferenceSetup> Reader::ReadInterferenceSetup(const Field& f) const {
  const std::string name = NonEmptyString(f);
  Expected<InterferenceModelFile> file = ReadInterferenceModel(Beside(name));
  if (!file) Fail(f, file.error().ToString());
  auto setup = std::make_shared<InterferenceSetup>();
  setup->source = name;
  setup->model = std::move(file->model);
  setup->profiles = std::move(file->profiles);
  return setup;
}

// A workload's `interference:`: a job of the model file by name, or its own solo profile
// (the columns of SOLO.csv), or `none`... (`none` is handled by the caller).
JobProfile Reader::ReadInterferenceProfile(const Field& f) const {
  if (f.node.IsScalar()) {
    const std::string job = NonEmptyString(f);
    std::vector<std::string> names;
    for (const JobProfile& p : interference_->profiles) {
      if (p.job == job) return p;
      names.push_back(p.job);
    }
    Fail(f,
         "the interference model " + Quote(interference_->source) + " holds no job " + Quote(job),
         SuggestName(job, names, "its jobs include"));
  }
  Section p(*this, f, {"gpu_util_pct", "mem_bw_util_pct", "memory_mib"});
  JobProfile profile;  // no job name: the fit's per-job offsets are for its own jobs only
  profile.gpu_util_pct = Number(p.Require("gpu_util_pct"), 0, 100, false, false);
  profile.mem_bw_util_pct = Number(p.Require("mem_bw_util_pct"), 0, 100, false, false);
  profile.memory_mib =
      Number(p.Require("memory_mib"), 0, std::numeric_limits<double>::max(), false, false);
  return profile;
}

Taint Reader::ReadTaint(const Field& f) const {
  Section s(*this, f, {"key", "value", "effect"});
  Taint t;
  t.key = NonEmptyString(s.Require("key"));
  if (auto v = s.Get("value")) t.value = String(*v);
  t.effect = std::string(Enum<std::string_view>(s.Require("effect"), "taint effect",
                                                {{"NoSchedule", "NoSchedule"},
                                                 {"PreferNoSchedule", "PreferNoSchedule"},
                                                 {"NoExecute", "NoExecute"}}));
  return t;
}

NodePool Reader::ReadNodePool(const Field& f, const GpuCatalog& catalog) const {
  Section s(*this, f,
            {"name", "count", "nodes", "gpu", "gpus_per_node", "cpu", "memory", "pods", "zones",
             "instance_type", "labels", "taints", "memory_isolation", "cgpu_version", "spot",
             "autoscaling"});
  NodePool p;
  p.name = DnsName(s.Require("name"));
  if (auto v = s.Get("nodes")) {
    for (const Field& item : Items(*v)) {
      PoolNode n;
      if (item.node.IsMap()) {
        Section ns(*this, item, {"name", "zone", "labels"});
        n.name = NonEmptyString(ns.Require("name"));
        if (auto z = ns.Get("zone")) n.zone = String(*z);
        if (auto l = ns.Get("labels")) n.labels = StringMap(*l);
      } else {
        n.name = NonEmptyString(item);
      }
      p.nodes.push_back(std::move(n));
    }
    p.count = static_cast<int>(p.nodes.size());
  }
  if (auto v = s.Get("count")) {
    p.count = Int(*v, 0);
    if (!p.nodes.empty() && p.count != static_cast<int>(p.nodes.size())) {
      Fail(*v,
           "count " + std::to_string(p.count) + " disagrees with the " +
               std::to_string(p.nodes.size()) + " nodes listed",
           "leave count out when nodes are listed");
    }
  }
  if (auto v = s.Get("gpu")) {
    const std::string name = NonEmptyString(*v);
    const GpuType* type = catalog.Find(name);
    if (type == nullptr) {
      std::vector<std::string> names;
      for (const GpuType& t : catalog.types()) names.push_back(t.name);
      Fail(*v, "unknown GPU type " + Quote(name),
           "known types: " + Join(names) + "; add others under gpu_types");
    }
    p.gpu_type = type->name;
    p.gpus_per_node = 1;
  }
  if (auto v = s.Get("gpus_per_node")) {
    if (p.gpu_type.empty()) {
      const int n = Int(*v, 0);
      if (n > 0) Fail(*v, "a pool without `gpu` has no cards", "set `gpu` to a catalog type");
    } else {
      p.gpus_per_node = Int(*v, 1);
    }
  }
  if (auto v = s.Get("cpu")) p.cpu_milli = Unit(*v, &ParseCpuMilli, "a quantity");
  if (auto v = s.Get("memory")) p.memory_mib = Unit(*v, &ParseMemoryMib, "a quantity");
  if (auto v = s.Get("pods")) p.pods = Int(*v, 0);
  if (auto v = s.Get("zones")) p.zones = StringList(*v);
  if (auto v = s.Get("instance_type")) p.instance_type = String(*v);
  if (auto v = s.Get("taints")) {
    for (const Field& item : Items(*v)) p.taints.push_back(ReadTaint(item));
  }
  if (auto v = s.Get("cgpu_version")) p.cgpu_version = String(*v);
  if (auto v = s.Get("spot")) {
    // Spot instances: reclaims per node-hour (a Poisson process per node) and how long a
    // replacement node takes to join. Above one a minute the pool would mostly be down.
    Section spot(*this, *v, {"per_node_hour", "replace_after"});
    p.spot.per_node_hour = Number(spot.Require("per_node_hour"), 0, 60, false, false,
                                  "reclaims per node per hour, e.g. 0.05; 0 = on-demand");
    if (auto r = spot.Get("replace_after")) p.spot.replace_after = Duration(*r);
  }
  if (auto v = s.Get("autoscaling")) p.autoscaling = ReadPoolAutoscaling(*v, p, s.Get("count"));

  // Derived from the labels (docs/semantics.md §1.2). knobsim's default for a GPU pool without
  // ack.node.gpu.schedule is cgpu (ACK's is exclusive cards): scenarios are about sharing. The
  // label is then written, so node selectors see what the simulator assumes.
  const std::optional<Field> labels_field = s.Get("labels");
  if (labels_field) p.labels = StringMap(*labels_field);
  auto label_field = [&](std::string_view key) { return EntryOf(*labels_field, key); };
  if (auto it = p.labels.find(std::string(kGpuScheduleLabel)); it != p.labels.end()) {
    p.schedule = Enum<GpuSchedule>(label_field(kGpuScheduleLabel), "ack.node.gpu.schedule value",
                                   {{"default", GpuSchedule::kDefault},
                                    {"share", GpuSchedule::kShare},
                                    {"cgpu", GpuSchedule::kCgpu},
                                    {"core_mem", GpuSchedule::kCoreMem}});
  } else if (!p.gpu_type.empty()) {
    p.schedule = GpuSchedule::kCgpu;
    p.labels[std::string(kGpuScheduleLabel)] = "cgpu";
  } else {
    p.schedule = GpuSchedule::kDefault;
  }
  if (auto it = p.labels.find(std::string(kGpuPlacementLabel)); it != p.labels.end()) {
    p.placement = Placement(label_field(kGpuPlacementLabel));
    it->second = p.placement;
  }
  if (auto it = p.labels.find(std::string(kGpuMaxPodLabel)); it != p.labels.end()) {
    p.max_pods_per_card = Int(label_field(kGpuMaxPodLabel), 1);
  }
  const bool module = !p.gpu_type.empty() &&
                      (p.schedule == GpuSchedule::kCgpu || p.schedule == GpuSchedule::kCoreMem);
  auto disable = p.labels.find(std::string(kCgpuDisableIsolationLabel));
  const bool disabled = disable != p.labels.end() && disable->second == "true";
  p.cgpu_active = module && !disabled;
  p.isolation = p.cgpu_active ? MemoryIsolation::kHard : MemoryIsolation::kSoft;
  if (auto v = s.Get("memory_isolation")) {
    // soft on an active module is the buggy-module case (docs/design.md §1 item 1): memory is not
    // isolated but the cluster POLICY still shares compute. hard needs a module that is on.
    p.isolation =
        Enum<MemoryIsolation>(*v, "memory isolation",
                              {{"hard", MemoryIsolation::kHard}, {"soft", MemoryIsolation::kSoft}});
    if (p.isolation == MemoryIsolation::kHard && !p.cgpu_active) {
      if (p.gpu_type.empty()) Fail(*v, "a pool without `gpu` has no GPU memory to isolate");
      if (disabled) {
        Fail(*v, "hard isolation contradicts the label cgpu.disable.isolation=true",
             "remove the label or make memory_isolation soft");
      }
      Fail(*v,
           "hard isolation needs cGPU, but ack.node.gpu.schedule is " +
               p.labels[std::string(kGpuScheduleLabel)],
           "use ack.node.gpu.schedule cgpu or core_mem, or make memory_isolation soft");
    }
  }
  return p;
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
  }
  if (auto v = s.Get("priority")) a.priority = Int(*v, std::numeric_limits<int>::min());
  if (pool.spot.per_node_hour > 0)
    Fail(f, "spot reclaims of an autoscaled pool are not modelled yet",
         "leave out spot, or autoscaling");
  return a;
}

// `cluster.cluster_autoscaler`: the autoscaler's flags (sim/cluster_autoscaler_spec.h).
ClusterAutoscalerSettings Reader::ReadClusterAutoscaler(const Field& f) const {
  Section s(*this, f,
            {"scan_interval", "expander", "scale_down_utilization_threshold",
             "scale_down_gpu_utilization_threshold", "scale_down_unneeded_time",
             "scale_down_delay_after_add", "scale_down_delay_after_delete", "scale_down_enabled",
             "max_scale_down_parallelism", "expendable_pods_priority_cutoff", "knows_gpu_share"});
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
  const auto flag = [&](const Field& v) {
    return Enum<bool>(v, "true or false", {{"true", true}, {"false", false}});
  };
  if (auto v = s.Get("scale_down_enabled")) c.scale_down = flag(*v);
  if (auto v = s.Get("max_scale_down_parallelism")) c.max_scale_down_parallelism = Int(*v, 1);
  if (auto v = s.Get("expendable_pods_priority_cutoff"))
    c.expendable_pods_priority_cutoff = Int(*v, std::numeric_limits<int>::min());
  if (auto v = s.Get("knows_gpu_share")) c.knows_gpu_share = flag(*v);
  return c;
}

void Reader::CheckValues(const Field& f, std::string_view op,
                         const std::vector<std::string>& values, bool numeric_ops) const {
  if (op == "In" || op == "NotIn") {
    if (values.empty()) Fail(f, "operator " + std::string(op) + " needs `values`");
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!values.empty()) Fail(f, "operator " + std::string(op) + " takes no `values`");
  } else if (numeric_ops && (op == "Gt" || op == "Lt")) {
    int64_t n = 0;
    const std::string& v = values.empty() ? std::string() : values[0];
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (values.size() != 1 || ec != std::errc() || end != v.data() + v.size()) {
      Fail(f, "operator " + std::string(op) + " needs exactly one integer in `values`");
    }
  }
}

std::vector<NodeSelectorRequirement> Reader::ReadNodeSelectorTerm(const Field& f) const {
  std::vector<NodeSelectorRequirement> term;
  for (const Field& item : Items(f)) {
    Section s(*this, item, {"key", "operator", "values"});
    NodeSelectorRequirement r;
    r.key = NonEmptyString(s.Require("key"));
    const Field op = s.Require("operator");
    r.op = std::string(Enum<std::string_view>(op, "operator",
                                              {{"In", "In"},
                                               {"NotIn", "NotIn"},
                                               {"Exists", "Exists"},
                                               {"DoesNotExist", "DoesNotExist"},
                                               {"Gt", "Gt"},
                                               {"Lt", "Lt"}}));
    if (auto v = s.Get("values")) r.values = StringList(*v);
    CheckValues(item, r.op, r.values, true);
    term.push_back(std::move(r));
  }
  if (term.empty()) Fail(f, "a term needs at least one expression");
  return term;
}

NodeAffinity Reader::ReadNodeAffinity(const Field& f) const {
  Section s(*this, f, {"required", "preferred"});
  NodeAffinity a;
  if (auto v = s.Get("required")) {
    for (const Field& term : Items(*v)) a.required_terms.push_back(ReadNodeSelectorTerm(term));
  }
  if (auto v = s.Get("preferred")) {
    for (const Field& item : Items(*v)) {
      Section p(*this, item, {"weight", "match"});
      NodeAffinity::Preferred pref;
      pref.weight = Int(p.Require("weight"), 1, 100);
      pref.expressions = ReadNodeSelectorTerm(p.Require("match"));
      a.preferred.push_back(std::move(pref));
    }
  }
  return a;
}

// A host port as a container port names one: `{port, protocol, host_ip}`, TCP and 0.0.0.0 when
// left out (NodePorts, docs/semantics.md §3.10).
HostPort Reader::ReadHostPort(const Field& f) const {
  Section s(*this, f, {"port", "protocol", "host_ip"});
  HostPort p;
  p.port = Int(s.Require("port"), 1, 65535, "a host port is 1..65535");
  if (auto v = s.Get("protocol")) {
    p.protocol = std::string(
        Enum<std::string_view>(*v, "protocol", {{"TCP", "TCP"}, {"UDP", "UDP"}, {"SCTP", "SCTP"}}));
  }
  if (auto v = s.Get("host_ip")) p.host_ip = NonEmptyString(*v);
  return p;
}

// Kubernetes' own validation rules for tolerations (core/validation ValidateTolerations).
Toleration Reader::ReadToleration(const Field& f) const {
  Section s(*this, f, {"key", "operator", "value", "effect", "toleration_seconds"});
  Toleration t;
  if (auto v = s.Get("key")) t.key = String(*v);
  if (auto v = s.Get("operator")) {
    t.op = std::string(
        Enum<std::string_view>(*v, "operator", {{"Equal", "Equal"}, {"Exists", "Exists"}}));
  }
  if (auto v = s.Get("value")) t.value = String(*v);
  if (auto v = s.Get("effect")) {
    t.effect = std::string(Enum<std::string_view>(*v, "toleration effect",
                                                  {{"NoSchedule", "NoSchedule"},
                                                   {"PreferNoSchedule", "PreferNoSchedule"},
                                                   {"NoExecute", "NoExecute"},
                                                   {"", ""}}));
  }
  if (t.key.empty() && t.op != "Exists") {
    Fail(f, "a toleration without `key` must use operator Exists");
  }
  if (t.op == "Exists" && !t.value.empty()) {
    Fail(*s.Get("value"), "must be empty when the operator is Exists");
  }
  if (auto v = s.Get("toleration_seconds")) {
    if (t.effect != "NoExecute") Fail(*v, "needs effect NoExecute");
    t.toleration_seconds =
        Integer(*v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  }
  return t;
}

LabelSelector Reader::ReadLabelSelector(const Field& f) const {
  Section s(*this, f, {"match_labels", "match_expressions"});
  LabelSelector sel;
  if (auto v = s.Get("match_labels")) sel.match_labels = StringMap(*v);
  if (auto v = s.Get("match_expressions")) {
    for (const Field& item : Items(*v)) {
      Section e(*this, item, {"key", "operator", "values"});
      LabelSelectorRequirement r;
      r.key = NonEmptyString(e.Require("key"));
      r.op = std::string(Enum<std::string_view>(e.Require("operator"), "operator",
                                                {{"In", "In"},
                                                 {"NotIn", "NotIn"},
                                                 {"Exists", "Exists"},
                                                 {"DoesNotExist", "DoesNotExist"}}));
      if (auto values = e.Get("values")) r.values = StringList(*values);
      CheckValues(item, r.op, r.values, false);
      sel.match_expressions.push_back(std::move(r));
    }
  }
  return sel;
}

TopologySpreadConstraint Reader::ReadSpread(const Field& f, const Labels& own_labels) const {
  Section s(*this, f,
            {"max_skew", "topology_key", "when_unsatisfiable", "label_selector", "match_label_keys",
             "min_domains", "node_affinity_policy", "node_taints_policy"});
  TopologySpreadConstraint c;
  if (auto v = s.Get("max_skew")) c.max_skew = Int(*v, 1);
  c.topology_key = NonEmptyString(s.Require("topology_key"));
  if (auto v = s.Get("when_unsatisfiable")) {
    c.when_unsatisfiable = std::string(Enum<std::string_view>(
        *v, "when_unsatisfiable",
        {{"DoNotSchedule", "DoNotSchedule"}, {"ScheduleAnyway", "ScheduleAnyway"}}));
  }
  if (auto v = s.Get("label_selector")) {
    c.label_selector = ReadLabelSelector(*v);
  } else {
    c.label_selector.match_labels = own_labels;
  }
  if (auto v = s.Get("match_label_keys")) c.match_label_keys = StringList(*v);
  if (auto v = s.Get("min_domains")) {
    if (c.when_unsatisfiable != "DoNotSchedule") {
      Fail(*v, "min_domains needs when_unsatisfiable DoNotSchedule");
    }
    c.min_domains = Int(*v, 1);
  }
  EnumTable<std::string_view> policies = {{"Honor", "Honor"}, {"Ignore", "Ignore"}};
  if (auto v = s.Get("node_affinity_policy")) {
    c.node_affinity_policy = std::string(Enum(*v, "node_affinity_policy", policies));
  }
  if (auto v = s.Get("node_taints_policy")) {
    c.node_taints_policy = std::string(Enum(*v, "node_taints_policy", policies));
  }
  return c;
}

// pod_affinity / pod_anti_affinity: {required: [term], preferred: [{weight, ...term}]}; a term
// without label_selector selects the workload's own labels, as topology_spread does.
PodAffinity Reader::ReadPodAffinity(const Field& f, const Labels& own) const {
  Section s(*this, f, {"required", "preferred"});
  auto term = [&](const Section& t) {
    PodAffinityTerm out;
    out.topology_key = NonEmptyString(t.Require("topology_key"));
    if (auto v = t.Get("label_selector")) {
      out.label_selector = ReadLabelSelector(*v);
    } else {
      out.label_selector.match_labels = own;
    }
    if (auto v = t.Get("namespaces")) out.namespaces = StringList(*v);
    if (auto v = t.Get("namespace_selector")) out.namespace_selector = ReadLabelSelector(*v);
    if (auto v = t.Get("match_label_keys")) out.match_label_keys = StringList(*v);
    if (auto v = t.Get("mismatch_label_keys")) out.mismatch_label_keys = StringList(*v);
    return out;
  };
  PodAffinity a;
  if (auto v = s.Get("required")) {
    for (const Field& item : Items(*v)) {
      a.required.push_back(
          term(Section(*this, item,
                       {"topology_key", "label_selector", "namespaces", "namespace_selector",
                        "match_label_keys", "mismatch_label_keys"})));
    }
  }
  if (auto v = s.Get("preferred")) {
    for (const Field& item : Items(*v)) {
      Section t(*this, item,
                {"weight", "topology_key", "label_selector", "namespaces", "namespace_selector",
                 "match_label_keys", "mismatch_label_keys"});
      WeightedPodAffinityTerm w;
      w.weight = Int(t.Require("weight"), 1, 100);
      w.term = term(t);
      a.preferred.push_back(std::move(w));
    }
  }
  return a;
}

std::vector<TopologySpreadConstraint> Reader::ReadSpreadList(const Field& f,
                                                             const Labels& own) const {
  std::vector<TopologySpreadConstraint> out;
  for (const Field& item : Items(f)) out.push_back(ReadSpread(item, own));
  return out;
}

// A file named in the scenario: relative paths are from the scenario's own folder.
std::string Reader::Beside(const std::string& path) const {
  const std::filesystem::path p(path);
  if (p.is_absolute() || file() == "-" || file().empty()) return path;
  return (std::filesystem::path(file()).parent_path() / p).string();
}

// counts: {step, values | file | per_pod | per_pod_file, spread}.
IntervalCounts Reader::ReadCounts(const Field& f, const std::vector<CurrentPod>& pods) const {
  Section c(*this, f, {"step", "values", "file", "per_pod", "per_pod_file", "spread"});
  IntervalCounts counts;
  if (auto spread = c.Get("spread")) {
    counts.spread =
        Enum<CountSpread>(*spread, "counts spread",
                          {{"uniform", CountSpread::kUniform}, {"even", CountSpread::kEven}});
  }
  const Field step = c.Require("step");
  counts.step = Duration(step);
  if (counts.step <= 0) Fail(step, "the step must be positive");
  // At the Service (values | file), per pod (per_pod | per_pod_file), or both: then the
  // Service's are the requests no current pod recorded.
  const char* kHint =
      "give values or file (the Service's requests), per_pod or per_pod_file (each pod's own), or "
      "one of each (the Service's then are those of pods no longer running)";
  const auto one_of = [&](std::string_view a, std::string_view b) {
    if (c.Has(a) && c.Has(b))
      Fail(*c.Get(b), "counts has both `" + std::string(a) + "` and `" + std::string(b) + "`",
           kHint);
  };
  one_of("values", "file");
  one_of("per_pod", "per_pod_file");
  if (!c.Has("values") && !c.Has("file") && !c.Has("per_pod") && !c.Has("per_pod_file"))
    Fail(f, "counts needs its counts", kHint);
  if (auto values = c.Get("values")) {
    for (const Field& item : Items(*values))
      counts.values.push_back(Integer(item, 0, 1'000'000'000));
    if (counts.values.empty()) Fail(*values, "counts needs at least one value");
  }
  if (auto file = c.Get("file")) {
    const std::string name = NonEmptyString(*file);
    Expected<std::vector<int64_t>> values = ReadCountsFile(Beside(name));
    if (!values) Fail(*file, values.error().ToString());
    counts.values = std::move(*values);
    counts.source = name;
  }
  // Each pod's series names one of the workload's current pods: its replica ordinal.
  const auto ordinal = [&](const Field& at, const std::string& name) {
    for (size_t i = 0; i < pods.size(); ++i)
      if (pods[i].name == name) return static_cast<int>(i);
    std::vector<std::string> names;
    for (const CurrentPod& p : pods) names.push_back(p.name);
    Fail(at, "no pod " + Quote(name) + " in the workload's `pods:`",
         pods.empty() ? "per-pod counts name the workload's current pods; it lists none"
                      : SuggestName(name, names, "its pods are"));
  };
  if (auto per_pod = c.Get("per_pod")) {
    const std::vector<std::pair<std::string, Field>> entries = Entries(*per_pod);
    if (entries.empty())
      Fail(*per_pod, "per_pod maps pod names to their counts", "per_pod: {POD: [3, 0, 5]}");
    for (const auto& [key, value] : entries) {
      PodCounts pod{key, ordinal(EntryOf(*per_pod, key), key), {}};
      for (const Field& item : Items(value)) pod.values.push_back(Integer(item, 0, 1'000'000'000));
      if (pod.values.empty()) Fail(value, "the pod's counts need at least one value");
      counts.per_pod.push_back(std::move(pod));
    }
  }
  if (auto file = c.Get("per_pod_file")) {
    const std::string name = NonEmptyString(*file);
    Expected<std::vector<PodCounts>> read = ReadPerPodCountsCsv(Beside(name));
    if (!read) Fail(*file, read.error().ToString());
    for (PodCounts& pod : *read) pod.replica = ordinal(*file, pod.pod);
    counts.per_pod = std::move(*read);
    counts.source = name;
  }
  size_t longest = counts.values.size();
  for (const PodCounts& pod : counts.per_pod) longest = std::max(longest, pod.values.size());
  if (static_cast<double>(longest) * static_cast<double>(counts.step) > 9e18) {
    Fail(step, "the counts cover more time than a run can (9e9 s)");
  }
  return counts;
}

Traffic Reader::ReadTraffic(const Field& f, const std::vector<CurrentPod>& pods) const {
  Section s(*this, f, {"rate", "piecewise", "diurnal", "replay", "counts", "start"});
  Traffic t;
  std::vector<std::string> kinds;
  for (std::string_view k : {"rate", "piecewise", "diurnal", "replay", "counts"}) {
    if (s.Has(k)) kinds.emplace_back(k);
  }
  if (kinds.empty()) {
    Fail(f, "traffic needs one of `rate`, `piecewise`, `diurnal`, `replay` or `counts`");
  }
  if (kinds.size() > 1) {
    Fail(*s.Get(kinds[1]), "traffic has both `" + kinds[0] + "` and `" + kinds[1] + "`",
         "give exactly one of rate, piecewise, diurnal, replay or counts");
  }
  if (auto v = s.Get("start"); v && !s.Has("replay")) {
    Fail(*v, "start is the recording's t = 0 and goes with `replay`");
  }
  if (auto v = s.Get("replay")) {
    t.kind = ArrivalKind::kReplay;
    RecordingStart start;
    if (auto when = s.Get("start")) {
      std::string why;
      const std::string text = Scalar(*when, "a start");
      std::optional<RecordingStart> parsed = ParseRecordingStart(text, &why);
      if (!parsed) Fail(*when, Quote(text) + " " + why);
      start = *parsed;
    }
    const std::string name = NonEmptyString(*v);
    Expected<RecordedArrivals> rec = ReadArrivalsCsv(Beside(name), start);
    if (!rec) Fail(*v, rec.error().ToString());
    rec->source = name;
    if (rec->at.empty()) Fail(*v, "the recording " + Quote(name) + " holds no arrival");
    t.replay = std::make_shared<const RecordedArrivals>(std::move(*rec));
  }
  if (auto v = s.Get("counts")) {
    t.kind = ArrivalKind::kCounts;
    t.counts = ReadCounts(*v, pods);
  }
  if (auto v = s.Get("rate")) {
    t.kind = ArrivalKind::kPoisson;
    t.rate = Unit(*v, &ParseRate, "a rate");
  }
  if (auto v = s.Get("piecewise")) {
    t.kind = ArrivalKind::kPiecewise;
    for (const Field& item : Items(*v)) {
      Section p(*this, item, {"at", "rate"});
      const Field at = p.Require("at");
      RatePoint point{Duration(at), Unit(p.Require("rate"), &ParseRate, "a rate")};
      if (t.pieces.empty() && point.at != 0) Fail(at, "the first piece must start at 0s");
      if (!t.pieces.empty() && point.at <= t.pieces.back().at) {
        Fail(at, "pieces must be in increasing order of `at`",
             "this piece starts at " + FormatDuration(point.at) + ", the one before at " +
                 FormatDuration(t.pieces.back().at));
      }
      t.pieces.push_back(point);
    }
    if (t.pieces.empty()) Fail(*v, "piecewise needs at least one piece");
  }
  if (auto v = s.Get("diurnal")) {
    t.kind = ArrivalKind::kDiurnal;
    Section d(*this, *v, {"mean", "amplitude", "period", "peak_at"});
    t.diurnal_mean = Unit(d.Require("mean"), &ParseRate, "a rate");
    if (auto a = d.Get("amplitude")) t.diurnal_amplitude = Number(*a, 0, 1, false, false);
    if (auto p = d.Get("period")) {
      t.diurnal_period = Duration(*p);
      if (t.diurnal_period <= 0) Fail(*p, "the period must be positive");
    }
    if (auto p = d.Get("peak_at")) t.diurnal_peak_at = Duration(*p);
    if (t.diurnal_peak_at >= t.diurnal_period) {
      Fail(d.Get("peak_at") ? *d.Get("peak_at") : *d.Get("period"),
           "peak_at (" + FormatDuration(t.diurnal_peak_at) + ") must be within the period (" +
               FormatDuration(t.diurnal_period) + ")");
    }
  }
  return t;
}

WorkModel Reader::ReadWork(const Field& f) const {
  Section s(*this, f, {"dist", "mean", "cv"});
  WorkModel w;
  if (auto v = s.Get("dist")) {
    w.dist = Enum<WorkDistribution>(*v, "distribution",
                                    {{"constant", WorkDistribution::kConstant},
                                     {"exponential", WorkDistribution::kExponential},
                                     {"lognormal", WorkDistribution::kLognormal},
                                     {"gamma", WorkDistribution::kGamma}});
  }
  if (auto v = s.Get("mean")) {
    const SimTime mean = Duration(*v);
    if (mean <= 0) Fail(*v, "the mean work must be positive");
    w.mean_s = static_cast<double>(mean) / kNanosPerSecond;
  }
  // The cv a distribution has by nature is stored, so the struct says what is simulated.
  if (w.dist == WorkDistribution::kConstant) w.cv = 0;
  if (w.dist == WorkDistribution::kExponential) w.cv = 1;
  if (auto v = s.Get("cv")) {
    const double cv = Number(*v, 0, INFINITY, false, false);
    if (w.dist == WorkDistribution::kConstant && cv != 0) {
      Fail(*v, "constant work has cv 0", "use lognormal or gamma for a cv above 0");
    }
    if (w.dist == WorkDistribution::kExponential && cv != 1) {
      Fail(*v, "exponential work has cv 1", "use lognormal or gamma for another cv");
    }
    if ((w.dist == WorkDistribution::kLognormal || w.dist == WorkDistribution::kGamma) && cv == 0) {
      Fail(*v, "lognormal and gamma need a cv above 0", "use dist constant for cv 0");
    }
    w.cv = cv;
  }
  return w;
}

Slo Reader::ReadSlo(const Field& f) const {
  Section s(*this, f, {"latency", "percentile", "error_budget", "unanswered_after"});
  Slo slo;
  if (auto v = s.Get("latency")) slo.latency = Duration(*v);
  if (auto v = s.Get("percentile")) slo.percentile = Number(*v, 0, 100, true, false);
  if (auto v = s.Get("error_budget")) slo.error_budget = Unit(*v, &ParsePercentage, "a percentage");
  if (auto v = s.Get("unanswered_after")) {
    slo.unanswered_after = Duration(*v);
    if (slo.unanswered_after <= 0) {
      Fail(*v, "unanswered_after must be above 0",
           "the age of an unanswered request that counts against the objective, e.g. 60s");
    }
  }
  return slo;
}

// ACK splits a multi-card pod's gpu-mem evenly over its cards and rejects a remainder, with
// this message (docs/semantics.md §1.2, aliyun.com/gpu-count).
void Reader::CheckGpuMemSplit(const Field& f, int gpu_mem, int gpu_count) const {
  if (gpu_count <= 1 || gpu_mem % gpu_count == 0) return;
  Fail(f,
       "invalid replica for resource aliyun.com/gpu-mem, because " + std::to_string(gpu_mem) +
           " / " + std::to_string(gpu_count) + " = " +
           MessageNumber(static_cast<double>(gpu_mem) / gpu_count),
       "make gpu_mem a multiple of gpu_count (" + std::to_string(gpu_count) + ")");
}

Workload Reader::ReadWorkload(const Field& f) const {
  Section s(*this, f,
            {"name",
             "namespace",
             "replicas",
             "labels",
             "node_selector",
             "node_affinity",
             "tolerations",
             "topology_spread",
             "priority",
             "cpu",
             "memory",
             "gpu_mem",
             "gpu_core",
             "gpu_count",
             "whole_gpus",
             "schd_weight",
             "gpu_memory",
             "startup",
             "probe",
             "on_load_oom",
             "traffic",
             "work",
             "concurrency",
             "batching",
             "cpu_time",
             "timeout",
             "on_timeout",
             "routing",
             "slo",
             "pods",
             "kind",
             "images",
             "image_size",
             "annotations",
             "volumes",
             "pod_affinity",
             "pod_anti_affinity",
             "host_ports",
             "hpa",
             "cron_hpa",
             "interference"});
  Workload w;
  w.name = DnsName(s.Require("name"));
  if (auto v = s.Get("namespace")) w.namespace_ = DnsName(*v);
  if (auto v = s.Get("replicas")) w.replicas = Int(*v, 0);
  if (auto v = s.Get("pods")) {
    const std::vector<Field> items = Items(*v);
    if (static_cast<int>(items.size()) > w.replicas) {
      Fail(*v,
           std::to_string(items.size()) + " current pods listed for " + std::to_string(w.replicas) +
               " replicas",
           "list at most `replicas` pods");
    }
    for (const Field& item : items) {
      Section ps(*this, item, {"name", "node", "cards", "ready", "ready_after"});
      CurrentPod pod;
      pod.name = DnsName(ps.Require("name"));
      const Field node = ps.Require("node");
      pod.node = NonEmptyString(node);
      if (known_nodes_.count(pod.node) == 0) {
        Fail(node, "no node " + Quote(pod.node) + " in node_pools",
             SuggestName(pod.node,
                         std::vector<std::string>(known_nodes_.begin(), known_nodes_.end()),
                         "nodes include"));
      }
      if (auto c = ps.Get("cards")) {
        for (const Field& card : Items(*c)) pod.cards.push_back(Int(card, 0, 63));
        if (!std::is_sorted(pod.cards.begin(), pod.cards.end()) ||
            std::adjacent_find(pod.cards.begin(), pod.cards.end()) != pod.cards.end()) {
          Fail(*c, "cards must be distinct and in increasing order");
        }
      }
      if (auto r = ps.Get("ready"))
        pod.ready = Enum<bool>(*r, "true or false", {{"true", true}, {"false", false}});
      if (auto r = ps.Get("ready_after")) {
        if (pod.ready)
          Fail(*r, "ready_after is for a pod that is not Ready at the start", "add `ready: false`");
        pod.ready_after = Duration(*r);
      }
      for (const CurrentPod& other : w.pods) {
        if (other.name == pod.name) Fail(EntryOf(item, "name"), "duplicate pod " + Quote(pod.name));
      }
      w.pods.push_back(std::move(pod));
    }
  }
  if (auto v = s.Get("labels")) {
    w.labels = StringMap(*v);
  } else {
    w.labels = {{"app", w.name}};
  }
  // The owner's kind as Kubernetes names it; the checks know Deployment, StatefulSet, DaemonSet,
  // ReplicaSet, Job, CronJob and Pod, and treat other (custom) kinds as opaque owners.
  if (auto v = s.Get("kind")) w.kind = NonEmptyString(*v);
  if (auto v = s.Get("images")) w.images = StringList(*v);
  if (auto v = s.Get("image_size")) w.image_size_mib = Unit(*v, &ParseMemoryMib, "a quantity");
  if (auto v = s.Get("annotations")) w.annotations = StringMap(*v);
  if (auto v = s.Get("volumes")) w.volumes = StringList(*v);
  if (auto v = s.Get("node_selector")) w.node_selector = StringMap(*v);
  if (auto v = s.Get("node_affinity")) w.node_affinity = ReadNodeAffinity(*v);
  if (auto v = s.Get("tolerations")) {
    for (const Field& item : Items(*v)) w.tolerations.push_back(ReadToleration(item));
  }
  if (auto v = s.Get("topology_spread")) w.topology_spread = ReadSpreadList(*v, w.labels);
  if (auto v = s.Get("pod_affinity")) w.pod_affinity = ReadPodAffinity(*v, w.labels);
  if (auto v = s.Get("pod_anti_affinity")) w.pod_anti_affinity = ReadPodAffinity(*v, w.labels);
  if (auto v = s.Get("host_ports")) {
    for (const Field& item : Items(*v)) w.host_ports.push_back(ReadHostPort(item));
  }
  if (auto v = s.Get("hpa")) {
    w.hpa = ReadHpa(*v, w);
    if (w.kind != "Deployment" && w.kind != "StatefulSet" && w.kind != "ReplicaSet")
      Fail(*v, "an HPA scales a Deployment, ReplicaSet or StatefulSet, not a " + w.kind);
    if (w.replicas < w.hpa->min_replicas || w.replicas > w.hpa->max_replicas)
      Fail(*v,
           "replicas (" + std::to_string(w.replicas) + ") is outside min_replicas..max_replicas",
           "the HPA starts from `replicas`: set it inside the bounds");
  }
  if (auto v = s.Get("cron_hpa")) {
    if (w.kind != "Deployment" && w.kind != "StatefulSet" && w.kind != "ReplicaSet")
      Fail(*v, "a CronHPA scales a Deployment, ReplicaSet or StatefulSet, not a " + w.kind);
    w.cron_hpa = ReadCronHpa(*v, w);
  }
  if (auto v = s.Get("priority")) {
    w.priority = Int(*v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  }
  if (auto v = s.Get("cpu")) w.cpu_milli = Unit(*v, &ParseCpuMilli, "a quantity");
  if (auto v = s.Get("memory")) w.memory_mib = Unit(*v, &ParseMemoryMib, "a quantity");

  const std::optional<Field> gpu_mem = s.Get("gpu_mem");
  if (gpu_mem) w.gpu_mem = Unit(*gpu_mem, &ParseGpuMemUnits, "a quantity");
  if (auto v = s.Get("gpu_core")) w.gpu_core = Int(*v, 0, 100);
  if (auto v = s.Get("gpu_count")) {
    w.gpu_count = Int(*v, 1);
    if (w.gpu_count > 1 && w.gpu_mem == 0) {
      Fail(*v, "gpu_count splits gpu_mem over cards, but there is no gpu_mem",
           "use whole_gpus for exclusive cards");
    }
  }
  if (gpu_mem) CheckGpuMemSplit(*gpu_mem, w.gpu_mem, w.gpu_count);
  if (auto v = s.Get("whole_gpus")) {
    w.whole_gpus = Int(*v, 0);
    if (w.whole_gpus > 0 && (w.gpu_mem > 0 || w.gpu_core > 0)) {
      Fail(*v, "whole_gpus excludes gpu_mem and gpu_core",
           "a pod either owns whole cards (nvidia.com/gpu) or shares them (aliyun.com/gpu-mem)");
    }
  }
  if (auto v = s.Get("schd_weight")) w.schd_weight = Int(*v, 0);
  if (auto v = s.Get("gpu_memory")) {
    Section m(*this, *v, {"weights", "activation", "context"});
    if (auto x = m.Get("weights")) w.memory.weights_mib = Unit(*x, &ParseMemoryMib, "a quantity");
    if (auto x = m.Get("activation")) {
      w.memory.activation_mib = Unit(*x, &ParseMemoryMib, "a quantity");
    }
    if (auto x = m.Get("context")) w.memory.context_mib = Unit(*x, &ParseMemoryMib, "a quantity");
  }
  if (auto v = s.Get("startup")) {
    Section st(*this, *v, {"image_pull", "model_load"});
    if (auto x = st.Get("image_pull")) w.image_pull = Duration(*x);
    if (auto x = st.Get("model_load")) w.model_load = Duration(*x);
  }
  if (auto v = s.Get("probe")) {
    w.probe = Enum<ReadinessKind>(*v, "probe",
                                  {{"tcp", ReadinessKind::kTcp}, {"model", ReadinessKind::kModel}});
  }
  if (auto v = s.Get("on_load_oom")) {
    w.on_load_oom = Enum<LoadOomReaction>(
        *v, "on_load_oom",
        {{"stay_up", LoadOomReaction::kStayUp}, {"exit", LoadOomReaction::kExit}});
  }
  if (auto v = s.Get("traffic")) {
    w.traffic = ReadTraffic(*v, w.pods);
    // Work per request is GPU time: a pod without a card has nothing to run it on.
    if (w.gpu_mem == 0 && w.whole_gpus == 0)
      Fail(*v, "a workload with traffic needs a GPU (gpu_mem or whole_gpus)",
           "GPU work runs on cards; model CPU-only steps with cpu_time on a GPU workload");
  }
  if (auto v = s.Get("work")) w.work = ReadWork(*v);
  if (auto v = s.Get("concurrency")) {
    w.concurrency =
        v->node.IsScalar() && v->node.Scalar() == "unlimited"
            ? 0
            : Int(*v, 1, std::numeric_limits<int>::max(), "write `unlimited` for no limit");
  }
  if (auto v = s.Get("batching")) {
    Section b(*this, *v, {"max_batch", "max_wait", "beta"});
    if (auto x = b.Get("max_batch")) w.batching.max_batch = Int(*x, 1);
    if (auto x = b.Get("max_wait")) w.batching.max_wait = Duration(*x);
    if (auto x = b.Get("beta")) w.batching.beta = Number(*x, 0, 1, false, false);
  }
  if (auto v = s.Get("cpu_time")) {
    Section c(*this, *v, {"before", "after"});
    if (auto x = c.Get("before")) w.cpu_before = Duration(*x);
    if (auto x = c.Get("after")) w.cpu_after = Duration(*x);
  }
  if (auto v = s.Get("timeout")) w.timeout = Duration(*v);
  if (auto v = s.Get("on_timeout")) {
    w.on_timeout = Enum<TimeoutAction>(
        *v, "on_timeout",
        {{"abort", TimeoutAction::kAbort}, {"complete", TimeoutAction::kComplete}});
  }
  if (auto v = s.Get("routing")) {
    w.routing = Enum<Routing>(*v, "routing",
                              {{"random", Routing::kRandom},
                               {"round_robin", Routing::kRoundRobin},
                               {"least_outstanding", Routing::kLeastOutstanding}});
  }
  if (auto v = s.Get("slo")) w.slo = ReadSlo(*v);
  if (auto v = s.Get("interference")) {
    if (!interference_) {
      Fail(*v, "a workload's interference profile needs cluster.interference (a model file)",
           "fit one with `knobsim interference fit` and name it under cluster.interference");
    }
    if (w.whole_gpus > 0) {
      Fail(*v, "whole_gpus pods have their cards to themselves: nothing co-runs with them",
           "leave interference out");
    }
    if (!(v->node.IsScalar() && v->node.Scalar() == "none"))
      w.interference = ReadInterferenceProfile(*v);
  } else if (interference_ && w.gpu_mem > 0 && w.traffic.kind != ArrivalKind::kNone) {
    // Refuse rather than guess: under a co-location model, a shared-GPU workload silently
    // split by POLICY would be a different model for its neighbours as well.
    Fail(EntryOf(f, "name"),
         "workload " + Quote(w.name) +
             " runs GPU work on shared cards, but has no interference profile for "
             "cluster.interference",
         "give `interference: JOB` (a job of " + Quote(interference_->source) +
             "), its own {gpu_util_pct, mem_bw_util_pct, memory_mib}, or `interference: none` "
             "to share its cards by the POLICY split");
  }
  return w;
}

RunSettings Reader::ReadRun(const Field& f) const {
  Section s(*this, f, {"duration", "warmup", "seed", "replications", "start"});
  RunSettings r;
  if (auto v = s.Get("duration")) {
    r.duration = Duration(*v);
    if (r.duration <= 0) Fail(*v, "the run needs a positive duration");
  }
  if (auto v = s.Get("warmup")) r.warmup = Duration(*v);
  if (r.warmup >= r.duration) {
    const Field at = s.Get("warmup") ? *s.Get("warmup") : *s.Get("duration");
    Fail(at,
         "warmup (" + FormatDuration(r.warmup) + ") must be shorter than duration (" +
             FormatDuration(r.duration) + ")",
         "nothing would be measured");
  }
  if (auto v = s.Get("seed")) {
    const std::string text = Scalar(*v, "a whole number");
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), r.seed);
    if (ec != std::errc() || end != text.data() + text.size()) {
      Fail(*v, Quote(text) + " is not a seed", "a seed is a whole number from 0 to 2^64 - 1");
    }
  }
  if (auto v = s.Get("replications")) r.replications = Int(*v, 1);
  if (auto v = s.Get("start")) {
    const std::optional<double> at = ParseRfc3339(Scalar(*v, "an RFC 3339 instant"));
    if (!at || *at != std::floor(*at))
      Fail(*v, "not an RFC 3339 instant in whole seconds", "e.g. 2026-03-02T00:00:00+08:00");
    r.start_unix_s = static_cast<int64_t>(*at);
  }
  return r;
}

Variant Reader::ReadVariant(const Field& f, const Scenario& sc) const {
  Section s(*this, f,
            {"name",
             "description",
             "policy",
             "max_inst",
             "switch_overhead",
             "placement",
             "memory_isolation",
             "topology_spread",
             "gpu_mem",
             "gpu_core",
             "replicas",
             "node_count",
             "traffic_scale",
             "interference",
             "hpa_min_replicas",
             "hpa_max_replicas",
             "cron_hpa",
             "hpa_target",
             "pool_min",
             "pool_max"});
  Variant v;
  const Field name = s.Require("name");
  v.name = NonEmptyString(name);
  if (v.name == "base") Fail(name, "`base` is reserved for the scenario as written");
  const bool valid_name =
      std::isalnum(static_cast<unsigned char>(v.name[0])) &&
      std::all_of(v.name.begin(), v.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      });
  if (!valid_name) {
    Fail(name, Quote(v.name) + " is not a valid variant name",
         "use letters, digits, '-', '_' and '.', starting with a letter or digit");
  }
  if (auto x = s.Get("description")) v.description = String(*x);
  if (auto x = s.Get("policy")) {
    v.policy = static_cast<SharingPolicy>(
        Int(*x, 0, 5, "cGPU POLICY is 0 (fixed equal slices) to 5 (native time-slicing)"));
  }
  if (auto x = s.Get("max_inst")) {
    v.max_inst = Int(*x, 1, 25, "cGPU runs at most 25 instances per card");
  }
  if (auto x = s.Get("switch_overhead")) v.switch_overhead = Number(*x, 0, 1, false, true);
  if (auto x = s.Get("interference")) {
    v.interference = Enum<bool>(*x, "interference", {{"on", true}, {"off", false}});
    if (*v.interference && !sc.cluster.interference) {
      Fail(*x, "there is no interference model to turn on", "name one under cluster.interference");
    }
  }

  std::vector<std::string> pools, workloads;
  for (const NodePool& p : sc.node_pools) pools.push_back(p.name);
  for (const Workload& w : sc.workloads) workloads.push_back(w.name);
  // The entries of a per-name knob, each key a known name or "*".
  auto keyed = [&](const Field& map, const std::vector<std::string>& names, std::string kind) {
    auto entries = Entries(map);
    for (const auto& [key, value] : entries) {
      if (key == "*" || std::find(names.begin(), names.end(), key) != names.end()) continue;
      Fail(value, "unknown " + kind + " " + Quote(key), SuggestName(key, names, kind + "s:"));
    }
    return entries;
  };
  auto pool = [&](const std::string& key) -> const NodePool* {
    for (const NodePool& p : sc.node_pools) {
      if (p.name == key) return &p;
    }
    return nullptr;
  };
  auto workload = [&](const std::string& key) -> const Workload* {
    for (const Workload& w : sc.workloads) {
      if (w.name == key) return &w;
    }
    return nullptr;
  };

  if (auto x = s.Get("placement")) {
    for (const auto& [key, value] : keyed(*x, pools, "node pool")) {
      v.placement[key] = Placement(value);
    }
  }
  if (auto x = s.Get("memory_isolation")) {
    for (const auto& [key, value] : keyed(*x, pools, "node pool")) {
      const MemoryIsolation iso = Enum<MemoryIsolation>(
          value, "memory isolation",
          {{"hard", MemoryIsolation::kHard}, {"soft", MemoryIsolation::kSoft}});
      const NodePool* p = pool(key);
      if (iso == MemoryIsolation::kHard && p != nullptr &&
          (p->gpu_type.empty() ||
           (p->schedule != GpuSchedule::kCgpu && p->schedule != GpuSchedule::kCoreMem))) {
        Fail(value, "node pool " + Quote(key) + " has no cGPU module to enforce hard isolation",
             "hard isolation needs ack.node.gpu.schedule cgpu or core_mem");
      }
      v.memory_isolation[key] = iso;
    }
  }
  if (auto x = s.Get("topology_spread")) {
    // A "*" entry is expanded here, per workload, because a constraint's default selector is
    // the labels of the workload it lands on.
    std::optional<Field> star;
    for (const auto& [key, value] : keyed(*x, workloads, "workload")) {
      if (key == "*") {
        star = value;
      } else {
        v.topology_spread[key] = ReadSpreadList(value, workload(key)->labels);
      }
    }
    if (star) {
      for (const Workload& w : sc.workloads) {
        if (!v.topology_spread.count(w.name)) {
          v.topology_spread[w.name] = ReadSpreadList(*star, w.labels);
        }
      }
    }
  }
  if (auto x = s.Get("gpu_mem")) {
    auto entries = keyed(*x, workloads, "workload");
    for (const auto& [key, value] : entries) {
      const int units = Unit(value, &ParseGpuMemUnits, "a quantity");
      if (units < 1) Fail(value, "a variant's gpu_mem must be at least 1");
      v.gpu_mem[key] = units;
      for (const Workload& w : sc.workloads) {
        // ApplyVariant gives a "*" only to workloads that already share GPUs.
        const bool applies =
            key == w.name || (key == "*" && w.gpu_mem > 0 &&
                              !std::any_of(entries.begin(), entries.end(),
                                           [&](const auto& e) { return e.first == w.name; }));
        if (!applies) continue;
        if (w.whole_gpus > 0) {
          Fail(value, "workload " + Quote(w.name) + " uses whole_gpus, which excludes gpu_mem");
        }
        CheckGpuMemSplit(value, units, w.gpu_count);
      }
    }
  }
  if (auto x = s.Get("gpu_core")) {
    for (const auto& [key, value] : keyed(*x, workloads, "workload")) {
      v.gpu_core[key] = Int(value, 0, 100);
      if (const Workload* w = workload(key); w != nullptr && w->whole_gpus > 0) {
        Fail(value, "workload " + Quote(key) + " uses whole_gpus, which excludes gpu_core");
      }
    }
  }
  if (auto x = s.Get("replicas")) {
    for (const auto& [key, value] : keyed(*x, workloads, "workload")) {
      v.replicas[key] = Int(value, 0);
    }
  }
  // The HPA knobs name workloads with an HPA.
  auto hpa_of = [&](const std::string& key, const Field& value) {
    if (key == "*") return;  // every workload that has one
    const Workload* w = workload(key);
    if (w == nullptr || !w->hpa) Fail(value, "workload " + Quote(key) + " has no hpa");
  };
  if (auto x = s.Get("hpa_min_replicas")) {
    for (const auto& [key, value] : keyed(*x, workloads, "workload")) {
      v.hpa_min_replicas[key] = Int(value, 0);
      hpa_of(key, value);
    }
  }
  if (auto x = s.Get("hpa_max_replicas")) {
    for (const auto& [key, value] : keyed(*x, workloads, "workload")) {
      v.hpa_max_replicas[key] = Int(value, 1);
      hpa_of(key, value);
    }
  }
  if (auto x = s.Get("hpa_target")) {
    for (const auto& [key, value] : keyed(*x, workloads, "workload")) {
      v.hpa_target[key] = Number(value, 0, INFINITY, true, true);
      hpa_of(key, value);
    }
  }
  if (auto x = s.Get("cron_hpa")) {
    for (const auto& [key, value] : keyed(*x, workloads, "workload")) {
      v.cron_hpa[key] = Enum<bool>(value, "true or false", {{"true", true}, {"false", false}});
      const Workload* w = key == "*" ? nullptr : workload(key);
      if (key != "*" && (w == nullptr || !w->cron_hpa))
        Fail(value, "workload " + Quote(key) + " has no cron_hpa");
    }
  }
  if (auto x = s.Get("node_count")) {
    for (const auto& [key, value] : keyed(*x, pools, "node pool")) {
      v.node_count[key] = Int(value, 0);
    }
  }
  // pool_min / pool_max: an autoscaled pool's bounds; the pair must stay ordered.
  std::map<std::string, Field> bound_fields;
  for (const char* knob : {"pool_min", "pool_max"}) {
    const auto x = s.Get(knob);
    if (!x) continue;
    const bool is_min = std::string_view(knob) == "pool_min";
    for (const auto& [key, value] : keyed(*x, pools, "node pool")) {
      (is_min ? v.pool_min : v.pool_max)[key] = Int(value, is_min ? 0 : 1);
      bound_fields.insert_or_assign(key, value);
    }
  }
  for (const auto& [key, field] : bound_fields) {
    for (const NodePool& p : sc.node_pools) {
      if (key != "*" && p.name != key) continue;
      if (!p.autoscaling) {
        if (key == "*") continue;
        Fail(field, "node pool " + Quote(key) + " has no autoscaling");
      }
      const auto bound = [&](const std::map<std::string, int>& m, int base) {
        if (auto it = m.find(p.name); it != m.end()) return it->second;
        if (auto it = m.find("*"); it != m.end()) return it->second;
        return base;
      };
      const int min = bound(v.pool_min, p.autoscaling->min);
      const int max = bound(v.pool_max, p.autoscaling->max);
      if (min > max) {
        Fail(field, "pool " + Quote(p.name) + ": min " + std::to_string(min) + " is above max " +
                        std::to_string(max));
      }
    }
  }
  if (auto x = s.Get("traffic_scale")) {
    if (x->node.IsScalar()) {
      v.traffic_scale["*"] = Number(*x, 0, INFINITY, false, false);
    } else {
      for (const auto& [key, value] : keyed(*x, workloads, "workload")) {
        v.traffic_scale[key] = Number(value, 0, INFINITY, false, false);
      }
    }
  }
  return v;
}

// ---- kube: cluster objects the checks read (docs/semantics.md §5.4) -----------------------------

// `1` or "25%", as intstr.IntOrString.
IntOrPercent Reader::ReadIntOrPercent(const Field& f) const {
  std::string text = Scalar(f, "an integer or a percentage");
  IntOrPercent v;
  if (!text.empty() && text.back() == '%') {
    v.percent = true;
    text.pop_back();
  }
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 0 ||
      (v.percent && n > 100)) {
    Fail(f, Quote(f.node.Scalar()) + " is not a count or a percentage",
         "write a whole number such as 1, or a percentage such as \"51%\"");
  }
  v.value = n;
  return v;
}

// `{requests.cpu: "32", limits.memory: 128Gi, pods: "50"}`: quantities by resource.
ResourceList Reader::ReadResourceAmounts(const Field& f) const {
  ResourceList list;
  for (const auto& [key, value] : Entries(f)) {
    if (key.empty()) Fail(value, "empty resource name");
    const Parsed<int64_t> amount = ParseResourceAmount(key, Scalar(value, "a quantity"));
    if (!amount.ok()) Fail(value, amount.error, amount.hint);
    list[key] = *amount.value;
  }
  return list;
}

PodDisruptionBudgetSpec Reader::ReadPdb(const Field& f) const {
  Section s(*this, f,
            {"namespace", "name", "min_available", "max_unavailable", "selector",
             "unhealthy_pod_eviction_policy", "status"});
  PodDisruptionBudgetSpec p;
  if (auto v = s.Get("namespace")) p.namespace_ = DnsName(*v);
  p.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("min_available")) p.min_available = ReadIntOrPercent(*v);
  if (auto v = s.Get("max_unavailable")) {
    if (p.min_available) {
      Fail(*v, "min_available and max_unavailable are mutually exclusive",
           "a PodDisruptionBudget sets one of the two");
    }
    p.max_unavailable = ReadIntOrPercent(*v);
  }
  // Absent selector: the budget matches no pod (policy/v1); `{}` matches every pod of the
  // namespace.
  if (auto v = s.Get("selector")) p.selector = ReadLabelSelector(*v);
  if (auto v = s.Get("unhealthy_pod_eviction_policy")) {
    p.unhealthy_pod_eviction_policy = std::string(Enum<std::string_view>(
        *v, "an eviction policy",
        {{"IfHealthyBudget", "IfHealthyBudget"}, {"AlwaysAllow", "AlwaysAllow"}}));
  }
  if (auto v = s.Get("status")) {
    Section st(*this, *v,
               {"current_healthy", "desired_healthy", "disruptions_allowed", "expected_pods"});
    PodDisruptionBudgetSpec::Status status;
    if (auto x = st.Get("current_healthy")) status.current_healthy = Int(*x, 0);
    if (auto x = st.Get("desired_healthy")) status.desired_healthy = Int(*x, 0);
    if (auto x = st.Get("disruptions_allowed")) status.disruptions_allowed = Int(*x, 0);
    if (auto x = st.Get("expected_pods")) status.expected_pods = Int(*x, 0);
    p.status = status;
  }
  return p;
}

StatefulSetSpec Reader::ReadStatefulSet(const Field& f) const {
  Section s(
      *this, f,
      {"namespace", "name", "replicas", "selector", "labels", "volume_claim_templates", "status"});
  StatefulSetSpec st;
  if (auto v = s.Get("namespace")) st.namespace_ = DnsName(*v);
  st.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("replicas")) st.replicas = Int(*v, 0);
  if (auto v = s.Get("selector")) st.selector = ReadLabelSelector(*v);
  if (auto v = s.Get("labels")) st.template_labels = StringMap(*v);
  if (auto v = s.Get("volume_claim_templates")) st.volume_claim_templates = StringList(*v);
  if (auto v = s.Get("status")) {
    Section status(*this, *v, {"replicas", "ready_replicas"});
    if (auto x = status.Get("replicas")) st.status_replicas = Int(*x, 0);
    if (auto x = status.Get("ready_replicas")) st.ready_replicas = Int(*x, 0);
  }
  return st;
}

std::vector<std::string> Reader::AccessModes(const Field& f) const {
  std::vector<std::string> modes;
  for (const Field& item : Items(f)) {
    modes.emplace_back(Enum<std::string_view>(item, "an access mode",
                                              {{"ReadWriteOnce", "ReadWriteOnce"},
                                               {"ReadOnlyMany", "ReadOnlyMany"},
                                               {"ReadWriteMany", "ReadWriteMany"},
                                               {"ReadWriteOncePod", "ReadWriteOncePod"}}));
  }
  return modes;
}

PersistentVolumeClaimSpec Reader::ReadPvc(const Field& f) const {
  Section s(*this, f,
            {"namespace", "name", "storage_class", "request", "volume", "phase", "access_modes"});
  PersistentVolumeClaimSpec c;
  if (auto v = s.Get("access_modes")) c.access_modes = AccessModes(*v);
  if (auto v = s.Get("namespace")) c.namespace_ = DnsName(*v);
  c.name = NonEmptyString(s.Require("name"));
  // Absent: the default StorageClass applies; "": no class (static binding only).
  if (auto v = s.Get("storage_class")) c.storage_class_name = v->node.IsNull() ? "" : String(*v);
  if (auto v = s.Get("request")) {
    const std::string text = Scalar(*v, "a quantity");
    const Parsed<int64_t> bytes = ParseResourceAmount("storage", text);
    if (!bytes.ok()) Fail(*v, bytes.error, bytes.hint);
    c.requested_bytes = *bytes.value;
  }
  if (auto v = s.Get("volume")) c.volume_name = String(*v);
  if (auto v = s.Get("phase")) {
    c.phase = std::string(Enum<std::string_view>(
        *v, "a claim phase", {{"Pending", "Pending"}, {"Bound", "Bound"}, {"Lost", "Lost"}}));
  }
  return c;
}

PersistentVolumeSpec Reader::ReadPv(const Field& f) const {
  Section s(*this, f,
            {"name", "storage_class", "reclaim_policy", "capacity", "claim", "phase", "labels",
             "node_affinity", "access_modes"});
  PersistentVolumeSpec pv;
  pv.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("labels")) pv.labels = StringMap(*v);
  // Kubernetes' spec.nodeAffinity.required.nodeSelectorTerms: terms ORed, each a list of
  // requirements ANDed, as a workload's node_affinity.required.
  if (auto v = s.Get("node_affinity")) {
    for (const Field& term : Items(*v)) pv.node_affinity.push_back(ReadNodeSelectorTerm(term));
  }
  if (auto v = s.Get("access_modes")) pv.access_modes = AccessModes(*v);
  if (auto v = s.Get("storage_class")) pv.storage_class_name = String(*v);
  if (auto v = s.Get("reclaim_policy")) {
    pv.reclaim_policy = std::string(Enum<std::string_view>(
        *v, "a reclaim policy",
        {{"Retain", "Retain"}, {"Delete", "Delete"}, {"Recycle", "Recycle"}}));
  }
  if (auto v = s.Get("capacity")) {
    const Parsed<int64_t> bytes = ParseResourceAmount("storage", Scalar(*v, "a quantity"));
    if (!bytes.ok()) Fail(*v, bytes.error, bytes.hint);
    pv.capacity_bytes = *bytes.value;
  }
  if (auto v = s.Get("claim")) {
    const std::string claim = NonEmptyString(*v);
    const size_t slash = claim.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == claim.size()) {
      Fail(*v, Quote(claim) + " does not name a claim", "write namespace/name, e.g. db/data-pg-0");
    }
    pv.claim_namespace = claim.substr(0, slash);
    pv.claim_name = claim.substr(slash + 1);
  }
  if (auto v = s.Get("phase")) {
    pv.phase = std::string(Enum<std::string_view>(*v, "a volume phase",
                                                  {{"Pending", "Pending"},
                                                   {"Available", "Available"},
                                                   {"Bound", "Bound"},
                                                   {"Released", "Released"},
                                                   {"Failed", "Failed"}}));
  }
  return pv;
}

StorageClassSpec Reader::ReadStorageClass(const Field& f) const {
  Section s(*this, f,
            {"name", "provisioner", "reclaim_policy", "volume_binding_mode", "default",
             "allowed_topologies"});
  StorageClassSpec sc;
  sc.name = NonEmptyString(s.Require("name"));
  // allowedTopologies: terms ORed, each a list of `{key, operator: In, values}` ANDed.
  if (auto v = s.Get("allowed_topologies")) {
    for (const Field& term : Items(*v)) {
      sc.allowed_topologies.push_back(ReadNodeSelectorTerm(term));
      for (const NodeSelectorRequirement& r : sc.allowed_topologies.back()) {
        if (r.op != "In") Fail(term, "allowed topologies take only operator In");
      }
    }
  }
  if (auto v = s.Get("provisioner")) sc.provisioner = String(*v);
  if (auto v = s.Get("reclaim_policy")) {
    sc.reclaim_policy = std::string(Enum<std::string_view>(
        *v, "a reclaim policy", {{"Delete", "Delete"}, {"Retain", "Retain"}}));
  }
  if (auto v = s.Get("volume_binding_mode")) {
    sc.volume_binding_mode = std::string(Enum<std::string_view>(
        *v, "a binding mode",
        {{"Immediate", "Immediate"}, {"WaitForFirstConsumer", "WaitForFirstConsumer"}}));
  }
  if (auto v = s.Get("default")) {
    sc.is_default = Enum<bool>(*v, "true or false", {{"true", true}, {"false", false}});
  }
  return sc;
}

ResourceQuotaSpec Reader::ReadResourceQuota(const Field& f) const {
  Section s(*this, f, {"namespace", "name", "hard", "used"});
  ResourceQuotaSpec q;
  if (auto v = s.Get("namespace")) q.namespace_ = DnsName(*v);
  q.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("hard")) q.hard = ReadResourceAmounts(*v);
  if (auto v = s.Get("used")) q.used = ReadResourceAmounts(*v);
  return q;
}

ScenarioKube Reader::ReadKube(const Field& f) const {
  Section s(*this, f,
            {"pdbs", "stateful_sets", "pvcs", "pvs", "storage_classes", "resource_quotas"});
  ScenarioKube k;
  // Objects are keyed by namespace/name (or name, cluster-scoped); a repeat is a slip.
  auto read = [&](const char* key, auto& out, auto read_one, auto id) {
    if (auto v = s.Get(key)) {
      for (const Field& item : Items(*v)) {
        auto object = (this->*read_one)(item);
        for (const auto& other : out) {
          if (id(other) == id(object)) Fail(item, "duplicate " + Quote(id(object)));
        }
        out.push_back(std::move(object));
      }
    }
  };
  auto namespaced = [](const auto& o) { return o.namespace_ + "/" + o.name; };
  auto cluster_scoped = [](const auto& o) { return o.name; };
  read("pdbs", k.pdbs, &Reader::ReadPdb, namespaced);
  read("stateful_sets", k.stateful_sets, &Reader::ReadStatefulSet, namespaced);
  read("pvcs", k.pvcs, &Reader::ReadPvc, namespaced);
  read("pvs", k.pvs, &Reader::ReadPv, cluster_scoped);
  read("storage_classes", k.storage_classes, &Reader::ReadStorageClass, cluster_scoped);
  read("resource_quotas", k.resource_quotas, &Reader::ReadResourceQuota, namespaced);
  return k;
}

Scenario Reader::Read(const YAML::Node& root) const {
  const Field top{root, "", LineOf(root, 1)};
  Section s(*this, top,
            {"name", "description", "gpu_types", "cluster", "node_pools", "workloads", "run",
             "variants", "kube", "evidence", "interference"});
  Scenario sc;
  sc.file = file();
  sc.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("description")) sc.description = String(*v);
  if (auto v = s.Get("evidence")) {
    sc.evidence = String(*v);
    if (!IsEvidenceFingerprint(sc.evidence))
      Fail(*v, Quote(sc.evidence) + " is not an evidence fingerprint",
           "`knobsim import` writes it (kf1- and 16 hex digits); leave it out in a scenario "
           "written by hand");
  }
  // Sections are read in dependency order, whatever their order in the file: pools need the
  // catalog, variants need pools and workloads.
  if (auto v = s.Get("gpu_types")) ReadGpuTypes(*v, sc.catalog);
  if (auto v = s.Get("cluster")) sc.cluster = ReadCluster(*v);
  if (auto v = s.Get("interference")) {
    if (sc.cluster.interference) {
      Fail(*v,
           "the interference model is named twice, here and under cluster:", "keep one of them");
    }
    sc.cluster.interference = ReadInterferenceSetup(*v);
  }
  interference_ = sc.cluster.interference;
  if (auto v = s.Get("node_pools")) {
    for (const Field& item : Items(*v)) {
      NodePool p = ReadNodePool(item, sc.catalog);
      for (const NodePool& other : sc.node_pools) {
        if (other.name == p.name) {
          Fail(EntryOf(item, "name"), "duplicate node pool name " + Quote(p.name));
        }
      }
      sc.node_pools.push_back(std::move(p));
    }
  }
  // Current pods name nodes; every node of every pool is known from here on.
  for (const NodePool& p : sc.node_pools) {
    for (int i = 0; i < p.count; ++i) known_nodes_.insert(PoolNodeName(p, i));
  }
  if (auto v = s.Get("workloads")) {
    for (const Field& item : Items(*v)) {
      Workload w = ReadWorkload(item);
      for (const Workload& other : sc.workloads) {
        if (other.name == w.name) {
          Fail(EntryOf(item, "name"), "duplicate workload name " + Quote(w.name),
               "variants refer to workloads by name, so names are unique across namespaces");
        }
      }
      sc.workloads.push_back(std::move(w));
    }
  }
  if (auto v = s.Get("run")) sc.run = ReadRun(*v);
  if (auto v = s.Get("kube")) sc.kube = ReadKube(*v);
  if (auto v = s.Get("variants")) {
    for (const Field& item : Items(*v)) {
      Variant variant = ReadVariant(item, sc);
      for (const Variant& other : sc.variants) {
        if (other.name == variant.name) {
          Fail(EntryOf(item, "name"), "duplicate variant name " + Quote(variant.name));
        }
      }
      sc.variants.push_back(std::move(variant));
    }
  }
  return sc;
}

}  // namespace

Expected<Scenario> ReadScenarioString(const std::string& yaml, const std::string& file_name) {
  Expected<YAML::Node> root = LoadSingleYamlDocument(
      yaml, file_name,
      {"scenario", "put variants under `variants:` instead of a new document", false});
  if (!root.ok()) return root.error();
  if (root->IsNull()) {
    return InputError{file_name, 0, "", "the file holds no scenario",
                      "a scenario needs at least `name:`"};
  }
  const Reader reader(file_name);
  return reader.Catch<Scenario>([&] { return reader.Read(*root); });
}

Expected<Scenario> ReadScenarioFile(const std::string& path) {
  Expected<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.error();
  return ReadScenarioString(*text, path);
}

}  // namespace knobsim
