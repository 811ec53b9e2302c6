#include "sim/engine/simulation.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace knobsim {
namespace {

// One node of `cards` A10s (speed 1.0, 23028 MiB, 22 units) under `policy`.
Scenario OneNode(SharingPolicy policy, int cards = 1) {
  Scenario s;
  s.name = "test";
  NodePool pool;
  pool.name = "gpu";
  pool.count = 1;
  pool.gpu_type = "A10";
  pool.gpus_per_node = cards;
  pool.cpu_milli = 64000;
  pool.memory_mib = 256 * 1024;
  s.node_pools.push_back(pool);
  s.cluster.policy = policy;
  s.cluster.switch_overhead = 0;
  s.run.duration = 2000 * kNanosPerSecond;
  s.run.warmup = 100 * kNanosPerSecond;
  return s;
}

Workload Service(const std::string& name, double rate, double mean_s, int gpu_mem = 4) {
  Workload w;
  w.name = name;
  w.replicas = 1;
  w.gpu_mem = gpu_mem;
  w.traffic.kind = ArrivalKind::kPoisson;
  w.traffic.rate = rate;
  w.work.dist = WorkDistribution::kExponential;
  w.work.mean_s = mean_s;
  w.memory.context_mib = 0;
  return w;
}

void CheckConservation(const WorkloadResult& w) {
  CHECK(w.completed + w.errors.total() + w.in_system_end == w.requests);
}

// Twice the card's capacity (20/s of 100 ms, FIFO): by the end at 2000 s about 20 000 requests
// have been served, so the one in service arrived near t = 1000 s, and everything that arrived
// more than unanswered_after (60 s) before the end is overdue. The backlog rule misses.
TEST_CASE("backlog rule: the run records the requests left unanswered, overdue and the oldest") {
  Scenario s = OneNode(SharingPolicy::kPreemptive);
  s.workloads.push_back(Service("overloaded", 20, 0.1));
  const RunResult r = Simulate(s, 7);
  const WorkloadResult& w = r.workloads[0];
  CheckConservation(w);
  CHECK(w.errors.total() == 0);
  CHECK(w.in_system_end > 15000);
  CHECK(w.in_system_oldest_ms / 1e3 == doctest::Approx(1000).epsilon(0.1));
  CHECK(static_cast<double>(w.in_system_overdue) ==
        doctest::Approx(static_cast<double>(w.in_system_end) - 20 * 60).epsilon(0.05));
  CHECK_FALSE(w.slo_met);

  Scenario stable = OneNode(SharingPolicy::kPreemptive);
  stable.workloads.push_back(Service("stable", 5, 0.1));
  const RunResult stable_run = Simulate(stable, 7);
  const WorkloadResult& ok = stable_run.workloads[0];
  CHECK(ok.in_system_overdue == 0);
  CHECK(ok.in_system_oldest_ms < 60e3);
  CHECK(ok.slo_met);
}

TEST_CASE("an M/M/1 pod alone on a card matches 1/(mu - lambda)") {
  Scenario s = OneNode(SharingPolicy::kPreemptive);
  s.workloads.push_back(Service("mm1", 50, 0.01));  // rho = 0.5, E[T] = 20 ms
  RunResult r = Simulate(s, 7);
  const WorkloadResult& w = r.workloads[0];
  CheckConservation(w);
  CHECK(w.requests > 80000);
  CHECK(w.latency_ms.mean == doctest::Approx(20.0).epsilon(0.04));
  CHECK(r.cards[0].busy == doctest::Approx(0.5).epsilon(0.03));
  CHECK(r.cards[0].effective == doctest::Approx(0.5).epsilon(0.03));
  CHECK(r.cards[0].waste == doctest::Approx(0.0).epsilon(1e-9));
}

TEST_CASE("an M/D/1 pod splits its latency into the Pollaczek-Khinchine wait and the service") {
  Scenario s = OneNode(SharingPolicy::kPreemptive);
  Workload w = Service("md1", 50, 0.01);  // rho = 0.5, S = 10 ms: W_q = rho S / (2 (1 - rho))
  w.work.dist = WorkDistribution::kConstant;
  w.memory.weights_mib = 1000;
  s.workloads.push_back(w);
  RunOptions options;
  options.timeline_step = 100 * kNanosPerSecond;
  RunResult r = Simulate(s, 3, options);
  const WorkloadResult& out = r.workloads[0];
  CHECK(out.queue_wait_ms_mean == doctest::Approx(5.0).epsilon(0.05));
  CHECK(out.service_ms_mean == doctest::Approx(10.0).epsilon(1e-6));
  CHECK(out.queue_wait_ms_mean + out.service_ms_mean == doctest::Approx(out.latency_ms.mean));
  CHECK(out.queue_wait_ms_p99 > out.queue_wait_ms_mean);

  // The card's timeline: busy near rho in every step, and the steps after the warm-up average
  // to the run's busy figure; the weights are held the whole time.
  REQUIRE(r.timeline.cards.size() == 1);
  const CardTimeline& card = r.timeline.cards[0];
  REQUIRE(card.points.size() == 20);
  double busy_after_warmup = 0;
  for (size_t k = 0; k < card.points.size(); ++k) {
    CHECK(card.points[k].busy == doctest::Approx(0.5).epsilon(0.1));
    CHECK(card.points[k].effective == doctest::Approx(card.points[k].busy));
    CHECK(card.points[k].memory_peak_mib >= card.points[k].memory_used_mib);
    if (k >= 1) busy_after_warmup += card.points[k].busy / 19;
  }
  CHECK(busy_after_warmup == doctest::Approx(r.cards[0].busy).epsilon(1e-9));
  CHECK(card.points[5].memory_used_mib >= 1000);
  // The workload's timeline carries the same split per step.
  const TimelinePoint& p = r.timeline.workloads[0].points[5];
  CHECK(p.service_mean_ms == doctest::Approx(10.0).epsilon(1e-6));
  CHECK(p.queue_wait_mean_ms + p.service_mean_ms == doctest::Approx(p.latency_mean_ms));
}

TEST_CASE("the same seed gives the same result") {
  Scenario s = OneNode(SharingPolicy::kPreemptive);
  s.run.duration = 200 * kNanosPerSecond;
  s.workloads.push_back(Service("a", 30, 0.01));
  RunResult a = Simulate(s, 3), b = Simulate(s, 3);
  CHECK(a.workloads[0].requests == b.workloads[0].requests);
  CHECK(a.workloads[0].latency_ms.mean == b.workloads[0].latency_ms.mean);
  CHECK(a.cards[0].busy == b.cards[0].busy);
}

TEST_CASE("POLICY 3 caps a lone pod at its percentage") {
  Scenario s = OneNode(SharingPolicy::kFixedPercent);
  s.node_pools[0].schedule = GpuSchedule::kCoreMem;  // gpu-core.percentage exists on core_mem nodes
  Workload w = Service("capped", 20, 0.01);
  w.gpu_core = 50;  // the pod runs at half speed: mu = 50/s, rho = 0.4 of its half card
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 11);
  CHECK(r.workloads[0].latency_ms.mean == doctest::Approx(1000.0 / (50 - 20)).epsilon(0.05));
  CHECK(r.cards[0].busy == doctest::Approx(0.4).epsilon(0.04));
  CHECK(r.cards[0].effective == doctest::Approx(0.2).epsilon(0.04));
  CHECK(r.cards[0].waste == doctest::Approx(0.2).epsilon(0.06));
}

