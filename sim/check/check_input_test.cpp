#include "sim/check/check_input.h"

#include <doctest/doctest.h>

#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

const char* kScenario = R"(
name: t
node_pools:
  - {name: a10, nodes: [g1], gpu: A10, cpu: 8, memory: 32Gi, memory_isolation: soft, cgpu_version: "1.5.2"}
  - {name: cpu, nodes: [c1], cpu: 8, memory: 32Gi}
workloads:
  - name: ocr
    namespace: ai
    replicas: 2
    gpu_mem: 4
    gpu_memory: {weights: 8Gi, activation: 256Mi}
    concurrency: 3
    probe: tcp
    images: ["reg.example.com/ai/ocr:v1"]
    pods: [{name: ocr-a, node: g1}]
  - name: db
    namespace: ai
    kind: StatefulSet
    replicas: 2
    labels: {app: db}
    pods: [{name: db-0, node: c1}, {name: db-1, node: c1}]
kube:
  stateful_sets:
    - {namespace: ai, name: db, replicas: 2, volume_claim_templates: [data, logs]}
)";

}  // namespace

TEST_CASE(
    "Check input from a scenario: pods named, bound and modelled as the simulator allocates") {
  Expected<Scenario> s = ReadScenarioString(kScenario, "t.yaml");
  REQUIRE_MESSAGE(s.ok(), s.error().ToString());
  const CheckInput in = CheckInputFromScenario(*s, {});
  REQUIRE(in.pods.size() == 4);
  const CheckPod& a = in.pods[0];
  CHECK(a.spec.name == "ocr-a");
  CHECK(a.spec.node_name == "g1");
  CHECK(in.pods[1].spec.name == "ocr-1");
  CHECK(in.pods[1].spec.node_name.empty());
  CHECK(a.probe == ReadinessKind::kTcp);
  REQUIRE(a.spec.containers.size() == 1);
  CHECK(a.spec.containers[0].image == "reg.example.com/ai/ocr:v1");
  CHECK_FALSE(a.spec.containers[0].image_digest);
  // A10: 400 MiB context + 8192 weights + 256 × 3 in flight = 9360; quota floor(23028 × 4 / 22).
  REQUIRE(a.memory.known);
  CHECK(a.memory.peak_mib == 9360);
  CHECK(a.memory.rest_mib == 8592);
  CHECK(a.memory.quota_mib == 4186);
  CHECK(in.pods[2].spec.pvc_claims == std::vector<std::string>{"data-db-0", "logs-db-0"});
  CHECK(in.pods[3].spec.pvc_claims == std::vector<std::string>{"data-db-1", "logs-db-1"});
  CHECK(in.pods[2].workload_key == "StatefulSet/ai/db");
  CHECK(in.pods[2].workload_replicas == 2);
  REQUIRE(in.nodes.size() == 2);
  CHECK(in.nodes[0].cgpu_module);
  CHECK(in.nodes[0].isolation == MemoryIsolation::kSoft);
  CHECK(in.nodes[0].cgpu_version == "1.5.2");
  CHECK_FALSE(in.nodes[1].cgpu_module);
}

TEST_CASE("Check input: a listed cGPU version turns a hard pool's nodes soft") {
  std::string text = kScenario;
  text.replace(text.find("memory_isolation: soft, "), 24, "");
  Expected<Scenario> s = ReadScenarioString(text, "t.yaml");
  REQUIRE_MESSAGE(s.ok(), s.error().ToString());
  CHECK(CheckInputFromScenario(*s, {}).nodes[0].isolation == MemoryIsolation::kHard);
  CheckInputOptions o;
  o.cgpu_no_isolation_versions = {"1.5.2"};
  const CheckInput in = CheckInputFromScenario(*s, o);
  CHECK(in.nodes[0].isolation == MemoryIsolation::kSoft);
  CHECK(in.nodes[0].isolation_why == "cGPU 1.5.2 is a release without memory isolation");
}

TEST_CASE("UnitsForPeak is the smallest quota whose visible MiB holds the peak") {
  CHECK(UnitsForPeak(9812, 23028, 22) == 10);  // 9 units = 9420 MiB, 10 = 10467
  CHECK(UnitsForPeak(4186, 23028, 22) == 4);
  CHECK(UnitsForPeak(30000, 23028, 22) == 23);  // not even the whole card
}

}  // namespace knobsim
