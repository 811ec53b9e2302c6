// End-to-end: `knobsim diff` on results the real binary writes.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

// One shared A10 pool and one inference service; `rate` and `label` vary between versions.
std::string Scenario(const std::string& name, const std::string& rate, const std::string& label) {
  return "name: " + name + R"(
node_pools:
  - {name: gpu, count: 2, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi}
workloads:
  - name: ocr
    namespace: ai
    replicas: 2
    labels: {app: ocr, team: )" +
         label + R"(}
    gpu_mem: 8
    gpu_memory: {weights: 3Gi, activation: 200Mi}
    traffic: {rate: )" +
         rate + R"(}
    work: {dist: exponential, mean: 40ms}
    slo: {percentile: 99, latency: 2s, error_budget: 1%}
run: {duration: 20m, warmup: 2m, seed: 7, replications: 4}
)";
}

std::string Results(const std::string& tag, const std::string& yaml) {
  const std::string scenario = TempPath(tag + ".yaml");
  const std::string json = TempPath(tag + ".json");
  std::ofstream(scenario) << yaml;
  const Outcome o = Run("run '" + scenario + "' --quiet --json '" + json + "'");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  return json;
}

TEST_CASE("diff: the same inputs twice give no difference at all") {
  const std::string a = Results("a", Scenario("gate", "12/s", "vision"));
  const std::string b = Results("b", Scenario("gate", "12/s", "vision"));
  const Outcome o = Run("diff '" + a + "' '" + b + "'");
  CHECK(o.exit_code == 0);
  CHECK(o.out == "knobsim diff: no difference at all\n");
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST_CASE("diff: a label nobody selects on passes; more load fails p99 and names the workload") {
  const std::string base = Results("base", Scenario("gate", "12/s", "vision"));
  const std::string label = Results("label", Scenario("gate", "12/s", "ocr-team"));
  const std::string load = Results("load", Scenario("gate", "20/s", "vision"));

  const Outcome same = Run("diff '" + base + "' '" + label + "'");
  CHECK(same.exit_code == 0);

  const Outcome worse = Run("diff '" + base + "' '" + load + "' --format markdown");
  CHECK(worse.exit_code == 1);
  CHECK(worse.out.starts_with("### knobsim: "));
  CHECK(worse.out.find("regression") != std::string::npos);
  CHECK(worse.out.find("**ai/ocr** (base): p99") != std::string::npos);
  CHECK(worse.out.find("breaks `p99:+10%`") != std::string::npos);

  // The same change read against a looser rule passes.
  CHECK(Run("diff '" + base + "' '" + load + "' --fail-on 'p99:+1000%'").exit_code == 0);

  const Outcome json = Run("diff '" + base + "' '" + load + "' --format json");
  CHECK(json.exit_code == 1);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc.at("schema") == "knobsim.diff/v1");
  CHECK(doc.at("regressions").get<int>() >= 1);
  bool paired = false;
  for (const auto& row : doc.at("rows"))
    if (row.at("metric") == "p99") paired = row.at("paired").get<bool>();
  CHECK(paired);  // 4 replications with the same seeds: the noise is the paired interval
  for (const std::string& f : {base, label, load}) std::remove(f.c_str());
}

TEST_CASE("diff: documents that cannot be compared exit 2 and say why") {
  const std::string a = Results("x", Scenario("gate", "12/s", "vision"));
  const std::string other = Results("y", Scenario("other", "12/s", "vision"));
  const Outcome renamed = Run("diff '" + a + "' '" + other + "'");
  CHECK(renamed.exit_code == 2);
  CHECK(renamed.err.find("different scenarios") != std::string::npos);
  CHECK(Run("diff '" + a + "' '" + other + "' --allow-scenario-change").exit_code == 0);

  const Outcome rule = Run("diff '" + a + "' '" + a + "' --fail-on 'p99:10%'");
  CHECK(rule.exit_code == 2);
  CHECK(rule.err.find("--fail-on: rule \"p99:10%\": the threshold needs a sign") !=
        std::string::npos);

  const std::string broken = TempPath("broken.json");
  std::ofstream(broken) << "{\"schema\": \"knobsim.results/v1\",\n \"variants\": [";
  const Outcome cut = Run("diff '" + a + "' '" + broken + "'");
  CHECK(cut.exit_code == 2);
  CHECK(cut.err.find(broken + ":2: invalid JSON") != std::string::npos);

  std::ofstream(broken)
      << "{\"schema\": \"knobsim.results/v2\", \"scenario\": \"gate\", \"variants\": []}";
  const Outcome v2 = Run("diff '" + a + "' '" + broken + "'");
  CHECK(v2.exit_code == 2);
  CHECK(v2.err.find("schema major") != std::string::npos);
  for (const std::string& f : {a, other, broken}) std::remove(f.c_str());
}

}  // namespace
}  // namespace knobsim::e2e
