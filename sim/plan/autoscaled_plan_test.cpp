// Autoscaled pools in a plan (autoscaled_plan.h): which groups are planned elastic, the elastic
// scenario at a floor, and the planner's search for the cheapest floor on a diurnal day.
#include "sim/plan/autoscaled_plan.h"

#include <doctest/doctest.h>

#include <string>

#include "sim/io/scenario_reader.h"
#include "sim/plan/plan.h"

namespace knobsim {
namespace {

// An autoscaled A10 pool of one card per node and a chat model with an HPA on GPU utilization;
// `traffic` is the workload's traffic line.
std::string Yaml(const std::string& traffic, bool hpa = true, bool autoscaled = true) {
  return "name: elastic\n"
         "cluster: {policy: 5, cluster_autoscaler: {scan_interval: 10s}}\n"
         "node_pools:\n"
         "  - name: gpu-a10\n    count: 1\n    gpu: A10\n    gpus_per_node: 1\n"
         "    cpu: 15.6\n    memory: 60Gi\n"
         "    labels: {ack.node.gpu.schedule: cgpu, ack.node.gpu.placement: binpack}\n" +
         std::string(autoscaled ? "    autoscaling: {min: 1, max: 8}\n" : "") +
         "workloads:\n"
         "  - name: chat\n    replicas: 1\n    cpu: 4\n    memory: 16Gi\n    gpu_mem: 20\n"
         "    gpu_memory: {weights: 14Gi, activation: 512Mi}\n"
         "    startup: {image_pull: 45s, model_load: 60s}\n"
         "    traffic: " +
         traffic +
         "\n"
         "    work: {dist: lognormal, mean: 150ms, cv: 0.5}\n"
         "    timeout: 30s\n"
         "    slo: {latency: 2s, percentile: 99, error_budget: 1%}\n" +
         std::string(hpa ? "    hpa: {min_replicas: 1, max_replicas: 8, metrics: [{metric: "
                           "gpu_utilization, average: 60}]}\n"
                         : "") +
         "run: {duration: 24h, warmup: 5m, seed: 1}\n";
}

const std::string kDiurnal = "{diurnal: {mean: 8/s, amplitude: 0.8, period: 24h, peak_at: 14h}}";

Scenario Read(const std::string& yaml) {
  Expected<Scenario> s = ReadScenarioString(yaml, "elastic.yaml");
  REQUIRE_MESSAGE(s.ok(), s.error().ToString());
  return *s;
}

PlanOptions OneCell() {
  PlanOptions o;
  o.traffic = {1};
  o.gpu_types = {"A10"};
  o.policies = {5};
  o.placements = {"binpack"};
  o.density = 1;
  o.replications = 2;
  return o;
}

TEST_CASE("ElasticGroup: an autoscaled pool and an HPA workload, both") {
  struct Case {
    bool hpa, autoscaled, elastic;
  };
  for (const Case c :
       {Case{true, true, true}, Case{false, true, false}, Case{true, false, false}}) {
    CAPTURE(c.hpa);
    CAPTURE(c.autoscaled);
    const Scenario s = Read(Yaml(kDiurnal, c.hpa, c.autoscaled));
    const PoolGroup g{{0}, {0}, false};
    CHECK(ElasticGroup(s, g) == c.elastic);
  }
}

TEST_CASE(
    "ElasticScenario: pools in [floor, max], HPA floors in proportion, the fixed size at "
    "floor = max") {
  const Scenario s = Read(Yaml(kDiurnal));
  const PoolGroup g{{0}, {0}, false};
  Scenario fixed = s;
  fixed.node_pools[0].autoscaling.reset();
  fixed.node_pools[0].count = 4;
  fixed.workloads[0].hpa.reset();
  fixed.workloads[0].replicas = 6;  // what the plan split at 4 nodes
  struct Case {
    int floor, pool_count, hpa_min, replicas;
  };
  // HPA min: max(the written 1, ⌈6 × floor / 4⌉).
  for (const Case c : {Case{0, 0, 1, 1}, Case{1, 1, 2, 2}, Case{3, 3, 5, 5}, Case{4, 4, 6, 6}}) {
    CAPTURE(c.floor);
    const Scenario e = ElasticScenario(s, g, fixed, c.floor, 4);
    REQUIRE(e.node_pools[0].autoscaling);
    CHECK(e.node_pools[0].autoscaling->min == c.floor);
    CHECK(e.node_pools[0].autoscaling->max == 4);
    CHECK(e.node_pools[0].autoscaling->provisioning_min ==
          s.node_pools[0].autoscaling->provisioning_min);
    CHECK(e.node_pools[0].count == c.pool_count);
    REQUIRE(e.workloads[0].hpa);
    CHECK(e.workloads[0].hpa->min_replicas == c.hpa_min);
    CHECK(e.workloads[0].hpa->max_replicas == 6);
    CHECK(e.workloads[0].hpa->metrics.size() == 1);
    CHECK(e.workloads[0].replicas == c.replicas);
  }
}

TEST_CASE("plan: a diurnal day plans the autoscaled pool below its fixed size, cheaper, SLO kept") {
  const Scenario s = Read(Yaml(kDiurnal));
  PlanOptions o = OneCell();
  REQUIRE(ResolvePlanOptions(s, &o).ok());
  const PlanResult r = RunPlan(s, o);
  REQUIRE(r.options_planned.size() == 1);
  const PlanOption& opt = r.options_planned[0];
  REQUIRE(opt.feasible);
  REQUIRE(opt.autoscaled);
  const PlanAutoscaled& a = *opt.autoscaled;
  REQUIRE(a.pools.size() == 1);
  CHECK(a.pools[0].name == "gpu-a10");
  CHECK(a.pools[0].max == opt.pools[0].nodes);
  CHECK(a.pools[0].min < a.pools[0].max);
  CHECK(a.pools[0].nodes_mean < a.pools[0].max);
  REQUIRE(a.workloads.size() == 1);
  CHECK(a.workloads[0].slo_met);
  // The search is a bisection whose last floor tried that met is the answer.
  REQUIRE(!a.search.empty());
  bool found = false;
  for (const PlanSearchStep& step : a.search) found |= step.met && step.nodes == a.pools[0].min;
  CHECK(found);
  for (const PlanSearchStep& step : a.search)
    if (step.nodes < a.pools[0].min) CHECK_FALSE(step.met);
}

TEST_CASE("plan: without an HPA the autoscaled pool is planned fixed, with no autoscaled section") {
  const Scenario s = Read(Yaml(kDiurnal, /*hpa=*/false));
  PlanOptions o = OneCell();
  REQUIRE(ResolvePlanOptions(s, &o).ok());
  const PlanResult r = RunPlan(s, o);
  REQUIRE(r.options_planned.size() == 1);
  CHECK(r.options_planned[0].feasible);
  CHECK_FALSE(r.options_planned[0].autoscaled);
}

}  // namespace
}  // namespace knobsim
