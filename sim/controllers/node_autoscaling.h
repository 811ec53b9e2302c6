// Node-pool autoscaling: the cluster-autoscaler on the simulated clock, for the pools with
// `autoscaling:` (NodePool::autoscaling, settings ClusterKnobs::cluster_autoscaler,
// docs/autoscaling.md "Node pools"). Read from kubernetes/autoscaler at commit f7bb0c36
// (core/static_autoscaler.go RunOnce, core/scaleup, estimator/binpacking_estimator.go,
// core/scaledown, simulator/utilization/info.go) and its FAQ.md.
//
// The pool's node slots up to its maximum exist from the start; the slots without a node are
// absent from the scheduler's cluster (ClusterState::SetAbsent). Every `scan_interval` from
// t = 0 the autoscaler runs once:
//  1. Scale-up. The pods in the Pending queue (priority at or above the expendable cutoff) are
//     first packed onto a copy of the cluster with the upcoming nodes (provisioning) present:
//     the pods that fit there trigger nothing. For each autoscaled pool with room below its max
//     the rest are packed onto new nodes of that pool, one node added whenever a pod fits
//     nowhere, largest pods first (DecreasingPodOrderer: cpu/alloc + memory/alloc of the
//     template) — the binpacking estimator, with the real scheduler as its predicate checker.
//     The expander (sim/autoscaling/node_group_expander.h) picks one option; its new nodes
//     are Ready after the pool's provisioning delay. Events: TriggeredScaleUp on each pod the
//     option takes ("pod triggered scale-up: [{pool 1->3 (max: 8)}]"), NotTriggerScaleUp on
//     the others ("pod didn't trigger scale-up: 1 max node group size reached, ...").
//  2. Scale-down, in a loop that did not scale up. A node of an autoscaled pool is unneeded
//     when its utilization is at or below the threshold — max(cpu, memory) requests over
//     allocatable, or on a GPU node its GPU requests alone against the GPU threshold (whole
//     cards, and with knows_gpu_share the gpu-mem units) — and every pod on it would fit on
//     another node (the scheduler on a copy without it) with the Eviction API's consent: every
//     PodDisruptionBudget of the scenario's `kube.pdbs` that selects a pod to move must allow its
//     disruption, the pods before it counted as evicted (disruption_budget.h). Blocked: a pod
//     without a controller (kind Pod) unless annotated
//     cluster-autoscaler.kubernetes.io/safe-to-evict: "true", a pod annotated "false", a node
//     annotated scale-down-disabled. A node unneeded for `unneeded_time` is removed unless the pool
//     is at its minimum or a scale-up happened less than `delay_after_add` ago (or a removal
//     `delay_after_delete` ago): empty nodes up to `max_scale_down_parallelism` per loop, at most
//     one non-empty node at a time (upstream's max-drain-parallelism 1). Removal cordons the node
//     (ToBeDeletedByClusterAutoscaler), deletes its pods (their controllers create replacements
//     that the scheduler places elsewhere; requests in flight finish within the grace period) and
//     takes the node out at the first loop after its last pod left. Events: ScaleDown on the node
//     and on each pod.
//
//  3. Failed provisioning. A spot pool's new instance may find no inventory (SpotInterruptions::
//     stockout): with compensate_with_on_demand a pay-as-you-go node is created instead; without
//     it the node never registers, and `max_node_provision_time` after the scale-up the
//     autoscaler gives up on it (ScaleUpTimedOut: the node leaves the target size) and backs the
//     pool off (sim/autoscaling/node_group_backoff.h): no scale-up option while backed off, so
//     the expander picks another pool — the fallback to an on-demand pool. Until then the Pending
//     pods wait for the node, as upstream counts it upcoming.
// Spot reclaims of autoscaled pools: spot_reclaims.h.
//
// The removals of one loop are simulated together: empty nodes first (in bulk), then at most
// one node to drain, whose pods must fit without the empty nodes going too; every chosen node is
// cordoned before any pod moves.
//
// Left out, and said in docs/autoscaling.md: kube-system pods blocking, a node that registers
// after its scale-up timed out (the reader keeps provisioning within the limit). DaemonSet pods
// on new nodes: daemon_sets.h.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/results.h"

namespace knobsim::engine {

class Simulator;
struct EngineState;

// Schedules the first loop at t = 0 when some pool autoscales; call after the placement.
void StartClusterAutoscaler(Simulator& sim);
// kAutoscalerScan: one loop, and the next one.
void RunAutoscalerLoop(Simulator& sim);
// kNodeProvisioned: the new node is Ready; the Pending pods are scheduled again.
void JoinProvisionedNode(Simulator& sim, int32_t n);
// A pool's node-time integrals (billed nodes: its size but the stocked-out ones; and its
// on-demand nodes) closed up to now: call before changing its counts.
void CloseNodeTime(EngineState& state, int pool);
// The pool's size (the autoscaler's target) changes by `delta` now.
void ResizePool(EngineState& state, int pool, int delta);
// An autoscaled pool's node leaves it, its pods gone: the slot is absent again, the pool one
// node smaller (a scale-down's removal, a spot release).
void TakeOutOfPool(EngineState& state, int32_t n);
// kProvisionTimeout: a scale-up's node that never registered is given up on (ScaleUpTimedOut)
// and its pool backed off.
void GiveUpProvisioning(Simulator& sim, int32_t n);
// Each pool's size over the run, closed at the run's end (`state.now`).
std::vector<PoolResult> PoolResults(EngineState& state);
// Each autoscaled pool's size per timeline step (RunOptions::timeline_step; none when 0).
std::vector<PoolTimeline> PoolTimelines(EngineState& state);

}  // namespace knobsim::engine
