// A pod's CPU usage (CpuUsage, engine_state.h): the core-time its requests spend in their CPU
// stages, integrated exactly by the kernel, and what the HPA's cpu metric makes of it
// (sim/controllers/horizontal_autoscaling.h).
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/controllers/horizontal_autoscaling.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {
namespace {

constexpr SimTime kMs = kNanosPerMilli;
constexpr SimTime kS = kNanosPerSecond;

// One A10 node, 16 cores; workloads added by the tests.
Scenario OneNode() {
  Scenario s;
  s.name = "cpu";
  NodePool pool;
  pool.name = "gpu";
  pool.count = 1;
  pool.gpu_type = "A10";
  pool.gpus_per_node = 1;
  pool.cpu_milli = 16000;
  pool.memory_mib = 64 * 1024;
  s.node_pools.push_back(pool);
  s.cluster.policy = SharingPolicy::kNative;
  s.cluster.switch_overhead = 0;
  s.run.duration = 30 * kS;
  s.run.warmup = 0;
  return s;
}

// A workload of one pod (gpu_mem 4) whose requests arrive at `at`, 10 ms of GPU work each.
Workload Service(const std::string& name, std::vector<SimTime> at) {
  Workload w;
  w.name = name;
  w.gpu_mem = 4;
  w.cpu_milli = 1000;
  w.memory.context_mib = 0;
  w.memory.weights_mib = 1024;
  auto rec = std::make_shared<RecordedArrivals>();
  rec->at = std::move(at);
  w.traffic.kind = ArrivalKind::kReplay;
  w.traffic.replay = rec;
  w.work.dist = WorkDistribution::kConstant;
  w.work.mean_s = 0.01;
  w.cpu_before = 100 * kMs;
  w.cpu_after = 50 * kMs;
  return w;
}

TEST_CASE("cpu usage integrates busy requests exactly at each change") {
  struct Step {
    SimTime at;
    int32_t delta;
    int64_t core_ns_after;  // CoreNsAt(at) once the change is made
  };
  // Two requests overlap from 1.05 s to 1.1 s: two cores there, one elsewhere.
  const Step steps[] = {{1000 * kMs, +1, 0},
                        {1050 * kMs, +1, 50 * kMs},
                        {1100 * kMs, -1, 150 * kMs},
                        {1150 * kMs, -1, 200 * kMs},
                        {2000 * kMs, 0, 200 * kMs}};
  CpuUsage cpu;
  for (const Step& step : steps) {
    CAPTURE(step.at);
    cpu.Change(step.at, step.delta);
    CHECK(cpu.CoreNsAt(step.at) == step.core_ns_after);
  }
  CHECK(cpu.busy == 0);
}

TEST_CASE("a request's cpu stages add their durations to its pod; a timeout ends the stage") {
  Scenario s = OneNode();
  // 100 ms before and 50 ms after the GPU, two overlapping requests: 2 × 150 ms of core time.
  s.workloads.push_back(Service("plain", {10 * kS, 10 * kS + 50 * kMs}));
  // The client gives up 40 ms into the 100 ms before the GPU: 40 ms, and never an after stage.
  Workload late = Service("late", {10 * kS});
  late.timeout = 40 * kMs;
  s.workloads.push_back(late);
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  REQUIRE(r.workloads.size() == 2);
  CHECK(r.workloads[1].errors.timeout == 1);
  const int64_t expected[] = {300 * kMs, 40 * kMs};
  for (const PodRun& pod : sim.state.pods) {
    CAPTURE(pod.name);
    CHECK(pod.cpu.busy == 0);
    CHECK(pod.cpu.CoreNsAt(sim.state.now) == expected[pod.workload]);
  }
}

TEST_CASE("the hpa's cpu sample is the window's average cores in millicores, rounded up") {
  struct Case {
    int64_t core_ns;
    SimTime window;
    int64_t millicores;
  };
  const Case cases[] = {
      {120 * kS, 60 * kS, 2000},              // two cores all the window
      {30 * kS, 60 * kS, 500},                // half a core
      {30 * kS + 1, 60 * kS, 501},            // a nanosecond more rounds up (MilliValue)
      {0, 60 * kS, 0},                        // idle
      {1'000'000 * kS, 60 * kS, 16'666'667},  // large counters stay exact
  };
  for (const Case& c : cases) {
    CAPTURE(c.core_ns);
    CHECK(AverageMillicores(c.core_ns, c.window) == c.millicores);
  }
}

// 10 requests/s, 200 ms of CPU each: two cores on a pod that requests one, 200 % against a
// 50 % target, so ceil(200 / 50 × 1) = 4 pods. The pod turns Ready at 30 s (its model load):
// inside the CPU initialization period it counts only once a whole metric window (60 s) has
// passed since that transition, so the first rescale is the sync at 90 s, not before.
TEST_CASE("an hpa on cpu waits a metric window after Ready, then scales to ceil(usage/target)") {
  Scenario s = OneNode();
  s.run.duration = 100 * kS;
  std::vector<SimTime> at;
  for (SimTime t = 50 * kMs; t < 100 * kS; t += 100 * kMs) at.push_back(t);
  Workload w = Service("api", at);
  w.cpu_before = 200 * kMs;
  w.cpu_after = 0;
  w.model_load = 30 * kS;
  HpaSpec hpa;
  hpa.name = "api";
  hpa.target_name = "api";
  hpa.max_replicas = 10;
  HpaMetric cpu = DefaultCpuMetric();
  cpu.target_utilization = 50;
  hpa.metrics = {cpu};
  w.hpa = hpa;
  s.workloads.push_back(w);
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  std::vector<const ClusterEvent*> rescales;
  for (const ClusterEvent& e : r.cluster.events)
    if (e.kind == "SuccessfulRescale") rescales.push_back(&e);
  REQUIRE(rescales.size() == 1);
  CHECK(rescales[0]->time == 90 * kS);
  CHECK(rescales[0]->message ==
        "New size: 4; reason: cpu resource utilization (percentage of request) above target");
}

}  // namespace
}  // namespace knobsim::engine
