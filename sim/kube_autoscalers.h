// The autoscaler objects of a Kubernetes export as plain types, before knobsim decides what it
// can simulate of them: a HorizontalPodAutoscaler keeps every metric as written (its source
// type and name), so the importer (sim/import/import_autoscalers.cpp) can map the metrics it
// models onto what a scenario's `hpa:` simulates and name the ones it leaves out. The reader is
// sim/io/kube/autoscalers.cpp; docs/autoscaling.md says what is read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/hpa_spec.h"

namespace knobsim {

// One entry of spec.metrics (MetricSpec of autoscaling/v2, or autoscaling/v1's CPU target).
struct HpaMetricSource {
  // Resource | ContainerResource | Pods | Object | External
  std::string type;
  // The resource (cpu, memory) of Resource and ContainerResource; the metric's name otherwise.
  std::string name;
  std::string container;       // ContainerResource
  std::string described_kind;  // Object: describedObject
  std::string described_name;
  bool has_selector = false;  // metric.selector given (the adapter filters by it)
  HpaTargetType target_type = HpaTargetType::kUtilization;
  int32_t target_utilization = 0;  // percent, kUtilization
  int64_t target_milli = 0;        // milli-units of the metric, kAverageValue / kValue
  int line = 0;                    // where the entry was read
};

struct HorizontalPodAutoscalerObject {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  std::string api_version;  // autoscaling/v2, autoscaling/v2beta2 or autoscaling/v1
  std::string target_api_version;
  std::string target_kind;  // scaleTargetRef
  std::string target_name;
  int32_t min_replicas = 1;  // API default 1
  int32_t max_replicas = 1;
  // As the API server stores them: an HPA that lists none gets Resource cpu at 80 %
  // (SetDefaults_HorizontalPodAutoscaler), as autoscaling/v1 without a CPU target does.
  std::vector<HpaMetricSource> metrics;
  std::optional<HpaBehavior> behavior;      // unset: the controller's legacy rules
  std::optional<int32_t> current_replicas;  // status
  std::optional<int32_t> desired_replicas;
};

// ACK's CronHorizontalPodAutoscaler (autoscaling.alibabacloud.com/v1beta1), as written: the
// schedules stay text, the importer parses them as the controller would (sim/cron_schedule.h).
struct CronHpaJobObject {
  std::string name;
  std::string schedule;
  int32_t target_size = 0;
  bool run_once = false;
  int line = 0;
};

struct CronHorizontalPodAutoscalerObject {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  std::string target_api_version;
  std::string target_kind;  // scaleTargetRef
  std::string target_name;
  std::vector<std::string> exclude_dates;
  int exclude_dates_line = 0;
  std::vector<CronHpaJobObject> jobs;
};

}  // namespace knobsim
