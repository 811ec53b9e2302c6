// End to end: recorded traffic (docs/scenario.md "Recorded traffic") through the real binary on
// the bundled scenarios/recorded-traffic/: every recorded request arrives, exactly once, and the
// files' mistakes come back as input errors naming the recording's line.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

const std::string kScenario = "scenarios/recorded-traffic/scenario.yaml";

// Data rows of a recording (not blank, not a comment, not the header).
int64_t Rows(const std::string& path) {
  std::ifstream in(SourcePath(path));
  std::string line;
  int64_t rows = 0, sum = 0;
  bool header = true;
  const bool counts = path.find("counts") != std::string::npos;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    ++rows;
    if (counts) sum += std::stoll(line);
  }
  return counts ? sum : rows;
}

TEST_CASE("recorded traffic replays every request: requests equal the recording's rows") {
  const json doc = RunJson(kScenario, "--all");
  const json& base = Variant(doc, "base");
  CHECK(Workload(base, "detect").at("requests").get<int64_t>() ==
        Rows("scenarios/recorded-traffic/arrivals.csv"));
  CHECK(Workload(base, "embed").at("requests").get<int64_t>() ==
        Rows("scenarios/recorded-traffic/embed-counts.txt"));
}

TEST_CASE("a traffic scale of 2 plays each recorded arrival twice and doubles every count") {
  const json doc = RunJson(kScenario, "--all");
  const json& base = Variant(doc, "base");
  const json& twice = Variant(doc, "double-traffic");
  for (const char* w : {"detect", "embed"}) {
    CAPTURE(w);
    CHECK(Workload(twice, w).at("requests").get<int64_t>() ==
          2 * Workload(base, w).at("requests").get<int64_t>());
  }
}

TEST_CASE("the same recording and seed give the same results, at any thread count") {
  const Outcome a =
      Run("run " + QuotedSourcePath(kScenario) + " --all --replications 3 --threads 1 --json -");
  const Outcome b =
      Run("run " + QuotedSourcePath(kScenario) + " --all --replications 3 --threads 2 --json -");
  REQUIRE(a.exit_code == b.exit_code);
  CHECK(a.out == b.out);
}

TEST_CASE("a recording's mistake is an input error naming the scenario field and the file's line") {
  const std::string dir = TempPath("recorded");
  REQUIRE(std::system(("mkdir -p '" + dir + "'").c_str()) == 0);
  std::ofstream(dir + "/epoch.csv") << "time\n1772445600\n1772445601\n";
  std::ofstream(dir + "/s.yaml")
      << "name: s\nnode_pools: [{name: g, count: 1, gpu: A10, gpus_per_node: 1, cpu: 8, memory: "
         "32Gi,"
         " labels: {ack.node.gpu.schedule: cgpu}}]\n"
         "workloads:\n  - name: w\n    gpu_mem: 4\n    traffic: {replay: epoch.csv}\n";
  const Outcome o = Run("run '" + dir + "/s.yaml'");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("s.yaml:6: workloads[0].traffic.replay:") != std::string::npos);
  CHECK(o.err.find("epoch.csv:2: time: looks like an instant") != std::string::npos);
  CHECK(o.err.find("start") != std::string::npos);

  std::ofstream(dir + "/s.yaml", std::ios::trunc)
      << "name: s\nnode_pools: [{name: g, count: 1, gpu: A10, gpus_per_node: 1, cpu: 8, memory: "
         "32Gi,"
         " labels: {ack.node.gpu.schedule: cgpu}}]\n"
         "workloads:\n  - name: w\n    gpu_mem: 4\n    traffic: {replay: epoch.csv, start: first}\n"
         "run: {duration: 10s, warmup: 0s}\n";
  const Outcome fixed = Run("run '" + dir + "/s.yaml' --json -");
  CHECK(fixed.exit_code == 0);
  CHECK(Workload(Variant(json::parse(fixed.out), "base"), "w").at("requests") == 2);
}

}  // namespace
}  // namespace knobsim::e2e
