// `knobsim run`'s cost per simulated request as the cluster grows (issue 23, item 2): the
// shared-card cluster of sharing_bench (bench/shared_cards_cluster.h: 4 A10 cards and 12 pods
// per node, the same services' mix and the same traffic per node) at 100, 1 000 and 5 000 nodes,
// under POLICY 5. Nothing in the model depends on the node count, so the CPU time per request
// should not either. Goal: within 1.3x from 100 to 5 000 nodes.
//
// Args: nodes, and replicas per service. replicas:10 grows the number of services with the
// cluster (1.2 per node: 120 at 100 nodes, 6 000 at 5 000), replicas:400 keeps about the same
// services (3 at 100 nodes, 150 at 5 000). Each iteration simulates about 1.5 M requests: the
// horizon shrinks as the cluster grows (95 s of simulated time at 100 nodes, 1.9 s at 5 000),
// the warm-up a twentieth of it.
//
// Counters: ns_per_request, the iteration's CPU time over RunResult::requests_simulated (every
// arrival, warm-up included), placement and collection included; setup_ms, the CPU time of
// the same run cut to 1 ns (building the tables, placing every pod, collecting the results),
// measured once before the timed runs; run_ns_per_request, ns_per_request less that setup: the
// request flow alone. mean_card_busy (about 0.49, as sharing_bench's POLICY 5) and pending_pods (0)
// show a broken engine as a wrong answer.
//
// BM_RunDiurnalDay: the large cluster, 10 000 nodes of 4 A10 cards and 100 000 pods
// (2 000 services of 50 replicas at 7 GiB, three to a card), under a diurnal day each (amplitude
// 0.6, peaks between 12:00 and 17:00) of LLM-sized requests (lognormal, 10 s of A10 time on
// average, cv 1) at a tenth of a card per pod: 1 000 requests/s on average, 86 M in 24 h. One
// iteration of `hours` simulated hours; peak_rss_mib is the process's peak resident memory
// (getrusage), the benchmarks run before it included, so run it alone
// (--benchmark_filter=BM_RunDiurnalDay/hours:24). Minutes per iteration: not in tools/bench-gate.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdint>
#include <string>
#include <utility>

#include "bench/shared_cards_cluster.h"
#include "sim/engine/simulation.h"

