// The Dynamic Resource Allocation kinds as the reader keeps them: names qualified with the
// driver's domain, quantities in milli-units, v1 and v1beta1 shapes alike, and the API server's
// validation errors where a wrong value would change the allocation
// (k8s.io/api resource/v1/types.go; pkg/apis/resource/validation/validation.go).
#include <doctest/doctest.h>

#include <string>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// What the NVIDIA DRA driver publishes for a node with two H100s (gpu.nvidia.com, one pool per
// node), trimmed to the fields the allocator reads.
const char* const kSlice = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu.nvidia.com-x7k2p}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 3, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      type: {string: gpu}
      productName: {string: NVIDIA H100 80GB HBM3}
      architecture: {string: Hopper}
      driverVersion: {version: 560.35.3}
      cudaComputeCapability: {version: 9.0.0}
      index: {int: 0}
      resource.kubernetes.io/pcieRoot: {string: pci0000:1a}
    capacity:
      memory: {value: 80Gi}
  - name: gpu-1
    attributes:
      type: {string: gpu}
      index: {int: 1}
      migCapable: {bool: true}
      ports: {ints: [8000, 8001]}
    capacity:
      memory:
        value: 80Gi
        requestPolicy:
          default: 10Gi
          validRange: {min: 1Gi, step: 1Gi}
    allowMultipleAllocations: true
    taints:
    - {key: gpu.nvidia.com/unhealthy, effect: NoSchedule}
)";

TEST_CASE("a ResourceSlice: names in the driver's domain, quantities in milli-units") {
  const KubeObjects objects = MustRead(kSlice);
  REQUIRE(objects.resource_slices.size() == 1);
  const ResourceSliceSpec& s = objects.resource_slices[0];
  CHECK(s.name == "node-a-gpu.nvidia.com-x7k2p");
  CHECK(s.driver == "gpu.nvidia.com");
  CHECK(s.node_name == "node-a");
  CHECK(s.pool == "node-a");
  CHECK(s.pool_generation == 3);
  CHECK(s.pool_slice_count == 1);
  REQUIRE(s.devices.size() == 2);
  const DraDevice& gpu0 = s.devices[0];
  CHECK(gpu0.attributes.at("gpu.nvidia.com/productName").strings ==
        std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  CHECK(gpu0.attributes.at("gpu.nvidia.com/driverVersion").kind == DraAttribute::Kind::kVersion);
  CHECK(gpu0.attributes.at("gpu.nvidia.com/index").ints == std::vector<int64_t>{0});
  // A name with a domain keeps it.
  CHECK(gpu0.attributes.count("resource.kubernetes.io/pcieRoot") == 1);
  CHECK(gpu0.capacity.at("gpu.nvidia.com/memory").milli == int64_t{80} * 1024 * 1024 * 1024 * 1000);
  const DraDevice& gpu1 = s.devices[1];
  CHECK(gpu1.attributes.at("gpu.nvidia.com/migCapable").kind == DraAttribute::Kind::kBool);
  CHECK(gpu1.attributes.at("gpu.nvidia.com/ports").list);
  CHECK(gpu1.attributes.at("gpu.nvidia.com/ports").ints == std::vector<int64_t>{8000, 8001});
  CHECK(gpu1.allow_multiple_allocations);
  const DraCapacityPolicy& policy = *gpu1.capacity.at("gpu.nvidia.com/memory").request_policy;
  CHECK(policy.default_milli == int64_t{10} * 1024 * 1024 * 1024 * 1000);
  CHECK(policy.has_range);
  CHECK(policy.step_milli == int64_t{1024} * 1024 * 1024 * 1000);
  REQUIRE(gpu1.taints.size() == 1);
  CHECK(gpu1.taints[0].effect == "NoSchedule");
}

TEST_CASE("partitionable devices: a slice of counter sets, and what each partition consumes") {
  const KubeObjects objects = MustRead(R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: counters}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 2}
  sharedCounters:
  - name: gpu-0-counters
    counters:
      memory: {value: 80Gi}
      multiprocessors: {value: "132"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: devices}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-0-mig-1g.10gb-0
    consumesCounters:
    - counterSet: gpu-0-counters
      counters:
        memory: {value: 10Gi}
        multiprocessors: {value: "16"}
)");
  const ResourceSliceSpec& counters = objects.resource_slices.at(0);
  REQUIRE(counters.shared_counters.size() == 1);
  CHECK(counters.shared_counters[0].counters_milli.at("multiprocessors") == 132000);
  const ResourceSliceSpec& s = objects.resource_slices.at(1);
  REQUIRE(s.devices.at(0).consumes_counters.size() == 1);
  CHECK(s.devices[0].consumes_counters[0].counter_set == "gpu-0-counters");
  CHECK(s.devices[0].consumes_counters[0].counters_milli.at("multiprocessors") == 16000);
}

