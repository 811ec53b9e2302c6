// Nodes: quantities, taints, ACK's GPU side from labels and capacity, conditions.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The 20-node ACK export ----------------------------------------------------------------

TEST_CASE("a T4 cgpu node reads kubectl's quantities and ACK's per-card units") {
  const NodeSpec& n = NodeNamed(Cluster(), "cn-hangzhou.10.0.1.21");
  CHECK(n.allocatable.at("cpu") == 3920);
  CHECK(n.capacity.at("cpu") == 4000);
  CHECK(n.allocatable.at("memory") == 14368792 * kKi);
  CHECK(n.allocatable.at("ephemeral-storage") == 37926431477);
  CHECK(n.allocatable.at("pods") == 13);
  CHECK(n.allocatable.at("aliyun.com/gpu-mem") == 15);
  CHECK(n.allocatable.at("nvidia.com/gpu") == 0);
  CHECK(n.gpu_schedule == "cgpu");
  CHECK(n.gpu_cards == 1);
  CHECK(n.card_mem_units == 15);
  CHECK(n.card_core_percent == 0);
  CHECK(n.gpu_model == "Tesla-T4");
  CHECK(n.placement.empty());
  CHECK(n.max_pods_per_card == 0);
  CHECK(n.labels.at("topology.kubernetes.io/zone") == "cn-hangzhou-h");
  REQUIRE(n.taints.size() == 1);
  CHECK(n.taints[0].key == "nvidia.com/gpu");
  CHECK(n.taints[0].value == "present");
  CHECK(n.taints[0].effect == "NoSchedule");
  CHECK_FALSE(n.unschedulable);
  REQUIRE(n.images.size() == 2);
  CHECK(n.images[0].names.size() == 2);
  CHECK(n.images[0].names[1] == "registry-vpc.cn-hangzhou.aliyuncs.com/acs/cuda-ocr:v2.3.1");
  CHECK(n.images[0].size_bytes == 6625951744);
  CHECK(n.annotations.at("node.alpha.kubernetes.io/ttl") == "0");
}

TEST_CASE("an A10 share node has two 22-unit cards, spread placement and max-pod 6") {
  const NodeSpec& n = NodeNamed(Cluster(), "cn-hangzhou.10.0.2.31");
  CHECK(n.gpu_schedule == "share");
  CHECK(n.gpu_cards == 2);
  CHECK(n.card_mem_units == 22);
  CHECK(n.placement == "spread");
  CHECK(n.max_pods_per_card == 6);
  CHECK(n.gpu_model == "NVIDIA-A10");
  CHECK(n.allocatable.at("cpu") == 63280);
}

TEST_CASE("an A100 core_mem node has four 40-unit cards of 100 percent; ack-binpack is binpack") {
  const NodeSpec& n = NodeNamed(Cluster(), "cn-hangzhou.10.0.3.41");
  CHECK(n.gpu_schedule == "core_mem");
  CHECK(n.gpu_cards == 4);
  CHECK(n.card_mem_units == 40);
  CHECK(n.card_core_percent == 100);
  CHECK(n.placement == "binpack");
  CHECK(n.capacity.at("aliyun.com/gpu-core.percentage") == 400);
  CHECK(n.labels.at("topology.kubernetes.io/zone") == "cn-hangzhou-j");
}

TEST_CASE("a V100 node without the schedule label is an exclusive node of 8 whole cards") {
  const NodeSpec& n = NodeNamed(Cluster(), "cn-hangzhou.10.0.1.51");
  CHECK(n.gpu_schedule == "default");
  CHECK(n.gpu_cards == 8);
  CHECK(n.card_mem_units == 0);
  CHECK(n.allocatable.at("nvidia.com/gpu") == 8);
  CHECK(n.allocatable.at("cpu") == 81090);
}

