// Pods: phases, pending pods, requests for scoring, priority, unmodelled scheduling, probes and
// container status.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The 20-node ACK export ----------------------------------------------------------------

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

// ---- Host ports ----------------------------------------------------------------------------

TEST_CASE("host ports: hostPort > 0 of spec.containers, defaults TCP and 0.0.0.0, hostNetwork") {
  const PodSpec p = OnePod(R"(apiVersion: v1
kind: Pod
metadata: {name: agent}
spec:
  initContainers:
  - {name: init, image: i:1, ports: [{containerPort: 7000, hostPort: 7000}]}
  containers:
  - name: a
    image: a:1
    ports:
    - {containerPort: 8080}
    - {containerPort: 9100, hostPort: 9100}
    - {containerPort: 53, hostPort: 5353, protocol: UDP, hostIP: 10.0.0.1}
    - {containerPort: 81, hostPort: 81, hostIP: ""}
)");
  REQUIRE(p.host_ports.size() == 3);  // not the init container's, not the one without hostPort
  CHECK(p.host_ports[0] == HostPort{"0.0.0.0", "TCP", 9100});
  CHECK(p.host_ports[1] == HostPort{"10.0.0.1", "UDP", 5353});
  CHECK(p.host_ports[2] == HostPort{"0.0.0.0", "TCP", 81});

  // The API server defaults hostPort to containerPort on a hostNetwork pod.
  const PodSpec net = OnePod(R"(apiVersion: v1
kind: Pod
metadata: {name: exporter}
spec:
  hostNetwork: true
  containers:
  - {name: e, image: e:1, ports: [{containerPort: 9100}, {containerPort: 9101, hostPort: 9200}]}
)");
  REQUIRE(net.host_ports.size() == 2);
  CHECK(net.host_ports[0].port == 9100);
  CHECK(net.host_ports[1].port == 9200);
}

TEST_CASE("host ports: a bad port or protocol names the field") {
  const std::string head = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                           "  - name: a\n    ports:\n";
  CHECK(ErrorOf(head + "    - {containerPort: 80, hostPort: 70000}\n") ==
        "bad.yaml:8: spec.containers[0].ports[0].hostPort: 70000 is more than 65535");
  CHECK(ErrorOf(head + "    - {containerPort: 80, hostPort: 80, protocol: tcp}\n")
            .starts_with("bad.yaml:8: spec.containers[0].ports[0].protocol: \"tcp\" is not a "
                         "port protocol"));
}

// ---- Pending pods --------------------------------------------------------------------------

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
        "test.yaml:7: pod default/b: priority class \"batch-low\" is not among the objects read "
        "and the pod has no spec.priority; its priority reads as 0 (add the PriorityClass, e.g. "
        "kubectl get priorityclasses -o yaml)");
}

// The Priority admission plugin (plugin/pkg/admission/priority): a named class gives its value
// and, where the pod sets none, its preemption policy; a pod naming no class takes the global
// default's; an exported pod's spec.priority stands.
TEST_CASE("PriorityClass objects give manifests' pods their priority and preemption policy") {
  const KubeObjects objects = MustRead(R"(kind: Pod
metadata: {name: named}
spec:
  priorityClassName: batch-low
  containers: [{name: c}]
---
kind: Pod
metadata: {name: none}
spec:
  containers: [{name: c}]
---
kind: Pod
metadata: {name: own-policy}
spec:
  priorityClassName: batch-low
  preemptionPolicy: PreemptLowerPriority
  containers: [{name: c}]
---
kind: Pod
metadata: {name: exported}
spec:
  priorityClassName: batch-low
  priority: 7
  containers: [{name: c}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch-low}
value: -5
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default-tier}
value: 1000
globalDefault: true
)");
  REQUIRE(objects.priority_classes.size() == 2);
  CHECK(objects.priority_classes[1].global_default);
  CHECK(objects.pods[0].priority == -5);
  CHECK(objects.pods[0].preemption_policy == "Never");
  CHECK(objects.pods[1].priority == 1000);
  CHECK(objects.pods[1].preemption_policy == "PreemptLowerPriority");
  CHECK(objects.pods[2].priority == -5);
  CHECK(objects.pods[2].preemption_policy == "PreemptLowerPriority");
  CHECK(objects.pods[3].priority == 7);
  CHECK(objects.warnings.empty());
  // Classes read with the cluster resolve the pods of another file.
  const Expected<KubeObjects> pods = ReadKubeString(R"(kind: Pod
metadata: {name: later}
spec:
  priorityClassName: batch-low
  containers: [{name: c}]
)",
                                                    "pods.yaml");
  REQUIRE(pods.ok());
  CHECK(pods->pods[0].priority == 0);
  CHECK(pods->warnings.size() == 1);
}

