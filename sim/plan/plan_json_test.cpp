#include "sim/plan/plan_json.h"

#include <doctest/doctest.h>

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

// A plan of two traffic levels × two GPU types, built by hand (no simulation): costs and ratios
// chosen so that the recommendation, its tie-breaks and the frontier are known.
PlanResult HandPlan() {
  PlanResult r;
  r.scenario = "hand";
  r.options.traffic = {1, 2};
  r.options.gpu_types = {"A10", "L20"};
  r.options.policies = {5};
  r.options.placements = {"binpack"};
  r.options.pricing = {"on_demand"};
  r.duration = 600 * kNanosPerSecond;
  r.warmup = 60 * kNanosPerSecond;
  struct Row {
    double traffic;
    const char* gpu;
    bool feasible;
    int nodes;
    double ratio;
  };
  const Row rows[] = {{1, "A10", true, 3, 0.9},
                      {1, "L20", true, 3, 0.5},
                      {2, "A10", true, 6, 0.95},
                      {2, "L20", false, 0, 0}};
  int cell = 0;
  for (const Row& row : rows) {
    PlanOption o;
    o.cell = cell++;
    o.traffic = row.traffic;
    o.gpu_type = row.gpu;
    o.policy = 5;
    o.placement = "binpack";
    o.pricing = "on_demand";
    o.id =
        std::string("x") + (row.traffic == 1 ? "1" : "2") + "/" + row.gpu + "/p5/binpack/on_demand";
    o.feasible = row.feasible;
    if (row.feasible) {
      o.density = 2;
      o.pools.push_back({"gpu", "", row.nodes, row.nodes, std::nullopt});
      o.binding_workload = "ai/ocr";
      o.worst_p99_ratio = row.ratio;
      PlanWorkload w;
      w.name = "ocr";
      w.namespace_ = "ai";
      w.replicas = row.nodes * 2;
      w.slo.latency = 200 * kNanosPerMilli;
      w.latency_replications = 5;
      w.slo_latency_ms = {200 * row.ratio, 1};
      w.slo_latency_bound_ms = 200 * row.ratio + 1;
      w.p99_ms = w.slo_latency_ms;
      w.slo_met = true;
      w.slo_met_replications = 5;
      o.workloads.push_back(w);
      o.cards.push_back({"gpu-0", 0, row.gpu, 0.6, 0.5, 0.4});
      o.search.push_back({"gpu", 2, row.nodes, true});
    } else {
      o.reason = "gpu: max nodes 256 reached";
    }
    r.options_planned.push_back(o);
  }
  r.cells = cell;
  return r;
}

TEST_CASE("the plan document has the schema's keys in the schema's order") {
  const Json doc = PlanToJson(HandPlan(), "knobsim plan hand.yaml", "0.1.0");
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"schema", "knobsim_version", "scenario", "command", "seed",
                                         "replications", "confidence", "duration_s", "warmup_s",
                                         "prices", "traffic_levels", "grid", "options",
                                         "recommendations", "frontier"});
  CHECK(doc["grid"]["density"] == "auto");
  CHECK(doc["prices"].is_null());
  const Json& o = doc["options"][0];
  CHECK(o["id"] == "x1/A10/p5/binpack/on_demand");
  CHECK(o["cell"] == 0);
  CHECK(o["reason"].is_null());
  CHECK(o["monthly_cost"].is_null());
  CHECK(o["workloads"][0]["slo_latency_ms"] == 200.0);
  // The backlog rule's bound beside the latency and error bounds: the hand plan's workload has
  // no overdue request; its p99 objective tolerates 1 - 99/100 of the requests overdue.
  CHECK(o["workloads"][0]["overdue_ratio_bound"] == 0.0);
  CHECK(o["workloads"][0]["overdue_allowance"] == doctest::Approx(0.01));
  CHECK(o["cards"][0]["headroom"] == 0.4);
  CHECK(doc["options"][3]["feasible"] == false);
  CHECK(doc["options"][3]["density"].is_null());
}

TEST_CASE("the recommendation is the cheapest feasible option, ties to the lower worst ratio") {
  const Json doc = PlanToJson(HandPlan(), "c", "v");
  // At 1x both use 3 cards (no prices: cards decide); L20 has the lower ratio.
  CHECK(doc["recommendations"][0]["option"] == "x1/L20/p5/binpack/on_demand");
  CHECK(doc["recommendations"][0]["text"] ==
        "At 1x traffic: 3 nodes (L20) in gpu, POLICY 5, binpack, 2 pods per card, 3 cards (no "
        "prices given); ai/ocr binds (p99 100 ms of 200 ms).");
  CHECK(doc["recommendations"][1]["option"] == "x2/A10/p5/binpack/on_demand");
  // Frontier at 1x: L20 dominates A10 (same cards, lower ratio).
  CHECK(doc["frontier"][0]["options"] == Json::array({"x1/L20/p5/binpack/on_demand"}));
}

