// FirstFitScheduler: the interim placement of the foundation — the first node (in pool order)
// that passes the basic filters, and on it the lowest-indexed card(s) that fit.
//
// It applies, in kube-scheduler's filter order, taints (NoSchedule / NoExecute), nodeSelector
// and required node affinity, resource fit (cpu, memory, pods, the node-level sum of
// aliyun.com/gpu-mem, nvidia.com/gpu) and then the GPU-share card fit (per-card units, ACK's
// ack.node.gpu.max-pod, POLICY 0's implicit max_inst). It ignores topology spread, scores and
// the binpack/spread card choice: the placement issue replaces it with the real scheduler. A pod
// that fits nowhere gets a FailedScheduling message built like upstream's (semantics.md §3.7).
#pragma once

#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/scenario.h"

namespace knobsim {

struct Binding {
  int node = -1;           // -1 = Pending
  std::vector<int> cards;  // indexes into Cluster::cards
  std::string message;     // FailedScheduling text when Pending
};

class FirstFitScheduler {
 public:
  FirstFitScheduler(const Scenario& scenario, Cluster& cluster);

  // Places one pod of `workload` and records its requests on the chosen node and cards.
  Binding Place(const Workload& workload);

 private:
  // Why `node` cannot take the pod, or an empty list when it can (cards chosen into `cards`).
  std::vector<std::string> Reject(const Workload& w, int node, std::vector<int>& cards) const;
  int MaxPodsPerCard(const NodePool& pool) const;

  const Scenario& scenario_;
  Cluster& cluster_;
};

// Upstream's "0/N nodes are available: <count> <reason>, ...." text from per-node reasons
// (reasons counted, sorted as strings, joined). The preemption suffix comes with the real
// scheduler (placement issue).
std::string FailedSchedulingMessage(int num_nodes,
                                    const std::vector<std::vector<std::string>>& reasons);

}  // namespace knobsim
