// libFuzzer harness for ReadKnobsString (sim/whatif/knobs.h): the `--knobs` file of
// `knobsim whatif`. Knobs are checked against a scenario, so every input is read against one
// fixed scenario (the one of knobs_test.cpp: two A10 pools, a share pool, a CPU pool and
// workloads in two namespaces), so that valid knob texts reach the variant-building code.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/io/scenario_reader.h"
#include "sim/whatif/knobs.h"

namespace {

constexpr const char* kScenario = R"(
name: knobs-fuzz
node_pools:
  - {name: gpu-a10, count: 2, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi,
     labels: {ack.node.gpu.schedule: cgpu}}
  - {name: gpu-share, count: 1, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi,
     labels: {ack.node.gpu.schedule: share, tier: spare}}
  - {name: cpu, count: 1, cpu: 16, memory: 64Gi}
workloads:
  - name: asr
    namespace: prod
    gpu_mem: 5
    gpu_memory: {weights: 8Gi, activation: 256Mi}
    concurrency: 2
    batching: {max_batch: 2, max_wait: 5ms}
    traffic: {rate: 1/s}
  - name: llm
    namespace: prod
    gpu_mem: 4
    gpu_count: 2
    gpu_memory: {weights: 20Gi, activation: 512Mi}
    node_selector: {ack.node.gpu.schedule: cgpu}
    traffic: {rate: 1/s}
  - name: huge
    namespace: batch
    gpu_mem: 2
    gpu_memory: {weights: 40Gi}
    traffic: {rate: 1/s}
  - name: web
    namespace: batch
    cpu: 1
  - name: open
    namespace: batch
    gpu_mem: 1
    concurrency: unlimited
    traffic: {rate: 1/s}
)";

const knobsim::Scenario& FixedScenario() {
  static const knobsim::Scenario* s = [] {
    knobsim::Expected<knobsim::Scenario> r = knobsim::ReadScenarioString(kScenario, "fuzz.yaml");
    if (!r.ok()) {
      std::fprintf(stderr, "knobs_fuzz: fixed scenario: %s\n", r.error().ToString().c_str());
      std::abort();
    }
    return new knobsim::Scenario(*r);
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto r = knobsim::ReadKnobsString(text, "knobs.yaml", FixedScenario());
  if (!r.ok()) (void)r.error().ToString();
  return 0;
}