namespace knobsim {
namespace {

constexpr double kRequestsPerIteration = 1.5e6;

double PeakRssMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

double MeanCardBusy(const RunResult& result) {
  double sum = 0;
  for (const CardResult& c : result.cards) sum += c.busy;
  return result.cards.empty() ? 0 : sum / static_cast<double>(result.cards.size());
}

// The simulated seconds in which the scenario's services receive about kRequestsPerIteration
// requests.
double HorizonSeconds(const Scenario& s) {
  double rate = 0;
  for (const Workload& w : s.workloads) rate += w.traffic.rate;
  return kRequestsPerIteration / rate;
}

void BM_RunClusterSize(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int replicas = static_cast<int>(state.range(1));
  Scenario scenario = bench::SharedCardsCluster(nodes, replicas, SharingPolicy::kNative);
  const double horizon_s = HorizonSeconds(scenario);
  scenario.run.duration = static_cast<SimTime>(horizon_s * 1e9);
  scenario.run.warmup = scenario.run.duration / 20;

  RunOptions cut;
  cut.duration = 1;
  const int64_t setup_from = bench::ThreadCpuNs();
  benchmark::DoNotOptimize(Simulate(scenario, 1, cut));
  const auto setup_ns = static_cast<double>(bench::ThreadCpuNs() - setup_from);

  uint64_t requests = 0, seed = 1;
  double busy = 0, cpu_ns = 0;
  int64_t pending = 0;
  for (auto _ : state) {
    const int64_t from = bench::ThreadCpuNs();
    RunResult result = Simulate(scenario, seed++);
    cpu_ns += static_cast<double>(bench::ThreadCpuNs() - from);
    requests += result.requests_simulated;
    busy = MeanCardBusy(result);
    pending = result.cluster.pending_pods;
    benchmark::DoNotOptimize(result);
  }
  const double runs = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(requests));
  state.counters["ns_per_request"] = cpu_ns / static_cast<double>(requests);
  state.counters["run_ns_per_request"] = (cpu_ns - setup_ns * runs) / static_cast<double>(requests);
  state.counters["setup_ms"] = setup_ns / 1e6;
  state.counters["sim_s"] = horizon_s;
  state.counters["pods"] = static_cast<double>(scenario.workloads.size() * replicas);
  state.counters["mean_card_busy"] = busy;
  state.counters["pending_pods"] = static_cast<double>(pending);
}
BENCHMARK(BM_RunClusterSize)
    ->ArgNames({"nodes", "replicas"})
    ->Args({100, 10})
    ->Args({1000, 10})
    ->Args({5000, 10})
    ->Args({100, 400})
    ->Args({1000, 400})
    ->Args({5000, 400})
    ->Unit(benchmark::kMillisecond);

constexpr int kDayNodes = 10000;
constexpr int kDayServices = 2000;
constexpr int kDayReplicas = 50;
constexpr double kDayLoadPerPod = 0.1;  // of a card, on average over the day
constexpr double kDayWorkSeconds = 10;  // of A10 time per request, on average

// 10 000 nodes of 4 A10 cards; 2 000 services of 50 pods at 7 GiB (three to a card: the 100 000
// pods take 33 334 of the 40 000 cards), each with a diurnal day peaking at its own hour.
Scenario DiurnalCluster() {
  Scenario s;
  s.name = "bench-diurnal-10k";
  NodePool pool;
  pool.name = "gpu-a10";
  pool.count = kDayNodes;
  pool.gpu_type = "A10";
  pool.gpus_per_node = bench::kCardsPerNode;
  pool.schedule = GpuSchedule::kCgpu;
  pool.labels["ack.node.gpu.schedule"] = "cgpu";
  pool.cpu_milli = 128000;
  pool.memory_mib = 512 * 1024;
  pool.pods = 110;
  s.node_pools.push_back(pool);
  s.cluster.policy = SharingPolicy::kNative;
  s.cluster.switch_overhead = 0.05;
  s.run.duration = 24 * 3600 * kNanosPerSecond;
  s.run.warmup = 300 * kNanosPerSecond;
  for (int i = 0; i < kDayServices; ++i) {
    Workload w;
    w.name = "llm-" + std::to_string(i);
    w.replicas = kDayReplicas;
    w.cpu_milli = 4000;
    w.memory_mib = 16 * 1024;
    w.gpu_mem = 7;
    w.memory.weights_mib = 5 * 1024;
    w.memory.activation_mib = 256;
    w.probe = ReadinessKind::kModel;
    w.work.dist = WorkDistribution::kLognormal;
    w.work.mean_s = kDayWorkSeconds;
    w.work.cv = 1;
    w.traffic.kind = ArrivalKind::kDiurnal;
    w.traffic.diurnal_mean = kDayReplicas * kDayLoadPerPod / kDayWorkSeconds;
    w.traffic.diurnal_amplitude = 0.6;
    w.traffic.diurnal_peak_at = (12 + i % 6) * 3600 * kNanosPerSecond;
    w.concurrency = 1;
    w.timeout = 120 * kNanosPerSecond;
    w.slo.latency = 60 * kNanosPerSecond;
    s.workloads.push_back(std::move(w));
  }
  return s;
}

void BM_RunDiurnalDay(benchmark::State& state) {
  const Scenario scenario = DiurnalCluster();
  RunOptions options;
  options.duration = state.range(0) * 3600 * kNanosPerSecond;
  uint64_t requests = 0;
  double busy = 0, cpu_ns = 0;
  int64_t pending = 0;
  for (auto _ : state) {
    const int64_t from = bench::ThreadCpuNs();
    RunResult result = Simulate(scenario, 1, options);
    cpu_ns += static_cast<double>(bench::ThreadCpuNs() - from);
    requests += result.requests_simulated;
    busy = MeanCardBusy(result);
    pending = result.cluster.pending_pods;
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(static_cast<int64_t>(requests));
  state.counters["requests"] = static_cast<double>(requests);
  state.counters["ns_per_request"] = cpu_ns / static_cast<double>(requests);
  state.counters["peak_rss_mib"] = PeakRssMib();
  state.counters["sim_hours"] = static_cast<double>(state.range(0));
  state.counters["mean_card_busy"] = busy;
  state.counters["pending_pods"] = static_cast<double>(pending);
}
BENCHMARK(BM_RunDiurnalDay)
    ->ArgName("hours")
    ->Arg(1)
    ->Arg(24)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace knobsim
