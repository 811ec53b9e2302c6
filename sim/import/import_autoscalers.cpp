// The HorizontalPodAutoscalers and ACK CronHPAs of an export onto the workloads they scale
// (HpasFromObjects, CronHpasFromObjects: import_steps.h): each metric knobsim computes from the
// simulated pods becomes a metric of the workload's `hpa:`; every other one is left out with a
// warning that names it.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/cron_schedule.h"
#include "sim/import/import_steps.h"
#include "sim/text.h"

namespace knobsim {
namespace {

// The metrics of a metrics adapter that knobsim computes (docs/autoscaling.md): dcgm-exporter's
// device utilization (percent) and framebuffer in use (MiB), under the names ACK's GPU
// monitoring and ack-alibaba-cloud-metrics-adapter expose them. The per-process metrics of
// ACK's shared-GPU monitoring (DCGM_CUSTOM_PROCESS_SM_UTIL, ..._MEM_USED) are a pod's own share
// of a shared card, which the engine's gpu_utilization (the card's busy time) is not: they are
// left out unless `--hpa-metric` maps them knowingly.
const std::map<std::string, HpaMetricKind, std::less<>>& DefaultMetricKinds() {
  static const std::map<std::string, HpaMetricKind, std::less<>> kinds = {
      {"DCGM_FI_DEV_GPU_UTIL", HpaMetricKind::kGpuUtilization},
      {"DCGM_FI_DEV_FB_USED", HpaMetricKind::kGpuMemory},
  };
  return kinds;
}

struct KindName {
  HpaMetricKind kind;
  std::string_view name;
};
constexpr KindName kKindNames[] = {
    {HpaMetricKind::kGpuUtilization, "gpu_utilization"},
    {HpaMetricKind::kGpuMemory, "gpu_memory"},
    {HpaMetricKind::kRequestRate, "request_rate"},
    {HpaMetricKind::kInFlight, "in_flight"},
    {HpaMetricKind::kExternalRequestRate, "external_request_rate"},
};

std::string HpaName(const HorizontalPodAutoscalerObject& h) {
  return h.namespace_ + "/" + h.name;
}

// The kind a metric of the HPA on `iw` maps to, or why it is left out.
Expected<HpaMetricKind> KindOf(const HpaMetricSource& m, const ImportedWorkload& iw,
                               const ImportOptions& options) {
  auto refuse = [&](std::string why) {
    return InputError{"", m.line, "", m.type + " metric " + Quote(m.name) + ": " + why, ""};
  };
  if (m.type == "Resource" || m.type == "ContainerResource") {
    if (m.name != "cpu")
      return refuse("knobsim simulates no usage of " + m.name + " (only cpu, from cpu_time)");
    // ContainerResource is one container's usage against its own request; a workload is one
    // container, so it is the pod's only when the pod has that one container.
    if (m.type == "ContainerResource" && iw.containers.size() > 1) {
      return refuse("container " + Quote(m.container) + " is one of " +
                    std::to_string(iw.containers.size()) +
                    " containers of the pod, and knobsim models a pod's cpu as one container's");
    }
    if (m.type == "ContainerResource" && iw.containers != std::vector<std::string>{m.container})
      return refuse("the pod has no container " + Quote(m.container));
    return HpaMetricKind::kCpu;
  }
  std::optional<HpaMetricKind> kind;
  if (auto it = options.hpa_metric_kinds.find(m.name); it != options.hpa_metric_kinds.end()) {
    kind = it->second;
  } else if (auto d = DefaultMetricKinds().find(m.name); d != DefaultMetricKinds().end()) {
    kind = d->second;
  }
  if (!kind) {
    return refuse("not a metric knobsim knows; map it with --hpa-metric " + m.name +
                  "=gpu_utilization|gpu_memory|request_rate|in_flight|external_request_rate");
  }
  const bool per_pod = *kind != HpaMetricKind::kExternalRequestRate;
  if (m.type == "Pods" && !per_pod)
    return refuse("a Pods metric is per pod; external_request_rate is the Service's total");
  if (m.type != "Pods" && per_pod)
    return refuse("an " + m.type + " metric is one value for the whole target; " +
                  std::string(HpaMetricKindName(*kind)) +
                  " is per pod (map it to "
                  "external_request_rate if it is the Service's request rate)");
  if (*kind == HpaMetricKind::kGpuUtilization && m.target_milli > 100'000)
    return refuse("a GPU utilization target above 100 % is never reached");
  return *kind;
}

// One CronHPA as the scenario's cron_hpa: on `target` (the workload, or its HPA when the
// CronHPA scales the HPA); what the controller could not run goes to `warnings`, the names of
// the jobs left out to `dropped`.
CronHpaSpec ConvertCronHpa(const CronHorizontalPodAutoscalerObject& cron, const std::string& file,
                           const Workload& target, std::vector<std::string>* warnings,
                           std::vector<std::string>* dropped) {
  const bool on_hpa = cron.target_kind == "HorizontalPodAutoscaler";
  CronHpaSpec spec;
  spec.name = cron.name;
  spec.namespace_ = cron.namespace_;
  spec.target_kind = on_hpa ? "HorizontalPodAutoscaler" : target.kind;
  spec.target_name = on_hpa ? target.hpa->name : target.name;
  for (const std::string& text : cron.exclude_dates) {
    Expected<CronSchedule> date = ParseCronSchedule(text);
    if (!date) {
      // The controller's IsTodayOff skips an entry it cannot parse (it logs and goes on).
      warnings->push_back(file + ":" + std::to_string(cron.exclude_dates_line) + ": " +
                          "CronHorizontalPodAutoscaler " + cron.name + ": excludeDates " +
                          Quote(text) + ": " + date.error().message + "; left out");
      continue;
    }
    spec.exclude_dates.push_back(CronExcludeDate{text, *date});
  }
  for (const CronHpaJobObject& job : cron.jobs) {
    Expected<CronSchedule> schedule = ParseCronSchedule(job.schedule);
    if (!schedule) {
      // The controller cannot add such a job to its cron engine: it never runs.
      warnings->push_back(file + ":" + std::to_string(job.line) + ": " +
                          "CronHorizontalPodAutoscaler " + cron.name + ": job " + job.name +
                          ": schedule " + Quote(job.schedule) + ": " + schedule.error().message +
                          "; the controller never runs it");
      dropped->push_back(job.name);
      continue;
    }
    if (on_hpa && job.target_size < 1) {
      warnings->push_back(file + ":" + std::to_string(job.line) + ": " +
                          "CronHorizontalPodAutoscaler " + cron.name + ": job " + job.name +
                          ": targetSize 0 on an HPA fails (minReplicas must be at least "
                          "1); left out");
      dropped->push_back(job.name);
      continue;
    }
    CronHpaJob out;
    out.name = job.name;
    out.schedule = *schedule;
    out.schedule_text = job.schedule;
    out.target_size = job.target_size;
    out.run_once = job.run_once;
    spec.jobs.push_back(std::move(out));
  }
  return spec;
}

}  // namespace

std::string_view HpaMetricKindName(HpaMetricKind kind) {
  for (const KindName& k : kKindNames)
    if (k.kind == kind) return k.name;
  return "cpu";
}

Expected<std::pair<std::string, HpaMetricKind>> ParseHpaMetricRule(std::string_view text) {
  const size_t eq = text.find('=');
  auto fail = [&](std::string message) {
    return InputError{"", 0, "--hpa-metric", Quote(text) + ": " + std::move(message),
                      "write NAME=gpu_utilization|gpu_memory|request_rate|in_flight|"
                      "external_request_rate"};
  };
  if (eq == std::string_view::npos || eq == 0) return fail("expected NAME=KIND");
  const std::string_view kind = text.substr(eq + 1);
  for (const KindName& k : kKindNames)
    if (k.name == kind) return std::pair{std::string(text.substr(0, eq)), k.kind};
  return fail(Quote(kind) + " is not a metric knobsim computes");
}

void HpasFromObjects(const KubeObjects& objects, const ImportOptions& options, ImportModel& model) {
  // Workloads by what a scaleTargetRef names: kind, namespace and the owner's name.
  std::map<std::string, int> workload_of;
  for (size_t i = 0; i < model.workloads.size(); ++i) {
    const ImportedWorkload& iw = model.workloads[i];
    workload_of[iw.kind + "/" + iw.spec.namespace_ + "/" + iw.owner] = static_cast<int>(i);
  }
  // Two HPAs on one target: the controller refuses to act on either ("AmbiguousSelector").
  std::map<int, std::vector<size_t>> hpas_of;
  for (size_t h = 0; h < objects.hpas.size(); ++h) {
    const HorizontalPodAutoscalerObject& hpa = objects.hpas[h];
    const std::string source =
        objects.hpa_sources[h].file + ":" + std::to_string(objects.hpa_sources[h].line);
    auto it = workload_of.find(hpa.target_kind + "/" + hpa.namespace_ + "/" + hpa.target_name);
    if (it == workload_of.end()) {
      model.warnings.push_back(source + ": HorizontalPodAutoscaler " + HpaName(hpa) + " scales " +
                               hpa.target_kind + " " + hpa.target_name +
                               ", which is not an imported workload; left out");
      continue;
    }
    hpas_of[it->second].push_back(h);
  }
  for (const auto& [w, list] : hpas_of) {
    ImportedWorkload& iw = model.workloads[static_cast<size_t>(w)];
    if (list.size() > 1) {
      std::string names;
      for (size_t h : list) {
        if (!names.empty()) names += ", ";
        names += HpaName(objects.hpas[h]);
      }
      model.warnings.push_back("workload " + iw.spec.name +
                               " is the target of several "
                               "HorizontalPodAutoscalers (" +
                               names +
                               "): the controller "
                               "scales none of them (AmbiguousSelector); all left out");
      iw.notes["hpa"] = "several HPAs target it (" + names + "): the controller acts on none";
      continue;
    }
    const size_t h = list.front();
    const HorizontalPodAutoscalerObject& hpa = objects.hpas[h];
    const std::string& file = objects.hpa_sources[h].file;
    HpaSpec spec;
    spec.name = hpa.name;
    spec.namespace_ = hpa.namespace_;
    spec.target_kind = hpa.target_kind;
    spec.target_name = iw.spec.name;
    spec.min_replicas = hpa.min_replicas;
    spec.max_replicas = hpa.max_replicas;
    spec.behavior = hpa.behavior;
    std::vector<std::string> left_out;
    for (const HpaMetricSource& m : hpa.metrics) {
      const Expected<HpaMetricKind> kind = KindOf(m, iw, options);
      if (!kind) {
        model.warnings.push_back(file + ":" + std::to_string(m.line) +
                                 ": HorizontalPodAutoscaler " + HpaName(hpa) + ": " +
                                 kind.error().message + "; left out of the simulated HPA");
        left_out.push_back(m.type + " " + m.name);
        continue;
      }
      HpaMetric metric;
      metric.kind = *kind;
      metric.name = std::string(HpaMetricKindName(*kind));
      metric.target_type = m.target_type;
      metric.target_utilization = m.target_utilization;
      metric.target_milli = m.target_milli;
      if (metric.kind == HpaMetricKind::kCpu && m.target_type == HpaTargetType::kUtilization &&
          iw.spec.cpu_milli == 0) {
        model.warnings.push_back(
            file + ":" + std::to_string(m.line) + ": HorizontalPodAutoscaler " + HpaName(hpa) +
            ": a cpu Utilization target, and workload " + iw.spec.name +
            " requests no cpu: the controller cannot compute it (missing "
            "request for cpu, FailedGetResourceMetric) and keeps the replicas");
      }
      if (m.has_selector) {
        model.warnings.push_back(file + ":" + std::to_string(m.line) +
                                 ": HorizontalPodAutoscaler " + HpaName(hpa) + ": metric " +
                                 Quote(m.name) +
                                 " has a selector; knobsim computes the metric "
                                 "over all of the workload's pods");
      }
      spec.metrics.push_back(std::move(metric));
    }
    std::string note = "HorizontalPodAutoscaler " + HpaName(hpa);
    if (!left_out.empty()) note += "; not simulated: " + Join(left_out, ", ");
    if (spec.metrics.empty()) {
      model.warnings.push_back("workload " + iw.spec.name + ": its HorizontalPodAutoscaler " +
                               HpaName(hpa) +
                               " has no metric knobsim computes; the workload "
                               "keeps " +
                               std::to_string(iw.spec.replicas) + " replicas");
      iw.notes["hpa"] = note + " (no metric left: replicas fixed)";
      continue;
    }
    // The controller's first sync moves replicas inside the bounds (horizontal.go: "Current
    // number of replicas above Spec.MaxReplicas" / "below Spec.MinReplicas").
    const int clamped = std::clamp(iw.spec.replicas, spec.min_replicas, spec.max_replicas);
    if (clamped != iw.spec.replicas) {
      note += "; replicas " + std::to_string(iw.spec.replicas) + " moved to " +
              std::to_string(clamped) + " within the HPA's bounds, as its first sync does";
      iw.spec.replicas = clamped;
      if (iw.pods.size() > static_cast<size_t>(clamped))
        iw.pods.resize(static_cast<size_t>(clamped));
    }
    iw.notes["hpa"] = note;
    iw.spec.hpa = std::move(spec);
  }
}

void CronHpasFromObjects(const KubeObjects& objects, ImportModel& model) {
  std::map<std::string, int> workload_of;   // kind/namespace/owner
  std::map<std::string, int> hpa_workload;  // namespace/name of an imported HPA
  for (size_t i = 0; i < model.workloads.size(); ++i) {
    const ImportedWorkload& iw = model.workloads[i];
    workload_of[iw.kind + "/" + iw.spec.namespace_ + "/" + iw.owner] = static_cast<int>(i);
    if (iw.spec.hpa)
      hpa_workload[iw.spec.namespace_ + "/" + iw.spec.hpa->name] = static_cast<int>(i);
  }
  std::map<int, std::vector<size_t>> crons_of;
  for (size_t c = 0; c < objects.cron_hpas.size(); ++c) {
    const CronHorizontalPodAutoscalerObject& cron = objects.cron_hpas[c];
    const std::string where =
        objects.cron_hpa_sources[c].file + ":" + std::to_string(objects.cron_hpa_sources[c].line);
    const std::string name = "CronHorizontalPodAutoscaler " + cron.namespace_ + "/" + cron.name;
    int w = -1;
    if (cron.target_kind == "HorizontalPodAutoscaler") {
      const auto it = hpa_workload.find(cron.namespace_ + "/" + cron.target_name);
      if (it == hpa_workload.end()) {
        model.warnings.push_back(where + ": " + name + " scales HorizontalPodAutoscaler " +
                                 cron.target_name + ", which is not imported; left out");
        continue;
      }
      w = it->second;
    } else {
      const auto it =
          workload_of.find(cron.target_kind + "/" + cron.namespace_ + "/" + cron.target_name);
      if (it == workload_of.end()) {
        model.warnings.push_back(where + ": " + name + " scales " + cron.target_kind + " " +
                                 cron.target_name +
                                 ", which is not an imported workload; left out");
        continue;
      }
      w = it->second;
      // Any exported HPA on the same target, simulated or not, undoes what the CronHPA sets.
      bool has_hpa = false;
      for (const HorizontalPodAutoscalerObject& hpa : objects.hpas)
        has_hpa |= hpa.namespace_ == cron.namespace_ && hpa.target_kind == cron.target_kind &&
                   hpa.target_name == cron.target_name;
      if (has_hpa) {
        model.warnings.push_back(
            where + ": " + name + " sets " + cron.target_kind + " " + cron.target_name +
            "'s replicas while an HPA also scales it: the two undo each other (the controller's "
            "README); left out (point its scaleTargetRef at the HPA)");
        continue;
      }
    }
    crons_of[w].push_back(c);
  }
  bool any = false;
  for (const auto& [w, list] : crons_of) {
    ImportedWorkload& iw = model.workloads[static_cast<size_t>(w)];
    if (list.size() > 1) {
      model.warnings.push_back("workload " + iw.spec.name +
                               " is the target of several CronHorizontalPodAutoscalers: their "
                               "jobs would race; all left out");
      iw.notes["cron_hpa"] = "several CronHPAs target it: left out";
      continue;
    }
    const size_t c = list.front();
    const CronHorizontalPodAutoscalerObject& cron = objects.cron_hpas[c];
    const std::string& file = objects.cron_hpa_sources[c].file;
    std::vector<std::string> dropped;
    CronHpaSpec spec = ConvertCronHpa(cron, file, iw.spec, &model.warnings, &dropped);
    std::string note = "CronHorizontalPodAutoscaler " + cron.name;
    if (!dropped.empty()) note += "; jobs left out: " + Join(dropped, ", ");
    if (spec.jobs.empty()) {
      iw.notes["cron_hpa"] = note + " (no job left)";
      continue;
    }
    iw.notes["cron_hpa"] = note;
    iw.spec.cron_hpa = std::move(spec);
    any = true;
  }
  if (!any) return;
  // Jobs fire on the wall clock: t = 0 is the metrics window's start, the traffic's `at: 0`.
  if (model.start_unix_s) {
    model.cron_hpa_start = true;
  } else {
    model.warnings.push_back(
        "CronHPA jobs fire on the wall clock: set run.start in the scenario to the time the "
        "run stands for (unset, it starts 2024-01-01 00:00 in the controller's zone, +08:00); "
        "with --prom metrics it is the metrics window's start");
  }
}

}  // namespace knobsim
