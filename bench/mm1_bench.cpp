// The whole simulator on the simplest model: one pod alone on one A10 under POLICY 1, Poisson
// arrivals at 80/s, exponential work of mean 10 ms: M/M/1 at rho = 0.8, through
// knobsim::Simulate (placement, routing, FIFO queue, fluid card model, metrics).
//
// Figures (docs/design.md §5):
//  * BM_MM1Simulate: items_per_second = RunResult::events_processed per second of CPU time,
//    goal >= 10 M events/s on one core. The mean_latency_ms counter should be near
//    1 / (mu - lambda) = 50 ms, so that a broken engine shows up as a wrong answer.
//  * BM_MM1Backlog: memory per in-flight request. The same pod is overloaded (200/s against a
//    capacity of 100/s) so that the backlog grows to ~100 k, then ~200 k requests; this file
//    replaces the global operator new/delete to track live heap bytes, and reports the peak heap
//    growth during Simulate divided by the requests still in the system at the end
//    (bytes_per_inflight). O(1) per in-flight request means that figure stays the same when the
//    backlog doubles; it includes the vector growth slack of the request pool (up to 2x, 3x
//    while a reallocation copies).
//
// Rates are per second of CPU time (single-threaded run; stable on a shared machine).
// Run: mm1_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdlib>
#include <new>

#include "sim/engine/simulation.h"

namespace {
// Live and peak heap bytes (usable sizes), single-threaded bookkeeping for BM_MM1Backlog.
size_t g_live_bytes = 0;
size_t g_peak_bytes = 0;

void* CountedAlloc(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  g_live_bytes += malloc_usable_size(p);
  if (g_live_bytes > g_peak_bytes) g_peak_bytes = g_live_bytes;
  return p;
}

void CountedFree(void* p) noexcept {
  if (!p) return;
  g_live_bytes -= malloc_usable_size(p);
  std::free(p);
}
}  // namespace

void* operator new(size_t n) {
  return CountedAlloc(n);
}
void* operator new[](size_t n) {
  return CountedAlloc(n);
}
void operator delete(void* p) noexcept {
  CountedFree(p);
}
void operator delete[](void* p) noexcept {
  CountedFree(p);
}
void operator delete(void* p, size_t) noexcept {
  CountedFree(p);
}
void operator delete[](void* p, size_t) noexcept {
  CountedFree(p);
}

namespace knobsim {
namespace {

Scenario SinglePod(double rate, double duration_s) {
  Scenario s;
  s.name = "bench-mm1";
  NodePool pool;
  pool.name = "gpu";
  pool.count = 1;
  pool.gpu_type = "A10";  // speed 1.0: work is service time
  pool.gpus_per_node = 1;
  pool.cpu_milli = 16000;
  pool.memory_mib = 64 * 1024;
  s.node_pools.push_back(pool);
  s.cluster.policy = SharingPolicy::kPreemptive;
  s.cluster.switch_overhead = 0;
  s.run.duration = static_cast<SimTime>(duration_s * 1e9);
  s.run.warmup = 0;

  Workload w;
  w.name = "mm1";
  w.replicas = 1;
  w.gpu_mem = 4;
  w.memory.context_mib = 0;
  w.traffic.kind = ArrivalKind::kPoisson;
  w.traffic.rate = rate;
  w.work.dist = WorkDistribution::kExponential;
  w.work.mean_s = 0.010;
  w.concurrency = 1;
  s.workloads.push_back(std::move(w));
  return s;
}

void BM_MM1Simulate(benchmark::State& state) {
  const Scenario scenario = SinglePod(80.0, 5000.0);  // ~400 k arrivals, ~800 k events
  uint64_t events = 0, requests = 0, seed = 1;
  double latency = 0;
  for (auto _ : state) {
    RunResult result = Simulate(scenario, seed++);
    events += result.events_processed;
    requests += result.requests_simulated;
    latency = result.workloads[0].latency_ms.mean;
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.counters["requests/s"] =
      benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
  state.counters["mean_latency_ms"] = latency;
}
BENCHMARK(BM_MM1Simulate)->Unit(benchmark::kMillisecond);

void BM_MM1Backlog(benchmark::State& state) {
  const Scenario scenario = SinglePod(200.0, static_cast<double>(state.range(0)));
  double bytes_per_inflight = 0, inflight = 0;
  for (auto _ : state) {
    const size_t baseline = g_live_bytes;
    g_peak_bytes = g_live_bytes;
    RunResult result = Simulate(scenario, 1);
    const size_t growth = g_peak_bytes - baseline;
    inflight = static_cast<double>(result.workloads[0].in_system_end);
    bytes_per_inflight = inflight > 0 ? static_cast<double>(growth) / inflight : 0;
    benchmark::DoNotOptimize(result);
  }
  state.counters["inflight_end"] = inflight;
  state.counters["bytes_per_inflight"] = bytes_per_inflight;
}
BENCHMARK(BM_MM1Backlog)
    ->ArgName("sim_s")
    ->Arg(1000)
    ->Arg(2000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace knobsim
