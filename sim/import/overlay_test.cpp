#include "sim/import/overlay.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

// What WriteScenarioYaml writes for two manifests without pods, trimmed to the keys that matter.
const char* kImported = R"(name: imported
cluster: {policy: 5, switch_overhead: 0}
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

Scenario Read(const std::string& text) {
  Expected<Scenario> s = ReadScenarioString(text, "merged.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  return *s;
}

const Workload& Find(const Scenario& s, const std::string& name) {
  for (const Workload& w : s.workloads)
    if (w.name == name) return w;
  FAIL("no workload " << name);
  return s.workloads.front();
}

TEST_CASE("overlay: pools, run and cluster keys join the import; workloads gain keys by name") {
  const std::string overlay = R"(name: gate
cluster: {switch_overhead: 0.05}
node_pools:
  - {name: gpu, count: 2, gpu: A10, gpus_per_node: 2, cpu: 32, memory: 128Gi}
workloads:
  - {name: "*", slo: {latency: 250ms, percentile: 99}}
  - {name: ocr, namespace: vision, traffic: {rate: 20/s}, work: {mean: 20ms}}
run: {duration: 10m, warmup: 1m, seed: 7, replications: 3}
)";
  Expected<std::string> merged = ApplyOverlay(kImported, overlay, "overlay.yaml");
  REQUIRE_MESSAGE(merged.ok(), (merged.ok() ? "" : merged.error().ToString()));
  const Scenario s = Read(*merged);
  CHECK(s.name == "gate");
  CHECK(static_cast<int>(s.cluster.policy) == 5);             // kept from the import
  CHECK(s.cluster.switch_overhead == doctest::Approx(0.05));  // replaced by the overlay
  REQUIRE(s.node_pools.size() == 1);
  CHECK(s.node_pools[0].count == 2);
  CHECK(s.run.replications == 3);
  CHECK(s.run.seed == 7);
  const Workload& ocr = Find(s, "ocr");
  CHECK(ocr.replicas == 2);  // from the manifest
  CHECK(ocr.gpu_mem == 5);
  CHECK(ocr.slo.latency == 250 * kNanosPerSecond / 1000);
  CHECK(ocr.work.mean_s == doctest::Approx(0.020));
  const Workload& asr = Find(s, "asr");
  CHECK(asr.slo.latency == 250 * kNanosPerSecond / 1000);  // `*` reaches every workload
  CHECK(asr.work.mean_s == doctest::Approx(0.010));        // the scenario default: no overlay entry
}

TEST_CASE("overlay: a pool named like an imported one gains keys; later entries win") {
  const std::string imported =
      std::string(kImported) +
      "node_pools:\n  - {name: gpu, count: 3, gpu: A10, cpu: 8, memory: 32Gi}\n";
  const std::string overlay = R"(node_pools:
  - {name: gpu, labels: {ack.node.gpu.placement: binpack}}
workloads:
  - {name: "*", replicas: 4}
  - {name: asr, replicas: 0}
)";
  Expected<std::string> merged = ApplyOverlay(imported, overlay, "overlay.yaml");
  REQUIRE_MESSAGE(merged.ok(), (merged.ok() ? "" : merged.error().ToString()));
  const Scenario s = Read(*merged);
  REQUIRE(s.node_pools.size() == 1);
  CHECK(s.node_pools[0].count == 3);
  CHECK(s.node_pools[0].placement == "binpack");
  CHECK(Find(s, "ocr").replicas == 4);
  CHECK(Find(s, "asr").replicas == 0);
}

TEST_CASE("overlay: mistakes name the overlay's file, line and field") {
  auto error = [](const std::string& overlay) {
    Expected<std::string> merged = ApplyOverlay(kImported, overlay, "overlay.yaml");
    REQUIRE_FALSE(merged.ok());
    return merged.error().ToString();
  };
  CHECK(error("name: g\nnode_pool: []\n") ==
        "overlay.yaml:2: node_pool: unknown overlay key; an overlay holds name, description, "
        "gpu_types, cluster, node_pools, workloads, run, variants");
  CHECK(error("workloads:\n  - {name: orc, traffic: {rate: 1/s}}\n") ==
        "overlay.yaml:2: workloads[0].name: matches no imported workload; imported: vision/ocr, "
        "speech/asr");
  CHECK(error("workloads:\n  - {name: ocr, namespace: speech}\n")
            .find("matches no imported workload in namespace speech") != std::string::npos);
  CHECK(error("run: {seed: 1}\nrun: {seed: 2}\n") == "overlay.yaml:2: .run: duplicate key");
  CHECK(error("workloads:\n  - traffic: {rate: 1/s}\n")
            .starts_with("overlay.yaml:2: workloads[0]: missing required key `name`"));
  CHECK(error("run: {seed: 1}\n---\nname: x\n").find("a second YAML document") !=
        std::string::npos);
  CHECK(error("run: [").starts_with("overlay.yaml:1: invalid YAML"));
  // Values are checked by the scenario reader, once, on the merged document.
  CHECK(error("workloads:\n  - {name: ocr, traffic: {rate: fast}}\n")
            .starts_with("overlay.yaml:2: workloads[0].traffic.rate:"));
  CHECK(error("run: {seed: !!binary aGk=}\n")
            .starts_with("overlay.yaml:1: the YAML tag `!!binary` is not read by knobsim"));
}