TEST_CASE(
    "under hard isolation a model bigger than the quota fails to load: fake Ready with a port-only "
    "probe") {
  Scenario s = OneNode(SharingPolicy::kNative);
  Workload w = Service("big", 10, 0.01, 4);
  w.memory.weights_mib = 20 * 1024;  // 20 GiB of weights under a 4 GiB quota
  w.probe = ReadinessKind::kTcp;
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 1);
  CHECK(r.pods[0].state == "FakeReady");
  CHECK(r.workloads[0].errors.fake_ready == r.workloads[0].requests);
  CHECK(r.workloads[0].completed == 0);
  CHECK(r.cluster.fake_ready_pods == 1);
}

TEST_CASE("a model-aware probe keeps the pod that failed its load unready: no replica errors") {
  Scenario s = OneNode(SharingPolicy::kNative);
  Workload w = Service("big", 10, 0.01, 4);
  w.memory.weights_mib = 20 * 1024;
  w.probe = ReadinessKind::kModel;
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 1);
  CHECK(r.pods[0].state == "Unready");
  CHECK(r.workloads[0].errors.no_replica == r.workloads[0].requests);
}

TEST_CASE("on_load_oom exit restarts the container into CrashLoopBackOff") {
  Scenario s = OneNode(SharingPolicy::kNative);
  Workload w = Service("big", 10, 0.01, 4);
  w.memory.weights_mib = 20 * 1024;
  w.on_load_oom = LoadOomReaction::kExit;
  w.model_load = 5 * kNanosPerSecond;
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 1);
  CHECK(r.pods[0].state == "CrashLoopBackOff");
  CHECK(r.pods[0].restarts > 3);
  CHECK(r.workloads[0].completed == 0);
}

TEST_CASE(
    "under soft isolation the allocation that exhausts the card fails, whichever pod makes it") {
  Scenario s = OneNode(SharingPolicy::kNative);
  s.node_pools[0].isolation = MemoryIsolation::kSoft;
  s.node_pools[0].cgpu_active = false;
  Workload hog = Service("hog", 1, 0.01, 4);
  hog.memory.weights_mib = 20 * 1024;  // bursts far over its 4 GiB quota; loads first
  Workload small = Service("small", 10, 0.01, 4);
  small.memory.weights_mib = 3 * 1024;  // within quota, but the card is full
  small.model_load = 10 * kNanosPerSecond;
  small.probe = ReadinessKind::kTcp;
  s.workloads.push_back(hog);
  s.workloads.push_back(small);
  RunResult r = Simulate(s, 1);
  CHECK(r.pods[0].state == "Running");
  CHECK(r.pods[1].state == "FakeReady");
}

