#include "sim/replay/replay.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/replay/workload.h"
#include "sim/scheduler/fgd/policy.h"

namespace knobsim::replay {

using fgd::PolicyKind;
using fgd::PolicyName;

namespace {

// A cluster of identical nodes: every node ties, and the smallest rank of §2.2 must win.
Workload IdenticalNodes(int n) {
  std::vector<TraceNode> nodes;
  for (int i = 0; i < n; ++i) {
    TraceNode t;
    t.name = "node-" + std::to_string(10 + i);
    t.cpu_milli = 32000;
    t.memory_mib = 65536;
    t.gpu = 2;
    t.model = "T4";
    nodes.push_back(t);
  }
  TracePod cpu_pod;
  cpu_pod.name = "pod-0";
  cpu_pod.cpu_milli = 1000;
  cpu_pod.memory_mib = 1024;
  return MakeWorkload("ties", nodes, {cpu_pod});
}

TEST_CASE("ties between nodes go to the smallest rank of the seed's permutation") {
  const Workload w = IdenticalNodes(20);
  for (PolicyKind k : {PolicyKind::kDotProd, PolicyKind::kClustering, PolicyKind::kPacking,
                       PolicyKind::kBestFit, PolicyKind::kFgd, PolicyKind::kAckBinpack}) {
    for (int64_t seed : {42, 43}) {
      const RunResult r = Replay(w, k, seed, 1.0);
      REQUIRE(r.node_of_event.size() == 1);
      CHECK_MESSAGE(r.order.rank[r.node_of_event[0]] == 0, PolicyName(k) << " seed " << seed);
    }
  }
}

}  // namespace
}  // namespace knobsim::replay
