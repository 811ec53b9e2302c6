// Test helpers for the filter plugins: terse nodes and pods, and a miniature filter pipeline
// (PreFilter, then Filter node by node stopping at the first rejecting plugin, as §3.1 says)
// so that tests can read FailedScheduling text straight from real plugin verdicts.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/framework.h"
#include "sim/scheduler/plugins.h"

namespace knobsim::testing {

inline constexpr int64_t kGiB = int64_t{1} << 30;

// A node with 110 pods, 8 cpu, 32 GiB allocatable unless `allocatable` says otherwise.
inline NodeSpec MakeNode(std::string name, Labels labels = {}, ResourceList allocatable = {}) {
  NodeSpec node;
  node.name = std::move(name);
  node.labels = std::move(labels);
  node.labels.emplace("kubernetes.io/hostname", node.name);
  node.allocatable = {{"pods", 110}, {"cpu", 8000}, {"memory", 32 * kGiB}};
  for (const auto& [resource, amount] : allocatable) node.allocatable[resource] = amount;
  node.capacity = node.allocatable;
  return node;
}

inline PodSpec MakePod(std::string name, Labels labels = {}, ResourceList requests = {}) {
  PodSpec pod;
  pod.name = std::move(name);
  pod.labels = std::move(labels);
  pod.requests = std::move(requests);
  return pod;
}

// Binds `pod` on the node called `node_name` (no cards).
inline int BindOn(ClusterState& cluster, const std::string& node_name, PodSpec pod) {
  Placement placement;
  placement.node = cluster.FindNode(node_name);
  pod.node_name = node_name;
  return cluster.Bind(std::move(pod), placement);
}

using Filters = std::vector<std::unique_ptr<FilterPlugin>>;

// The in-tree filters knobsim implements, in upstream order (the GPU-share filter is not here).
inline Filters InTreeFilters(const KubeVersion& version = {}) {
  Filters filters;
  filters.push_back(NewNodeUnschedulableFilter());
  filters.push_back(NewTaintTolerationFilter(version));
  filters.push_back(NewNodeAffinityFilter(version));
  filters.push_back(NewNodePortsFilter());
  filters.push_back(NewNodeResourcesFitFilter(version));
  filters.push_back(NewVolumeRestrictionsFilter());
  filters.push_back(NewVolumeBindingFilter());
  filters.push_back(NewVolumeZoneFilter());
  filters.push_back(NewPodTopologySpreadFilter());
  filters.push_back(NewInterPodAffinityFilter());
  filters.push_back(NewDynamicResourcesFilter(version));
  return filters;
}

struct FilterRun {
  PluginStatus pre_filter;          // the first PreFilter rejection, if any
  std::vector<PluginStatus> nodes;  // one per node (Success where the node is feasible)
  std::vector<int> feasible;        // nodes that passed every filter
};

inline FilterRun RunFilters(const Filters& filters, const PodSpec& pod,
                            const ClusterState& cluster) {
  FilterRun run;
  for (const auto& f : filters) {
    PluginStatus s = f->PreFilter(pod, cluster);
    if (!s.ok()) {
      run.pre_filter = std::move(s);
      return run;
    }
  }
  for (int n = 0; n < static_cast<int>(cluster.nodes().size()); ++n) {
    PluginStatus verdict;
    for (const auto& f : filters) {
      verdict = f->Filter(pod, cluster, n);
      if (!verdict.ok()) break;
    }
    if (verdict.ok()) run.feasible.push_back(n);
    run.nodes.push_back(std::move(verdict));
  }
  return run;
}

}  // namespace knobsim::testing
