#include "sim/plan/plan.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>

#include "sim/plan/plan_json.h"

namespace knobsim {
namespace {

Workload Shared(const std::string& name, double rate, double work_s, SimTime slo) {
  Workload w;
  w.name = name;
  w.labels = {{"app", name}};
  w.gpu_mem = 4;
  w.memory.weights_mib = 2048;
  w.memory.activation_mib = 256;
  w.memory.context_mib = 0;
  w.traffic.kind = ArrivalKind::kPoisson;
  w.traffic.rate = rate;
  w.work.dist = WorkDistribution::kExponential;
  w.work.mean_s = work_s;
  w.slo.latency = slo;
  w.slo.percentile = 99;
  return w;
}

NodePool Pool(const std::string& name, const std::string& gpu) {
  NodePool p;
  p.name = name;
  p.gpu_type = gpu;
  p.gpus_per_node = 1;
  p.cpu_milli = 16000;
  p.memory_mib = 65536;
  p.labels["ack.node.gpu.schedule"] = "cgpu";
  return p;
}

// One A10 pool, one shared workload: an M/M/1 per replica under POLICY 5 at density 1.
Scenario OnePool(double rate = 150, SimTime slo = 100 * kNanosPerMilli) {
  Scenario s;
  s.name = "plan-test";
  s.cluster.policy = SharingPolicy::kNative;
  s.cluster.switch_overhead = 0;
  s.node_pools = {Pool("gpu", "A10")};
  s.workloads = {Shared("svc", rate, 0.01, slo)};
  s.run.duration = 150 * kNanosPerSecond;
  s.run.warmup = 10 * kNanosPerSecond;
  return s;
}

PlanOptions Quick() {
  PlanOptions o;
  o.traffic = {1};
  o.density = 1;
  o.replications = 3;
  o.threads = 1;
  return o;
}

int Cards(const PlanOption& o) {
  int n = 0;
  for (const PlanPool& p : o.pools) n += p.cards;
  return n;
}

PlanResult Plan(const Scenario& s, PlanOptions o) {
  REQUIRE(ResolvePlanOptions(s, &o).ok());
  return RunPlan(s, o);
}

TEST_CASE(
    "a pod's quota is the units whose visible memory holds weights, activations and context") {
  const GpuType a10 = *GpuCatalog::BuiltIn().Find("A10");  // 23028 MiB, 22 units: 1046.7 MiB each
  Workload w = Shared("w", 1, 0.01, 0);
  w.memory.weights_mib = 3072;
  w.memory.activation_mib = 256;
  w.concurrency = 2;
  CHECK(NeededUnitsPerCard(w, a10) == 4);  // 3584 MiB: 3 units see 3140, 4 see 4186
  w.memory.context_mib.reset();            // the catalog's context comes on top
  CHECK(NeededUnitsPerCard(w, a10) >= 4);
  w.memory = {};
  w.memory.context_mib = 0;
  CHECK(NeededUnitsPerCard(w, a10) == 1);  // at least one unit
  w.memory.weights_mib = 30 * 1024;        // more than the card: the GiB it needs
  CHECK(NeededUnitsPerCard(w, a10) == 30);
}

TEST_CASE("replicas split the slots by offered load, largest remainder, at least one each") {
  Workload a = Shared("a", 20, 0.01, 0), b = Shared("b", 10, 0.01, 0);
  const std::vector<const Workload*> ws = {&a, &b};
  // 6 slots: one each, then 4 split 2:1 = 2.67 / 1.33 -> 2 and 1, the last slot to a (0.67).
  auto r = ReplicaSplit(ws, 6, 100 * kNanosPerSecond);
  REQUIRE(r.has_value());
  CHECK(*r == std::vector<int>{4, 2});
  CHECK(*ReplicaSplit(ws, 2, 100 * kNanosPerSecond) == std::vector<int>{1, 1});
  CHECK_FALSE(ReplicaSplit(ws, 1, 100 * kNanosPerSecond).has_value());

  SUBCASE("a workload labelled fixed keeps its replicas") {
    a.labels[kPlanReplicasLabel] = "fixed";
    a.replicas = 3;
    CHECK(*ReplicaSplit(ws, 10, 100 * kNanosPerSecond) == std::vector<int>{3, 7});
    CHECK_FALSE(ReplicaSplit(ws, 3, 100 * kNanosPerSecond).has_value());
  }
  SUBCASE("a multi-card replica takes its cards' slots") {
    b.gpu_count = 2;
    b.gpu_mem = 8;
    // loads a 0.2, b 0.1 x 2 cards = 0.2: 7 slots -> 1 + 1x2 base, 4 left, 2 each -> a 3, b 2.
    CHECK(*ReplicaSplit(ws, 7, 100 * kNanosPerSecond) == std::vector<int>{3, 2});
  }
}

TEST_CASE("the SLO bound is one-sided Student t at the plan's confidence") {
  // mean 2, s 1, t(0.95, 2) = 2.919986: 2 + 2.919986 / sqrt(3).
  CHECK(UpperBound({1, 2, 3}, 0.95) ==
        doctest::Approx(2 + 2.919986 / std::sqrt(3.0)).epsilon(1e-6));
  CHECK(UpperBound({5}, 0.95) == 5);
  CHECK(std::isinf(UpperBound({1, INFINITY}, 0.95)));
}

TEST_CASE("a size is stopped early only when its first replications already decide a miss") {
  // Two workloads, R = 5: the SLO is 100 ms on a's p99, errors within 1 %, backlog within the
  // default allowance.
  Scenario s = OnePool();
  s.workloads.push_back(Shared("b", 10, 0.01, 0));
  s.workloads[0].slo.error_budget = 0.01;
  auto replication = [](double a_p99_ms, double a_errors, int64_t a_overdue = 0, int pending = 0) {
    RunResult r;
    WorkloadResult a;
    a.requests = 1000;
    a.completed = 1000;
    a.slo_latency_ms = a_p99_ms;
    a.error_ratio = a_errors;
    a.in_system_overdue = a_overdue;
    WorkloadResult b;
    b.requests = 100;
    b.completed = 100;
    r.workloads = {a, b};
    r.cluster.pending_pods = pending;
    return r;
  };
  struct Case {
    const char* rule;
    std::vector<RunResult> finished;
    bool decided;
  };
  const Case cases[] = {
      {"within the objective so far", {replication(90, 0), replication(95, 0)}, false},
      // 5 x 100 ms allows a sum of 500 ms: 260 + 250 is above it whatever the other three give.
      {"latencies already sum above R x SLO", {replication(260, 0), replication(250, 0)}, true},
      {"latencies sum to R x SLO exactly: a tie is not decided",
       {replication(250, 0), replication(250, 0)},
       false},
      {"far over in one, the other unknown: the mean can still fit", {replication(400, 0)}, false},
      {"errors sum above R x budget", {replication(50, 0.03), replication(50, 0.021)}, true},
      {"errors within it", {replication(50, 0.02), replication(50, 0.02)}, false},
      {"a pod left Pending", {replication(10, 0, 0, 1)}, true},
      {"every request failed: no latency, an infinite bound",
       {[&] {
         RunResult r = replication(0, 1);
         r.workloads[0].completed = 0;
         return r;
       }()},
       true},
      {"the backlog: every request overdue", {replication(50, 0, 1000)}, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    CHECK(CertainMiss(s, c.finished, 5) == c.decided);
  }
}

TEST_CASE("the search's shortcuts never change the plan: auto equals the best fixed density") {
  // Two workloads on one pool at two traffic levels: auto caps each density by the cheapest so
  // far and starts each search from a neighbour's answer; planning each density alone does
  // neither. The option auto keeps must be the best of the fixed-density plans.
  Scenario s = OnePool(90, 120 * kNanosPerMilli);
  s.workloads.push_back(Shared("b", 30, 0.02, 400 * kNanosPerMilli));
  PlanOptions o = Quick();
  o.traffic = {1, 2};
  o.density = 0;
  o.max_density = 3;
  const PlanResult automatic = Plan(s, o);
  for (size_t level = 0; level < o.traffic.size(); ++level) {
    CAPTURE(o.traffic[level]);
    const PlanOption& chosen = automatic.options_planned.at(level);
    REQUIRE(chosen.feasible);
    std::optional<PlanOption> best;
    for (int d = 1; d <= 3; ++d) {
      PlanOptions fixed = o;
      fixed.density = d;
      fixed.traffic = {o.traffic[level]};
      const PlanOption opt = Plan(s, fixed).options_planned.at(0);
      if (!opt.feasible) continue;
      auto rank = [](const PlanOption& x) {
        return std::make_tuple(Cards(x), x.worst_p99_ratio, x.density);
      };
      if (!best || rank(opt) < rank(*best)) best = opt;
    }
    REQUIRE(best.has_value());
    CHECK(chosen.density == best->density);
    CHECK(Cards(chosen) == Cards(*best));
    CHECK(chosen.worst_p99_ratio == best->worst_p99_ratio);
  }
}

TEST_CASE("plan finds the replica count of the M/M/1 closed form on one pool") {
  // μ = 100/s, λ = 150/s, d = 100 ms: μ - λ/N >= ln(100)/0.1 = 46.05 -> N = 3 (53.9 % margin at
  // 3: p99 65 ms; N = 2 gives μ - 75 = 25 -> p99 184 ms, 84 % over).
  const PlanResult r = Plan(OnePool(), Quick());
  REQUIRE(r.options_planned.size() == 1);
  const PlanOption& o = r.options_planned[0];
  REQUIRE(o.feasible);
  CHECK(o.pools.at(0).nodes == 3);
  CHECK(o.workloads.at(0).replicas == 3);
  CHECK(o.binding_workload == "default/svc");
  CHECK(o.worst_p99_ratio == doctest::Approx(std::log(100.0) / (100 - 50) / 0.1).epsilon(0.1));
  CHECK(o.cards.size() == 3);
  CHECK(o.cards[0].busy == doctest::Approx(0.5).epsilon(0.1));
  CHECK(o.cards[0].headroom == doctest::Approx(1 - o.cards[0].busy));
  // The record holds every size tried, the answer met and one below it missed.
  bool met3 = false, missed2 = false;
  for (const PlanSearchStep& s : o.search) {
    met3 = met3 || (s.nodes == 3 && s.met);
    missed2 = missed2 || (s.nodes == 2 && !s.met);
  }
  CHECK(met3);
  CHECK(missed2);
}

TEST_CASE("plan is the same at any thread count") {
  // Sequential stopping ends a size after a round of as many replications as threads; the plan
  // must not show it. Three traffic levels make the later searches start from carried answers.
  PlanOptions o = Quick();
  o.traffic = {0.5, 1, 2};
  o.replications = 5;
  std::string first;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    o.threads = threads;
    const std::string doc = PlanJsonText(PlanToJson(Plan(OnePool(), o), "c", "v"));
    if (first.empty()) first = doc;
    CHECK(doc == first);
  }
}

TEST_CASE("more traffic never needs fewer cards") {
  PlanOptions o = Quick();
  o.traffic = {0.5, 1, 1.5, 2};
  const PlanResult r = Plan(OnePool(), o);
  REQUIRE(r.options_planned.size() == 4);
  for (size_t i = 1; i < 4; ++i) {
    REQUIRE(r.options_planned[i].feasible);
    CHECK(Cards(r.options_planned[i]) >= Cards(r.options_planned[i - 1]));
  }
  CHECK(Cards(r.options_planned[3]) > Cards(r.options_planned[0]));
}

TEST_CASE("a faster GPU type never needs more cards") {
  PlanOptions o = Quick();
  o.gpu_types = {"T4", "A10", "L20", "H100"};
  const PlanResult r = Plan(OnePool(300), o);
  REQUIRE(r.options_planned.size() == 4);
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  std::vector<std::pair<double, int>> by_speed;
  for (const PlanOption& p : r.options_planned) {
    REQUIRE(p.feasible);
    by_speed.emplace_back(catalog.Find(p.gpu_type)->speed, Cards(p));
  }
  std::sort(by_speed.begin(), by_speed.end());
  for (size_t i = 1; i < by_speed.size(); ++i) CHECK(by_speed[i].second <= by_speed[i - 1].second);
  CHECK(by_speed.back().second < by_speed.front().second);
}

TEST_CASE("a looser SLO never needs more cards") {
  int previous = 1 << 30;
  for (int ms : {60, 100, 200, 400}) {
    const PlanResult r = Plan(OnePool(150, ms * kNanosPerMilli), Quick());
    REQUIRE(r.options_planned.at(0).feasible);
    const int cards = Cards(r.options_planned[0]);
    CHECK(cards <= previous);
    previous = cards;
  }
}

TEST_CASE("pools that share no workload are sized apart, each its own node count") {
  Scenario s = OnePool(300);
  s.node_pools.push_back(Pool("gpu-b", "A10"));
  s.node_pools[0].labels["pool"] = "a";
  s.node_pools[1].labels["pool"] = "b";
  s.workloads[0].node_selector = {{"pool", "a"}};
  Workload light = Shared("light", 20, 0.01, 100 * kNanosPerMilli);
  light.node_selector = {{"pool", "b"}};
  s.workloads.push_back(light);
  const PlanResult r = Plan(s, Quick());
  const PlanOption& o = r.options_planned.at(0);
  REQUIRE(o.feasible);
  REQUIRE(o.pools.size() == 2);
  CHECK(o.pools[0].name == "gpu");
  CHECK(o.pools[0].nodes >= 4);  // 300/s at 100/s per card
  CHECK(o.pools[1].name == "gpu-b");
  CHECK(o.pools[1].nodes == 1);
  REQUIRE(o.workloads.size() == 2);
  CHECK(o.workloads[0].name == "svc");
  CHECK(o.workloads[1].replicas == 1);
}

TEST_CASE("an option is infeasible with a reason when the max nodes are reached") {
  PlanOptions o = Quick();
  o.max_nodes = 2;
  const PlanResult r = Plan(OnePool(), o);
  const PlanOption& opt = r.options_planned.at(0);
  CHECK_FALSE(opt.feasible);
  CHECK(opt.reason == "gpu: max nodes 2 reached");
  CHECK_FALSE(opt.search.empty());
}

TEST_CASE("an option is infeasible when a model does not fit the card") {
  Scenario s = OnePool();
  s.workloads[0].memory.weights_mib = 30 * 1024;
  PlanOptions o = Quick();
  o.gpu_types = {"A10", "A100-40G"};
  const PlanResult r = Plan(s, o);
  CHECK_FALSE(r.options_planned.at(0).feasible);
  // 30 GiB of weights and one 256 MiB activation: 31 GiB units.
  CHECK(r.options_planned[0].reason == "default/svc needs 31 GiB per card, A10 has 22");
  CHECK(r.options_planned[0].search.empty());  // nothing simulated
  CHECK(r.options_planned.at(1).feasible);
}

TEST_CASE("density auto keeps the cheapest density that meets") {
  // A light workload: two pods per card halve the cards, so auto picks density >= 2.
  PlanOptions o = Quick();
  o.density = 0;
  o.max_density = 3;
  const PlanResult r = Plan(OnePool(40, 200 * kNanosPerMilli), o);
  const PlanOption& opt = r.options_planned.at(0);
  REQUIRE(opt.feasible);
  CHECK(opt.density >= 1);
  CHECK(Cards(opt) == 1);
  CHECK(opt.workloads[0].replicas == opt.density);
  // The record names each density searched.
  std::set<int> densities;
  for (const PlanSearchStep& s : opt.search) densities.insert(s.density);
  CHECK(densities == std::set<int>{1, 2, 3});
}

TEST_CASE("costs come from the price book; spot makes the nodes spot nodes") {
  PriceBook book;
  book.file = "prices.yaml";
  book.currency = "USD";
  InstancePrice a10;
  a10.instance_type = "ecs.gn7i-c8g1.2xlarge";
  a10.gpu_type = "A10";
  a10.gpus = 1;
  a10.on_demand = 700;
  a10.spot = 210;
  a10.reserved = 455;
  a10.spot_interruptions_per_hour = 0.02;
  book.instances = {a10};
  PlanOptions o = Quick();
  o.prices = &book;
  o.pricing = {"on_demand", "spot", "reserved"};
  o.gpu_types = {"A10", "L20"};
  const PlanResult r = Plan(OnePool(), o);
  REQUIRE(r.options_planned.size() == 6);
  const PlanOption& od = r.options_planned[0];
  REQUIRE(od.feasible);
  CHECK(od.pools[0].instance_type == "ecs.gn7i-c8g1.2xlarge");
  CHECK(*od.monthly_cost == doctest::Approx(700.0 * od.pools[0].nodes));
  CHECK(od.currency == "USD");
  CHECK(*r.options_planned[2].monthly_cost ==
        doctest::Approx(455.0 * r.options_planned[2].pools[0].nodes));
  CHECK(r.options_planned[1].id == "x1/A10/p5/binpack/spot");
  REQUIRE(r.options_planned[1].feasible);
  CHECK(*r.options_planned[1].monthly_cost ==
        doctest::Approx(210.0 * r.options_planned[1].pools[0].nodes));
  CHECK_FALSE(r.options_planned[3].feasible);  // no L20 instance in the book
  CHECK(r.options_planned[3].reason == "no instance with 1 x L20 in prices.yaml");
}

TEST_CASE("plan options are checked before anything runs") {
  const Scenario s = OnePool();
  PlanOptions o;
  o.gpu_types = {"L40"};
  CHECK(ResolvePlanOptions(s, &o).error().message.find("unknown GPU type \"L40\"") !=
        std::string::npos);
  o = {};
  o.policies = {7};
  CHECK(ResolvePlanOptions(s, &o).error().message == "--policies: 7 is not a cGPU POLICY (0..5)");
  o = {};
  o.pricing = {"spot"};
  CHECK(ResolvePlanOptions(s, &o).error().message ==
        "--pricing spot needs a price file (--prices FILE)");
  o = {};
  o.placements = {"ack-spread"};
  CHECK(ResolvePlanOptions(s, &o).ok());
  CHECK(o.placements == std::vector<std::string>{"spread"});
  CHECK(o.gpu_types == std::vector<std::string>{"A10"});
  CHECK(o.policies == std::vector<int>{5});
}

}  // namespace
}  // namespace knobsim
