#include "sim/variant.h"

#include <doctest/doctest.h>

#include <set>

namespace knobsim {
namespace {

Scenario TwoPoolsTwoWorkloads() {
  Scenario s;
  s.name = "test";
  NodePool l20;
  l20.name = "gpu-l20";
  l20.count = 4;
  l20.gpu_type = "L20";
  l20.gpus_per_node = 1;
  l20.labels = {{"ack.node.gpu.schedule", "cgpu"}, {"cgpu.disable.isolation", "true"}};
  l20.schedule = GpuSchedule::kCgpu;
  l20.cgpu_active = false;
  l20.isolation = MemoryIsolation::kSoft;
  NodePool share = l20;
  share.name = "gpu-share";
  share.labels = {{"ack.node.gpu.schedule", "share"}};
  share.schedule = GpuSchedule::kShare;
  NodePool cpu;
  cpu.name = "cpu";
  cpu.schedule = GpuSchedule::kDefault;
  cpu.cgpu_active = false;
  cpu.isolation = MemoryIsolation::kSoft;
  s.node_pools = {l20, share, cpu};

  Workload ocr;
  ocr.name = "ocr";
  ocr.gpu_mem = 4;
  ocr.replicas = 2;
  ocr.traffic.kind = ArrivalKind::kPoisson;
  ocr.traffic.rate = 20;
  ocr.traffic.scale = 2;
  Workload web;
  web.name = "web";
  web.replicas = 3;
  s.workloads = {ocr, web};
  return s;
}

TEST_CASE("an empty variant changes nothing") {
  const Scenario base = TwoPoolsTwoWorkloads();
  Scenario s = ApplyVariant(base, Variant{});
  CHECK(s.cluster.policy == base.cluster.policy);
  CHECK(s.node_pools[0].labels == base.node_pools[0].labels);
  CHECK(s.workloads[0].gpu_mem == 4);
  CHECK(s.workloads[0].traffic.scale == 2);
}

TEST_CASE("cluster knobs replace the base values") {
  Variant v;
  v.policy = SharingPolicy::kFixedEqual;
  v.max_inst = 4;
  v.switch_overhead = 0.1;
  Scenario s = ApplyVariant(TwoPoolsTwoWorkloads(), v);
  CHECK(s.cluster.policy == SharingPolicy::kFixedEqual);
  CHECK(s.cluster.max_inst == 4);
  CHECK(s.cluster.switch_overhead == 0.1);
}

TEST_CASE("placement sets the pool field and the node label ack.node.gpu.placement") {
  Variant v;
  v.placement = {{"gpu-l20", "spread"}};
  Scenario s = ApplyVariant(TwoPoolsTwoWorkloads(), v);
  CHECK(s.node_pools[0].placement == "spread");
  CHECK(s.node_pools[0].labels.at("ack.node.gpu.placement") == "spread");
  CHECK(s.node_pools[1].placement.empty());
}

TEST_CASE("a named entry wins over the star entry, and a star placement skips CPU-only pools") {
  Variant v;
  v.placement = {{"*", "spread"}, {"gpu-share", "binpack"}};
  Scenario s = ApplyVariant(TwoPoolsTwoWorkloads(), v);
  CHECK(s.node_pools[0].placement == "spread");
  CHECK(s.node_pools[1].placement == "binpack");
  CHECK(s.node_pools[2].placement.empty());
  CHECK(s.node_pools[2].labels.count("ack.node.gpu.placement") == 0);
}

TEST_CASE("hard isolation turns the cGPU module on and drops cgpu.disable.isolation") {
  Variant v;
  v.memory_isolation = {{"*", MemoryIsolation::kHard}};
  Scenario s = ApplyVariant(TwoPoolsTwoWorkloads(), v);
  CHECK(s.node_pools[0].isolation == MemoryIsolation::kHard);
  CHECK(s.node_pools[0].cgpu_active);
  CHECK(s.node_pools[0].labels.count("cgpu.disable.isolation") == 0);
  SUBCASE("pools without a cGPU module stay soft") {
    CHECK(s.node_pools[1].isolation == MemoryIsolation::kSoft);
    CHECK_FALSE(s.node_pools[1].cgpu_active);
    CHECK(s.node_pools[2].isolation == MemoryIsolation::kSoft);
  }
}

TEST_CASE("soft isolation on an active module is the buggy module: cgpu_active stays true") {
  Scenario base = TwoPoolsTwoWorkloads();
  base.node_pools[0].cgpu_active = true;
  base.node_pools[0].isolation = MemoryIsolation::kHard;
  Variant v;
  v.memory_isolation = {{"gpu-l20", MemoryIsolation::kSoft}};
  Scenario s = ApplyVariant(base, v);
  CHECK(s.node_pools[0].isolation == MemoryIsolation::kSoft);
  CHECK(s.node_pools[0].cgpu_active);
}

TEST_CASE("node_count sets the pool size") {
  Variant v;
  v.node_count = {{"gpu-l20", 6}};
  Scenario s = ApplyVariant(TwoPoolsTwoWorkloads(), v);
  CHECK(s.node_pools[0].count == 6);
  CHECK(s.node_pools[1].count == 4);
}

TEST_CASE("workload knobs replace quota, cores, replicas and spread constraints") {
  Variant v;
  v.gpu_mem = {{"ocr", 23}};
  v.gpu_core = {{"ocr", 50}};
  v.replicas = {{"ocr", 3}, {"web", 0}};
  TopologySpreadConstraint zone;
  zone.topology_key = "topology.kubernetes.io/zone";
  zone.label_selector.match_labels = {{"app", "ocr"}};
  v.topology_spread = {{"ocr", {zone}}};
  Scenario s = ApplyVariant(TwoPoolsTwoWorkloads(), v);
  CHECK(s.workloads[0].gpu_mem == 23);
  CHECK(s.workloads[0].gpu_core == 50);
  CHECK(s.workloads[0].replicas == 3);
  CHECK(s.workloads[1].replicas == 0);
  REQUIRE(s.workloads[0].topology_spread.size() == 1);
  CHECK(s.workloads[0].topology_spread[0].topology_key == "topology.kubernetes.io/zone");
  CHECK(s.workloads[1].topology_spread.empty());
}

TEST_CASE("a star quota reaches only workloads that share GPUs") {
  Variant v;
  v.gpu_mem = {{"*", 8}};
  v.gpu_core = {{"*", 30}};
  Scenario s = ApplyVariant(TwoPoolsTwoWorkloads(), v);
  CHECK(s.workloads[0].gpu_mem == 8);
  CHECK(s.workloads[0].gpu_core == 30);
  CHECK(s.workloads[1].gpu_mem == 0);
  CHECK(s.workloads[1].gpu_core == 0);
}

TEST_CASE("traffic_scale multiplies the workload's own scale") {
  Variant v;
  v.traffic_scale = {{"*", 1.5}};
  Scenario s = ApplyVariant(TwoPoolsTwoWorkloads(), v);
  CHECK(s.workloads[0].traffic.scale == 3.0);
  CHECK(s.workloads[1].traffic.scale == 1.5);
  CHECK(s.workloads[0].traffic.rate == 20);  // the rate itself is untouched
}

TEST_CASE("replication 0 runs on the seed itself, later ones on well-mixed seeds") {
  CHECK(ReplicationSeed(42, 0) == 42);
  CHECK(ReplicationSeed(42, 1) != 42);
  CHECK(ReplicationSeed(42, 1) == ReplicationSeed(42, 1));
  std::set<uint64_t> seen;
  for (uint64_t seed : {0ULL, 1ULL, 2ULL}) {
    for (int r = 0; r < 100; ++r) seen.insert(ReplicationSeed(seed, r));
  }
  CHECK(seen.size() == 300);
  // splitmix64's first output from state 0 (the published reference value).
  CHECK(ReplicationSeed(0, 1) == 0xE220A8397B1DCDAFULL);
}

}  // namespace
TEST_CASE("current pods stay through knobs that do not recreate them, and go with those that do") {
  Scenario base = TwoPoolsTwoWorkloads();
  base.workloads[0].pods = {{"ocr-a", "gpu-l20-0", {0}}, {"ocr-b", "gpu-share-1", {0}}};
  Variant policy;
  policy.policy = SharingPolicy::kPreemptive;
  CHECK(ApplyVariant(base, policy).workloads[0].pods.size() == 2);
  Variant quota;
  quota.gpu_mem = {{"ocr", 6}};
  CHECK(ApplyVariant(base, quota).workloads[0].pods.empty());
  Variant spread;
  spread.placement = {{"gpu-l20", "spread"}};  // only the pod on that pool moves
  const Scenario moved = ApplyVariant(base, spread);
  REQUIRE(moved.workloads[0].pods.size() == 1);
  CHECK(moved.workloads[0].pods[0].name == "ocr-b");
  Variant fewer;
  fewer.replicas = {{"ocr", 1}};
  CHECK(ApplyVariant(base, fewer).workloads[0].pods.size() == 1);
}

TEST_CASE("per-pod counts follow their pod's replica ordinal through a variant") {
  Scenario base = TwoPoolsTwoWorkloads();
  base.workloads[0].pods = {{"ocr-a", "gpu-l20-0", {0}}, {"ocr-b", "gpu-share-1", {0}}};
  base.workloads[0].traffic.kind = ArrivalKind::kCounts;
  base.workloads[0].traffic.counts.per_pod = {{"ocr-a", 0, {1}}, {"ocr-b", 1, {2}}};
  const auto ordinals = [](const Scenario& s) {
    std::vector<int> out;
    for (const PodCounts& p : s.workloads[0].traffic.counts.per_pod) out.push_back(p.replica);
    return out;
  };
  Variant policy;  // the pods stay: so do the ordinals
  policy.policy = SharingPolicy::kPreemptive;
  CHECK(ordinals(ApplyVariant(base, policy)) == std::vector<int>{0, 1});
  Variant quota;  // a rollout: each new pod takes its predecessor's ordinal
  quota.gpu_mem = {{"ocr", 6}};
  CHECK(ordinals(ApplyVariant(base, quota)) == std::vector<int>{0, 1});
  Variant spread;  // ocr-a moves: ocr-b is replica 0 now, ocr-a's new pod replica 1
  spread.placement = {{"gpu-l20", "spread"}};
  CHECK(ordinals(ApplyVariant(base, spread)) == std::vector<int>{1, 0});
  Variant fewer;  // ocr-b's ordinal has no pod any more: its requests go to the Service
  fewer.replicas = {{"ocr", 1}};
  CHECK(ordinals(ApplyVariant(base, fewer)) == std::vector<int>{0, 1});
}

}  // namespace knobsim