TEST_CASE("overlay: a value the scenario reader refuses is reported at the overlay line that set it") {
  auto error = [](const std::string& overlay) {
    Expected<std::string> merged = ApplyOverlay(kImported, overlay, "overlay.yaml");
    REQUIRE_FALSE(merged.ok());
    return merged.error().ToString();
  };
  // A key laid over every workload (`*`): the merged path is the second workload's, the line
  // the overlay's.
  CHECK(error("name: g\nworkloads:\n  - name: '*'\n    traffic:\n      rate: fast\n")
            .starts_with("overlay.yaml:5: workloads[0].traffic.rate:"));
  // A new pool, down into the copied entry.
  CHECK(error("node_pools:\n  - name: extra\n    count: many\n")
            .starts_with("overlay.yaml:3: node_pools[0].count:"));
  // cluster keys.
  CHECK(error("cluster:\n  policy: 9\n").starts_with("overlay.yaml:2: cluster.policy:"));
}

TEST_CASE("overlay: a stray comma where a YAML document should start is an error, not an endless read") {
  // yaml-cpp 0.7 answers an empty document at a `,` outside [...] or {...} without moving on, so
  // YAML::LoadAll never returned. The last input is tools/fuzz/overlay_fuzz.cpp's finding.
  struct Case {
    std::string overlay;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {",", "overlay.yaml:1: invalid YAML: a document cannot start here"},
           {"workloads:\n  - {name: ocr}\n,\n", "overlay.yaml:3: invalid YAML: end of map not found"},
           {", count: 2, gp+: A10, gpus_per_node: 2, cpu: 33, memory: 128Gi}\nworkloads:\n"
            "  - {name: \"*\", slo: {latency: 2\x06" "50}s, percentile: 99}}\n"
            "  - {n\x9f\x92\x9a\xbc ocrspace: vi3}\n",
            "overlay.yaml:1: invalid YAML: a document cannot start here"}}) {
    CAPTURE(c.overlay);
    Expected<std::string> merged = ApplyOverlay(kImported, c.overlay, "overlay.yaml");
    REQUIRE_FALSE(merged.ok());
    CHECK_MESSAGE(merged.error().ToString().starts_with(c.error), merged.error().ToString());
  }
}

TEST_CASE("overlay: a key that is a mapping or a list is an error naming its line, not a crash") {
  // tools/fuzz/overlay_fuzz.cpp: `{latency: /s}` as a key inside a workload entry threw yaml-cpp's
  // conversion error out of ApplyOverlay.
  for (const char* overlay : {"workloads:\n  - {name: \"*\",  {latency: /s}, work: {mean: 20ms}}\n",
                              "run: {[seed]: 1}\n", "? [a, b]\n: 1\n"}) {
    CAPTURE(overlay);
    Expected<std::string> merged = ApplyOverlay(kImported, overlay, "overlay.yaml");
    REQUIRE_FALSE(merged.ok());
    CHECK(merged.error().message == "a key must be a plain name, not a mapping or a list");
    CHECK(merged.error().line > 0);
  }
}

TEST_CASE("overlay: an empty overlay leaves the imported scenario as it is") {
  Expected<std::string> merged = ApplyOverlay(kImported, "", "overlay.yaml");
  REQUIRE(merged.ok());
  const Scenario s = Read(*merged);
  CHECK(s.name == "imported");
  CHECK(s.workloads.size() == 2);
}


TEST_CASE("overlay: an error at a label key holding dots names the overlay line, not a crash") {
  // Found by the overlay fuzzer: the merged path ends in a label key with dots, which the line
  // lookup once split at every dot and then threw from yaml-cpp on the missing key.
  const std::string overlay =
      "node_pools:\n  - {name: gpu, labels: {ack.node.gpu.placement: bi\x94pack}}\n"
      "workloads:\n  - {name: \"*\", replicas: 4}\n  - {name: asr, replicas: 0}\n";
  Expected<std::string> merged = ApplyOverlay(kImported, overlay, "overlay.yaml");
  REQUIRE_FALSE(merged.ok());
  const std::string error = merged.error().ToString();
  CHECK(error.rfind("overlay.yaml:2: node_pools[0].labels.ack.node.gpu.placement: ", 0) == 0);
  CHECK(error.find("not a valid placement") != std::string::npos);
}

}  // namespace
}  // namespace knobsim
