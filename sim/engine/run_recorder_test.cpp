#include "sim/engine/run_recorder.h"

#include <doctest/doctest.h>

#include "sim/engine/card_sharing.h"

namespace knobsim::engine {
namespace {

// One node with one card, one workload of two replicas (no pods: the test plays the engine),
// a warm-up of 10 s and an end at 100 s.
Scenario Small() {
  Scenario s;
  s.name = "recorder";
  NodePool pool;
  pool.name = "gpu";
  pool.count = 1;
  pool.gpu_type = "A10";
  pool.gpus_per_node = 1;
  s.node_pools.push_back(pool);
  Workload w;
  w.name = "svc";
  w.replicas = 2;
  s.workloads.push_back(w);
  s.run.warmup = 10 * kNanosPerSecond;
  s.run.duration = 100 * kNanosPerSecond;
  return s;
}

// Small() as the engine would hold it, with a recorder to play the engine against.
struct Recording {
  explicit Recording(const RunOptions& options) : state(scenario, 1, options), sharing(state) {}
  const Scenario scenario = Small();
  EngineState state;
  CardSharing sharing;
  RunRecorder recorder{state};
};

RunOptions WithTimeline(std::vector<std::vector<double>> bounds_ms = {}) {
  RunOptions options;
  options.timeline_step = 50 * kNanosPerSecond;
  options.timeline_latency_bounds_ms = std::move(bounds_ms);
  return options;
}

TEST_CASE("run recorder: requests after the warm-up are counted, by fate") {
  const Scenario scenario = Small();
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  RunRecorder recorder(s);
  s.now = 5 * kNanosPerSecond;  // in the warm-up: not counted
  recorder.Arrived(0, false);
  s.now = 20 * kNanosPerSecond;
  recorder.Arrived(0, true);
  recorder.Arrived(0, true);
  recorder.Departed(0, 5 * kNanosPerSecond, 6 * kNanosPerSecond, false, true, nullptr);
  // Waited 20 ms for the GPU, served 30 ms.
  const SimTime gpu_start = s.now + 20 * kNanosPerMilli;
  s.now += 50 * kNanosPerMilli;
  recorder.Departed(0, 20 * kNanosPerSecond, gpu_start, true, true, nullptr);
  s.now += 50 * kNanosPerMilli;
  recorder.Departed(0, 20 * kNanosPerSecond, -1, true, false, &ErrorCounts::timeout);
  s.now = s.end;
  const RunResult r = recorder.Collect(sharing);
  REQUIRE(r.workloads.size() == 1);
  const WorkloadResult& w = r.workloads[0];
  CHECK(w.name == "svc");
  CHECK(w.requests == 2);
  CHECK(w.completed == 1);
  CHECK(w.errors.timeout == 1);
  CHECK(w.in_system_end == 0);
  CHECK(w.latency_ms.mean == doctest::Approx(50.0));
  // Wait and service split the latency of the successes only (the timeout never reached a GPU).
  CHECK(w.queue_wait_ms_mean == doctest::Approx(20.0));
  CHECK(w.queue_wait_ms_p99 == doctest::Approx(20.0).epsilon(0.01));
  CHECK(w.service_ms_mean == doctest::Approx(30.0));
  CHECK(w.time_in_system_mean_ms == doctest::Approx(75.0));
  CHECK(w.error_ratio == doctest::Approx(0.5));
  CHECK(w.measured_s == doctest::Approx(90.0));
  CHECK(r.cards.size() == 1);
}

TEST_CASE("run recorder: availability is integrated from the warm-up, per timeline step") {
  Recording run(WithTimeline());
  EngineState& s = run.state;
  CardSharing& sharing = run.sharing;
  RunRecorder& recorder = run.recorder;
  // Both replicas available from t = 0, one from t = 50 s.
  recorder.IntegrateAvailability(0);
  s.workloads[0].available = 2;
  s.now = 50 * kNanosPerSecond;
  recorder.IntegrateAvailability(0);
  s.workloads[0].available = 1;
  s.now = s.end;
  const RunResult r = recorder.Collect(sharing);
  REQUIRE(r.timeline.workloads.size() == 1);
  const WorkloadTimeline& t = r.timeline.workloads[0];
  REQUIRE(t.points.size() == 2);
  CHECK(t.points[0].available_mean == doctest::Approx(2.0));
  CHECK(t.points[1].available_mean == doctest::Approx(1.0));
  CHECK(t.points[1].available_min == 1);
  // (40 s at 2 of 2 + 50 s at 1 of 2) / 90 s measured.
  CHECK(t.available_fraction == doctest::Approx(65.0 / 90.0));
  CHECK(t.below_desired_ns == 50 * kNanosPerSecond);
  CHECK(t.unavailable_ns == 0);
}

// The engine changes WorkloadRun::pending just after telling the recorder (as MoveEndpoint does);
// steps of 60 s over the run's 100 s: [0, 60) and [60, 100), 40 s long.
TEST_CASE("run recorder: Pending pods are time-averaged per step, with the most at any moment") {
  struct Change {
    int t_s;
    int pending;  // from t_s on
  };
  struct Case {
    const char* name;
    std::vector<Change> changes;
    double mean[2];
    int max[2];
  };
  const Case cases[] = {
      {"one pod Pending 30 s of a 60 s step", {{15, 1}, {45, 0}}, {0.5, 0}, {1, 0}},
      {"two pods across the step boundary", {{45, 2}, {75, 0}}, {0.5, 0.75}, {2, 2}},
      {"Pending to the end", {{80, 1}}, {0, 0.5}, {0, 1}},
      {"a state that lasts no time", {{30, 3}, {30, 0}}, {0, 0}, {0, 0}},
      {"one, then three, then one", {{0, 1}, {20, 3}, {40, 1}, {60, 0}}, {5.0 / 3, 0}, {3, 0}},
  };
  RunOptions options;
  options.timeline_step = 60 * kNanosPerSecond;
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Recording run(options);
    EngineState& s = run.state;
    for (const Change& change : c.changes) {
      s.now = change.t_s * kNanosPerSecond;
      run.recorder.IntegrateAvailability(0);
      s.workloads[0].pending = change.pending;
    }
    s.now = s.end;
    const RunResult r = run.recorder.Collect(run.sharing);
    const std::vector<TimelinePoint>& points = r.timeline.workloads.at(0).points;
    REQUIRE(points.size() == 2);
    for (size_t k = 0; k < 2; ++k) {
      CHECK(points[k].pending_mean == doctest::Approx(c.mean[k]));
      CHECK(points[k].pending_max == c.max[k]);
    }
  }
}

// Prometheus' histogram counts an observation in every bucket whose `le` bound it does not
// exceed; the timeline's latency_at_or_below counts the step's successes the same way.
TEST_CASE("run recorder: successes per step are counted into the given le buckets") {
  Recording run(WithTimeline({{10, 100, 1000}}));
  EngineState& s = run.state;
  RunRecorder& recorder = run.recorder;
  struct Departure {
    SimTime at;
    double latency_ms;
    bool success;
  };
  // Step 0: 5 ms, exactly 10 ms (le is inclusive), 10.5 ms, 2 s, a failure (not counted);
  // step 1: 100 ms, counted in the step it left in even though it arrived in step 0.
  const Departure departures[] = {{1, 5, true},    {2, 10, true},  {3, 10.5, true},
                                  {4, 2000, true}, {5, 50, false}, {50, 100, true}};
  for (const Departure& d : departures) {
    s.now = d.at * kNanosPerSecond;
    const SimTime arrival = s.now - static_cast<SimTime>(d.latency_ms * 1e6);
    recorder.Departed(0, arrival, arrival, false, d.success, &ErrorCounts::timeout);
  }
  s.now = s.end;
  const RunResult r = recorder.Collect(run.sharing);
  const std::vector<TimelinePoint>& points = r.timeline.workloads.at(0).points;
  REQUIRE(points.size() == 2);
  CHECK(points[0].latency_at_or_below == std::vector<int64_t>{2, 3, 3});
  CHECK(points[0].completed == 4);  // the +Inf bucket
  CHECK(points[1].latency_at_or_below == std::vector<int64_t>{0, 1, 1});
}

TEST_CASE("run recorder: without bounds the timeline counts no buckets") {
  Recording run(WithTimeline());
  EngineState& s = run.state;
  RunRecorder& recorder = run.recorder;
  s.now = 10 * kNanosPerSecond;
  recorder.Departed(0, s.now - kNanosPerMilli, s.now - kNanosPerMilli, false, true, nullptr);
  s.now = s.end;
  const RunResult r = recorder.Collect(run.sharing);
  CHECK(r.timeline.workloads.at(0).points.at(0).latency_at_or_below.empty());
}

}  // namespace
}  // namespace knobsim::engine
