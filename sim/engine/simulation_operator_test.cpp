// The run under a ClusterOperator (sim/engine/cluster_control.h): what Kubernetes' controllers do
// when pods are deleted, nodes cordoned, taken down and brought back, and the timeline it records.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/simulation.h"

namespace knobsim {
namespace {

// Runs `steps` at their times; remembers the pods it heard were gone.
class ScriptedOperator : public ClusterOperator {
 public:
  using Step = std::function<void(ClusterControl&)>;
  void At(SimTime t, Step step) { steps_.push_back({t, std::move(step)}); }
  void Start(ClusterControl& cluster) override {
    for (size_t i = 0; i < steps_.size(); ++i) cluster.WakeAt(steps_[i].first, i);
  }
  void Wake(ClusterControl& cluster, uint64_t token) override { steps_[token].second(cluster); }
  void PodGone(ClusterControl& cluster, int pod) override { gone.push_back({cluster.Now(), pod}); }
  std::vector<std::pair<SimTime, int>> gone;

 private:
  std::vector<std::pair<SimTime, Step>> steps_;
};

constexpr SimTime kS = kNanosPerSecond;

// Two A10 nodes (one card each); one service on node a.
Scenario TwoNodes() {
  Scenario s;
  s.name = "operator";
  NodePool pool;
  pool.name = "gpu";
  pool.count = 2;
  pool.nodes = {{"a", "", {}}, {"b", "", {}}};
  pool.gpu_type = "A10";
  pool.gpus_per_node = 1;
  pool.cpu_milli = 16000;
  pool.memory_mib = 64 * 1024;
  s.node_pools.push_back(pool);
  s.cluster.policy = SharingPolicy::kNative;
  s.cluster.switch_overhead = 0;
  s.run.duration = 600 * kS;
  s.run.warmup = 60 * kS;
  Workload w;
  w.name = "svc";
  w.replicas = 1;
  w.gpu_mem = 4;
  w.memory.context_mib = 0;
  w.memory.weights_mib = 2048;
  w.image_pull = 10 * kS;
  w.model_load = 5 * kS;
  w.image_size_mib = 1200;  // 20 s at 60 MiB/s
  w.images = {"registry.example.com/ai/svc:v1"};
  w.traffic.kind = ArrivalKind::kPoisson;
  w.traffic.rate = 20;
  w.work.dist = WorkDistribution::kExponential;
  w.work.mean_s = 0.01;
  w.pods = {{"svc-0", "a", {}, true, -1}};
  s.workloads.push_back(w);
  return s;
}

// Points into `pods`: keep the vector alive while using the answer.
const PodView* FindPod(const std::vector<PodView>& pods, const std::string& name) {
  for (const PodView& p : pods)
    if (p.name == name) return &p;
  return nullptr;
}
const PodView* FindPod(std::vector<PodView>&& pods, const std::string& name) = delete;

TEST_CASE(
    "a deleted Deployment pod is replaced at once on another node, pulls its image, and the gap is "
    "no_replica") {
  const Scenario s = TwoNodes();
  ScriptedOperator op;
  std::vector<PodView> after_delete;
  op.At(120 * kS, [&](ClusterControl& c) {
    c.SetCordoned(0, true);
    const std::vector<PodView> pods = c.Pods();
    REQUIRE(pods.size() == 1);
    CHECK(pods[0].ready);
    CHECK(pods[0].available);
    c.DeletePod(pods[0].id, "evicted");
    after_delete = c.Pods();
  });
  RunOptions options;
  options.cluster_operator = &op;
  options.timeline_step = 10 * kS;
  const RunResult r = Simulate(s, 3, options);
  // The replacement exists as soon as the old pod is deleted; the old one is terminating.
  REQUIRE(after_delete.size() == 2);
  const PodView* old_pod = FindPod(after_delete, "svc-0");
  const PodView* fresh = FindPod(after_delete, "svc-r1");
  REQUIRE(old_pod != nullptr);
  REQUIRE(fresh != nullptr);
  CHECK(old_pod->terminating);
  CHECK(old_pod->status == "Terminating");
  CHECK(fresh->node == 1);  // node a is cordoned
  CHECK(fresh->status == "ContainerCreating");
  // The old pod left when its in-flight requests were done (well within 30 s).
  REQUIRE(op.gone.size() == 1);
  CHECK(op.gone[0].first >= 120 * kS);
  CHECK(op.gone[0].first < 121 * kS);
  // At the end only the replacement exists, Running on b.
  REQUIRE(r.pods.size() == 1);
  CHECK(r.pods[0].name == "svc-r1");
  CHECK(r.pods[0].node == "b");
  CHECK(r.pods[0].state == "Running");
  // Gap: image 1200 MiB at 60 MiB/s = 20 s, model load 5 s: about 25 s × 20/s no_replica.
  const WorkloadResult& w = r.workloads[0];
  CHECK(w.errors.no_replica > 350);
  CHECK(w.errors.no_replica < 650);
  CHECK(w.completed + w.errors.total() + w.in_system_end == w.requests);
  // The timeline: zero available from 120 s to 145 s.
  const WorkloadTimeline& t = r.timeline.workloads[0];
  CHECK(t.points.size() == 60);
  CHECK(t.points[11].available_min == 1);
  CHECK(t.points[12].available_min == 0);
  CHECK(t.points[13].available_mean == doctest::Approx(0));
  CHECK(t.points[14].available_mean == doctest::Approx(0.5).epsilon(0.01));
  CHECK(t.points[15].available_mean == doctest::Approx(1));
  CHECK(t.unavailable_ns == 25 * kS);
  CHECK(t.available_fraction == doctest::Approx(1 - 25.0 / 540).epsilon(1e-6));
  // The timeline counts from t = 0, the results from the warm-up (60 s, a step boundary):
  // the same requests after it. Before it, the start-up (10 s pull, 5 s load) had no replica.
  int64_t arrivals = 0, errors = 0, early_errors = 0;
  for (const TimelinePoint& p : t.points) {
    if (p.start < s.run.warmup) {
      early_errors += p.errors.no_replica;
      continue;
    }
    arrivals += p.arrivals;
    errors += p.errors.no_replica;
  }
  CHECK(errors == w.errors.no_replica);
  CHECK(arrivals == w.requests);
  CHECK(early_errors > 200);
  CHECK(early_errors < 400);
}

TEST_CASE("a replacement on a node that holds the image starts without pulling") {
  Scenario s = TwoNodes();
  s.workloads[0].replicas = 2;
  s.workloads[0].pods.push_back({"svc-1", "b", {}, true, -1});
  ScriptedOperator op;
  SimTime ready_at = -1;
  op.At(120 * kS, [&](ClusterControl& c) {
    c.SetCordoned(0, true);
    const std::vector<PodView> pods = c.Pods();
    c.DeletePod(FindPod(pods, "svc-0")->id, "evicted");
  });
  op.At(126 * kS, [&](ClusterControl& c) {
    const std::vector<PodView> pods = c.Pods();
    const PodView* fresh = FindPod(pods, "svc-r1");
    REQUIRE(fresh != nullptr);
    if (fresh->available) ready_at = c.Now();
  });
  RunOptions options;
  options.cluster_operator = &op;
  const RunResult r = Simulate(s, 3, options);
  CHECK(ready_at == 126 * kS);  // node b had the image: only the 5 s model load
  CHECK(r.workloads[0].errors.no_replica == 0);
}

TEST_CASE(
    "a StatefulSet pod comes back with its name once the old one is gone; a bare Pod does not") {
  Scenario s = TwoNodes();
  s.workloads[0].kind = "StatefulSet";
  Workload bare = s.workloads[0];
  bare.name = "bare";
  bare.kind = "Pod";
  bare.pods = {{"bare", "a", {}, true, -1}};
  s.workloads.push_back(bare);
  ScriptedOperator op;
  std::vector<PodView> at_delete;
  op.At(120 * kS, [&](ClusterControl& c) {
    c.SetCordoned(0, true);
    for (const PodView& p : c.Pods()) c.DeletePod(p.id, "evicted");
    at_delete = c.Pods();
  });
  RunOptions options;
  options.cluster_operator = &op;
  const RunResult r = Simulate(s, 3, options);
  CHECK(at_delete.size() == 2);  // both terminating, no replacement yet
  REQUIRE(r.pods.size() == 1);
  CHECK(r.pods[0].name == "svc-0");
  CHECK(r.pods[0].node == "b");
  CHECK(r.pods[0].state == "Running");
  CHECK(op.gone.size() == 2);
}

TEST_CASE(
    "a node reset loses its image cache; a tag the registry deleted ends in ImagePullBackOff") {
  Scenario s = TwoNodes();
  s.node_pools[0].count = 1;
  s.node_pools[0].nodes.resize(1);
  ScriptedOperator op;
  op.At(120 * kS, [&](ClusterControl& c) {
    c.SetCordoned(0, true);
    c.DeletePod(c.Pods()[0].id, "evicted");
  });
  op.At(130 * kS, [&](ClusterControl& c) {
    const std::vector<PodView> pods = c.Pods();
    REQUIRE(pods.size() == 1);
    CHECK(pods[0].status == "Pending");  // the only node is cordoned
    c.TakeNodeDown(0, "reset");
  });
  op.At(400 * kS, [&](ClusterControl& c) {
    c.BringNodeUp(0, NodeSettings{});
    c.SetCordoned(0, false);
  });
  RunOptions options;
  options.cluster_operator = &op;
  options.missing_images = {"registry.example.com/ai/svc:v1"};
  const RunResult r = Simulate(s, 3, options);
  REQUIRE(r.pods.size() == 1);
  CHECK(r.pods[0].state == "ImagePullBackOff");
  CHECK(r.pods[0].message.find("registry.example.com/ai/svc:v1") != std::string::npos);
  bool noted = false;
  for (const ClusterEvent& e : r.cluster.events)
    noted |= e.kind == "ImagePullBackOff" && e.time == 400 * kS;
  CHECK(noted);
}

TEST_CASE(
    "a node back with hard isolation turns an over-quota pod fake Ready: Ready, never available") {
  Scenario s = TwoNodes();
  s.node_pools[0].count = 1;
  s.node_pools[0].nodes.resize(1);
  s.node_pools[0].isolation = MemoryIsolation::kSoft;
  s.workloads[0].memory.weights_mib = 8192;  // 4 units: 4186 visible MiB on an A10
  s.workloads[0].probe = ReadinessKind::kTcp;
  ScriptedOperator op;
  op.At(120 * kS, [&](ClusterControl& c) {
    c.SetCordoned(0, true);
    c.DeletePod(c.Pods()[0].id, "evicted");
  });
  op.At(121 * kS, [&](ClusterControl& c) { c.TakeNodeDown(0, "reset"); });
  NodeSettings hard;
  hard.isolation = MemoryIsolation::kHard;
  std::vector<PodView> later;
  op.At(200 * kS, [&](ClusterControl& c) {
    c.BringNodeUp(0, hard);
    c.SetCordoned(0, false);
  });
  op.At(300 * kS, [&](ClusterControl& c) { later = c.Pods(); });
  RunOptions options;
  options.cluster_operator = &op;
  options.timeline_step = 60 * kS;
  const RunResult r = Simulate(s, 3, options);
  REQUIRE(later.size() == 1);
  CHECK(later[0].ready);
  CHECK_FALSE(later[0].available);
  CHECK(r.pods[0].state == "FakeReady");
  const WorkloadResult& w = r.workloads[0];
  CHECK(w.errors.fake_ready > 0);
  const WorkloadTimeline& t = r.timeline.workloads[0];
  // Before the reset it served (soft isolation hid the over-use); after, Ready but unavailable.
  CHECK(t.points[1].available_mean == doctest::Approx(1));
  CHECK(t.points[1].errors.fake_ready == 0);
  CHECK(t.points[6].available_mean == doctest::Approx(0));
  CHECK(t.points[6].ready_mean == doctest::Approx(1));
  CHECK(t.points[6].errors.fake_ready > 0);
}

TEST_CASE("a spot reclaim during a reset does not bring the node back early, nor undo the reset") {
  Scenario s = TwoNodes();
  s.node_pools[0].spot.per_node_hour = 120;  // a reclaim every 30 s on average
  s.node_pools[0].spot.replace_after = 5 * kS;
  s.node_pools[0].spot.notice = 0;  // the release at the reclaim, as the test's timeline has it
  s.node_pools[0].spot.protection = 0;
  ScriptedOperator op;
  op.At(120 * kS, [&](ClusterControl& c) {
    c.SetCordoned(0, true);
    c.TakeNodeDown(0, "reset");
  });
  std::vector<bool> down_during;
  for (SimTime t = 130; t < 400; t += 10) {
    op.At(t * kS, [&](ClusterControl& c) { down_during.push_back(c.Node(0).down); });
  }
  op.At(400 * kS, [&](ClusterControl& c) {
    c.BringNodeUp(0, NodeSettings{});
    c.SetCordoned(0, false);
  });
  RunOptions options;
  options.cluster_operator = &op;
  const RunResult r = Simulate(s, 5, options);
  REQUIRE(down_during.size() == 27);
  for (bool down : down_during) CHECK(down);  // however many reclaims and replacements came
  int reclaims_in_reset = 0;
  for (const ClusterEvent& e : r.cluster.events)
    reclaims_in_reset += e.kind == "NodeReplaced" && e.time > 120 * kS && e.time < 400 * kS;
  CHECK(reclaims_in_reset > 0);
}

TEST_CASE("a pod unready at the start serves nothing until ready_after") {
  Scenario s = TwoNodes();
  s.workloads[0].pods[0].ready = false;
  s.workloads[0].pods[0].ready_after = 200 * kS;
  std::vector<PodView> early, late;
  ScriptedOperator op;
  op.At(100 * kS, [&](ClusterControl& c) { early = c.Pods(); });
  op.At(201 * kS, [&](ClusterControl& c) { late = c.Pods(); });
  RunOptions options;
  options.cluster_operator = &op;
  const RunResult r = Simulate(s, 3, options);
  REQUIRE(early.size() == 1);
  CHECK_FALSE(early[0].ready);
  CHECK(early[0].status == "Running");
  REQUIRE(late.size() == 1);
  CHECK(late[0].ready);
  // No Ready replica from warm-up (60 s) to 200 s: 140 s × 20/s.
  CHECK(r.workloads[0].errors.no_replica > 2400);
  CHECK(r.workloads[0].errors.no_replica < 3200);
  CHECK(r.pods[0].state == "Running");
}

TEST_CASE("EndRunAt ends the run early, never late; results are per the shorter run") {
  const Scenario s = TwoNodes();
  ScriptedOperator op;
  op.At(200 * kS, [&](ClusterControl& c) { c.EndRunAt(300 * kS); });
  op.At(250 * kS, [&](ClusterControl& c) { c.EndRunAt(900 * kS); });
  RunOptions options;
  options.cluster_operator = &op;
  const RunResult r = Simulate(s, 3, options);
  CHECK(r.end == 300 * kS);
  CHECK(r.workloads[0].measured_s == doctest::Approx(240));
}

TEST_CASE("an operator run repeats itself exactly with the same seed") {
  const Scenario s = TwoNodes();
  const auto once = [&] {
    ScriptedOperator op;
    op.At(120 * kS, [&](ClusterControl& c) {
      c.SetCordoned(0, true);
      c.DeletePod(c.Pods()[0].id, "evicted");
    });
    RunOptions options;
    options.cluster_operator = &op;
    options.timeline_step = 30 * kS;
    return Simulate(s, 11, options);
  };
  const RunResult a = once(), b = once();
  CHECK(a.workloads[0].completed == b.workloads[0].completed);
  CHECK(a.workloads[0].latency_ms.p99 == b.workloads[0].latency_ms.p99);
  CHECK(a.events_processed == b.events_processed);
}

}  // namespace
}  // namespace knobsim
