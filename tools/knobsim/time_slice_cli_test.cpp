// End-to-end tests of slice mode (cluster.time_slice, docs/semantics.md §2.9) on the real binary:
// its convergence to the fluid model (docs/validation.md rung 4, scenarios/validation/
// slices-converge.yaml), and the published time-slicing measurement
// (scenarios/time-slicing-two-workers.yaml).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

double Latency(const json& doc, const std::string& variant, const std::string& workload,
               const std::string& stat) {
  return Workload(Variant(doc, variant), workload).at("latency_ms").at(stat).get<double>();
}

// The mean latency over both workloads, weighted by their completions.
double PooledMean(const json& doc, const std::string& variant) {
  double sum = 0, n = 0;
  for (const json& w : Variant(doc, variant).at("workloads")) {
    const double completed = w.at("completed").get<double>();
    sum += completed * w.at("latency_ms").at("mean").get<double>();
    n += completed;
  }
  return sum / n;
}

#define CHECK_WITHIN(sim, reference, rel)                                                  \
  do {                                                                                     \
    const double s_ = (sim), r_ = (reference);                                             \
    INFO(#sim << " = " << s_ << ", reference " << r_ << ", off by " << (s_ / r_ - 1) * 100 \
              << " %");                                                                    \
    CHECK(std::abs(s_ - r_) <= (rel)*std::abs(r_));                                        \
  } while (0)

TEST_CASE(
    "slice mode converges to the fluid model: no switch cost, q = E[S]/100, means within 1 %") {
  const json doc = RunJson("scenarios/validation/slices-converge.yaml", "--all");
  // The same arrivals and work in every variant (common random numbers): what differs is the
  // slicing alone. ~10^5 requests.
  CHECK(Workload(Variant(doc, "base"), "heavy").at("requests").get<double>() >= 7e4);
  for (const char* workload : {"heavy", "light"}) {
    CAPTURE(workload);
    CHECK_WITHIN(Latency(doc, "slices", workload, "mean"), Latency(doc, "base", workload, "mean"),
                 0.01);
    CHECK_WITHIN(Latency(doc, "policy0-slices", workload, "mean"),
                 Latency(doc, "policy0", workload, "mean"), 0.01);
  }
  CHECK_WITHIN(PooledMean(doc, "slices"), PooledMean(doc, "base"), 0.01);
  // Coarser slices (E[S]/10) are further from the fluid limit than fine ones.
  CHECK(std::abs(PooledMean(doc, "slices-1ms") / PooledMean(doc, "base") - 1) >
        std::abs(PooledMean(doc, "slices") / PooledMean(doc, "base") - 1));
}

TEST_CASE("slice mode with a switch cost matches fluid POLICY 5 at eta = q/(q + c)") {
  const json doc = RunJson("scenarios/validation/slices-converge.yaml", "--all");
  // q = 100 us, c = 5263 ns: eta = 0.95. The slices' discretisation is below 1 % (above); a
  // hand-over from a pod that went idle to a waiting one costs c where the fluid model pays
  // nothing (one pod left), a few us per busy period against means of ~15 ms. 2 % holds both.
  for (const char* workload : {"heavy", "light"}) {
    CAPTURE(workload);
    CHECK_WITHIN(Latency(doc, "slices-cost", workload, "mean"),
                 Latency(doc, "fluid-eta95", workload, "mean"), 0.02);
  }
  // The switches cost the card what eta < 1 costs the fluid card: (1 - eta) of the time two
  // pods are active, plus the hand-overs above (0.3 % more, measured).
  const double fluid =
      Variant(doc, "fluid-eta95").at("cards").at(0).at("switch_overhead").get<double>();
  const double sliced =
      Variant(doc, "slices-cost").at("cards").at(0).at("switch_overhead").get<double>();
  CHECK(fluid > 0);
  CHECK_WITHIN(sliced, fluid, 0.05);
}

