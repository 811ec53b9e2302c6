// End-to-end test of GPU profiles through `knobsim import` (docs/import.md "GPU profiles"): the
// real knobsim-gen-export writes DCGM's profiling counters from a known profile per workload
// (tools/gen-export/README.md "GPU profiles"); the import must find each workload's profile
// from the samples of its pods alone on a card — SM_ACTIVE / GR_ENGINE_ACTIVE back at the
// truth's sm_active per unit of busy — and write none, saying why, for a workload whose pods
// only share cards. The imported scenario runs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

// The workload's block of the imported scenario: from its `- name:` line with that namespace to
// the next workload.
std::string WorkloadBlock(const std::string& scenario, const std::string& ns,
                          const std::string& name) {
  const std::string head = "\n  - name: " + name + "\n    namespace: " + ns + "\n";
  const auto at = scenario.find(head);
  if (at == std::string::npos) return {};
  const auto next = scenario.find("\n  - name: ", at + head.size());
  return scenario.substr(at, next == std::string::npos ? std::string::npos : next - at);
}

TEST_CASE("gpu profiles: import finds each workload's solo profile from DCGM's counters") {
  const std::string dir = TempPath("gpu-profile-export");
  std::filesystem::remove_all(dir);
  const std::string cmd = Quoted(KNOBSIM_GEN_EXPORT_BINARY) +
                          " --nodes 20 --pods 60 --days 1 --step 300 --gpu-profiles"
                          " --no-secrets --format json -o " +
                          Quoted(dir) + " >/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const json truth = json::parse(ReadFile(dir + "/truth.json"));
  std::string args = "import --kube " + Quoted(dir + "/export.json");
  for (const json& f : truth.at("metrics").at("files"))
    args += " --prom " + Quoted(dir + "/" + f.get<std::string>());
  const std::string out = TempPath("gpu-profile-imported.yaml");
  const Outcome o = Run(args + " --rate-metric http_requests_per_second -o " + Quoted(out));
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  const std::string scenario = ReadFile(out);

  // Which workloads have a pod alone on a card.
  std::map<std::string, int> pods_on;  // "node/gpu" -> pods
  for (const json& c : truth.at("cards"))
    pods_on[c.at("node").get<std::string>() + "/" + std::to_string(c.at("gpu").get<int>())] =
        static_cast<int>(c.at("pods").size());
  std::set<std::string> solo, placed;  // "ns/workload"
  for (const json& p : truth.at("pods")) {
    if (p.at("cards").empty()) continue;
    const std::string w =
        p.at("namespace").get<std::string>() + "/" + p.at("workload").get<std::string>();
    placed.insert(w);
    // Alone on one of its cards is enough: that card's counters are the pod's own there.
    for (const json& c : p.at("cards"))
      if (pods_on[c.at("node").get<std::string>() + "/" + std::to_string(c.at("gpu").get<int>())] ==
          1)
        solo.insert(w);
  }

  const std::regex profile(
      R"(gpu_profile: \{sm_active: ([0-9.]+), sm_occupancy: ([0-9.]+), dram_active: ([0-9.]+), )"
      R"(tensor_active: ([0-9.]+), gr_engine_active: ([0-9.]+)\})");
  int found = 0, refused = 0;
  for (const json& w : truth.at("workloads")) {
    if (!w.contains("gpu_profile")) continue;
    const std::string ns = w.at("namespace"), name = w.at("name");
    const std::string key = ns + "/" + name;
    if (!placed.count(key)) continue;
    CAPTURE(key);
    const std::string block = WorkloadBlock(scenario, ns, name);
    REQUIRE(!block.empty());
    std::smatch m;
    if (!solo.count(key)) {
      // Only shared cards: the card's counters say nothing about one pod.
      CHECK(!std::regex_search(block, m, profile));
      CHECK(block.find("# gpu_profile: none: its pods never ran alone on a card") !=
            std::string::npos);
      CHECK(o.err.find("gpu_profile of " + key + ": its pods never ran alone") !=
            std::string::npos);
      ++refused;
      continue;
    }
    REQUIRE(std::regex_search(block, m, profile));
    const double busy = std::stod(m[5]);
    REQUIRE(busy > 0.02);
    const json& t = w.at("gpu_profile");
    // Each counter over the sample is the profile × busy plus ±0.01 noise: per unit of busy the
    // truth, to within the noise over the busy.
    const double tolerance = 0.02 / busy + 0.01;
    CHECK(std::abs(std::stod(m[1]) / busy - t.at("sm_active").get<double>()) <= tolerance);
    CHECK(std::abs(std::stod(m[2]) / busy - t.at("sm_occupancy").get<double>()) <= tolerance);
    CHECK(std::abs(std::stod(m[3]) / busy - t.at("dram_active").get<double>()) <= tolerance);
    CHECK(std::abs(std::stod(m[4]) / busy - t.at("tensor_active").get<double>()) <= tolerance);
    ++found;
  }
  // The default 20-node export at 60 pods: 8 workloads with a pod alone somewhere, 4 without.
  CHECK(found >= 5);
  CHECK(refused >= 2);

  const Outcome run = Run("run " + Quoted(out) + " --quiet --duration 10m");
  CHECK_MESSAGE(run.exit_code <= 1, run.err);
  std::filesystem::remove_all(dir);
  std::remove(out.c_str());
}

}  // namespace
}  // namespace knobsim::e2e
