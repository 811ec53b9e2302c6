// End to end: the HPA on the simulated clock (docs/autoscaling.md) through the real binary on
// the bundled scenarios/hpa-morning-ramp.yaml.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

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
    hpa: {max_replicas: 3, metrics: [{metric: cpu, average: 50}]}
)";
  }
  const Outcome out = Run("run " + Quoted(path));
  CHECK(out.exit_code == 2);
  CHECK(out.err.find("metric") != std::string::npos);
}

}  // namespace
}  // namespace knobsim::e2e
