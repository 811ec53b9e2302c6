// Closed-loop jobs in runs (closed_loops.h): the loops' pace alone and sharing a card, in-flight
// iterations, the completion that frees the card, and a deleted pod's loops handed to its
// replacement. Constant work, so every expected figure is exact arithmetic.
#include <doctest/doctest.h>

#include <string>

#include "sim/engine/cluster_control.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {
namespace {

constexpr SimTime kMs = kNanosPerMilli;
constexpr SimTime kS = kNanosPerSecond;

// One A10 card (speed 1), native time-slicing without switch cost, no warm-up.
Scenario OneCard(SimTime duration) {
  Scenario s;
  s.name = "closed-loops";
  s.cluster.policy = SharingPolicy::kNative;
  s.cluster.switch_overhead = 0;
  NodePool pool;
  pool.name = "gpu";
  pool.count = 1;
  pool.gpu_type = "A10";
  pool.gpus_per_node = 1;
  pool.cpu_milli = 64000;
  pool.memory_mib = 256 * 1024;
  s.node_pools.push_back(pool);
  s.run.duration = duration;
  s.run.warmup = 0;
  return s;
}

Workload Loop(const std::string& name, SimTime work, SimTime think, int in_flight = 1,
              int64_t steps = 0) {
  Workload w;
  w.name = name;
  w.replicas = 1;
  w.gpu_mem = 4;
  w.memory.context_mib = 0;
  w.work = {WorkDistribution::kConstant, static_cast<double>(work) / kS, 0};
  w.concurrency = 0;
  w.closed_loop = ClosedLoop{in_flight, think, steps};
  return w;
}

const WorkloadResult& Named(const RunResult& r, const std::string& name) {
  for (const WorkloadResult& w : r.workloads)
    if (w.name == name) return w;
  FAIL("no workload " << name);
  return r.workloads.front();
}

RunResult RunIt(const Scenario& s, const RunOptions& options = {}) {
  Simulator sim(s, 1, options);
  return sim.Run();
}

TEST_CASE("a loop alone on its card turns once per work + think: slowdown 1") {
  Scenario s = OneCard(100 * kS + 30 * kMs);
  s.workloads = {Loop("train", 100 * kMs, 50 * kMs)};
  const RunResult r = RunIt(s);
  const WorkloadResult& w = Named(r, "train");
  REQUIRE(w.closed_loop);
  CHECK(w.loop.step_ms_mean == doctest::Approx(150));
  CHECK(w.loop.solo_step_ms == doctest::Approx(150));
  CHECK(w.loop.slowdown == doctest::Approx(1));
  // The 667th GPU phase ends at 666 × 150 ms + 100 ms = 100 s; at 100.03 s it thinks.
  CHECK(w.loop.steps_done == 667);
  CHECK(w.completed == 667);
  CHECK(w.in_system_end == 0);
  CHECK(w.loop.steps_per_s == doctest::Approx(667 / 100.03));
  CHECK(w.loop.completed_at == -1);  // no `steps`: it never completes
}

TEST_CASE("two loops always on the card split it: each step takes twice as long") {
  Scenario s = OneCard(100 * kS + 100 * kMs);
  s.workloads = {Loop("a", 100 * kMs, 0), Loop("b", 100 * kMs, 0)};
  const RunResult r = RunIt(s);
  for (const char* name : {"a", "b"}) {
    const WorkloadResult& w = Named(r, name);
    CHECK(w.loop.step_ms_mean == doctest::Approx(200));
    CHECK(w.loop.solo_step_ms == doctest::Approx(100));
    CHECK(w.loop.slowdown == doctest::Approx(2));
    CHECK(w.loop.steps_done == 500);
    CHECK(w.in_system_end == 1);
  }
}

TEST_CASE("think time leaves the card to the other loop: steps overlap, slowdown below 2") {
  // Each loop is on the GPU 100 ms of every 100 ms + think: with think = work, the two
  // alternate — one thinks while the other runs alone — and neither slows down once in step.
  Scenario s = OneCard(100 * kS);
  s.workloads = {Loop("a", 100 * kMs, 100 * kMs), Loop("b", 100 * kMs, 100 * kMs)};
  const RunResult r = RunIt(s);
  for (const char* name : {"a", "b"}) {
    const WorkloadResult& w = Named(r, name);
    CHECK(w.loop.slowdown > 1);
    CHECK(w.loop.slowdown < 2);
  }
}

TEST_CASE("in_flight iterations share their pod's progress") {
  Scenario s = OneCard(30 * kS + 150 * kMs);
  s.workloads = {Loop("batch", 100 * kMs, 0, /*in_flight=*/3)};
  const RunResult r = RunIt(s);
  const WorkloadResult& w = Named(r, "batch");
  // Three jobs in service on the pod: each progresses at a third, all three end together.
  CHECK(w.loop.step_ms_mean == doctest::Approx(300));
  CHECK(w.loop.steps_per_s == doctest::Approx(300 / 30.15));
  CHECK(w.loop.steps_done == 300);
}

TEST_CASE("steps: the job completes at the steps-th success and its pods free the card") {
  Scenario s = OneCard(60 * kS + 50 * kMs);
  s.workloads = {Loop("train", 100 * kMs, 0, 1, /*steps=*/50), Loop("other", 100 * kMs, 0)};
  const RunResult r = RunIt(s);
  const WorkloadResult& train = Named(r, "train");
  // Sharing the card, each step takes 200 ms: 50 steps end at 10 s.
  CHECK(train.loop.steps_done == 50);
  CHECK(static_cast<double>(train.loop.completed_at) / kS == doctest::Approx(10));
  CHECK(train.loop.steps_per_s == doctest::Approx(5));
  bool train_pod = false;
  for (const PodResult& p : r.pods) train_pod = train_pod || p.workload == "train";
  CHECK_FALSE(train_pod);  // deleted: the Job's pods completed
  // The other loop had the card to itself for the remaining 50 s: 50 + 500 steps.
  CHECK(Named(r, "other").loop.steps_done == 550);
}

// Deletes the first pod at `at` (a Deployment: the ReplicaSet replaces it).
class DeleteAt final : public ClusterOperator {
 public:
  explicit DeleteAt(SimTime at) : at_(at) {}
  void Start(ClusterControl& c) override { c.WakeAt(at_, 0); }
  void Wake(ClusterControl& c, uint64_t) override { c.DeletePod(0, "test deletes it"); }
  void PodGone(ClusterControl&, int) override {}

 private:
  SimTime at_;
};

TEST_CASE("a deleted pod's loops end with it; its replacement runs its own") {
  Scenario s = OneCard(20 * kS);
  s.workloads = {Loop("train", 100 * kMs, 0, /*in_flight=*/2)};
  DeleteAt op(5 * kS + 50 * kMs);  // mid-iteration: both in-flight ones finish in the grace
  RunOptions options;
  options.cluster_operator = &op;
  Simulator sim(s, 1, options);
  const RunResult r = sim.Run();
  const WorkloadResult& w = Named(r, "train");
  CHECK(w.errors.interrupted == 0);
  // Every pod that ever ran kept at most in_flight loops; the replacement is running its two.
  int live = 0;
  for (const PodRun& pod : sim.state.pods) {
    CHECK(pod.loops <= 2);
    if (!pod.gone) live += pod.loops;
  }
  CHECK(live == 2);
  CHECK(w.in_system_end == 2);
}

}  // namespace
}  // namespace knobsim::engine
