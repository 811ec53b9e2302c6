// The workload keys of a scenario that shape how its pods serve (scenario_workloads.cpp):
// closed_loop and what it excludes.
#include <doctest/doctest.h>

#include <string>

#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

const std::string kPool =
    "name: s\nnode_pools:\n  - {name: gpu, count: 1, gpu: A10, gpus_per_node: 1}\n"
    "workloads:\n  - name: train\n";

std::string ErrorOf(const std::string& workload_keys) {
  const Expected<Scenario> r = ReadScenarioString(kPool + workload_keys, "s.yaml");
  return r.ok() ? "" : r.error().ToString();
}

TEST_CASE("closed_loop reads in_flight, think and steps; defaults one loop, no think, endless") {
  Expected<Scenario> r = ReadScenarioString(
      kPool + "    gpu_mem: 4\n    closed_loop: {in_flight: 2, think: 30ms, steps: 500}\n",
      "s.yaml");
  REQUIRE(r.ok());
  const ClosedLoop& loop = *r->workloads[0].closed_loop;
  CHECK(loop.in_flight == 2);
  CHECK(loop.think == 30 * kNanosPerMilli);
  CHECK(loop.steps == 500);
  r = ReadScenarioString(kPool + "    gpu_mem: 4\n    closed_loop: {}\n", "s.yaml");
  REQUIRE(r.ok());
  CHECK(r->workloads[0].closed_loop->in_flight == 1);
  CHECK(r->workloads[0].closed_loop->think == 0);
  CHECK(r->workloads[0].closed_loop->steps == 0);
  r = ReadScenarioString(kPool + "    gpu_mem: 4\n", "s.yaml");
  REQUIRE(r.ok());
  CHECK_FALSE(r->workloads[0].closed_loop);
}

// Each is refused with what to do instead: the combinations a closed loop does not model.
TEST_CASE("closed_loop refuses traffic, no GPU, batching, an HPA and bad values") {
  struct Case {
    const char* keys;
    const char* error;
  };
  const Case cases[] = {
      {"    gpu_mem: 4\n    traffic: {rate: 1/s}\n    closed_loop: {}\n",
       "s.yaml:7: workloads[0].traffic: a closed_loop job sends its own requests: it has no "
       "traffic; drop `traffic`, or drop `closed_loop` to serve traffic"},
      {"    closed_loop: {}\n",
       "s.yaml:6: workloads[0].closed_loop: a closed_loop job needs a GPU (gpu_mem, whole_gpus, "
       "hami or dra); its iterations are GPU work; model its CPU or data phase with `think`"},
      {"    gpu_mem: 4\n    batching: {max_batch: 4}\n    closed_loop: {}\n",
       "s.yaml:8: workloads[0].closed_loop: a closed_loop job with batching is not modelled; fold "
       "the batch into `work` and drop `batching`"},
      {"    gpu_mem: 4\n    hpa: {min_replicas: 1, max_replicas: 3}\n    closed_loop: {}\n",
       "s.yaml:8: workloads[0].closed_loop: a closed_loop job scaled by an HPA or a CronHPA is not "
       "modelled; give it a fixed `replicas`"},
      {"    gpu_mem: 4\n    closed_loop: {in_flight: 0}\n",
       "s.yaml:7: workloads[0].closed_loop.in_flight: 0 is not in 1..1024"},
      {"    gpu_mem: 4\n    closed_loop: {steps: 0}\n",
       "s.yaml:7: workloads[0].closed_loop.steps: 0 is less than 1"},
      {"    gpu_mem: 4\n    closed_loop: {think: 5}\n",
       "s.yaml:7: workloads[0].closed_loop.think: \"5\" has no unit; add a unit, e.g. 5s"},
      {"    gpu_mem: 4\n    closed_loop: {inflight: 2}\n",
       "s.yaml:7: workloads[0].closed_loop.inflight: unknown key; did you mean `in_flight`?"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.keys);
    CHECK(ErrorOf(c.keys) == c.error);
  }
}

TEST_CASE("a variant cannot scale a closed_loop job's traffic: it has none") {
  CHECK(ErrorOf("    gpu_mem: 4\n    closed_loop: {}\nvariants:\n  - {name: more, "
                "traffic_scale: {train: 2}}\n") ==
        "s.yaml:9: variants[0].traffic_scale.train: workload \"train\" is a closed_loop job: it "
        "has no traffic; change its replicas, or its closed_loop in the scenario");
}

}  // namespace
}  // namespace knobsim
