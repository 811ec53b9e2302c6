// What a scenario says about node-pool autoscaling (docs/autoscaling.md "Node pools"): a pool's
// size bounds and provisioning delay (NodePool::autoscaling), and the cluster-autoscaler's flags
// (ClusterKnobs::cluster_autoscaler). Defaults are upstream's (kubernetes/autoscaler
// config/flags/flags.go at commit f7bb0c36; FAQ.md's table agrees) unless said otherwise.
// The controller itself is sim/controllers/node_autoscaling.h.
#pragma once

#include <optional>
#include <string>

#include "sim/event_queue.h"

namespace knobsim {

// A node group of the cluster-autoscaler: the pool's size moves in [min, max]; its `count` is
// the size at t = 0.
struct PoolAutoscaling {
  int min = 0;
  int max = 0;
  // Time from the scale-up decision to the node Ready, uniform in [provisioning_min,
  // provisioning_max] (one draw per node from the pool's stream). Default 2–3 minutes: a GPU
  // node joining an ACK cluster with accelerated images (docs/autoscaling.md); a pool without
  // them takes about 10 minutes. Assumption, set per pool.
  SimTime provisioning_min = 120 * kNanosPerSecond;
  SimTime provisioning_max = 180 * kNanosPerSecond;
  // The priority expander's number for this pool (its ConfigMap entry); unset: none.
  std::optional<int> priority;
};

// The backoff of a node group whose scale-up failed (sim/autoscaling/node_group_backoff.h).
struct NodeGroupBackoffSettings {
  SimTime initial = 300 * kNanosPerSecond;           // --initial-node-group-backoff-duration
  SimTime max = 1800 * kNanosPerSecond;              // --max-node-group-backoff-duration
  SimTime reset_after = 3 * 3600 * kNanosPerSecond;  // --node-group-backoff-reset-timeout
};

struct ClusterAutoscalerSettings {
  SimTime scan_interval = 10 * kNanosPerSecond;  // --scan-interval
  // --expander: a comma-separated chain of random, most-pods, least-waste, priority
  // (sim/autoscaling/node_group_expander.h). least-waste is upstream's default since 1.33.
  std::string expander = "least-waste";
  double utilization_threshold = 0.5;               // --scale-down-utilization-threshold
  double gpu_utilization_threshold = 0.5;           // --scale-down-gpu-utilization-threshold
  SimTime unneeded_time = 600 * kNanosPerSecond;    // --scale-down-unneeded-time
  SimTime delay_after_add = 600 * kNanosPerSecond;  // --scale-down-delay-after-add
  SimTime delay_after_delete = 0;                   // --scale-down-delay-after-delete
  bool scale_down = true;                           // --scale-down-enabled
  int max_scale_down_parallelism = 10;              // empty nodes removed in one scan
  int expendable_pods_priority_cutoff = -10;        // --expendable-pods-priority-cutoff
  // Whether the autoscaler knows ACK's shared-GPU resource aliyun.com/gpu-mem: template nodes
  // declare their pool's gpu-mem, and a shared-GPU node's utilization is the gpu-mem its pods
  // request. Upstream's alicloud provider knows only nvidia.com/gpu (its template nodes carry
  // cpu, memory, pods and nvidia.com/gpu), so a pod asking for gpu-mem never triggers a
  // scale-up and a cGPU node counts as 0 % GPU-utilized: false reproduces that. Assumption:
  // true, the behaviour a cGPU node pool needs to autoscale at all.
  bool knows_gpu_share = true;
  // A new node not Ready this long after its scale-up has failed (ScaleUpTimedOut): the
  // autoscaler forgets it and backs its group off (sim/autoscaling/node_group_backoff.h).
  SimTime max_node_provision_time = 900 * kNanosPerSecond;  // --max-node-provision-time
  NodeGroupBackoffSettings backoff;
};

}  // namespace knobsim
