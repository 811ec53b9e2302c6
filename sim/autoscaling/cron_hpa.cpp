#include "sim/autoscaling/cron_hpa.h"

#include <initializer_list>
#include <string_view>

namespace knobsim::autoscaling {
namespace {

std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

std::string Num(int64_t v) {
  return std::to_string(v);
}

// The names the messages carry; empty when ApplyCronTarget is called alone.
struct Names {
  std::string_view kind;
  std::string_view name;
  std::string_view ns;
};

// CronJobHPA.Run's message once the retries ran out (4 tries: at 0, 3, 6 and 9 s).
std::string RetriesExhausted(const Names& n, int32_t target_size, std::string_view reason) {
  return Cat({"failed to scale ", n.kind, " ", n.name, " in ", n.ns, " namespace to ",
              Num(target_size), " after retrying 4 times and exit,because of ", reason});
}

CronHpaAction Apply(int32_t target_size, const std::optional<HpaState>& hpa,
                    int32_t workload_replicas, const Names& names) {
  CronHpaAction a;
  a.replicas = workload_replicas;

  if (!hpa) {
    // cronjob.go ScalePlainRef: Get the scale subresource, set spec.replicas = DesiredSize,
    // Update. No comparison with the current replicas and no bounds: the write happens even
    // when nothing changes.
    if (target_size < 0) {
      // The API server's scale validation (replicas >= 0); Run retries, then gives up.
      a.failed = true;
      a.message = RetriesExhausted(names, target_size,
                                   Cat({"spec.replicas: Invalid value: ", Num(target_size),
                                        ": must be greater than or equal to 0"}));
      return a;
    }
    a.scaled = true;
    a.replicas = target_size;
    a.message = Cat({"current replicas:", Num(workload_replicas),
                     ", desired replicas:", Num(target_size), "."});
    return a;
  }

  // cronjob.go ScaleHPA, in upstream's order, on the HPA read by the autoscaling/v1 client.
  int32_t min = hpa->min_replicas;
  int32_t max = hpa->max_replicas;
  const int32_t current = hpa->current_replicas;  // hpa.Status.CurrentReplicas
  a.hpa_min_replicas = min;
  a.hpa_max_replicas = max;
  bool update = false;
  // "if ch.DesiredSize > hpa.Spec.MaxReplicas": the maximum rises to the target (and is never
  // lowered by any job).
  if (target_size > max) {
    max = target_size;
    update = true;
  }
  // "if ch.DesiredSize < *hpa.Spec.MinReplicas": the minimum falls to the target.
  if (target_size < min) {
    min = target_size;
    update = true;
  }
  // "if hpa.Status.CurrentReplicas == *hpa.Spec.MinReplicas && ch.DesiredSize <
  // hpa.Status.CurrentReplicas": compares the minimum as the previous rule left it, so it can
  // never hold (a target below the old minimum has already become the minimum); kept as written.
  if (current == min && target_size < current) {
    min = target_size;
    update = true;
  }
  // "if hpa.Status.CurrentReplicas < ch.DesiredSize": the HPA is below the target, the minimum
  // becomes the target (the HPA then cannot scale below it until a later job lowers it).
  if (current < target_size) {
    min = target_size;
    update = true;
  }
  if (update) {
    // client.Update(hpa); a minimum below 1 is refused by the API server's HPA validation
    // (HPAScaleToZero off), and Run retries, then gives up before touching the workload.
    if (min < 1) {
      a.failed = true;
      a.message = RetriesExhausted(names, target_size,
                                   Cat({"spec.minReplicas: Invalid value: ", Num(min),
                                        ": must be greater than or equal to 1"}));
      return a;
    }
    a.hpa_updated = true;  // written even when the values did not change
    a.hpa_min_replicas = min;
    a.hpa_max_replicas = max;
  }
  // "if hpa.Status.CurrentReplicas >= ch.DesiredSize": the workload is left to the HPA. The
  // message prints the workload's spec.replicas as "current replicas".
  if (current >= target_size) {
    a.message = Cat({"Skip scale replicas because HPA ", names.name, names.name.empty() ? "" : " ",
                     "in namespace ", names.ns, names.ns.empty() ? "" : " ", "current replicas:",
                     Num(workload_replicas), " >= desired replicas:", Num(target_size), "."});
    return a;
  }
  // Otherwise the HPA's scaleTargetRef is scaled to the target through its scale subresource.
  a.scaled = true;
  a.replicas = target_size;
  a.message = Cat(
      {"current replicas:", Num(workload_replicas), ", desired replicas:", Num(target_size), "."});
  return a;
}

}  // namespace

bool TargetsHpa(const CronHpaSpec& spec) {
  return spec.target_kind == "HorizontalPodAutoscaler";
}

bool RunsOnce(const CronHpaJob& job) {
  return job.run_once || job.schedule.from_date;
}

int FirstExcludingDate(const std::vector<CronExcludeDate>& exclude_dates, int64_t now_unix_s,
                       int32_t utc_offset_s) {
  for (size_t i = 0; i < exclude_dates.size(); ++i) {
    if (ExcludedBy(exclude_dates[i].schedule, now_unix_s, utc_offset_s)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

CronHpaAction ApplyCronTarget(int32_t target_size, const std::optional<HpaState>& hpa,
                              int32_t workload_replicas) {
  return Apply(target_size, hpa, workload_replicas, Names{});
}

CronHpaAction RunCronHpaJob(const CronHpaSpec& spec, size_t job_index, int64_t now_unix_s,
                            int32_t utc_offset_s, const std::optional<HpaState>& hpa,
                            int32_t workload_replicas) {
  const CronHpaJob& job = spec.jobs.at(job_index);
  // CronJobHPA.Run: IsTodayOff first; a skipped run returns (msg, nil), a success.
  if (const int i = FirstExcludingDate(spec.exclude_dates, now_unix_s, utc_offset_s); i >= 0) {
    CronHpaAction a;
    a.excluded = true;
    a.replicas = workload_replicas;
    if (hpa) {
      a.hpa_min_replicas = hpa->min_replicas;
      a.hpa_max_replicas = hpa->max_replicas;
    }
    a.message = Cat({"skip scaling activity,because of excludeDate (",
                     spec.exclude_dates[static_cast<size_t>(i)].text, ")."});
    return a;
  }
  const Names names{spec.target_kind, spec.target_name, spec.namespace_};
  // "if ch.TargetRef.RefKind == \"HorizontalPodAutoscaler\"": ScaleHPA, else ScalePlainRef.
  if (!TargetsHpa(spec)) return Apply(job.target_size, std::nullopt, workload_replicas, names);
  if (!hpa) {
    // ScaleHPA's first Get fails; Run retries, then gives up.
    CronHpaAction a;
    a.failed = true;
    a.replicas = workload_replicas;
    a.message = RetriesExhausted(
        names, job.target_size,
        "Failed to get HorizontalPodAutoscaler Ref,because of the HPA was not found");
    return a;
  }
  return Apply(job.target_size, hpa, workload_replicas, names);
}

bool GcRerunsJob(int64_t next_fire_unix_s, int64_t now_unix_s) {
  // FindJob: found while e.Next.Add(maxOutOfDateTimeout).After(now); the zero time never is.
  if (next_fire_unix_s == kNoCronFire) return true;
  return !(next_fire_unix_s + kCronHpaMaxOutOfDateS > now_unix_s);
}

}  // namespace knobsim::autoscaling
