// The node sample of large clusters: kube-scheduler does not filter every node for every pod.
// It walks its node list from where the previous cycle stopped and stops once it has found
// enough feasible nodes; only those are scored (pkg/scheduler/schedule_one.go,
// findNodesThatFitPod / findNodesThatPassFilters / numFeasibleNodesToFind).
//
// The walk (modelled sequentially, as upstream with parallelism 1; upstream's 16 filter
// goroutines make the exact sample nondeterministic there):
//  * The list is the scheduler cache's node tree (internal/cache/node_tree.go): nodes grouped by
//    zone key (ZoneKey), zones in the order their first node arrived, nodes in arrival order
//    inside a zone, listed round-robin over the zones (NodeTreeOrder).
//  * A cycle starts at nextStartNodeIndex and stops at the first feasible node beyond
//    NumFeasibleNodesToFind (that node is not counted); nextStartNodeIndex then advances by the
//    nodes processed (feasible + rejected), modulo the number of nodes.
#pragma once

#include <string>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {

// KubeSchedulerConfiguration.percentageOfNodesToScore: 0 is upstream's adaptive default, 100
// scores every node.
inline constexpr int kAdaptivePercentageOfNodesToScore = 0;

// How many feasible nodes end the search over `num_all_nodes` nodes: every node below 100;
// else `percentage` (0: adaptive, 50 - nodes/125, at least 5) of them, at least 100.
int NumFeasibleNodesToFind(int percentage, int num_all_nodes);

// utilnode.GetZoneKey: "<region>:\0:<zone>" from failure-domain.beta.kubernetes.io/{region,zone}
// (first) or topology.kubernetes.io/{region,zone}; empty when a node has neither.
std::string ZoneKey(const Labels& labels);

// The node tree's listing of `nodes` (arrival order = index order): node indexes round-robin
// over the zones. The identity when every node has the same zone key. Absent nodes
// (ClusterState::SetAbsent) are left out; a node that joins later keeps its index's place where
// upstream would append it to its zone, which moves only the sample of a 100+ node cluster.
std::vector<int> NodeTreeOrder(const std::vector<NodeState>& nodes);

}  // namespace knobsim
