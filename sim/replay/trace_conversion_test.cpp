#include "sim/replay/trace_conversion.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "sim/replay/replay.h"
#include "sim/replay/test_data.h"
#include "sim/scheduler/fgd/milli_view.h"
#include "sim/scheduler/fgd/plugins.h"
#include "sim/scheduler/fgd/worked_example.h"

namespace knobsim::replay {

using fgd::kAllPolicies;
using fgd::MilliViewOf;
using fgd::ModelsOf;
using fgd::ModelTable;
using fgd::NewOpenGpuShareFilter;
using fgd::NewTraceResourcesFilter;
using fgd::NodeState;
using fgd::PodRequest;
using fgd::PolicyKind;
using fgd::PolicyName;
using fgd::PolicyScorePlugin;
using fgd::RequestOf;

namespace {

TEST_CASE("a trace node and pod map onto the scheduler's types and back without loss") {
  TraceNode n;
  n.name = "openb-node-0001";
  n.cpu_milli = 64000;
  n.memory_mib = 262144;
  n.gpu = 2;
  n.model = "P100";
  TracePod p;
  p.name = "openb-pod-0001";
  p.cpu_milli = 6000;
  p.memory_mib = 12288;
  p.num_gpu = 1;
  p.gpu_milli = 460;
  p.gpu_spec = "P100|T4";
  knobsim::ClusterState cluster;
  cluster.AddNode(ToNodeSpec(n));
  const ModelTable models = ModelsOf(cluster);
  const NodeState s = MilliViewOf(cluster, 0, models, 0);
  CHECK(s.cpu_free == 64000);
  CHECK(s.mem_free == 262144);
  CHECK(s.cards == 2);
  CHECK(s.free[1] == 1000);
  CHECK(models.names()[s.model] == "P100");
  const knobsim::PodSpec spec = ToPodSpec(p);
  const PodRequest r = RequestOf(spec, models);
  CHECK(r.cpu == 6000);
  CHECK(r.mem == 12288);
  CHECK(r.num_gpu == 1);
  CHECK(r.milli == 460);
  CHECK(r.spec == "P100|T4");
  CHECK(r.models == 1);
  knobsim::Placement at;
  at.node = 0;
  at.cards = {1};
  at.mem_units = {460};
  at.core_units = {0};
  cluster.Bind(spec, at);
  const NodeState after = MilliViewOf(cluster, 0, models, 0);
  CHECK(after.cpu_free == 58000);
  CHECK(after.free[1] == 540);
  CHECK(after.tags == 1);
  CHECK(after.pods == 1);
}

TEST_CASE("the filter plugins say why a node cannot take a pod") {
  const fgd::testing::WorkedExample ex;
  TraceNode n;
  n.name = "n";
  n.cpu_milli = 4000;
  n.memory_mib = 1024;
  n.gpu = 1;
  n.model = "T4";
  knobsim::ClusterState cluster;
  cluster.AddNode(ToNodeSpec(n));
  auto fit = NewTraceResourcesFilter();
  auto gpu = NewOpenGpuShareFilter();
  TracePod big;
  big.cpu_milli = 8000;
  big.memory_mib = 2048;
  const knobsim::PluginStatus s = fit->Filter(ToPodSpec(big), cluster, 0);
  CHECK(s.code == knobsim::StatusCode::kUnschedulable);
  CHECK(s.reasons == std::vector<std::string>{"Insufficient cpu", "Insufficient memory"});
  TracePod v100;
  v100.num_gpu = 1;
  v100.gpu_milli = 500;
  v100.gpu_spec = "V100M16";
  gpu->PreFilter(ToPodSpec(v100), cluster);
  CHECK(gpu->Filter(ToPodSpec(v100), cluster, 0).code ==
        knobsim::StatusCode::kUnschedulableAndUnresolvable);
  v100.gpu_spec = "";
  CHECK(gpu->Filter(ToPodSpec(v100), cluster, 0).ok());
}

// The scheduler's pipeline of §3 written against the framework: filters, then (with more than
// one feasible node) PreScore, Score, Normalize, the highest score with ties to the smallest
// rank, and the plugin's card choice bound into the ClusterState.
std::vector<int> PlaceThroughPlugins(const Workload& w, PolicyKind kind, int64_t seed,
                                     size_t events) {
  knobsim::ClusterState cluster;
  for (const TraceNode& n : w.nodes) cluster.AddNode(ToNodeSpec(n));
  auto fit = NewTraceResourcesFilter();
  auto gpu = NewOpenGpuShareFilter();
  PolicyScorePlugin score(kind, w.typical, seed);
  const RunOrder order = PrepareRun(w, seed, 1.3, score.rng());
  std::vector<int> by_rank(w.nodes.size());
  for (size_t i = 0; i < w.nodes.size(); ++i) by_rank[order.rank[i]] = static_cast<int>(i);
  std::vector<int> placed;
  for (size_t e = 0; e < events && e < order.events.size(); ++e) {
    const knobsim::PodSpec pod = ToPodSpec(w.pods[order.events[e]]);
    fit->PreFilter(pod, cluster);
    gpu->PreFilter(pod, cluster);
    std::vector<int> feasible;
    for (int node : by_rank) {
      if (fit->Filter(pod, cluster, node).ok() && gpu->Filter(pod, cluster, node).ok()) {
        feasible.push_back(node);
      }
    }
    int chosen = feasible.empty() ? -1 : feasible[0];
    if (feasible.size() > 1) {
      score.PreScore(pod, cluster, feasible);
      std::vector<int64_t> scores;
      for (int node : feasible) scores.push_back(score.Score(pod, cluster, node));
      score.Normalize(feasible, scores);
      chosen = feasible[std::max_element(scores.begin(), scores.end()) - scores.begin()];
    }
    placed.push_back(chosen);
    if (chosen >= 0) cluster.Bind(pod, score.Cards(pod, cluster, chosen));
  }
  return placed;
}

TEST_CASE(
    "every policy places the default trace's first 400 pods alike as plugins and in the "
    "replay") {
  REQUIRE_MESSAGE(testing::TraceAvailable(), "shared trace not found at " << testing::TraceDir());
  auto nodes = ReadNodeCsv(testing::TraceDir() + "openb_node_list_gpu_node.csv");
  auto pods = ReadPodCsv(testing::TraceDir() + "openb_pod_list_default.csv");
  REQUIRE(nodes.ok());
  REQUIRE(pods.ok());
  const Workload w = MakeWorkload("openb_pod_list_default", *nodes, *pods);
  constexpr size_t kEvents = 400;
  for (PolicyKind k : kAllPolicies) {
    const RunResult replay = Replay(w, k, 42, 1.3);
    const std::vector<int> plugins = PlaceThroughPlugins(w, k, 42, kEvents);
    const std::vector<int> first(replay.node_of_event.begin(),
                                 replay.node_of_event.begin() + kEvents);
    CHECK_MESSAGE(plugins == first, PolicyName(k));
  }
}

}  // namespace
}  // namespace knobsim::replay
