// End to end: the HPA on the simulated clock (docs/autoscaling.md) through the real binary on
// the bundled scenarios/hpa-morning-ramp.yaml, and on small scenarios written here (cpu).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

const std::string kScenario = "scenarios/hpa-morning-ramp.yaml";

int Rescales(const json& variant, int& last_size) {
  int n = 0;
  for (const json& e : variant.at("cluster").at("events")) {
    if (e.at("kind") != "SuccessfulRescale") continue;
    ++n;
    const std::string m = e.at("message").get<std::string>();
    CHECK(m.rfind("New size: ", 0) == 0);
    last_size = std::stoi(m.substr(10));
  }
  return n;
}

TEST_CASE("the HPA scales the ramp up on GPU utilization, with upstream's event message") {
  const json doc = RunJson(kScenario, "--all");
  int base_size = 0, min3_size = 0;
  const json& base = Variant(doc, "base");
  CHECK(Rescales(base, base_size) > 0);
  CHECK(base_size > 1);
  bool reason = false;
  for (const json& e : base.at("cluster").at("events"))
    if (e.at("kind") == "SuccessfulRescale" &&
        e.at("message").get<std::string>().find("pods metric gpu_utilization above target") !=
            std::string::npos)
      reason = true;
  CHECK(reason);
  // min_replicas 3 starts the ramp on three warm pods: a lower p99 than from one.
  const json& min3 = Variant(doc, "min-3");
  Rescales(min3, min3_size);
  CHECK(Workload(min3, "chat").at("latency_ms").at("p99").get<double>() <
        Workload(base, "chat").at("latency_ms").at("p99").get<double>());
}

TEST_CASE("an HPA on an unknown metric is refused naming the field") {
  const std::string path = TempPath("bad-hpa.yaml");
  {
    std::ofstream f(path);
    f << R"(name: bad
node_pools: [{name: p, count: 1, gpu: A10, gpus_per_node: 1, cpu: 8, memory: 32Gi}]
workloads:
  - name: w
    traffic: {rate: 1/s}
    work: {dist: exponential, mean: 10ms}
    hpa: {max_replicas: 3, metrics: [{metric: memory, average: 1Gi}]}
)";
  }
  const Outcome out = Run("run " + Quoted(path));
  CHECK(out.exit_code == 2);
  CHECK(out.err.find("metric") != std::string::npos);
}

// A workload whose requests spend 200 ms of CPU each (cpu_time before the GPU), 10 per second
// evenly: two cores on a pod that requests `cpu`. Ready at 30 s (its model load).
std::string CpuScenario(const std::string& cpu, const std::string& hpa) {
  const std::string path = TempPath("hpa-cpu.yaml");
  std::ofstream f(path);
  f << R"(name: hpa-cpu
node_pools: [{name: p, count: 1, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi}]
workloads:
  - name: api
)" << cpu
    << R"(    gpu_mem: 4
    gpu_memory: {weights: 1Gi}
    startup: {model_load: 30s}
    traffic: {counts: {step: 50s, values: [500, 500], spread: even}}
    work: {dist: constant, mean: 10ms}
    cpu_time: {before: 200ms}
)" << hpa
    << "run: {duration: 100s, warmup: 0s}\n";
  return path;
}

// 200 % of the one-core request against a 50 % target: ceil(200 / 50 × 1) = 4 pods, at the sync
// a whole metric window (60 s) after the pod turned Ready (the CPU initialization rules).
TEST_CASE("an HPA on cpu utilization scales the pods its requests' CPU time keeps busy") {
  const std::string path = CpuScenario(
      "    cpu: 1\n", "    hpa: {max_replicas: 8, metrics: [{metric: cpu, utilization: 50}]}\n");
  const Outcome out = Run("run " + Quoted(path) + " --quiet --json -");
  REQUIRE_MESSAGE(out.exit_code == 0, out.err);
  const json doc = json::parse(out.out);
  std::vector<std::pair<double, std::string>> rescales;
  for (const json& e : Variant(doc, "base").at("cluster").at("events"))
    if (e.at("kind") == "SuccessfulRescale")
      rescales.emplace_back(e.at("time_s").get<double>(), e.at("message").get<std::string>());
  REQUIRE(rescales.size() == 1);
  CHECK(rescales[0].first == 90);
  CHECK(rescales[0].second ==
        "New size: 4; reason: cpu resource utilization (percentage of request) above target");
}

