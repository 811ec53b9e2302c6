#include "sim/io/kube_reader.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace knobsim {
namespace {

// The fixtures sit in testdata/kube/ beside this file. Under CMake __FILE__ is absolute; a
// direct compile from the repository root gives a relative path that works from there.
std::string KubeDataDir() {
#ifdef KNOBSIM_SOURCE_DIR
  return std::string(KNOBSIM_SOURCE_DIR) + "/sim/io/testdata/kube/";
#else
  const std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "testdata/kube/";
#endif
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const NodeSpec& NodeNamed(const KubeObjects& objects, const std::string& name) {
  auto it = std::find_if(objects.nodes.begin(), objects.nodes.end(),
                         [&](const NodeSpec& n) { return n.name == name; });
  REQUIRE(it != objects.nodes.end());
  return *it;
}

const PodSpec& PodNamed(const KubeObjects& objects, const std::string& name) {
  auto it = std::find_if(objects.pods.begin(), objects.pods.end(),
                         [&](const PodSpec& p) { return p.name == name; });
  REQUIRE(it != objects.pods.end());
  return *it;
}

KubeObjects MustRead(const std::string& text) {
  Expected<KubeObjects> read = ReadKubeString(text, "test.yaml");
  if (!read.ok()) FAIL(read.error().ToString());
  return std::move(read.value());
}

PodSpec OnePod(const std::string& text) {
  KubeObjects objects = MustRead(text);
  REQUIRE(objects.pods.size() == 1);
  return objects.pods[0];
}

std::string ErrorOf(const std::string& text, const std::string& file = "bad.yaml") {
  Expected<KubeObjects> read = ReadKubeString(text, file);
  REQUIRE_FALSE(read.ok());
  return read.error().ToString();
}

constexpr int64_t kKi = 1024;
constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * 1024 * 1024;

// ---- The 20-node ACK export ----------------------------------------------------------------

const KubeObjects& Cluster() {
  static const KubeObjects cluster = [] {
    Expected<KubeObjects> read = ReadKubeFiles({KubeDataDir() + "ack-cluster.json"});
    if (!read.ok()) FAIL(read.error().ToString());
    return read.value();
  }();
  return cluster;
}

TEST_CASE("the ACK export reads as 20 nodes and 28 pods with nothing skipped") {
  const KubeObjects& c = Cluster();
  CHECK(c.nodes.size() == 20);
  CHECK(c.pods.size() == 28);
  CHECK(c.skipped_kinds.empty());
  CHECK(c.warnings.empty());
  REQUIRE(c.node_sources.size() == 20);
  CHECK(c.node_sources[0].file == KubeDataDir() + "ack-cluster.json");
  CHECK(c.node_sources[0].line == 4);  // the `{` of items[0]
  CHECK(c.pod_sources.size() == 28);
}

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

TEST_CASE("extender pods carry their card and units in the v1 annotations") {
  const PodSpec& p = PodNamed(Cluster(), "asr-5b7c9d8e6f-h3j5k");
  CHECK(p.namespace_ == "ai-infer");
  CHECK(p.node_name == "cn-hangzhou.10.0.2.21");
  CHECK(p.phase == "Running");
  CHECK(p.gpu_mem == 6);
  CHECK(p.requests.at("aliyun.com/gpu-mem") == 6);
  CHECK(p.requests.at("cpu") == 1500);
  CHECK(p.requests.at("memory") == 6 * kGi);
  CHECK(p.allocated_mem == std::map<int, int>{{0, 6}});
  CHECK(p.allocated_core.empty());
  REQUIRE(p.tolerations.size() == 3);
  CHECK(p.tolerations[0].key == "nvidia.com/gpu");
  CHECK(p.tolerations[0].op == "Exists");
  CHECK(p.tolerations[1].toleration_seconds == 300);
}

TEST_CASE("framework pods carry v2 allocations, including the allocated/total string form") {
  const PodSpec& rerank = PodNamed(Cluster(), "rerank-7c8d9e6f5-m2n4p");
  REQUIRE(rerank.container_gpus.size() == 2);
  CHECK(rerank.container_gpus[0].gpu_mem == 6);
  CHECK(rerank.container_gpus[1].gpu_mem == 2);
  CHECK(rerank.gpu_mem == 8);
  CHECK(rerank.num_containers == 2);
  CHECK(rerank.allocated_mem == std::map<int, int>{{1, 8}});

  const PodSpec& tagger = PodNamed(Cluster(), "video-tagger-5d6e7f8a9-c3v5b");
  CHECK(tagger.gpu_count == 2);
  CHECK(tagger.allocated_mem == std::map<int, int>{{0, 8}, {1, 8}});

  const PodSpec& qwen = PodNamed(Cluster(), "qwen-7b-chat-1");
  CHECK(qwen.gpu_core == 50);
  CHECK(qwen.container_gpus[0].gpu_core == 50);
  CHECK(qwen.allocated_mem == std::map<int, int>{{0, 20}});
  CHECK(qwen.allocated_core == std::map<int, int>{{0, 50}});
  CHECK(qwen.priority == 1000);
}

TEST_CASE("a pod with the v3 gpumemory annotation reads like v2") {
  const PodSpec& p = PodNamed(Cluster(), "caption-8b9c0d1e2-t6y8u");
  CHECK(p.allocated_mem == std::map<int, int>{{1, 5}});
}

TEST_CASE("finished, terminating and whole-GPU pods read as such") {
  CHECK(PodNamed(Cluster(), "embed-batch-28461920-x7z9q").phase == "Succeeded");
  CHECK(PodNamed(Cluster(), "report-cron-28461930-q4w8e").phase == "Failed");
  CHECK(PodNamed(Cluster(), "sd-webui-6f9d8c7b5-j8h2n").terminating);
  CHECK_FALSE(PodNamed(Cluster(), "sd-webui-6f9d8c7b5-4tq8m").terminating);
  const PodSpec& bert = PodNamed(Cluster(), "bert-pretrain-worker-0");
  CHECK(bert.whole_gpus == 8);
  CHECK(bert.gpu_mem == 0);
  CHECK(bert.requests.at("cpu") == 64000);  // the init container's 2 cpu is less
  CHECK(bert.images.size() == 2);
  const PodSpec& dns = PodNamed(Cluster(), "coredns-6c9b8d7f4d-2xkqp");
  CHECK(dns.priority == 2000000000);
  CHECK(dns.requests.at("memory") == 70 * kMi);
  CHECK(dns.nonzero_cpu_milli == 100);
  CHECK(dns.nonzero_memory_bytes == 70 * kMi);
}

TEST_CASE("a pod without requests scores with the non-zero defaults 100m and 200Mi") {
  const PodSpec& p = PodNamed(Cluster(), "gpushare-device-plugin-ds-4kx7z");
  CHECK(p.requests.empty());
  CHECK(p.nonzero_cpu_milli == 100);
  CHECK(p.nonzero_memory_bytes == 200 * kMi);
  CHECK(p.priority == 2000001000);
}

TEST_CASE("the cluster snapshot binds running pods where their annotations say") {
  std::vector<std::string> warnings;
  const ClusterState cluster = BuildClusterState(Cluster(), &warnings);
  CHECK(warnings.empty());
  REQUIRE(cluster.nodes().size() == 20);
  auto card = [&](const char* node, int c) -> const CardState& {
    const int n = cluster.FindNode(node);
    REQUIRE(n >= 0);
    return cluster.node(n).cards.at(c);
  };
  CHECK(card("cn-hangzhou.10.0.1.21", 0).used_mem == 8);  // two ocr pods, v1
  CHECK(card("cn-hangzhou.10.0.1.21", 0).pods == 2);
  CHECK(card("cn-hangzhou.10.0.2.21", 0).used_mem == 10);  // ocr + asr
  CHECK(card("cn-hangzhou.10.0.1.22", 0).used_mem == 0);   // the Succeeded job occupies nothing
  CHECK(card("cn-hangzhou.10.0.1.31", 0).used_mem == 10);
  CHECK(card("cn-hangzhou.10.0.1.31", 1).used_mem == 10);
  CHECK(card("cn-hangzhou.10.0.2.31", 1).used_mem == 8);  // rerank's two containers
  CHECK(card("cn-hangzhou.10.0.2.31", 1).pods == 1);
  CHECK(card("cn-hangzhou.10.0.3.31", 0).used_mem == 8);  // video-tagger over two cards
  CHECK(card("cn-hangzhou.10.0.3.31", 1).used_mem == 8);
  CHECK(card("cn-hangzhou.10.0.2.32", 0).used_mem == 10);  // terminating still occupies
  CHECK(card("cn-hangzhou.10.0.2.32", 1).used_mem == 5);   // v3
  CHECK(card("cn-hangzhou.10.0.1.41", 0).used_mem == 40);
  CHECK(card("cn-hangzhou.10.0.1.41", 0).used_core == 100);
  CHECK(card("cn-hangzhou.10.0.2.41", 2).used_core == 50);
  CHECK(card("cn-hangzhou.10.0.2.41", 3).used_mem == 0);
  CHECK(card("cn-hangzhou.10.0.1.51", 3).whole);
  CHECK_FALSE(card("cn-hangzhou.10.0.1.51", 4).whole);
  CHECK(card("cn-hangzhou.10.0.2.51", 7).whole);

  const NodeState& cpu = cluster.node(cluster.FindNode("cn-hangzhou.10.0.3.12"));
  CHECK(cpu.pods.size() == 1);  // batch-exporter; the Failed report pod is gone
  CHECK(cpu.requested.at("cpu") == 500);
  const NodeState& t4 = cluster.node(cluster.FindNode("cn-hangzhou.10.0.1.21"));
  CHECK(t4.pods.size() == 3);
  CHECK(t4.requested.at("aliyun.com/gpu-mem") == 8);
  CHECK(t4.nonzero_cpu_milli == 2100);  // 2 × 1 cpu + the device plugin's default 100m
  CHECK(cluster.pods().size() == 26);
}

TEST_CASE("nothing read from the export repeats the secrets its env and annotations hold") {
  std::string text = ReadText(KubeDataDir() + "ack-cluster.json");
  // A bad value next to the secrets: the error names the field, never its neighbours.
  const std::string good = "\"cpu\": \"500m\"";
  const size_t at = text.find(good, text.find("\"batch-exporter\""));
  REQUIRE(at != std::string::npos);
  text.replace(at, good.size(), "\"cpu\": \"500 millicores\"");
  const std::string error = ErrorOf(text, "ack-cluster.json");
  CHECK(error.find("items[45].spec.containers[0].resources.requests.cpu: \"500 millicores\" is "
                   "not a quantity") != std::string::npos);
  for (const char* secret : {"wJalrXUtnFEMI", "AKIAIOSFODNN7EXAMPLE", "s3cr3t", "fake-jwt-key"}) {
    CHECK(error.find(secret) == std::string::npos);
  }
}

TEST_CASE("an annotation of the wrong type is reported without its value") {
  const std::string error = ErrorOf(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    vault.hashicorp.com/token: [hunter2-secret]
spec:
  containers:
  - name: c
)");
  CHECK(error ==
        "bad.yaml:6: metadata.annotations.vault.hashicorp.com/token: expected a string, "
        "found a list");
  CHECK(ErrorOf("kind: Node\nmetadata:\n  name: n\n  annotations: hunter2-secret\n") ==
        "bad.yaml:4: metadata.annotations: expected a mapping, found a string");
}

// ---- Pending pods --------------------------------------------------------------------------

const KubeObjects& Pending() {
  static const KubeObjects pending = [] {
    Expected<KubeObjects> read = ReadKubeFile(KubeDataDir() + "pending-pods.yaml");
    if (!read.ok()) FAIL(read.error().ToString());
    return read.value();
  }();
  return pending;
}

TEST_CASE("the pending pods file reads as 13 pods the scheduler would place") {
  CHECK(Pending().pods.size() == 13);
  CHECK(Pending().warnings.empty());
  const std::vector<PodSpec> pods = PendingPods(Pending());
  REQUIRE(pods.size() == 13);
  CHECK(pods[0].name == "ocr-7d9f8b6c5-n4b6v");
  CHECK(pods[12].name == "gpu-burn-a100");
  CHECK(Pending().pod_sources[1].line == 75);
}

TEST_CASE("pending GPU pods: selectors, multi-card label, whole GPUs, gpu-core pairs") {
  const PodSpec& ocr = PodNamed(Pending(), "ocr-7d9f8b6c5-n4b6v");
  CHECK(ocr.node_selector == std::map<std::string, std::string>{{"ack.node.gpu.schedule", "cgpu"}});
  CHECK(ocr.gpu_mem == 4);
  CHECK(ocr.gpu_count == 1);
  CHECK(ocr.node_name.empty());
  CHECK(ocr.phase == "Pending");

  const PodSpec& tagger = PodNamed(Pending(), "video-tagger-5d6e7f8a9-m7n8b");
  CHECK(tagger.gpu_count == 2);
  CHECK(tagger.gpu_mem == 16);

  const PodSpec& ddp = PodNamed(Pending(), "mnist-ddp-worker-0");
  CHECK(ddp.whole_gpus == 2);
  CHECK(ddp.requests.at("nvidia.com/gpu") == 2);

  const PodSpec& qwen = PodNamed(Pending(), "qwen-7b-chat-3");
  CHECK(qwen.gpu_mem == 10);
  CHECK(qwen.gpu_core == 30);
  CHECK(qwen.priority == 1000);

  const PodSpec& burn = PodNamed(Pending(), "gpu-burn-a100");
  CHECK(burn.require_whole_device);
  CHECK(burn.preemption_policy == "Never");
  CHECK(burn.gpu_mem == 40);
  CHECK_FALSE(ocr.require_whole_device);
}

TEST_CASE("a pending pod with zone spread reads every constraint field") {
  const PodSpec& api = PodNamed(Pending(), "api-gateway-7f6d5c4b3-v5n7m");
  REQUIRE(api.topology_spread.size() == 1);
  const TopologySpreadConstraint& c = api.topology_spread[0];
  CHECK(c.max_skew == 1);
  CHECK(c.topology_key == "topology.kubernetes.io/zone");
  CHECK(c.when_unsatisfiable == "DoNotSchedule");
  CHECK(c.label_selector.match_labels == Labels{{"app", "api-gateway"}});
  CHECK(c.label_selector.match_expressions.empty());
  CHECK(c.match_label_keys == std::vector<std::string>{"pod-template-hash"});
  CHECK_FALSE(c.min_domains.has_value());
  CHECK(c.node_affinity_policy == "Honor");
  CHECK(c.node_taints_policy == "Ignore");
  CHECK(api.requests.at("cpu") == 2000);
  CHECK(api.labels.at("tier") == "frontend");
}

TEST_CASE("the init-container rule of semantics §3.2: 3 CPU and 3G") {
  // init (2 CPU/1G), (2 CPU/3G); containers (2/1G), (1/1G).
  const PodSpec& orders = PodNamed(Pending(), "orders-6b7c8d9e0-r4t5y");
  CHECK(orders.requests.at("cpu") == 3000);
  CHECK(orders.requests.at("memory") == 3'000'000'000);
  CHECK(orders.num_containers == 2);
  CHECK(orders.nonzero_cpu_milli == 3000);
  CHECK(orders.nonzero_memory_bytes == 3'000'000'000);
  CHECK(orders.images.size() == 4);
  CHECK(orders.container_gpus.size() == 2);
}

TEST_CASE("required and preferred node affinity keep their terms, operators and weights") {
  const PodSpec& search = PodNamed(Pending(), "search-8d9e0f1a2-u7i8o");
  REQUIRE(search.node_affinity.required_terms.size() == 1);
  const auto& term = search.node_affinity.required_terms[0];
  REQUIRE(term.size() == 2);
  CHECK(term[0].key == "workload-type");
  CHECK(term[0].op == "In");
  CHECK(term[0].values == std::vector<std::string>{"general"});
  CHECK(term[1].op == "NotIn");
  REQUIRE(search.node_affinity.preferred.size() == 1);
  CHECK(search.node_affinity.preferred[0].weight == 50);
  CHECK(search.node_affinity.preferred[0].expressions[0].values ==
        std::vector<std::string>{"cn-hangzhou-j"});
  // Only a memory limit: cpu from requests, memory from both.
  CHECK(search.requests.at("cpu") == 6000);
  CHECK(search.requests.at("memory") == 24 * kGi);
}

TEST_CASE("a best-effort pod requests nothing and scores with the defaults") {
  const PodSpec& worker = PodNamed(Pending(), "queue-worker-5c6d7e8f9-q1w2e");
  CHECK(worker.requests.empty());
  CHECK(worker.nonzero_cpu_milli == 100);
  CHECK(worker.nonzero_memory_bytes == 200 * kMi);
}

TEST_CASE("PendingPods leaves out bound, finished and terminating pods") {
  const KubeObjects objects = MustRead(R"(apiVersion: v1
kind: List
items:
- kind: Pod
  metadata: {name: bound}
  spec: {nodeName: n1, containers: [{name: c}]}
- kind: Pod
  metadata: {name: done}
  spec: {containers: [{name: c}]}
  status: {phase: Succeeded}
- kind: Pod
  metadata: {name: going, deletionTimestamp: "2024-06-03T09:11:58Z"}
  spec: {containers: [{name: c}]}
- kind: Pod
  metadata: {name: waiting}
  spec: {containers: [{name: c}]}
  status: {phase: Pending}
)");
  const std::vector<PodSpec> pending = PendingPods(objects);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].name == "waiting");
  CHECK(pending[0].namespace_ == "default");
}

TEST_CASE("BuildClusterState skips pods bound to unknown nodes with a warning") {
  const KubeObjects objects = MustRead(R"(kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "4"}}
---
kind: Pod
metadata: {name: lost, namespace: web}
spec: {nodeName: n9, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
kind: Pod
metadata: {name: here}
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
)");
  std::vector<std::string> warnings;
  const ClusterState cluster = BuildClusterState(objects, &warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "test.yaml:5: pod web/lost: bound to node \"n9\", which the cluster files "
        "do not hold; skipped");
  CHECK(cluster.pods().size() == 1);
  CHECK(cluster.node(0).requested.at("cpu") == 100);
  CHECK(cluster.node(0).spec.allocatable.at("cpu") == 4000);  // allocatable defaults to capacity
}

// ---- Document forms ------------------------------------------------------------------------

TEST_CASE("one object, multi-document YAML, a List and a typed PodList all read") {
  CHECK(MustRead("kind: Node\nmetadata: {name: a}\n").nodes.size() == 1);
  const KubeObjects multi = MustRead(
      "---\nkind: Node\nmetadata: {name: a}\n---\n---\nkind: Node\nmetadata: {name: b}\n...\n");
  REQUIRE(multi.nodes.size() == 2);
  CHECK(multi.nodes[1].name == "b");
  CHECK(multi.node_sources[1].line == 6);
  const KubeObjects list = MustRead(R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: web}
- apiVersion: v1
  kind: Service
  metadata: {name: web-1}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: api}
metadata:
  resourceVersion: ""
)");
  CHECK(list.nodes.size() == 1);
  CHECK(list.skipped_kinds == std::map<std::string, int>{{"DaemonSet", 2}, {"Service", 1}});
  const KubeObjects typed =
      MustRead(R"({"kind": "PodList", "items": [{"kind": "Pod", "metadata": {"name": "p"},
                  "spec": {"containers": [{"name": "c"}]}}]})");
  CHECK(typed.pods.size() == 1);
  CHECK(MustRead(R"({"apiVersion": "v1", "kind": "List", "items": []})").pods.empty());
}

