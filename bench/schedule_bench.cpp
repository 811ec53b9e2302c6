// `knobsim schedule` at scale (issue 23 item 1): a generated ACK cluster (tools/gen-export, the
// generator `knobsim import`'s benchmarks use) of N nodes with no pod bound, and the export's N
// pods made pending, scheduled and bound one by one the way the command does
// (Scheduler::ScheduleAndBind with the winner's score, no --explain), every pod on a fresh copy
// of the empty cluster. Reading the files is left out (import_bench times it).
//
// Goals (medians, two cores): on 5 000 nodes × 5 000 pods >= 10 000 pods/s, and >= 5 000 pods/s
// when every pod carries a zone topologySpread constraint (maxSkew 1, DoNotSchedule, on its own
// labels); and a cost per pod-node that does not rise with the node count. The sweep keeps the
// pods per node (one) and reports both: `pods/s`, and `pod_node` = time / (pods × nodes), CPU
// time of the one scheduling thread (Google Benchmark's default), which a busy machine disturbs
// less than wall time.
#include <benchmark/benchmark.h>

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/io/kube_reader.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/cluster_state_builder.h"
#include "sim/scheduler/scheduler.h"
#include "tools/gen-export/export_generator.h"

namespace knobsim {
namespace {

struct Workload {
  ClusterState cluster;  // the nodes alone
  std::vector<PodSpec> pending;
};

KubeObjects Read(const std::vector<nlohmann::json>& items, const std::string& name) {
  nlohmann::json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
  Expected<KubeObjects> objects = ReadKubeString(list.dump(), name);
  if (!objects.ok()) throw std::runtime_error(objects.error().ToString());
  return std::move(*objects);
}

// The export's pods without their node (and, with `zone_spread`, each with a zone constraint
// selecting its own labels), as `kubectl get pods -o json` shows pods not yet scheduled.
std::vector<nlohmann::json> PendingPodObjects(const gen_export::GeneratedCluster& c,
                                              bool zone_spread) {
  std::vector<nlohmann::json> pods;
  for (const nlohmann::json& object : c.objects) {
    if (object.value("kind", "") != "Pod") continue;
    nlohmann::json pod = object;
    pod["spec"].erase("nodeName");
    pod["status"] = {{"phase", "Pending"}};
    if (zone_spread) {
      pod["spec"]["topologySpreadConstraints"] = nlohmann::json::array(
          {{{"maxSkew", 1},
            {"topologyKey", "topology.kubernetes.io/zone"},
            {"whenUnsatisfiable", "DoNotSchedule"},
            {"labelSelector",
             {{"matchLabels", pod["metadata"].value("labels", nlohmann::json::object())}}}}});
    }
    pods.push_back(std::move(pod));
  }
  return pods;
}

// Generating and reading are seconds at 5 000 nodes: once per size (and shape), shared.
const gen_export::GeneratedCluster& Export(int nodes) {
  static std::map<int, gen_export::GeneratedCluster> cache;
  auto it = cache.find(nodes);
  if (it != cache.end()) return it->second;
  gen_export::GeneratorOptions options;
  options.nodes = nodes;
  options.pods = nodes;  // one pod per node at every size; the generator's default seed (1), as
                         // `knobsim-gen-export --nodes N --pods N` writes it
  options.with_metrics = false;
  Expected<gen_export::GeneratedCluster> c = gen_export::Generate(options);
  if (!c.ok()) throw std::runtime_error(c.error().ToString());
  return cache.emplace(nodes, std::move(*c)).first->second;
}

const Workload& Generated(int nodes, bool zone_spread) {
  static std::map<std::pair<int, bool>, Workload> cache;
  const auto key = std::make_pair(nodes, zone_spread);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const gen_export::GeneratedCluster& c = Export(nodes);
  Workload w;
  w.cluster = BuildClusterState(Read(c.nodes, "nodes.json"));
  w.pending = PendingPods(Read(PendingPodObjects(c, zone_spread), "pending.json"));
  return cache.emplace(key, std::move(w)).first->second;
}

// Args: nodes, zone spread (0/1), percentageOfNodesToScore (0: upstream's adaptive default).
void BM_Schedule(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const Workload& w = Generated(nodes, state.range(1) != 0);
  SchedulerConfig config;
  config.percentage_of_nodes_to_score = static_cast<int>(state.range(2));
  int64_t placed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ClusterState cluster = w.cluster;
    state.ResumeTiming();
    Scheduler scheduler(cluster, config);
    placed = 0;
    for (const PodSpec& pod : w.pending) {
      const ScheduleResult r = scheduler.ScheduleAndBind(pod, /*explain=*/false, /*score=*/true);
      if (r.placement.node >= 0) ++placed;
    }
    state.PauseTiming();
    cluster = ClusterState{};  // its destruction is not the scheduler's
    state.ResumeTiming();
  }
  const auto pods = static_cast<double>(w.pending.size());
  state.counters["pods/s"] =
      benchmark::Counter(pods, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["pod_node"] = benchmark::Counter(
      pods * nodes, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["placed"] = static_cast<double>(placed);
}

BENCHMARK(BM_Schedule)
    ->ArgNames({"nodes", "spread", "pct"})
    ->Args({5000, 0, 0})
    ->Args({5000, 1, 0})
    ->Args({5000, 0, 100})
    ->Args({5000, 1, 100})
    ->Args({1000, 0, 0})
    ->Args({2500, 0, 0})
    ->Args({1000, 1, 0})
    ->Args({2500, 1, 0})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace knobsim