// No metrics: cpu at 80 % (the API's default); without a cpu request upstream's controller
// cannot compute it and keeps the replicas. Said on stderr, not refused.
TEST_CASE("an HPA without metrics on a workload without a cpu request warns and keeps replicas") {
  const std::string path = CpuScenario("", "    hpa: {max_replicas: 8}\n");
  const Outcome out = Run("run " + Quoted(path) + " --quiet --json -");
  REQUIRE_MESSAGE(out.exit_code == 0, out.err);
  CHECK(out.err.find("workload api: its HPA lists no metric, so runs on cpu at 80 %, and the "
                     "workload requests no cpu") != std::string::npos);
  const json doc = json::parse(out.out);
  for (const json& e : Variant(doc, "base").at("cluster").at("events"))
    CHECK(e.at("kind") != "SuccessfulRescale");
}

// scenarios/cronhpa-morning-step.yaml: the CronHPA raises the HPA's minimum at 07:30 (t = 1.5 h
// from the 06:00 start); without it the 08:00 step lands on one pod and misses the SLO, which
// the timeline's 08:00 step shows.
TEST_CASE("the CronHPA gets ahead of the morning step the HPA alone is too slow for") {
  const json doc = RunJson("scenarios/cronhpa-morning-step.yaml", "--all --timeline 10m");
  const json& base = Variant(doc, "base");
  int fires = 0;
  for (const json& e : base.at("cluster").at("events")) {
    if (e.at("kind") != "Succeed") continue;
    ++fires;
    CHECK(e.at("pod") == "default/chat-office-hours");
    CHECK(e.at("time_s").get<double>() == 5400.0);  // 07:30:00 at UTC+8
    CHECK(e.at("message") ==
          "cron hpa job morning executed successfully. current replicas:1, desired replicas:5.");
  }
  CHECK(fires == 1);  // the 23:00 job is after the run
  CHECK(Workload(base, "chat").at("slo_met") == true);
  const json& alone = Variant(doc, "no-cron");
  CHECK(Workload(alone, "chat").at("slo_met") == false);
  CHECK(Workload(Variant(doc, "min-5"), "chat").at("slo_met") == true);
  // The 08:00-08:10 step: five replicas wanted and serving with the CronHPA, about one without.
  auto step = [](const json& variant, double t_s) {
    for (const json& p : variant.at("timeline").at("workloads").at(0).at("points"))
      if (p.at("t_s").get<double>() == t_s) return p;
    FAIL("no timeline step at " << t_s);
    return json();
  };
  CHECK(step(base, 5400).at("desired_mean").get<double>() == doctest::Approx(5.0));
  CHECK(step(base, 7200).at("available_mean").get<double>() == doctest::Approx(5.0));
  CHECK(step(alone, 6600).at("desired_mean").get<double>() == doctest::Approx(1.0));
  CHECK(step(alone, 7200).at("latency_ms").at("p99").get<double>() >
        10 * step(base, 7200).at("latency_ms").at("p99").get<double>());
}

TEST_CASE("a CronHPA on a workload that has an HPA must target the HPA") {
  const std::string path = TempPath("bad-cron.yaml");
  {
    std::ofstream f(path);
    f << R"(name: bad
node_pools: [{name: p, count: 1, gpu: A10, gpus_per_node: 1, cpu: 8, memory: 32Gi}]
workloads:
  - name: w
    traffic: {rate: 1/s}
    work: {dist: exponential, mean: 10ms}
    hpa: {max_replicas: 3, metrics: [{metric: gpu_utilization, average: 50}]}
    cron_hpa: {jobs: [{name: up, schedule: "0 0 8 * * *", target_size: 2}]}
)";
  }
  const Outcome out = Run("run " + Quoted(path));
  CHECK(out.exit_code == 2);
  CHECK(out.err.find("bad-cron.yaml:8: workloads[0].cron_hpa: a CronHPA that scales the workload "
                     "fights its HPA") != std::string::npos);
  std::remove(path.c_str());
}

