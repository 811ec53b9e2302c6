#include "sim/scheduler/node_sample.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim {
namespace {

// Upstream pkg/scheduler/schedule_one_test.go, TestNumFeasibleNodesToFind (each case's name is
// upstream's), plus the bounds of the explicit setting.
TEST_CASE("numFeasibleNodesToFind: every node below 100, else the percentage, at least 100") {
  struct Case {
    const char* name;
    int percentage;
    int num_all_nodes;
    int want;
  };
  const Case cases[] = {
      {"not set percentageOfNodesToScore and nodes number not more than 50", 0, 10, 10},
      {"set percentageOfNodesToScore and nodes number not more than 50", 40, 10, 10},
      {"not set percentageOfNodesToScore and nodes number more than 50", 0, 1000, 420},
      {"set percentageOfNodesToScore and nodes number more than 50", 40, 1000, 400},
      {"not set percentageOfNodesToScore and nodes number more than 50*125", 0, 6000, 300},
      {"set percentageOfNodesToScore and nodes number more than 50*125", 40, 6000, 2400},
      {"99 nodes are all searched whatever the setting", 1, 99, 99},
      {"the adaptive percentage at 100 nodes is 50: the floor of 100 nodes", 0, 100, 100},
      {"1213 nodes (the Alibaba trace's cluster): 41 %", 0, 1213, 497},
      {"5000 nodes: 10 %", 0, 5000, 500},
      {"the adaptive percentage stops at 5 %", 0, 20000, 1000},
      {"a small explicit percentage still finds 100 nodes", 5, 1000, 100},
      {"100 % searches every node", 100, 5000, 5000},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(NumFeasibleNodesToFind(c.percentage, c.num_all_nodes) == c.want);
  }
}

// The labels of upstream's pkg/scheduler/backend/cache/node_tree_test.go allNodes.
const char* const kBetaRegion = "failure-domain.beta.kubernetes.io/region";
const char* const kBetaZone = "failure-domain.beta.kubernetes.io/zone";
const char* const kRegion = "topology.kubernetes.io/region";
const char* const kZone = "topology.kubernetes.io/zone";

std::vector<NodeState> UpstreamAllNodes() {
  const std::vector<Labels> labels = {
      {},                                                  // node-0
      {{kBetaRegion, "region-1"}},                         // node-1
      {{kBetaZone, "zone-2"}},                             // node-2
      {{kBetaRegion, "region-1"}, {kBetaZone, "zone-2"}},  // node-3
      {{kBetaRegion, "region-1"}, {kBetaZone, "zone-2"}},  // node-4
      {{kBetaRegion, "region-1"}, {kBetaZone, "zone-3"}},  // node-5
      {{kBetaRegion, "region-2"}, {kBetaZone, "zone-2"}},  // node-6
      {{kBetaRegion, "region-2"}, {kBetaZone, "zone-2"}},  // node-7
      {{kBetaRegion, "region-2"}, {kBetaZone, "zone-2"}},  // node-8
      {{kRegion, "region-2"}, {kZone, "zone-2"}, {kBetaRegion, "region-2"}, {kBetaZone, "zone-2"}},
      {{kBetaRegion, "region-2"}, {kBetaZone, "zone-3"}},  // node-10
  };
  std::vector<NodeState> nodes(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    nodes[i].spec.name = "node-" + std::to_string(i);
    nodes[i].spec.labels = labels[i];
  }
  return nodes;
}

std::vector<std::string> Names(const std::vector<NodeState>& nodes, const std::vector<int>& order) {
  std::vector<std::string> names;
  for (int i : order) names.push_back(nodes[i].spec.name);
  return names;
}

// Upstream node_tree_test.go TestNodeTree_AddNode: the zone keys of its trees.
TEST_CASE("zone keys are <region>:\\0:<zone>, the beta labels first, empty without either") {
  const std::vector<NodeState> nodes = UpstreamAllNodes();
  const std::string nul(1, '\0');
  CHECK(ZoneKey(nodes[0].spec.labels).empty());
  CHECK(ZoneKey(nodes[1].spec.labels) == "region-1:" + nul + ":");
  CHECK(ZoneKey(nodes[2].spec.labels) == ":" + nul + ":zone-2");
  CHECK(ZoneKey(nodes[3].spec.labels) == "region-1:" + nul + ":zone-2");
  CHECK(ZoneKey(nodes[9].spec.labels) == "region-2:" + nul + ":zone-2");
  CHECK(ZoneKey({{kRegion, "r"}, {kZone, "z"}}) == "r:" + nul + ":z");
  // A beta label that is present wins even over a GA one with a different value.
  CHECK(ZoneKey({{kZone, "ga"}, {kBetaZone, "beta"}}) == ":" + nul + ":beta");
}

// Upstream node_tree_test.go TestNodeTree_List and TestNodeTreeMultiOperations ("add more nodes
// to an exhausted zone"): round-robin over the zones in arrival order.
TEST_CASE("the node tree lists nodes round-robin over zones in arrival order") {
  const std::vector<NodeState> all = UpstreamAllNodes();
  SUBCASE("empty tree") {
    CHECK(NodeTreeOrder({}).empty());
  }
  SUBCASE("one node") {
    const std::vector<NodeState> nodes(all.begin(), all.begin() + 1);
    CHECK(Names(nodes, NodeTreeOrder(nodes)) == std::vector<std::string>{"node-0"});
  }
  SUBCASE("four nodes") {
    const std::vector<NodeState> nodes(all.begin(), all.begin() + 4);
    CHECK(Names(nodes, NodeTreeOrder(nodes)) ==
          std::vector<std::string>{"node-0", "node-1", "node-2", "node-3"});
  }
  SUBCASE("all nodes") {
    const std::vector<NodeState> nodes(all.begin(), all.begin() + 9);
    CHECK(Names(nodes, NodeTreeOrder(nodes)) ==
          std::vector<std::string>{"node-0", "node-1", "node-2", "node-3", "node-5", "node-6",
                                   "node-4", "node-7", "node-8"});
  }
  SUBCASE("add more nodes to an exhausted zone") {
    std::vector<NodeState> nodes(all.begin() + 4, all.begin() + 9);
    nodes.push_back(all[3]);
    CHECK(Names(nodes, NodeTreeOrder(nodes)) ==
          std::vector<std::string>{"node-4", "node-5", "node-6", "node-3", "node-7", "node-8"});
  }
  SUBCASE("one zone keeps arrival order") {
    const std::vector<NodeState> nodes(all.begin() + 6, all.begin() + 9);
    CHECK(NodeTreeOrder(nodes) == std::vector<int>{0, 1, 2});
  }
}

}  // namespace
}  // namespace knobsim