TEST_CASE("JSON errors point at the line of the field") {
  const std::string json = R"({
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": "n1"
            },
            "spec": {
                "unschedulable": "maybe"
            }
        }
    ]
})";
  CHECK(ErrorOf(json, "nodes.json") ==
        "nodes.json:12: items[0].spec.unschedulable: \"maybe\" is not true or false");
  CHECK(
      ErrorOf("\n{\n  \"kind\": \"Node\",\n  \"metadata\": {\"name\": \"a\"}\n  \"spec\": {}\n}\n",
              "node.json") ==
      "node.json:5: invalid JSON: expected `,` or `}`, found a string; a comma is probably "
      "missing before it");
}

TEST_CASE("quantities read in every Kubernetes form") {
  const KubeObjects objects = MustRead(R"(kind: Node
metadata: {name: q}
status:
  capacity:
    cpu: 3920m
    memory: 14368792Ki
    ephemeral-storage: "37693705359"
    pods: 1e3
    hugepages-2Mi: 1Gi
    example.com/fpga: "2"
  allocatable:
    cpu: "1.5"
    memory: 0.5Gi
    ephemeral-storage: 129e6
    pods: 1k
    example.com/fpga: 2
)");
  const NodeSpec& n = objects.nodes[0];
  CHECK(n.capacity.at("cpu") == 3920);
  CHECK(n.capacity.at("memory") == 14368792 * kKi);
  CHECK(n.capacity.at("ephemeral-storage") == 37693705359);
  CHECK(n.capacity.at("pods") == 1000);
  CHECK(n.capacity.at("hugepages-2Mi") == kGi);
  CHECK(n.capacity.at("example.com/fpga") == 2);
  CHECK(n.allocatable.at("cpu") == 1500);
  CHECK(n.allocatable.at("memory") == kGi / 2);
  CHECK(n.allocatable.at("ephemeral-storage") == 129'000'000);
  CHECK(n.allocatable.at("pods") == 1000);
}

TEST_CASE("memory in millibytes is read as Kubernetes does, with a warning") {
  const KubeObjects objects = MustRead(R"(kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    resources:
      requests: {memory: 128m}
)");
  CHECK(objects.pods[0].requests.at("memory") == 1);
  REQUIRE(objects.warnings.size() == 1);
  CHECK(objects.warnings[0] ==
        "test.yaml:7: spec.containers[0].resources.requests.memory: \"128m\" is 128 millibytes "
        "(m means milli), counted as 1 byte(s); did you mean 128Mi?");
}

TEST_CASE("a resource with only a limit is requested at the limit") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    resources:
      limits: {cpu: "2", memory: 4Gi, aliyun.com/gpu-mem: 6}
      requests: {cpu: 500m}
)");
  CHECK(p.requests.at("cpu") == 500);
  CHECK(p.requests.at("memory") == 4 * kGi);
  CHECK(p.requests.at("aliyun.com/gpu-mem") == 6);
  CHECK(p.nonzero_cpu_milli == 500);
  CHECK(p.gpu_mem == 6);
}

TEST_CASE("sidecar init containers add to the pod and to later init containers") {
  // Upstream's example shape: sidecar 1 cpu, then a plain init of 3 cpu needs 3+1; containers
  // 2 cpu + the sidecar 1 = 3; the pod asks max(3, 4) = 4, plus 250m overhead.
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p}
spec:
  overhead: {cpu: 250m}
  initContainers:
  - name: proxy
    restartPolicy: Always
    resources: {requests: {cpu: "1"}}
  - name: setup
    resources: {requests: {cpu: "3"}}
  containers:
  - name: app
    resources: {requests: {cpu: "2"}}
)");
  CHECK(p.requests.at("cpu") == 4250);
  CHECK(p.nonzero_cpu_milli == 4250);
  // Memory is defaulted per container: max(app + proxy, setup + proxy) = 2 × 200Mi.
  CHECK(p.nonzero_memory_bytes == 2 * 200 * kMi);
}