// A CronHPA on the workload itself, hand-computed: t = 0 is 2024-01-01 00:00:00 at +08:00 (the
// default start); "0 10 0 * * *" fires at t = 600 s, "0 20 0 * * *" at 1200 s, "@every 25m"
// first at 1499 s (counted from one second before t = 0, when the controller had added it).
TEST_CASE("a CronHPA sets the workload's replicas at its fires, on the default wall clock") {
  const std::string path = TempPath("cron-plain.yaml");
  {
    std::ofstream f(path);
    f << R"(name: cron-plain
node_pools: [{name: p, count: 4, gpu: A10, gpus_per_node: 1, cpu: 8, memory: 32Gi}]
workloads:
  - name: w
    replicas: 2
    gpu_mem: 20
    startup: {image_pull: 0s, model_load: 0s}
    traffic: {rate: 1/s}
    work: {dist: exponential, mean: 10ms}
    cron_hpa:
      jobs:
        - {name: up, schedule: "0 10 0 * * *", target_size: 4}
        - {name: down, schedule: "0 20 0 * * *", target_size: 1}
        - {name: tick, schedule: "@every 25m", target_size: 3, run_once: true}
run: {duration: 30m, warmup: 1m}
)";
  }
  const Outcome out = Run("run " + Quoted(path) + " --timeline 5m --quiet --json -");
  REQUIRE_MESSAGE(out.exit_code == 0, out.err);
  const json doc = json::parse(out.out);
  std::vector<std::pair<double, std::string>> fires;
  for (const json& e : Variant(doc, "base").at("cluster").at("events"))
    if (e.at("kind") == "Succeed")
      fires.emplace_back(e.at("time_s").get<double>(), e.at("message").get<std::string>());
  REQUIRE(fires.size() == 3);
  CHECK(fires[0] == std::pair<double, std::string>{600,
                                                   "cron hpa job up executed successfully. "
                                                   "current replicas:2, desired replicas:4."});
  CHECK(fires[1].first == 1200);
  CHECK(fires[2] == std::pair<double, std::string>{1499,
                                                   "cron hpa job tick executed successfully. "
                                                   "current replicas:1, desired replicas:3."});
  std::vector<double> desired;
  for (const json& p : Variant(doc, "base").at("timeline").at("workloads").at(0).at("points"))
    desired.push_back(p.at("desired_mean").get<double>());
  REQUIRE(desired.size() == 6);
  CHECK(desired[1] == doctest::Approx(2));
  CHECK(desired[2] == doctest::Approx(4));
  CHECK(desired[4] == doctest::Approx((299.0 * 1 + 1.0 * 3) / 300.0));
  CHECK(desired[5] == doctest::Approx(3));
  std::remove(path.c_str());
}

TEST_CASE("a pool that scales to one node at night misses the morning step; warm pods fix it") {
  const json doc = RunJson("scenarios/nodepool-morning-ramp.yaml", "--all --timeline 10m");
  auto pool = [](const json& variant) { return variant.at("node_pools").at(0); };
  const json& base = Variant(doc, "base");
  CHECK(Workload(base, "chat").at("slo_met") == false);
  CHECK(Workload(Variant(doc, "warm-nodes"), "chat").at("slo_met") == false);
  CHECK(Workload(Variant(doc, "min-5"), "chat").at("slo_met") == true);
  CHECK(pool(base).at("name") == "gpu-a10");
  CHECK(pool(base).at("autoscaled") == true);
  CHECK(pool(base).at("nodes_start").get<double>() == 1.0);
  CHECK(pool(base).at("nodes_max").get<double>() > 4.0);
  // The price of the fix: more node-hours than scale-to-one, fewer than the fixed pool.
  const double base_hours = pool(base).at("node_hours").get<double>();
  const double min5_hours = pool(Variant(doc, "min-5")).at("node_hours").get<double>();
  const double fixed_hours = pool(Variant(doc, "fixed-8")).at("node_hours").get<double>();
  CHECK(base_hours < min5_hours);
  CHECK(min5_hours < fixed_hours);
  CHECK(fixed_hours == doctest::Approx(8 * 4.0));
  // Each scale-up names the pool as upstream prints it; each new node joins 2-3 minutes later.
  std::vector<double> up, ready;
  for (const json& e : base.at("cluster").at("events")) {
    if (e.at("kind") == "TriggeredScaleUp") {
      up.push_back(e.at("time_s").get<double>());
      CHECK(e.at("message").get<std::string>().rfind("pod triggered scale-up: [{gpu-a10 ", 0) == 0);
    }
    if (e.at("kind") == "NodeReady") ready.push_back(e.at("time_s").get<double>());
  }
  REQUIRE(!up.empty());
  REQUIRE(!ready.empty());
  CHECK(up.front() > 7200);  // the 08:00 step, once the HPA has asked
  CHECK(ready.front() - up.front() >= 120);
  CHECK(ready.front() - up.front() <= 180);
  // The timeline: one node through the night, five or more by 08:20.
  const json& points = base.at("timeline").at("node_pools").at(0).at("points");
  REQUIRE(points.size() == 24);
  CHECK(points.at(6).at("t_s").get<double>() == 3600.0);
  CHECK(points.at(6).at("nodes_mean").get<double>() == doctest::Approx(1.0));
  CHECK(points.at(14).at("nodes_mean").get<double>() >= 5.0);
}

