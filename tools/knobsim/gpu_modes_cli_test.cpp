// End-to-end tests of GPU identity and of the GPU sharing modes knobsim refuses, on small exports
// as `kubectl get -o json` writes them (tools/knobsim/testdata/gpu-modes, made by its
// generate.py with the labels and annotations GPU feature discovery, HAMi and ACK really write):
// a GPU-operator cluster without sharing imports as its real cards and runs; an unknown product
// keeps its labelled memory and says which speed it assumed; the NVIDIA device plugin's
// time-slicing and MPS replicas import as `device_sharing` pools and run; HAMi, MIG (mixed and
// single) and ACK's mps and topology nodes are refused with exit 2 by `import`, `schedule` and
// `check`, naming the file, line, node or pod, what was found and that it is not modelled
// (docs/import.md "GPU sharing modes knobsim refuses").
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

const std::string kDir = "tools/knobsim/testdata/gpu-modes/";

Outcome Import(const std::string& file) {
  return Run("import --kube " + QuotedSourcePath(kDir + file));
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("a GPU-operator cluster without sharing imports as its real cards, and runs") {
  const Outcome o = Import("gfd-plain.json");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(Has(o.out,
            "gpu A100-80G from node label nvidia.com/gpu.product \"NVIDIA-A100-SXM4-80GB\"; "
            "8 cards from capacity"));
  CHECK(Has(o.out, "gpu L4 from node label nvidia.com/gpu.product \"NVIDIA-L4\"; 4 cards"));
  CHECK(Has(o.out, "    gpu: A100-80G\n    gpus_per_node: 8\n"));
  CHECK(Has(o.out, "    gpu: L4\n    gpus_per_node: 4\n"));
  CHECK_FALSE(Has(o.out, "gpu_types:"));  // both cards are the catalog's
  CHECK_FALSE(Has(o.out, "unknown-gpu"));
  CHECK(Has(o.out, "whole_gpus: 4  # nvidia.com/gpu"));
  CHECK_FALSE(Has(o.err, "warning"));
  const std::string scenario = TempPath("gfd-plain.yaml");
  std::ofstream(scenario, std::ios::binary) << o.out;
  const Outcome run = Run("run '" + scenario + "' --duration 1m --quiet --json -");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  int placed = 0;
  for (const auto& p : doc.at("variants").at(0).at("pods"))
    if (p.value("node", "") != "") ++placed;
  CHECK(placed == 5);  // 2 llm-70b on the A100 node, 3 asr on the L4 node
}

TEST_CASE("an unknown product keeps its labelled memory and says loudly which speed it assumed") {
  const Outcome o = Import("gfd-unknown-product.json");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(Has(o.out, "  - {name: nvidia-l40s, memory: 46068Mi, speed: 1.0}  # default speed"));
  CHECK(Has(o.err,
            "warning: node gpu-l40s-0: \"NVIDIA-L40S\" (node label nvidia.com/gpu.product) "
            "is not in the GPU catalog: imported as type nvidia-l40s with 46068 MiB from "
            "node label nvidia.com/gpu.memory and speed 1.0, the A10's"));
}

TEST_CASE("sharing modes knobsim does not model are refused with exit 2, naming what was found") {
  struct Case {
    const char* file;
    const char* where;    // file:line: field
    const char* message;  // the start of the refusal
  };
  const Case cases[] = {
      {"hami.json", "hami.json:9: items[0].metadata.annotations.hami.io/node-handshake",
       "node gpu-a10-0: HAMi (annotation hami.io/node-handshake) is not modelled: HAMi splits "
       "each card into vGPUs"},
      {"mig-mixed.json", "items[0].status.capacity.nvidia.com/mig-1g.10gb",
       "node gpu-a100-mig-0: MIG (capacity nvidia.com/mig-1g.10gb: 56) is not modelled: MIG "
       "partitions each card"},
      {"mig-single.json", "items[0].metadata.labels.nvidia.com/gpu.product",
       "node gpu-a100-mig-1: MIG (nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB-MIG-1g.10gb) is "
       "not modelled"},
      {"ack-mps.json", "items[0].metadata.labels.ack.node.gpu.schedule",
       "node cn-hangzhou.10.0.3.41: ACK MPS sharing (ack.node.gpu.schedule=mps) is not modelled"},
      {"ack-topology.json", "items[0].metadata.labels.ack.node.gpu.schedule",
       "node cn-hangzhou.10.0.3.52: ACK topology-aware GPU scheduling "
       "(ack.node.gpu.schedule=topology) is not modelled"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const Outcome o = Import(c.file);
    CHECK(o.exit_code == 2);
    CHECK(o.out.empty());
    CAPTURE(o.err);
    CHECK(Has(o.err, c.where));
    CHECK(Has(o.err, c.message));
    CHECK(Has(o.err, "GPU sharing modes knobsim refuses"));
  }
}

TEST_CASE(
    "time-slicing and MPS replicas import as device_sharing pools; replicas spread over "
    "the cards as the device plugin hands them out") {
  struct Case {
    const char* file;
    const char* pool_line;
    int pods;
  };
  const Case cases[] = {
      {"time-slicing.json",
       "    device_sharing: {strategy: time-slicing, replicas: 4, "
       "fail_requests_greater_than_one: false, allocation: distributed}\n",
       3},
      {"mps.json",
       "    device_sharing: {strategy: mps, replicas: 3, fail_requests_greater_than_one: true, "
       "allocation: distributed}\n",
       2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const Outcome o = Import(c.file);
    REQUIRE_MESSAGE(o.exit_code == 0, o.err);
    CHECK(Has(o.out, c.pool_line));
    CHECK(Has(o.out, "is the device plugin's default (its config is not in the export)"));
    CHECK_FALSE(Has(o.out, "memory_isolation:"));
    CHECK_FALSE(Has(o.out, "-SHARED\"; "));  // the GPU is the card, not GFD's shared product
    const std::string scenario = TempPath("replicas.yaml");
    std::ofstream(scenario, std::ios::binary) << o.out;
    const Outcome run = Run("run '" + scenario + "' --duration 1m --quiet --json -");
    std::remove(scenario.c_str());
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    std::vector<int> cards;
    for (const auto& p : doc.at("variants").at(0).at("pods")) {
      REQUIRE(p.at("cards").size() == 1);
      cards.push_back(p.at("cards").at(0).get<int>());
    }
    // Distributed: each pod's replica from the card with the fewest taken (lowest index first).
    std::vector<int> expected;
    for (int i = 0; i < c.pods; ++i) expected.push_back(i);
    CHECK(cards == expected);
  }
}

TEST_CASE(
    "a container asking two MPS replicas fails the kubelet's admission, as the plugin "
    "refuses it") {
  const std::string scenario = TempPath("mps-admission.yaml");
  std::ofstream(scenario, std::ios::binary)
      << "name: mps-admission\n"
         "node_pools:\n"
         "  - {name: a10, gpu: A10, gpus_per_node: 2, device_sharing: {strategy: mps, replicas: "
         "2}}\n"
         "workloads:\n"
         "  - {name: one, replicas: 1, whole_gpus: 1}\n"
         "  - {name: two, replicas: 1, whole_gpus: 2}\n"
         "run: {duration: 2m, warmup: 10s}\n";
  const Outcome run = Run("run '" + scenario + "' --quiet --json -");
  const Outcome ts = Run("whatif '" + scenario + "' --knob sharing:a10=timeslicing:2 --json -");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto state_of_two = [](const std::string& out, int variant) {
    const nlohmann::json doc = nlohmann::json::parse(out);
    for (const auto& p : doc.at("variants").at(variant).at("pods"))
      if (p.at("name") == "two-0") return p;
    return nlohmann::json();
  };
  const nlohmann::json two = state_of_two(run.out, 0);
  CHECK(two.value("state", "") == "UnexpectedAdmissionError");
  CHECK(two.value("node", "") == "a10-0");
  CHECK(Has(two.value("message", ""),
            "maximum request size for shared resources is 1; found 2, which is unexpected"));
  // Time-slicing without failRequestsGreaterThanOne admits it: two replicas, one per card.
  REQUIRE_MESSAGE(ts.exit_code == 0, ts.err);
  const nlohmann::json admitted = state_of_two(ts.out, 1);
  CHECK(admitted.value("state", "") == "Running");
  CHECK(admitted.at("cards") == nlohmann::json::array({0, 1}));
}

TEST_CASE("schedule and check refuse the same exports; a HAMi pod is named by its resource") {
  const Outcome schedule = Run("schedule --cluster " + QuotedSourcePath(kDir + "hami.json") +
                               " --pods " + QuotedSourcePath(kDir + "gfd-plain.json"));
  CHECK(schedule.exit_code == 2);
  CHECK(Has(schedule.err, "HAMi (annotation hami.io/node-handshake) is not modelled"));
  const Outcome pods = Run("schedule --cluster " + QuotedSourcePath(kDir + "gfd-plain.json") +
                           " --pods " + QuotedSourcePath(kDir + "hami-pending-pod.json"));
  CHECK(pods.exit_code == 2);
  CAPTURE(pods.err);
  CHECK(Has(pods.err, "items[0].spec.containers[0].resources.limits.nvidia.com/gpucores"));
  CHECK(Has(pods.err,
            "pod ai/ocr-next-6c9d8f7b54-x7k2p: HAMi (resource nvidia.com/gpucores) is not "
            "modelled"));
  const Outcome check = Run("check --kube " + QuotedSourcePath(kDir + "mig-mixed.json"));
  CHECK(check.exit_code == 2);
  CHECK(Has(check.err, "MIG (capacity nvidia.com/mig-1g.10gb: 56) is not modelled"));
}

}  // namespace
}  // namespace knobsim::e2e
