#include "sim/run_limits.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

namespace knobsim {
namespace {

constexpr SimTime kSecond = kNanosPerSecond;

// One pool of `nodes` one-card nodes and one Poisson workload at `rate`/s, for `seconds`.
Scenario Small(int nodes = 2, double rate = 10, int replicas = 2, double seconds = 100) {
  Scenario s;
  NodePool pool;
  pool.name = "gpu";
  pool.count = nodes;
  pool.gpu_type = "A10";
  pool.gpus_per_node = 1;
  s.node_pools.push_back(pool);
  Workload w;
  w.name = "api";
  w.replicas = replicas;
  w.traffic.kind = ArrivalKind::kPoisson;
  w.traffic.rate = rate;
  s.workloads.push_back(w);
  s.run.duration = static_cast<SimTime>(seconds * kSecond);
  return s;
}

Sweep One(const Scenario& s, int replications = 1, SimTime step = 0) {
  Sweep sweep;
  sweep.runs.push_back({"base", &s});
  sweep.replications = replications;
  sweep.timeline_step = step;
  return sweep;
}

std::string Message(const Status& s) {
  return s.ok() ? "" : s.ToString();
}

TEST_CASE(
    "run limits: estimated events are arrivals over every variant and replication, plus "
    "pods and nodes") {
  const Scenario s = Small(2, 10, 3, 100);  // 1000 arrivals + 3 pods + 2 nodes
  CHECK(EstimatedEvents(One(s)) == doctest::Approx(1005));
  CHECK(EstimatedEvents(One(s, 4)) == doctest::Approx(4020));
  Sweep two = One(s, 2);
  two.runs.push_back({"v", &s});
  CHECK(EstimatedEvents(two) == doctest::Approx(4020));
  two.duration = 10 * kSecond;  // a planned end overrides run.duration
  CHECK(EstimatedEvents(two) == doctest::Approx(4 * 105));
}

TEST_CASE("run limits: every size over its limit is refused before the run, naming the limit") {
  struct Case {
    const char* name;
    Scenario scenario;
    int replications;
    SimTime step;
    const char* expected;  // a fragment of the message
  };
  Scenario scaled = Small();
  scaled.workloads[0].traffic.scale = 1e308;  // whatif --knob traffic=1e308: rate × scale = inf
  Scenario diurnal = Small();
  diurnal.workloads[0].traffic.kind = ArrivalKind::kDiurnal;
  diurnal.workloads[0].traffic.diurnal_mean = 8e5;
  diurnal.workloads[0].traffic.diurnal_amplitude = 0.5;  // peak 1.2e6 > 1e6
  const Case cases[] = {
      {"a rate of 1e308/s", Small(2, 1e308, 2, 0.001), 1, 0, "a traffic rate of 1e+308/s"},
      {"a NaN rate", Small(2, std::nan(""), 2), 1, 0, "a traffic rate of nan/s"},
      {"a scaled rate overflowing to inf", scaled, 1, 0, "a traffic rate of inf/s"},
      {"a diurnal peak over the rate", diurnal, 1, 0, "limit of 1e+06/s per workload"},
      {"100000000 nodes", Small(100'000'000), 1, 0, "100000000 nodes (all pools)"},
      {"100000000 replicas", Small(2, 10, 100'000'000), 1, 0, "100000000 replicas are over"},
      {"too many events", Small(2, 1e5, 2, 3600), 10, 0, "simulate about 3.6e+09 events"},
      {"a 1 ns timeline", Small(), 1, 1, "the timeline would take about"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string message =
        Message(CheckRunLimits(One(c.scenario, c.replications, c.step), RunLimits{}));
    CHECK(message.find(c.expected) != std::string::npos);
    CHECK(message.find("--limit") != std::string::npos);
  }
  CHECK(CheckRunLimits(One(Small(), 5, kSecond), RunLimits{}).ok());
}

TEST_CASE("run limits: pods over the per-run limit are counted over all workloads") {
  Scenario s = Small(2, 10, 100'000);
  s.workloads.push_back(s.workloads[0]);
  s.workloads[1].name = "other";
  CHECK(Message(CheckRunLimits(One(s), RunLimits{})).find("200000 pods") != std::string::npos);
}

TEST_CASE("run limits: the timeline estimate is steps × (workloads + cards) × bytes per point") {
  const Scenario s = Small(3, 10, 2, 100);  // 1 workload + 3 cards, 100 steps of 1 s
  CHECK(EstimatedTimelineBytes(One(s, 1, 0)) == 0);
  CHECK(EstimatedTimelineBytes(One(s, 2, kSecond)) ==
        doctest::Approx(100 * 4 * (kTimelineBytesPerPoint + 2 * kTimelineBytesPerKeptPoint)));
}

TEST_CASE("run limits: --limit NAME=VALUE raises a limit; a bad one names what is accepted") {
  RunLimits limits;
  CHECK(SetRunLimit("events=1e12", &limits).ok());
  CHECK(limits.events == 1e12);
  CHECK(SetRunLimit("nodes=200000", &limits).ok());
  CHECK(limits.nodes == 200000);
  CHECK(SetRunLimit("timeline-memory=4e9", &limits).ok());
  CHECK(limits.timeline_bytes == 4e9);
  CHECK(CheckRunLimits(One(Small(2, 1e5, 2, 3600), 10), limits).ok());

  struct Bad {
    const char* text;
    const char* expected;
  };
  const Bad bad[] = {
      {"events", "is not NAME=VALUE with NAME one of rate, nodes"},
      {"speed=3", "unknown limit \"speed\""},
      {"events=nan", "\"nan\" is not a positive finite number"},
      {"events=inf", "is not a positive finite number"},
      {"rate=-1", "is not a positive finite number"},
      {"nodes=1.5", "is not a whole number"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    CHECK(Message(SetRunLimit(b.text, &limits)).find(b.expected) != std::string::npos);
  }
}


TEST_CASE("schedule limits: nodes, bound and pending pods, and --explain's rows, each named") {
  RunLimits limits;
  limits.nodes = 100;
  limits.pods = 1000;
  limits.explain_rows = 5000;
  struct Case {
    int64_t nodes, bound, pending;
    bool explain;
    const char* expected;  // "" = within every limit
  };
  const Case cases[] = {
      {100, 400, 600, false, ""},  // at the nodes and pods limits
      {101, 0, 1, false, "--cluster: 101 nodes are over the limit of 100; raise it with "
                         "--limit nodes=N"},
      {100, 400, 601, false, "1001 pods (400 bound in --cluster, 601 pending in --pods) are "
                             "over the limit of 1000; raise it with --limit pods=N"},
      {100, 0, 51, true, "--explain: 51 pending pods × 100 nodes make 5.1e+03 table rows, over "
                         "the limit of 5000"},
      {100, 0, 50, true, ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.nodes);
    CAPTURE(c.pending);
    const Status s = CheckScheduleLimits(c.nodes, c.bound, c.pending, c.explain, limits);
    if (*c.expected == 0) {
      CHECK(s.ok());
    } else {
      CHECK(Message(s).find(c.expected) != std::string::npos);
    }
  }
  CHECK(SetRunLimit("explain-rows=1e7", &limits).ok());
  CHECK(limits.explain_rows == 10'000'000);
}
}  // namespace
}  // namespace knobsim
