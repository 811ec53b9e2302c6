// End-to-end: `knobsim plan` on the real binary — the M/M/1 closed forms of issue 6 (exclusive
// cards, and POLICY 3 at 50 % with two replicas per card), sharding, and bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

// With random routing each of N replicas is an M/M/1 queue with arrival rate λ/N; its response
// time is exponential with rate μ − λ/N, so p99 = ln(100) / (μ − λ/N) (docs/plan.md).
double P99(double mu, double lambda, int n) {
  return std::log(100.0) / (mu - lambda / n);
}

int SmallestReplicas(double mu, double lambda, double d) {
  int n = 1;
  while (mu - lambda / n < std::log(100.0) / d) ++n;
  return n;
}

struct Case {
  double lambda;  // requests per second
  int d_ms;       // SLO: p99 within d
};

constexpr double kMu = 100;  // exponential work of mean 10 ms on an A10 (speed 1)

// Writes the scenario of one case and returns its path. Every replication measures about 2·10^5
// requests after 20 s of warm-up, so the per-replication p99 is within about 2 % (docs/plan.md).
std::string WriteScenario(const std::string& name, const Case& c, bool exclusive) {
  const std::string path = TempPath(name + ".yaml");
  const int seconds = 20 + static_cast<int>(std::ceil(200000.0 / c.lambda));
  std::ofstream out(path);
  out << "name: " << name << "\n"
      << "cluster: {policy: 5, switch_overhead: 0}\n"
      << "node_pools:\n"
      << "  - {name: gpu, count: 1, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi, labels: "
      << "{ack.node.gpu.schedule: " << (exclusive ? "default" : "cgpu") << "}}\n"
      << "workloads:\n"
      << "  - name: svc\n"
      << (exclusive ? "    whole_gpus: 1\n"
                    : "    gpu_mem: 4\n    gpu_memory: {weights: 0, activation: 0, context: 0}\n")
      << "    traffic: {rate: " << c.lambda << "/s}\n"
      << "    work: {dist: exponential, mean: 10ms}\n"
      << "    concurrency: 1\n"
      << "    routing: random\n"
      << "    slo: {latency: " << c.d_ms << "ms, percentile: 99, error_budget: 0.1%}\n"
      << "run: {duration: " << seconds << "s, warmup: 20s, seed: 1}\n";
  return path;
}

nlohmann::json Plan(const std::string& scenario, const std::string& extra) {
  const std::string traffic = extra.find("--traffic") == std::string::npos ? "--traffic 1 " : "";
  const Outcome o = Run("plan '" + scenario + "' " + traffic + "--replications 5 --threads 2 " +
                        extra + " --quiet --json -");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  return nlohmann::json::parse(o.out);
}

// The option's search record is exactly [nodes met, nodes − 1 missed].
void CheckSettledAtOnce(const nlohmann::json& option, int nodes) {
  const nlohmann::json& search = option.at("search");
  REQUIRE(search.size() == 2);
  CHECK(search.at(0).at("nodes") == nodes);
  CHECK(search.at(0).at("met") == true);
  CHECK(search.at(1).at("nodes") == nodes - 1);
  CHECK(search.at(1).at("met") == false);
}

// Each case: N − 1 misses the SLO by at least 6 % and N meets it by at least 6 % (checked below
// from the formula, so a case cannot silently become a coin toss).
const Case kExclusive[] = {{60, 100}, {120, 100}, {200, 120}, {300, 150}, {350, 120}, {450, 150}};
const Case kPolicy3[] = {{90, 200}, {120, 200}, {150, 250}, {200, 250}, {250, 200}, {350, 250}};

TEST_CASE("plan returns the M/M/1 replica count on exclusive whole cards, at two seeds") {
  for (const Case& c : kExclusive) {
    const double d = c.d_ms / 1000.0;
    const int n = SmallestReplicas(kMu, c.lambda, d);
    CAPTURE(c.lambda);
    CAPTURE(c.d_ms);
    CAPTURE(n);
    REQUIRE(n >= 2);
    REQUIRE(P99(kMu, c.lambda, n) * 1.06 <= d);
    REQUIRE((c.lambda / (n - 1) >= kMu || P99(kMu, c.lambda, n - 1) >= 1.06 * d));
    const std::string file = WriteScenario("mm1-exclusive", c, true);
    for (const char* seed : {"1", "7"}) {
      CAPTURE(seed);
      const nlohmann::json doc = Plan(file, std::string("--seed ") + seed);
      const nlohmann::json& opt = doc.at("options").at(0);
      REQUIRE(opt.at("feasible") == true);
      CHECK(opt.at("pools").at(0).at("nodes") == n);
      CHECK(opt.at("pools").at(0).at("cards") == n);
      CHECK(opt.at("workloads").at(0).at("replicas") == n);
      const double p99 = opt.at("workloads").at(0).at("latency_ms").at("p99").get<double>();
      CHECK(p99 == doctest::Approx(1000 * P99(kMu, c.lambda, n)).epsilon(0.04));
      // The search starts from the queueing estimate, which is this closed form: N meets, N − 1
      // misses, nothing else is simulated.
      CheckSettledAtOnce(opt, n);
    }
    std::remove(file.c_str());
  }
}

