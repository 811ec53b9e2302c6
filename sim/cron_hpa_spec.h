// CronHpaSpec: ACK's CronHorizontalPodAutoscaler (autoscaling.alibabacloud.com/v1beta1,
// AliyunContainerService/kubernetes-cronhpa-controller) as knobsim reads it from an export, a
// manifest or a scenario: the target, the excludeDates and the jobs with their parsed schedules
// (sim/cron_schedule.h). Plain data; what a job does when it fires is
// sim/autoscaling/cron_hpa.h, its place on the simulated clock sim/controllers/cron_autoscaling.h
// (docs/autoscaling.md "CronHPA").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/cron_schedule.h"

namespace knobsim {

struct CronHpaJob {
  std::string name;
  CronSchedule schedule;
  int32_t target_size = 0;
  bool run_once = false;
  std::string schedule_text;  // as written, for messages and the import's writer
};

// One excludeDates entry. Upstream parses the entries at every fire and skips (with a warning)
// the ones that do not parse; a reader should warn and leave those out of the list.
struct CronExcludeDate {
  std::string text;
  CronSchedule schedule;
};

struct CronHpaSpec {
  std::string name;
  std::string namespace_ = "default";
  std::string target_api_version;  // scaleTargetRef.apiVersion, e.g. "apps/v1"
  std::string target_kind;         // "Deployment", "StatefulSet", "HorizontalPodAutoscaler", …
  std::string target_name;
  std::vector<CronExcludeDate> exclude_dates;
  std::vector<CronHpaJob> jobs;
};

// The controller's settings. Its time zone is its container's TZ (one for every object):
// "Asia/Shanghai" in upstream's config/deploy/deploy.yaml and the chart's values.yaml, so
// UTC+8 by default; a fixed offset (sim/cron_schedule.h: no DST tables).
struct CronHpaControllerSettings {
  int32_t utc_offset_s = 8 * 3600;
};

}  // namespace knobsim