TEST_CASE("ACK GPU requests come from the limits of regular containers only") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata:
  name: p
  labels: {aliyun.com/gpu-count: "4", ack.gpushare.placement: require-whole-device}
spec:
  initContainers:
  - name: warm
    resources: {limits: {aliyun.com/gpu-mem: 3}}
  containers:
  - name: a
    resources: {limits: {aliyun.com/gpu-mem: 8, aliyun.com/gpu-core.percentage: 40}}
  - name: b
)");
  REQUIRE(p.container_gpus.size() == 2);
  CHECK(p.container_gpus[0].gpu_mem == 8);
  CHECK(p.container_gpus[0].gpu_core == 40);
  CHECK(p.container_gpus[1].gpu_mem == 0);
  CHECK(p.gpu_mem == 8);
  CHECK(p.gpu_core == 40);
  CHECK(p.gpu_count == 4);
  CHECK(p.require_whole_device);
  CHECK(p.requests.at("aliyun.com/gpu-mem") == 8);  // the scheduler's rule: max(8, 3)
}

TEST_CASE("v2 allocation wins over v1; an empty v2 falls back to v1") {
  const std::string pod = R"(kind: Pod
metadata:
  name: p
  annotations:
    ALIYUN_COM_GPU_MEM_IDX: "1"
    ALIYUN_COM_GPU_MEM_POD: "4"
ANNOTATION
spec:
  containers:
  - name: c
    resources: {limits: {aliyun.com/gpu-mem: 4}}
)";
  auto read = [&](const std::string& extra) {
    std::string text = pod;
    text.replace(text.find("ANNOTATION"), 10, extra);
    return MustRead(text).pods[0];
  };
  CHECK(read("    scheduler.framework.gpushare.allocation: '{\"0\":{\"3\":4}}'").allocated_mem ==
        std::map<int, int>{{3, 4}});
  CHECK(read("    scheduler.framework.gpushare.allocation: '{}'").allocated_mem ==
        std::map<int, int>{{1, 4}});
  CHECK(read("    x: y").allocated_mem == std::map<int, int>{{1, 4}});
  // The countable form counts device ids.
  CHECK(read("    gpushare.alibabacloud.com/gpumemory: '{\"0\":{\"2\":[\"a\",\"b\"]}}'")
            .allocated_mem == std::map<int, int>{{2, 2}});
}

TEST_CASE("a v1 annotation without the unit count takes the pod's own request") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata:
  name: p
  annotations: {ALIYUN_COM_GPU_MEM_IDX: "0"}
spec:
  containers:
  - name: c
    resources: {limits: {aliyun.com/gpu-mem: 7}}
)");
  CHECK(p.allocated_mem == std::map<int, int>{{0, 7}});
}

TEST_CASE("matchFields become requirements on metadata.name") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields:
          - key: metadata.name
            operator: In
            values: [cn-hangzhou.10.0.1.21]
  containers: [{name: c}]
)");
  REQUIRE(p.node_affinity.required_terms.size() == 1);
  const NodeSelectorRequirement& r = p.node_affinity.required_terms[0].at(0);
  CHECK(r.key == "metadata.name");
  CHECK(r.op == "In");
  CHECK(r.values == std::vector<std::string>{"cn-hangzhou.10.0.1.21"});
}

TEST_CASE("a spread constraint without labelSelector matches no pod, as upstream's nil") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p}
spec:
  topologySpreadConstraints:
  - maxSkew: 2
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    nodeAffinityPolicy: Ignore
    nodeTaintsPolicy: Honor
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    minDomains: 3
    labelSelector:
      matchExpressions:
      - {key: app, operator: In, values: [web, api]}
  containers: [{name: c}]
)");
  REQUIRE(p.topology_spread.size() == 2);
  const TopologySpreadConstraint& host = p.topology_spread[0];
  CHECK(host.max_skew == 2);
  CHECK(host.node_affinity_policy == "Ignore");
  CHECK(host.node_taints_policy == "Honor");
  REQUIRE(host.label_selector.match_expressions.size() == 1);
  CHECK(host.label_selector.match_expressions[0].key.empty());
  CHECK(host.label_selector.match_expressions[0].op == "In");
  CHECK(host.label_selector.match_expressions[0].values.empty());
  const TopologySpreadConstraint& zone = p.topology_spread[1];
  CHECK(zone.min_domains == 3);
  CHECK(zone.label_selector.match_expressions.at(0).values ==
        std::vector<std::string>{"web", "api"});
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

TEST_CASE("a built-in priority class without spec.priority gives its value; others warn") {
  const KubeObjects objects = MustRead(R"(kind: Pod
metadata: {name: a}
spec:
  priorityClassName: system-node-critical
  containers: [{name: c}]
---
kind: Pod
metadata: {name: b}
spec:
  priorityClassName: batch-low
  containers: [{name: c}]
---
kind: Pod
metadata: {name: c}
spec:
  priorityClassName: batch-low
  priority: -10
  containers: [{name: c}]
)");
  CHECK(objects.pods[0].priority == 2000001000);
  CHECK(objects.pods[1].priority == 0);
  CHECK(objects.pods[2].priority == -10);
  REQUIRE(objects.warnings.size() == 1);
  CHECK(objects.warnings[0] ==
        "test.yaml:10: spec.priorityClassName: priority class "
        "\"batch-low\" without spec.priority; the priority reads as 0 "
        "(give spec.priority the class's value)");
}

TEST_CASE("pending pods for another scheduler or behind scheduling gates are read, with warnings") {
  const KubeObjects objects = MustRead(R"(kind: Pod
metadata: {name: a}
spec:
  schedulerName: volcano
  schedulingGates: [{name: example.com/quota}]
  containers: [{name: c}]
---
kind: Pod
metadata: {name: b}
spec:
  schedulerName: volcano
  nodeName: n1
  containers: [{name: c}]
)");
  REQUIRE(objects.warnings.size() == 2);
  CHECK(objects.warnings[0] ==
        "test.yaml:5: spec.schedulingGates: scheduling gates are not "
        "modelled; the pod is scheduled as if ungated");
  CHECK(objects.warnings[1] ==
        "test.yaml:4: spec.schedulerName: scheduler \"volcano\" places "
        "this pod in the cluster; knobsim applies kube-scheduler's rules");
}

TEST_CASE("null fields read as absent, as in Kubernetes JSON") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p, namespace: null, labels: null}
spec:
  tolerations: null
  nodeSelector: ~
  containers: [{name: c, resources: {requests: null}}]
status: null
)");
  CHECK(p.namespace_ == "default");
  CHECK(p.tolerations.empty());
}

TEST_CASE("a Node or Pod given twice is an error naming both places") {
  const std::string dir = KubeDataDir();
  Expected<KubeObjects> twice =
      ReadKubeFiles({dir + "pending-pods.yaml", dir + "pending-pods.yaml"});
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().ToString() ==
        dir +
            "pending-pods.yaml:9: metadata.name: duplicate Pod \"ai-infer/ocr-7d9f8b6c5-n4b6v\"; "
            "it is also at " +
            dir +
            "pending-pods.yaml:9; give each object once; pass an "
            "export only once");
  CHECK(ErrorOf("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: a}\n") ==
        "bad.yaml:5: metadata.name: duplicate Node \"a\"; it is also at bad.yaml:2; give each "
        "object once; pass an export only once");
  // Same name, other namespace: two pods.
  CHECK(MustRead("kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c}]}\n---\n"
                 "kind: Pod\nmetadata: {name: a, namespace: x}\nspec: {containers: [{name: c}]}\n")
            .pods.size() == 2);
}