TEST_CASE("plan under POLICY 3 at 50 % with two replicas per card needs ceil(N/2) cards for μ/2") {
  for (const Case& c : kPolicy3) {
    const double d = c.d_ms / 1000.0;
    const int n = SmallestReplicas(kMu / 2, c.lambda, d);
    const int cards = (n + 1) / 2;
    CAPTURE(c.lambda);
    CAPTURE(c.d_ms);
    CAPTURE(n);
    // The replicas come in pairs: 2·cards meets by 6 %, 2·(cards − 1) misses by 6 %.
    REQUIRE(P99(kMu / 2, c.lambda, 2 * cards) * 1.06 <= d);
    REQUIRE((c.lambda / (2 * cards - 2) >= kMu / 2 ||
             P99(kMu / 2, c.lambda, 2 * cards - 2) >= 1.06 * d));
    const std::string file = WriteScenario("mm1-policy3", c, false);
    for (const char* seed : {"1", "7"}) {
      CAPTURE(seed);
      const nlohmann::json doc = Plan(file, std::string("--policies 3 --density 2 --seed ") + seed);
      const nlohmann::json& opt = doc.at("options").at(0);
      REQUIRE(opt.at("feasible") == true);
      CHECK(opt.at("id") == "x1/A10/p3/binpack/on_demand");
      CHECK(opt.at("density") == 2);
      CHECK(opt.at("pools").at(0).at("cards") == cards);
      CHECK(opt.at("workloads").at(0).at("replicas") == 2 * cards);
      CheckSettledAtOnce(opt, cards);
    }
    std::remove(file.c_str());
  }
}

TEST_CASE("plan writes the plan document with its recommendation and frontier") {
  const std::string file = WriteScenario("mm1-doc", {150, 100}, true);
  const nlohmann::json doc = Plan(file, "--traffic 1,2 --duration 300s");
  CHECK(doc.at("schema") == "knobsim.plan/v1");
  CHECK(doc.at("command").get<std::string>().find("--traffic 1,2") != std::string::npos);
  CHECK(doc.at("command").get<std::string>().find("--json") == std::string::npos);
  REQUIRE(doc.at("options").size() == 2);
  CHECK(doc.at("options").at(0).at("cell") == 0);
  CHECK(doc.at("options").at(1).at("id") == "x2/A10/p5/binpack/on_demand");
  REQUIRE(doc.at("recommendations").size() == 2);
  CHECK(doc.at("recommendations").at(0).at("option") == "x1/A10/p5/binpack/on_demand");
  CHECK(doc.at("recommendations")
            .at(0)
            .at("text")
            .get<std::string>()
            .rfind("At 1x traffic: 3 nodes (A10) in gpu, POLICY 5, binpack", 0) == 0);
  CHECK(doc.at("frontier").at(1).at("options") ==
        nlohmann::json::array({"x2/A10/p5/binpack/on_demand"}));
  // More traffic never needs fewer cards.
  CHECK(doc.at("options").at(1).at("pools").at(0).at("cards").get<int>() >
        doc.at("options").at(0).at("pools").at(0).at("cards").get<int>());
  std::remove(file.c_str());
}

TEST_CASE("plan shards merge into exactly the unsharded document") {
  const std::string file = WriteScenario("mm1-shards", {150, 100}, true);
  const std::string common =
      "plan '" + file + "' --traffic 1,1.5,2 --duration 120s --quiet --json ";
  const std::string whole = TempPath("plan-whole.json");
  REQUIRE(Run(common + "'" + whole + "'").exit_code == 0);
  std::string shards;
  for (int i = 0; i < 3; ++i) {
    const std::string out = TempPath("plan-shard-" + std::to_string(i) + ".json");
    REQUIRE(
        Run(common + "'" + out + "' --shard " + std::to_string(i) + "/3 --threads 1").exit_code ==
        0);
    const nlohmann::json doc = nlohmann::json::parse(ReadFile(out));
    CHECK(doc.at("shard").at("index") == i);
    CHECK(doc.at("options").size() == 1);
    shards += " '" + out + "'";
  }
  const std::string merged = TempPath("plan-merged.json");
  const Outcome m = Run("merge" + shards + " -o '" + merged + "'");
  REQUIRE_MESSAGE(m.exit_code == 0, m.err);
  CHECK(ReadFile(merged) == ReadFile(whole));
  for (const std::string& f : {whole, merged}) std::remove(f.c_str());
  for (int i = 0; i < 3; ++i)
    std::remove(TempPath("plan-shard-" + std::to_string(i) + ".json").c_str());
  std::remove(file.c_str());
}

