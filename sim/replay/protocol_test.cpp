#include "sim/replay/protocol.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "sim/replay/test_data.h"

namespace knobsim::replay {

using fgd::GoRand;

namespace {

Workload Trace(const std::string& name) {
  auto nodes = ReadNodeCsv(testing::TraceDir() + "openb_node_list_gpu_node.csv");
  auto pods = ReadPodCsv(testing::TraceDir() + "openb_pod_list_" + name + ".csv");
  REQUIRE(nodes.ok());
  REQUIRE(pods.ok());
  return MakeWorkload("openb_pod_list_" + name, *nodes, *pods);
}

const std::string& PodName(const Workload& w, const RunOrder& o, size_t event) {
  return w.pods[o.events[event]].name;
}

const std::string& NodeOfRank(const Workload& w, const RunOrder& o, int rank) {
  const auto it = std::find(o.rank.begin(), o.rank.end(), rank);
  return w.nodes[it - o.rank.begin()].name;
}

TEST_CASE("seed 42: the reference's shuffle, tuning and node ranks (docs/fgd-policies.md §2.2)") {
  REQUIRE_MESSAGE(testing::TraceAvailable(), "shared trace not found at " << testing::TraceDir());
  const Workload w = Trace("default");
  GoRand rng(0);
  const RunOrder o = PrepareRun(w, 42, 1.3, rng);
  const char* first[] = {"openb-pod-0255", "openb-pod-1685", "openb-pod-6784", "openb-pod-4463",
                         "openb-pod-0602"};
  for (size_t i = 0; i < 5; ++i) CHECK(PodName(w, o, i) == first[i]);
  CHECK(PodName(w, o, 8151) == "openb-pod-0538");
  // Tuning appends 2 714 copies after the shuffled originals; the 2 715th draw overshoots.
  CHECK(o.copies == 2714);
  CHECK(PodName(w, o, 8152) == "openb-pod-3888");
  CHECK(PodName(w, o, 8153) == "openb-pod-5689");
  CHECK(PodName(w, o, 8154) == "openb-pod-2936");
  CHECK(w.pods[o.overshoot].name == "openb-pod-4840");
  CHECK(o.total_request == 8075080);
  CHECK(o.events.size() == 10866);
  const int ranks[] = {601, 815, 450, 13, 731};  // openb-node-0000 … 0004
  for (int i = 0; i < 5; ++i) CHECK(o.rank[i] == ranks[i]);
  CHECK(NodeOfRank(w, o, 0) == "openb-node-0260");
  CHECK(NodeOfRank(w, o, 1) == "openb-node-0858");
  CHECK(NodeOfRank(w, o, 2) == "openb-node-0619");
}

TEST_CASE("seed 43: another order, 2 641 copies, rank 0 is openb-node-0764") {
  REQUIRE_MESSAGE(testing::TraceAvailable(), "shared trace not found at " << testing::TraceDir());
  const Workload w = Trace("default");
  GoRand rng(0);
  const RunOrder o = PrepareRun(w, 43, 1.3, rng);
  const char* first[] = {"openb-pod-2283", "openb-pod-7248", "openb-pod-5897", "openb-pod-4175",
                         "openb-pod-5883"};
  for (size_t i = 0; i < 5; ++i) CHECK(PodName(w, o, i) == first[i]);
  CHECK(o.copies == 2641);
  CHECK(o.total_request == 8074900);
  CHECK(NodeOfRank(w, o, 0) == "openb-node-0764");
}

TEST_CASE("multigpu30 is above 130 % and is tuned down by random removals") {
  REQUIRE_MESSAGE(testing::TraceAvailable(), "shared trace not found at " << testing::TraceDir());
  const Workload w = Trace("multigpu30");
  for (int64_t seed = 42; seed <= 51; ++seed) {
    GoRand rng(0);
    const RunOrder o = PrepareRun(w, seed, 1.3, rng);
    CHECK(o.copies == 0);
    CHECK(o.removed >= 5);
    CHECK(o.removed <= 17);
    CHECK(static_cast<double>(o.total_request) <= 1.3 * 6212000);
    CHECK(o.events.size() == w.pods.size() - static_cast<size_t>(o.removed));
  }
}

TEST_CASE("every seed of the default trace gives 10 766 to 10 866 events (§1.3)") {
  REQUIRE_MESSAGE(testing::TraceAvailable(), "shared trace not found at " << testing::TraceDir());
  const Workload w = Trace("default");
  for (int64_t seed = 42; seed <= 51; ++seed) {
    GoRand rng(0);
    const RunOrder o = PrepareRun(w, seed, 1.3, rng);
    CHECK(o.events.size() >= 10766);
    CHECK(o.events.size() <= 10866);
    // The tuned copies follow the originals, which appear once each.
    std::vector<int> originals(o.events.begin(), o.events.begin() + 8152);
    std::sort(originals.begin(), originals.end());
    CHECK(std::adjacent_find(originals.begin(), originals.end()) == originals.end());
  }
}

TEST_CASE("a workload without GPU requests is not tuned (nothing could reach the target)") {
  const TraceNode n{"n", 8000, 1024, 1, "T4", 0};
  TracePod p;
  p.name = "p";
  p.cpu_milli = 100;
  const Workload w = MakeWorkload("cpu", {n}, {p});
  GoRand rng(0);
  const RunOrder o = PrepareRun(w, 42, 1.3, rng);
  CHECK(o.events.size() == 1);
  CHECK(o.copies == 0);
}

}  // namespace
}  // namespace knobsim::replay
