// A hand-made upgrade rehearsal for the tests of its writers (timeline JSON, terminal text, report
// page): two variants as `knobsim upgrade --compare` returns them, small enough to check by eye.
//
//   t (s)   upgrade-first                                    fix-quotas-first
//   60      gpu-1 cordoned, ocr-0 evicted, drained at 65     the same
//   240     gpu-1 back with isolation=hard;                  the same
//           cpu-1 cordoned, etcd-0 refused (429) until 300
//   300     ocr's new pod on gpu-1 is fake Ready: 50 fake-   nothing fails
//           Ready errors from the 300 s step, asr 7 OOMs at 360
//   480     cpu-1 back: finished                             the same
//
// Steps of 60 s, the run ends at 600 s. ocr wants 2 pods: from 300 s one is fake Ready, so 2 are
// Ready but only 1 is available.
#pragma once

#include <string>
#include <vector>

#include "sim/upgrade/upgrade_run.h"

namespace knobsim::upgrade_sample {

inline constexpr SimTime S = kNanosPerSecond;
inline constexpr const char* kEtcdCause =
    "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget "
    "etcd needs 2 healthy pods and has 2 currently";

inline UpgradeOptions Options() {
  UpgradeOptions o;
  o.after.isolation = MemoryIsolation::kHard;
  o.after.cgpu_version = "1.5.10";
  return o;
}

inline WorkloadTimeline Workload(const std::string& name, int desired, bool broken) {
  WorkloadTimeline w;
  w.name = name;
  w.namespace_ = "ai";
  w.desired = desired;
  for (int i = 0; i < 10; ++i) {
    TimelinePoint p;
    p.start = i * 60 * S;
    p.arrivals = 240;
    p.completed = 240;
    p.latency_mean_ms = 40;
    p.latency_p50_ms = 35;
    p.latency_p99_ms = 100 + 10 * i;
    p.available_mean = desired;
    p.available_min = desired;
    p.ready_mean = desired;
    p.desired_mean = desired;
    if (broken && name == "ocr" && i >= 5) {
      p.errors.fake_ready = i == 5 ? 50 : 120;
      p.completed = p.arrivals - p.errors.fake_ready;
      p.available_mean = desired - 1;
      p.available_min = desired - 1;
    }
    if (broken && name == "asr" && i == 6) {
      p.errors.oom = 7;
      p.completed -= 7;
    }
    if (broken && name == "asr" && i >= 7) {  // ImagePullBackOff: nothing left to serve
      p.errors.no_replica = p.arrivals;
      p.completed = 0;
      p.available_mean = 0;
      p.available_min = 0;
      p.ready_mean = 0;
    }
    w.points.push_back(p);
  }
  if (broken && name == "ocr") {
    w.available_fraction = (5 * 1.0 + 5 * 0.5) / 10;
    w.below_desired_ns = 300 * S;
  } else if (broken && name == "asr") {
    w.available_fraction = 0.7;
    w.below_desired_ns = 180 * S;
    w.unavailable_ns = 180 * S;
  } else {
    w.available_fraction = 1;
  }
  return w;
}

inline UpgradeTimeline Timeline() {
  UpgradeTimeline t;
  t.started = 60 * S;
  t.finished = 480 * S;
  NodeUpgrade gpu;
  gpu.node = "gpu-1";
  gpu.pool = "gpu-a10";
  gpu.zone = "cn-hangzhou-h";
  gpu.outcome = "upgraded";
  gpu.attempts = 1;
  gpu.cordoned = 60 * S;
  gpu.drained = 65 * S;
  gpu.back = 240 * S;
  gpu.steps = {{60 * S, "cordoned", "", ""},
               {60 * S, "evicted", "ai/ocr-0", ""},
               {65 * S, "drained", "", ""},
               {65 * S, "reset", "", ""},
               {240 * S, "back", "", "isolation=hard cgpu_version=1.5.10"}};
  NodeUpgrade cpu;
  cpu.node = "cpu-1";
  cpu.pool = "cpu";
  cpu.zone = "cn-hangzhou-j";
  cpu.outcome = "upgraded";
  cpu.attempts = 1;
  cpu.refusals = 12;
  cpu.cordoned = 240 * S;
  cpu.drained = 301 * S;
  cpu.back = 480 * S;
  cpu.steps = {{240 * S, "cordoned", "", ""},
               {240 * S, "eviction-refused", "infra/etcd-0", kEtcdCause},
               {300 * S, "evicted", "infra/etcd-0", ""},
               {301 * S, "drained", "", ""},
               {301 * S, "reset", "", ""},
               {480 * S, "back", "", "isolation=hard cgpu_version=1.5.10"}};
  t.nodes = {gpu, cpu};
  t.blocked.push_back(
      {"cpu-1", "infra/etcd-0", "infra/etcd", 240 * S, 300 * S, 12, kEtcdCause, false});
  return t;
}

inline UpgradeRun Variant(bool fix_quotas_first) {
  UpgradeRun r;
  r.name = fix_quotas_first ? "fix-quotas-first" : "upgrade-first";
  const bool broken = !fix_quotas_first;
  if (fix_quotas_first) {
    r.quota_fixes.push_back({"ai/ocr", 4, 10, 8848, "7-day peak 8848 MiB + 10 %"});
  }
  r.run.timeline.step = 60 * S;
  r.run.timeline.end = 600 * S;
  r.run.end = 600 * S;
  r.run.timeline.workloads = {Workload("ocr", 2, broken), Workload("asr", 1, broken)};
  for (const char* name : {"ocr", "asr"}) {
    WorkloadResult w;
    w.name = name;
    w.namespace_ = "ai";
    r.run.workloads.push_back(w);
  }
  r.run.pods = {{"ai", "ocr-0", "ocr", "gpu-1", {0}, "Running", 0, ""},
                {"ai", "ocr-1", "ocr", "gpu-2", {0}, "Running", 0, ""},
                {"ai", "asr-0", "asr", "gpu-1", {0}, "Running", 0, ""}};
  if (broken) {
    r.run.pods[0].state = "FakeReady";
    r.run.pods[0].message = "model load failed: CUDA out of memory (8448 of 4186 MiB)";
    r.run.pods[2].state = "ImagePullBackOff";
    r.run.pods[2].message = "Back-off pulling image \"registry/acme-ai/asr:v2.3.1\"";
  }
  r.upgrade = Timeline();
  return r;
}

inline std::vector<UpgradeRun> Comparison() {
  return {Variant(false), Variant(true)};
}

}  // namespace knobsim::upgrade_sample
