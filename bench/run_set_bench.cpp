// `knobsim run --all --replications 5` as a parallel sweep (sim/run_set.h): the quickstart
// scenario's base and four variants, five replications each — 25 independent runs of 30
// simulated minutes, the variants started heaviest first.
//
// The argument is the thread count (1 and 2). Counters (bench/sweep_bench.h): cpu_s (the work,
// which must not grow with the threads), busy_s and balance (the busiest thread over the even
// share; 2 / balance bounds the speed-up on two free cores). Wall time is reported as real time.
// Run: run_set_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bench/sweep_bench.h"
#include "sim/io/scenario_reader.h"
#include "sim/run_set.h"

namespace {

void BM_RunReplications(benchmark::State& state) {
  knobsim::Expected<knobsim::Scenario> s =
      knobsim::ReadScenarioFile(knobsim::bench::SourcePath("scenarios/quickstart.yaml"));
  if (!s.ok()) {
    state.SkipWithError("cannot read scenarios/quickstart.yaml");
    return;
  }
  knobsim::RunSetOptions options;
  for (const knobsim::Variant& v : s->variants) options.variants.push_back(v.name);
  options.replications = 5;
  options.threads = static_cast<int>(state.range(0));
  std::vector<double> busy;
  double cpu_s = 0;
  for (auto _ : state) {
    const double cpu_before = knobsim::bench::ProcessCpuSeconds();
    const knobsim::RunSetResult r = knobsim::RunSet(*s, options);
    cpu_s = knobsim::bench::ProcessCpuSeconds() - cpu_before;
    busy = r.worker_busy_s;
    benchmark::DoNotOptimize(r);
  }
  state.counters["runs"] = static_cast<double>((options.variants.size() + 1) * 5);
  knobsim::bench::SetBalanceCounters(state, busy, cpu_s);
}
BENCHMARK(BM_RunReplications)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