TEST_CASE("files that cannot be read or hold nothing are errors") {
  Expected<KubeObjects> missing = ReadKubeFiles({"/nonexistent/cluster.json"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().ToString() ==
        "/nonexistent/cluster.json: cannot read the file: No such file or directory");
  CHECK(ErrorOf("", "empty.yaml") ==
        "empty.yaml: the file holds no Kubernetes objects; expected "
        "the output of kubectl get -o yaml or -o json");
  CHECK(ErrorOf("---\n---\n", "empty.yaml").find("holds no Kubernetes objects") !=
        std::string::npos);
}

// ---- Bad input -----------------------------------------------------------------------------

// Each one a realistic mistake; the whole message is the contract with the user.
struct BadInput {
  const char* text;
  const char* message;
};

const BadInput kBadInputs[] = {
    {"kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - "
     "name: c\n      resources:\n        limits:\n          cpu: 2 cores\n",
     "bad.yaml:10: items[0].spec.containers[0].resources.limits.cpu: \"2 cores\" is not a "
     "quantity; cpu is in cores, e.g. 2, 1.5 or 500m"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "requests: {memory: 4GB}\n",
     "bad.yaml:7: spec.containers[0].resources.requests.memory: \"4GB\" is not a quantity; did "
     "you mean 4Gi?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "limits: {aliyun.com/gpu-mem: 5.5}\n",
     "bad.yaml:7: spec.containers[0].resources.limits.aliyun.com/gpu-mem: \"5.5\" is not a whole "
     "number; extended resources such as aliyun.com/gpu-mem are integers"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "limits: {aliyun.com/gpu-mem: 4Gi}\n",
     "bad.yaml:7: spec.containers[0].resources.limits.aliyun.com/gpu-mem: \"4Gi\" is 4294967296 "
     "units, too many for aliyun.com/gpu-mem; ACK counts aliyun.com/gpu-mem in GiB: did you mean "
     "4?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "limits: {aliyun.com/gpu-mem: 8GB}\n",
     "bad.yaml:7: spec.containers[0].resources.limits.aliyun.com/gpu-mem: \"8GB\" is not a "
     "quantity; ACK counts aliyun.com/gpu-mem in GiB: did you mean 8?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "limits: {nvidia.com/gpu: 2e9}\n",
     "bad.yaml:7: spec.containers[0].resources.limits.nvidia.com/gpu: \"2e9\" is 2000000000 "
     "units, too many for nvidia.com/gpu; no GPU has that many; nvidia.com/gpu counts whole "
     "units"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "requests: {aliyun.com/gpu-mem: 4}\n",
     "bad.yaml:7: spec.containers[0].resources.requests.aliyun.com/gpu-mem: aliyun.com/gpu-mem is "
     "requested without a limit; extended resources need resources.limits, equal to the "
     "request"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "requests: {cpu: \"2\"}\n      limits: {cpu: \"1\"}\n",
     "bad.yaml:7: spec.containers[0].resources.requests.cpu: \"2\" is more than the limit \"1\"; "
     "a request must not exceed its limit"},
    {"kind: Node\nmetadata: {name: n}\nspec:\n  taints:\n  - key: gpu\n    effect: NoScheduel\n",
     "bad.yaml:6: spec.taints[0].effect: \"NoScheduel\" is not a taint effect; did you mean "
     "`NoSchedule`?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - key: gpu\n    operator: "
     "Equals\n  containers: [{name: c}]\n",
     "bad.yaml:6: spec.tolerations[0].operator: \"Equals\" is not a toleration operator; did you "
     "mean `Equal`?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n      "
     "requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - "
     "matchExpressions:\n          - {key: zone, operator: in, values: [a]}\n  containers: "
     "[{name: c}]\n",
     "bad.yaml:9: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchExpressions[0].operator: \"in\" is not a node selector operator; "
     "did you mean `In`?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n      "
     "requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - "
     "matchExpressions:\n          - key: gpu-mem\n            operator: Gt\n            values: "
     "[lots]\n  containers: [{name: c}]\n",
     "bad.yaml:11: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchExpressions[0].values: \"lots\" is not a whole number; Gt "
     "compares the label as an integer"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  priority: high\n  containers: [{name: c}]\n",
     "bad.yaml:4: spec.priority: \"high\" is not a whole number"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    name: c\n",
     "bad.yaml:4: spec.containers: expected a list, found a mapping"},
    {"kind: Pod\nmetadata:\n  generateName: web-\nspec:\n  containers: [{name: c}]\n",
     "bad.yaml:2: metadata: missing required key `name`"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n",
     "bad.yaml:4: spec.containers: a pod needs at least one container"},
    {"kind: Pod\nmetadata:\n  name: p\n  labels:\n\tapp: web\n",
     "bad.yaml:5: invalid YAML: end of map not found; indent with spaces; YAML does not allow "
     "tabs"},
    {"- kind: Pod\n",
     "bad.yaml:1: expected a Kubernetes object, found a list; each document is "
     "one object with `apiVersion` and `kind`, or a `kind: List`"},
    {"apiVersion: v1\nmetadata: {name: p}\n",
     "bad.yaml:1: missing required key `kind`; each object says what it is, e.g. `kind: Pod`; "
     "export with kubectl get -o yaml"},
    {"kind: Pod\nmetadata:\n  name: p\n  annotations:\n    "
     "scheduler.framework.gpushare.allocation: '{\"0\":{\"1\":4}'\nspec:\n  containers: [{name: "
     "c}]\n",
     "bad.yaml:5: metadata.annotations.scheduler.framework.gpushare.allocation: is not valid "
     "JSON; expected JSON such as {\"0\":{\"1\":4}}: container -> card -> units"},
    {"kind: Pod\nmetadata:\n  name: p\n  annotations:\n    "
     "scheduler.framework.gpushare.allocation: '{\"0\":{\"gpu1\":4}}'\nspec:\n  containers: "
     "[{name: c}]\n",
     "bad.yaml:5: metadata.annotations.scheduler.framework.gpushare.allocation: card \"gpu1\" is "
     "not a card index; expected JSON such as {\"0\":{\"1\":4}}: container -> card -> units"},
    {"kind: Pod\nmetadata:\n  name: p\n  annotations: {ALIYUN_COM_GPU_MEM_IDX: \"0,1\"}\nspec:\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:4: metadata.annotations.ALIYUN_COM_GPU_MEM_IDX: \"0,1\" is not a card index; the "
     "extender writes one card index"},
    {"kind: Pod\nmetadata:\n  name: p\n  labels: {aliyun.com/gpu-count: \"0\"}\nspec:\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:4: metadata.labels.aliyun.com/gpu-count: 0 is less than 1"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 0\n    "
     "topologyKey: zone\n    whenUnsatisfiable: DoNotSchedule\n  containers: [{name: c}]\n",
     "bad.yaml:5: spec.topologySpreadConstraints[0].maxSkew: 0 is less than 1"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 1\n    "
     "topologyKey: zone\n    whenUnsatisfiable: ScheduleAnyway\n    minDomains: 2\n  containers: "
     "[{name: c}]\n",
     "bad.yaml:8: spec.topologySpreadConstraints[0].minDomains: minDomains needs "
     "whenUnsatisfiable DoNotSchedule"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 1\n    "
     "topologyKey: zone\n    whenUnsatisfiable: DoNotScheduled\n  containers: [{name: c}]\n",
     "bad.yaml:7: spec.topologySpreadConstraints[0].whenUnsatisfiable: \"DoNotScheduled\" is not "
     "a whenUnsatisfiable value; did you mean `DoNotSchedule`?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\nstatus: {phase: "
     "Runing}\n",
     "bad.yaml:5: status.phase: \"Runing\" is not a pod phase; did you mean `Running`?"},
    {"kind: Node\nmetadata:\n  name: n\n  labels: {ack.node.gpu.max-pod: four}\n",
     "bad.yaml:4: metadata.labels.ack.node.gpu.max-pod: \"four\" is not a whole number"},
    {"kind: Node\nmetadata: {name: n}\nstatus:\n  capacity:\n    nvidia.com/gpu: \"4096\"\n",
     "bad.yaml:5: status.capacity.nvidia.com/gpu: 4096 GPUs on one node is more than knobsim "
     "models (1024)"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - operator: Equal\n    value: x\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:5: spec.tolerations[0].operator: a toleration without key needs operator Exists; "
     "operator: Exists with no key tolerates every taint"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n      "
     "requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - "
     "matchFields:\n          - {key: metadata.labels, operator: In, values: [a]}\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:9: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchFields[0].key: \"metadata.labels\" is not a node field; "
     "matchFields supports only metadata.name"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "requests: {cpu: -1}\n",
     "bad.yaml:7: spec.containers[0].resources.requests.cpu: \"-1\" is negative"},
};

TEST_CASE("bad input gives the file, the line, the field path and a fix") {
  for (const BadInput& bad : kBadInputs) {
    CAPTURE(bad.text);
    CHECK(ErrorOf(bad.text) == bad.message);
  }
}

// ---- Everything a KubeObjects holds, as text -----------------------------------------------
//
// For the privacy checks (a planted secret must appear nowhere) and the JSON-YAML equivalence.
// Every string and number of every object is written out; sources are left out (they differ
// between the two forms of one export by design). A field added to kube_types.h belongs here.

std::string ProbeText(const Probe& p) {
  std::ostringstream out;
  out << static_cast<int>(p.kind) << " port=" << p.port << " path=" << p.http_path
      << " grpc=" << p.grpc_service << " exec=" << p.exec_command << " " << p.initial_delay_seconds
      << "/" << p.period_seconds << "/" << p.timeout_seconds << "/" << p.success_threshold << "/"
      << p.failure_threshold;
  return out.str();
}

void DumpMap(std::ostringstream& out, const char* what,
             const std::map<std::string, std::string>& m) {
  out << " " << what << "{";
  for (const auto& [k, v] : m) out << k << "=" << v << ";";
  out << "}";
}

void DumpResources(std::ostringstream& out, const char* what, const ResourceList& r) {
  out << " " << what << "{";
  for (const auto& [k, v] : r) out << k << "=" << v << ";";
  out << "}";
}

void DumpSelector(std::ostringstream& out, const LabelSelector& s) {
  DumpMap(out, "matchLabels", s.match_labels);
  for (const LabelSelectorRequirement& r : s.match_expressions) {
    out << " expr " << r.key << " " << r.op;
    for (const std::string& v : r.values) out << " " << v;
  }
}

void DumpOwners(std::ostringstream& out, const std::vector<OwnerReference>& owners) {
  for (const OwnerReference& o : owners) {
    out << " owner " << o.api_version << " " << o.kind << " " << o.name << " " << o.uid << " "
        << o.controller;
  }
}

std::string IntOrPercentText(const std::optional<IntOrPercent>& v) {
  if (!v) return "-";
  return std::to_string(v->value) + (v->percent ? "%" : "");
}

std::string Dump(const KubeObjects& o) {
  std::ostringstream out;
  for (const NodeSpec& n : o.nodes) {
    out << "node " << n.name;
    DumpMap(out, "labels", n.labels);
    DumpMap(out, "annotations", n.annotations);
    for (const Taint& t : n.taints) out << " taint " << t.key << "=" << t.value << ":" << t.effect;
    DumpResources(out, "capacity", n.capacity);
    DumpResources(out, "allocatable", n.allocatable);
    for (const ContainerImage& i : n.images) {
      for (const std::string& name : i.names) out << " image " << name;
      out << " " << i.size_bytes;
    }
    out << " " << n.unschedulable << " " << n.gpu_model << " " << n.gpu_cards << " "
        << n.card_mem_units << " " << n.card_core_percent << " " << n.gpu_schedule << " "
        << n.placement << " " << n.max_pods_per_card << " " << n.interconnect << " "
        << n.ready_status << " " << n.kubelet_version << "\n";
  }
  for (const PodSpec& p : o.pods) {
    out << "pod " << p.namespace_ << "/" << p.name << " " << p.uid;
    DumpMap(out, "labels", p.labels);
    DumpMap(out, "annotations", p.annotations);
    DumpResources(out, "requests", p.requests);
    out << " " << p.nonzero_cpu_milli << " " << p.nonzero_memory_bytes << " " << p.num_containers;
    for (const std::string& i : p.images) out << " image " << i;
    DumpMap(out, "nodeSelector", p.node_selector);
    for (const auto& term : p.node_affinity.required_terms) {
      for (const NodeSelectorRequirement& r : term) {
        out << " req " << r.key << " " << r.op;
        for (const std::string& v : r.values) out << " " << v;
      }
    }
    for (const NodeAffinity::Preferred& pref : p.node_affinity.preferred) {
      out << " pref " << pref.weight;
      for (const NodeSelectorRequirement& r : pref.expressions) {
        out << " " << r.key << " " << r.op;
        for (const std::string& v : r.values) out << " " << v;
      }
    }
    for (const Toleration& t : p.tolerations) {
      out << " tol " << t.key << " " << t.op << " " << t.value << " " << t.effect << " "
          << t.toleration_seconds.value_or(-1);
    }
    for (const TopologySpreadConstraint& c : p.topology_spread) {
      out << " spread " << c.max_skew << " " << c.topology_key << " " << c.when_unsatisfiable << " "
          << c.min_domains.value_or(-1) << " " << c.node_affinity_policy << " "
          << c.node_taints_policy;
      DumpSelector(out, c.label_selector);
      for (const std::string& k : c.match_label_keys) out << " " << k;
    }
    out << " " << p.priority << " " << p.preemption_policy << " " << p.node_name << " " << p.phase
        << " " << p.terminating << " gpu " << p.gpu_mem << " " << p.gpu_core << " " << p.gpu_count
        << " " << p.whole_gpus << " " << p.require_whole_device;
    for (const ContainerGpu& g : p.container_gpus) out << " cg " << g.gpu_mem << "/" << g.gpu_core;
    for (const auto& [card, units] : p.allocated_mem) out << " mem " << card << ":" << units;
    for (const auto& [card, units] : p.allocated_core) out << " core " << card << ":" << units;
    DumpOwners(out, p.owner_references);
    for (const ContainerInfo& c : p.containers) {
      out << " container " << c.name << " " << c.image << " " << c.image_digest << " ["
          << ProbeText(c.readiness) << "] [" << ProbeText(c.liveness) << "] ["
          << ProbeText(c.startup) << "] " << c.ready << " " << c.restart_count << " "
          << c.waiting_reason << " " << c.terminated_reason << " " << c.last_terminated_reason;
    }
    for (const std::string& claim : p.pvc_claims) out << " claim " << claim;
    out << " ready " << p.ready_status << "\n";
  }
  for (const DeploymentSpec& d : o.deployments) {
    out << "deployment " << d.namespace_ << "/" << d.name << " " << d.uid << " " << d.replicas;
    DumpSelector(out, d.selector);
    DumpMap(out, "template", d.template_labels);
    out << " " << d.strategy << " " << IntOrPercentText(d.max_surge) << " "
        << IntOrPercentText(d.max_unavailable) << " " << d.min_ready_seconds << " "
        << d.status_replicas << " " << d.ready_replicas << " " << d.available_replicas << "\n";
  }
  for (const ReplicaSetSpec& r : o.replica_sets) {
    out << "replicaset " << r.namespace_ << "/" << r.name << " " << r.uid;
    DumpMap(out, "labels", r.labels);
    DumpOwners(out, r.owner_references);
    out << " " << r.replicas << " " << r.status_replicas << " " << r.ready_replicas << "\n";
  }
  for (const StatefulSetSpec& s : o.stateful_sets) {
    out << "statefulset " << s.namespace_ << "/" << s.name << " " << s.uid << " " << s.replicas;
    DumpSelector(out, s.selector);
    DumpMap(out, "template", s.template_labels);
    for (const std::string& t : s.volume_claim_templates) out << " vct " << t;
    out << " " << s.status_replicas << " " << s.ready_replicas << "\n";
  }
  for (const JobSpec& j : o.jobs) {
    out << "job " << j.namespace_ << "/" << j.name << " " << j.uid;
    DumpOwners(out, j.owner_references);
    out << "\n";
  }
  for (const PodDisruptionBudgetSpec& b : o.pdbs) {
    out << "pdb " << b.namespace_ << "/" << b.name << " " << b.uid << " "
        << IntOrPercentText(b.min_available) << " " << IntOrPercentText(b.max_unavailable);
    if (b.selector) {
      DumpSelector(out, *b.selector);
    } else {
      out << " no selector";
    }
    out << " " << b.unhealthy_pod_eviction_policy;
    if (b.status) {
      out << " status " << b.status->current_healthy << " " << b.status->desired_healthy << " "
          << b.status->disruptions_allowed << " " << b.status->expected_pods;
    }
    out << "\n";
  }
  for (const PersistentVolumeClaimSpec& c : o.pvcs) {
    out << "pvc " << c.namespace_ << "/" << c.name << " " << c.uid << " " << c.volume_name << " "
        << c.storage_class_name.value_or("<unset>") << " " << c.requested_bytes << " " << c.phase
        << "\n";
  }
  for (const PersistentVolumeSpec& v : o.pvs) {
    out << "pv " << v.name << " " << v.uid << " " << v.reclaim_policy << " " << v.storage_class_name
        << " " << v.claim_namespace << "/" << v.claim_name << " " << v.capacity_bytes << " "
        << v.phase << "\n";
  }
  for (const StorageClassSpec& s : o.storage_classes) {
    out << "storageclass " << s.name << " " << s.provisioner << " " << s.reclaim_policy << " "
        << s.volume_binding_mode << " " << s.is_default << "\n";
  }
  for (const ResourceQuotaSpec& q : o.resource_quotas) {
    out << "quota " << q.namespace_ << "/" << q.name << " " << q.uid;
    DumpResources(out, "hard", q.hard);
    DumpResources(out, "used", q.used);
    out << "\n";
  }
  for (const auto& [kind, n] : o.skipped_kinds) out << "skipped " << kind << " " << n << "\n";
  return out.str();
}

// Warnings without their "file:line: " start.
std::vector<std::string> WarningTexts(const KubeObjects& objects) {
  std::vector<std::string> texts;
  for (const std::string& w : objects.warnings) {
    const size_t colon = w.find(": ");
    texts.push_back(colon == std::string::npos ? w : w.substr(colon + 2));
  }
  return texts;
}

// ---- The full export: workloads, budgets, storage, quotas ----------------------------------

const KubeObjects& Export() {
  static const KubeObjects objects = [] {
    Expected<KubeObjects> read = ReadKubeFile(KubeDataDir() + "export.json");
    if (!read.ok()) FAIL(read.error().ToString());
    return read.value();
  }();
  return objects;
}

template <class T>
const T& Named(const std::vector<T>& objects, const std::string& name) {
  auto it =
      std::find_if(objects.begin(), objects.end(), [&](const T& o) { return o.name == name; });
  REQUIRE(it != objects.end());
  return *it;
}

TEST_CASE("the kubectl export reads every kind it lists, and skips nothing") {
  const KubeObjects& e = Export();
  CHECK(e.nodes.size() == 20);
  CHECK(e.pods.size() == 36);
  CHECK(e.deployments.size() == 5);
  CHECK(e.replica_sets.size() == 6);
  CHECK(e.stateful_sets.size() == 2);
  CHECK(e.pdbs.size() == 5);
  CHECK(e.pvcs.size() == 6);
  CHECK(e.pvs.size() == 7);
  CHECK(e.storage_classes.size() == 2);
  CHECK(e.resource_quotas.size() == 3);
  CHECK(e.jobs.empty());
  CHECK(e.skipped_kinds.empty());
  CHECK(e.deployment_sources.size() == 5);
  CHECK(e.pdb_sources.size() == 5);
  CHECK(e.resource_quota_sources.size() == 3);
  REQUIRE(e.pvc_sources.size() == 6);
  CHECK(e.pvc_sources[0].file == KubeDataDir() + "export.json");
  // The one warning: two token-looking annotations, named by key, never by value.
  REQUIRE(e.warnings.size() == 1);
  CHECK(e.warnings[0] == KubeDataDir() +
                             "export.json:725: "
                             "items[6].metadata.annotations.ops.example.com/bootstrap-token: 2 "
                             "annotation(s) that look like secrets were dropped, never stored or "
                             "shown (the first here): example.com/registry, "
                             "ops.example.com/bootstrap-token");
}

TEST_CASE("the JSON and the two-document YAML export read to the same objects") {
  Expected<KubeObjects> yaml = ReadKubeFile(KubeDataDir() + "export.yaml");
  REQUIRE(yaml.ok());
  CHECK(Dump(yaml.value()) == Dump(Export()));
  CHECK(WarningTexts(yaml.value()) == WarningTexts(Export()));
  // Each form points at its own lines.
  CHECK(yaml->warnings[0].starts_with(KubeDataDir() + "export.yaml:543: "));
  CHECK(yaml->pod_sources[0].line != Export().pod_sources[0].line);
  CHECK(Dump(Export()).size() > 50'000);  // the dump really holds the export
}

TEST_CASE("a Deployment keeps replicas, selector, strategy, minReadySeconds and status") {
  const DeploymentSpec& embed = Named(Export().deployments, "embed");
  CHECK(embed.namespace_ == "ai-infer");
  CHECK(embed.uid == "b7ded73a-9943-5a1c-b0b8-c5f1c9828fcc");
  CHECK(embed.replicas == 3);
  CHECK(embed.selector.match_labels == Labels{{"app", "embed"}});
  CHECK(embed.template_labels == Labels{{"app", "embed"}});
  CHECK(embed.strategy == "RollingUpdate");
  CHECK(embed.max_surge == IntOrPercent{1, false});
  CHECK(embed.max_unavailable == IntOrPercent{0, false});
  CHECK(embed.min_ready_seconds == 10);
  CHECK(embed.status_replicas == 3);
  CHECK(embed.ready_replicas == 2);
  CHECK(embed.available_replicas == 2);
  const DeploymentSpec& dns = Named(Export().deployments, "coredns");
  CHECK(dns.max_surge == IntOrPercent{25, true});
  CHECK(dns.max_unavailable == IntOrPercent{1, false});
  CHECK(dns.min_ready_seconds == 0);
}

TEST_CASE("a ReplicaSet keeps its Deployment owner, hash label and replicas") {
  const ReplicaSetSpec& rs = Named(Export().replica_sets, "embed-84c7b5d6f9");
  CHECK(rs.namespace_ == "ai-infer");
  CHECK(rs.labels.at("pod-template-hash") == "84c7b5d6f9");
  CHECK(rs.replicas == 2);
  CHECK(rs.status_replicas == 2);
  CHECK(rs.ready_replicas == 1);
  REQUIRE(rs.owner_references.size() == 1);
  const OwnerReference& owner = rs.owner_references[0];
  CHECK(owner.api_version == "apps/v1");
  CHECK(owner.kind == "Deployment");
  CHECK(owner.name == "embed");
  CHECK(owner.controller);
  CHECK(owner.uid == Named(Export().deployments, "embed").uid);
}

TEST_CASE("a StatefulSet keeps its claim templates; its pods name their claims") {
  const StatefulSetSpec& qwen = Named(Export().stateful_sets, "qwen-chat");
  CHECK(qwen.namespace_ == "llm");
  CHECK(qwen.replicas == 3);
  CHECK(qwen.selector.match_labels == Labels{{"app", "qwen-chat"}});
  CHECK(qwen.volume_claim_templates == std::vector<std::string>{"model-cache"});
  CHECK(qwen.status_replicas == 3);
  CHECK(qwen.ready_replicas == 3);
  CHECK(PodNamed(Export(), "qwen-chat-1").pvc_claims ==
        std::vector<std::string>{"model-cache-qwen-chat-1"});
  CHECK(PodNamed(Export(), "etcd-2").pvc_claims == std::vector<std::string>{"data-etcd-2"});
}

TEST_CASE("PodDisruptionBudgets keep min or max, selector, eviction policy and status") {
  const PodDisruptionBudgetSpec& etcd = Named(Export().pdbs, "etcd");
  CHECK(etcd.namespace_ == "infra");
  CHECK(etcd.min_available == IntOrPercent{51, true});
  CHECK_FALSE(etcd.max_unavailable.has_value());
  CHECK(etcd.min_available->Scaled(3, /*round_up=*/true) == 2);  // semantics.md §4.1
  REQUIRE(etcd.selector.has_value());
  CHECK(etcd.selector->match_labels == Labels{{"app", "etcd"}});
  CHECK(etcd.unhealthy_pod_eviction_policy == "IfHealthyBudget");
  REQUIRE(etcd.status.has_value());
  CHECK(etcd.status->current_healthy == 3);
  CHECK(etcd.status->desired_healthy == 2);
  CHECK(etcd.status->disruptions_allowed == 1);
  CHECK(etcd.status->expected_pods == 3);
  const PodDisruptionBudgetSpec& rerank = Named(Export().pdbs, "rerank");
  CHECK(rerank.max_unavailable == IntOrPercent{1, false});
  CHECK_FALSE(rerank.min_available.has_value());
  CHECK(rerank.unhealthy_pod_eviction_policy == "AlwaysAllow");
  CHECK(Named(Export().pdbs, "embed").min_available == IntOrPercent{50, true});
}

TEST_CASE("claims, volumes and classes keep binding, class, size, phase and reclaim policy") {
  constexpr int64_t kTi = 1024 * kGi;
  const PersistentVolumeClaimSpec& claim = Named(Export().pvcs, "model-cache-qwen-chat-0");
  CHECK(claim.namespace_ == "llm");
  CHECK(claim.storage_class_name == "alicloud-disk-essd");
  CHECK(claim.requested_bytes == 200 * kGi);
  CHECK(claim.phase == "Bound");
  const PersistentVolumeSpec& bound = Named(Export().pvs, claim.volume_name);
  CHECK(bound.claim_namespace == "llm");
  CHECK(bound.claim_name == "model-cache-qwen-chat-0");
  CHECK(bound.reclaim_policy == "Delete");
  CHECK(bound.capacity_bytes == 200 * kGi);
  CHECK(bound.phase == "Bound");
  const PersistentVolumeSpec& left = Named(Export().pvs, "nas-3f6b2c9e-datasets");
  CHECK(left.reclaim_policy == "Retain");
  CHECK(left.phase == "Released");
  CHECK(left.storage_class_name == "alibabacloud-cnfs-nas");
  CHECK(left.capacity_bytes == kTi);
  const StorageClassSpec& essd = Named(Export().storage_classes, "alicloud-disk-essd");
  CHECK(essd.provisioner == "diskplugin.csi.alibabacloud.com");
  CHECK(essd.reclaim_policy == "Delete");
  CHECK(essd.volume_binding_mode == "WaitForFirstConsumer");
  CHECK(essd.is_default);
  const StorageClassSpec& nas = Named(Export().storage_classes, "alibabacloud-cnfs-nas");
  CHECK(nas.reclaim_policy == "Retain");
  CHECK_FALSE(nas.is_default);
}

TEST_CASE("ResourceQuota amounts use the units of the resource each key names") {
  const ResourceQuotaSpec& gpu = Named(Export().resource_quotas, "gpu-quota");
  CHECK(gpu.namespace_ == "ai-infer");
  CHECK(gpu.hard == ResourceList{{"limits.memory", 512 * kGi},
                                 {"pods", 60},
                                 {"requests.aliyun.com/gpu-mem", 160},
                                 {"requests.cpu", 64000},
                                 {"requests.memory", 256 * kGi}});
  // ocr 4 × (2 cpu, 8Gi, 8 units), rerank 3 × (2, 8Gi, 6), embed 3 × (2, 6Gi, 4).
  CHECK(gpu.used.at("requests.cpu") == 20000);
  CHECK(gpu.used.at("requests.memory") == 74 * kGi);
  CHECK(gpu.used.at("requests.aliyun.com/gpu-mem") == 62);
  CHECK(gpu.used.at("pods") == 10);
  const ResourceQuotaSpec& llm = Named(Export().resource_quotas, "llm-quota");
  CHECK(llm.hard.at("requests.storage") == 2 * 1024 * kGi);
  CHECK(llm.hard.at("alicloud-disk-essd.storageclass.storage.k8s.io/requests.storage") ==
        1024 * kGi);
  CHECK(llm.hard.at("persistentvolumeclaims") == 10);
  CHECK(llm.hard.at("count/statefulsets.apps") == 4);
  CHECK(llm.used.at("requests.storage") == 600 * kGi);
  CHECK(Named(Export().resource_quotas, "whole-gpus").used.at("requests.nvidia.com/gpu") == 16);
}

TEST_CASE("pods keep uid, owners, probes, image digests and container status") {
  const PodSpec& crash = PodNamed(Export(), "embed-84c7b5d6f9-z2b4c");
  CHECK(crash.uid == "a38daddb-1579-54a0-9622-87aea3b54c52");
  REQUIRE(crash.owner_references.size() == 1);
  CHECK(crash.owner_references[0].kind == "ReplicaSet");
  CHECK(crash.owner_references[0].name == "embed-84c7b5d6f9");
  CHECK(crash.owner_references[0].controller);
  CHECK(crash.ready_status == "False");
  REQUIRE(crash.containers.size() == 1);
  const ContainerInfo& c = crash.containers[0];
  CHECK(c.name == "embed");
  CHECK(c.image_digest);
  CHECK_FALSE(c.ready);
  CHECK(c.restart_count == 5);
  CHECK(c.waiting_reason == "CrashLoopBackOff");
  CHECK(c.terminated_reason.empty());
  CHECK(c.last_terminated_reason == "OOMKilled");
  CHECK(c.readiness.kind == ProbeKind::kHttpGet);
  CHECK(c.readiness.http_path == "/health");
  CHECK(c.startup.kind == ProbeKind::kHttpGet);
  CHECK(c.startup.failure_threshold == 30);
  CHECK(c.startup.period_seconds == 5);
  CHECK(c.liveness.kind == ProbeKind::kNone);
  CHECK_FALSE(PodNamed(Export(), "embed-6d4f8b9c7-s3t5v").containers[0].image_digest);

  const ContainerInfo& qwen = PodNamed(Export(), "qwen-chat-0").containers.at(0);
  CHECK(qwen.readiness.kind == ProbeKind::kGrpc);
  CHECK(qwen.readiness.port == "50051");
  CHECK(qwen.readiness.grpc_service == "inference");
  CHECK(qwen.liveness.kind == ProbeKind::kTcpSocket);
  CHECK(qwen.liveness.port == "http");
  CHECK(qwen.liveness.period_seconds == 20);
  CHECK(qwen.ready);
  CHECK(PodNamed(Export(), "qwen-chat-0").ready_status == "True");

  const Probe& ocr = PodNamed(Export(), "ocr-7c9d8f6b5-b2k4m").containers.at(0).readiness;
  CHECK(ocr.kind == ProbeKind::kTcpSocket);
  CHECK(ocr.port == "8080");
  CHECK(ocr.initial_delay_seconds == 20);
  CHECK(ocr.timeout_seconds == 1);
  CHECK(ocr.success_threshold == 1);

  const PodSpec& backfill = PodNamed(Export(), "embed-backfill-28940160-5x7zq");
  CHECK(backfill.phase == "Succeeded");
  CHECK(backfill.containers.at(0).terminated_reason == "Completed");
}

TEST_CASE("probes keep the program and the path, never arguments, headers or queries") {
  const Probe& etcd = PodNamed(Export(), "etcd-0").containers.at(0).readiness;
  CHECK(etcd.kind == ProbeKind::kExec);
  CHECK(etcd.exec_command == "etcdctl");
  CHECK(etcd.period_seconds == 5);
  CHECK(PodNamed(Export(), "etcd-0").containers.at(0).liveness.http_path == "/health");
  const Probe& rerank = PodNamed(Export(), "rerank-5b8c7d9f4-g5h7j").containers.at(0).readiness;
  CHECK(rerank.kind == ProbeKind::kHttpGet);
  CHECK(rerank.http_path == "/v1/health");
  CHECK(rerank.port == "http");
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

TEST_CASE("the export's pods sit on existing cards within each card's memory") {
  std::vector<std::string> warnings;
  const ClusterState cluster = BuildClusterState(Export(), &warnings);
  CHECK(warnings.empty());
  int shared = 0;
  for (const NodeState& n : cluster.nodes()) {
    for (const CardState& card : n.cards) {
      CHECK(card.used_mem <= card.total_mem);
      shared += card.used_mem;
    }
  }
  // ocr 4 × 8, qwen 3 × 20, rerank 3 × 6, embed 3 × 4.
  CHECK(shared == 32 + 60 + 18 + 12);
  const NodeState& l20 = cluster.node(cluster.FindNode("cn-hangzhou.10.1.1.21"));
  CHECK(l20.cards.at(0).used_mem == 36);  // two ocr (v1) and qwen-chat-0 (v2)
  CHECK(l20.cards.at(0).pods == 3);
}

// ---- Privacy -------------------------------------------------------------------------------

// Every secret planted in the fixtures: env values, a token-looking annotation, a bootstrap
// token, an exec probe's password, a probe URL's query token and header, the pull secret and
// the secret names, and the last-applied-configuration that repeats them.
const char* const kPlanted[] = {
    "sk-live-7Qm2Xv9Lr4Tz8Kp1Wd6Hs3Jb",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    "c2lnbmF0dXJlLXBsYW50ZWQ",
    "ghp_R8f2K9x4M7q1Z6v3B5n0L2w8Y4t6P1s9D3c7",
    "k8s1ab.0f5e3c2a9d8b7e6f",
    "Pa55-etcd-root-2e8f",
    "tok_5f1e9a7c3b2d4e6f8a0b",
    "hdr-secret-7d1c9e2b",
    "acr-credential",
    "exporter-db",
    "last-applied-configuration",
    // ack-cluster.json's
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI",
    "s3cr3t-Pa55w0rd",
    "fake-jwt-key-9f8e7d6c5b4a39281706",
};

void CheckNoPlanted(const std::string& text) {
  for (const char* secret : kPlanted) {
    INFO(secret);
    CHECK(text.find(secret) == std::string::npos);
  }
}

TEST_CASE("no planted secret is stored in any field or warning of the objects read") {
  // The fixtures do hold them, so the check below can fail.
  const std::string raw = ReadText(KubeDataDir() + "export.json");
  for (const char* secret : {"sk-live-7Qm2", "ghp_R8f2", "Pa55-etcd", "tok_5f1e", "hdr-secret"}) {
    CHECK(raw.find(secret) != std::string::npos);
  }
  for (const char* file : {"export.json", "export.yaml", "ack-cluster.json", "pending-pods.yaml"}) {
    INFO(file);
    Expected<KubeObjects> read = ReadKubeFile(KubeDataDir() + file);
    REQUIRE(read.ok());
    std::string all = Dump(read.value());
    for (const std::string& w : read->warnings) all += w + "\n";
    CHECK(all.size() > 1000);
    CheckNoPlanted(all);
  }
}

TEST_CASE("errors next to secrets name the field, never the secret") {
  const std::string text = ReadText(KubeDataDir() + "export.json");
  struct Mutation {
    const char* near;  // the mutation is at the first `from` after this
    const char* from;
    const char* to;
    const char* message;  // the part the error must hold
  };
  const Mutation mutations[] = {
      // The exec command as one string instead of a list.
      {"\"etcd-0\"", "\"command\": [",
       "\"command\": \"/usr/local/bin/etcdctl --user=root:Pa55-etcd-root-2e8f\", \"args\": [",
       "readinessProbe.exec.command: expected a list, found a string"},
      // A token annotation as a list.
      {"", "\"example.com/registry\": \"ghp_R8f2K9x4M7q1Z6v3B5n0L2w8Y4t6P1s9D3c7\"",
       "\"example.com/registry\": [\"ghp_R8f2K9x4M7q1Z6v3B5n0L2w8Y4t6P1s9D3c7\"]",
       "metadata.annotations.example.com/registry: expected a string, found a list"},
      // A second handler beside the probe whose URL and headers hold tokens.
      {"\"rerank-5b8c7d9f4-g5h7j\"", "\"httpGet\": {",
       "\"exec\": {\"command\": [\"sh\"]}, \"httpGet\": {",
       "readinessProbe.httpGet: a probe has one handler, and `exec` is already given"},
      // A broken quantity in the pod whose env holds secrets.
      {"\"batch-exporter\"", "\"cpu\": \"500m\"", "\"cpu\": \"500 millicores\"",
       "requests.cpu: \"500 millicores\" is not a quantity"},
      // Broken JSON inside a secret's string.
      {"", "\"value\": \"sk-live-7Qm2Xv9Lr4Tz8Kp1Wd6Hs3Jb\"",
       "\"value\": \"sk-live-7Qm2Xv9\nLr4Tz8\"", "invalid JSON: a line break inside a string"},
  };
  for (const Mutation& m : mutations) {
    INFO(m.message);
    std::string mutated = text;
    const size_t at = mutated.find(m.from, mutated.find(m.near));
    REQUIRE(at != std::string::npos);
    mutated.replace(at, std::strlen(m.from), m.to);
    const std::string error = ErrorOf(mutated, "export.json");
    CHECK(error.find(m.message) != std::string::npos);
    CheckNoPlanted(error);
    for (const char* part : {"sk-live", "Pa55", "ghp_", "tok_", "Bearer"}) {
      CHECK(error.find(part) == std::string::npos);
    }
  }
}

struct SecretCase {
  const char* key;
  const char* value;
  bool secret;
};

const SecretCase kSecretCases[] = {
    // Keys that name a credential.
    {"vault.hashicorp.com/agent-token", "s.8fKd93", true},
    {"example.com/db-password", "hunter2", true},
    {"example.com/api-key", "x", true},
    {"example.com/credentials", "{\"user\":\"a\"}", true},
    {"example.com/token", "true", false},  // a flag, not a secret
    {"example.com/token", "", false},
    // Values shaped like one, under innocent keys, alone or inside other text.
    {"example.com/jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.abcdefghijklmn", true},
    {"example.com/config", "{\"auth\":\"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig12345\"}",
     true},
    {"example.com/aws", "AKIAIOSFODNN7EXAMPLE", true},
    {"example.com/openai", "sk-proj-4f9aXb2Lm8Qr7Tz1Wd6H", true},
    {"example.com/stripe", "sk_live_51HqLyjWDarjtT1zdp7dc", true},
    {"example.com/gh", "ghp_R8f2K9x4M7q1Z6v3B5n0L2w8Y4t6P1s9D3c7", true},
    {"example.com/slack", "xoxb-2048-4096-abcdefABCDEF1234", true},
    {"example.com/dsn", "postgres://app:s3cr3t@db:5432/app", true},
    {"example.com/pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIE...", true},
    {"example.com/blob", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", true},
    {"checksum/config", "8c7dd922ad47494fc02c388e12c00eac278ce4b0a1f7f2ac8c8b57f3b5a1f1d0", true},
    // What exports are full of and must survive.
    {"scheduler.framework.gpushare.allocation", "{\"0\":{\"1\":8}}", false},
    {"ALIYUN_COM_GPU_MEM_ASSUME_TIME", "1717212471834620913", false},
    {"csi.volume.kubernetes.io/nodeid",
     "{\"diskplugin.csi.alibabacloud.com\":\"i-bp130d824670e62905c4\"}", false},
    {"deployment.kubernetes.io/revision", "2", false},
    {"example.com/owner-uid", "28961f0c-c037-4169-a6bc-db9c6ff62084", false},
    {"example.com/node", "cn-hangzhou.10.0.1.21-np4b1c6e0d2f7a48c3a1", false},
    {"example.com/image",
     "registry-vpc.cn-hangzhou.aliyuncs.com/acs/gpushare-device-plugin:v1.0.1-3d0fa7c-aliyun",
     false},
    {"example.com/disk", "alicloud-disk-essd-performance-level-pl1", false},
    {"example.com/url", "https://example.com/docs?page=2", false},
    {"kubernetes.io/description", "Runs the OCR model on a shared L20 card", false},
};

TEST_CASE("LooksLikeSecret flags credentials by key or shape and keeps ordinary annotations") {
  for (const SecretCase& c : kSecretCases) {
    INFO(c.key, " = ", c.value);
    CHECK(LooksLikeSecret(c.key, c.value) == c.secret);
  }
}

TEST_CASE("annotations that look like secrets are dropped, with one warning naming the keys") {
  const KubeObjects objects = MustRead(R"(kind: Pod
metadata:
  name: p
  annotations:
    example.com/api-token: abc
    example.com/team: search
    example.com/config: 'postgres://u:hunter2@db/x'
    kubectl.kubernetes.io/last-applied-configuration: '{"spec":{"env":[{"value":"hunter2"}]}}'
spec:
  containers: [{name: c}]
---
kind: Node
metadata:
  name: n
  annotations: {example.com/api-token: xyz}
)");
  CHECK(objects.pods[0].annotations == Labels{{"example.com/team", "search"}});
  CHECK(objects.nodes[0].annotations.empty());
  REQUIRE(objects.warnings.size() == 1);
  CHECK(objects.warnings[0] ==
        "test.yaml:5: metadata.annotations.example.com/api-token: 3 annotation(s) that look like "
        "secrets were dropped, never stored or shown (the first here): example.com/api-token (2), "
        "example.com/config");
  CHECK(objects.warnings[0].find("hunter2") == std::string::npos);
}

// ---- Workload kinds from hand-written objects ----------------------------------------------

TEST_CASE(
    "defaults: a Deployment of 1 with 25% surge and unavailability, class and volume "
    "policies") {
  const KubeObjects o = MustRead(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  selector:
    matchExpressions: [{key: app, operator: In, values: [db]}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-1}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: plain}
provisioner: example.com/disk
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c2}
spec: {storageClassName: ""}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: b}
spec: {selector: {}}
)");
  const DeploymentSpec& d = o.deployments.at(0);
  CHECK(d.namespace_ == "default");
  CHECK(d.replicas == 1);
  CHECK(d.strategy == "RollingUpdate");
  CHECK(d.max_surge == IntOrPercent{25, true});
  CHECK(d.max_unavailable == IntOrPercent{25, true});
  CHECK(d.min_ready_seconds == 0);
  CHECK(d.status_replicas == 0);
  CHECK(o.stateful_sets.at(0).replicas == 1);
  CHECK(o.stateful_sets.at(0).namespace_ == "data");
  CHECK(o.stateful_sets.at(0).selector.match_expressions.at(0).values ==
        std::vector<std::string>{"db"});
  CHECK(o.replica_sets.at(0).replicas == 1);
  CHECK(o.storage_classes.at(0).reclaim_policy == "Delete");
  CHECK(o.storage_classes.at(0).volume_binding_mode == "Immediate");
  CHECK(o.pvs.at(0).reclaim_policy == "Retain");
  CHECK(o.pvs.at(0).phase == "Pending");
  CHECK_FALSE(o.pvcs.at(0).storage_class_name.has_value());  // the default class applies
  CHECK(o.pvcs.at(1).storage_class_name == "");              // no class: static binding only
  CHECK(o.pvcs.at(0).phase == "Pending");
  const PodDisruptionBudgetSpec& b = o.pdbs.at(0);
  CHECK_FALSE(b.min_available.has_value());  // policy/v1 has no default
  CHECK_FALSE(b.max_unavailable.has_value());
  REQUIRE(b.selector.has_value());  // policy/v1: {} matches every pod of the namespace
  CHECK(b.selector->match_labels.empty());
  CHECK(b.unhealthy_pod_eviction_policy == "IfHealthyBudget");
  CHECK_FALSE(b.status.has_value());
}

TEST_CASE("policy/v1beta1 PDBs: minAvailable defaults to 1 and an empty selector matches none") {
  const KubeObjects o = MustRead(R"(apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: old}
spec: {selector: {}}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: older}
spec:
  maxUnavailable: 30%
  selector: {matchLabels: {app: x}}
)");
  CHECK(o.pdbs[0].min_available == IntOrPercent{1, false});
  CHECK_FALSE(o.pdbs[0].selector.has_value());
  CHECK_FALSE(o.pdbs[1].min_available.has_value());
  CHECK(o.pdbs[1].max_unavailable == IntOrPercent{30, true});
  CHECK(o.pdbs[1].selector->match_labels == Labels{{"app", "x"}});
}

