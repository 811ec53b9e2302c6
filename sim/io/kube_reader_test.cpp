#include "sim/io/kube_reader.h"

#include <doctest/doctest.h>

#include <algorithm>
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
  kind: Deployment
  metadata: {name: web}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web-1}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: api}
metadata:
  resourceVersion: ""
)");
  CHECK(list.nodes.size() == 1);
  CHECK(list.skipped_kinds == std::map<std::string, int>{{"Deployment", 2}, {"ReplicaSet", 1}});
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
              "node.json") == "node.json:5: invalid JSON: end of map flow not found");
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

}  // namespace
}  // namespace knobsim