TEST_CASE("the cordoned CPU node is unschedulable and carries the unschedulable taint") {
  const NodeSpec& n = NodeNamed(Cluster(), "cn-hangzhou.10.0.2.12");
  CHECK(n.unschedulable);
  CHECK(n.gpu_cards == 0);
  CHECK(n.gpu_schedule == "default");
  REQUIRE(n.taints.size() == 1);
  CHECK(n.taints[0].key == "node.kubernetes.io/unschedulable");
  CHECK(n.taints[0].effect == "NoSchedule");
  CHECK(n.allocatable.at("memory") == 57640020 * kKi);
}

TEST_CASE("legacy node labels and missing gpu-count") {
  const KubeObjects objects = MustRead(R"(kind: Node
metadata:
  name: old
  labels: {cgpu: "true"}
status:
  capacity: {aliyun.com/gpu-mem: "30"}
)");
  CHECK(objects.nodes[0].gpu_schedule == "cgpu");
  CHECK(objects.nodes[0].gpu_cards == 0);
  REQUIRE(objects.warnings.size() == 1);
  CHECK(objects.warnings[0] ==
        "test.yaml:6: status.capacity.aliyun.com/gpu-mem: aliyun.com/gpu-mem without "
        "aliyun.com/gpu-count: ACK sees no card to share here");
  CHECK(MustRead("kind: Node\nmetadata:\n  name: s\n  labels: {gpushare: \"true\"}\n")
            .nodes[0]
            .gpu_schedule == "share");
}

TEST_CASE("the GPU model is ACK's nvidia_name, else GPU feature discovery's gpu.product") {
  struct Case {
    const char* labels;
    const char* model;
  };
  const Case cases[] = {
      {R"({aliyun.accelerator/nvidia_name: NVIDIA-A10, nvidia.com/gpu.product: NVIDIA-A10G})",
       "NVIDIA-A10"},
      {R"({nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/gpu.count: "8"})",
       "NVIDIA-A100-SXM4-80GB"},
      {R"({kubernetes.io/hostname: n})", ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.labels);
    const KubeObjects o = MustRead(std::string("kind: Node\nmetadata:\n  name: n\n  labels: ") +
                                   c.labels + "\nstatus:\n  capacity: {nvidia.com/gpu: \"8\"}\n");
    CHECK(o.nodes[0].gpu_model == c.model);
    CHECK(o.nodes[0].gpu_cards == 8);
  }
}

