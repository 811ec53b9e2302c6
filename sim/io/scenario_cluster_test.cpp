// cluster.time_slice and a variant's time_slice (scenario_cluster.cpp): read, defaulted, refused
// beside the sharing rules slice mode does not replace.
#include <doctest/doctest.h>

#include <string>

#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

// One cGPU pool of one A10 and one workload, then `rest` (cluster:, variants:, more pools).
std::string WithCluster(const std::string& rest) {
  return "name: slices\n"
         "node_pools:\n"
         "  - {name: gpu, gpu: A10, count: 1, cpu: 8, memory: 32Gi,\n"
         "     labels: {ack.node.gpu.schedule: cgpu}}\n"
         "workloads:\n"
         "  - {name: svc, gpu_mem: 4, traffic: {rate: 1/s}}\n" +
         rest;
}

TEST_CASE("time_slice: reads quantum and switch cost; unset is the fluid model") {
  Expected<Scenario> fluid = ReadScenarioString(WithCluster(""), "s.yaml");
  REQUIRE(fluid.ok());
  CHECK_FALSE(fluid->cluster.time_slice.enabled());

  Expected<Scenario> sliced = ReadScenarioString(
      WithCluster("cluster: {policy: 0, time_slice: {quantum: 2ms, switch_cost: 50us}}\n"
                  "variants:\n"
                  "  - {name: fluid, time_slice: off}\n"
                  "  - {name: finer, time_slice: {quantum: 100us}}\n"),
      "s.yaml");
  REQUIRE_MESSAGE(sliced.ok(), sliced.error().ToString());
  CHECK(sliced->cluster.time_slice == TimeSliceKnobs{2'000'000, 50'000});
  REQUIRE(sliced->variants.size() == 2);
  CHECK(sliced->variants[0].time_slice == TimeSliceKnobs{});
  CHECK(sliced->variants[1].time_slice == TimeSliceKnobs{100'000, 0});
}

TEST_CASE("time_slice: refused where slice mode would not slice, with file, line and field") {
  struct Case {
    const char* rule;
    std::string rest;
    std::string error;
  };
  const Case cases[] = {
      {"cGPU POLICY 2 splits by weights", "cluster: {policy: 2, time_slice: {quantum: 2ms}}\n",
       "s.yaml:7: cluster.time_slice: slice mode shares only cards of native time-slicing and cGPU "
       "POLICY 0, but node pool \"gpu\" runs cGPU with POLICY 2, whose shares are not equal "
       "slices; leave time_slice out (the fluid model) or share these cards by POLICY 0 or 5"},
      {"a slice under 1 us", "cluster: {time_slice: {quantum: 999ns}}\n",
       "s.yaml:7: cluster.time_slice.quantum: a time slice of 999ns is too short; slices are at "
       "least 1us; leave time_slice out for the fluid model, their limit"},
      {"the quantum is required", "cluster: {time_slice: {switch_cost: 10us}}\n",
       "s.yaml:7: cluster.time_slice: missing required key `quantum`"},
      {"off is a variant's word only", "cluster: {time_slice: off}\n",
       "s.yaml:7: cluster.time_slice: expected a mapping, found \"off\""},
      {"a variant that moves the pool to MPS",
       "cluster: {time_slice: {quantum: 2ms}}\n"
       "variants:\n"
       "  - {name: mps, sharing: {gpu: mps:2}}\n",
       "s.yaml:9: variants[0]: slice mode shares only cards of native time-slicing and cGPU "
       "POLICY 0, but node pool \"gpu\" shares its cards by MPS (clients side by side, not in "
       "turns); leave time_slice out (the fluid model) or share these cards by POLICY 0 or 5"},
      {"a variant that turns slices on over POLICY 1",
       "cluster: {policy: 1}\n"
       "variants:\n"
       "  - {name: sliced, time_slice: {quantum: 1ms}}\n",
       "s.yaml:9: variants[0].time_slice: slice mode shares only cards of native time-slicing and "
       "cGPU POLICY 0, but node pool \"gpu\" runs cGPU with POLICY 1, whose shares are not equal "
       "slices; leave time_slice out (the fluid model) or share these cards by POLICY 0 or 5"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    Expected<Scenario> r = ReadScenarioString(WithCluster(c.rest), "s.yaml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString() == c.error);
  }
}

}  // namespace
}  // namespace knobsim