TEST_CASE("activation beyond the quota fails the request with OOM under hard isolation") {
  Scenario s = OneNode(SharingPolicy::kNative);
  Workload w = Service("act", 50, 0.01, 4);
  w.memory.weights_mib = 3 * 1024;
  w.memory.activation_mib = 2 * 1024;  // 3 GiB + 2 GiB > 4301-ish MiB quota
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 1);
  CHECK(r.workloads[0].errors.oom == r.workloads[0].requests - r.workloads[0].in_system_end);
}

TEST_CASE("two pods under POLICY 1 pool like one M/M/1 queue") {
  Scenario s = OneNode(SharingPolicy::kPreemptive);
  s.run.duration = 4000 * kNanosPerSecond;
  s.workloads.push_back(Service("a", 45, 0.01));
  s.workloads.push_back(Service("b", 15, 0.01));
  RunResult r = Simulate(s, 5);
  const auto& a = r.workloads[0];
  const auto& b = r.workloads[1];
  const double pooled = (a.latency_ms.mean * a.completed + b.latency_ms.mean * b.completed) /
                        static_cast<double>(a.completed + b.completed);
  CHECK(pooled == doctest::Approx(1000.0 / (100 - 60)).epsilon(0.05));
  CHECK(r.cards[0].busy == doctest::Approx(0.6).epsilon(0.03));
}

TEST_CASE(
    "a pod asking gpu-core.percentage stays Pending on a cgpu node, which does not offer it") {
  Scenario s = OneNode(SharingPolicy::kFixedPercent);
  Workload w = Service("capped", 20, 0.01);
  w.gpu_core = 50;
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 1);
  CHECK(r.pods[0].state == "Pending");
  CHECK(r.pods[0].message.find("Insufficient aliyun.com/gpu-core.percentage") != std::string::npos);
  CHECK(r.workloads[0].errors.no_replica == r.workloads[0].requests);
}

TEST_CASE("replicas spread over cards by the scheduler's binpack card choice") {
  Scenario s = OneNode(SharingPolicy::kPreemptive, 2);
  s.run.duration = 50 * kNanosPerSecond;
  s.run.warmup = 10 * kNanosPerSecond;
  Workload w = Service("packed", 1, 0.01, 10);
  w.replicas = 3;  // 10 units each on 22-unit A10s: two fit on card 0, the third goes to card 1
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 1);
  REQUIRE(r.pods.size() == 3);
  CHECK(r.pods[0].cards == std::vector<int>{0});
  CHECK(r.pods[1].cards == std::vector<int>{0});
  CHECK(r.pods[2].cards == std::vector<int>{1});
}

TEST_CASE("current pods stay on their node and cards; one that no longer fits is rescheduled") {
  // Binpack would put all three 10-unit replicas' first two on card 0; the export says replica
  // 0 runs on card 1 and replica 1 on card 0. Replica 2 is not listed: the scheduler places it.
  Scenario s = OneNode(SharingPolicy::kPreemptive, 2);
  s.node_pools[0].nodes = {{"gpu-node-a", "zone-x", {}}};
  s.run.duration = 50 * kNanosPerSecond;
  s.run.warmup = 10 * kNanosPerSecond;
  Workload w = Service("svc", 1, 0.01, 10);
  w.replicas = 3;
  w.pods = {{"svc-abc", "gpu-node-a", {1}}, {"svc-def", "gpu-node-a", {0}}};
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 1);
  REQUIRE(r.pods.size() == 3);
  CHECK(r.pods[0].name == "svc-abc");
  CHECK(r.pods[0].node == "gpu-node-a");
  CHECK(r.pods[0].cards == std::vector<int>{1});
  CHECK(r.pods[1].cards == std::vector<int>{0});
  CHECK(r.pods[2].name == "svc-2");
  CHECK(r.pods[2].cards == std::vector<int>{0});  // both cards hold 10: binpack's tie, lowest index
  // A quota the listed card cannot take any more: 20 units next to 10 on card 1.
  Scenario big = s;
  big.workloads[0].gpu_mem = 10;
  big.workloads[0].replicas = 2;
  big.workloads[0].pods = {{"svc-abc", "gpu-node-a", {1}}, {"svc-def", "gpu-node-a", {1}}};
  big.workloads.push_back(Service("other", 1, 0.01, 12));
  big.workloads[1].pods = {{"other-x", "gpu-node-a", {1}}};
  RunResult moved = Simulate(big, 1);
  REQUIRE(moved.pods.size() == 3);
  CHECK(moved.pods[0].cards == std::vector<int>{1});
  CHECK(moved.pods[1].cards == std::vector<int>{1});
  CHECK(moved.pods[2].cards == std::vector<int>{0});  // 12 more units do not fit on card 1
  bool noted = false;
  for (const ClusterEvent& e : moved.cluster.events) noted = noted || e.kind == "Rescheduled";
  CHECK(noted);
}

