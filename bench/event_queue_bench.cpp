// Engine throughput: the event queue alone (the classic hold model) and a complete M/M/1 loop
// on EventQueue + RandomStream, the figure docs/design.md §5 sets at >= 10 M events/s on one core.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "sim/event_queue.h"
#include "sim/random_stream.h"

namespace knobsim {
namespace {

// Hold model: the queue stays at N events; each operation pops the earliest and pushes one a
// random exponential increment later. The increments are drawn beforehand so that the figure
// is the queue's own cost, not the logarithm in Exponential.
void BM_EventQueueHold(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  constexpr size_t kIncrements = 1 << 16;  // a power of two, for a mask instead of a modulo
  RandomStream rng(1, "bench/hold");
  std::vector<SimTime> increments(kIncrements);
  for (SimTime& d : increments) d = static_cast<SimTime>(rng.Exponential(1000.0));

  EventQueue q;
  q.Reserve(n + 1);
  for (size_t i = 0; i < n; ++i) {
    q.Push(static_cast<SimTime>(rng.Exponential(1000.0)), 0, static_cast<uint32_t>(i));
  }
  size_t k = 0;
  for (auto _ : state) {
    Event e = q.Pop();
    q.Push(e.time + increments[k++ & (kIncrements - 1)], e.kind, e.target, e.generation);
  }
  benchmark::DoNotOptimize(q.top());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold)->Arg(16)->Arg(1024)->Arg(65536);

// M/M/1 at utilisation 0.9: Poisson arrivals (mean gap 1 µs), exponential service (mean 0.9 µs),
// FIFO, one server. Arrival and service draws come from separate named streams, as workloads
// do, and the loop checks generations as the real one does. The time-average number in system
// is reported so that a broken engine shows up as a wrong answer, not just a fast one: it
// should be near rho / (1 - rho) = 9; one run of 10^6 events is about 0.5 s simulated, whose
// time average has a standard error near 0.25 at this load (seed 1 gives 8.64).
void BM_MM1Engine(benchmark::State& state) {
  enum Kind : uint32_t { kArrival, kDeparture };
  constexpr int64_t kEventsPerIteration = 1'000'000;
  constexpr double kMeanGapNs = 1000.0;
  constexpr double kMeanServiceNs = 900.0;

  EventQueue q;
  q.Reserve(16);
  const uint32_t server_generation = 0;
  double area = 0;
  double measured_ns = 0;

  for (auto _ : state) {
    // Every iteration is the same run, so mean_in_system is a fixed number for a correct
    // engine whatever the iteration count: a change in it means the event order changed.
    RandomStream arrivals(1, "bench/mm1/arrivals");
    RandomStream service(1, "bench/mm1/service");
    q.Clear();
    SimTime now = 0;
    SimTime last_change = 0;
    int64_t in_system = 0;
    q.Push(static_cast<SimTime>(arrivals.Exponential(kMeanGapNs)), kArrival, 0);
    for (int64_t processed = 0; processed < kEventsPerIteration; ++processed) {
      Event e = q.Pop();
      if (e.generation != server_generation) continue;
      now = e.time;
      area += static_cast<double>(in_system) * static_cast<double>(now - last_change);
      last_change = now;
      if (e.kind == kArrival) {
        if (++in_system == 1) {
          q.Push(now + static_cast<SimTime>(service.Exponential(kMeanServiceNs)), kDeparture, 0,
                 server_generation);
        }
        q.Push(now + static_cast<SimTime>(arrivals.Exponential(kMeanGapNs)), kArrival, 0);
      } else if (--in_system > 0) {
        q.Push(now + static_cast<SimTime>(service.Exponential(kMeanServiceNs)), kDeparture, 0,
               server_generation);
      }
    }
    measured_ns += static_cast<double>(now);
    benchmark::DoNotOptimize(in_system);
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
  state.counters["mean_in_system"] = measured_ns > 0 ? area / measured_ns : 0;
}
BENCHMARK(BM_MM1Engine)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace knobsim
