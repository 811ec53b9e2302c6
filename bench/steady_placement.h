// The steady-state placement loop the scheduler benchmarks share (placement_bench,
// pod_anti_affinity_bench): once `resident` pods are bound, each new bind is followed by the
// unbind of the oldest, so every timed iteration schedules one pod into a cluster of constant
// occupancy. `pods` is a stream whose size is a power of two, taken round-robin. The scheduler
// takes `config` (the default: kube-scheduler's adaptive node sample on 100+ nodes).
#pragma once

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "sim/random_stream.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim::bench {

// A stream of `count` pods (a power of two, for RunSteadyPlacement), each a replica of one of
// `templates` drawn from `rng`, named "w<template>-<position>".
inline std::vector<PodSpec> ReplicaStream(const std::vector<PodSpec>& templates, size_t count,
                                          RandomStream& rng) {
  std::vector<PodSpec> pods(count);
  for (size_t i = 0; i < pods.size(); ++i) {
    const uint64_t w = rng.Below(templates.size());
    pods[i] = templates[w];
    pods[i].name = fmt::format("w{}-{}", w, i);
  }
  return pods;
}

inline void RunSteadyPlacement(benchmark::State& state, ClusterState& cluster,
                               const std::vector<PodSpec>& pods, size_t resident_pods,
                               SchedulerConfig config = {}) {
  Scheduler scheduler(cluster, std::move(config));
  const size_t mask = pods.size() - 1;
  std::deque<int> resident;
  size_t next = 0;
  int64_t pending = 0;
  auto step = [&] {
    const ScheduleResult r = scheduler.ScheduleAndBind(pods[next++ & mask]);
    if (r.placement.node < 0) {
      ++pending;
    } else {
      resident.push_back(static_cast<int>(cluster.pods().size()) - 1);
    }
    if (resident.size() > resident_pods) {
      cluster.Unbind(resident.front());
      resident.pop_front();
    }
  };
  // Warm up to the steady state outside the timing.
  while (resident.size() < resident_pods) step();
  pending = 0;
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations());
  state.counters["pending"] = static_cast<double>(pending);
}

}  // namespace knobsim::bench
