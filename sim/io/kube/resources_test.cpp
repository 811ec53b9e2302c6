// Resource quantities, limits defaulting, sidecar init containers and ACK's GPU limits.
#include <doctest/doctest.h>

#include <string>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

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

}  // namespace
}  // namespace knobsim
