// Spot nodes (NodePool::spot, docs/autoscaling.md "Spot pools"): each node's reclaims are a
// Poisson process drawn from a stream of its own ("spot/<pool>/<ordinal>") over the whole run,
// one draw per reclaim whatever the node's state, so paired variants see the same reclaims. A
// reclaim of a node that is down, absent, already noticed, being removed, created on-demand or
// still in its protection period is skipped.
//
// A reclaim is an interruption notice: the node is cordoned and, with drain_on_notice, its pods
// but DaemonSet pods are deleted (their controllers' replacements go through the scheduler; the
// requests in flight finish within the termination grace). `notice` later the instance is
// released (at once without a notice): what is still on the node stops and its requests fail as
// `interrupted`. A fixed pool's node comes back `replace_after` later, empty, and the pods it
// still held start there again; an autoscaled pool's node is gone (its pods deleted, its slot
// absent), and the cluster-autoscaler adds nodes as the Pending pods need them. Events:
// SpotInterruption, SpotReclaim, NodeReplaced.
#pragma once

#include <cstdint>

#include "sim/engine/engine_state.h"

namespace knobsim::engine {

class Simulator;

// Schedules node n's next reclaim, if it falls before the end.
void ScheduleReclaim(EngineState& state, int32_t n);
// kSpotReclaim: the interruption notice (or the release, without a notice).
void ReclaimNode(Simulator& sim, int32_t n);
// kSpotRelease: the provider takes the instance.
void ReleaseNode(Simulator& sim, int32_t n);
// kNodeReplaced: a fixed pool's replacement node joins.
void ReplaceNode(Simulator& sim, int32_t n);

}  // namespace knobsim::engine
