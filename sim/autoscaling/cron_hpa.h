// ACK's CronHPA (CronHorizontalPodAutoscaler, autoscaling.alibabacloud.com/v1beta1): what the
// controller AliyunContainerService/kubernetes-cronhpa-controller does when one of a CronHPA's
// jobs fires. Read at commit 31c63bed635f92f7d3fc0cdbcf0274c186e37382 (Nov 2023):
//  * pkg/apis/autoscaling/v1beta1/cronhorizontalpodautoscaler_types.go: the spec
//    (scaleTargetRef {apiVersion, kind, name}, excludeDates []string, jobs [{name, schedule,
//    targetSize int32, runOnce}]). The CRD puts no bounds on targetSize.
//  * pkg/controller/cronjob.go: CronJobHPA.Run (excludeDates, retries), ScaleHPA (an HPA as
//    the target), ScalePlainRef (anything with a scale subresource), IsTodayOff.
//  * pkg/controller/cronhorizontalpodautoscaler_controller.go: Reconcile (jobs submitted,
//    replaced, dropped; runOnce).
//  * pkg/controller/cronmanager.go, cronexecutor.go: the job table, the result handler, the GC
//    loop that reruns out-of-date jobs.
//  * vendor/github.com/ringtail/go-cron/cron.go: the engine (when jobs run, in what order).
// Schedules and excludeDates are cron_schedule.h.
//
// What a fire does (CronJobHPA.Run):
//  1. If an excludeDates entry matches now (IsTodayOff, see ExcludedBy), nothing is scaled and
//     the run still counts as a success ("skip scaling activity,because of excludeDate (…).").
//  2. scaleTargetRef.kind == "HorizontalPodAutoscaler" (exactly): ScaleHPA — the HPA's bounds
//     move to admit targetSize and the HPA's own target is raised to targetSize when the HPA is
//     below it (ApplyCronTarget). Any other kind: ScalePlainRef — the target's scale
//     subresource is set to targetSize, whatever it was, with no bounds of any kind; an HPA that
//     targets the same workload directly is not consulted and later scales it back within its
//     own min/max (the README's "Common Question": the two fight).
//  3. A failed attempt (an API error) is retried every 3 s until 10 s have passed (4 tries);
//     then the run is Failed. Here the only failures are the API server's validation: replicas
//     below 0, an HPA minReplicas below 1 (the HPAScaleToZero feature gate off).
//
// Time zone: the controller's local zone, one for all objects (cron_schedule.h).
//
// runOnce (Reconcile's runOnce()): a job with runOnce: true, or whose schedule contains
// "@date ", is removed from the engine once its condition reaches Succeed or Failed, i.e. after
// its first run — a run skipped by excludeDates included. Until then it fires as its schedule
// says. `@date` keeps no year: it fires at the next occurrence of that day and time, a past
// year's date included (next year's date, if this year's has passed).
//
// Timing (go-cron cron.go run): each job's next fire is computed from the time it is added and
// then from each fire; there is no catch-up. When the controller is down, the runs it misses
// are lost; on restart each job fires at its next time after the restart. A runOnce job whose
// status already says Succeed or Failed is not added again. Editing scaleTargetRef or
// excludeDates recreates every job (runOnce ones too: they run again); editing a job's
// schedule, targetSize or runOnce recreates that job. (The vendored engine does not refresh its
// clock when a job is removed, so after a removal the next timer can fire late by the time since
// the engine's last event; fixed in go-cron a496c4c, not modelled here.)
//
// Jobs firing at the same second (of one CronHPA or several) are started together, each in its
// own goroutine, in no defined order (the entries are sorted by next time only; ties keep a Go
// map's random order); the last write wins, and a write that lost an optimistic-concurrency
// race is retried 3 s later, so it usually ends up last. A simulator has to choose an order;
// spec order is the natural one, and it is not upstream's.
//
// The GC loop (every 10 minutes from the controller's start, cronmanager.go GC) reruns a job
// whose engine entry says its next fire is more than 5 minutes in the past (FindJob's
// maxOutOfDateTimeout) and resubmits it. An entry has such a time when its schedule has no
// next fire at all (Go's zero time): such a job (e.g. "0 0 0 30 2 *") is run by every GC pass,
// and, the result not being recorded, even if runOnce. GcRerunsJob tells. (A GC pass also
// starts whenever a CronHPA is deleted.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cron_hpa_spec.h"

