// From an export to the scheduler's snapshot: the reader (sim/io/kube_reader.h) and
// BuildClusterState (sim/scheduler/cluster_state_builder.h) on the bundled exports.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/kube/kube_test_support.h"
#include "sim/io/kube_reader.h"
#include "sim/scheduler/cluster_state_builder.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The 20-node ACK export ----------------------------------------------------------------

TEST_CASE("the cluster snapshot binds running pods where their annotations say") {
  std::vector<std::string> warnings;
  const ClusterState cluster = BuildClusterState(Cluster(), &warnings);
  CHECK(warnings.empty());
  REQUIRE(cluster.nodes().size() == 20);
  auto card = [&](const char* node, int c) -> const CardState& {
    const int n = cluster.FindNode(node);
    REQUIRE(n >= 0);
    return cluster.node(n).cards.at(c);
  };
  CHECK(card("cn-hangzhou.10.0.1.21", 0).used_mem == 8);  // two ocr pods, v1
  CHECK(card("cn-hangzhou.10.0.1.21", 0).pods == 2);
  CHECK(card("cn-hangzhou.10.0.2.21", 0).used_mem == 10);  // ocr + asr
  CHECK(card("cn-hangzhou.10.0.1.22", 0).used_mem == 0);   // the Succeeded job occupies nothing
  CHECK(card("cn-hangzhou.10.0.1.31", 0).used_mem == 10);
  CHECK(card("cn-hangzhou.10.0.1.31", 1).used_mem == 10);
  CHECK(card("cn-hangzhou.10.0.2.31", 1).used_mem == 8);  // rerank's two containers
  CHECK(card("cn-hangzhou.10.0.2.31", 1).pods == 1);
  CHECK(card("cn-hangzhou.10.0.3.31", 0).used_mem == 8);  // video-tagger over two cards
  CHECK(card("cn-hangzhou.10.0.3.31", 1).used_mem == 8);
  CHECK(card("cn-hangzhou.10.0.2.32", 0).used_mem == 10);  // terminating still occupies
  CHECK(card("cn-hangzhou.10.0.2.32", 1).used_mem == 5);   // v3
  CHECK(card("cn-hangzhou.10.0.1.41", 0).used_mem == 40);
  CHECK(card("cn-hangzhou.10.0.1.41", 0).used_core == 100);
  CHECK(card("cn-hangzhou.10.0.2.41", 2).used_core == 50);
  CHECK(card("cn-hangzhou.10.0.2.41", 3).used_mem == 0);
  CHECK(card("cn-hangzhou.10.0.1.51", 3).whole);
  CHECK_FALSE(card("cn-hangzhou.10.0.1.51", 4).whole);
  CHECK(card("cn-hangzhou.10.0.2.51", 7).whole);

  const NodeState& cpu = cluster.node(cluster.FindNode("cn-hangzhou.10.0.3.12"));
  CHECK(cpu.pods.size() == 1);  // batch-exporter; the Failed report pod is gone
  CHECK(cpu.requested.at("cpu") == 500);
  const NodeState& t4 = cluster.node(cluster.FindNode("cn-hangzhou.10.0.1.21"));
  CHECK(t4.pods.size() == 3);
  CHECK(t4.requested.at("aliyun.com/gpu-mem") == 8);
  CHECK(t4.nonzero_cpu_milli == 2100);  // 2 × 1 cpu + the device plugin's default 100m
  CHECK(cluster.pods().size() == 26);
}

TEST_CASE("BuildClusterState skips pods bound to unknown nodes with a warning") {
  const KubeObjects objects = MustRead(R"(kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "4"}}
---
kind: Pod
metadata: {name: lost, namespace: web}
spec: {nodeName: n9, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
kind: Pod
metadata: {name: here}
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
)");
  std::vector<std::string> warnings;
  const ClusterState cluster = BuildClusterState(objects, &warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "test.yaml:5: pod web/lost: bound to node \"n9\", which the cluster files "
        "do not hold; skipped");
  CHECK(cluster.pods().size() == 1);
  CHECK(cluster.node(0).requested.at("cpu") == 100);
  CHECK(cluster.node(0).spec.allocatable.at("cpu") == 4000);  // allocatable defaults to capacity
}

// ---- The full export: workloads, budgets, storage, quotas ----------------------------------

TEST_CASE("the export's pods sit on existing cards within each card's memory") {
  std::vector<std::string> warnings;
  const ClusterState cluster = BuildClusterState(Export(), &warnings);
  CHECK(warnings.empty());
  int shared = 0;
  for (const NodeState& n : cluster.nodes()) {
    for (const CardState& card : n.cards) {
      CHECK(card.used_mem <= card.total_mem);
      shared += card.used_mem;
    }
  }
  // ocr 4 × 8, qwen 3 × 20, rerank 3 × 6, embed 3 × 4.
  CHECK(shared == 32 + 60 + 18 + 12);
  const NodeState& l20 = cluster.node(cluster.FindNode("cn-hangzhou.10.1.1.21"));
  CHECK(l20.cards.at(0).used_mem == 36);  // two ocr (v1) and qwen-chat-0 (v2)
  CHECK(l20.cards.at(0).pods == 3);
}

}  // namespace
}  // namespace knobsim
