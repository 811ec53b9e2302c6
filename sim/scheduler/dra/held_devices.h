// AllocatedState (allocated_state.h) as a table over the devices of one SliceIndex, by
// SliceIndex::DeviceOrdinal: whether claims hold each device alone, and whether shares took some
// of its capacity. The allocator reads this for every device of every node a pod is tried on;
// a table read costs nothing next to a search of AllocatedState's ordered sets by driver, pool
// and device name. Whoever changes the AllocatedState keeps the table in step (DraCatalog);
// a device several slices list (an older generation of its pool) has each of its ordinals set.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/scheduler/dra/allocated_state.h"
#include "sim/scheduler/dra/pools.h"

namespace knobsim::dra {

// Flags of one device in the table.
inline constexpr uint8_t kHeldDedicated = 1;  // in AllocatedState::devices
inline constexpr uint8_t kHeldConsumed = 2;   // in AllocatedState::consumed_capacity

// The whole table.
std::vector<uint8_t> HeldByDevice(const SliceIndex& index, const AllocatedState& state);
// Brings the entries of `changed`'s devices up to date with `state`, after AddAllocation or
// RemoveAllocation of `changed`.
void RefreshHeld(const SliceIndex& index, const AllocatedState& state, const DraAllocation& changed,
                 std::vector<uint8_t>& held);

}  // namespace knobsim::dra
