// Elasticity at the size (issue 21): a 24 h run of a GPU node pool the cluster-autoscaler
// sizes between 20 and 200 nodes (8 A10 cards each, two 11-unit gpu-mem pods per card) under 20
// inference services, each with an HPA on GPU utilization (20 to 100 replicas: 2 000 pods at the
// peak) and diurnal traffic (2 s of card time per request). Goal: under 30 s on two cores. Also a
// 6 h run, to show the cost per simulated hour stays flat. The scenario is read once, outside
// the timing; every iteration is one full run (placement, HPAs, autoscaler, requests).
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>

#include "sim/engine/simulator.h"
#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

std::string ScenarioYaml() {
  std::string y =
      "name: autoscaled-200\n"
      "cluster:\n"
      "  policy: 5\n"
      "  cluster_autoscaler: {scan_interval: 10s, expander: least-waste}\n"
      "node_pools:\n"
      "  - name: gpu\n"
      "    gpu: A10\n"
      "    gpus_per_node: 8\n"
      "    cpu: 128\n"
      "    memory: 512Gi\n"
      "    zones: [z1, z2, z3]\n"
      "    autoscaling: {min: 20, max: 200}\n"
      "workloads:\n";
  for (int w = 0; w < 20; ++w) {
    y += "  - name: svc-" + std::to_string(w) +
         "\n"
         "    replicas: 20\n"
         "    cpu: 4\n"
         "    memory: 16Gi\n"
         "    gpu_mem: 11\n"
         "    gpu_memory: {weights: 6Gi, activation: 256Mi}\n"
         "    startup: {image_pull: 45s, model_load: 60s}\n"
         "    traffic: {diurnal: {mean: 9/s, amplitude: 0.8, period: 24h, peak_at: " +
         std::to_string(12 + w % 6) +
         "h}}\n"
         "    work: {dist: lognormal, mean: 2s, cv: 0.5}\n"
         "    concurrency: 1\n"
         "    routing: least_outstanding\n"
         "    timeout: 60s\n"
         "    hpa: {min_replicas: 20, max_replicas: 100,\n"
         "          metrics: [{metric: gpu_utilization, average: 60}]}\n";
  }
  y += "run: {duration: 24h, warmup: 5m, seed: 1}\n";
  return y;
}

const Scenario& Autoscaled() {
  static const Scenario s = [] {
    Expected<Scenario> read = ReadScenarioString(ScenarioYaml(), "autoscaled-200.yaml");
    if (!read.ok()) throw std::runtime_error(read.error().ToString());
    return std::move(*read);
  }();
  return s;
}

void BM_AutoscaledDay(benchmark::State& state) {
  const Scenario& s = Autoscaled();
  RunOptions options;
  options.duration = state.range(0) * 3600 * kNanosPerSecond;
  uint64_t requests = 0;
  double peak_nodes = 0;
  for (auto _ : state) {
    engine::Simulator sim(s, 1, options);
    const RunResult r = sim.Run();
    requests = r.requests_simulated;
    peak_nodes = r.pools.at(0).nodes_max;
    benchmark::DoNotOptimize(r.workloads.size());
  }
  state.counters["requests"] = static_cast<double>(requests);
  state.counters["peak_nodes"] = peak_nodes;
  state.counters["sim_hours"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_AutoscaledDay)->Arg(6)->Arg(24)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace knobsim