// Two pods of one workload on a card each, with their own recorded counts per 100 s step: pod
// a busy in even steps, pod b in odd ones (0.01 s of constant work a request).
Scenario PerPodCounts() {
  Scenario s = OneNode(SharingPolicy::kPreemptive, 2);
  s.node_pools[0].nodes = {{"node-a", "zone-x", {}}};
  s.run.duration = 1000 * kNanosPerSecond;
  s.run.warmup = 0;
  Workload w = Service("svc", 0, 0.01);
  w.work.dist = WorkDistribution::kConstant;
  w.replicas = 2;
  w.pods = {{"svc-a", "node-a", {0}}, {"svc-b", "node-a", {1}}};
  w.traffic.kind = ArrivalKind::kCounts;
  w.traffic.counts.step = 100 * kNanosPerSecond;
  std::vector<int64_t> a, b;
  for (int k = 0; k < 10; ++k) {
    a.push_back(k % 2 == 0 ? 6000 : 300);
    b.push_back(k % 2 == 0 ? 300 : 6000);
  }
  w.traffic.counts.per_pod = {{"svc-a", 0, a}, {"svc-b", 1, b}};
  s.workloads.push_back(w);
  return s;
}

// Each card's busy per 100 s step, as its pods' work would give it: requests × 0.01 s / 100 s.
std::vector<double> CardBusy(const RunResult& r, int card) {
  std::vector<double> out;
  for (const CardTimelinePoint& p : r.timeline.cards[card].points) out.push_back(p.busy);
  return out;
}

TEST_CASE("per-pod counts: each card's busy follows its own pod's recorded requests") {
  const Scenario s = PerPodCounts();
  RunOptions options;
  options.timeline_step = 100 * kNanosPerSecond;
  const RunResult r = Simulate(s, 5, options);
  CHECK(r.workloads[0].requests == 5 * 6300 * 2);
  CHECK(r.workloads[0].errors.total() == 0);
  const std::vector<int64_t>& a = s.workloads[0].traffic.counts.per_pod[0].values;
  const std::vector<int64_t>& b = s.workloads[0].traffic.counts.per_pod[1].values;
  const std::vector<double> card0 = CardBusy(r, 0), card1 = CardBusy(r, 1);
  REQUIRE(card0.size() == 10);
  for (size_t k = 0; k < 10; ++k) {
    CAPTURE(k);
    CHECK(card0[k] == doctest::Approx(static_cast<double>(a[k]) * 0.01 / 100).epsilon(0.02));
    CHECK(card1[k] == doctest::Approx(static_cast<double>(b[k]) * 0.01 / 100).epsilon(0.02));
  }

  // Pod a is not Ready for the first 300 s: its requests go to the Service's Ready pod, b.
  Scenario late = s;
  late.workloads[0].pods[0].ready = false;
  late.workloads[0].pods[0].ready_after = 300 * kNanosPerSecond;
  const RunResult l = Simulate(late, 5, options);
  CHECK(l.workloads[0].errors.total() == 0);
  const std::vector<double> late0 = CardBusy(l, 0), late1 = CardBusy(l, 1);
  for (size_t k = 0; k < 10; ++k) {
    CAPTURE(k);
    const double own_a = static_cast<double>(a[k]) * 0.01 / 100;
    const double own_b = static_cast<double>(b[k]) * 0.01 / 100;
    CHECK(late0[k] == doctest::Approx(k < 3 ? 0.0 : own_a).epsilon(0.02));
    CHECK(late1[k] == doctest::Approx(k < 3 ? own_a + own_b : own_b).epsilon(0.02));
  }
}

TEST_CASE("per-pod counts beside Service counts: those of gone pods arrive too, routed") {
  // A third pod recorded 1000 requests a step before it went away: they are the Service's,
  // routed among the current pods (random routing: about half to each card).
  Scenario s = PerPodCounts();
  s.workloads[0].traffic.counts.values = std::vector<int64_t>(10, 1000);
  RunOptions options;
  options.timeline_step = 100 * kNanosPerSecond;
  const RunResult r = Simulate(s, 5, options);
  CHECK(r.workloads[0].requests == 5 * 6300 * 2 + 10 * 1000);
  const std::vector<int64_t>& a = s.workloads[0].traffic.counts.per_pod[0].values;
  const std::vector<double> card0 = CardBusy(r, 0);
  for (size_t k = 0; k < 10; ++k) {
    CAPTURE(k);
    CHECK(card0[k] ==
          doctest::Approx((static_cast<double>(a[k]) + 500) * 0.01 / 100).epsilon(0.05));
  }
  // The per-pod streams are those of the run without Service counts: their arrivals unchanged.
  const RunResult alone = Simulate(PerPodCounts(), 5, options);
  CHECK(alone.workloads[0].requests == 5 * 6300 * 2);
}

TEST_CASE("per-pod counts keep common random numbers: routing elsewhere changes no arrival") {
  // The same seed and recording give the same arrivals and work, whatever else the scenario
  // says: an extra replica (no recording of its own) and another routing leave every request
  // on its own pod, so the results are the same bit for bit.
  const Scenario s = PerPodCounts();
  Scenario other = s;
  other.workloads[0].replicas = 3;
  other.workloads[0].routing = Routing::kLeastOutstanding;
  const RunResult r1 = Simulate(s, 9), r2 = Simulate(s, 9), r3 = Simulate(other, 9);
  for (const RunResult* r : {&r2, &r3}) {
    CHECK(r->workloads[0].requests == r1.workloads[0].requests);
    CHECK(r->workloads[0].latency_ms.mean == r1.workloads[0].latency_ms.mean);
    CHECK(r->workloads[0].latency_ms.p99 == r1.workloads[0].latency_ms.p99);
    CHECK(r->cards[0].busy == r1.cards[0].busy);
    CHECK(r->cards[1].busy == r1.cards[1].busy);
  }
  // Another seed draws other arrival times inside the intervals.
  CHECK(Simulate(s, 10).workloads[0].latency_ms.mean != r1.workloads[0].latency_ms.mean);
}

