// End-to-end tests of GPU identity and of the GPU sharing modes knobsim refuses, on small exports
// as `kubectl get -o json` writes them (tools/knobsim/testdata/gpu-modes, made by its
// generate.py with the labels and annotations GPU feature discovery, HAMi and ACK really write):
// a GPU-operator cluster without sharing imports as its real cards and runs; an unknown product
// keeps its labelled memory and says which speed it assumed; the NVIDIA device plugin's
// time-slicing and MPS replicas import as `device_sharing` pools and run; MIG nodes (mixed and
// single) import as `mig` pools whose pods hold instances of their profile, and a layout change
// is one what-if; HAMi, MIG cards not cut alike, and ACK's mps and topology nodes are refused
// with exit 2 by `import`, `schedule` and `check`, naming the file, line, node or pod, what was
// found and that it is not modelled (docs/import.md "GPU sharing modes knobsim refuses").
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
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
      {"hami-uuid.json", "items[1].spec.template.metadata.annotations.nvidia.com/use-gpuuuid",
       "pod ai/pinned: HAMi (annotation nvidia.com/use-gpuuuid) is not modelled"},
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
      // renameByDefault: the replicas are nvidia.com/gpu.shared, which the pods ask.
      {"time-slicing-renamed.json",
       "    device_sharing: {strategy: time-slicing, replicas: 4, "
       "fail_requests_greater_than_one: false, allocation: distributed, rename_by_default: "
       "true}\n",
       2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const Outcome o = Import(c.file);
    REQUIRE_MESSAGE(o.exit_code == 0, o.err);
    CHECK(Has(o.out, c.pool_line));
    CHECK(Has(o.out,
              "are the device plugin's defaults (no config of it in the export applies to "
              "this node)"));
    CHECK_FALSE(Has(o.out, "memory_isolation:"));
    CHECK_FALSE(Has(o.out, "-SHARED\"; "));  // the GPU is the card, not GFD's shared product
    if (c.pods == 2 && Has(c.file, "renamed"))
      CHECK(Has(o.out, "    gpu_resource: nvidia.com/gpu.shared  # renameByDefault replicas\n"));
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

TEST_CASE(
    "schedule: a pod asking two MPS replicas is bound, then refused by the kubelet, and holds "
    "nothing") {
  const std::string pods = TempPath("mps-pending.yaml");
  std::ofstream(pods, std::ios::binary)
      << "apiVersion: v1\nkind: List\nitems:\n"
         "- kind: Pod\n  metadata: {name: two, namespace: serving}\n  spec:\n    containers:\n"
         "    - name: c\n      resources: {limits: {nvidia.com/gpu: \"2\"}}\n"
         "- kind: Pod\n  metadata: {name: one, namespace: serving}\n  spec:\n    containers:\n"
         "    - name: c\n      resources: {limits: {nvidia.com/gpu: \"1\"}}\n";
  const std::string cluster = QuotedSourcePath(kDir + "mps.json");
  const Outcome text = Run("schedule --cluster " + cluster + " --pods '" + pods + "'");
  const Outcome json = Run("schedule --cluster " + cluster + " --pods '" + pods + "' --json -");
  std::remove(pods.c_str());
  CAPTURE(text.out);
  CHECK(text.exit_code == 1);
  CHECK(Has(text.out, "serving/two -> gpu-a10-mps-0"));
  CHECK(Has(text.out,
            "then UnexpectedAdmissionError: Allocate failed due to rpc error: code = Unknown "
            "desc = invalid allocation request for \"nvidia.com/gpu\": invalid request: maximum "
            "request size for shared resources is 1; found 2, which is unexpected"));
  CHECK(Has(text.out,
            "1 of 2 pod(s) placed, 0 unschedulable, 1 refused by the kubelet's device "
            "admission"));
  REQUIRE(json.exit_code == 1);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const auto& two = doc.at("pods").at(0);
  CHECK(two.at("name") == "two");
  CHECK(Has(two.at("admission_error").get<std::string>(), "maximum request size"));
  // The refused pod holds no replica: the next one takes the least-used card's.
  const auto& one = doc.at("pods").at(1);
  CHECK(one.at("admission_error").is_null());
  CHECK(one.at("node") == "gpu-a10-mps-0");
}

TEST_CASE(
    "the device plugin's config in the export (the GPU operator's ConfigMap and ClusterPolicy) "
    "says what the labels cannot: this MPS config admits a pod asking two replicas") {
  const Outcome o = Import("mps-config.json");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(Has(o.out,
            "    device_sharing: {strategy: mps, replicas: 3, fail_requests_greater_than_one: "
            "false, allocation: distributed}\n"));
  CHECK(Has(o.out,
            "fail_requests_greater_than_one false and allocation distributed from the node's "
            "config \"a10-mps\" of ConfigMap gpu-operator/device-plugin-config"));
  CHECK_FALSE(Has(o.err, "warning"));
  CHECK_FALSE(Has(o.out + o.err, "s3://"));  // another ConfigMap's data is never shown
  // The pod the plugin's default config refuses (schedule on mps.json above) is admitted here.
  const std::string pods = TempPath("mps-config-pods.yaml");
  std::ofstream(pods, std::ios::binary)
      << "kind: Pod\nmetadata: {name: two, namespace: serving}\nspec:\n  containers:\n"
         "  - name: c\n    resources: {limits: {nvidia.com/gpu: \"2\"}}\n";
  const Outcome placed = Run("schedule --cluster " + QuotedSourcePath(kDir + "mps-config.json") +
                        " --pods '" + pods + "' --json -");
  std::remove(pods.c_str());
  REQUIRE_MESSAGE(placed.exit_code == 0, (placed.out + placed.err));
  const nlohmann::json two = nlohmann::json::parse(placed.out).at("pods").at(0);
  CHECK(two.at("node") == "gpu-a10-mps-0");
  CHECK(two.at("admission_error").is_null());
}

TEST_CASE("HAMi's device config sets the pool's gpuCorePolicy, as its pods' environment shows") {
  const Outcome o = Import("hami-config.json");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(Has(o.out, "    hami: {split_count: 10, core_policy: force}\n"));
  CHECK(Has(o.out,
            "gpuCorePolicy force from HAMi's device config in ConfigMap "
            "kube-system/hami-scheduler-device"));
  CHECK_FALSE(Has(o.err, "run with gpuCorePolicy"));  // the pods agree with the config
}

TEST_CASE("schedule and check read HAMi as import does and refuse the same exports") {
  // A HAMi pod on the A10 node: its extender's card (spread: the emptiest, cards 2 and 3 are;
  // the highest index first) beside the two pods there; on a cluster without HAMi: unregistered.
  const Outcome schedule =
      Run("schedule --cluster " + QuotedSourcePath(kDir + "hami.json") + " --pods " +
          QuotedSourcePath(kDir + "hami-pending-pod.json") + " --json -");
  REQUIRE_MESSAGE(schedule.exit_code == 0, schedule.err);
  const nlohmann::json placed = nlohmann::json::parse(schedule.out);
  CAPTURE(schedule.out);
  CHECK(placed.at("pods").at(0).at("node") == "gpu-a10-0");
  CHECK(placed.at("pods").at(0).at("cards") == nlohmann::json::array({3}));
  const Outcome none = Run("schedule --cluster " + QuotedSourcePath(kDir + "gfd-plain.json") +
                           " --pods " + QuotedSourcePath(kDir + "hami-pending-pod.json"));
  CHECK(none.exit_code == 1);
  CHECK(Has(none.out, "2 node unregistered"));
  CHECK_FALSE(Has(none.err, "hami-scheduler"));  // kube-scheduler with HAMi's extender: modelled
  const Outcome uuid = Run("schedule --cluster " + QuotedSourcePath(kDir + "hami-uuid.json") +
                           " --pods " + QuotedSourcePath(kDir + "hami-pending-pod.json"));
  CHECK(uuid.exit_code == 2);
  CHECK(Has(uuid.err, "HAMi (annotation nvidia.com/use-gpuuuid) is not modelled"));
  const Outcome check = Run("check --kube " + QuotedSourcePath(kDir + "mig-uneven.json"));
  CHECK(check.exit_code == 2);
  CHECK(Has(check.err, "is not the same layout on every card"));
}

TEST_CASE(
    "MIG nodes import as mig pools: mixed from the capacity's profiles over the cards, single "
    "from the product; pods hold instances of their profile and a layout change is a what-if") {
  const Outcome mixed = Import("mig-mixed.json");
  REQUIRE_MESSAGE(mixed.exit_code == 0, mixed.err);
  CAPTURE(mixed.out);
  CHECK(Has(mixed.out, "    gpu: A100-80G\n    gpus_per_node: 8\n"));
  CHECK(Has(mixed.out, "    mig: {strategy: mixed, layout: 3g.40gb+2g.20gb+1g.10gb*2}\n"));
  CHECK(Has(mixed.out, "mig_profile: 1g.10gb  # nvidia.com/mig-1g.10gb"));
  CHECK(Has(mixed.out, "mig_profile: 3g.40gb  # nvidia.com/mig-3g.40gb"));
  CHECK_FALSE(Has(mixed.out, "memory_isolation:"));
  CHECK_FALSE(Has(mixed.err, "warning"));
  const Outcome single = Import("mig-single.json");
  REQUIRE_MESSAGE(single.exit_code == 0, single.err);
  CHECK(Has(single.out, "    mig: {strategy: single, layout: 1g.10gb*7}\n"));
  CHECK(Has(single.out, "an assumption: the labels count MIG devices, not cards"));
  CHECK(Has(single.out, "whole_gpus: 1  # nvidia.com/gpu"));

  const std::string scenario = TempPath("mig.yaml");
  std::ofstream(scenario, std::ios::binary) << mixed.out;
  const Outcome run = Run("run '" + scenario + "' --duration 1m --quiet --json -");
  const Outcome relayout =
      Run("whatif '" + scenario + "' --knob sharing:gpu-a100-80g=mig:1g.10gb*7 --json -");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  std::map<std::string, std::vector<int>> cards;
  for (const auto& p : doc.at("variants").at(0).at("pods"))
    cards[p.at("name").get<std::string>()] = p.at("cards").get<std::vector<int>>();
  // Each card's slots: 3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb; the pods keep the first free slot
  // of their profile.
  REQUIRE(cards.size() == 3);
  for (const auto& [name, slots] : cards) {
    CAPTURE(name);
    REQUIRE(slots.size() == 1);
    if (name.rfind("llm", 0) == 0) CHECK(slots[0] % 4 == 0);
    if (name.rfind("bert", 0) == 0) CHECK(slots[0] % 4 >= 2);
  }
  // Seven 1g.10gb per card under the single strategy: the llm pod asks nvidia.com/gpu and gets
  // a 1g.10gb instance, as every other pod.
  REQUIRE_MESSAGE(relayout.exit_code == 0, relayout.err);
  const nlohmann::json after = nlohmann::json::parse(relayout.out);
  int placed = 0;
  for (const auto& p : after.at("variants").at(1).at("pods"))
    if (p.value("node", "") != "") ++placed;
  CHECK(placed == 3);
  const Outcome uneven = Import("mig-uneven.json");
  CHECK(uneven.exit_code == 2);
  CAPTURE(uneven.err);
  CHECK(Has(uneven.err, "items[0].status.capacity.nvidia.com/mig-1g.10gb"));
  CHECK(Has(uneven.err,
            "MIG on NVIDIA-A100-SXM4-80GB: 20 devices of 1g.10gb over 8 cards "
            "(nvidia.com/gpu.count) is not the same layout on every card"));
}

TEST_CASE(
    "HAMi vGPUs in a scenario: the extender spreads pods over the cards, HAMi-core holds memory "
    "and caps compute, and a what-if moves the pool to cGPU or time-slicing") {
  const std::string scenario = SourcePath("scenarios/l4-hami.yaml");
  const Outcome run = Run("run '" + scenario + "' --all --duration 3m --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  const nlohmann::json& base = doc.at("variants").at(0);
  // Spread (HAMi's default GPU policy) over four cards: two embedders and one OCR pod on each.
  std::map<int, std::vector<std::string>> on_card;
  for (const auto& p : base.at("pods")) {
    const std::vector<int> cards = p.at("cards").get<std::vector<int>>();
    REQUIRE(cards.size() == 1);
    on_card[cards[0]].push_back(p.at("name").get<std::string>().substr(0, 3));
  }
  REQUIRE(on_card.size() == 4);
  for (auto& [card, pods] : on_card) {
    CAPTURE(card);
    std::sort(pods.begin(), pods.end());
    CHECK(pods == std::vector<std::string>{"emb", "emb", "ocr"});
  }
  // HAMi-core's quota on each card: 2 × 3000 + 8000 MiB; its caps waste a share of the cards
  // that time-slicing (the third variant) does not.
  for (const auto& card : base.at("cards")) CHECK(card.at("memory_quota_mib") == 14000);
  const auto waste = [&](int v) {
    double sum = 0;
    for (const auto& card : doc.at("variants").at(v).at("cards"))
      sum += card.at("waste").get<double>();
    return sum;
  };
  CHECK(waste(0) > 0.1);
  CHECK(waste(2) < 1e-9);

  // gpu_core on a HAMi workload is its gpucores: the embedders' cap raised from 20 to 40.
  const Outcome cores =
      Run("whatif '" + scenario + "' --knob gpu_core:embed=40 --duration 3m --json -");
  REQUIRE_MESSAGE(cores.exit_code == 0, cores.err);
  const nlohmann::json raised = nlohmann::json::parse(cores.out);
  const auto p99 = [](const nlohmann::json& variant) {
    return variant.at("workloads").at(0).at("latency_ms").at("p99").get<double>();
  };
  CHECK(p99(raised.at("variants").at(1)) < p99(raised.at("variants").at(0)));

  // The other way: a cGPU pool moved to HAMi, each gpu-mem quota a vGPU of as many GiB.
  const Outcome whatif = Run("whatif " + QuotedSourcePath("scenarios/quickstart.yaml") +
                             " --knob sharing:*=hami --json -");
  REQUIRE_MESSAGE(whatif.exit_code == 0, whatif.err);
  const nlohmann::json moved = nlohmann::json::parse(whatif.out);
  int placed = 0;
  for (const auto& p : moved.at("variants").at(1).at("pods"))
    if (p.value("node", "") != "") ++placed;
  CHECK(placed > 0);
}

TEST_CASE(
    "HAMi nodes import as hami pools from their registration, pods as hami workloads on the "
    "cards their allocation names; no card UUID is written; the scenario runs") {
  struct Case {
    const char* file;
    std::vector<std::string> pool;       // lines of the pool
    std::vector<std::string> workloads;  // lines of the workloads
  };
  const Case cases[] = {
      {"hami.json",
       {"    gpu: A10\n", "    hami: {split_count: 10}\n"},
       {"hami: {gpus: 1, gpumem: 6000, gpucores: 30}", "cards: [0]}", "cards: [1]}"}},
      {"hami-v2.json",
       {"    gpu: L4\n", "    hami: {split_count: 10}\n"},
       {"hami: {gpus: 1, gpumem_percentage: 50, gpucores: 50, gpu_policy: binpack}",
        "hami: {gpus: 1, gpumem: 3000, gpucores: 20}", "cards: [3]}", "cards: [2]}"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const Outcome o = Import(c.file);
    REQUIRE_MESSAGE(o.exit_code == 0, o.err);
    CAPTURE(o.out);
    for (const std::string& line : c.pool) CHECK(Has(o.out, line));
    for (const std::string& line : c.workloads) CHECK(Has(o.out, line));
    CHECK_FALSE(Has(o.out, "GPU-"));
    CHECK_FALSE(Has(o.err, "GPU-"));
    CHECK_FALSE(Has(o.out, "memory_isolation:"));
    const std::string scenario = TempPath("hami.yaml");
    std::ofstream(scenario, std::ios::binary) << o.out;
    const Outcome run = Run("run '" + scenario + "' --duration 1m --quiet --json -");
    std::remove(scenario.c_str());
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    for (const auto& p : doc.at("variants").at(0).at("pods")) {
      CAPTURE(p.dump());
      CHECK(p.at("state") == "Running");
      CHECK(p.at("cards").size() == 1);
    }
  }
}

}  // namespace
}  // namespace knobsim::e2e
