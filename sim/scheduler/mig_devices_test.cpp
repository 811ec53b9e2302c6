// MIG instances as a node's device slots (NodeSpec::mig): under the device plugin's
// mixed strategy a pod asking nvidia.com/mig-<profile> takes only slots advertised as that
// profile; under the single strategy every slot is an nvidia.com/gpu device and nothing changes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {
namespace {

// One H100 cut 3g.40gb + 2g.20gb + 1g.10gb × 2, advertised the mixed way.
NodeSpec MixedNode() {
  NodeSpec node;
  node.name = "n";
  node.gpu_schedule = "default";
  node.mig = {MigStrategy::kMixed, {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}};
  for (const std::string& p : node.mig.instances)
    ++node.allocatable[std::string(kMigResourcePrefix) + p];
  node.gpu_cards = static_cast<int>(node.mig.instances.size());
  node.capacity = node.allocatable;
  return node;
}

PodSpec MigPod(const std::string& profile, int n) {
  PodSpec pod;
  pod.name = "p-" + profile;
  pod.whole_gpus = n;
  pod.container_whole_gpus_max = n;
  pod.device_resource = profile.empty() ? "" : std::string(kMigResourcePrefix) + profile;
  pod.requests[profile.empty() ? std::string(kNvidiaGpuResource) : pod.device_resource] = n;
  return pod;
}

TEST_CASE("a mixed-strategy pod takes a free slot of its own profile, lowest index first") {
  struct Case {
    const char* profile;
    int n;
    std::vector<int> busy;   // slots held already
    std::vector<int> cards;  // empty: does not fit
  };
  const std::vector<Case> cases = {
      {"1g.10gb", 1, {}, {2}},
      {"1g.10gb", 1, {2}, {3}},
      {"1g.10gb", 2, {}, {2, 3}},
      {"1g.10gb", 1, {2, 3}, {}},  // a free 2g.20gb is no 1g.10gb
      {"2g.20gb", 1, {}, {1}},
      {"3g.40gb", 1, {0}, {}},
      {"3g.40gb", 2, {}, {}},  // one such slot on the node
      {"1g.20gb", 1, {}, {}},  // a profile the node does not have
      {"", 1, {}, {}},         // nvidia.com/gpu: no slot is advertised so
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.profile));
    CAPTURE(c.n);
    ClusterState cluster;
    const int n = cluster.AddNode(MixedNode());
    for (int b : c.busy) {
      Placement at;
      at.node = n;
      at.cards = {b};
      at.mem_units = {0};
      at.core_units = {0};
      cluster.Bind(MigPod("busy", 1), at);
    }
    const CardPlacementResult r =
        PlaceOnCards(MigPod(c.profile, c.n), cluster.node(n), CardPolicy::kBinpack, 0);
    if (c.cards.empty()) {
      CHECK_FALSE(r.choice.has_value());
    } else {
      REQUIRE(r.choice.has_value());
      CHECK(r.choice->cards == c.cards);
    }
  }
}

TEST_CASE("a listed or exported MIG pod holds a slot of its profile only") {
  ClusterState cluster;
  const int n = cluster.AddNode(MixedNode());
  const std::vector<int> small = {2};
  CHECK(CheckCardSet(MigPod("1g.10gb", 1), cluster.node(n), small, 0).has_value());
  const std::vector<int> wrong = {1};
  CHECK_FALSE(CheckCardSet(MigPod("1g.10gb", 1), cluster.node(n), wrong, 0).has_value());
  // An exported pod carries no device in its annotations: the first free slot of its profile.
  PodSpec exported = MigPod("2g.20gb", 1);
  exported.node_name = "n";
  const int p = cluster.BindExisting(exported);
  REQUIRE(p >= 0);
  CHECK(cluster.placement(p).cards == std::vector<int>{1});
  CHECK(cluster.node(n).cards[1].whole);
}

TEST_CASE("CardServes: nvidia.com/gpu slots unless the node lists its devices") {
  NodeSpec plain;
  plain.gpu_cards = 2;
  CHECK(CardServes(plain, 0, MigPod("", 1)));
  CHECK_FALSE(CardServes(plain, 0, MigPod("1g.10gb", 1)));
  const NodeSpec mixed = MixedNode();
  CHECK(CardServes(mixed, 0, MigPod("3g.40gb", 1)));
  CHECK_FALSE(CardServes(mixed, 0, MigPod("2g.20gb", 1)));
  CHECK_FALSE(CardServes(mixed, 0, MigPod("", 1)));
}

}  // namespace
}  // namespace knobsim