TEST_CASE("a multi-card pod over PCIe runs slower than one over NVLink (GPU topology factor)") {
  auto two_card = [](const char* gpu) {
    Scenario s = OneNode(SharingPolicy::kPreemptive, 2);
    s.node_pools[0].gpu_type = gpu;
    s.run.duration = 50 * kNanosPerSecond;
    s.run.warmup = 10 * kNanosPerSecond;
    Workload w = Service("split", 5, 0.01, 8);
    w.gpu_count = 2;
    s.workloads.push_back(w);
    return Simulate(s, 1);
  };
  const RunResult pcie = two_card("L20");
  const RunResult nvlink = two_card("A100-40G");
  REQUIRE(pcie.pods[0].cards.size() == 2);
  CHECK(pcie.pods[0].throughput_factor < 0.95);
  CHECK(pcie.pods[0].throughput_factor > 0.8);
  CHECK(nvlink.pods[0].throughput_factor == doctest::Approx(1.0));
}

TEST_CASE("timeouts abort requests and keep conservation") {
  Scenario s = OneNode(SharingPolicy::kPreemptive);
  s.run.duration = 500 * kNanosPerSecond;
  Workload w = Service("slow", 95, 0.01);
  w.timeout = 30 * kNanosPerMilli;
  s.workloads.push_back(w);
  RunResult r = Simulate(s, 2);
  CHECK(r.workloads[0].errors.timeout > 0);
  CHECK(r.workloads[0].latency_ms.p999 <= 30.5);
  CheckConservation(r.workloads[0]);
}

TEST_CASE("batching and unlimited concurrency keep conservation and Little's law") {
  Scenario s = OneNode(SharingPolicy::kPreemptive);
  s.run.duration = 1000 * kNanosPerSecond;
  Workload w = Service("batch", 60, 0.01);
  w.batching.max_batch = 8;
  w.batching.max_wait = 5 * kNanosPerMilli;
  w.batching.beta = 0.2;
  w.concurrency = 2;
  w.cpu_before = 1 * kNanosPerMilli;
  w.cpu_after = 1 * kNanosPerMilli;
  s.workloads.push_back(w);
  Workload ps = Service("ps", 10, 0.01);
  ps.concurrency = 0;
  s.workloads.push_back(ps);
  RunResult r = Simulate(s, 9);
  for (const auto& wr : r.workloads) {
    CheckConservation(wr);
    const double little = static_cast<double>(wr.completed + wr.errors.total()) / wr.measured_s *
                          wr.time_in_system_mean_ms / 1000;
    CHECK(wr.in_system_mean == doctest::Approx(little).epsilon(0.02));
  }
}

// ---------------------------------------------------------------------------------------------
// Spot nodes

// Everything a run reports that a spot reclaim could move, compared exactly.
void CheckSameRun(const RunResult& a, const RunResult& b) {
  CHECK(a.events_processed == b.events_processed);
  CHECK(a.requests_simulated == b.requests_simulated);
  REQUIRE(a.workloads.size() == b.workloads.size());
  for (size_t i = 0; i < a.workloads.size(); ++i) {
    const WorkloadResult& x = a.workloads[i];
    const WorkloadResult& y = b.workloads[i];
    CHECK(x.requests == y.requests);
    CHECK(x.completed == y.completed);
    CHECK(x.errors.oom == y.errors.oom);
    CHECK(x.errors.fake_ready == y.errors.fake_ready);
    CHECK(x.errors.timeout == y.errors.timeout);
    CHECK(x.errors.no_replica == y.errors.no_replica);
    CHECK(x.errors.interrupted == y.errors.interrupted);
    CHECK(x.latency_ms.mean == y.latency_ms.mean);
    CHECK(x.latency_ms.p99 == y.latency_ms.p99);
    CHECK(x.in_system_end == y.in_system_end);
    CHECK(x.in_system_mean == y.in_system_mean);
    CHECK(x.time_in_system_mean_ms == y.time_in_system_mean_ms);
  }
  REQUIRE(a.cards.size() == b.cards.size());
  for (size_t c = 0; c < a.cards.size(); ++c) {
    CHECK(a.cards[c].busy == b.cards[c].busy);
    CHECK(a.cards[c].effective == b.cards[c].effective);
    CHECK(a.cards[c].memory_used_mib == b.cards[c].memory_used_mib);
    CHECK(a.cards[c].memory_peak_mib == b.cards[c].memory_peak_mib);
    CHECK(a.cards[c].pods == b.cards[c].pods);
  }
  REQUIRE(a.pods.size() == b.pods.size());
  for (size_t p = 0; p < a.pods.size(); ++p) {
    CHECK(a.pods[p].state == b.pods[p].state);
    CHECK(a.pods[p].node == b.pods[p].node);
    CHECK(a.pods[p].message == b.pods[p].message);
  }
  REQUIRE(a.cluster.events.size() == b.cluster.events.size());
  for (size_t e = 0; e < a.cluster.events.size(); ++e) {
    CHECK(a.cluster.events[e].time == b.cluster.events[e].time);
    CHECK(a.cluster.events[e].kind == b.cluster.events[e].kind);
    CHECK(a.cluster.events[e].message == b.cluster.events[e].message);
  }
}