// Pending pods over time: none through the night; at the 08:00 step the HPA's new replicas wait,
// unbound, for the autoscaler's nodes, from its first rescale until a node is Ready.
TEST_CASE("the morning ramp's new replicas are Pending from the HPA's rescale to the node Ready") {
  const json doc = RunJson("scenarios/nodepool-morning-ramp.yaml", "--timeline 60s");
  const json& base = Variant(doc, "base");
  double rescale = -1, ready = -1;
  for (const json& e : base.at("cluster").at("events")) {
    if (e.at("kind") == "SuccessfulRescale" && rescale < 0) rescale = e.at("time_s").get<double>();
    if (e.at("kind") == "NodeReady" && ready < 0) ready = e.at("time_s").get<double>();
  }
  REQUIRE(rescale >= 7200);  // the HPA answers the step, not the night
  REQUIRE(ready > rescale);
  double first_pending = -1;
  for (const json& p : base.at("timeline").at("workloads").at(0).at("points")) {
    const double t = p.at("t_s").get<double>();
    const double max = p.at("pending_max").get<double>();
    const double mean = p.at("pending_mean").get<double>();
    CAPTURE(t);
    CHECK(mean <= max);
    if (t < 7200) CHECK(max == 0);
    if (max > 0 && first_pending < 0) first_pending = t;
    // The whole step between the rescale and the first node Ready: one replica waits.
    if (t >= rescale && t + 60 <= ready) CHECK(mean == doctest::Approx(1.0));
  }
  CHECK(first_pending == std::floor(rescale / 60) * 60);
}

TEST_CASE("whatif pool_min and pool_max change an autoscaled pool, and refuse a fixed one") {
  const std::string nodepool = QuotedSourcePath("scenarios/nodepool-morning-ramp.yaml");
  const Outcome ok = Run("whatif " + nodepool +
                         " --knob pool_min:gpu-a10=3 --knob pool_max:gpu-a10=6 --quiet --json -");
  REQUIRE_MESSAGE(ok.exit_code == 0, ok.err);
  const json doc = json::parse(ok.out);
  const json& changed = doc.at("variants").at(1).at("node_pools").at(0);
  CHECK(changed.at("nodes_min").get<double>() >= 3.0);
  CHECK(changed.at("nodes_max").get<double>() <= 6.0);
  const Outcome bad = Run("whatif " + QuotedSourcePath(kScenario) + " --knob pool_min:gpu-a10=3");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("node pool \"gpu-a10\" has no autoscaling") != std::string::npos);
  const Outcome crossed = Run("whatif " + nodepool + " --knob pool_min:gpu-a10=9");
  CHECK(crossed.exit_code == 2);
  CHECK(crossed.err.find("pool_min 9 is above the pool's max 8") != std::string::npos);
}

TEST_CASE("whatif hpa_min keeps warm replicas through the night: the morning step meets its SLO") {
  const std::string nodepool = QuotedSourcePath("scenarios/nodepool-morning-ramp.yaml");
  const Outcome ok = Run("whatif " + nodepool +
                         " --knob hpa_min:chat=5 --knob hpa_scale_down_window:chat=10m --quiet"
                         " --json -");
  REQUIRE_MESSAGE(ok.exit_code <= 1, ok.err);
  const json doc = json::parse(ok.out);
  CHECK(Workload(doc.at("variants").at(0), "chat").at("slo_met") == false);
  CHECK(Workload(doc.at("variants").at(1), "chat").at("slo_met") == true);
  const Outcome bad = Run("whatif " + nodepool + " --knob hpa_max:chat=0");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("hpa_max:chat=0") != std::string::npos);
}

TEST_CASE("--prices gives each pool's node-hours a cost in the table and the document") {
  const std::string nodepool = QuotedSourcePath("scenarios/nodepool-morning-ramp.yaml");
  const std::string prices = QuotedSourcePath("scenarios/prices-example.yaml");
  const Outcome out = Run("run " + nodepool + " --prices " + prices + " --quiet --json -");
  REQUIRE_MESSAGE(out.exit_code <= 1, out.err);
  const json doc = json::parse(out.out);
  const json& pool = Variant(doc, "base").at("node_pools").at(0);
  CHECK(pool.at("pricing") == "on_demand");
  CHECK(!pool.at("instance_type").get<std::string>().empty());
  CHECK(pool.at("cost").get<double>() > 0);
  const Outcome table = Run("run " + nodepool + " --prices " + prices);
  CHECK(table.out.find("node-h, ") != std::string::npos);
  const Outcome missing = Run("run " + nodepool + " --prices /nonexistent/prices.yaml");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/nonexistent/prices.yaml") != std::string::npos);
  // Without --prices nothing is priced: null cost.
  const json plain = RunJson("scenarios/nodepool-morning-ramp.yaml");
  CHECK(Variant(plain, "base").at("node_pools").at(0).at("cost").is_null());
}

