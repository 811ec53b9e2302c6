#include "sim/scheduler/hami_devices.h"

#include <doctest/doctest.h>

#include <numeric>
#include <string>
#include <vector>

#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

// HAMi's DeviceUsage as a CardState: Count, Used, Totalmem, Usedmem, Totalcore, Usedcores.
CardState Usage(int count, int used, int totalmem, int usedmem, int totalcore, int usedcores) {
  CardState c;
  c.replicas = count;
  c.used_replicas = used;
  c.total_mem = totalmem;
  c.used_mem = usedmem;
  c.total_core = totalcore;
  c.used_core = usedcores;
  return c;
}

HamiRequest Request(int nums, int64_t memreq, int percent, int cores) {
  HamiRequest r;
  r.vgpus = nums;
  r.mem_mib = memreq;
  r.mem_percent = percent;
  r.cores = cores;
  return r;
}

PodSpec HamiPod(HamiRequest r) {
  PodSpec pod;
  pod.name = "p";
  pod.hami.push_back(r);
  return pod;
}

NodeSpec HamiNode(const std::string& name, int cards, int split = 10, int devmem = 24576) {
  NodeSpec n;
  n.name = name;
  n.gpu_model = "NVIDIA-L4";
  n.gpu_cards = cards;
  n.hami = {split, devmem, 100, HamiCorePolicy::kDefault, {}};
  n.allocatable["cpu"] = 32000;
  n.allocatable["memory"] = int64_t{128} << 30;
  n.allocatable["pods"] = 110;
  n.capacity = n.allocatable;
  return n;
}

}  // namespace

