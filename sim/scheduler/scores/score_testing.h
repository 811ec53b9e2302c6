// Test helper for the score plugins: runs one plugin's PreScore, Score and Normalize over every
// node of a cluster, the way the Scheduler does for the feasible nodes.
#pragma once

#include <numeric>
#include <vector>

#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/framework.h"

namespace knobsim::testing {

struct PluginScores {
  std::vector<int64_t> raw;
  std::vector<int64_t> normalized;
  bool skipped = false;
};

inline PluginScores RunScorePlugin(ScorePlugin& plugin, const PodSpec& pod,
                                   const ClusterState& cluster) {
  std::vector<int> feasible(cluster.nodes().size());
  std::iota(feasible.begin(), feasible.end(), 0);
  PluginScores out;
  plugin.PreScore(pod, cluster, feasible);
  out.skipped = plugin.Skipped();
  for (int n : feasible) out.raw.push_back(plugin.Score(pod, cluster, n));
  out.normalized = out.raw;
  plugin.Normalize(feasible, out.normalized);
  return out;
}

}  // namespace knobsim::testing