TEST_CASE("ResourceSlice validation: the errors name the field, as the API server refuses them") {
  auto slice = [](const std::string& placement, const std::string& device) {
    return "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d.example.com\n" +
           placement + "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices:\n" +
           device;
  };
  const std::string device = "  - name: dev-0\n";
  struct Case {
    const char* name;
    std::string input;
    const char* error;
  };
  const Case cases[] = {
      {"two placements", slice("  nodeName: n\n  allNodes: true\n", device),
       "a slice sets exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection"},
      {"no placement", slice("", device), "a slice sets exactly one of nodeName"},
      {"an attribute with two values",
       slice("  nodeName: n\n", "  - name: dev-0\n    attributes:\n      a: {int: 1, string: x}\n"),
       "an attribute has exactly one value"},
      {"an unknown attribute type",
       slice("  nodeName: n\n", "  - name: dev-0\n    attributes:\n      a: {float: 1.5}\n"),
       "unknown attribute type `float`"},
      {"devices beside counter sets",
       slice("  nodeName: n\n  sharedCounters:\n  - {name: c, counters: {memory: {value: 1Gi}}}\n",
             device),
       "a slice sets devices or sharedCounters, not both"},
      {"a device's own node outside perDeviceNodeSelection",
       slice("  nodeName: n\n", "  - name: dev-0\n    nodeName: n\n"),
       "a device sets nodeName, nodeSelector or allNodes only under the slice's "
       "perDeviceNodeSelection"},
      {"a capacity that is no quantity",
       slice("  nodeName: n\n", "  - name: dev-0\n    capacity:\n      memory: {value: 80GB}\n"),
       "\"80GB\" is not a quantity"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Expected<KubeObjects> read = ReadKubeString(c.input, "slice.yaml");
    REQUIRE_FALSE(read.ok());
    CAPTURE(read.error().ToString());
    CHECK(read.error().ToString().rfind("slice.yaml:", 0) == 0);
    CHECK(read.error().ToString().find(c.error) != std::string::npos);
  }
}

TEST_CASE("DeviceClass, ResourceClaim (v1) with its allocation, and a template used by a pod") {
  const KubeObjects objects = MustRead(R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}
  extendedResourceName: nvidia.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pair, namespace: ml}
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu.nvidia.com
        count: 2
        selectors:
        - cel: {expression: "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"}
        tolerations:
        - {key: gpu.nvidia.com/unhealthy, operator: Exists}
    - name: small
      firstAvailable:
      - {name: mig, deviceClassName: mig.nvidia.com, capacity: {requests: {gpu.nvidia.com/memory: 10Gi}}}
      - {name: whole, deviceClassName: gpu.nvidia.com, allocationMode: All}
    constraints:
    - {requests: [gpus], matchAttribute: resource.kubernetes.io/pcieRoot}
    config:
    - requests: [gpus]
      opaque:
        driver: gpu.nvidia.com
        parameters: {apiVersion: resource.nvidia.com/v1beta1, kind: GpuConfig, sharing: {strategy: TimeSlicing}}
status:
  allocation:
    devices:
      results:
      - {request: gpus, driver: gpu.nvidia.com, pool: node-a, device: gpu-0}
      - {request: gpus, driver: gpu.nvidia.com, pool: node-a, device: gpu-1, shareID: 7c1e, consumedCapacity: {gpu.nvidia.com/memory: 40Gi}}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [node-a]}]
  reservedFor:
  - {resource: pods, name: trainer-0, uid: 1234}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com}
---
kind: Pod
metadata: {name: trainer-0, namespace: ml}
spec:
  resourceClaims:
  - {name: shared, resourceClaimName: pair}
  - {name: own, resourceClaimTemplateName: one-gpu}
  containers:
  - name: c
    resources:
      claims: [{name: shared}, {name: own}]
status:
  resourceClaimStatuses:
  - {name: own, resourceClaimName: trainer-0-own-5xk2d}
)");
  REQUIRE(objects.device_classes.size() == 1);
  CHECK(objects.device_classes[0].selectors.size() == 1);
  CHECK(objects.device_classes[0].extended_resource_name == "nvidia.com/gpu");
  REQUIRE(objects.resource_claims.size() == 1);
  const ResourceClaimSpec& claim = objects.resource_claims[0];
  CHECK(claim.namespace_ == "ml");
  REQUIRE(claim.spec.requests.size() == 2);
  const DraExactRequest& gpus = *claim.spec.requests[0].exactly;
  CHECK(gpus.count == 2);
  CHECK_FALSE(gpus.all);
  CHECK(gpus.tolerations.at(0).op == "Exists");
  const DraRequest& small = claim.spec.requests[1];
  CHECK_FALSE(small.exactly.has_value());
  REQUIRE(small.first_available.size() == 2);
  CHECK(small.first_available[0].capacity_requests_milli.at("gpu.nvidia.com/memory") ==
        int64_t{10} * 1024 * 1024 * 1024 * 1000);
  CHECK(small.first_available[1].all);
  CHECK(claim.spec.constraints.at(0).match_attribute == "resource.kubernetes.io/pcieRoot");
  REQUIRE(claim.spec.config.size() == 1);
  CHECK(claim.spec.config[0].parameters_json.find("\"strategy\":\"TimeSlicing\"") !=
        std::string::npos);
  REQUIRE(claim.allocation.has_value());
  CHECK(claim.allocation->results.size() == 2);
  CHECK(claim.allocation->results[1].share_id == "7c1e");
  REQUIRE(claim.allocation->node_selector.has_value());
  CHECK(claim.allocation->node_selector->at(0).at(0).key == "metadata.name");
  CHECK(claim.reserved_for.at(0).name == "trainer-0");
  REQUIRE(objects.resource_claim_templates.size() == 1);
  CHECK(objects.resource_claim_templates[0].spec.requests.at(0).exactly->count == 1);
  const PodSpec& pod = PodNamed(objects, "trainer-0");
  REQUIRE(pod.resource_claims.size() == 2);
  CHECK(pod.resource_claims[0].resource_claim_name == "pair");
  CHECK(pod.resource_claims[1].resource_claim_template_name == "one-gpu");
  CHECK(pod.resource_claims[1].generated_claim_name == "trainer-0-own-5xk2d");
}

