// The shared-card cluster the engine benchmarks run (sharing_bench, cluster_size_bench): `nodes`
// nodes of 4 A10 cards (23028 MiB = 22 units, speed 1.0), and inference services of `replicas`
// pods each, three 6 GiB pods per card (18 of 22 units), so that 12 pods per node exactly fill
// the cards (first fit); nodes * 12 must be a multiple of `replicas`. Poisson traffic at
// kLoadPerPod of a card per pod, whatever the cluster's size: the same traffic per node.
//
// Services differ in work per request (5..30 ms of A10 time, exponential or lognormal with cv
// 1.5) and concurrency (4 for every fourth, else 1), in a cycle of twelve, so that any number of
// services keeps the same mix; service i's rate is replicas * kLoadPerPod / its mean work.
//
// Also ThreadCpuNs, the calling thread's CPU time, which both programs read around a run.
#pragma once

#include <time.h>

#include <cstdint>
#include <string>
#include <utility>

#include "sim/scenario.h"

namespace knobsim::bench {

constexpr int kCardsPerNode = 4;
constexpr int kPodsPerNode = 3 * kCardsPerNode;
constexpr double kLoadPerPod = 0.16;  // rate x E[work] / speed per pod; three pods per card

inline Scenario SharedCardsCluster(int nodes, int replicas, SharingPolicy policy) {
  Scenario s;
  s.name = "bench-sharing-" + std::to_string(nodes * kCardsPerNode);
  NodePool pool;
  pool.name = "gpu-a10";
  pool.count = nodes;
  pool.gpu_type = "A10";
  pool.gpus_per_node = kCardsPerNode;
  pool.schedule = GpuSchedule::kCoreMem;  // the pods ask gpu-core.percentage (POLICY 3)
  pool.labels["ack.node.gpu.schedule"] = "core_mem";
  pool.cpu_milli = 128000;
  pool.memory_mib = 512 * 1024;
  pool.pods = 110;
  s.node_pools.push_back(pool);
  s.cluster.policy = policy;
  s.cluster.switch_overhead = 0.05;
  s.run.duration = 100 * kNanosPerSecond;
  s.run.warmup = 5 * kNanosPerSecond;

  const int services = nodes * kPodsPerNode / replicas;
  for (int i = 0; i < services; ++i) {
    Workload w;
    w.name = "svc-" + std::to_string(i);
    w.replicas = replicas;
    w.cpu_milli = 2000;
    w.memory_mib = 8 * 1024;
    w.gpu_mem = 6;
    w.gpu_core = 30;
    w.memory.weights_mib = 3 * 1024;
    w.memory.activation_mib = 128;
    w.probe = ReadinessKind::kModel;
    w.work.dist = (i % 3 == 0) ? WorkDistribution::kLognormal : WorkDistribution::kExponential;
    w.work.mean_s = 0.005 * (1 + i % 6);
    w.work.cv = 1.5;
    w.traffic.kind = ArrivalKind::kPoisson;
    w.traffic.rate = replicas * kLoadPerPod / w.work.mean_s;
    w.concurrency = (i % 4 == 0) ? 4 : 1;
    w.slo.latency = 300 * kNanosPerMilli;
    s.workloads.push_back(std::move(w));
  }
  return s;
}

inline int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace knobsim::bench