TEST_CASE("a pod's start time, nominated node and preemption condition are read") {
  const KubeObjects objects = MustRead(R"(kind: Pod
metadata: {name: victim, deletionTimestamp: "2026-01-05T08:00:30Z"}
spec:
  nodeName: n1
  containers: [{name: c}]
status:
  phase: Running
  startTime: "2026-01-05T08:00:00Z"
  nominatedNodeName: n2
  conditions:
  - {type: DisruptionTarget, status: "True", reason: PreemptionByScheduler}
)");
  const PodSpec& pod = objects.pods[0];
  REQUIRE(pod.start_time.has_value());
  CHECK(*pod.start_time == doctest::Approx(1767600000.0));
  CHECK(pod.nominated_node_name == "n2");
  CHECK(pod.preempted_by_scheduler);
  CHECK(pod.terminating);
  CHECK(!MustRead("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n")
             .pods[0]
             .start_time);
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

TEST_CASE("a pod asking MIG devices holds whole devices of that resource; two kinds are refused") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: a
    resources: {limits: {nvidia.com/mig-1g.10gb: "2"}}
  - name: b
    resources: {limits: {nvidia.com/mig-1g.10gb: "1"}}
)");
  CHECK(p.whole_gpus == 3);
  CHECK(p.device_resource == "nvidia.com/mig-1g.10gb");
  CHECK(p.container_whole_gpus_max == 2);
  CHECK(p.requests.at("nvidia.com/mig-1g.10gb") == 3);
  struct Bad {
    const char* limits;
    const char* message;
  };
  for (const Bad& b : {Bad{R"({nvidia.com/gpu: "1", nvidia.com/mig-1g.10gb: "1"})",
                           "pod default/p: asking nvidia.com/mig-1g.10gb beside nvidia.com/gpu "
                           "is not modelled"},
                       Bad{R"({nvidia.com/mig-1g.10gb: "1", nvidia.com/mig-3g.40gb: "1"})",
                           "pod default/p: asking nvidia.com/mig-3g.40gb beside "
                           "nvidia.com/mig-1g.10gb is not modelled"},
                       Bad{R"({nvidia.com/mig-big: "1"})",
                           "pod default/p: nvidia.com/mig-big names no MIG profile"}}) {
    CAPTURE(b.limits);
    const std::string error =
        ErrorOf(std::string("kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: "
                            "a\n    resources: {limits: ") +
                b.limits + "}\n");
    CAPTURE(error);
    CHECK(error.find(b.message) != std::string::npos);
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

TEST_CASE("a pod of a sharing mode knobsim does not model stops the read at its request") {
  struct Case {
    const char* rule;
    const char* annotations;  // metadata.annotations, flow style; "" none
    const char* limits;
    const char* where;
  };
  const Case cases[] = {
      {"hami-resource", "", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 6000, nvidia.com/priority: 0}",
       "bad.yaml:8: spec.containers[0].resources.limits.nvidia.com/priority: pod default/p: HAMi"},
      {"hami-pod-annotation", "{hami.io/device-scoring-weights: \"slot=1,core=1,memory=2\"}",
       "{nvidia.com/gpu: 1}",
       "bad.yaml:3: metadata.annotations.hami.io/device-scoring-weights: pod default/p: HAMi"},
      {"shared-resource", "", "{nvidia.com/mig-1g.10gb.shared: 1}",
       "bad.yaml:8: spec.containers[0].resources.limits.nvidia.com/mig-1g.10gb.shared: pod "
       "default/p: "},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    std::string text = "kind: Pod\nmetadata:\n";
    text += *c.annotations ? std::string("  annotations: ") + c.annotations + "\n  name: p\n"
                           : std::string("  name: p\n  labels: {}\n");
    text += "spec:\n  containers:\n  - name: c\n    resources: {limits: ";
    text += std::string(c.limits) + "}\n";
    const std::string error = ErrorOf(text);
    CHECK(error.find(c.where) == 0);
    CHECK(error.find("is not modelled") != std::string::npos);
  }
  // ACK's own resources, plain whole cards and MIG devices (§2.7) read as before; renamed
  // replicas are whole devices of their own name.
  CHECK(OnePod("kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: "
               "{limits: {nvidia.com/gpu: 1}}\n")
            .whole_gpus == 1);
  const PodSpec shared = OnePod(
      "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: "
      "{limits: {nvidia.com/gpu.shared: 2}}\n");
  CHECK(shared.whole_gpus == 2);
  CHECK(shared.device_resource == "nvidia.com/gpu.shared");
  CHECK(shared.container_whole_gpus_max == 2);
}

}  // namespace
}  // namespace knobsim

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