TEST_CASE("A claim's deletion, its controlling pod, and a status entry with no claim made") {
  const KubeObjects objects = MustRead(R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: trainer-0-own-5xk2d
  namespace: ml
  deletionTimestamp: "2026-12-01T10:00:00Z"
  ownerReferences:
  - {apiVersion: v1, kind: Pod, name: trainer-0, uid: 9f1c, controller: true}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}
---
kind: Pod
metadata: {name: trainer-0, namespace: ml, uid: 9f1c}
spec:
  resourceClaims:
  - {name: own, resourceClaimTemplateName: one-gpu}
  - {name: optional, resourceClaimTemplateName: one-gpu}
  containers:
  - name: c
    resources:
      claims: [{name: own}]
status:
  resourceClaimStatuses:
  - {name: own, resourceClaimName: trainer-0-own-5xk2d}
  - {name: optional}
)");
  const ResourceClaimSpec& claim = objects.resource_claims.at(0);
  CHECK(claim.deleting);
  CHECK(claim.owner_pod == "trainer-0");
  CHECK(claim.owner_pod_uid == "9f1c");
  const PodSpec& pod = PodNamed(objects, "trainer-0");
  REQUIRE(pod.resource_claims.size() == 2);
  CHECK_FALSE(pod.resource_claims[0].no_claim_made);
  CHECK(pod.resource_claims[1].no_claim_made);
  CHECK(pod.resource_claims[1].generated_claim_name.empty());
}

TEST_CASE("v1beta1: devices under `basic`, a request's exact fields inline") {
  const KubeObjects objects = MustRead(R"(apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes: {index: {int: 0}}
      capacity: {memory: {value: 24Gi}}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.nvidia.com, allocationMode: ExactCount, count: 1}
)");
  CHECK(objects.resource_slices.at(0).devices.at(0).capacity.at("gpu.nvidia.com/memory").milli ==
        int64_t{24} * 1024 * 1024 * 1024 * 1000);
  const DraRequest& r = objects.resource_claims.at(0).spec.requests.at(0);
  REQUIRE(r.exactly.has_value());
  CHECK(r.exactly->device_class_name == "gpu.nvidia.com");
}

TEST_CASE(
    "claim validation: a request is exactly one of exactly and firstAvailable; a "
    "constraint names a fully qualified attribute") {
  auto claim = [](const std::string& devices) {
    return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n"
           "  devices:\n" +
           devices;
  };
  struct Case {
    const char* name;
    std::string input;
    const char* error;
  };
  const Case cases[] = {
      {"neither", claim("    requests:\n    - {name: gpu}\n"),
       "a request sets exactly one of `exactly` and `firstAvailable`"},
      {"count with All",
       claim("    requests:\n    - name: gpu\n      exactly: {deviceClassName: g, allocationMode: "
             "All, count: 2}\n"),
       "count is set with allocationMode All"},
      {"an unqualified constraint",
       claim("    requests:\n    - {name: gpu, exactly: {deviceClassName: g}}\n    constraints:\n"
             "    - {matchAttribute: model}\n"),
       "\"model\" is not a fully qualified name"},
      {"a pod claim naming both",
       "kind: Pod\nmetadata: {name: p}\nspec:\n  resourceClaims:\n  - {name: a, "
       "resourceClaimName: x, resourceClaimTemplateName: y}\n  containers: [{name: c}]\n",
       "a pod's resource claim sets exactly one of resourceClaimName and "
       "resourceClaimTemplateName"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Expected<KubeObjects> read = ReadKubeString(c.input, "claim.yaml");
    REQUIRE_FALSE(read.ok());
    CAPTURE(read.error().ToString());
    CHECK(read.error().ToString().find(c.error) != std::string::npos);
  }
}

}  // namespace
}  // namespace knobsim
