// The NVIDIA device plugin's replica allocation on time-sliced / MPS nodes (card_placement.h
// PlaceReplicas), its admission check, and what binding does to the replicas (ClusterState).
// The allocation cases translate k8s-device-plugin internal/rm/allocate_test.go
// (TestDistributedAlloc, TestPackedAlloc,
// TestDistributedAlloc_PartiallyAllocated_DistributesAcrossDistinctGPUs) onto card indexes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {
namespace {

NodeState ReplicaNode(std::vector<int> used, int replicas, ReplicaAllocation allocation,
                      DeviceSharingStrategy strategy = DeviceSharingStrategy::kTimeSlicing) {
  NodeState node;
  node.spec.gpu_schedule = "default";
  node.spec.gpu_cards = static_cast<int>(used.size());
  node.spec.device_sharing = {strategy, replicas, false, allocation};
  for (int u : used) {
    CardState card;
    card.replicas = replicas;
    card.used_replicas = u;
    card.pods = u;
    node.cards.push_back(card);
  }
  return node;
}

PodSpec GpuPod(int n) {
  PodSpec pod;
  pod.whole_gpus = n;
  pod.container_whole_gpus_max = n;
  pod.requests[kNvidiaGpuResource] = n;
  return pod;
}

TEST_CASE(
    "device-plugin replica allocation (allocate_test.go TestDistributedAlloc, "
    "TestPackedAlloc)") {
  struct Case {
    const char* name;
    std::vector<int> used;
    int replicas;
    ReplicaAllocation allocation;
    int size;
    std::vector<int> cards;  // empty: does not fit
    std::vector<int> replicas_taken;
  };
  const auto D = ReplicaAllocation::kDistributed;
  const auto P = ReplicaAllocation::kPacked;
  const std::vector<Case> cases = {
      {"2 GPUs x 4, allocate 2: one from each", {0, 0}, 4, D, 2, {0, 1}, {1, 1}},
      {"3 GPUs x 2, allocate 3: one from each", {0, 0, 0}, 2, D, 3, {0, 1, 2}, {1, 1, 1}},
      {"2 GPUs x 4, allocate 4: two per GPU", {0, 0}, 4, D, 4, {0, 1}, {2, 2}},
      {"allocate 1 from a single GPU", {0}, 4, D, 1, {0}, {1}},
      {"not enough devices", {0}, 2, D, 5, {}, {}},
      {"gpu0 full: both from gpu1", {4, 0}, 4, D, 2, {1}, {2}},
      // TestDistributedAlloc_PartiallyAllocated_DistributesAcrossDistinctGPUs: GPU-1 has one of
      // its two replicas allocated; after one from GPU-0 both tie at 1 and the GPU this
      // allocation touched least (GPU-1) goes next.
      {"partially allocated: distinct GPUs", {0, 1}, 2, D, 2, {0, 1}, {1, 1}},
      {"distributed prefers the least allocated", {2, 1, 3}, 4, D, 1, {1}, {1}},
      {"2 GPUs x 4, packed, allocate 2: same GPU", {0, 0}, 4, P, 2, {0}, {2}},
      {"3 GPUs x 2, packed, allocate 3: fill one first", {0, 0, 0}, 2, P, 3, {0, 1}, {2, 1}},
      {"2 GPUs x 4, packed, allocate 4: single GPU", {0, 0}, 4, P, 4, {0}, {4}},
      {"packed prefers the most allocated", {1, 3, 0}, 4, P, 1, {1}, {1}},
      {"packed skips a full GPU", {4, 1}, 4, P, 1, {1}, {1}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const NodeState node = ReplicaNode(c.used, c.replicas, c.allocation);
    const CardPlacementResult r = PlaceOnCards(GpuPod(c.size), node, CardPolicy::kBinpack, 0);
    const CardFit fit = EvaluateCards(GpuPod(c.size), node, CardPolicy::kBinpack, 0);
    CHECK(fit.fits == !c.cards.empty());
    if (c.cards.empty()) {
      CHECK_FALSE(r.choice);
      CHECK(r.reason == "Insufficient nvidia.com/gpu");
      continue;
    }
    REQUIRE(r.choice);
    CHECK(r.choice->cards == c.cards);
    CHECK(r.choice->replicas == c.replicas_taken);
  }
}

TEST_CASE("binding counts replicas, never marks a shared card whole, and unbinding frees them") {
  ClusterState state;
  NodeSpec spec;
  spec.name = "l4-0";
  spec.gpu_cards = 2;
  spec.gpu_schedule = "default";
  spec.device_sharing = {DeviceSharingStrategy::kTimeSlicing, 4, false,
                         ReplicaAllocation::kDistributed};
  const int n = state.AddNode(spec);
  CHECK(state.node(n).cards[0].replicas == 4);
  const auto choice = PlaceOnCards(GpuPod(3), state.node(n), CardPolicy::kBinpack, 0).choice;
  REQUIRE(choice);
  Placement placement{n, choice->cards, choice->mem_units, choice->core_units, choice->replicas};
  const int pod = state.Bind(GpuPod(3), placement);
  CHECK(state.node(n).cards[0].used_replicas == 2);
  CHECK(state.node(n).cards[1].used_replicas == 1);
  CHECK_FALSE(state.node(n).cards[0].whole);
  // The next pod goes to the card with fewer replicas held.
  const auto next = PlaceOnCards(GpuPod(1), state.node(n), CardPolicy::kBinpack, 0).choice;
  REQUIRE(next);
  CHECK(next->cards == std::vector<int>{1});
  state.Unbind(pod);
  CHECK(state.node(n).cards[0].used_replicas == 0);
  CHECK(state.node(n).cards[1].used_replicas == 0);
}

TEST_CASE("an exported pod on a shared node takes replicas the plugin's way, in file order") {
  ClusterState state;
  NodeSpec spec;
  spec.name = "l4-0";
  spec.gpu_cards = 2;
  spec.device_sharing = {DeviceSharingStrategy::kMps, 2, true, ReplicaAllocation::kDistributed};
  state.AddNode(spec);
  for (int i = 0; i < 3; ++i) {
    PodSpec pod = GpuPod(1);
    pod.node_name = "l4-0";
    CHECK(state.BindExisting(pod) >= 0);
  }
  CHECK(state.node(0).cards[0].used_replicas == 2);
  CHECK(state.node(0).cards[1].used_replicas == 1);
}

TEST_CASE("CheckCardSet: a listed pod's replicas go over its listed cards in turn") {
  const NodeState node = ReplicaNode({3, 0}, 4, ReplicaAllocation::kDistributed);
  auto two_on_one = CheckCardSet(GpuPod(2), node, std::vector<int>{1}, 0);
  REQUIRE(two_on_one);
  CHECK(two_on_one->replicas == std::vector<int>{2});
  CHECK_FALSE(CheckCardSet(GpuPod(2), node, std::vector<int>{0}, 0));     // one replica free
  CHECK_FALSE(CheckCardSet(GpuPod(1), node, std::vector<int>{0, 1}, 0));  // more cards than asked
  auto spread = CheckCardSet(GpuPod(3), node, std::vector<int>{0, 1}, 0);
  CHECK_FALSE(spread);  // card 0 would take 2 of its 1 free
}

TEST_CASE("failRequestsGreaterThanOne: a container asking 2+ replicas fails admission") {
  struct Case {
    DeviceSharingStrategy strategy;
    bool fail_gt_one;
    int container_max;
    bool refused;
  };
  const std::vector<Case> cases = {
      {DeviceSharingStrategy::kTimeSlicing, false, 2, false},
      {DeviceSharingStrategy::kTimeSlicing, true, 2, true},
      {DeviceSharingStrategy::kTimeSlicing, true, 1, false},
      {DeviceSharingStrategy::kMps, true, 2, true},
      {DeviceSharingStrategy::kNone, true, 2, false},
  };
  for (const Case& c : cases) {
    NodeSpec node;
    node.device_sharing = {c.strategy, 4, c.fail_gt_one, ReplicaAllocation::kDistributed};
    PodSpec pod = GpuPod(2);
    pod.container_whole_gpus_max = c.container_max;
    const std::string why = DeviceAdmissionError(pod, node);
    CHECK(why.empty() == !c.refused);
    if (c.refused) {
      CHECK(why.find("maximum request size for shared resources is 1; found 2") !=
            std::string::npos);
    }
  }
}

}  // namespace
}  // namespace knobsim