TEST_CASE(
    "a node of a sharing mode knobsim does not model stops the read at the key that shows it") {
  struct Case {
    const char* rule;
    const char* metadata;  // under metadata:
    const char* capacity;
    const char* where;  // line and field of the error
  };
  const Case cases[] = {
      {"gfd-replicas",
       "  labels:\n    nvidia.com/gpu.product: NVIDIA-L4-SHARED\n    nvidia.com/gpu.replicas: "
       "\"4\"\n",
       "{nvidia.com/gpu: \"16\"}", "bad.yaml:6: metadata.labels.nvidia.com/gpu.replicas: node n: "},
      {"hami-node-annotation",
       // HAMi's handshake without its registration: the node's vGPUs are unknown.
       "  annotations:\n    hami.io/node-handshake: \"Requesting_2026-12-01 09:41:12\"\n",
       "{nvidia.com/gpu: \"10\"}",
       "bad.yaml:5: metadata.annotations.hami.io/node-handshake: node n: HAMi"},
      {"mig-resource", "  labels: {nvidia.com/mig.strategy: mixed}\n",
       "{nvidia.com/gpu: \"0\", nvidia.com/mig-1g.10gb: \"7\"}",
       "bad.yaml:6: status.capacity.nvidia.com/mig-1g.10gb: node n: MIG"},
      {"ack-schedule-mps", "  labels: {ack.node.gpu.schedule: mps}\n",
       "{aliyun.com/gpu-count: \"1\", aliyun.com/gpu-mem: \"22\"}",
       "bad.yaml:4: metadata.labels.ack.node.gpu.schedule: node n: ACK MPS sharing"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    const std::string error = ErrorOf(std::string("kind: Node\nmetadata:\n  name: n\n") +
                                      c.metadata + "status:\n  capacity: " + c.capacity + "\n");
    CHECK(error.find(c.where) == 0);
    CHECK(error.find("is not modelled") != std::string::npos);
    CHECK(error.find("8a3c3b3e") == std::string::npos);
  }
}

TEST_CASE(
    "a MIG node's cards and their instances come from the strategy, the product and the "
    "devices offered; what does not split into alike cards is refused at the field") {
  struct Case {
    const char* name;
    const char* labels;
    const char* capacity;
    int slots;           // 0: refused
    const char* layout;  // each card's instances, or the error's start
  };
  const Case cases[] = {
      {"mixed, all-balanced over 8 cards",
       R"({nvidia.com/mig.strategy: mixed, nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/gpu.count: "8"})",
       R"({nvidia.com/gpu: "0", nvidia.com/mig-1g.10gb: "16", nvidia.com/mig-3g.40gb: "8", nvidia.com/mig-2g.20gb: "8"})",
       32, "3g.40gb 2g.20gb 1g.10gb 1g.10gb"},
      {"single, whole cards of the profile's most instances",
       R"({nvidia.com/mig.strategy: single, nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3-MIG-2g.20gb, nvidia.com/gpu.count: "6"})",
       R"({nvidia.com/gpu: "6"})", 6, "2g.20gb 2g.20gb 2g.20gb"},
      {"single, devices that fill no whole card",
       R"({nvidia.com/mig.strategy: single, nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB-MIG-1g.5gb})",
       R"({nvidia.com/gpu: "10"})", 0,
       "bad.yaml:6: status.capacity.nvidia.com/gpu: MIG on NVIDIA-A100-SXM4-40GB: 10 MIG devices "
       "of 1g.5gb do not fill whole cards of 7"},
      {"mixed, a card without MIG geometry",
       R"({nvidia.com/mig.strategy: mixed, nvidia.com/gpu.product: NVIDIA-A30, nvidia.com/gpu.count: "1"})",
       R"({nvidia.com/mig-1g.6gb: "4"})", 0,
       "bad.yaml:4: metadata.labels.nvidia.com/mig.strategy: MIG on NVIDIA-A30: knobsim has no "
       "MIG geometry"},
      {"mixed, instances that do not fit a card",
       R"({nvidia.com/mig.strategy: mixed, nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "1"})",
       R"({nvidia.com/mig-4g.40gb: "2"})", 0,
       "bad.yaml:4: metadata.labels.nvidia.com/mig.strategy: MIG on NVIDIA-H100-80GB-HBM3: the "
       "MIG instances 4g.40gb*2 do not fit one H100 card"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string text = std::string("kind: Node\nmetadata:\n  name: n\n  labels: ") +
                             c.labels + "\nstatus:\n  capacity: " + c.capacity + "\n";
    if (c.slots == 0) {
      const std::string error = ErrorOf(text);
      CAPTURE(error);
      CHECK(error.find(c.layout) == 0);
      continue;
    }
    const NodeSpec n = MustRead(text).nodes[0];
    CHECK(n.gpu_cards == c.slots);
    std::string layout;
    for (const std::string& p : n.mig.instances) layout += (layout.empty() ? "" : " ") + p;
    CHECK(layout == c.layout);
    CHECK(n.gpu_schedule == "default");
  }
}

TEST_CASE(
    "a HAMi node's cards come from its device registration, JSON or the older colon form; what "
    "knobsim does not model is refused at the annotation, never quoting a UUID") {
  const std::string uuid_a = "GPU-8a3c3b3e6f2e4b1e9a0c2f3d4e5f6a70";
  const std::string uuid_b = "GPU-1b2c3d4e5f604a7b8c9d0e1f2a3b4c5d";
  auto node = [&](const std::string& registration) {
    return "kind: Node\nmetadata:\n  name: n\n  annotations:\n    "
           "hami.io/node-nvidia-register: '" +
           registration + "'\nstatus:\n  capacity: {nvidia.com/gpu: \"20\"}\n";
  };
  auto json = [&](const std::string& second) {
    return "[{\"id\":\"" + uuid_b +
           "\",\"index\":1,\"count\":10,\"devmem\":23034,\"devcore\":100,\"type\":\"NVIDIA "
           "L4\",\"mode\":\"hami-core\",\"health\":true},{\"id\":\"" +
           uuid_a + "\"," + second + "}]";
  };
  const std::string alike =
      "\"count\":10,\"devmem\":23034,\"devcore\":100,\"type\":\"NVIDIA L4\",\"health\":true";
  struct Case {
    const char* name;
    std::string registration;
    const char* error;  // empty: read
  };
  const Case cases[] = {
      {"JSON, device 0 without its index (omitempty)", json(alike), ""},
      {"the colon form before v2.8",
       uuid_a + ",10,23034,100,NVIDIA-NVIDIA L4,0,true,0,hami-core:" + uuid_b +
           ",10,23034,100,NVIDIA-NVIDIA L4,0,true,1,hami-core:",
       ""},
      {"HAMi's MIG mode", json(alike + ",\"mode\":\"mig\""),
       "device 1: HAMi's \"mig\" mode is not modelled"},
      {"an unhealthy card (health false is omitted)",
       json("\"count\":10,\"devmem\":23034,\"devcore\":100,\"type\":\"NVIDIA L4\""),
       "device 1: an unhealthy card (HAMi's CardNotHealth) is not modelled"},
      {"cards registered unlike",
       json("\"count\":5,\"devmem\":23034,\"devcore\":100,\"type\":\"NVIDIA L4\",\"health\":true"),
       "device 1: registered unlike device 0"},
      {"not JSON", "[{\"id\": ", "not a JSON list"},
      {"JSON of the wrong types", "[{\"id\":\"x\",\"count\":\"10\"}]", "count is not an integer"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    if (*c.error) {
      const std::string error = ErrorOf(node(c.registration));
      CAPTURE(error);
      CHECK(error.rfind("bad.yaml:5: metadata.annotations.hami.io/node-nvidia-register: node n: "
                        "HAMi's hami.io/node-nvidia-register",
                        0) == 0);
      CHECK(error.find(c.error) != std::string::npos);
      CHECK(error.find("8a3c3b3e") == std::string::npos);
      continue;
    }
    const NodeSpec n = MustRead(node(c.registration)).nodes[0];
    CHECK(n.gpu_cards == 2);
    CHECK(n.gpu_model == "NVIDIA-L4");
    CHECK(n.gpu_schedule == "default");
    CHECK(n.hami.split_count == 10);
    CHECK(n.hami.devmem_mib == 23034);
    CHECK(n.hami.devcore == 100);
    // Cards by HAMi's index: the UUIDs a pod's allocation names, in card order.
    CHECK(n.hami.card_uuids == std::vector<std::string>{uuid_a, uuid_b});
    CHECK(n.annotations.count("hami.io/node-nvidia-register") == 0);
  }
}

TEST_CASE("nodes keep condition Ready and the kubelet version") {
  const NodeSpec& ready = NodeNamed(Export(), "cn-hangzhou.10.1.1.21");
  CHECK(ready.ready_status == "True");
  CHECK(ready.kubelet_version == "v1.30.7-aliyun.1");
  CHECK(ready.gpu_schedule == "cgpu");
  CHECK(ready.card_mem_units == 44);
  CHECK(ready.gpu_model == "NVIDIA-L20");
  CHECK(NodeNamed(Export(), "cn-hangzhou.10.1.1.24").ready_status == "Unknown");
  const NodeSpec& a100 = NodeNamed(Export(), "cn-hangzhou.10.1.3.41");
  CHECK(a100.gpu_schedule == "default");
  CHECK(a100.gpu_cards == 8);
  CHECK(NodeNamed(Export(), "cn-hangzhou.10.1.2.31").card_mem_units == 22);
}

}  // namespace
}  // namespace knobsim