struct IntOrPercentCase {
  const char* text;
  int value;
  bool percent;
  const char* error;  // nullptr when the text reads
};

const IntOrPercentCase kIntOrPercentCases[] = {
    {"0", 0, false, nullptr},
    {"2", 2, false, nullptr},
    {"\"3\"", 3, false, nullptr},
    {"0%", 0, true, nullptr},
    {"51%", 51, true, nullptr},
    {"100%", 100, true, nullptr},
    {"101%", 0, false, "\"101%\" is more than 100%"},
    {"-1", 0, false, "\"-1\" is negative"},
    {"1.5", 0, false,
     "\"1.5\" is not a whole number or a percentage; write an integer such as 1 or a percentage "
     "such as 25%"},
    {"12.5%", 0, false, "\"12.5%\" is not a whole number or a percentage"},
    {"half", 0, false, "\"half\" is not a whole number or a percentage"},
};

TEST_CASE("int-or-percent fields read integers and NN% as the API server validates them") {
  for (const IntOrPercentCase& c : kIntOrPercentCases) {
    INFO(c.text);
    const std::string text = std::string(
                                 "kind: PodDisruptionBudget\nmetadata: {name: b}\nspec:\n"
                                 "  minAvailable: ") +
                             c.text + "\n";
    if (c.error == nullptr) {
      CHECK(MustRead(text).pdbs.at(0).min_available == IntOrPercent{c.value, c.percent});
    } else {
      const std::string error = ErrorOf(text);
      CHECK(error.starts_with("bad.yaml:4: spec.minAvailable: "));
      CHECK(error.find(c.error) != std::string::npos);
    }
  }
  // maxSurge alone may pass 100%.
  CHECK(MustRead("kind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {}\n  strategy:\n"
                 "    rollingUpdate: {maxSurge: 150%}\n")
            .deployments[0]
            .max_surge == IntOrPercent{150, true});
}