TEST_CASE(
    "slice mode reproduces the published time-slicing tail of a small worker beside a large one") {
  const json doc = RunJson("scenarios/time-slicing-two-workers.yaml", "--all");
  const double solo_p99 = Latency(doc, "solo", "fft", "p99");
  const double solo_p50 = Latency(doc, "solo", "fft", "p50");
  const double p99_ratio = Latency(doc, "base", "fft", "p99") / solo_p99;
  const double fluid_ratio = Latency(doc, "fluid", "fft", "p99") / solo_p99;
  INFO("solo p50 " << solo_p50 << " p99 " << solo_p99 << "; co-located p99 ×" << p99_ratio
                   << ", fluid ×" << fluid_ratio);
  // Published: 3.68 → 6.10 ms, ×1.66. The band ±15 % around it: the slice length (2 ms) and the
  // GEMM's share of the card (25 %) are assumptions, and a 10 % change of either moves the ratio
  // by about 7 %.
  CHECK(solo_p99 == doctest::Approx(3.6).epsilon(0.03));
  CHECK(p99_ratio >= 1.66 * 0.85);
  CHECK(p99_ratio <= 1.66 * 1.15);
  // Medians about unchanged (published); the fluid model cannot show the tail: it stretches the
  // small request's own 1 ms instead of making it wait a slice.
  CHECK(Latency(doc, "base", "fft", "p50") / solo_p50 < 1.05);
  CHECK(fluid_ratio < 1.4);
  // Throughput loss of a worker running back to back, 1 - mean(solo)/mean(co-located):
  // published 7.3 % (FFT) and 1.4 % (GEMM), read here as 1-10 % and at most 5 %.
  const double fft_loss =
      1 - Latency(doc, "solo", "fft", "mean") / Latency(doc, "base", "fft", "mean");
  const double gemm_loss =
      1 - Latency(doc, "gemm-solo", "gemm", "mean") / Latency(doc, "base", "gemm", "mean");
  INFO("throughput loss fft " << fft_loss << ", gemm " << gemm_loss);
  CHECK(fft_loss >= 0.01);
  CHECK(fft_loss <= 0.10);
  CHECK(gemm_loss >= 0);
  CHECK(gemm_loss <= 0.05);
}

TEST_CASE("slice mode refuses cards it would not slice, naming the field") {
  const std::string file = TempPath("slices-refused.yaml");
  const std::string head =
      "name: slices-refused\n"
      "node_pools:\n"
      "  - {name: gpu, gpu: A10, count: 1, cpu: 8, memory: 32Gi,\n"
      "     labels: {ack.node.gpu.schedule: cgpu}}\n"
      "workloads:\n"
      "  - {name: svc, gpu_mem: 4, traffic: {rate: 1/s}}\n";
  struct Case {
    const char* rule;
    std::string yaml;
    std::string message;
  };
  const Case cases[] = {
      {"cGPU POLICY 1 is not slices", head + "cluster: {policy: 1, time_slice: {quantum: 2ms}}\n",
       "cluster.time_slice: slice mode shares only cards of native time-slicing and cGPU POLICY 0, "
       "but node pool \"gpu\" runs cGPU with POLICY 1"},
      {"a slice shorter than 1 us", head + "cluster: {time_slice: {quantum: 500ns}}\n",
       "cluster.time_slice.quantum: a time slice of 500ns is too short"},
      {"a variant that moves the pool to POLICY 3",
       head + "cluster: {time_slice: {quantum: 2ms}}\nvariants:\n  - {name: p3, policy: 3}\n",
       "runs cGPU with POLICY 3"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    std::ofstream(file) << c.yaml;
    const Outcome o = Run("run " + Quoted(file) + " --quiet");
    CHECK(o.exit_code == 2);
    CHECK_MESSAGE(o.err.find(c.message) != std::string::npos, o.err);
  }
  // plan's POLICY cells are refused the same way, before any size runs.
  std::ofstream(file) << head + "cluster: {time_slice: {quantum: 2ms}}\n";
  const Outcome plan = Run("plan " + Quoted(file) + " --policies 5,3 --quiet");
  CHECK(plan.exit_code == 2);
  CHECK_MESSAGE(plan.err.find("--policies: at POLICY 3, slice mode shares only cards of native "
                              "time-slicing and cGPU POLICY 0, but node pool \"gpu\" runs cGPU "
                              "with POLICY 3") != std::string::npos,
                plan.err);
}

}  // namespace
}  // namespace knobsim::e2e
