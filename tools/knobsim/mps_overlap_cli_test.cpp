// End-to-end tests of MPS overlap (docs/scenario.md "MPS overlap", models/mps_overlap.h): two
// saturated services on one card of a device-plugin MPS pool, each serving at its overlap rate
// times what the card alone serves — light clients at full speed, heavy ones splitting the card,
// no profile the caps as before — and the bundled scenarios/mps-overlap.yaml's story.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

// Two services of constant 100 ms GPU work on one A10 (speed 1) shared by MPS ×2, each offered
// 4× what the card alone serves, so both always have a request in service and each completes
// rate / 0.1 s per second. `pool_extra` goes into device_sharing, `a` and `b` are the
// workloads' extra keys (their gpu_profile).
std::string MpsScenario(const std::string& pool_extra, const std::string& a, const std::string& b) {
  auto workload = [](const std::string& name, const std::string& extra) {
    return "  - {name: " + name +
           ", whole_gpus: 1, traffic: {rate: 40/s}, work: {dist: constant, mean: 100ms}" +
           (extra.empty() ? "" : ", " + extra) + "}\n";
  };
  return "name: mps\n"
         "node_pools:\n"
         "  - {name: gpu, gpu: A10, count: 1, cpu: 8, memory: 32Gi,"
         " device_sharing: {strategy: mps, replicas: 2" +
         pool_extra +
         "}}\n"
         "workloads:\n" +
         workload("a", a) + workload("b", b) + "run: {duration: 200s, warmup: 0s}\n";
}

double Throughput(const nlohmann::json& doc, const std::string& workload) {
  return Workload(Variant(doc, "base"), workload).at("throughput_rps").get<double>();
}

struct Case {
  const char* rule;
  std::string pool_extra, a, b;
  double speed_a, speed_b;  // fractions of the card alone (10 requests/s)
};

TEST_CASE("mps overlap: saturated clients serve at their overlap rates") {
  const std::string light = "gpu_profile: {sm_active: 0.3}";
  const std::string heavy = "gpu_profile: {sm_active: 0.9}";
  const Case cases[] = {
      {"no profile: each at its cap, 100/replicas (as before profiles)", "", "", "", 0.5, 0.5},
      {"two light clients under 50 % caps run at full speed", "", light, light, 1, 1},
      {"a heavy client is held at its cap: 0.5 / 0.9", "", heavy, light, 0.5 / 0.9, 1},
      {"uncapped heavy clients split the card", ", active_thread_percentage: 100", heavy, heavy,
       0.5 / 0.9, 0.5 / 0.9},
      {"uncapped: the light one keeps its SMs, the heavy one has the rest",
       ", active_thread_percentage: 100", light, heavy, 1, 0.7 / 0.9},
      {"light clients that both stream memory share its bandwidth",
       ", active_thread_percentage: 100", "gpu_profile: {sm_active: 0.3, dram_active: 0.8}",
       "gpu_profile: {sm_active: 0.3, dram_active: 0.8}", 1 / 1.6, 1 / 1.6},
      {"gr_engine_active turns a diluted sm_active into the demand while busy", "",
       "gpu_profile: {sm_active: 0.45, gr_engine_active: 0.5}", light, 0.5 / 0.9, 1},
  };
  int n = 0;
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    const std::string scenario = TempPath("mps-overlap-" + std::to_string(n++) + ".yaml");
    std::ofstream(scenario) << MpsScenario(c.pool_extra, c.a, c.b);
    const Outcome run = Run("run " + Quoted(scenario) + " --quiet --json -");
    REQUIRE_MESSAGE(run.exit_code <= 1, run.err);
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    CHECK(Throughput(doc, "a") == doctest::Approx(10 * c.speed_a).epsilon(0.01));
    CHECK(Throughput(doc, "b") == doctest::Approx(10 * c.speed_b).epsilon(0.01));
  }
}

