// The import path of issue 5 on exports of realistic shape and size (tools/gen-export): the
// goal is a 10 000-pod, 1 000-node export imported in under 2 s and under 1 GiB (whole-process
// timings in the issue note; peak memory with /usr/bin/time -v on `knobsim import`). Each stage
// separately: generating the export (the test fixture's cost), reading it (kubectl JSON and
// YAML), import to a scenario (grouping, pools, workloads, writing the YAML), and reading a week
// of Prometheus metrics at one-minute steps.
#include <benchmark/benchmark.h>

#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "sim/import/cluster_import.h"
#include "sim/import/scenario_writer.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_reader.h"
#include "tools/gen-export/export_generator.h"

namespace knobsim {
namespace {

gen_export::GeneratorOptions Options(int nodes, int pods, bool metrics) {
  gen_export::GeneratorOptions o;
  o.nodes = nodes;
  o.pods = pods;
  o.seed = 7;
  o.with_metrics = metrics;
  return o;
}

// Generating is itself seconds at the large size: once per size, shared by the benchmarks.
const gen_export::GeneratedCluster& Cluster(int nodes, int pods) {
  static std::map<std::pair<int, int>, gen_export::GeneratedCluster> cache;
  auto it = cache.find({nodes, pods});
  if (it == cache.end()) {
    Expected<gen_export::GeneratedCluster> c = gen_export::Generate(Options(nodes, pods, false));
    if (!c.ok()) throw std::runtime_error(c.error().ToString());
    it = cache.emplace(std::make_pair(nodes, pods), std::move(*c)).first;
  }
  return it->second;
}

const std::string& ExportText(int nodes, int pods, bool yaml) {
  static std::map<std::tuple<int, int, bool>, std::string> cache;
  auto key = std::make_tuple(nodes, pods, yaml);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const auto& c = Cluster(nodes, pods);
    it = cache.emplace(key, yaml ? gen_export::ExportYaml(c) : gen_export::ExportJson(c)).first;
  }
  return it->second;
}

void BM_GenerateExport(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int pods = static_cast<int>(state.range(1));
  for (auto _ : state) {
    Expected<gen_export::GeneratedCluster> c = gen_export::Generate(Options(nodes, pods, false));
    std::string json = gen_export::ExportJson(*c);
    benchmark::DoNotOptimize(json.data());
  }
}
BENCHMARK(BM_GenerateExport)->Args({100, 1000})->Args({1000, 10000})->Unit(benchmark::kMillisecond);

void BM_ReadKubeJson(benchmark::State& state) {
  const std::string& text =
      ExportText(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), false);
  for (auto _ : state) {
    Expected<KubeObjects> objects = ReadKubeString(text, "export.json");
    benchmark::DoNotOptimize(objects.ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadKubeJson)->Args({100, 1000})->Args({1000, 10000})->Unit(benchmark::kMillisecond);

void BM_ReadKubeYaml(benchmark::State& state) {
  const std::string& text =
      ExportText(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), true);
  for (auto _ : state) {
    Expected<KubeObjects> objects = ReadKubeString(text, "export.yaml");
    benchmark::DoNotOptimize(objects.ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadKubeYaml)->Args({100, 1000})->Args({1000, 10000})->Unit(benchmark::kMillisecond);

// Read + import + write, what `knobsim import --kube export.json` does without metrics.
void BM_ImportToScenario(benchmark::State& state) {
  const std::string& text =
      ExportText(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), false);
  for (auto _ : state) {
    Expected<KubeObjects> objects = ReadKubeString(text, "export.json");
    ImportModel model = ImportCluster(*objects, nullptr, ImportOptions{});
    std::string yaml = WriteScenarioYaml(model);
    benchmark::DoNotOptimize(yaml.data());
  }
}
BENCHMARK(BM_ImportToScenario)
    ->Args({100, 1000})
    ->Args({1000, 10000})
    ->Unit(benchmark::kMillisecond);

// A week at one-minute steps of one card metric for a 20-node cluster (the fixture's shape).
void BM_ReadPromWeek(benchmark::State& state) {
  static const std::string text = [] {
    Expected<gen_export::GeneratedCluster> c = gen_export::Generate(Options(20, 60, true));
    std::ostringstream out;
    gen_export::WritePromJson(*c, gen_export::kGpuUtilMetric, out);
    return out.str();
  }();
  for (auto _ : state) {
    Expected<PromResult> r = ReadPromString(text, "util.json");
    benchmark::DoNotOptimize(r.ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadPromWeek)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace knobsim
