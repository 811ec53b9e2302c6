// The size limits of one sweep of simulations (docs/limits.md), checked before anything runs:
// a traffic rate, a node count, a replica count or a timeline step that would make a run hang or
// exhaust memory is refused with the estimate, the limit and how to raise it, instead of running
// for hours or ending in std::bad_alloc.
//
// The estimates are deliberately simple and on the high side: events = expected arrivals over
// the run (rate × scale × duration, integrated for piecewise and diurnal traffic, counted for
// recorded traffic) + pods + nodes, summed over every variant and replication; timeline memory =
// steps × (workloads + cards) × bytes per point, per variant. A run is never refused by an
// estimate that depends on the machine (threads, free memory): the same command is refused or
// run everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"
#include "sim/scenario.h"

namespace knobsim {

// The defaults are generous for real clusters and well below what exhausts a 2 GB machine or
// keeps a core busy for more than about a quarter of an hour (docs/limits.md has the why).
struct RunLimits {
  double rate_per_s = 1e6;          // `rate`: one workload's peak arrival rate (scaled)
  int64_t nodes = 50'000;           // `nodes`: nodes in one run, all pools
  int64_t pods = 150'000;           // `pods`: replicas in one run, all workloads
  int64_t replicas = 100'000;       // `replicas`: one workload's replicas
  double events = 1e9;              // `events`: estimated simulated events of the whole sweep
  double timeline_bytes = 1 << 30;  // `timeline-memory`: estimated timeline memory, bytes
  int64_t explain_rows = 1'000'000;  // `explain-rows`: schedule --explain's pods × nodes
};

// Bytes one timeline point (a workload or card in one step) costs while its run is recorded and
// written (the step's latency histogram, the point, its JSON): measured at 2.5-6.5 KiB on the
// bundled scenarios, rounded up.
inline constexpr double kTimelineBytesPerPoint = 8 * 1024;
// What a finished replication keeps of each point (the collected TimelinePoint).
inline constexpr double kTimelineBytesPerKeptPoint = 256;

// Sets one limit from "NAME=VALUE" (the --limit option): NAME one of rate, nodes, pods,
// replicas, events, timeline-memory (bytes); VALUE a positive finite number (1e10 is accepted),
// whole for nodes, pods and replicas. The failure names the option and what is accepted.
Status SetRunLimit(std::string_view text, RunLimits* limits);

// One variant's runs as the sweep simulates them.
struct SweepRun {
  std::string variant;       // for messages ("base", a variant's name)
  const Scenario* scenario;  // resolved: the variant already applied
};

struct Sweep {
  std::vector<SweepRun> runs;
  int replications = 1;
  SimTime duration = 0;                // > 0: every run's planned end instead of its run.duration
  SimTime timeline_step = 0;           // > 0: a timeline is recorded with this step
  std::string raise_hint = "--limit";  // how the command raises a limit (its option)
};

// The estimated simulated events of the sweep (see the header comment); +inf when a rate is.
double EstimatedEvents(const Sweep& sweep);

// The estimated timeline memory of the sweep in bytes; 0 without a timeline.
double EstimatedTimelineBytes(const Sweep& sweep);

// Ok when the sweep stays within every limit; else the first limit exceeded, naming the variant,
// the pool or workload, the value or estimate, the limit and how to raise it.
Status CheckRunLimits(const Sweep& sweep, const RunLimits& limits);

// `knobsim schedule`'s sizes, checked once its files are read: the cluster's nodes, its pods
// (bound and pending) against `nodes` and `pods` (a cycle walks the nodes, so the time grows with
// pending pods × nodes), and with --explain the table's rows (a row per pending pod and node)
// against `explain-rows`.
Status CheckScheduleLimits(int64_t nodes, int64_t bound_pods, int64_t pending_pods, bool explain,
                           const RunLimits& limits);

}  // namespace knobsim