TEST_CASE("podAffinity and podAntiAffinity read every term field; Namespace objects keep labels") {
  const KubeObjects objects = MustRead(R"(apiVersion: v1
kind: List
items:
- kind: Namespace
  metadata: {name: team-a, labels: {team: a}}
- kind: Pod
  metadata: {name: web-0, namespace: team-a, labels: {app: web, pod-template-hash: h1}}
  spec:
    containers: [{name: c}]
    affinity:
      podAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: db}}
          namespaces: [data]
          namespaceSelector: {matchLabels: {team: a}}
          topologyKey: topology.kubernetes.io/zone
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: web}}
          matchLabelKeys: [pod-template-hash]
          topologyKey: kubernetes.io/hostname
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 40
          podAffinityTerm:
            topologyKey: topology.kubernetes.io/zone
)");
  REQUIRE(objects.namespaces.size() == 1);
  CHECK(objects.namespaces[0].labels ==
        Labels{{"team", "a"}, {"kubernetes.io/metadata.name", "team-a"}});
  const PodSpec& p = PodNamed(objects, "web-0");
  REQUIRE(p.pod_affinity.required.size() == 1);
  const PodAffinityTerm& a = p.pod_affinity.required[0];
  CHECK(a.label_selector.match_labels == Labels{{"app", "db"}});
  CHECK(a.namespaces == std::vector<std::string>{"data"});
  REQUIRE(a.namespace_selector.has_value());
  CHECK(a.namespace_selector->match_labels == Labels{{"team", "a"}});
  CHECK(a.topology_key == "topology.kubernetes.io/zone");
  REQUIRE(p.pod_anti_affinity.required.size() == 1);
  CHECK(p.pod_anti_affinity.required[0].match_label_keys ==
        std::vector<std::string>{"pod-template-hash"});
  REQUIRE(p.pod_anti_affinity.preferred.size() == 1);
  CHECK(p.pod_anti_affinity.preferred[0].weight == 40);
  // No labelSelector: the never-matching requirement.
  const auto& none = p.pod_anti_affinity.preferred[0].term.label_selector.match_expressions;
  REQUIRE(none.size() == 1);
  CHECK(none[0].key.empty());
  CHECK(WarningTexts(objects).empty());
}

