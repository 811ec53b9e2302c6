// The yardstick for tools/bench-gate: a fixed CPU-bound loop that touches nothing of knobsim, so
// its time moves only with the machine (clock speed, a busy neighbour on the same core, cache
// pressure from other processes) and never with a change to the simulator. The gate runs it
// next to every benchmark program and divides each benchmark's times by its median, so that a
// loaded or slower machine does not read as a regression (docs/benchmarks.md).
//
// The loop resembles the simulator's own work rather than a pure ALU spin, so that it slows
// down in the same proportion when the machine is contended: a binary heap of 4 096 (time, id)
// entries in L1/L2 (the event queue's shape), a 64-bit generator, a logarithm per step (the
// exponential draws) and data-dependent branches. Every iteration does exactly the same work.
//
// Run: calibration_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace knobsim {
namespace {

// SplitMix64: small, fast, and identical on every platform.
uint64_t Next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// One unit of machine work: 200 000 hold operations on a 4 096-entry heap.
void BM_Calibration(benchmark::State& state) {
  constexpr int kHeapSize = 4096;
  constexpr int kStepsPerIteration = 200'000;
  using Entry = std::pair<int64_t, uint32_t>;
  std::vector<Entry> heap;
  heap.reserve(kHeapSize + 1);
  double checksum = 0;
  for (auto _ : state) {
    uint64_t rng = 42;  // the same work in every iteration
    heap.clear();
    for (uint32_t i = 0; i < kHeapSize; ++i) {
      heap.emplace_back(static_cast<int64_t>(Next(rng) >> 44), i);
    }
    std::make_heap(heap.begin(), heap.end(), std::greater<>());
    for (int step = 0; step < kStepsPerIteration; ++step) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      Entry e = heap.back();
      heap.pop_back();
      // An exponential increment of mean 1000, as Exponential() draws it.
      const double u = (static_cast<double>(Next(rng) >> 11) + 0.5) * 0x1.0p-53;
      const int64_t gap = static_cast<int64_t>(-1000.0 * std::log(u));
      if (e.second & 1U) checksum += static_cast<double>(gap);
      heap.emplace_back(e.first + gap, e.second);
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
    benchmark::DoNotOptimize(heap.data());
  }
  benchmark::DoNotOptimize(checksum);
  state.SetItemsProcessed(state.iterations() * kStepsPerIteration);
}
BENCHMARK(BM_Calibration)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace knobsim