std::vector<SimTime> EventTimes(const RunResult& r, const std::string& kind,
                                const std::string& node = "") {
  std::vector<SimTime> times;
  for (const ClusterEvent& e : r.cluster.events)
    if (e.kind == kind && (node.empty() || e.message.find("node " + node + " ") == 0))
      times.push_back(e.time);
  return times;
}

// Reclaims with no notice and no protection period: the mechanics of the release alone.
SpotInterruptions AbruptSpot(double per_node_hour, SimTime replace_after) {
  SpotInterruptions spot;
  spot.per_node_hour = per_node_hour;
  spot.replace_after = replace_after;
  spot.notice = 0;
  spot.protection = 0;
  return spot;
}

// One A10 node reclaimed about once an hour, serving one replica that takes 10 s to pull and
// 20 s to load 3 GiB of weights; a replacement node joins 60 s after a reclaim.
Scenario SpotSolo(double per_node_hour) {
  Scenario s = OneNode(SharingPolicy::kPreemptive);
  s.node_pools[0].spot = AbruptSpot(per_node_hour, 60 * kNanosPerSecond);
  s.run.duration = 20000 * kNanosPerSecond;
  Workload w = Service("solo", 20, 0.01);
  w.memory.weights_mib = 3 * 1024;
  w.image_pull = 10 * kNanosPerSecond;
  w.model_load = 20 * kNanosPerSecond;
  s.workloads.push_back(w);
  return s;
}

TEST_CASE("the event loop's lookahead changes nothing, bit for bit") {
  // The paths it reads ahead of: random and round-robin routing, CPU stages, aborted timeouts
  // (dead jobs in the service heaps), batches, cards shared by several pods, stale completions.
  Scenario s = OneNode(SharingPolicy::kNative, 2);
  s.run.duration = 120 * kNanosPerSecond;
  Workload a = Service("a", 60, 0.01);
  a.replicas = 3;
  a.cpu_before = 1 * kNanosPerMilli;
  a.cpu_after = 2 * kNanosPerMilli;
  a.timeout = 30 * kNanosPerMilli;
  s.workloads.push_back(a);
  Workload b = Service("b", 30, 0.02);
  b.replicas = 2;
  b.routing = Routing::kRoundRobin;
  b.batching.max_batch = 4;
  b.batching.max_wait = 5 * kNanosPerMilli;
  s.workloads.push_back(b);
  RunOptions never, always;
  never.lookahead_min_bytes = std::numeric_limits<size_t>::max();
  always.lookahead_min_bytes = 0;
  const RunResult without = Simulate(s, 3, never);
  const RunResult with = Simulate(s, 3, always);
  CheckSameRun(without, with);
  CHECK(without.workloads[0].errors.timeout > 0);
  CHECK(without.workloads[0].completed > 300);
  CHECK(without.workloads[1].completed > 300);
}

TEST_CASE("spot rate 0 changes nothing, bit for bit") {
  Scenario s = OneNode(SharingPolicy::kPreemptive, 2);
  s.run.duration = 300 * kNanosPerSecond;
  Workload a = Service("a", 40, 0.01);
  a.replicas = 2;
  a.cpu_before = 2 * kNanosPerMilli;
  a.timeout = 50 * kNanosPerMilli;
  s.workloads.push_back(a);
  s.workloads.push_back(Service("b", 20, 0.02));
  const RunResult on_demand = Simulate(s, 4);
  Scenario zero = s;
  zero.node_pools[0].spot = AbruptSpot(0.0, 1 * kNanosPerSecond);
  CheckSameRun(on_demand, Simulate(zero, 4));
  // A rate so small that no reclaim falls in the run draws from the node's stream and must
  // still leave every other draw and event where it was.
  Scenario rare = s;
  rare.node_pools[0].spot = AbruptSpot(1e-12, 60 * kNanosPerSecond);
  const RunResult none = Simulate(rare, 4);
  CheckSameRun(on_demand, none);
  CHECK(EventTimes(none, "SpotReclaim").empty());
  for (const WorkloadResult& w : none.workloads) CHECK(w.errors.interrupted == 0);
}

