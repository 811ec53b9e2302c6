// TimelineStats: the timelines of a variant's replications (RunResult::timeline) as one, point by
// point: each number the mean over the replications and its 95 % half-width (Student t,
// sim/replication_stats.h), the way RunSet summarizes the run's totals.
//
// Replications are aligned by step index (every replication of a variant runs with the same
// step); a run that ended earlier than another has fewer points, and a point is summarized over
// the replications that have it (`replications` per point). A latency (and its wait and service
// split) is over the replications with at least one success in that step (`latency_replications`,
// 0: unknown). Cards are matched by (node, index), as RunSet's card summaries.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/replication_stats.h"
#include "sim/results.h"

namespace knobsim {

struct TimelinePointStats {
  SimTime start = 0;
  int replications = 0;
  MeanCi arrivals, completed;
  MeanCi oom, fake_ready, timeout, no_replica, interrupted;
  int latency_replications = 0;
  MeanCi latency_mean_ms, latency_p50_ms, latency_p99_ms, queue_wait_mean_ms, service_mean_ms;
  MeanCi available_mean, available_min, ready_mean, desired_mean;
  MeanCi pending_mean, pending_max;
};

struct WorkloadTimelineStats {
  std::string name;
  std::string namespace_;
  int desired = 0;
  MeanCi available_fraction, below_desired_s, unavailable_s;
  std::vector<TimelinePointStats> points;
};

struct CardTimelinePointStats {
  SimTime start = 0;
  int replications = 0;
  MeanCi busy, effective, memory_used_mib, memory_peak_mib;
};

struct CardTimelineStats {
  std::string node;
  int index = 0;
  std::string gpu;
  std::vector<CardTimelinePointStats> points;
};

struct PoolTimelinePointStats {
  SimTime start = 0;
  int replications = 0;
  MeanCi nodes_mean;
  MeanCi cost_per_hour;  // nodes_mean × the pool's price per node-hour, when priced
  bool priced = false;
};

struct PoolTimelineStats {
  std::string name;
  std::string currency;  // set when the pool is priced (PriceTimeline)
  std::vector<PoolTimelinePointStats> points;
};

struct TimelineStats {
  SimTime step = 0;  // 0: the runs collected no timeline
  SimTime end = 0;   // the latest end of the replications
  int replications = 0;
  std::vector<WorkloadTimelineStats> workloads;  // scenario order
  std::vector<CardTimelineStats> cards;          // replication 0's order
  std::vector<PoolTimelineStats> pools;          // scenario order
};
// The cost rate of each priced pool of `pools` (PoolResult::cost over node_hours) over its
// timeline: cost_per_hour at each step, and the currency.
void PriceTimeline(const std::vector<PoolResult>& pools, TimelineStats& timeline);

// Over `runs` (index = replication). Runs without a timeline give step 0.
TimelineStats SummarizeTimelines(std::span<const RunResult> runs);

}  // namespace knobsim
