// The per-device table of AllocatedState (held_devices.h): each device's flags follow the
// state, including a device two generations of its pool list, and devices no slice lists.
#include "sim/scheduler/dra/held_devices.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim::dra {
namespace {

ResourceSliceSpec Slice(const std::string& name, const std::string& pool, int64_t generation,
                        std::vector<std::string> devices) {
  ResourceSliceSpec s;
  s.name = name;
  s.driver = "gpu.example.com";
  s.pool = pool;
  s.pool_generation = generation;
  s.node_name = "n0";
  for (std::string& d : devices) s.devices.emplace_back().name = std::move(d);
  return s;
}

DraDeviceResult Result(const std::string& pool, const std::string& device,
                       const std::string& share = "", int64_t memory = 0) {
  DraDeviceResult r;
  r.request = "gpu";
  r.driver = "gpu.example.com";
  r.pool = pool;
  r.device = device;
  r.share_id = share;
  if (memory > 0) r.consumed_capacity_milli["gpu.example.com/memory"] = memory;
  return r;
}

TEST_CASE("HeldByDevice: dedicated and consumed flags per ordinal, every generation's copy") {
  // Pool p0 in two generations (gpu-0 in both), pool p1 once.
  const std::vector<ResourceSliceSpec> slices = {Slice("old", "p0", 1, {"gpu-0", "gpu-1"}),
                                                 Slice("new", "p0", 2, {"gpu-0"}),
                                                 Slice("other", "p1", 1, {"gpu-0", "gpu-1"})};
  const SliceIndex index(slices);
  REQUIRE(index.device_count() == 5);
  CHECK(index.OrdinalsOf("gpu.example.com", "p0", "gpu-0").size() == 2);
  CHECK(index.OrdinalsOf("gpu.example.com", "p9", "gpu-0").empty());

  struct Step {
    const char* name;
    DraAllocation allocation;
    bool add;
    std::vector<uint8_t> want;  // by ordinal: old/gpu-0, old/gpu-1, new/gpu-0, p1/gpu-0, p1/gpu-1
  };
  const DraAllocation whole{{Result("p0", "gpu-0")}, std::nullopt};
  const DraAllocation share{{Result("p1", "gpu-1", "share-a", 1000)}, std::nullopt};
  const DraAllocation unknown{{Result("p9", "gpu-0")}, std::nullopt};
  const std::vector<Step> steps = {
      {"a dedicated device: both generations' copies", whole, true, {1, 0, 1, 0, 0}},
      {"a share with consumed capacity", share, true, {1, 0, 1, 0, 2}},
      {"a device no slice lists changes nothing", unknown, true, {1, 0, 1, 0, 2}},
      {"the dedicated device given back", whole, false, {0, 0, 0, 0, 2}},
      {"the share given back", share, false, {0, 0, 0, 0, 0}},
  };
  AllocatedState state;
  std::vector<uint8_t> held = HeldByDevice(index, state);
  for (const Step& step : steps) {
    INFO(step.name);
    if (step.add) {
      AddAllocation(step.allocation, true, state);
    } else {
      RemoveAllocation(step.allocation, true, state);
    }
    RefreshHeld(index, state, step.allocation, held);
    CHECK(held == step.want);
    CHECK(HeldByDevice(index, state) == step.want);
  }
}

}  // namespace
}  // namespace knobsim::dra
