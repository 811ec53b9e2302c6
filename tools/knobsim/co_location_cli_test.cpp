// End-to-end test of a scenario that uses a co-location model (cluster.interference,
// docs/scenario.md "Co-location"): a model fitted by `knobsim interference fit` on the synthetic
// measurements of testdata/interference, two saturated services on one natively time-sliced card,
// and their throughput against the speeds `knobsim interference predict` gives for the pair.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

const std::string kDir = "tools/knobsim/testdata/interference/";

// Two services of constant 100 ms GPU work, each offered 4× what a card alone could serve, so
// both pods always have a request in service and each completes speed / 0.1 s per second. No
// warm-up: the FIFO backlog built during one would be served before the counted requests.
std::string CoLocationScenario(const std::string& model, const std::string& extra_variant = "") {
  return "name: co-location\n"
         "cluster: {policy: 5, interference: " + model + "}\n"
         "node_pools:\n"
         "  - {name: gpu, gpu: A10, count: 1, cpu: 8, memory: 32Gi}\n"
         "workloads:\n"
         "  - {name: light, gpu_mem: 8, traffic: {rate: 40/s}, work: {dist: constant, mean: 100ms},"
         " interference: job-02}\n"
         "  - {name: heavy, gpu_mem: 8, traffic: {rate: 40/s}, work: {dist: constant, mean: 100ms},"
         " interference: job-01}\n"
         "run: {duration: 200s, warmup: 0s}\n"
         "variants:\n"
         "  - {name: policy-split, interference: off}\n" +
         extra_variant;
}

double Throughput(const nlohmann::json& doc, const std::string& variant,
                  const std::string& workload) {
  return Workload(Variant(doc, variant), workload).at("throughput_rps").get<double>();
}

TEST_CASE("co-location: saturated pods on a POLICY 5 card serve at the model's predicted speeds") {
  const std::string model = TempPath("co-location-model.json");
  const Outcome fit = Run("interference fit --solo " + QuotedSourcePath(kDir + "solo.csv") +
                          " --pairs " + QuotedSourcePath(kDir + "train_pairs.csv") + " -o " +
                          Quoted(model) + " -q");
  REQUIRE_MESSAGE(fit.exit_code == 0, fit.err);

  const std::string pairs = TempPath("co-location-pair.csv");
  std::ofstream(pairs) << "job_a,job_b\njob-02,job-01\n";
  const Outcome predict = Run("interference predict --model " + Quoted(model) + " --pairs " +
                              Quoted(pairs) + " --json -");
  REQUIRE_MESSAGE(predict.exit_code == 0, predict.err);
  const nlohmann::json predicted = nlohmann::json::parse(predict.out).at("pairs").at(0);
  const double light_speed = predicted.at("predicted_a").get<double>();
  const double heavy_speed = predicted.at("predicted_b").get<double>();
  // job-02 is light (18 % busy), job-01 heavy (58 %): the light one suffers more beside the
  // heavy than the heavy beside it, and both run far faster than POLICY 5's 0.475 of the card.
  REQUIRE(light_speed < heavy_speed - 0.02);
  REQUIRE(light_speed > 0.6);

  const std::string scenario = TempPath("co-location.yaml");
  std::ofstream(scenario) << CoLocationScenario(model);
  const Outcome run = Run("run " + Quoted(scenario) + " --all --quiet --json -");
  REQUIRE_MESSAGE(run.exit_code <= 1, run.err);  // 1: the backlog misses the SLO, as it should
  const nlohmann::json doc = nlohmann::json::parse(run.out);

  // With the model: each pod runs at its predicted speed (10 requests/s alone).
  CHECK(Throughput(doc, "base", "light") == doctest::Approx(10 * light_speed).epsilon(0.01));
  CHECK(Throughput(doc, "base", "heavy") == doctest::Approx(10 * heavy_speed).epsilon(0.01));
  // Without it: POLICY 5's split, (1 - 0.05) / 2 of the card each.
  CHECK(Throughput(doc, "policy-split", "light") == doctest::Approx(4.75).epsilon(0.01));
  CHECK(Throughput(doc, "policy-split", "heavy") == doctest::Approx(4.75).epsilon(0.01));
  // And the whatif knob is the same switch.
  const Outcome whatif = Run("whatif " + Quoted(scenario) +
                             " --knob interference=off --quiet --json -");
  REQUIRE_MESSAGE(whatif.exit_code <= 1, whatif.err);
}

TEST_CASE("co-location: a shared-GPU service without a profile is refused, naming the fix") {
  const std::string model = TempPath("co-location-model-2.json");
  REQUIRE(Run("interference fit --solo " + QuotedSourcePath(kDir + "solo.csv") + " --pairs " +
              QuotedSourcePath(kDir + "train_pairs.csv") + " -o " + Quoted(model) + " -q")
              .exit_code == 0);
  const std::string scenario = TempPath("co-location-unprofiled.yaml");
  std::ofstream(scenario) << "name: x\ncluster: {interference: " << model
                          << "}\nnode_pools:\n  - {name: gpu, gpu: A10}\nworkloads:\n"
                             "  - {name: svc, gpu_mem: 8, traffic: {rate: 1/s}}\n";
  const Outcome run = Run("run " + Quoted(scenario) + " --quiet");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("workloads[0].name: workload \"svc\" runs GPU work on shared cards, but has "
                     "no interference profile") != std::string::npos);
}

}  // namespace
}  // namespace knobsim::e2e
