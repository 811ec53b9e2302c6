#include "sim/backtest/independent_parts.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include "sim/engine/simulation.h"
#include "sim/io/scenario_reader.h"

namespace knobsim::backtest {
namespace {

// Four cgpu nodes: `chat` and `embed` share card 0 of n0 (one group), `ocr` has n1 and n2,
// `rank` n3.
// Each pod is where the export saw it; the traffic is Poisson with exponential work, so a
// split that changed any draw or any order would show in every number.
constexpr const char* kFour = R"(
name: parts
node_pools:
  - name: gpu
    nodes: [n0, n1, n2, n3]
    gpu: A10
    gpus_per_node: 2
    cpu: 32
    memory: 128Gi
    labels: {ack.node.gpu.schedule: cgpu}
workloads:
  - name: chat
    replicas: 1
    gpu_mem: 8
    gpu_memory: {weights: 6Gi, activation: 256Mi}
    traffic: {rate: 30/s}
    work: {dist: exponential, mean: 20ms}
    pods: [{name: chat-0, node: n0, cards: [0]}]
  - name: ocr
    replicas: 2
    gpu_mem: 8
    gpu_memory: {weights: 6Gi, activation: 256Mi}
    traffic: {rate: 60/s}
    work: {dist: gamma, mean: 15ms, cv: 0.5}
    routing: least_outstanding
    pods: [{name: ocr-0, node: n1, cards: [0]}, {name: ocr-1, node: n2, cards: [1]}]
  - name: embed
    replicas: 1
    gpu_mem: 8
    gpu_memory: {weights: 6Gi, activation: 256Mi}
    traffic: {rate: 20/s}
    work: {dist: exponential, mean: 10ms}
    pods: [{name: embed-0, node: n0, cards: [0]}]
  - name: rank
    replicas: 1
    gpu_mem: 4
    gpu_memory: {weights: 2Gi, activation: 128Mi}
    traffic: {rate: 40/s}
    work: {dist: exponential, mean: 5ms}
    pods: [{name: rank-0, node: n3, cards: [0]}]
run: {duration: 10m, warmup: 0s, seed: 3}
)";

Scenario Four() {
  Expected<Scenario> s = ReadScenarioString(kFour, "parts.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().ToString()));
  return *s;
}

TEST_CASE("independent parts: workloads sharing a card are one group, groups balanced") {
  const Scenario s = Four();
  std::string why;
  const std::optional<ScenarioParts> parts = SplitIndependent(s, 8, &why);
  REQUIRE_MESSAGE(parts, why);
  // Three groups (chat+embed on n0, ocr, rank): the heaviest (ocr, 36 000 requests) first.
  REQUIRE(parts->workloads.size() == 3);
  CHECK(parts->workloads[0] == std::vector<int>{1});
  CHECK(parts->workloads[1] == std::vector<int>{0, 2});
  CHECK(parts->workloads[2] == std::vector<int>{3});
  CHECK(parts->part_of_card.at({"n0", 0}) == 1);
  CHECK(parts->part_of_card.at({"n2", 1}) == 0);
  CHECK(parts->node_order.at("n3") == 3);
  CHECK(parts->nodes[0] == std::vector<std::string>{"n1", "n2"});
  CHECK(parts->nodes[1] == std::vector<std::string>{"n0"});

  // Two parts: the lightest part takes the next group.
  const std::optional<ScenarioParts> two = SplitIndependent(s, 2, &why);
  REQUIRE(two);
  CHECK(two->workloads[0] == std::vector<int>{1});
  CHECK(two->workloads[1] == std::vector<int>{0, 2, 3});
  CHECK_FALSE(SplitIndependent(s, 1, &why));
}

TEST_CASE("independent parts: whatever could reach across groups refuses the split") {
  struct Case {
    const char* name;
    void (*change)(Scenario&);
    const char* why;
  };
  const Case cases[] = {
      {"an HPA", [](Scenario& s) { s.workloads[0].hpa.emplace(); }, "default/chat has an HPA"},
      {"a CronHPA", [](Scenario& s) { s.workloads[1].cron_hpa.emplace(); },
       "default/ocr has a CronHPA"},
      {"a replica the start did not place", [](Scenario& s) { s.workloads[1].pods.pop_back(); },
       "default/ocr has replicas the start did not place (not from PlacedAtStart)"},
      {"a replica not Ready", [](Scenario& s) { s.workloads[3].pods[0].ready = false; },
       "default/rank has a replica that is not Ready at the start"},
      {"spot reclaims", [](Scenario& s) { s.node_pools[0].spot.per_node_hour = 0.1; },
       "node pool gpu has spot reclaims"},
      {"an autoscaled pool", [](Scenario& s) { s.node_pools[0].autoscaling.emplace(); },
       "node pool gpu autoscales"},
      {"one group",
       [](Scenario& s) {
         for (Workload& w : s.workloads)
           for (CurrentPod& p : w.pods) p = {p.name, "n0", {0}, true, -1};
       },
       "every workload shares cards with the others"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Scenario s = Four();
    c.change(s);
    std::string why;
    CHECK_FALSE(SplitIndependent(s, 8, &why));
    CHECK(why == c.why);
  }
}

void CheckSameTimeline(const RunTimeline& a, const RunTimeline& b) {
  REQUIRE(a.workloads.size() == b.workloads.size());
  for (size_t w = 0; w < a.workloads.size(); ++w) {
    CAPTURE(a.workloads[w].name);
    REQUIRE(a.workloads[w].points.size() == b.workloads[w].points.size());
    for (size_t k = 0; k < a.workloads[w].points.size(); ++k) {
      const TimelinePoint& x = a.workloads[w].points[k];
      const TimelinePoint& y = b.workloads[w].points[k];
      CHECK(x.arrivals == y.arrivals);
      CHECK(x.completed == y.completed);
      // Bit for bit: the same draws in the same order give the same sums.
      CHECK(x.latency_mean_ms == y.latency_mean_ms);
      CHECK(x.latency_p99_ms == y.latency_p99_ms);
      CHECK(x.queue_wait_mean_ms == y.queue_wait_mean_ms);
      CHECK(x.latency_at_or_below == y.latency_at_or_below);
      CHECK(x.pending_mean == y.pending_mean);
      CHECK(x.pending_max == y.pending_max);
    }
  }
  REQUIRE(a.cards.size() == b.cards.size());
  for (size_t c = 0; c < a.cards.size(); ++c) {
    CAPTURE(a.cards[c].node);
    CHECK(a.cards[c].node == b.cards[c].node);
    CHECK(a.cards[c].index == b.cards[c].index);
    REQUIRE(a.cards[c].points.size() == b.cards[c].points.size());
    for (size_t k = 0; k < a.cards[c].points.size(); ++k) {
      CHECK(a.cards[c].points[k].busy == b.cards[c].points[k].busy);
      CHECK(a.cards[c].points[k].effective == b.cards[c].points[k].effective);
      CHECK(a.cards[c].points[k].memory_peak_mib == b.cards[c].points[k].memory_peak_mib);
    }
  }
}

// Four, and what a real export adds: a service on the other card of n0 (a group of its own
// beside chat and embed), a replica the export shows nowhere (the scheduler places it at the
// start), one that fits nowhere (Pending all run long, its requests fail), and a node no pod
// runs on.
Scenario FourAndTheRest() {
  Scenario s = Four();
  s.node_pools[0].nodes.push_back({"n4", "", {}});
  s.node_pools[0].count = 5;
  Workload side = s.workloads[0];
  side.name = "side";
  side.pods = {{"side-0", "n0", {1}, true, -1}};
  s.workloads.push_back(side);
  Workload batch = s.workloads[3];
  batch.name = "batch";
  batch.pods.clear();
  s.workloads.push_back(batch);
  Workload huge = s.workloads[3];
  huge.name = "huge";
  huge.gpu_mem = 200;
  huge.pods.clear();
  s.workloads.push_back(huge);
  return s;
}

TEST_CASE("independent parts: the parts' runs merged are the whole's run, number for number") {
  const Scenario whole = FourAndTheRest();
  RunOptions options;
  options.timeline_step = 60 * kNanosPerSecond;
  options.timeline_latency_bounds_ms = {{10, 25, 50, 100}, {},  {10, 25}, {5, 50},
                                        {5, 20},           {5}, {5}};
  const RunResult reference = Simulate(whole, 11, options);

  const Scenario placed = PlacedAtStart(whole, 11);
  REQUIRE(placed.workloads[5].pods.size() == 1);
  CHECK_FALSE(placed.workloads[5].pods[0].node.empty());  // batch: the scheduler's choice
  CHECK_FALSE(placed.workloads[5].pods[0].cards.empty());
  CHECK(placed.workloads[6].pods.at(0).node.empty());  // huge: Pending
  for (int max_parts : {2, 3, 8}) {
    CAPTURE(max_parts);
    const std::optional<ScenarioParts> parts = SplitIndependent(placed, max_parts, nullptr);
    REQUIRE(parts);
    std::vector<RunResult> runs;
    for (size_t k = 0; k < parts->workloads.size(); ++k) {
      const Scenario part = PartScenario(placed, *parts, static_cast<int>(k));
      RunOptions own = options;
      own.timeline_latency_bounds_ms.clear();
      for (int wi : parts->workloads[k])
        own.timeline_latency_bounds_ms.push_back(options.timeline_latency_bounds_ms[wi]);
      runs.push_back(Simulate(part, 11, own));
      CHECK(PodsStayed(part, runs.back()));
      KeepOwnCards(*parts, static_cast<int>(k), runs.back().timeline);
    }
    CheckSameTimeline(MergePartTimelines(whole, *parts, runs), reference.timeline);
  }
}

TEST_CASE("independent parts: a part holds its nodes and the other groups' pods on them") {
  const Scenario placed = PlacedAtStart(FourAndTheRest(), 11);
  const std::optional<ScenarioParts> parts = SplitIndependent(placed, 8, nullptr);
  REQUIRE(parts);
  std::set<std::string> all;
  bool side_seen = false;
  for (size_t k = 0; k < parts->workloads.size(); ++k) {
    const Scenario part = PartScenario(placed, *parts, static_cast<int>(k));
    CHECK(part.variants.empty());
    for (const NodePool& pool : part.node_pools) {
      CHECK(pool.count == static_cast<int>(pool.nodes.size()));
      for (const PoolNode& node : pool.nodes) all.insert(node.name);
    }
    // Its own workloads first, then the residents: no traffic, only the pods on its nodes.
    const size_t own = parts->workloads[k].size();
    for (size_t i = 0; i < part.workloads.size(); ++i) {
      const Workload& w = part.workloads[i];
      CHECK(w.replicas == static_cast<int>(w.pods.size()));
      if (i >= own) CHECK(w.traffic.kind == ArrivalKind::kNone);
    }
    if (part.workloads.front().name == "side") {
      side_seen = true;
      REQUIRE(part.workloads.size() >= 3);
      CHECK(part.workloads[1].name == "chat");  // chat and embed share card 0 of n0
      CHECK(part.workloads[2].name == "embed");
    }
  }
  CHECK(side_seen);
  CHECK(all == std::set<std::string>{"n0", "n1", "n2", "n3", "n4"});
  CHECK(parts->first_part_of_node.at("n4") == 0);
}

TEST_CASE("independent parts: a pod that did not stay where it started fails the check") {
  const Scenario s = Four();
  CHECK(PodsStayed(s, Simulate(s, 1)));
  // Written as Pending, but it fits: the run places it.
  Scenario pending = s;
  pending.workloads[3].pods[0].node.clear();
  CHECK_FALSE(PodsStayed(pending, Simulate(pending, 1)));
  // Written on a node that does not exist: the scheduler places it elsewhere.
  Scenario moved = s;
  moved.workloads[3].pods[0].node = "n9";
  CHECK_FALSE(PodsStayed(moved, Simulate(moved, 1)));
}

}  // namespace
}  // namespace knobsim::backtest