TEST_CASE("a traffic level with nothing feasible says why") {
  PlanResult r = HandPlan();
  r.options_planned[2].feasible = false;
  r.options_planned[2].reason = "gpu: max nodes 256 reached";
  const Json doc = PlanToJson(r, "c", "v");
  CHECK(doc["recommendations"][1]["option"].is_null());
  CHECK(doc["recommendations"][1]["text"] ==
        "At 2x traffic: no option of the grid meets every SLO (x2/A10/p5/binpack/on_demand: gpu: "
        "max nodes 256 reached).");
  CHECK(doc["frontier"][1]["options"].empty());
}

TEST_CASE(
    "costs decide the recommendation when there are prices, and the frontier trades cost for "
    "ratio") {
  PlanResult r = HandPlan();
  PriceBook book;
  book.file = "p.yaml";
  book.currency = "USD";
  r.options.prices = &book;
  // 1x: A10 costs 2100 at ratio 0.9, L20 3000 at 0.5: A10 is cheapest, both on the frontier.
  r.options_planned[0].monthly_cost = 2100;
  r.options_planned[0].currency = "USD";
  r.options_planned[0].pools[0].instance_type = "ecs.gn7i";
  r.options_planned[1].monthly_cost = 3000;
  r.options_planned[1].currency = "USD";
  r.options_planned[2].monthly_cost = 4200;
  r.options_planned[2].currency = "USD";
  const Json doc = PlanToJson(r, "c", "v");
  CHECK(doc["prices"]["currency"] == "USD");
  CHECK(doc["recommendations"][0]["option"] == "x1/A10/p5/binpack/on_demand");
  CHECK(doc["recommendations"][0]["monthly_cost"] == 2100.0);
  CHECK(doc["recommendations"][0]["text"].get<std::string>().find(
            "3 nodes of ecs.gn7i (A10) in gpu, POLICY 5, binpack, 2 pods per card, 2100.00 "
            "USD/month") != std::string::npos);
  CHECK(doc["frontier"][0]["options"] ==
        Json::array({"x1/A10/p5/binpack/on_demand", "x1/L20/p5/binpack/on_demand"}));
}

std::vector<Json> Shards(int n) {
  std::vector<Json> out;
  for (int i = 0; i < n; ++i) {
    PlanResult r = HandPlan();
    r.options.shard = {i, n};
    std::erase_if(r.options_planned,
                  [&](const PlanOption& o) { return !r.options.shard.Owns(o.cell); });
    out.push_back(PlanToJson(r, "knobsim plan hand.yaml", "0.1.0"));
  }
  return out;
}

TEST_CASE("merged shards are byte-identical to the unsharded plan") {
  const std::string whole = PlanJsonText(PlanToJson(HandPlan(), "knobsim plan hand.yaml", "0.1.0"));
  std::vector<Json> shards = Shards(3);
  CHECK(shards[0].contains("shard"));
  std::swap(shards[0], shards[2]);  // any order
  const Expected<Json> merged = MergePlanShards(shards);
  REQUIRE_MESSAGE(merged.ok(), (merged ? std::string() : merged.error().message));
  CHECK(PlanJsonText(*merged) == whole);
}

TEST_CASE("merge refuses shards that are not one plan's complete set") {
  auto refused = [](const std::vector<Json>& shards) {
    const Expected<Json> merged = MergePlanShards(shards);
    return merged ? std::string() : merged.error().message;
  };
  std::vector<Json> shards = Shards(3);
  CHECK(refused({shards[0], shards[1]}) == "shard 2/3 is missing");
  CHECK(refused({shards[0], shards[1], shards[1]}) == "shard 1/3 is given twice");
  std::vector<Json> other = shards;
  other[1]["command"] = "knobsim plan other.yaml";
  CHECK(refused(other) == "shard 1 comes from a different plan (commands differ from shard 0's)");
  other = shards;
  other[2]["seed"] = 9;
  CHECK(refused(other) == "shard 2 comes from a different plan (plans differ from shard 0's)");
  std::vector<Json> two = Shards(2);
  CHECK(refused({shards[0], two[1], shards[2]}) == "shard counts differ: 3 and 2");
  CHECK(refused({PlanToJson(HandPlan(), "c", "v")}).find("is not a shard") != std::string::npos);
  other = shards;
  other[0]["options"].push_back(shards[1]["options"][0]);
  CHECK(refused(other) == "shard 0 holds cell 1, which it does not own");
}

}  // namespace
}  // namespace knobsim
