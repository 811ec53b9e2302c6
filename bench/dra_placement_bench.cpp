// DRA placement throughput of the Scheduler (issue 20): 1 000 nodes of 8 H100s each, published as
// the NVIDIA DRA driver does (one ResourceSlice per node, its pool named after the node, each GPU
// a device with the driver's attributes and its memory as capacity), the driver's DeviceClass
// `gpu.nvidia.com` with its CEL selector, and a stream of pods each asking for GPUs through a
// ResourceClaimTemplate (most one GPU, some two on the same kind of card: a matchAttribute
// constraint), scheduled, allocated and bound one by one. The goal is >= 5 000 pods/s; upstream's
// scheduler_perf DRA thresholds are 40-70 pods/s at 500 nodes.
//
// As in placement_bench, the cluster is kept in a steady state about half full: once
// `kResident` pods are bound, each bind is followed by the unbind of the oldest pod (its claim
// deallocated and deleted, as the resourceclaim controller does), so free devices are scattered
// over every node.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/steady_placement.h"
#include "sim/random_stream.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/dra/dra_catalog.h"
#include "sim/scheduler/dra/nvidia_gpu_devices.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

constexpr int kNodes = 1000;
constexpr int kGpusPerNode = 8;
constexpr size_t kResident = 3600;  // about half of the 8 000 GPUs held (10 % of pods take two)
constexpr size_t kPodStream = 1 << 16;

ClusterState MakeCluster() {
  ClusterState cluster;
  std::vector<ResourceSliceSpec> slices;
  for (int i = 0; i < kNodes; ++i) {
    NodeSpec node;
    node.name = fmt::format("h100-{}", i);
    const std::string zone = fmt::format("us-east-1{}", static_cast<char>('a' + i % 3));
    node.labels = {{"kubernetes.io/hostname", node.name},
                   {"topology.kubernetes.io/zone", zone},
                   {"nvidia.com/gpu.present", "true"}};
    node.allocatable = {{"cpu", 192'000}, {"memory", int64_t{2048} << 30}, {"pods", 110}};
    node.capacity = node.allocatable;
    slices.push_back(dra::NvidiaGpuSlice(node.name, kGpusPerNode, "NVIDIA H100 80GB HBM3", 81559));
    cluster.AddNode(std::move(node));
  }
  const DeviceClassSpec gpu = dra::NvidiaGpuClass();
  ResourceClaimTemplateSpec one;
  one.name = "one-gpu";
  DraRequest& r1 = one.spec.requests.emplace_back();
  r1.name = "gpu";
  r1.exactly.emplace();
  r1.exactly->name = "gpu";
  r1.exactly->device_class_name = "gpu.nvidia.com";
  ResourceClaimTemplateSpec two = one;
  two.name = "two-gpus";
  two.spec.requests[0].exactly->count = 2;
  two.spec.requests[0].exactly->selectors = {
      "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"};
  two.spec.constraints.emplace_back().match_attribute = "gpu.nvidia.com/productName";
  cluster.SetDra(DraCatalog(std::move(slices), {gpu}, {}, {one, two}));
  return cluster;
}

// Replicas of 20 workloads: 2 of them ask for two GPUs, the others for one; 4-16 cpu each.
std::vector<PodSpec> MakePods() {
  constexpr int kWorkloads = 20;
  RandomStream rng(1, "bench/dra_placement/pods");
  std::vector<PodSpec> templates(kWorkloads);
  for (int w = 0; w < kWorkloads; ++w) {
    PodSpec& pod = templates[w];
    pod.labels = {{"app", fmt::format("w{}", w)}};
    const int64_t cpu = 4000 * (1 + static_cast<int64_t>(rng.Below(4)));
    pod.requests = {{"cpu", cpu}, {"memory", int64_t{32} << 30}};
    pod.nonzero_cpu_milli = cpu;
    pod.nonzero_memory_bytes = int64_t{32} << 30;
    PodResourceClaim& claim = pod.resource_claims.emplace_back();
    claim.name = "gpu";
    claim.resource_claim_template_name = w < 2 ? "two-gpus" : "one-gpu";
  }
  return bench::ReplicaStream(templates, kPodStream, rng);
}

void BM_PlaceDraClaims(benchmark::State& state) {
  ClusterState cluster = MakeCluster();
  bench::RunSteadyPlacement(state, cluster, MakePods(), kResident);
}

BENCHMARK(BM_PlaceDraClaims)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace knobsim
