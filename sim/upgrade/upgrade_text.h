// The terminal report of `knobsim upgrade` (docs/upgrade.md): per variant a headline (finished
// in how long after the first cordon, or why not), the node timeline, blocked drains and why,
// availability per workload, errors by cause with when they started and which node was being
// upgraded then, p99 over time, the pods that end not Running and the quota fixes applied; with
// two variants or more, one verdict paragraph that sets them side by side.
//
// Times read `t+MM:SS` (`t+H:MM:SS` past an hour) from the start of the run, warm-up included,
// as the JSON's `_s` fields count them. The text is a pure function of the runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/event_queue.h"
#include "sim/upgrade/upgrade_run.h"

namespace knobsim {

// What a rehearsal shows broke; any of it makes `knobsim upgrade` exit with status 1.
struct UpgradeBreakage {
  bool finished = false;                 // every node in scope back with the new settings
  std::string not_finished;              // why not, when not: "cpu-1 blocked, gpu-2 not started"
  int64_t oom = 0;                       // request errors by CUDA OOM, over the whole run
  int64_t fake_ready = 0;                // requests routed to a fake-Ready pod, over the whole run
  SimTime first_error = -1;              // the start of the first step with either of the two
  std::vector<std::string> broken_pods;  // "ai/asr-0 ImagePullBackOff", in pod order
  // Workloads with no available pod while they wanted some, from the step the upgrade started
  // in: "ai/asr none available for 1:10:00 (33 545 requests found no replica)". An outage
  // whatever the nodes' outcome (a pod whose image tag is gone never comes back).
  std::vector<std::string> outages;
  bool broken() const {
    return !finished || oom > 0 || fake_ready > 0 || !broken_pods.empty() || !outages.empty();
  }
};

// Pod states that count as breakage when a pod ends in them.
bool IsBrokenPodState(const std::string& state);

UpgradeBreakage JudgeUpgrade(const UpgradeRun& run);

// `t+02:10`, `t+1:02:10`; "—" for a negative time (never happened).
std::string RunTimeText(SimTime t);
// `0:07:00`: a span, hours always shown.
std::string SpanText(SimTime span);

// One variant's report: headline, the plan `options` describe, and the sections.
std::string UpgradeRunText(const UpgradeRun& run, const UpgradeOptions& options);

// "upgrade-first: 7 OOM and 530 fake-Ready errors from t+05:00 (cpu-1 being upgraded); 1 pod
// ImagePullBackOff. fix-quotas-first: none." One sentence per variant, wrapped at 100 columns.
std::string UpgradeVerdictText(const std::vector<UpgradeRun>& runs);

// Every variant's report in order, then, with two or more, the verdict paragraph.
std::string UpgradeText(const std::vector<UpgradeRun>& runs, const UpgradeOptions& options);

}  // namespace knobsim
