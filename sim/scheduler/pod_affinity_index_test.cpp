// The InterPodAffinity indexes kept between pods (pod_affinity_index.h) against a recount from
// every bound pod after each of a few hundred random binds and unbinds: the per-node counts,
// the nodes with matches, and each existing term group's nodes and pod counts.
#include "sim/scheduler/pod_affinity_index.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/random_stream.h"
#include "sim/scheduler/filters/filter_testing.h"

namespace knobsim {
namespace {

PodSpec Replica(int workload) {
  PodSpec pod =
      testing::MakePod("w" + std::to_string(workload), {{"app", "w" + std::to_string(workload)}});
  PodAffinityTerm own;
  own.label_selector.match_labels = pod.labels;
  own.topology_key = "kubernetes.io/hostname";
  pod.pod_anti_affinity.required = {own};
  return pod;
}

TEST_CASE("pod affinity index: incremental counts and group members equal a full recount") {
  ClusterState cluster;
  constexpr int kNodes = 12, kWorkloads = 4;
  for (int n = 0; n < kNodes; ++n) cluster.AddNode(testing::MakeNode("n" + std::to_string(n)));
  TermMatchCounts counts;
  ExistingPodTerms existing({ExistingPodTerms::kRequiredAntiAffinity});
  RandomStream rng(7, "test/pod-affinity-index");
  std::vector<int> bound;
  for (int step = 0; step < 400; ++step) {
    if (bound.empty() || rng.Below(3) != 0) {
      const int node = static_cast<int>(rng.Below(kNodes));
      bound.push_back(testing::BindOn(cluster, "n" + std::to_string(node),
                                      Replica(static_cast<int>(rng.Below(kWorkloads)))));
    } else {
      const size_t at = rng.Below(bound.size());
      cluster.Unbind(bound[at]);
      bound.erase(bound.begin() + static_cast<long>(at));
    }
    // Ask only every few steps, so several changes pile up between two looks.
    if (step % 3 != 0) continue;
    counts.Sync(cluster);
    existing.Sync(cluster);
    const int w = static_cast<int>(rng.Below(kWorkloads));
    const std::vector<AffinityTerm> terms =
        RequiredAffinityTerms(Replica(w), Replica(w).pod_anti_affinity.required);
    const TermMatchCounts::Matches& m = counts.Counts(terms);
    std::vector<int> want(kNodes, 0), with;
    for (int p : bound)
      want[cluster.placement(p).node] += cluster.pod(p).labels.at("app") == "w" + std::to_string(w);
    for (int n = 0; n < kNodes; ++n)
      if (want[n] > 0) with.push_back(n);
    CHECK(m.count == want);
    std::vector<int> got = m.nodes;
    std::sort(got.begin(), got.end());
    CHECK(got == with);
    // Each group's members are exactly the nodes whose on_node lists name it, with its count.
    for (int g = 0; g < static_cast<int>(existing.groups().size()); ++g) {
      std::map<int, int> from_nodes, from_members;
      for (int n = 0; n < kNodes; ++n) {
        for (const ExistingPodTerms::OnNode& on : existing.on_node(n)) {
          if (on.group == g) from_nodes[n] = on.pods;
        }
      }
      for (const ExistingPodTerms::Member& member : existing.members(g)) {
        CHECK(from_members.count(member.node) == 0);
        from_members[member.node] = member.pods;
      }
      CHECK(from_members == from_nodes);
    }
  }
}

}  // namespace
}  // namespace knobsim
