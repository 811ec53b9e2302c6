#include "sim/io/results_json.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "sim/io/json_fields.h"
#include "sim/io/json_numbers.h"
#include "sim/io/result_fields.h"
#include "sim/io/timeline_json.h"
#include "sim/timeline_stats.h"

namespace knobsim {

namespace {

using Json = nlohmann::ordered_json;
using Writer = FieldWriter<DocumentNumbers>;

using json_numbers::Num;
using json_numbers::Seconds;

// Each replication's own value of the numbers a comparison pairs (knobsim diff): replication r
// of every variant ran with the same seed, so differences taken replication by replication
// cancel the common noise (common random numbers).
Json PerReplicationJson(const VariantSummary& v, size_t workload) {
  Json p99 = Json::array(), mean = Json::array(), errors = Json::array(), ratio = Json::array();
  for (const RunResult& run : v.runs) {
    const WorkloadResult& r = run.workloads[workload];
    const bool any = r.completed > 0;
    p99.push_back(any ? Num(r.latency_ms.p99) : Json(nullptr));
    mean.push_back(any ? Num(r.latency_ms.mean) : Json(nullptr));
    errors.push_back(r.errors.total());
    ratio.push_back(Num(r.error_ratio));
  }
  Json j;
  j["p99_ms"] = std::move(p99);
  j["mean_ms"] = std::move(mean);
  j["errors"] = std::move(errors);
  j["error_ratio"] = std::move(ratio);
  return j;
}

Json VariantJson(const VariantSummary& v, bool replicated) {
  Json j;
  j["name"] = v.name;
  j["description"] = v.description;
  const bool per_replication = replicated && !v.runs.empty();
  Json workloads = Json::array();
  for (size_t i = 0; i < v.workloads.size(); ++i) {
    Json wj = WriteSummaryFields(v.workloads[i], replicated);
    if (per_replication) wj["per_replication"] = PerReplicationJson(v, i);
    workloads.push_back(std::move(wj));
  }
  j["workloads"] = std::move(workloads);
  Json cards = Json::array();
  for (size_t i = 0; i < v.cards.size(); ++i) {
    Json cj = WriteSummaryFields(v.cards[i], replicated);
    if (per_replication) {
      Json busy = Json::array();
      for (const RunResult& run : v.runs) busy.push_back(Num(run.cards[i].busy));
      cj["per_replication"] = Json{{"busy", std::move(busy)}};
    }
    cards.push_back(std::move(cj));
  }
  j["cards"] = std::move(cards);
  Json pods = Json::array();
  for (const PodResult& p : v.pods) pods.push_back(WriteFields<DocumentNumbers>(p));
  j["pods"] = std::move(pods);
  j["cluster"] = WriteFields<DocumentNumbers>(v.cluster);
  j["fragmentation"] = WriteFields<DocumentNumbers>(v.fragmentation);
  Json pools = Json::array();
  for (const PoolResult& p : v.pools) pools.push_back(WriteFields<DocumentNumbers>(p));
  j["node_pools"] = std::move(pools);
  // The timeline over the replications, when the run collected one (`--timeline`, upgrade).
  if (!v.runs.empty() && v.runs.front().timeline.step > 0) {
    TimelineStats timeline = SummarizeTimelines(v.runs);
    PriceTimeline(v.pools, timeline);  // priced pools (--prices) get their cost rate per step
    j["timeline"] = TimelineToJson(timeline, replicated);
  }
  return j;
}

}  // namespace

nlohmann::ordered_json ResultsToJson(const RunSetResult& results,
                                     std::string_view knobsim_version) {
  const bool replicated = results.replications > 1;
  Json j;
  j["schema"] = kResultsSchema;
  j["knobsim_version"] = knobsim_version;
  j["scenario"] = results.scenario;
  j["seed"] = results.seed;
  j["replications"] = results.replications;
  j["duration_s"] = Num(Seconds(results.duration));
  j["warmup_s"] = Num(Seconds(results.warmup));
  Json variants = Json::array();
  for (const VariantSummary& v : results.variants) variants.push_back(VariantJson(v, replicated));
  j["variants"] = std::move(variants);
  return j;
}

std::string ResultsJsonText(const nlohmann::ordered_json& document) {
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace knobsim
