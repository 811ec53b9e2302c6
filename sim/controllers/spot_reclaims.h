// Spot nodes (NodePool::spot): each node's reclaims are a Poisson process drawn from a stream of
// its own ("spot/<pool>/<ordinal>") over the whole run, one draw per reclaim whatever the node's
// state, so paired variants see the same reclaims (a reclaim of a node already down is
// skipped). A reclaim stops every pod on the node (their requests fail as `interrupted`) and
// empties its image cache; after `replace_after` an identical, empty node joins and the same
// pods start on it from scratch. Events: kSpotReclaim, kNodeReplaced.
#pragma once

#include <cstdint>

#include "sim/engine/engine_state.h"

namespace knobsim::engine {

class Simulator;

// Schedules node n's next reclaim, if it falls before the end.
void ScheduleReclaim(EngineState& state, int32_t n);
void ReclaimNode(Simulator& sim, int32_t n);
void ReplaceNode(Simulator& sim, int32_t n);

}  // namespace knobsim::engine
