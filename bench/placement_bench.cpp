// Placement throughput of the Scheduler (issue 3): a 1 213-node ACK cluster of three GPU-sharing
// pools across three zones, and a stream of GPU-share pods scheduled and bound one by one with
// card scoring (binpack). The goals are >= 50 000 pods/s, and >= 10 000 pods/s when every pod
// carries a zone topologySpread constraint; upstream kube-scheduler manages hundreds per second.
//
// The cluster is kept in a steady state roughly half full (40 % of the card memory, 60 % of the
// cpu): once `kResident` pods are bound, each new bind is followed by the unbind of the oldest
// pod, so every node is partly filled and different from the others, and each pod class finds a
// few dozen nodes changed since its last pod. The pods, replicas of 20 workloads, are made
// beforehand, so the figure is the scheduler's plus the ClusterState bind and unbind.
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
constexpr int kNodes = 1213;
constexpr size_t kResident = 18'000;  // bound pods in the steady state (about half the units)
constexpr size_t kPodStream = 1 << 16;

struct Pool {
  const char* name;
  const char* gpu;
  int nodes, cards, units;  // cards per node, gpu-mem units (GiB) per card
  int64_t cpu_milli, memory;
};

// 403 + 606 + 204 = 1 213 nodes.
const Pool kPools[] = {
    {"a100", "NVIDIA-A100-SXM4-80GB", 403, 8, 80, 96'000, 1024 * kGiB},
    {"t4", "Tesla-T4", 606, 2, 15, 32'000, 128 * kGiB},
    {"a10", "NVIDIA-A10", 204, 4, 22, 64'000, 256 * kGiB},
};

NodeSpec MakeNode(const Pool& pool, int index) {
  NodeSpec node;
  node.name = fmt::format("{}-{}", pool.name, index);
  const std::string zone = fmt::format("cn-hangzhou-{}", static_cast<char>('h' + index % 3));
  node.labels = {
      {"kubernetes.io/hostname", node.name},       {"topology.kubernetes.io/zone", zone},
      {"alibabacloud.com/nodepool-id", pool.name}, {"aliyun.accelerator/nvidia_name", pool.gpu},
      {"ack.node.gpu.schedule", "cgpu"},           {"ack.node.gpu.placement", "binpack"}};
  node.allocatable = {{"cpu", pool.cpu_milli},
                      {"memory", pool.memory},
                      {"pods", 110},
                      {kGpuMemResource, int64_t{pool.cards} * pool.units},
                      {kGpuCountResource, pool.cards}};
  node.capacity = node.allocatable;
  node.gpu_model = pool.gpu;
  node.gpu_cards = pool.cards;
  node.card_mem_units = pool.units;
  node.gpu_schedule = "cgpu";
  node.placement = "binpack";
  return node;
}

ClusterState MakeCluster() {
  ClusterState cluster;
  for (const Pool& pool : kPools) {
    for (int i = 0; i < pool.nodes; ++i) cluster.AddNode(MakeNode(pool, i));
  }
  return cluster;
}

// Replicas of `workloads` workloads, each with its own shape: 1-12 GiB of card memory, 1-4 cpu,
// 2-16 GiB memory; the next pod comes from a random workload.
std::vector<PodSpec> MakePods(bool zone_spread, int workloads = 20) {
  const int kWorkloads = workloads;
  RandomStream rng(1, "bench/placement/pods");
  std::vector<PodSpec> templates(kWorkloads);
  for (int w = 0; w < kWorkloads; ++w) {
    PodSpec& pod = templates[w];
    pod.labels = {{"app", fmt::format("w{}", w)}};
    const int units = 1 + static_cast<int>(rng.Below(12));
    const int64_t cpu = 1000 * (1 + static_cast<int64_t>(rng.Below(4)));
    const int64_t memory = 2 * kGiB * (1 + static_cast<int64_t>(rng.Below(8)));
    pod.requests = {{"cpu", cpu}, {"memory", memory}, {kGpuMemResource, units}};
    pod.nonzero_cpu_milli = cpu;
    pod.nonzero_memory_bytes = memory;
    pod.gpu_mem = units;
    pod.container_gpus = {{units, 0}};
    if (zone_spread) {
      TopologySpreadConstraint c;
      c.max_skew = 1;
      c.topology_key = "topology.kubernetes.io/zone";
      c.when_unsatisfiable = "DoNotSchedule";
      c.label_selector.match_labels = pod.labels;
      pod.topology_spread = {c};
    }
  }
  return bench::ReplicaStream(templates, kPodStream, rng);
}

// percentage: percentageOfNodesToScore; the default searches until 497 of the 1 213 nodes are
// feasible, 100 filters and scores every node.
void RunPlacement(benchmark::State& state, bool zone_spread, int workloads = 20,
                  int percentage = 0) {
  ClusterState cluster = MakeCluster();
  SchedulerConfig config;
  config.percentage_of_nodes_to_score = percentage;
  bench::RunSteadyPlacement(state, cluster, MakePods(zone_spread, workloads), kResident, config);
}

void BM_PlaceGpuShare(benchmark::State& state) {
  RunPlacement(state, false);
}
void BM_PlaceGpuShareZoneSpread(benchmark::State& state) {
  RunPlacement(state, true);
}

void BM_PlaceGpuShareAllScored(benchmark::State& state) {
  RunPlacement(state, false, 20, 100);
}

// Near the worst case for the equivalence cache: 2 000 workloads whose shapes take all 384
// combinations, more than the 64 pod classes it keeps, so most pods are evaluated afresh on
// every node.
void BM_PlaceGpuShareUncached(benchmark::State& state) {
  RunPlacement(state, false, 2000);
}

// A pod that fits nowhere on the 1 213 nodes (more card memory than any node has): its
// FailedScheduling message counts each node's rejection. While the cluster stays as it is, the
// pod's class reuses its last message; `changing` cordons and uncordons a node before each pod,
// so every cycle walks the nodes and counts their (cached) statuses.
void RunUnschedulable(benchmark::State& state, bool changing) {
  ClusterState cluster = MakeCluster();
  Scheduler scheduler(cluster, SchedulerConfig{});
  PodSpec pod = MakePods(false, 1).front();
  pod.requests[kGpuMemResource] = 1000;
  pod.gpu_mem = 1000;
  pod.container_gpus = {{1000, 0}};
  bool cordoned = false;
  for (auto _ : state) {
    if (changing) cluster.SetUnschedulable(0, cordoned = !cordoned);
    const ScheduleResult r = scheduler.Schedule(pod);
    benchmark::DoNotOptimize(r.message.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_UnschedulablePod(benchmark::State& state) {
  RunUnschedulable(state, false);
}
void BM_UnschedulablePodClusterChanging(benchmark::State& state) {
  RunUnschedulable(state, true);
}

BENCHMARK(BM_PlaceGpuShare)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlaceGpuShareAllScored)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlaceGpuShareZoneSpread)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlaceGpuShareUncached)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UnschedulablePod)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UnschedulablePodClusterChanging)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace knobsim
