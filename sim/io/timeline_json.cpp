#include "sim/io/timeline_json.h"

#include <nlohmann/json.hpp>

#include "sim/io/json_fields.h"
#include "sim/io/json_numbers.h"
#include "sim/io/result_fields.h"

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

// `series` with its points, each point an object of its own (and its own "ci95").
template <class Series>
Json SeriesJson(const Series& series, bool replicated) {
  Json j = WriteSummaryFields(series, replicated);
  Json points = Json::array();
  for (const auto& point : series.points) points.push_back(WriteSummaryFields(point, replicated));
  j["points"] = std::move(points);
  return j;
}

}  // namespace

nlohmann::ordered_json TimelineToJson(const TimelineStats& timeline, bool replicated) {
  Json j;
  j["step_s"] = json_numbers::Num(json_numbers::Seconds(timeline.step));
  j["end_s"] = json_numbers::Num(json_numbers::Seconds(timeline.end));
  j["replications"] = timeline.replications;
  Json workloads = Json::array();
  for (const WorkloadTimelineStats& w : timeline.workloads)
    workloads.push_back(SeriesJson(w, replicated));
  j["workloads"] = std::move(workloads);
  Json cards = Json::array();
  for (const CardTimelineStats& c : timeline.cards) cards.push_back(SeriesJson(c, replicated));
  j["cards"] = std::move(cards);
  Json pools = Json::array();
  for (const PoolTimelineStats& p : timeline.pools) pools.push_back(SeriesJson(p, replicated));
  j["node_pools"] = std::move(pools);
  return j;
}

nlohmann::ordered_json TimelineToJson(const RunResult& run) {
  return TimelineToJson(SummarizeTimelines(std::span(&run, 1)), false);
}

}  // namespace knobsim
