// libFuzzer harness for ApplyOverlay (sim/import/overlay.h): the `--overlay` file of
// `knobsim import`, merged into one fixed imported scenario (what WriteScenarioYaml writes for
// two manifests, as in overlay_test.cpp). overlay.h promises that the merged text is one the
// scenario reader accepted: it must read again.
#include "sim/import/overlay.h"
#include "sim/io/scenario_reader.h"
#include "tools/fuzz/fuzz_input.h"

namespace {

constexpr const char* kImported = R"(name: imported
cluster: {policy: 5, switch_overhead: 0}
node_pools:
  - {name: gpu, count: 2, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi}
workloads:
  - name: ocr
    namespace: vision
    replicas: 2
    gpu_mem: 5
    probe: model
  - name: asr
    namespace: speech
    replicas: 1
    gpu_mem: 4
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto merged = knobsim::ApplyOverlay(kImported, knobsim::fuzz::Text(data, size), "overlay.yaml");
  if (!merged.ok()) {
    (void)merged.error().ToString();
    return 0;
  }
  auto again = knobsim::ReadScenarioString(*merged, "merged.yaml");
  if (!again.ok()) knobsim::fuzz::Broken("merged scenario does not read: " + again.error().ToString());
  return 0;
}