TEST_CASE(
    "spot reclaims interrupt requests, keep conservation and Little's law, and repeat with the "
    "seed") {
  // Two nodes of two A10s, one replica per card, each workload spread over both nodes: a reclaim
  // leaves every workload one replica (which then takes all the traffic) until the replacement
  // node serves again, and none when both nodes are down at once.
  Scenario s = OneNode(SharingPolicy::kPreemptive, 2);
  s.node_pools[0].count = 2;
  s.node_pools[0].spot = AbruptSpot(20.0, 30 * kNanosPerSecond);  // ~10 reclaims per node in 2000 s
  auto spread = [](Workload w) {
    w.replicas = 2;
    w.gpu_mem = 12;  // one pod per 22-unit card
    w.labels = {{"app", w.name}};
    TopologySpreadConstraint one_per_node;
    one_per_node.topology_key = "kubernetes.io/hostname";
    one_per_node.label_selector.match_labels = w.labels;
    w.topology_spread = {one_per_node};
    return w;
  };
  Workload queued = spread(Service("queued", 40, 0.01));
  queued.image_pull = 2 * kNanosPerSecond;
  queued.model_load = 3 * kNanosPerSecond;
  queued.cpu_before = 5 * kNanosPerMilli;
  queued.cpu_after = 5 * kNanosPerMilli;
  queued.timeout = 200 * kNanosPerMilli;
  s.workloads.push_back(queued);
  Workload batched = spread(Service("batched", 60, 0.02));  // rho 0.6 per replica, 1.2 alone
  batched.batching = {4, 10 * kNanosPerMilli, 0.3};
  batched.concurrency = 2;
  batched.model_load = 1 * kNanosPerSecond;
  s.workloads.push_back(batched);
  const RunResult r = Simulate(s, 21);
  const std::vector<SimTime> reclaims = EventTimes(r, "SpotReclaim");
  CHECK(reclaims.size() >= 10);
  CHECK(EventTimes(r, "NodeReplaced").size() + 2 >= reclaims.size());
  REQUIRE(r.pods.size() == 4);
  CHECK(r.pods[0].node != r.pods[1].node);
  CHECK(r.pods[2].node != r.pods[3].node);
  for (const WorkloadResult& w : r.workloads) {
    MESSAGE(w.name << ": " << w.requests << " requests, " << w.errors.interrupted
                   << " interrupted, " << w.errors.no_replica << " no replica over "
                   << reclaims.size() << " reclaims");
    CheckConservation(w);
    CHECK(w.errors.interrupted > 0);
    CHECK(w.errors.no_replica > 0);  // both nodes down, or restarting, at once
    const double little = static_cast<double>(w.completed + w.errors.total()) / w.measured_s *
                          w.time_in_system_mean_ms / 1000;
    CHECK(w.in_system_mean == doctest::Approx(little).epsilon(0.02));
  }
  CheckSameRun(r, Simulate(s, 21));
  const RunResult other = Simulate(s, 22);
  CHECK(EventTimes(other, "SpotReclaim") != reclaims);
}

TEST_CASE(
    "a single replica on a reclaimed node: no_replica for the outage, memory freed, Poisson "
    "reclaims") {
  const Scenario s = SpotSolo(1.0);
  const RunResult r = Simulate(s, 5);
  const std::vector<SimTime> reclaims = EventTimes(r, "SpotReclaim");
  const std::vector<SimTime> replaced = EventTimes(r, "NodeReplaced");
  REQUIRE(reclaims.size() >= 2);
  REQUIRE(replaced.size() + 1 >= reclaims.size());
  // Model loaded (3 GiB on the card, the replica Ready) from pull + load after each (re)start
  // until the next reclaim; clipped to the measured window.
  const SimTime startup = 30 * kNanosPerSecond;
  const SimTime warmup = s.run.warmup, end = s.run.duration;
  auto measured = [&](SimTime from, SimTime to) {
    return static_cast<double>(std::max<SimTime>(0, std::min(to, end) - std::max(from, warmup)));
  };
  double ready_ns = 0;
  for (size_t i = 0; i <= reclaims.size(); ++i) {
    const SimTime up = (i == 0 ? 0 : replaced.size() >= i ? replaced[i - 1] : end) + startup;
    const SimTime down = i < reclaims.size() ? reclaims[i] : end;
    if (up < down) ready_ns += measured(up, down);
  }
  const double window = static_cast<double>(end - warmup);
  CHECK(r.cards[0].memory_used_mib == doctest::Approx(3072.0 * ready_ns / window).epsilon(1e-9));
  CHECK(r.cards[0].busy < ready_ns / window);
  // Arrivals while no replica was Ready: Poisson at 20/s over the unready time (5 sigma).
  const WorkloadResult& w = r.workloads[0];
  const double unready_mean = 20.0 * (window - ready_ns) / 1e9;
  CHECK(unready_mean > 1000);
  MESSAGE("no_replica " << w.errors.no_replica << ", Poisson mean " << unready_mean << " over "
                        << reclaims.size() << " reclaims");
  CHECK(std::abs(static_cast<double>(w.errors.no_replica) - unready_mean) <
        5 * std::sqrt(unready_mean));
  CheckConservation(w);

  // Reclaims over many node-hours: a renewal process (up ~ Exp(1/rate), then down for
  // replace_after), so about T / (1/rate + replace_after) per node.
  Scenario many = SpotSolo(2.0);
  many.node_pools[0].count = 10;
  many.run.duration = 36000 * kNanosPerSecond;
  many.workloads[0].traffic.rate = 0.5;
  const RunResult m = Simulate(many, 3);
  const double expected = 10 * 10.0 / (0.5 + 60.0 / 3600);  // 10 nodes, 10 h
  const double count = static_cast<double>(EventTimes(m, "SpotReclaim").size());
  MESSAGE("reclaims " << count << ", expected " << expected);
  CHECK(std::abs(count - expected) < 4 * std::sqrt(expected));
}

