#include "sim/timeline_stats.h"

#include <doctest/doctest.h>

#include <vector>

namespace knobsim {
namespace {

// A run whose one workload has `points` steps of 60 s, with `arrivals` each and latency `ms`
// (0 completions when ms < 0), and one card busy `busy` in every step.
RunResult Run(int points, int64_t arrivals, double ms, double busy) {
  RunResult r;
  r.timeline.step = 60 * kNanosPerSecond;
  r.timeline.end = points * r.timeline.step;
  WorkloadTimeline w;
  w.name = "svc";
  w.namespace_ = "default";
  w.desired = 1;
  for (int k = 0; k < points; ++k) {
    TimelinePoint p;
    p.start = k * r.timeline.step;
    p.arrivals = arrivals;
    p.completed = ms < 0 ? 0 : arrivals;
    p.latency_mean_ms = ms < 0 ? 0 : ms;
    w.points.push_back(p);
  }
  r.timeline.workloads.push_back(w);
  CardTimeline c;
  c.node = "node-a";
  c.index = 0;
  for (int k = 0; k < points; ++k) c.points.push_back({k * r.timeline.step, busy, busy, 100, 200});
  r.timeline.cards.push_back(c);
  return r;
}

TEST_CASE("timeline stats: each point is the mean over the replications, with its half-width") {
  const std::vector<RunResult> runs = {Run(2, 10, 20, 0.2), Run(2, 20, 40, 0.4)};
  const TimelineStats t = SummarizeTimelines(runs);
  CHECK(t.replications == 2);
  REQUIRE(t.workloads.size() == 1);
  REQUIRE(t.workloads[0].points.size() == 2);
  const TimelinePointStats& p = t.workloads[0].points[1];
  CHECK(p.start == 60 * kNanosPerSecond);
  CHECK(p.arrivals.mean == doctest::Approx(15));
  CHECK(p.arrivals.half_width > 0);
  CHECK(p.latency_mean_ms.mean == doctest::Approx(30));
  REQUIRE(t.cards.size() == 1);
  CHECK(t.cards[0].points[0].busy.mean == doctest::Approx(0.3));
  CHECK(t.cards[0].points[0].memory_peak_mib.mean == doctest::Approx(200));
}

TEST_CASE("timeline stats: Pending pods per step are the mean over the replications") {
  std::vector<RunResult> runs = {Run(1, 5, 50, 0.1), Run(1, 5, 50, 0.1)};
  runs[0].timeline.workloads[0].points[0].pending_mean = 0.5;
  runs[0].timeline.workloads[0].points[0].pending_max = 1;
  runs[1].timeline.workloads[0].points[0].pending_mean = 1.5;
  runs[1].timeline.workloads[0].points[0].pending_max = 3;
  const TimelinePointStats p = SummarizeTimelines(runs).workloads[0].points[0];
  CHECK(p.pending_mean.mean == doctest::Approx(1.0));
  CHECK(p.pending_mean.half_width > 0);
  CHECK(p.pending_max.mean == doctest::Approx(2.0));
  CHECK(p.pending_max.half_width > 0);
}

TEST_CASE("timeline stats: a latency is over the replications with a success in the step") {
  const std::vector<RunResult> runs = {Run(1, 5, 50, 0.1), Run(1, 5, -1, 0.1)};
  const TimelinePointStats p = SummarizeTimelines(runs).workloads[0].points[0];
  CHECK(p.replications == 2);
  CHECK(p.latency_replications == 1);
  CHECK(p.latency_mean_ms.mean == doctest::Approx(50));
  CHECK(p.latency_mean_ms.half_width == 0);
}

TEST_CASE("timeline stats: a replication that ended earlier counts only in its own points") {
  const std::vector<RunResult> runs = {Run(3, 10, 20, 0.5), Run(1, 30, 20, 0.5)};
  const TimelineStats t = SummarizeTimelines(runs);
  CHECK(t.end == 180 * kNanosPerSecond);
  REQUIRE(t.workloads[0].points.size() == 3);
  CHECK(t.workloads[0].points[0].replications == 2);
  CHECK(t.workloads[0].points[0].arrivals.mean == doctest::Approx(20));
  CHECK(t.workloads[0].points[2].replications == 1);
  CHECK(t.workloads[0].points[2].arrivals.mean == doctest::Approx(10));
}

TEST_CASE("timeline stats: runs without a timeline give none") {
  const std::vector<RunResult> runs(2);
  CHECK(SummarizeTimelines(runs).step == 0);
}

}  // namespace
}  // namespace knobsim

namespace knobsim {
namespace {

// The cost rate over time: each step's mean node count × the pool's price per node-hour, as
// --prices priced the pool's node-hours (PoolResult::cost / node_hours); unpriced pools none.
TEST_CASE("timeline: a priced pool's cost per hour follows its nodes, step by step") {
  TimelineStats t;
  PoolTimelineStats gpu;
  gpu.name = "gpu";
  gpu.points.resize(2);
  gpu.points[0].nodes_mean = {2, 0};
  gpu.points[1].nodes_mean = {3.5, 0.5};
  PoolTimelineStats cpu = gpu;
  cpu.name = "cpu";
  t.pools = {gpu, cpu};
  PoolResult priced;
  priced.name = "gpu";
  priced.currency = "CNY";
  priced.node_hours = 10;
  priced.cost = 100;  // 10 CNY per node-hour
  PoolResult unpriced;
  unpriced.name = "cpu";
  unpriced.node_hours = 4;
  PriceTimeline({priced, unpriced}, t);
  CHECK(t.pools[0].currency == "CNY");
  CHECK(t.pools[0].points[0].priced);
  CHECK(t.pools[0].points[0].cost_per_hour.mean == doctest::Approx(20));
  CHECK(t.pools[0].points[1].cost_per_hour.mean == doctest::Approx(35));
  CHECK(t.pools[0].points[1].cost_per_hour.half_width == doctest::Approx(5));
  CHECK(t.pools[1].currency.empty());
  CHECK(!t.pools[1].points[0].priced);
}

}  // namespace
}  // namespace knobsim