TEST_CASE("plan's document is byte-identical at 1, 2, 3 and the default threads") {
  // 16 cells searched in parallel (two GPU types, two POLICYs, densities 1..2), on-demand and
  // reserved cells sharing their simulations: whichever thread plans a cell or first simulates a
  // size, and whenever sequential stopping cuts a size short, the plan is the same.
  const std::string file = WriteScenario("mm1-threads", {150, 100}, false);
  const std::string common = "plan '" + file +
                             "' --traffic 1,2 --gpu-types A10,T4 --policies 3,5 --max-density 2"
                             " --pricing on_demand,reserved --prices " +
                             QuotedSourcePath("scenarios/prices-example.yaml") +
                             " --replications 3 --duration 60s --warmup 10s --quiet --json -";
  const Outcome one = Run(common + " --threads 1");
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  const nlohmann::json doc = nlohmann::json::parse(one.out);
  REQUIRE(doc.at("options").size() == 16);
  for (const char* threads : {" --threads 2", " --threads 3", ""}) {
    CAPTURE(threads);
    const Outcome o = Run(common + threads);
    REQUIRE(o.exit_code == 0);
    CHECK(o.out == one.out);
  }
}

TEST_CASE("a scenario the plan cannot group is refused the same at any thread count") {
  // GroupPools throws before any planning thread starts (a throw on one would end the process).
  const std::string path = TempPath("plan-ungroupable.yaml");
  std::ofstream(path) << "name: ungroupable\n"
                      << "cluster: {policy: 5}\n"
                      << "node_pools:\n"
                      << "  - {name: gpu, count: 1, gpu: A10, gpus_per_node: 1, cpu: 16, "
                      << "memory: 64Gi, labels: {ack.node.gpu.schedule: cgpu}}\n"
                      << "workloads:\n"
                      << "  - {name: whole, whole_gpus: 1, traffic: {rate: 10/s}, "
                      << "work: {dist: exponential, mean: 10ms}}\n"
                      << "run: {duration: 60s, warmup: 10s, seed: 1}\n";
  for (const char* threads : {"1", "2", "3"}) {
    CAPTURE(threads);
    const Outcome o =
        Run("plan '" + path + "' --traffic 1,2 --threads " + threads + " --quiet --json -");
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("workload default/whole fits no GPU node pool") != std::string::npos);
  }
}

TEST_CASE("plan rejects bad input with exit status 2 and writes nothing") {
  const std::string file = WriteScenario("mm1-bad", {150, 100}, true);
  const std::string out = TempPath("plan-bad.json");
  Outcome o = Run("plan '" + file + "' --gpu-types L40 --json '" + out + "'");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("knobsim: --gpu-types: unknown GPU type \"L40\"") == 0);
  CHECK(ReadFile(out).empty());
  o = Run("plan '" + file + "' --density lots");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("--density") != std::string::npos);
  o = Run("plan '" + file + "' --pricing spot");
  CHECK(o.exit_code == 2);
  CHECK(o.err == "knobsim: --pricing spot needs a price file (--prices FILE)\n");
  o = Run("plan '" + file + "' --shard 3/3");
  CHECK(o.exit_code == 2);
  std::remove(file.c_str());
}

// An autoscaled pool under an HPA (docs/plan.md "Autoscaled pools"): the fixed option sizes the
// peak, the autoscaled configuration beside it has a lower floor, a smaller mean and a lower cost.
TEST_CASE("plan sizes an autoscaled pool both ways: fixed for the peak, and the cheapest floor") {
  const Outcome o = Run("plan " + QuotedSourcePath("scenarios/diurnal-autoscaled.yaml") +
                        " --gpu-types A10 --policies 5 --density 1 --traffic 1 --replications 2"
                        " --prices " +
                        QuotedSourcePath("scenarios/prices-example.yaml") + " --json -");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  const nlohmann::json& option = doc.at("options").at(0);
  REQUIRE(option.at("feasible") == true);
  const int nodes = option.at("pools").at(0).at("nodes").get<int>();
  const nlohmann::json& a = option.at("autoscaled");
  const nlohmann::json& pool = a.at("pools").at(0);
  CHECK(pool.at("name") == "gpu-a10");
  CHECK(pool.at("max").get<int>() == nodes);
  CHECK(pool.at("min").get<int>() < nodes);
  CHECK(pool.at("nodes_mean").get<double>() < nodes);
  CHECK(a.at("monthly_cost").get<double>() < option.at("monthly_cost").get<double>());
  CHECK(a.at("currency") == option.at("currency"));
  CHECK(a.at("workloads").at(0).at("slo_met") == true);
  const Outcome text = Run("plan " + QuotedSourcePath("scenarios/diurnal-autoscaled.yaml") +
                           " --gpu-types A10 --policies 5 --density 1 --traffic 1"
                           " --replications 2");
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("autoscaled: gpu-a10 ") != std::string::npos);
  // The recommendation names both.
  const std::string rec = doc.at("recommendations").at(0).at("text").get<std::string>();
  CHECK(rec.find("; autoscaled, gpu-a10 " + std::to_string(pool.at("min").get<int>()) + ".." +
                 std::to_string(nodes) + " nodes (mean ") != std::string::npos);
  CHECK(rec.find(" CNY/month.") != std::string::npos);
}

}  // namespace
}  // namespace knobsim::e2e