// The cost rate over time: each timeline step's mean node count at the pool's price per
// node-hour, which sums back (× the step) to the pool's cost.
TEST_CASE("--prices with --timeline gives each priced pool its cost per hour, step by step") {
  const std::string nodepool = QuotedSourcePath("scenarios/nodepool-morning-ramp.yaml");
  const std::string prices = QuotedSourcePath("scenarios/prices-example.yaml");
  const Outcome out =
      Run("run " + nodepool + " --prices " + prices + " --timeline 10m --quiet --json -");
  REQUIRE_MESSAGE(out.exit_code <= 1, out.err);
  const json doc = json::parse(out.out);
  const json& base = Variant(doc, "base");
  const json& series = base.at("timeline").at("node_pools").at(0);
  CHECK(series.at("currency") == base.at("node_pools").at(0).at("currency"));
  double cost = 0;
  for (const json& p : series.at("points")) {
    CHECK(p.at("cost_per_hour").get<double>() >= 0);
    cost += p.at("cost_per_hour").get<double>() * (10.0 / 60.0);
  }
  CHECK(cost ==
        doctest::Approx(base.at("node_pools").at(0).at("cost").get<double>()).epsilon(0.01));
}

// Spot pools (docs/autoscaling.md "Spot pools") on scenarios/spot-fallback.yaml: the spot pool
// stocks out at the 08:00 step, each lost node is given up on 15 minutes after its scale-up, and
// the on-demand pool takes over in that same loop; a reclaimed node is drained at its notice and
// released 5 minutes later.
TEST_CASE(
    "a spot pool's stock-out times out after 15 minutes and falls back to the on-demand "
    "pool; warm on-demand nodes cut the errors") {
  const std::string prices = QuotedSourcePath("scenarios/prices-example.yaml");
  const Outcome out = Run("run " + QuotedSourcePath("scenarios/spot-fallback.yaml") +
                          " --all --prices " + prices + " --quiet --json -");
  REQUIRE_MESSAGE(out.exit_code <= 1, out.err);
  const json doc = json::parse(out.out);
  const json& base = Variant(doc, "base");
  const json& spot = base.at("node_pools").at(0);
  const json& od = base.at("node_pools").at(1);
  CHECK(spot.at("spot") == true);
  CHECK(spot.at("pricing") == "spot");
  CHECK(spot.at("failed_scale_ups").get<double>() >= 1);
  CHECK(spot.at("on_demand_node_hours").get<double>() == 0);
  CHECK(!od.contains("spot"));  // an on-demand pool carries no spot fields
  CHECK(od.at("pricing") == "on_demand");
  CHECK(od.at("nodes_added").get<double>() >= 1);
  std::vector<double> stockouts, timeouts, reclaims, notices;
  std::vector<std::pair<double, std::string>> scale_ups;
  for (const json& e : base.at("cluster").at("events")) {
    const double t = e.at("time_s").get<double>();
    if (e.at("kind") == "SpotStockout") stockouts.push_back(t);
    if (e.at("kind") == "ScaleUpTimedOut") timeouts.push_back(t);
    if (e.at("kind") == "SpotInterruption") notices.push_back(t);
    if (e.at("kind") == "SpotReclaim") reclaims.push_back(t);
    if (e.at("kind") == "TriggeredScaleUp") scale_ups.emplace_back(t, e.at("message"));
  }
  REQUIRE(!timeouts.empty());
  REQUIRE(stockouts.size() >= timeouts.size());
  CHECK(timeouts.front() == doctest::Approx(stockouts.front() + 900).epsilon(1e-9));
  // The loop that gives up on the spot node grows the on-demand pool.
  bool fell_back = false;
  for (const auto& [t, message] : scale_ups)
    fell_back |= t == timeouts.front() && message.find("{gpu-on-demand ") != std::string::npos;
  CHECK(fell_back);
  for (size_t i = 0; i < reclaims.size(); ++i)
    CHECK(reclaims[i] == doctest::Approx(notices[i] + 300).epsilon(1e-9));
  const json& warm = Variant(doc, "warm-on-demand");
  CHECK(Workload(warm, "chat").at("error_ratio").get<double>() <
        Workload(base, "chat").at("error_ratio").get<double>());
}

}  // namespace
}  // namespace knobsim::e2e
