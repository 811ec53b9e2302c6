#include "sim/scheduler/dra/held_devices.h"

namespace knobsim::dra {
namespace {

uint8_t FlagsOf(const DeviceIdLess::View& device, const AllocatedState& state) {
  uint8_t flags = 0;
  if (state.devices.contains(device)) flags |= kHeldDedicated;
  if (state.consumed_capacity.contains(device)) flags |= kHeldConsumed;
  return flags;
}

void Set(const SliceIndex& index, const AllocatedState& state, const DeviceIdLess::View& device,
         std::vector<uint8_t>& held) {
  const auto& [driver, pool, name] = device;
  for (const int ordinal : index.OrdinalsOf(driver, pool, name))
    held[ordinal] = FlagsOf(device, state);
}

}  // namespace

std::vector<uint8_t> HeldByDevice(const SliceIndex& index, const AllocatedState& state) {
  std::vector<uint8_t> held(static_cast<size_t>(index.device_count()), 0);
  for (const DeviceId& id : state.devices) Set(index, state, DeviceIdLess::Key(id), held);
  for (const auto& [id, amounts] : state.consumed_capacity)
    Set(index, state, DeviceIdLess::Key(id), held);
  return held;
}

void RefreshHeld(const SliceIndex& index, const AllocatedState& state, const DraAllocation& changed,
                 std::vector<uint8_t>& held) {
  held.resize(static_cast<size_t>(index.device_count()), 0);
  for (const DraDeviceResult& r : changed.results)
    Set(index, state, DeviceIdLess::View{r.driver, r.pool, r.device}, held);
}

}  // namespace knobsim::dra