TEST_CASE("bad inter-pod affinity terms are refused with the field named") {
  const std::string head =
      "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  affinity:\n"
      "    podAntiAffinity:\n";
  CHECK(ErrorOf(head + "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                       "      - labelSelector: {}\n") .find("topologyKey") != std::string::npos);
  CHECK(ErrorOf(head + "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                       "      - {topologyKey: '', labelSelector: {}}\n")
            .find("empty topologyKey") != std::string::npos);
  CHECK(ErrorOf(head + "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                       "      - {topologyKey: z, matchLabelKeys: [a]}\n")
            .find("needs a labelSelector") != std::string::npos);
  CHECK(ErrorOf(head + "      preferredDuringSchedulingIgnoredDuringExecution:\n"
                       "      - {weight: 101, podAffinityTerm: {topologyKey: z}}\n")
            .find("weight") != std::string::npos);
}

// ---- HAMi ----------------------------------------------------------------------------------

TEST_CASE(
    "a HAMi pod's containers ask vGPUs as GenerateResourceRequests reads them; kube-scheduler "
    "counts none of HAMi's resources; the allocation's UUIDs are kept, never shown") {
  auto pod = [](const std::string& containers, const std::string& annotations = "") {
    return "kind: Pod\nmetadata:\n  name: p\n" +
           (annotations.empty() ? "" : "  annotations:\n" + annotations) +
           "spec:\n  nodeName: n\n  containers:\n" + containers;
  };
  auto container = [](const std::string& name, const std::string& limits) {
    return "  - name: " + name + "\n    image: x\n    resources:\n      limits: " + limits + "\n";
  };
  struct Case {
    const char* name;
    std::string containers;
    std::vector<HamiRequest> want;
  };
  const Case cases[] = {
      {"gpumem and gpucores",
       container(
           "a",
           R"({cpu: "1", nvidia.com/gpu: "1", nvidia.com/gpumem: "6000", nvidia.com/gpucores: "30"})"),
       {{1, 6000, 100, 0 + 30}}},
      {"a percentage above 100 counts as 100, cores default 0",
       container("a", R"({nvidia.com/gpu: "2", nvidia.com/gpumem-percentage: "150"})"),
       {{2, 0, 100, 0}}},
      {"a percentage, and a second container of whole-memory vGPUs",
       container(
           "a",
           R"({nvidia.com/gpu: "1", nvidia.com/gpumem-percentage: "25", nvidia.com/gpucores: "20"})") +
           container("b", R"({nvidia.com/gpu: "1", nvidia.com/gpucores: "100"})") +
           container("sidecar", R"({cpu: "100m"})"),
       {{1, 0, 25, 20}, {1, 0, 100, 100}}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const PodSpec p = OnePod(pod(c.containers));
    CHECK(p.hami == c.want);
    CHECK(p.whole_gpus == 0);
    for (const char* r : {"nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpumem-percentage",
                          "nvidia.com/gpucores"})
      CHECK(p.requests.count(r) == 0);
  }
  const PodSpec allocated = OnePod(pod(
      container("a", R"({nvidia.com/gpu: "2", nvidia.com/gpumem: "3000"})"),
      "    hami.io/vgpu-devices-allocated: "
      "'GPU-8a3c3b3e6f2e4b1e9a0c2f3d4e5f6a70,NVIDIA,3000,0:GPU-1b2c3d4e5f604a7b8c9d0e1f2a3b4c5d,"
      "NVIDIA,3000,0:;'\n    hami.io/vgpu-node: n\n    hami.io/gpu-scheduler-policy: binpack\n"));
  CHECK(allocated.hami_allocated ==
        std::vector<std::string>{"GPU-8a3c3b3e6f2e4b1e9a0c2f3d4e5f6a70",
                                 "GPU-1b2c3d4e5f604a7b8c9d0e1f2a3b4c5d"});
  CHECK(allocated.annotations.count("hami.io/vgpu-devices-allocated") == 0);
  CHECK(allocated.annotations.at("hami.io/gpu-scheduler-policy") == "binpack");

  struct Bad {
    const char* name;
    std::string text;
    const char* error;
  };
  const Bad bad[] = {
      {"a GPU policy knobsim does not model",
       pod(container("a", R"({nvidia.com/gpu: "1", nvidia.com/gpumem: "3000"})"),
           "    hami.io/gpu-scheduler-policy: topology-aware\n"),
       "HAMi's GPU scheduler policy \"topology-aware\" is not modelled"},
      {"a card pinned by UUID",
       pod(container("a", R"({nvidia.com/gpu: "1", nvidia.com/gpumem: "3000"})"),
           "    nvidia.com/use-gpuuuid: GPU-8a3c3b3e6f2e4b1e9a0c2f3d4e5f6a70\n"),
       "metadata.annotations.nvidia.com/use-gpuuuid: pod default/p: HAMi"},
      {"HAMi-core's task priority",
       pod(container(
           "a", R"({nvidia.com/gpu: "1", nvidia.com/gpumem: "3000", nvidia.com/priority: "0"})")),
       "HAMi (resource nvidia.com/priority) is not modelled"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.name);
    const std::string error = ErrorOf(b.text);
    CAPTURE(error);
    CHECK(error.find(b.error) != std::string::npos);
    CHECK(error.find("8a3c3b3e") == std::string::npos);
  }
}

}  // namespace
}  // namespace knobsim