// A shared DRA claim with the NVIDIA driver's MPS sharing: the claim's pods (two replicas of one
// workload on one A10, saturated) overlap by the same rule as the device plugin's MPS clients.
TEST_CASE("mps overlap: a shared DRA MPS claim's pods overlap as their profile allows") {
  struct DraCase {
    const char* rule;
    std::string mps, profile;
    double served;  // requests/s of the two pods together (the card alone serves 10)
  };
  const DraCase cases[] = {
      {"no profile: the active pods split the card evenly, as before", "", "", 10},
      {"light pods run side by side at full speed", "", ", gpu_profile: {sm_active: 0.3}", 20},
      {"heavy pods split the card: 0.5 / 0.9 each", "", ", gpu_profile: {sm_active: 0.9}",
       20 * 0.5 / 0.9},
      {"a 30 % percentage caps light pods below their demand: 0.3 / 0.4 each",
       ", mps: {active_thread_percentage: 30}", ", gpu_profile: {sm_active: 0.4}", 20 * 0.3 / 0.4},
  };
  int n = 0;
  for (const DraCase& c : cases) {
    CAPTURE(c.rule);
    const std::string scenario = TempPath("mps-overlap-dra-" + std::to_string(n++) + ".yaml");
    std::ofstream(scenario)
        << "name: mps-dra\n"
           "node_pools:\n"
           "  - {name: gpu, gpu: A10, count: 1, gpus_per_node: 1, cpu: 8,"
           " memory: 32Gi, dra: true}\n"
           "workloads:\n"
           "  - {name: a, replicas: 2, dra: {gpus: 1, shared: true, sharing: mps"
        << c.mps << "}, traffic: {rate: 80/s}, work: {dist: constant, mean: 100ms}" << c.profile
        << "}\n"
        << "run: {duration: 200s, warmup: 0s}\n";
    const Outcome run = Run("run " + Quoted(scenario) + " --quiet --json -");
    REQUIRE_MESSAGE(run.exit_code <= 1, run.err);
    CHECK(Throughput(nlohmann::json::parse(run.out), "a") ==
          doctest::Approx(c.served).epsilon(0.02));
  }
}

TEST_CASE("mps overlap: bad profiles and percentages are refused, naming the field") {
  struct Bad {
    std::string pool_extra, a;
    const char* message;
  };
  const Bad bads[] = {
      {"", "gpu_profile: {}", "a gpu_profile needs at least one counter"},
      {"", "gpu_profile: {sm_active: 0}", "sm_active"},
      {"", "gpu_profile: {dram_active: 1.5}", "dram_active"},
      {"", "gpu_profile: {sm_activ: 0.5}", "sm_activ"},
      {", active_thread_percentage: 0", "", "active_thread_percentage"},
      {", active_thread_percentage: 101", "", "active_thread_percentage"},
  };
  int n = 0;
  for (const Bad& b : bads) {
    CAPTURE(b.message);
    const std::string scenario = TempPath("mps-overlap-bad-" + std::to_string(n++) + ".yaml");
    std::ofstream(scenario) << MpsScenario(b.pool_extra, b.a, "");
    const Outcome run = Run("run " + Quoted(scenario) + " --quiet");
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(b.message) != std::string::npos);
    CHECK(run.err.find("mps-overlap-bad-") != std::string::npos);  // the file is named
  }
  const std::string scenario = TempPath("mps-overlap-time-slicing.yaml");
  std::ofstream(scenario) << "name: x\nnode_pools:\n  - {name: gpu, gpu: A10, device_sharing: "
                             "{strategy: time-slicing, replicas: 2, active_thread_percentage: "
                             "50}}\nworkloads: []\n";
  const Outcome run = Run("run " + Quoted(scenario) + " --quiet");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("an active thread percentage is MPS's") != std::string::npos);
}

TEST_CASE("mps overlap: the bundled scenario — light clients lose little, heavy ones split") {
  const Outcome run =
      Run("run " + QuotedSourcePath("scenarios/mps-overlap.yaml") + " --all --quiet --json -");
  REQUIRE_MESSAGE(run.exit_code <= 1, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  auto p99 = [&](const std::string& variant, const std::string& workload) {
    return Workload(Variant(doc, variant), workload).at("latency_ms").at("p99").get<double>();
  };
  // MPS: the light embedders overlap and keep near their solo latency; time-sliced, each waits
  // for the other's slices.
  CHECK(p99("base", "embed") < 0.8 * p99("time-slicing", "embed"));
  // The heavy image models split the card either way: MPS gives them no more than time-slicing.
  CHECK(p99("base", "sdxl") > 0.8 * p99("time-slicing", "sdxl"));
}

}  // namespace
}  // namespace knobsim::e2e