TEST_CASE("percentages scale as upstream's GetScaledValueFromIntOrPercent") {
  CHECK(IntOrPercent{51, true}.Scaled(3, true) == 2);  // ceil(1.53)
  CHECK(IntOrPercent{51, true}.Scaled(3, false) == 1);
  CHECK(IntOrPercent{50, true}.Scaled(3, true) == 2);
  CHECK(IntOrPercent{25, true}.Scaled(10, true) == 3);
  CHECK(IntOrPercent{25, true}.Scaled(10, false) == 2);
  CHECK(IntOrPercent{100, true}.Scaled(7, true) == 7);
  CHECK(IntOrPercent{0, true}.Scaled(7, true) == 0);
  CHECK(IntOrPercent{2, false}.Scaled(10, true) == 2);
}

TEST_CASE("a PDB with both minAvailable and maxUnavailable is an error at the second") {
  CHECK(ErrorOf(R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: etcd, namespace: infra}
spec:
  minAvailable: 51%
  maxUnavailable: 1
  selector: {matchLabels: {app: etcd}}
)") == "bad.yaml:6: spec.maxUnavailable: minAvailable and maxUnavailable are both set; a "
       "PodDisruptionBudget takes one of them");
  // JSON, items of a List: the line of the later key.
  CHECK(ErrorOf(R"({"kind": "List", "items": [
  {"kind": "PodDisruptionBudget", "metadata": {"name": "b"},
   "spec": {"maxUnavailable": "10%",
            "minAvailable": 2}}]})",
                "pdb.json") ==
        "pdb.json:4: items[0].spec.minAvailable: minAvailable and maxUnavailable are both set; a "
        "PodDisruptionBudget takes one of them");
}

