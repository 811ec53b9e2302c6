#include "sim/scheduler/dra/allocated_state.h"

#include <fmt/format.h>

#include <cstdint>

namespace knobsim::dra {
namespace {

DeviceIdLess::View ViewOf(const DraDeviceResult& r) {
  return {r.driver, r.pool, r.device};
}
DeviceId IdOf(const DraDeviceResult& r) {
  return {r.driver, r.pool, r.device};
}

// FNV-1a, 64 bits, continuing from `hash`.
uint64_t Fnv1a(std::string_view text, uint64_t hash) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace

std::string DeviceId::ToString() const {
  return driver + "/" + pool + "/" + device;
}

void AddAllocation(const DraAllocation& allocation, bool consumable_capacity,
                   AllocatedState& state) {
  for (const DraDeviceResult& r : allocation.results) {
    if (r.admin_access) continue;  // admin access never makes a device allocated
    if (consumable_capacity && !r.share_id.empty()) {
      state.shares[IdOf(r)].insert(r.share_id);
      if (!r.consumed_capacity_milli.empty()) {
        AddAmounts(state.consumed_capacity[IdOf(r)], r.consumed_capacity_milli);
      }
      continue;
    }
    state.devices.insert(IdOf(r));
  }
}

void RemoveAllocation(const DraAllocation& allocation, bool consumable_capacity,
                      AllocatedState& state) {
  for (const DraDeviceResult& r : allocation.results) {
    if (r.admin_access) continue;
    if (consumable_capacity && !r.share_id.empty()) {
      if (const auto it = state.shares.find(ViewOf(r)); it != state.shares.end()) {
        it->second.erase(r.share_id);
        if (it->second.empty()) state.shares.erase(it);
      }
      const auto it = state.consumed_capacity.find(ViewOf(r));
      if (it != state.consumed_capacity.end() &&
          SubtractAmounts(it->second, r.consumed_capacity_milli)) {
        state.consumed_capacity.erase(it);
      }
      continue;
    }
    if (const auto it = state.devices.find(ViewOf(r)); it != state.devices.end()) {
      state.devices.erase(it);
    }
  }
}

AllocatedState BuildAllocatedState(const std::vector<ResourceClaimSpec>& claims,
                                   bool consumable_capacity) {
  AllocatedState state;
  for (const ResourceClaimSpec& claim : claims) {
    if (claim.allocation) AddAllocation(*claim.allocation, consumable_capacity, state);
  }
  return state;
}

bool IsDeviceAllocated(const DeviceIdLess::View& device, const AllocatedState& state) {
  return state.devices.contains(device) || state.shares.contains(device) ||
         state.consumed_capacity.contains(device);
}

std::string MakeShareId(const ResourceClaimSpec& claim, size_t index,
                        const DraDeviceResult& result) {
  const std::string key =
      fmt::format("{}\x1f{}\x1f{}\x1f{}/{}/{}",
                  claim.uid.empty() ? claim.namespace_ + "/" + claim.name : claim.uid, index,
                  result.request, result.driver, result.pool, result.device);
  const uint64_t hi = Fnv1a(key, 14695981039346656037ULL);
  const uint64_t lo = Fnv1a(key, hi ^ 0x9e3779b97f4a7c15ULL);
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff,
                     hi & 0xffff, lo >> 48, lo & 0xffffffffffffULL);
}

}  // namespace knobsim::dra