// Translated from HAMi pkg/device/nvidia/device_test.go TestDevices_Fit (v2.10.0): the cards in
// the order given, walked from the end. Left out: the type, UUID and health cases (knobsim reads
// no request type, no card UUIDs and no unhealthy cards).
TEST_CASE("HAMi Fit: upstream TestDevices_Fit") {
  struct Case {
    const char* name;
    std::vector<CardState> devices;
    HamiRequest request;
    bool fit;
    std::vector<int> cards;  // indexes taken
    std::string reason;
  };
  const Case cases[] = {
      {"fit success",
       {Usage(100, 0, 128, 0, 100, 0), Usage(100, 0, 128, 0, 100, 0)},
       Request(1, 64, 0, 50),
       true,
       {1},
       ""},
      {"fit fail: memory not enough",
       {Usage(100, 0, 128, 0, 100, 0)},
       Request(1, 512, 0, 50),
       false,
       {},
       "1/1 CardInsufficientMemory"},
      {"fit fail: core not enough",
       {Usage(100, 0, 1024, 0, 100, 100)},
       Request(1, 512, 0, 50),
       false,
       {},
       "1/1 CardInsufficientCore"},
      {"fit fail: card overused",
       {Usage(100, 100, 1280, 0, 100, 0)},
       Request(1, 512, 0, 50),
       false,
       {},
       "1/1 CardTimeSlicingExhausted"},
      {"fit success: but core limit can't exceed 100",
       {Usage(100, 0, 1280, 0, 100, 0)},
       Request(1, 512, 0, 120),
       true,
       {0},
       ""},
      {"fit fail:  card exclusively",
       {Usage(100, 20, 1280, 0, 100, 0)},
       Request(1, 512, 0, 100),
       false,
       {},
       "1/1 ExclusiveDeviceAllocateConflict"},
      {"fit fail:  CardComputeUnitsExhausted",
       {Usage(100, 20, 1280, 0, 100, 100)},
       Request(1, 512, 0, 0),
       false,
       {},
       "1/1 CardComputeUnitsExhausted"},
      {"fit fail:  AllocatedCardsInsufficientRequest",
       {Usage(100, 20, 1280, 0, 100, 10)},
       Request(2, 512, 0, 20),
       false,
       {},
       "1/1 AllocatedCardsInsufficientRequest"},
      {"fit fail: partial allocation AllocatedCardsInsufficientRequest for multiple cards",
       {Usage(100, 0, 1280, 0, 100, 0), Usage(100, 0, 1280, 0, 100, 0)},
       Request(3, 512, 0, 20),
       false,
       {},
       "2/2 AllocatedCardsInsufficientRequest"},
      {"fit success:  memory percentage",
       {Usage(100, 20, 1280, 0, 100, 10)},
       Request(1, 0, 10, 20),
       true,
       {0},
       ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    std::vector<int> order(c.devices.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<HamiDevice> taken;
    const std::string reason =
        FitHamiContainer(HamiPod(c.request), "NVIDIA-L4", c.request, c.devices, order, taken);
    CHECK(reason.empty() == c.fit);
    CHECK(reason == c.reason);
    if (c.fit) {
      std::vector<int> cards;
      for (const HamiDevice& d : taken) cards.push_back(d.card);
      CHECK(cards == c.cards);
    }
  }
}

TEST_CASE("HAMi Fit: memory percentage of the card's devmem, cores clamped at 100") {
  std::vector<CardState> cards = {Usage(10, 0, 24000, 0, 100, 0)};
  std::vector<HamiDevice> taken;
  const HamiRequest r = Request(1, 0, 25, 130);
  CHECK(FitHamiContainer(HamiPod(r), "NVIDIA-L4", r, cards, std::vector<int>{0}, taken).empty());
  REQUIRE(taken.size() == 1);
  CHECK(taken[0].mem_mib == 6000);
  CHECK(taken[0].cores == 100);
}

TEST_CASE("HAMi Fit: nvidia.com/use-gputype and nouse-gputype match card types by substring") {
  struct Case {
    const char* use;
    const char* nouse;
    bool fit;
  };
  const Case cases[] = {
      {"", "", true},    {"L4", "", true},         {"a100,l4", "", true},   {"A100", "", false},
      {"", "L4", false}, {"", "A100, H100", true}, {"NVIDIA", "L4", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.use);
    CAPTURE(c.nouse);
    PodSpec pod = HamiPod(Request(1, 1000, 100, 0));
    if (*c.use) pod.annotations[kHamiUseTypeAnnotation] = c.use;
    if (*c.nouse) pod.annotations[kHamiNoUseTypeAnnotation] = c.nouse;
    std::vector<HamiDevice> taken;
    const std::string reason =
        FitHamiContainer(pod, "NVIDIA-L4", pod.hami[0], {Usage(10, 0, 24000, 0, 100, 0)},
                         std::vector<int>{0}, taken);
    CHECK(reason.empty() == c.fit);
    if (!c.fit) CHECK(reason == "1/1 CardTypeMismatch");
  }
}

TEST_CASE("HAMi card score: 10 × (Used/Count + Usedcores/Totalcore + Usedmem/Totalmem)") {
  CHECK(HamiCardScore(Usage(10, 0, 24000, 0, 100, 0)) == 0.0f);
  CHECK(HamiCardScore(Usage(10, 2, 24000, 6000, 100, 30)) ==
        doctest::Approx(10 * (0.2 + 0.3 + 0.25)));
  CHECK(HamiCardScore(Usage(10, 2, 0, 0, 100, 30)) == 0.0f);  // a zero total scores 0
}

TEST_CASE(
    "HAMi card order: spread tries the emptiest card, binpack the fullest; ties the highest "
    "index first") {
  ClusterState cluster;
  NodeSpec spec = HamiNode("n", 3);
  const int n = cluster.AddNode(spec);
  // Card 1 holds a 1-core pod: spread avoids it, binpack takes it.
  PodSpec first = HamiPod(Request(1, 1000, 100, 10));
  Placement on1;
  on1.node = n;
  on1.cards = {1};
  on1.mem_units = {1000};
  on1.core_units = {10};
  on1.replicas = {1};
  cluster.Bind(first, on1);
  struct Case {
    const char* policy;  // hami.io/gpu-scheduler-policy; empty: the default (spread)
    int card;
  };
  // mutex: idle cards only, the fewest vGPUs held first (descending Used, walked from the end).
  const Case cases[] = {{"", 2}, {"spread", 2}, {"binpack", 1}, {"mutex", 2}};
  for (const Case& c : cases) {
    CAPTURE(c.policy);
    PodSpec pod = HamiPod(Request(1, 1000, 100, 10));
    if (*c.policy) pod.annotations[kHamiGpuPolicyAnnotation] = c.policy;
    const HamiFit fit = FitHamiPod(pod, cluster.node(n));
    REQUIRE(fit.fits);
    CHECK(fit.containers[0][0].card == c.card);
  }
}

TEST_CASE("HAMi mutex: a card holding any vGPU is ExclusiveDeviceAllocateConflict") {
  std::vector<CardState> cards = {Usage(10, 1, 24000, 1000, 100, 10),
                                  Usage(10, 0, 24000, 0, 100, 0)};
  PodSpec pod = HamiPod(Request(2, 1000, 100, 10));
  pod.annotations[kHamiGpuPolicyAnnotation] = "mutex";
  std::vector<HamiDevice> taken;
  CHECK(FitHamiContainer(pod, "NVIDIA-L4", pod.hami[0], cards, std::vector<int>{0, 1}, taken) ==
        "1/2 AllocatedCardsInsufficientRequest, 1/2 ExclusiveDeviceAllocateConflict");
}

TEST_CASE("HAMi: a container's vGPUs on distinct cards, the next container sees them") {
  ClusterState cluster;
  const int n = cluster.AddNode(HamiNode("n", 2));
  PodSpec pod = HamiPod(Request(2, 20000, 100, 0));
  pod.hami.push_back(Request(1, 4000, 100, 0));  // a second container: 4000 MiB left on each
  const HamiFit fit = FitHamiPod(pod, cluster.node(n));
  REQUIRE(fit.fits);
  CHECK(fit.containers[0].size() == 2);
  CHECK(fit.containers[0][0].card != fit.containers[0][1].card);
  const Placement p = HamiPlacement(n, fit);
  CHECK(p.cards.size() == 2);
  int vgpus = 0;
  for (int r : p.replicas) vgpus += r;
  CHECK(vgpus == 3);
  // Three vGPUs of one container need three cards.
  const HamiFit three = FitHamiPod(HamiPod(Request(3, 1000, 100, 0)), cluster.node(n));
  CHECK(!three.fits);
  CHECK(three.reason == "NodeInsufficientDevice");
}

TEST_CASE(
    "HAMi node choice: binpack the highest node score, spread the lowest, ties the lowest "
    "index") {
  ClusterState cluster;
  for (const char* name : {"a", "b", "c"}) cluster.AddNode(HamiNode(name, 2));
  Placement on_b;
  on_b.node = 1;
  on_b.cards = {0};
  on_b.mem_units = {12288};
  on_b.core_units = {50};
  on_b.replicas = {1};
  cluster.Bind(HamiPod(Request(1, 12288, 100, 50)), on_b);
  // b: 10 × (1/20 + 50/200 + 12288/49152) = 5.5
  CHECK(HamiNodeScore(cluster.node(1)) == doctest::Approx(5.5));
  const std::vector<int> all = {0, 1, 2};
  PodSpec pod = HamiPod(Request(1, 1000, 100, 0));
  CHECK(ChooseHamiNode(pod, cluster, all) == 1);
  pod.annotations[kHamiNodePolicyAnnotation] = "spread";
  CHECK(ChooseHamiNode(pod, cluster, all) == 0);
}

TEST_CASE("HAMi through the scheduler: the extender's node, its cards, and its reasons") {
  ClusterState cluster;
  cluster.AddNode(HamiNode("a", 1, 2, 24000));
  cluster.AddNode(HamiNode("b", 1, 2, 24000));
  NodeSpec plain = HamiNode("plain", 1);
  plain.hami = {};
  cluster.AddNode(plain);
  Scheduler scheduler(cluster, SchedulerConfig{});
  // Binpack (the default node policy): the second pod joins the first one's node.
  const ScheduleResult first = scheduler.ScheduleAndBind(HamiPod(Request(1, 10000, 100, 30)));
  REQUIRE(first.placement.node == 0);
  CHECK(first.placement.cards == std::vector<int>{0});
  CHECK(first.placement.mem_units == std::vector<int>{10000});
  const ScheduleResult second =
      scheduler.ScheduleAndBind(HamiPod(Request(1, 10000, 100, 30)), /*explain=*/true);
  CHECK(second.placement.node == 0);
  CHECK(second.feasible == 1);
  // --explain: b passed every filter but the extender chose a; plain is not HAMi's.
  REQUIRE(second.explain.size() == 3);
  CHECK(second.explain[0].feasible());
  CHECK(second.explain[1].failed_plugin == "hami-scheduler");
  CHECK(second.explain[1].status.reasons.at(0) == "HAMi's node policy chose node a");
  CHECK(second.explain[2].status.reasons.at(0) == "node unregistered");
  // Node a's card has no slot left (split 2), b's has too little memory for 20000 MiB.
  const ScheduleResult third = scheduler.Schedule(HamiPod(Request(1, 30000, 100, 0)));
  CHECK(third.placement.node == -1);
  CHECK(third.message ==
        "0/3 nodes are available: 1 1/1 CardInsufficientMemory, 1 1/1 CardTimeSlicingExhausted, "
        "1 node unregistered. preemption: 0/3 nodes are available: 3 No preemption victims "
        "found for incoming pod.");
}

}  // namespace knobsim
