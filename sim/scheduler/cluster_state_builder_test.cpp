#include "sim/scheduler/cluster_state_builder.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim {
namespace {

// A node of `cards` sharing cards of 16 units, or a CPU node without cards.
NodeSpec Node(const std::string& name, int cards) {
  NodeSpec node;
  node.name = name;
  node.capacity = {{"cpu", 4000}};
  node.allocatable = node.capacity;
  node.gpu_schedule = cards > 0 ? "share" : "default";
  node.gpu_cards = cards;
  node.card_mem_units = cards > 0 ? 16 : 0;
  return node;
}

PodSpec Pod(const std::string& name, const std::string& node_name) {
  PodSpec pod;
  pod.namespace_ = "web";
  pod.name = name;
  pod.node_name = node_name;
  pod.phase = "Running";
  pod.requests = {{"cpu", 100}};
  return pod;
}

// The objects with each pod read at line 10, 20, ... of `export.yaml`.
KubeObjects Objects(std::vector<NodeSpec> nodes, std::vector<PodSpec> pods) {
  KubeObjects objects;
  objects.nodes = std::move(nodes);
  objects.node_sources.resize(objects.nodes.size(), ObjectSource{"export.yaml", 1});
  objects.pods = std::move(pods);
  for (size_t i = 0; i < objects.pods.size(); ++i) {
    objects.pod_sources.push_back(ObjectSource{"export.yaml", 10 * static_cast<int>(i + 1)});
  }
  return objects;
}

TEST_CASE("BuildClusterState binds running pods and leaves out finished and pending ones") {
  PodSpec done = Pod("done", "n1");
  done.phase = "Succeeded";
  PodSpec failed = Pod("failed", "n1");
  failed.phase = "Failed";
  const KubeObjects objects =
      Objects({Node("n1", 0)}, {Pod("a", "n1"), done, failed, Pod("pending", "")});
  std::vector<std::string> warnings;
  const ClusterState cluster = BuildClusterState(objects, &warnings);
  CHECK(warnings.empty());
  REQUIRE(cluster.pods().size() == 1);
  CHECK(cluster.pods()[0].name == "a");
  CHECK(cluster.node(0).requested.at("cpu") == 100);
}

TEST_CASE("BuildClusterState warns about unknown nodes, missing cards and missing allocations") {
  PodSpec beyond = Pod("beyond", "g1");
  beyond.gpu_mem = 4;
  beyond.allocated_mem = {{3, 4}};
  PodSpec unplaced = Pod("unplaced", "g1");
  unplaced.gpu_mem = 4;
  const KubeObjects objects = Objects({Node("g1", 2)}, {Pod("lost", "n9"), beyond, unplaced});
  std::vector<std::string> warnings;
  const ClusterState cluster = BuildClusterState(objects, &warnings);
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0] ==
        "export.yaml:10: pod web/lost: bound to node \"n9\", which the cluster files do not "
        "hold; skipped");
  CHECK(warnings[1] ==
        "export.yaml:20: pod web/beyond: allocated on card 3 but node \"g1\" has 2 card(s); "
        "that share is skipped");
  CHECK(warnings[2] ==
        "export.yaml:30: pod web/unplaced: requests aliyun.com/gpu-mem but carries no ACK "
        "allocation annotation; it counts on the node but on no card");
  CHECK(cluster.pods().size() == 2);  // the lost pod is skipped, the other two bound
  CHECK(BuildClusterState(objects).pods().size() == 2);  // no warnings asked for
}

}  // namespace
}  // namespace knobsim
