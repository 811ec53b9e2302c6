#include "sim/io/timeline_json.h"

#include <doctest/doctest.h>

#include <vector>

#include <nlohmann/json.hpp>

namespace knobsim {
namespace {

RunResult OneStep(int64_t arrivals, double busy) {
  RunResult r;
  r.timeline.step = 60 * kNanosPerSecond;
  r.timeline.end = r.timeline.step;
  WorkloadTimeline w{.name = "svc", .namespace_ = "ai", .points = {}};
  TimelinePoint p;
  p.arrivals = arrivals;
  w.points.push_back(p);
  r.timeline.workloads.push_back(w);
  CardTimeline c{.node = "node-a", .index = 1, .gpu = "A10", .points = {}};
  c.points.push_back({0, busy, busy, 10, 20});
  r.timeline.cards.push_back(c);
  return r;
}

TEST_CASE("timeline JSON: replicated, every point is a mean with its ci95 half-widths") {
  const std::vector<RunResult> runs = {OneStep(10, 0.2), OneStep(20, 0.4)};
  const nlohmann::ordered_json j = TimelineToJson(SummarizeTimelines(runs), true);
  CHECK(j["replications"] == 2);
  const auto& point = j["workloads"][0]["points"][0];
  CHECK(point["arrivals"] == 15.0);
  CHECK(point["ci95"]["arrivals"].get<double>() > 0);
  CHECK(point["latency_ms"]["mean"].is_null());  // nothing succeeded in either replication
  const auto& card = j["cards"][0];
  CHECK(card["id"] == "node-a/1");
  CHECK(card["gpu"] == "A10");
  CHECK(card["points"][0]["busy"].get<double>() == doctest::Approx(0.3));
  CHECK(card["points"][0]["ci95"]["busy"].get<double>() > 0);
  CHECK(card["points"][0]["memory_peak_mib"] == 20.0);
}

TEST_CASE("timeline JSON: one replication writes the values themselves, counts as integers") {
  const std::vector<RunResult> runs = {OneStep(10, 0.5)};
  const nlohmann::ordered_json j = TimelineToJson(SummarizeTimelines(runs), false);
  const auto& point = j["workloads"][0]["points"][0];
  CHECK(point["arrivals"].is_number_integer());
  CHECK(point["arrivals"] == 10);
  CHECK_FALSE(point.contains("ci95"));
  CHECK_FALSE(j["cards"][0]["points"][0].contains("ci95"));
}

}  // namespace
}  // namespace knobsim
