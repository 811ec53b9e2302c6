// `knobsim backtest` at the size (issue 15): a 1 000-pod, 100-node export with 7 days of
// metrics at one-minute steps (tools/gen-export), the last quarter the test window, one
// replication, one comparison window of 10 minutes. Goal: under a minute on two cores. The stages
// apart: reading the metrics (every file's JSON), and the backtest itself (two imports, the replay,
// the comparison). The export and its metrics are generated once, outside the timing.
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>
#include <vector>

#include "sim/backtest/backtest.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_reader.h"
#include "tools/gen-export/export_generator.h"

namespace knobsim {
namespace {

struct Inputs {
  KubeObjects objects;
  std::vector<std::string> prom_texts;
  std::vector<PromResult> prom;
  double first = 0, last = 0;
};

const Inputs& Generated() {
  static const Inputs inputs = [] {
    gen_export::GeneratorOptions o;
    o.nodes = 100;
    o.pods = 1000;
    o.seed = 7;
    o.with_metrics = true;
    Expected<gen_export::GeneratedCluster> c = gen_export::Generate(o);
    if (!c.ok()) throw std::runtime_error(c.error().ToString());
    Inputs in;
    Expected<KubeObjects> objects = ReadKubeString(gen_export::ExportJson(*c), "export.json");
    if (!objects.ok()) throw std::runtime_error(objects.error().ToString());
    in.objects = std::move(*objects);
    for (const std::string& metric : gen_export::MetricNames(*c)) {
      std::ostringstream out;
      gen_export::WritePromJson(*c, metric, out);
      in.prom_texts.push_back(out.str());
      Expected<PromResult> r = ReadPromString(in.prom_texts.back(), metric + ".json");
      if (!r.ok()) throw std::runtime_error(r.error().ToString());
      in.prom.push_back(std::move(*r));
    }
    in.first = static_cast<double>(o.start_unix);
    in.last = static_cast<double>(o.start_unix) + 86400.0 * o.days;
    return in;
  }();
  return inputs;
}

void BM_ReadBacktestMetrics(benchmark::State& state) {
  const Inputs& in = Generated();
  for (auto _ : state) {
    for (size_t i = 0; i < in.prom_texts.size(); ++i) {
      Expected<PromResult> r = ReadPromString(in.prom_texts[i], "m.json");
      benchmark::DoNotOptimize(r.ok());
    }
  }
}
BENCHMARK(BM_ReadBacktestMetrics)->Unit(benchmark::kSecond)->Iterations(1);

void BM_Backtest1000Pods7Days(benchmark::State& state) {
  const Inputs& in = Generated();
  backtest::BacktestOptions o;
  o.names.rate_metric = std::string(gen_export::kRequestRateMetric);
  const double cut = in.last - (in.last - in.first) * 0.25;
  o.train = {in.first, cut};
  o.test = {cut, in.last};
  o.replications = 1;
  o.threads = 2;
  o.max_parts = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Expected<backtest::BacktestReport> r = backtest::RunBacktest(in.objects, in.prom, o);
    if (!r.ok()) state.SkipWithError(r.error().ToString().c_str());
    benchmark::DoNotOptimize(r.ok());
  }
}
// The argument is BacktestOptions::max_parts: 1 replays the whole cluster as one run, 8 (the
// default) as independent parts on both cores (docs/backtest.md "Speed"); the same numbers.
BENCHMARK(BM_Backtest1000Pods7Days)->Arg(1)->Arg(8)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace knobsim