namespace knobsim::autoscaling {

// cronjob.go updateRetryInterval / maxRetryTimeout; cronmanager.go GCInterval; cronexecutor.go
// maxOutOfDateTimeout.
inline constexpr int64_t kCronHpaRetryIntervalS = 3;
inline constexpr int64_t kCronHpaMaxRetryS = 10;
inline constexpr int64_t kCronHpaGcIntervalS = 600;
inline constexpr int64_t kCronHpaMaxOutOfDateS = 300;

// kind == "HorizontalPodAutoscaler", compared exactly (CronJobHPA.Run).
bool TargetsHpa(const CronHpaSpec& spec);

// Whether the job leaves the engine after its first run, success or failure (Reconcile's
// runOnce(): runOnce, or a schedule containing "@date ").
bool RunsOnce(const CronHpaJob& job);

// The first excludeDates entry that switches off a run at now, or -1 (IsTodayOff: entries in
// order, the first match wins).
int FirstExcludingDate(const std::vector<CronExcludeDate>& exclude_dates, int64_t now_unix_s,
                       int32_t utc_offset_s);

// The HPA a CronHPA targets, as ScaleHPA reads it: spec.minReplicas (the API default 1 when
// unset; upstream dereferences it), spec.maxReplicas, status.currentReplicas.
struct HpaState {
  int32_t min_replicas = 1;
  int32_t max_replicas = 1;
  int32_t current_replicas = 0;
};

struct CronHpaAction {
  bool excluded = false;         // skipped by excludeDates: nothing changed, the run succeeded
  bool failed = false;           // the API server refused the write: nothing changed
  bool hpa_updated = false;      // the HPA's bounds were written
  int32_t hpa_min_replicas = 0;  // the HPA's bounds after the run (HPA targets only)
  int32_t hpa_max_replicas = 0;
  bool scaled = false;   // the workload's scale subresource was written
  int32_t replicas = 0;  // the workload's spec.replicas after the run
  std::string message;   // upstream's message for the job's condition / event
};

// One job's target size applied to the target. `hpa` is the HPA's state when scaleTargetRef is
// an HPA, nullopt for a plain workload; `workload_replicas` is the spec.replicas of the
// workload scaled (the HPA's own scaleTargetRef when `hpa` is set). The rules and their sources
// are in cron_hpa.cpp. Upstream's ScaleHPA table, from the code (HPA min/max, HPA current,
// targetSize → HPA min/max, workload): 1/10, 5, 5 → 1/10, 5 (left alone); 1/10, 5, 4 → 1/10, 5;
// 1/10, 5, 6 → 6/10, 6; 5/5, 5, 6 → 6/6, 6; 5/5, 5, 4 → 4/5, 5 (the HPA may then scale down);
// 1/10, 5, 0 → refused (minReplicas 0).
CronHpaAction ApplyCronTarget(int32_t target_size, const std::optional<HpaState>& hpa,
                              int32_t workload_replicas);

// A whole run of spec.jobs[job_index] at now (CronJobHPA.Run): excludeDates, then
// ApplyCronTarget; messages as upstream's, with the spec's names. With an HPA target, `hpa` is
// that HPA (nullopt: it does not exist, and the run fails); with any other target it is ignored.
CronHpaAction RunCronHpaJob(const CronHpaSpec& spec, size_t job_index, int64_t now_unix_s,
                            int32_t utc_offset_s, const std::optional<HpaState>& hpa,
                            int32_t workload_replicas);

// Whether a GC pass at now reruns a job whose engine entry's next fire is `next_fire_unix_s`
// (kNoCronFire: none): FindJob finds it out of date when next + 5 min is not after now.
bool GcRerunsJob(int64_t next_fire_unix_s, int64_t now_unix_s);

}  // namespace knobsim::autoscaling
