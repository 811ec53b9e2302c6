#include "sim/upgrade/upgrade_json.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/io/results_json.h"
#include "sim/io/timeline_json.h"
#include "sim/run_set.h"
#include "sim/upgrade/upgrade_sample_test.h"

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;
using upgrade_sample::S;

std::vector<std::string> Keys(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

Json MinimalResults() {
  Json doc;
  doc["schema"] = "knobsim.results/v1";
  doc["knobsim_version"] = "0.1.0";
  doc["scenario"] = "cgpu-upgrade";
  doc["seed"] = 8;
  doc["variants"] = Json::array({Json{{"name", "upgrade-first"}},
                                 Json{{"name", "fix-quotas-first"}}, Json{{"name", "other"}}});
  return doc;
}

TEST_CASE("timeline JSON: per workload its availability totals and one point per step") {
  const UpgradeRun run = upgrade_sample::Variant(false);
  const Json j = TimelineToJson(run.run);
  CHECK(Keys(j) == std::vector<std::string>{"step_s", "end_s", "replications", "workloads", "cards",
                                            "node_pools"});
  CHECK(j["step_s"] == 60.0);
  CHECK(j["end_s"] == 600.0);
  REQUIRE(j["workloads"].size() == 2);
  const Json& ocr = j["workloads"][0];
  CHECK(Keys(ocr) == std::vector<std::string>{"id", "name", "namespace", "desired",
                                              "available_fraction", "below_desired_s",
                                              "unavailable_s", "points"});
  CHECK(ocr["id"] == "ai/ocr");
  CHECK(ocr["desired"] == 2);
  CHECK(ocr["available_fraction"] == 0.75);
  CHECK(ocr["below_desired_s"] == 300.0);
  CHECK(ocr["unavailable_s"] == 0.0);
  REQUIRE(ocr["points"].size() == 10);
  const Json& p5 = ocr["points"][5];
  CHECK(Keys(p5) == std::vector<std::string>{"t_s", "arrivals", "completed", "errors", "latency_ms",
                                             "queue_wait_ms_mean", "service_ms_mean",
                                             "available_mean", "available_min", "ready_mean",
                                             "desired_mean", "pending_mean", "pending_max"});
  CHECK(p5["t_s"] == 300.0);
  CHECK(p5["errors"]["fake_ready"] == 50);
  CHECK(p5["completed"] == 190);
  CHECK(Keys(p5["errors"]) ==
        std::vector<std::string>{"oom", "fake_ready", "timeout", "no_replica", "interrupted"});
  // A fake-Ready pod is Ready but not available: the two counts part.
  CHECK(p5["available_min"] == 1);
  CHECK(p5["ready_mean"] == 2.0);
  CHECK(p5["latency_ms"]["p99"] == 150.0);
}

TEST_CASE("timeline JSON: a step without a success has null latency, not 0 ms") {
  const UpgradeRun run = upgrade_sample::Variant(false);
  const Json j = TimelineToJson(run.run);
  const Json& asr9 = j["workloads"][1]["points"][9];
  CHECK(asr9["completed"] == 0);
  CHECK(asr9["latency_ms"]["mean"].is_null());
  CHECK(asr9["latency_ms"]["p50"].is_null());
  CHECK(asr9["latency_ms"]["p99"].is_null());
}

TEST_CASE("upgrade JSON: nodes with their steps, blocked drains, options echo, quota fixes") {
  const UpgradeRun run = upgrade_sample::Variant(true);
  const Json j = UpgradeToJson(run.upgrade, upgrade_sample::Options(), run.quota_fixes);
  CHECK(Keys(j) == std::vector<std::string>{"started_s", "finished_s", "options", "quota_fixes",
                                            "nodes", "blocked"});
  CHECK(j["started_s"] == 60.0);
  CHECK(j["finished_s"] == 480.0);
  const Json& o = j["options"];
  CHECK(o["order"] == "pool");
  CHECK(o["max_unavailable"] == 1);
  CHECK(o["start_s"].is_null());  // the scenario's warm-up end
  CHECK(o["reset_time_s"] == 900.0);
  CHECK(o["drain_timeout_s"] == 600.0);
  CHECK(o["after"] == Json{{"isolation", "hard"}, {"cgpu_version", "1.5.10"}});
  REQUIRE(j["quota_fixes"].size() == 1);
  CHECK(j["quota_fixes"][0] == Json{{"workload", "ai/ocr"},
                                    {"from_units", 4},
                                    {"to_units", 10},
                                    {"peak_mib", 8848},
                                    {"note", "7-day peak 8848 MiB + 10 %"}});
  REQUIRE(j["nodes"].size() == 2);
  const Json& cpu = j["nodes"][1];
  CHECK(Keys(cpu) == std::vector<std::string>{"node", "pool", "zone", "outcome", "attempts",
                                              "refusals", "cordoned_s", "drained_s", "back_s",
                                              "steps"});
  CHECK(cpu["node"] == "cpu-1");
  CHECK(cpu["refusals"] == 12);
  CHECK(cpu["drained_s"] == 301.0);
  CHECK(cpu["steps"][1] == Json{{"t_s", 240.0},
                                {"what", "eviction-refused"},
                                {"pod", "infra/etcd-0"},
                                {"detail", upgrade_sample::kEtcdCause}});
  REQUIRE(j["blocked"].size() == 1);
  CHECK(j["blocked"][0] == Json{{"node", "cpu-1"},
                                {"pod", "infra/etcd-0"},
                                {"budget", "infra/etcd"},
                                {"from_s", 240.0},
                                {"until_s", 300.0},
                                {"refusals", 12},
                                {"cause", upgrade_sample::kEtcdCause},
                                {"gave_up", false}});
}

TEST_CASE("upgrade JSON: what never happened is null, not a negative time") {
  UpgradeTimeline t = upgrade_sample::Timeline();
  t.finished = -1;
  t.nodes[1].outcome = "blocked";
  t.nodes[1].drained = -1;
  t.nodes[1].back = -1;
  t.blocked[0].until = -1;
  t.blocked[0].gave_up = true;
  UpgradeOptions o = upgrade_sample::Options();
  o.order = UpgradeOrder::kNodeList;
  o.nodes = {"gpu-1", "cpu-1"};
  o.drain_timeout = 0;
  o.after = {};
  const Json j = UpgradeToJson(t, o, {});
  CHECK(j["finished_s"].is_null());
  CHECK(j["nodes"][1]["drained_s"].is_null());
  CHECK(j["nodes"][1]["back_s"].is_null());
  CHECK(j["nodes"][1]["outcome"] == "blocked");
  CHECK(j["blocked"][0]["until_s"].is_null());
  CHECK(j["blocked"][0]["gave_up"] == true);
  CHECK(j["options"]["order"] == "node-list");
  CHECK(j["options"]["nodes"] == Json::array({"gpu-1", "cpu-1"}));
  CHECK(j["options"]["drain_timeout_s"] == 0.0);
  CHECK(j["options"]["after"] == Json::object());
  CHECK(j["quota_fixes"] == Json::array());
}

TEST_CASE("AddUpgradeSections adds upgrade by variant name and command after scenario") {
  const std::vector<UpgradeRun> runs = upgrade_sample::Comparison();
  const Json doc = AddUpgradeSections(MinimalResults(), runs, upgrade_sample::Options(),
                                      "knobsim upgrade s.yaml --compare");
  CHECK(Keys(doc) == std::vector<std::string>{"schema", "knobsim_version", "scenario", "command",
                                              "seed", "variants"});
  CHECK(doc["command"] == "knobsim upgrade s.yaml --compare");
  REQUIRE(doc["variants"].size() == 3);
  // The timeline is ResultsToJson's to write (below); the rehearsal adds its `upgrade`.
  CHECK(Keys(doc["variants"][0]) == std::vector<std::string>{"name", "upgrade"});
  CHECK(doc["variants"][1]["upgrade"]["quota_fixes"].size() == 1);
  CHECK(doc["variants"][0]["upgrade"]["quota_fixes"].empty());
  CHECK(Keys(doc["variants"][2]) == std::vector<std::string>{"name"});  // no run of that name
}

TEST_CASE("ResultsToJson writes a variant's timeline when its first run collected one") {
  const std::vector<UpgradeRun> runs = upgrade_sample::Comparison();
  Scenario s;
  s.name = "cgpu-upgrade";
  RunSetResult set;
  set.scenario = s.name;
  set.replications = 1;
  RunResult without = runs[1].run;
  without.timeline = {};
  set.variants.push_back(SummarizeVariant("base", "", s, {without}));
  set.variants.push_back(SummarizeVariant("upgrade-first", "", s, {runs[0].run}));
  const Json doc = ResultsToJson(set, "0.1.0");
  CHECK_FALSE(doc["variants"][0].contains("timeline"));
  CHECK(doc["variants"][1]["timeline"] == TimelineToJson(runs[0].run));
}

TEST_CASE("the upgrade sections are deterministic: the same runs give the same bytes") {
  const std::vector<UpgradeRun> runs = upgrade_sample::Comparison();
  const std::string a =
      AddUpgradeSections(MinimalResults(), runs, upgrade_sample::Options(), "c").dump(2);
  const std::string b =
      AddUpgradeSections(MinimalResults(), runs, upgrade_sample::Options(), "c").dump(2);
  CHECK(a == b);
}

}  // namespace
}  // namespace knobsim