const BadInput kBadWorkloads[] = {
    {"kind: Deployment\nmetadata: {name: d}\n", "bad.yaml:1: missing required key `spec`"},
    {"kind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2}\n",
     "bad.yaml:3: spec: missing required key `selector`"},
    {"kind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: -1\n  selector: {}\n",
     "bad.yaml:4: spec.replicas: -1 is less than 0"},
    {"kind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {}\n  strategy: {type: "
     "RolingUpdate}\n",
     "bad.yaml:5: spec.strategy.type: \"RolingUpdate\" is not a deployment strategy; did you mean "
     "`RollingUpdate`?"},
    {"kind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {}\n  strategy:\n    type: "
     "Recreate\n    rollingUpdate: {maxSurge: 1}\n",
     "bad.yaml:7: spec.strategy.rollingUpdate: rollingUpdate is given with strategy type Recreate; "
     "drop rollingUpdate, or use type RollingUpdate"},
    {"kind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {}\n  strategy:\n    "
     "rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 0%\n",
     "bad.yaml:8: spec.strategy.rollingUpdate.maxUnavailable: maxUnavailable and maxSurge are "
     "both 0; a rollout could neither add nor remove a pod; raise one of them"},
    {"kind: StatefulSet\nmetadata: {name: s}\nspec:\n  selector: {}\n  volumeClaimTemplates:\n  - "
     "spec: {}\n",
     "bad.yaml:6: spec.volumeClaimTemplates[0]: missing required key `metadata`"},
    {"kind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {unhealthyPodEvictionPolicy: "
     "AlwayAllow}\n",
     "bad.yaml:3: spec.unhealthyPodEvictionPolicy: \"AlwayAllow\" is not an unhealthy pod eviction "
     "policy; did you mean `AlwaysAllow`?"},
    {"kind: PersistentVolumeClaim\nmetadata: {name: c}\nspec:\n  resources:\n    requests: "
     "{storage: 10GB}\n",
     "bad.yaml:5: spec.resources.requests.storage: \"10GB\" is not a quantity; did you mean 10Gi?"},
    {"kind: PersistentVolumeClaim\nmetadata: {name: c}\nstatus: {phase: Bund}\n",
     "bad.yaml:3: status.phase: \"Bund\" is not a claim phase; did you mean `Bound`?"},
    {"kind: PersistentVolume\nmetadata: {name: v}\nspec: {persistentVolumeReclaimPolicy: "
     "Keep}\n",
     "bad.yaml:3: spec.persistentVolumeReclaimPolicy: \"Keep\" is not a reclaim policy; use "
     "Retain, Delete or Recycle"},
    {"kind: StorageClass\nmetadata: {name: s}\n", "bad.yaml:1: missing required key `provisioner`"},
    {"kind: StorageClass\nmetadata: {name: s}\nprovisioner: x\nreclaimPolicy: Recycle\n",
     "bad.yaml:4: reclaimPolicy: \"Recycle\" is not a StorageClass reclaim policy; use Delete or "
     "Retain"},
    {"kind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard: {requests.cpu: 64 cores}\n",
     "bad.yaml:4: spec.hard.requests.cpu: \"64 cores\" is not a quantity; cpu is in cores, e.g. 2, "
     "1.5 or 500m"},
    {"kind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard: {requests.aliyun.com/gpu-mem: "
     "1.5}\n",
     "bad.yaml:4: spec.hard.requests.aliyun.com/gpu-mem: \"1.5\" is not a whole number; extended "
     "resources such as aliyun.com/gpu-mem are integers"},
    {"kind: ReplicaSet\nmetadata:\n  name: r\n  ownerReferences:\n  - {kind: Deployment, name: a, "
     "controller: true}\n  - {kind: Deployment, name: b, controller: true}\n",
     "bad.yaml:6: metadata.ownerReferences[1].controller: a second owner reference with "
     "controller: true; an object has at most one managing controller"},
    {"kind: Pod\nmetadata:\n  name: p\n  ownerReferences: [{kind: ReplicaSet}]\nspec:\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:4: metadata.ownerReferences[0]: missing required key `name`"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    readinessProbe: "
     "{periodSeconds: 5}\n",
     "bad.yaml:6: spec.containers[0].readinessProbe: a probe needs a handler; give one of exec, "
     "httpGet, tcpSocket and grpc"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    livenessProbe:\n      "
     "tcpSocket: {port: 99999}\n",
     "bad.yaml:7: spec.containers[0].livenessProbe.tcpSocket.port: 99999 is more than 65535"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    startupProbe:\n      "
     "httpGet: {path: /, port: 8080}\n      periodSeconds: 0\n",
     "bad.yaml:8: spec.containers[0].startupProbe.periodSeconds: 0 is less than 1"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    readinessProbe:\n"
     "      httpGet: {port: a-very-long-port-name}\n",
     "bad.yaml:7: spec.containers[0].readinessProbe.httpGet.port: \"a-very-long-port-name\" is "
     "not a port number or name; a port name has at most 15 characters"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\nstatus:\n  conditions:\n  "
     "- {type: Ready, status: Yes}\n",
     "bad.yaml:7: status.conditions[0].status: \"Yes\" is not a condition status; use True, False "
     "or Unknown"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  volumes:\n  - name: v\n"
     "    persistentVolumeClaim: {readOnly: true}\n",
     "bad.yaml:7: spec.volumes[0].persistentVolumeClaim: missing required key `claimName`"},
    {"kind: Deployment\nmetadata: {name: a}\nspec: {selector: {}}\n---\nkind: Deployment\n"
     "metadata: {name: a}\nspec: {selector: {}}\n",
     "bad.yaml:6: metadata.name: duplicate Deployment \"default/a\"; it is also at bad.yaml:2; "
     "give "
     "each object once; pass an export only once"},
};

