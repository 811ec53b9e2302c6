// The FGD trace replay (docs/fgd-policies.md, docs/replay.md): one run of the default openb trace
// (seed 42, 10 866 scheduling events after tuning) per policy, and the paper's whole sweep of
// 11 traces × 6 policies × 10 seeds = 660 runs.
//
// Goals (issue 4): one FGD run under 1 s; the sweep under 3 minutes on 2 cores. The reference
// simulator needs ~46 minutes for one FGD run. items_per_second = scheduling events per second
// of CPU time; the allocated_at_100 counter (the allocated GPU % at x = 100) is there so that a
// broken policy shows up as a wrong answer, not only as a fast one (FGD 95.14, BestFit 92.94).
//
// The trace comes from ../shared/data/alibaba-gpu-v2023 beside the checkout (or
// $KNOBSIM_TRACE_DIR). Run:
//   replay_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//   replay_bench --benchmark_filter=Sweep   (the 660 runs, on every core)
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/sweep_bench.h"
#include "sim/replay/discrete.h"
#include "sim/replay/replay.h"
#include "sim/replay/sweep.h"
#include "sim/replay/test_data.h"

namespace knobsim::replay {

using fgd::PolicyKind;
using fgd::PolicyName;

namespace {

const std::vector<TraceNode>& Nodes() {
  static const std::vector<TraceNode> nodes = [] {
    auto r = ReadNodeCsv(testing::TraceDir() + "openb_node_list_gpu_node.csv");
    return r.ok() ? *r : std::vector<TraceNode>{};
  }();
  return nodes;
}

Workload LoadTrace(const std::string& name) {
  auto pods = ReadPodCsv(testing::TraceDir() + "openb_pod_list_" + name + ".csv");
  return MakeWorkload("openb_pod_list_" + name, Nodes(),
                      pods.ok() ? *pods : std::vector<TracePod>{});
}

void BM_ReplayDefault(benchmark::State& state) {
  if (!testing::TraceAvailable()) {
    state.SkipWithError("shared trace not found");
    return;
  }
  static const Workload w = LoadTrace("default");
  const PolicyKind kind = static_cast<PolicyKind>(state.range(0));
  state.SetLabel(std::string(PolicyName(kind)));
  size_t events = 0;
  double at100 = 0;
  for (auto _ : state) {
    const RunResult r = Replay(w, kind, 42, 1.3);
    events += r.events.size();
    const DiscreteCurves curves = Discretize(r.events, w.total_gpus);
    at100 = curves.allo[100].value_or(0);
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.counters["allocated_at_100"] = at100;
}
BENCHMARK(BM_ReplayDefault)
    ->DenseRange(static_cast<int>(PolicyKind::kRandom), static_cast<int>(PolicyKind::kAckSpread))
    ->Unit(benchmark::kMillisecond);

void BM_Sweep660(benchmark::State& state) {
  if (!testing::TraceAvailable()) {
    state.SkipWithError("shared trace not found");
    return;
  }
  std::vector<Workload> traces;
  for (const char* t : {"default", "cpu050", "cpu100", "cpu200", "gpushare40", "gpushare60",
                        "gpushare100", "gpuspec10", "gpuspec20", "multigpu20", "multigpu30"}) {
    traces.push_back(LoadTrace(t));
  }
  const PolicyKind paper[] = {PolicyKind::kRandom,  PolicyKind::kDotProd, PolicyKind::kClustering,
                              PolicyKind::kPacking, PolicyKind::kBestFit, PolicyKind::kFgd};
  std::vector<int64_t> seeds;
  for (int64_t s = 42; s <= 51; ++s) seeds.push_back(s);
  std::vector<double> busy;
  double cpu_s = 0;
  for (auto _ : state) {
    const double cpu_before = bench::ProcessCpuSeconds();
    const SweepResults r = RunSweep(traces, paper, seeds, 1.3, static_cast<int>(state.range(0)));
    cpu_s = bench::ProcessCpuSeconds() - cpu_before;
    busy = r.worker_busy_s;
    benchmark::DoNotOptimize(r.allo.size());
  }
  state.counters["runs"] = 660;
  bench::SetBalanceCounters(state, busy, cpu_s);
}
// The argument: the thread count.
BENCHMARK(BM_Sweep660)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace knobsim::replay
