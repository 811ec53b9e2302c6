#include "sim/replay/timed.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "sim/replay/placer.h"
#include "sim/replay/test_data.h"
#include "sim/replay/timed_output.h"
#include "sim/replay/trace_conversion.h"

namespace knobsim::replay {

using fgd::FragVector;
using fgd::GoRand;
using fgd::kAllPolicies;
using fgd::NodeState;
using fgd::PolicyKind;
using fgd::PolicyName;

namespace {

TraceNode Node(std::string name, int gpus, std::string model = "T4", int64_t cpu = 64000,
               int64_t mem = 262144) {
  return TraceNode{std::move(name), cpu, mem, gpus, std::move(model), 0};
}

// A pod of `milli` on each of `num_gpu` cards (0: CPU-only), alive from `created` to `deleted`
// (seconds; nullopt: no such column value).
TracePod Pod(std::string name, int num_gpu, int64_t milli, std::optional<int64_t> created,
             std::optional<int64_t> deleted, int64_t cpu = 1000, std::string spec = "",
             int64_t mem = 1024) {
  TracePod p;
  p.name = std::move(name);
  p.cpu_milli = cpu;
  p.memory_mib = mem;
  p.num_gpu = num_gpu;
  p.gpu_milli = milli;
  p.gpu_spec = std::move(spec);
  p.creation_time = created;
  p.deletion_time = deleted;
  return p;
}

TimedOptions Options(int64_t interval_s = 100) {
  TimedOptions o;
  o.interval = interval_s * kNanosPerSecond;
  o.record_steps = true;
  return o;
}

// The steps as "time kind pod@node" words, pods and nodes by name.
std::string Steps(const Workload& w, const TimedResult& r) {
  static const char* kKinds[] = {"placed", "pending", "retried", "departed", "withdrawn"};
  std::string out;
  for (const TimedStep& s : r.steps) {
    if (!out.empty()) out += ", ";
    out += std::to_string(s.time / kNanosPerSecond) + " " + kKinds[static_cast<int>(s.kind)] + " " +
           w.pods[s.pod].name;
    if (s.node >= 0) out += "@" + w.nodes[s.node].name;
  }
  return out;
}

TEST_CASE(
    "timed: arrivals in time order, ties by name; departures first at an instant, "
    "except a pod's own departure at its arrival") {
  const Workload w = MakeWorkload("order", {Node("n", 4)},
                                  {Pod("c", 1, 100, 1, std::nullopt), Pod("b", 1, 100, 5, 9),
                                   Pod("a", 1, 100, 5, 5), Pod("d", 1, 100, 0, 5)});
  const TimedResult r = ReplayTimed(w, PolicyKind::kFgd, 42, Options());
  CHECK(Steps(w, r) ==
        "0 placed d@n, 1 placed c@n, 5 departed d@n, 5 placed a@n, 5 placed b@n, "
        "5 departed a@n, 9 departed b@n");
  CHECK(r.arrived == 4);
  CHECK(r.placed_at_once == 4);
  CHECK(r.end == 9 * kNanosPerSecond);
}

TEST_CASE("timed: a pod leaving at t frees its card for a pod arriving at t") {
  const Workload w = MakeWorkload("handover", {Node("n", 1)},
                                  {Pod("x", 1, 1000, 0, 10), Pod("y", 1, 1000, 10, std::nullopt)});
  const TimedResult r = ReplayTimed(w, PolicyKind::kBestFit, 42, Options());
  CHECK(Steps(w, r) == "0 placed x@n, 10 departed x@n, 10 placed y@n");
  CHECK(r.placed_after_wait == 0);
}

// One card. A holds it 0-100; B (whole card), C (half), D (whole, deleted at 50) and E (whole)
// queue up behind it.
Workload RetryTrace() {
  return MakeWorkload(
      "retry", {Node("n", 1)},
      {Pod("a", 1, 1000, 0, 100), Pod("b", 1, 1000, 10, 300), Pod("c", 1, 500, 20, std::nullopt),
       Pod("d", 1, 1000, 30, 50), Pod("e", 1, 1000, 40, std::nullopt)});
}

TEST_CASE("timed retry rule: after a departure, Pending pods are retried in arrival order") {
  const Workload w = RetryTrace();
  for (PolicyKind policy : kAllPolicies) {
    INFO(PolicyName(policy));
    const TimedResult r = ReplayTimed(w, policy, 42, Options());
    // At 100 the card goes to B, first in line, though C would fit on half of it; C gets the
    // other half when B leaves; E (a whole card) never gets one; D gives up while waiting.
    CHECK(Steps(w, r) ==
          "0 placed a@n, 10 pending b, 20 pending c, 30 pending d, 40 pending e, "
          "50 withdrawn d, 100 departed a@n, 100 retried b@n, 300 departed b@n, "
          "300 retried c@n");
    CHECK(r.placed_at_once == 1);
    CHECK(r.placed_after_wait == 2);
    CHECK(r.withdrawn == 1);
    CHECK(r.pending_at_end == 1);
    CHECK(r.peak_pending == 4);
  }
}

TEST_CASE("timed: samples hold the state after every event at or before their time") {
  const Workload w = RetryTrace();
  const TimedResult r = ReplayTimed(w, PolicyKind::kFgd, 42, Options(100));
  REQUIRE(r.samples.size() == 4);  // 0, 100, 200, 300 (the last event)
  const int kGpu = static_cast<int>(PendingReason::kInsufficientGpu);
  CHECK(r.samples[0].running == 1);
  CHECK(r.samples[0].pending == 0);
  CHECK(r.samples[0].used == 1000);
  CHECK(r.samples[1].time == 100 * kNanosPerSecond);
  CHECK(r.samples[1].running == 1);  // B
  CHECK(r.samples[1].pending == 2);  // C and E
  CHECK(r.samples[1].pending_gpu == 1500);
  CHECK(r.samples[1].reasons[kGpu] == 2);
  CHECK(r.samples[3].running == 1);  // C
  CHECK(r.samples[3].used == 500);
  CHECK(r.samples[3].pending == 1);  // E
  CHECK(r.samples[3].reasons[kGpu] == 1);
  // Over the run, 0-300 s, the card is allocated throughout; 1, 2, 3, 4 pods wait 10 s each,
  // then 3 for 50 s and 2 for 200 s.
  CHECK(r.averages.used == doctest::Approx(1000));
  CHECK(r.averages.pending == doctest::Approx(650.0 / 300));
  CHECK(r.peak_used == 1000);
  CHECK(r.wait_seconds == doctest::Approx(90 + 280));  // B and C
}

TEST_CASE("timed: --until stops the run, what waits then counts as pending at the end") {
  const Workload w = RetryTrace();
  TimedOptions o = Options(100);
  o.until = 250 * kNanosPerSecond;
  const TimedResult r = ReplayTimed(w, PolicyKind::kFgd, 42, o);
  CHECK(Steps(w, r) ==
        "0 placed a@n, 10 pending b, 20 pending c, 30 pending d, 40 pending e, "
        "50 withdrawn d, 100 departed a@n, 100 retried b@n");
  REQUIRE(r.samples.size() == 3);  // 0, 100, 200
  CHECK(r.samples[2].pending == 2);
  CHECK(r.pending_at_end == 2);
  CHECK(TimedEnd(w, o) == 250 * kNanosPerSecond);
}

TEST_CASE("timed: the CSV has one row per sample and the reasons' columns") {
  const Workload w = RetryTrace();
  const TimedResult r = ReplayTimed(w, PolicyKind::kFgd, 42, Options(100));
  const std::string csv = FormatTimedCsv(r, w.capacity_milli);
  CHECK(csv.rfind("time_s,running_pods,pending_pods,allocated_gpu_pct,pending_gpu_pct,"
                  "frag_gpu_pct,frag_ratio_pct,pending_insufficient_gpu,"
                  "pending_gpu_spec_mismatch,pending_insufficient_cpu,"
                  "pending_insufficient_memory,pending_too_many_pods\n",
                  0) == 0);
  CHECK(csv.find("\n100,1,2,100.00,150.00,") != std::string::npos);
  CHECK(csv.find("\n300,1,1,50.00,100.00,") != std::string::npos);
  CHECK(TimedCsvName("openb_pod_list_default", PolicyKind::kAckSpread, 42) ==
        "timed_openb_pod_list_default_ack-spread_42.csv");
}

TEST_CASE("timed: --compress packs the arrivals and keeps each pod's lifetime") {
  const Workload w =
      MakeWorkload("compress", {Node("n", 2)},
                   {Pod("a", 1, 1000, 1000, 1500), Pod("b", 1, 1000, 2000, std::nullopt)});
  TimedOptions o = Options();
  o.compress = 10;
  const TimedResult r = ReplayTimed(w, PolicyKind::kFgd, 42, o);
  CHECK(Steps(w, r) == "100 placed a@n, 200 placed b@n, 600 departed a@n");
  CHECK(TimedEnd(w, o) == 600 * kNanosPerSecond);
  CHECK(TimedEnd(w, Options()) == 2000 * kNanosPerSecond);
}

TEST_CASE("timed: a deletion before the creation is a departure at arrival") {
  const Workload w = MakeWorkload("backwards", {Node("n", 1)}, {Pod("a", 1, 1000, 50, 20)});
  const TimedResult r = ReplayTimed(w, PolicyKind::kFgd, 42, Options());
  CHECK(Steps(w, r) == "50 placed a@n, 50 departed a@n");
}

TEST_CASE("timed: only pod lists with creation times replay by time") {
  const std::vector<TraceNode> nodes = {Node("n", 1)};
  std::vector<TracePod> no_times = {Pod("a", 1, 100, std::nullopt, std::nullopt),
                                    Pod("b", 1, 100, std::nullopt, std::nullopt)};
  const Status none = CheckTimes(MakeWorkload("multigpu", nodes, no_times), "multigpu.csv");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().line == 0);
  CHECK(none.ToString().find("multigpu.csv: no creation times") == 0);
  CHECK(none.ToString().find("5-column multigpu") != std::string::npos);