TEST_CASE("bad workload, budget, storage, quota and probe fields give the line and a fix") {
  for (const BadInput& bad : kBadWorkloads) {
    CAPTURE(bad.text);
    CHECK(ErrorOf(bad.text) == bad.message);
  }
}

TEST_CASE("container status and the Ready condition read from a hand-written pod") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata:
  name: p
  uid: 1234
spec:
  containers:
  - name: app
    image: example.com/app:1@sha256:abc
    readinessProbe:
      exec: {command: ["/bin/sh", "-c", "curl -H 'Authorization: Bearer zzz' localhost"]}
  - name: side
    image: example.com/side:2
  volumes:
  - {name: scratch, ephemeral: {volumeClaimTemplate: {spec: {}}}}
  - {name: cache, persistentVolumeClaim: {claimName: cache-1}}
  - {name: tmp, emptyDir: {}}
status:
  phase: Running
  conditions:
  - {type: PodScheduled, status: "True"}
  - {type: Ready, status: "False"}
  containerStatuses:
  - name: side
    ready: true
    restartCount: 2
    state: {terminated: {reason: Error, message: "panic: token=zzz"}}
  - name: ghost
    ready: true
)");
  CHECK(p.uid == "1234");
  CHECK(p.ready_status == "False");
  REQUIRE(p.containers.size() == 2);
  CHECK(p.containers[0].image_digest);
  CHECK(p.containers[0].readiness.exec_command == "sh");
  CHECK_FALSE(p.containers[0].ready);  // no status for it
  CHECK(p.containers[1].ready);
  CHECK(p.containers[1].restart_count == 2);
  CHECK(p.containers[1].terminated_reason == "Error");
  CHECK_FALSE(p.containers[1].image_digest);
  CHECK(p.pvc_claims == std::vector<std::string>{"p-scratch", "cache-1"});
  CHECK(Dump(MustRead("kind: Pod\nmetadata: {name: q}\nspec: {containers: [{name: c}]}\n"))
            .find(" ready \n") != std::string::npos);  // no status: Ready not reported
}

// ---- JSON and YAML texts -------------------------------------------------------------------

TEST_CASE("JSON strings decode escapes, surrogate pairs and unicode") {
  const PodSpec p = OnePod(R"({"kind": "Pod", "metadata": {"name": "p", "labels": {
    "a": "tab\there", "b": "caf\u00e9 \ud83d\ude80", "c": "quote \" slash \/ back \\",
    "d": "lone \udc00 surrogate", "e": "já"}},
    "spec": {"containers": [{"name": "c"}]}})");
  CHECK(p.labels.at("a") == "tab\there");
  CHECK(p.labels.at("b") == "caf\xC3\xA9 \xF0\x9F\x9A\x80");
  CHECK(p.labels.at("c") == "quote \" slash / back \\");
  CHECK(p.labels.at("d") == "lone \xEF\xBF\xBD surrogate");
  CHECK(p.labels.at("e") == "já");
}

TEST_CASE("concatenated JSON documents read one after another, each with its lines") {
  const KubeObjects o = MustRead(
      "{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}\n\n"
      "{\"kind\": \"List\", \"items\": [\n  {\"kind\": \"Node\", \"metadata\": {\"name\": "
      "\"b\"}}]}");
  REQUIRE(o.nodes.size() == 2);
  CHECK(o.node_sources[0].line == 1);
  CHECK(o.node_sources[1].line == 4);
}

const BadInput kBadJson[] = {
    {"{\"kind\": \"Node\",\n \"metadata\": {\"name\": \"a\",}}",
     "bad.yaml:2: invalid JSON: expected a key in double quotes, found `}`; JSON allows no comma "
     "before `}`"},
    {"{\"kind\": \"List\", \"items\": [1,\n 2,]}",
     "bad.yaml:2: invalid JSON: expected a value, found `]`; JSON allows no comma before `]`"},
    {"{\"kind\": \"Node\",\n \"metadata\": {\"name\": \"a\"\n",
     "bad.yaml:3: invalid JSON: the text ends inside an object; the file may have been cut short"},
    {"{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}} x",
     "bad.yaml:1: invalid JSON: expected a value, found `x`; strings are written in double "
     "quotes; true, false and null in lower case"},
    {"{\"kind\": \"Node\", \"spec\": {\"unschedulable\": True}}",
     "bad.yaml:1: invalid JSON: expected a value, found `T`; strings are written in double "
     "quotes; true, false and null in lower case"},
    {"{\"kind\": \"Node\", \"x\": 01}", "bad.yaml:1: invalid JSON: invalid number"},
    {"{\"kind\": \"Node\", \"x\": \"a\\qb\"}",
     "bad.yaml:1: invalid JSON: an unknown escape in a string; escape a backslash as \\\\"},
    {"{\"kind\": \"Node\", \"x\": \"\\u12G4\"}",
     "bad.yaml:1: invalid JSON: a \\u escape needs four hex digits"},
    {"{\"kind\": \"Node\" \"x\": 1}",
     "bad.yaml:1: invalid JSON: expected `,` or `}`, found a string; a comma is probably missing "
     "before it"},
    {"{\"kind\": \"Node\", \"x\" 1}",
     "bad.yaml:1: invalid JSON: expected `:` after the key, found `1`"},
    {"{\"kind\": \"Node\", \"x\": \"a\tb\"}",
     "bad.yaml:1: invalid JSON: a control character inside a string; escape it, e.g. \\t or "
     "\\u0001"},
};

TEST_CASE("bad JSON gives the line and what to fix, never the text around it") {
  for (const BadInput& bad : kBadJson) {
    CAPTURE(bad.text);
    CHECK(ErrorOf(bad.text) == bad.message);
  }
}

TEST_CASE("deep nesting and self-referencing YAML aliases are errors, not crashes") {
  const std::string deep =
      "{\"kind\": \"Node\", \"x\": " + std::string(2000, '[') + std::string(2000, ']') + "}";
  CHECK(ErrorOf(deep) == "bad.yaml:1: invalid JSON: nested more than 512 deep");
  std::string yaml_deep =
      "kind: Node\nx: " + std::string(2000, '[') + std::string(2000, ']') + "\n";
  CHECK(ErrorOf(yaml_deep) ==
        "bad.yaml:2: invalid YAML: nested too deep; no Kubernetes object nests this far");
  CHECK(
      ErrorOf("&a {kind: List, items: [*a]}\n") ==
      "bad.yaml:1: invalid YAML: an alias inside the node it names; a node cannot contain itself");
}

// Found by tools/fuzz/kube_reader_fuzz: yaml-cpp answered an empty document at a stray `,`
// forever, so the reader hung and grew without bound.
TEST_CASE("a stray comma where a YAML document should start is an error, not an endless read") {
  const BadInput cases[] = {
      {",", "bad.yaml:1: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?"},
      {"- a\n,\n",
       "bad.yaml:2: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?"},
      {"{\n  2889Ki\",\n      \"pods\": \"64\"\n    },\n",
       "bad.yaml:4: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?"},
  };
  for (const BadInput& bad : cases) {
    CAPTURE(bad.text);
    CHECK(ErrorOf(bad.text) == bad.message);
  }
  // Documents that are empty or only `---` still read: each starts past the one before.
  CHECK(ErrorOf("---\n---\n---\n") ==
        "bad.yaml: the file holds no Kubernetes objects; expected the output of kubectl get -o "
        "yaml or -o json");
}

TEST_CASE("YAML aliases share their anchor's value") {
  const KubeObjects o = MustRead(R"(kind: List
items:
- kind: Pod
  metadata: {name: a, labels: &labels {app: web, tier: front}}
  spec: {containers: [{name: c}]}
- kind: Pod
  metadata: {name: b, labels: *labels}
  spec: {containers: [{name: c}]}
)");
  CHECK(o.pods[1].labels == Labels{{"app", "web"}, {"tier", "front"}});
}

TEST_CASE("YAML flow style that is not JSON still reads as YAML") {
  const KubeObjects o = MustRead("{kind: Node, metadata: {name: flow}}\n");
  REQUIRE(o.nodes.size() == 1);
  CHECK(o.nodes[0].name == "flow");
}

}  // namespace
}  // namespace knobsim