TEST_CASE("the pods of a reclaimed node come back Running after replace_after + pull + load") {
  const Scenario s = SpotSolo(1.0);
  const RunResult full = Simulate(s, 5);
  const std::vector<SimTime> reclaims = EventTimes(full, "SpotReclaim");
  REQUIRE(reclaims.size() >= 2);
  const SimTime t = reclaims[0];
  // Reclaim times depend on the seed and the node only, not on how long the run goes on.
  REQUIRE(reclaims[1] > t + 120 * kNanosPerSecond);
  auto at = [&](SimTime end) {
    Scenario cut = s;
    cut.run.duration = end;
    cut.run.warmup = std::min(s.run.warmup, end);
    return Simulate(cut, 5);
  };
  const RunResult during = at(t + 30 * kNanosPerSecond);
  CHECK(EventTimes(during, "SpotReclaim") == std::vector<SimTime>{t});
  CHECK(during.pods[0].state == "Pending");
  CHECK(during.pods[0].node.empty());
  CHECK(during.pods[0].message.find("reclaimed (spot)") != std::string::npos);
  CHECK(during.cluster.pending_pods == 1);
  CHECK(during.cards[0].pods.empty());
  const SimTime replaced = t + 60 * kNanosPerSecond;
  CHECK(at(replaced + 5 * kNanosPerSecond).pods[0].state == "Starting");   // pulling
  CHECK(at(replaced + 29 * kNanosPerSecond).pods[0].state == "Starting");  // loading
  const RunResult back = at(replaced + 30 * kNanosPerSecond + 1);
  CHECK(back.pods[0].state == "Running");
  CHECK(back.pods[0].node == "gpu-0");
  CHECK(back.pods[0].restarts == 0);
  CHECK(EventTimes(back, "NodeReplaced") == std::vector<SimTime>{replaced});
}

TEST_CASE(
    "a spot notice: cordoned and drained at once, released `notice` later, replaced after "
    "replace_after; without the drain the pod serves until the release") {
  Scenario s = SpotSolo(1.0);
  s.node_pools[0].spot.notice = 300 * kNanosPerSecond;
  s.node_pools[0].spot.protection = 0;
  const RunResult r = Simulate(s, 5);
  const std::vector<SimTime> notices = EventTimes(r, "SpotInterruption");
  const std::vector<SimTime> releases = EventTimes(r, "SpotReclaim");
  const std::vector<SimTime> replaced = EventTimes(r, "NodeReplaced");
  REQUIRE(notices.size() >= 2);
  REQUIRE(releases.size() + 1 >= notices.size());
  for (size_t i = 0; i < releases.size(); ++i)
    CHECK(releases[i] == notices[i] + 300 * kNanosPerSecond);
  for (size_t i = 0; i < replaced.size(); ++i)
    CHECK(replaced[i] == releases[i] + 60 * kNanosPerSecond);
  // The drained replica finishes its requests within the grace period: none is interrupted.
  const WorkloadResult& drained = r.workloads[0];
  CHECK(drained.errors.interrupted == 0);
  CHECK(drained.errors.no_replica > 0);
  CheckConservation(drained);

  Scenario none = s;
  none.node_pools[0].spot.drain_on_notice = false;
  const RunResult n = Simulate(none, 5);
  CHECK(EventTimes(n, "SpotInterruption") == notices);  // the same reclaims
  CHECK(n.workloads[0].errors.no_replica < drained.errors.no_replica);
  CheckConservation(n.workloads[0]);
}

TEST_CASE("a node that joined during the run is not reclaimed in its protection period") {
  Scenario s = SpotSolo(6.0);
  s.node_pools[0].spot.notice = 0;
  s.node_pools[0].spot.protection = 3600 * kNanosPerSecond;
  const RunResult r = Simulate(s, 5);
  const std::vector<SimTime> reclaims = EventTimes(r, "SpotReclaim");
  const std::vector<SimTime> replaced = EventTimes(r, "NodeReplaced");
  REQUIRE(reclaims.size() >= 2);
  // Every reclaim after the first comes an hour or more after the last replacement joined.
  for (size_t i = 1; i < reclaims.size(); ++i)
    CHECK(reclaims[i] >= replaced[i - 1] + 3600 * kNanosPerSecond);
}

TEST_CASE("paired variants with more spot nodes see the same reclaims on the nodes they share") {
  Scenario one = SpotSolo(6.0);
  one.run.duration = 3600 * kNanosPerSecond;
  Scenario two = one;
  two.node_pools[0].count = 2;
  two.workloads[0].replicas = 2;
  const RunResult a = Simulate(one, 8), b = Simulate(two, 8);
  const std::vector<SimTime> first = EventTimes(a, "SpotReclaim", "gpu-0");
  CHECK(first.size() >= 2);
  CHECK(EventTimes(b, "SpotReclaim", "gpu-0") == first);
  CHECK(EventTimes(b, "SpotReclaim", "gpu-1") != first);
}

}  // namespace
}  // namespace knobsim
