// Placement throughput with inter-pod anti-affinity (issue 18: >= 5 000 pods/s on 5 000 nodes;
// upstream's scheduler_perf affinity cases run in the low hundreds of pods per second).
//
// 5 000 cpu nodes in 10 zones; pods are replicas of 200 workloads, each replica repelling the
// replicas of its own workload from its node (required podAntiAffinity on kubernetes.io/hostname,
// the usual HA rule), so every pod meets both sides of the rule: its own terms and the terms of
// every bound pod (symmetry). The `Preferred` variant adds a preferred zone anti-affinity term
// (weight 100), which the score plugin sums per zone. The cluster holds a steady state of 20 000
// bound pods (4 per node): once there, each bind is followed by the unbind of the oldest pod.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/steady_placement.h"
#include "sim/random_stream.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int kNodes = 5000;
constexpr int kWorkloads = 200;
constexpr size_t kResident = 20'000;
constexpr size_t kPodStream = 1 << 16;

ClusterState MakeCluster() {
  ClusterState cluster;
  for (int i = 0; i < kNodes; ++i) {
    NodeSpec node;
    node.name = fmt::format("node-{}", i);
    node.labels = {{"kubernetes.io/hostname", node.name},
                   {"topology.kubernetes.io/zone", fmt::format("zone-{}", i % 10)}};
    node.allocatable = {{"cpu", 32'000}, {"memory", 128 * kGiB}, {"pods", 110}};
    node.capacity = node.allocatable;
    cluster.AddNode(std::move(node));
  }
  return cluster;
}

PodAffinityTerm OwnReplicas(const Labels& labels, const char* topology_key) {
  PodAffinityTerm t;
  t.label_selector.match_labels = labels;
  t.topology_key = topology_key;
  return t;
}

std::vector<PodSpec> MakePods(bool preferred_zone) {
  RandomStream rng(1, "bench/pod-anti-affinity/pods");
  std::vector<PodSpec> templates(kWorkloads);
  for (int w = 0; w < kWorkloads; ++w) {
    PodSpec& pod = templates[w];
    pod.labels = {{"app", fmt::format("w{}", w)}};
    const int64_t cpu = 500 * (1 + static_cast<int64_t>(rng.Below(4)));
    const int64_t memory = kGiB * (1 + static_cast<int64_t>(rng.Below(4)));
    pod.requests = {{"cpu", cpu}, {"memory", memory}};
    pod.nonzero_cpu_milli = cpu;
    pod.nonzero_memory_bytes = memory;
    pod.pod_anti_affinity.required = {OwnReplicas(pod.labels, "kubernetes.io/hostname")};
    if (preferred_zone) {
      pod.pod_anti_affinity.preferred = {
          {100, OwnReplicas(pod.labels, "topology.kubernetes.io/zone")}};
    }
  }
  return bench::ReplicaStream(templates, kPodStream, rng);
}

// percentage: percentageOfNodesToScore; the default samples 500 of the 5 000 nodes, 100 filters
// and scores every node (the cost of the whole rule).
void RunPlacement(benchmark::State& state, bool preferred_zone, int percentage) {
  ClusterState cluster = MakeCluster();
  SchedulerConfig config;
  config.percentage_of_nodes_to_score = percentage;
  bench::RunSteadyPlacement(state, cluster, MakePods(preferred_zone), kResident, config);
}

void BM_PlaceRequiredAntiAffinity5000Nodes(benchmark::State& state) {
  RunPlacement(state, false, 0);
}
void BM_PlaceRequiredAndPreferredAntiAffinity5000Nodes(benchmark::State& state) {
  RunPlacement(state, true, 0);
}
void BM_PlaceRequiredAntiAffinity5000NodesAllScored(benchmark::State& state) {
  RunPlacement(state, false, 100);
}
void BM_PlaceRequiredAndPreferredAntiAffinity5000NodesAllScored(benchmark::State& state) {
  RunPlacement(state, true, 100);
}

BENCHMARK(BM_PlaceRequiredAntiAffinity5000Nodes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlaceRequiredAndPreferredAntiAffinity5000Nodes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlaceRequiredAntiAffinity5000NodesAllScored)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlaceRequiredAndPreferredAntiAffinity5000NodesAllScored)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace knobsim