  std::vector<TracePod> one_missing = {Pod("a", 1, 100, 5, 7),
                                       Pod("b", 1, 100, std::nullopt, std::nullopt)};
  one_missing[1].line = 3;
  const Status missing = CheckTimes(MakeWorkload("gap", nodes, one_missing), "gap.csv");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.ToString() ==
        "gap.csv:3: creation_time: empty: --timed needs every pod's "
        "creation time");

  std::vector<TracePod> far = {Pod("a", 1, 100, 5, int64_t{5'000'000'000})};
  CHECK_FALSE(CheckTimes(MakeWorkload("far", nodes, far), "far.csv").ok());
  CHECK(CheckTimes(MakeWorkload("ok", nodes, {Pod("a", 1, 100, 5, std::nullopt)}), "ok").ok());
}

TEST_CASE("pending reasons: the filter most allowed nodes fail; gpu_spec when only it blocks") {
  // n0, n2: 2 T4 cards, little CPU and memory; n1: 1 V100M16 card, plenty of both.
  const std::vector<TraceNode> nodes = {Node("n0", 2, "T4", 8000, 16384),
                                        Node("n1", 1, "V100M16", 64000, 65536),
                                        Node("n2", 2, "T4", 8000, 16384)};
  const std::vector<TracePod> pods = {
      Pod("p0", 4, 1000, 0, std::nullopt),                     // 4 cards: no node has them
      Pod("p1", 1, 1000, 0, std::nullopt, 32000, "T4"),        // fits only on the V100
      Pod("p2", 1, 1000, 0, std::nullopt, 100000, "T4"),       // CPU short everywhere
      Pod("p3", 1, 500, 0, std::nullopt, 4000, "", 100000),    // memory short everywhere
      Pod("p4", 0, 0, 0, std::nullopt, 100000),                // CPU-only, CPU short
      Pod("p5", 1, 100, 0, std::nullopt, 1000, "A10"),         // a model the cluster lacks
      Pod("p6", 1, 1000, 0, std::nullopt, 16000, "", 20000),   // fits on the V100
      Pod("p7", 2, 1000, 0, std::nullopt, 16000),              // 2 cards on n0, n2: CPU short
      Pod("p8", 1, 1000, 0, std::nullopt, 16000, "", 100000),  // n0, n2 CPU; n1 memory
  };
  const Workload w = MakeWorkload("reasons", nodes, pods);
  GoRand rng(42);
  const std::vector<int> rank = {0, 1, 2};
  const Placer placer(w, PolicyKind::kFgd, rank, rng);
  const auto why = [&](int p) { return WhyPending(placer, w.requests[p]); };
  CHECK(why(0) == PendingReason::kInsufficientGpu);
  CHECK(why(1) == PendingReason::kGpuSpecMismatch);
  CHECK(why(2) == PendingReason::kInsufficientCpu);
  CHECK(why(3) == PendingReason::kInsufficientMemory);
  CHECK(why(4) == PendingReason::kInsufficientCpu);
  CHECK(why(5) == PendingReason::kGpuSpecMismatch);
  CHECK_FALSE(why(6));
  CHECK(why(7) == PendingReason::kInsufficientCpu);
  CHECK(why(8) == PendingReason::kInsufficientCpu);
  CHECK(PendingReasonName(PendingReason::kGpuSpecMismatch) == "gpu_spec mismatch");
}

TEST_CASE("placer: releasing every pod restores the empty cluster, GpuClustering's tags too") {
  const std::vector<TraceNode> nodes = {Node("g", 8, "G2", 96000, 393216), Node("t", 2)};
  const Workload w =
      MakeWorkload("release", nodes,
                   {Pod("a", 1, 300, 0, 1), Pod("b", 1, 300, 0, 1), Pod("c", 2, 1000, 0, 1),
                    Pod("d", 0, 0, 0, 1, 4000), Pod("e", 1, 1000, 0, 1)});
  GoRand rng(42);
  const std::vector<int> rank = {1, 0};
  Placer placer(w, PolicyKind::kClustering, rank, rng);
  const FragVector empty = placer.frag();
  std::vector<Placer::Placement> placed;
  for (int p = 0; p < 5; ++p) {
    placed.push_back(placer.Place(p));
    REQUIRE(placed.back().node >= 0);
  }
  CHECK(placer.used() == 300 + 300 + 2000 + 1000);
  // Two shared pods carry one tag: it stays until the second one leaves.
  const int node_a = placed[0].node;
  REQUIRE(placed[1].node == node_a);
  placer.Release(0, placed[0]);
  CHECK((placer.node(node_a).tags & 1) == 1);
  placer.Release(1, placed[1]);
  CHECK((placer.node(node_a).tags & 1) == 0);
  for (int p = 2; p < 5; ++p) placer.Release(p, placed[p]);
  CHECK(placer.used() == 0);
  for (int i = 0; i < 2; ++i) {
    const NodeState fresh = MakeNodeState(w.nodes[i], w.models);
    const NodeState& now = placer.node(i);
    CHECK(now.cpu_free == fresh.cpu_free);
    CHECK(now.mem_free == fresh.mem_free);
    CHECK(now.pods == 0);
    CHECK(now.tags == 0);
    CHECK(now.free == fresh.free);
  }
  CHECK(placer.frag() == empty);
}

TEST_CASE(
    "timed replay of the default trace: the retry shortcut changes nothing, every "
    "Pending pod has a reason, every pod is accounted for" *
    doctest::skip(!testing::TraceAvailable())) {
  const std::string dir = testing::TraceDir();
  const Expected<std::vector<TraceNode>> nodes = ReadNodeCsv(dir + "openb_node_list_gpu_node.csv");
  Expected<std::vector<TracePod>> pods = ReadPodCsv(dir + "openb_pod_list_gpuspec20.csv");
  REQUIRE(nodes.ok());
  REQUIRE(pods.ok());
  // Lifetimes capped at an hour: the few pods living for months would stretch the run (and
  // its one-second samples) over months of an almost empty cluster.
  for (TracePod& p : *pods) {
    if (p.deletion_time) p.deletion_time = std::min(*p.deletion_time, *p.creation_time + 3600);
  }
  const Workload w = MakeWorkload("openb_pod_list_gpuspec20", *nodes, *pods);
  REQUIRE(CheckTimes(w, "gpuspec20").ok());
  for (PolicyKind policy : {PolicyKind::kFgd, PolicyKind::kRandom}) {
    INFO(PolicyName(policy));
    TimedOptions o = Options(1);
    o.compress = 100000;  // arrivals within about 2 minutes: the cluster fills, pods wait
    const TimedResult fast = ReplayTimed(w, policy, 42, o);
    o.retry_all = true;
    const TimedResult full = ReplayTimed(w, policy, 42, o);
    CHECK(fast.steps.size() == full.steps.size());
    bool same = fast.steps.size() == full.steps.size();
    for (size_t i = 0; same && i < fast.steps.size(); ++i) {
      same = fast.steps[i].time == full.steps[i].time && fast.steps[i].kind == full.steps[i].kind &&
             fast.steps[i].pod == full.steps[i].pod && fast.steps[i].node == full.steps[i].node;
    }
    CHECK(same);
    CHECK(fast.placed_after_wait > 50);
    CHECK(fast.arrived == static_cast<int>(w.pods.size()));
    CHECK(fast.placed_at_once + fast.placed_after_wait + fast.withdrawn + fast.pending_at_end ==
          fast.arrived);
    int unexplained = 0;
    int max_pending = 0;
    for (const TimedSample& s : fast.samples) {
      int sum = 0;
      for (int n : s.reasons) sum += n;
      unexplained += s.pending - sum;
      max_pending = std::max(max_pending, s.pending);
    }
    CHECK(unexplained == 0);
    CHECK(max_pending > 0);
    CHECK(fast.peak_pending >= max_pending);
  }
}

}  // namespace
}  // namespace knobsim::replay
