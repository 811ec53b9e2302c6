// Simulate: one run of one resolved scenario (a variant already applied) with one seed.
//
// Places every pod (sim/scheduler), starts them (image pull, model load, memory checks), drives
// requests through routing, per-pod FIFO queues and the card-sharing model until the end time,
// and collects the results after warm-up. Deterministic: the same scenario and seed give the
// same RunResult, bit for bit. Reads and writes no files; prints nothing.
//
// Where the model lives (docs/design.md §3):
//  * sim/engine/simulator.h — the kernel: clock, event dispatch, the request flow;
//  * sim/engine/card_sharing.h — the fluid card-sharing model and the cards' memory;
//  * sim/engine/run_recorder.h — the accounting, the timeline and the RunResult;
//  * sim/controllers/ — placement, the pods' lifecycle and endpoints, image pulls, spot reclaims,
//    deletion and termination, replacement, the Pending queue, and the ClusterControl
//    (cluster_control.h) a ClusterOperator drives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/cluster_control.h"
#include "sim/results.h"
#include "sim/scenario.h"

namespace knobsim {

// What a run may add to the scenario's own settings. The defaults give the plain run.
struct RunOptions {
  ClusterOperator* cluster_operator = nullptr;  // called during the run (docs/upgrade.md)
  SimTime duration = 0;       // > 0: the planned end instead of the scenario's run.duration
  SimTime timeline_step = 0;  // > 0: collect RunResult::timeline with this step
  // With a timeline, per workload index: upper bounds in milliseconds, ascending, of latency
  // buckets counted per step (TimelinePoint::latency_at_or_below), as a Prometheus histogram's
  // `le` bounds count its observations. Workloads past the end or with none count nothing.
  std::vector<std::vector<double>> timeline_latency_bounds_ms;
  // Pulls after t = 0 (a pod rescheduled onto a node without its image): image_size /
  // bandwidth when the workload's image_size is known, else its startup image_pull.
  // Assumption (docs/upgrade.md): 60 MiB/s, a VPC registry endpoint.
  double pull_mib_per_s = 60;
  // Images (as the workload writes them) that the registry no longer has: a pull of one ends
  // in ImagePullBackOff. Pods running at t = 0 already hold theirs.
  std::vector<std::string> missing_images;
  SimTime termination_grace = 30 * kNanosPerSecond;  // terminationGracePeriodSeconds default
  // The event loop prefetches the next events' records (sim/engine/lookahead.h) once the pods'
  // and cards' tables reach this many bytes: a cache budget, not a model parameter; results never
  // depend on it (0: always, SIZE_MAX: never).
  size_t lookahead_min_bytes = size_t{4} << 20;
};

RunResult Simulate(const Scenario& scenario, uint64_t seed);
RunResult Simulate(const Scenario& scenario, uint64_t seed, const RunOptions& options);

}  // namespace knobsim
