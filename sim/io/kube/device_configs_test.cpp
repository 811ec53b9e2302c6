// The device plugin's and HAMi's configs in ConfigMaps: which config a node runs (the config
// manager's label, default and fallbacks: cmd/config-manager/main.go updateConfigName), what a
// config adds to the labels (api/config/v1: failRequestsGreaterThanOne with NewConfig's MPS
// default, sharedDevicesAllocationPolicy), and HAMi's request defaults, memory factor and core
// policy (pkg/device/nvidia/device.go GenerateResourceRequests, MutateAdmission).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// An L4 node GPU feature discovery labels as time-slicing x4 (or `strategy` x4), with the
// config label when `config` is not empty.
std::string ReplicaNode(const std::string& name, const std::string& config,
                        const std::string& strategy = "time-slicing") {
  return "---\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels:\n    nvidia.com/gpu.product: NVIDIA-L4-SHARED\n"
         "    nvidia.com/gpu.count: '2'\n    nvidia.com/gpu.replicas: '4'\n"
         "    nvidia.com/gpu.sharing-strategy: " +
         strategy + "\n" +
         (config.empty() ? "" : "    nvidia.com/device-plugin.config: " + config + "\n") +
         "status:\n  capacity: {nvidia.com/gpu: '8'}\n";
}

// A ConfigMap with one config per (key, text).
std::string ConfigMap(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& configs) {
  std::string out =
      "---\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: gpu-operator}\ndata:\n";
  for (const auto& [key, text] : configs) {
    out += "  " + key + ": |\n";
    size_t begin = 0;
    while (begin < text.size()) {
      const size_t end = text.find('\n', begin);
      out += "    " + text.substr(begin, end - begin) + "\n";
      begin = end == std::string::npos ? text.size() : end + 1;
    }
  }
  return out;
}

std::string TimeSlicing(int replicas, const std::string& extra = "") {
  return "version: v1\nsharing:\n  timeSlicing:\n" + extra +
         "    resources:\n    - name: nvidia.com/gpu\n      replicas: " + std::to_string(replicas);
}

bool HasWarning(const KubeObjects& objects, const std::string& text) {
  for (const std::string& w : objects.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE(
    "a node runs the config its label names, else the default, else `default`, else the "
    "only one (config-manager updateConfigName)") {
  const std::string fail = "    failRequestsGreaterThanOne: true\n";
  struct Case {
    const char* name;
    std::string input;
    bool fail_requests;   // what node n ends with
    bool from_config;     // a config was applied
    const char* warning;  // "" = none
  };
  const Case cases[] = {
      {"the label's config",
       ReplicaNode("n", "ts4") + ConfigMap("c", {{"ts4", TimeSlicing(4, fail)}}), true, true, ""},
      {"no label: the config named default",
       ReplicaNode("n", "") +
           ConfigMap("c", {{"default", TimeSlicing(4, fail)}, {"other", TimeSlicing(4)}}),
       true, true, ""},
      {"no label: the only config",
       ReplicaNode("n", "") + ConfigMap("c", {{"ts", TimeSlicing(4, fail)}}), true, true, ""},
      {"no label, two configs, none named default: the plugin's defaults",
       ReplicaNode("n", "") + ConfigMap("c", {{"a", TimeSlicing(4, fail)}, {"b", TimeSlicing(4)}}),
       false, false, ""},
      {"no label: the ClusterPolicy's default",
       ReplicaNode("n", "") + ConfigMap("c", {{"a", TimeSlicing(4)}, {"b", TimeSlicing(4, fail)}}) +
           "---\nkind: ClusterPolicy\nmetadata: {name: cluster-policy}\nspec:\n  devicePlugin:\n"
           "    config: {name: c, default: b}\n",
       true, true, ""},
      {"the ClusterPolicy's ConfigMap, not another one",
       ReplicaNode("n", "ts") + ConfigMap("c", {{"ts", TimeSlicing(4, fail)}}) +
           ConfigMap("other", {{"ts", TimeSlicing(4)}}) +
           "---\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  devicePlugin:\n"
           "    config: {name: c}\n",
       true, true, ""},
      {"a label naming no config",
       ReplicaNode("n", "missing") + ConfigMap("c", {{"ts", TimeSlicing(4, fail)}}), false, false,
       "selects the device plugin's config \"missing\", which no ConfigMap"},
      {"two ConfigMaps, one key, different configs",
       ReplicaNode("n", "ts") + ConfigMap("c", {{"ts", TimeSlicing(4, fail)}}) +
           ConfigMap("d", {{"ts", TimeSlicing(4)}}),
       false, false, "ambiguous"},
      {"a config unlike the labels: the labels are used",
       ReplicaNode("n", "ts") + ConfigMap("c", {{"ts", TimeSlicing(2, fail)}}), false, false,
       "its labels and capacity show time-slicing x4, but it runs config \"ts\""},
      {"a config the plugin refuses (one replica) is not applied",
       ReplicaNode("n", "ts") + ConfigMap("c", {{"ts", TimeSlicing(1, fail)}}), false, false,
       "replicas: "},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const KubeObjects objects = MustRead(c.input);
    const NodeSpec& n = NodeNamed(objects, "n");
    CHECK(n.device_sharing.fail_requests_greater_than_one == c.fail_requests);
    CHECK(objects.device_config_of_node.count("n") == (c.from_config ? 1u : 0u));
    if (*c.warning) {
      CAPTURE(objects.warnings);
      CHECK(HasWarning(objects, c.warning));
    }
  }
}

TEST_CASE(
    "a config adds what the labels cannot say: failRequestsGreaterThanOne (MPS defaults it "
    "to true) and the allocation policy") {
  const std::string mps =
      "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n"
      "      replicas: 4\n";
  const std::string mps_relaxed =
      "version: v1\nsharing:\n  mps:\n    failRequestsGreaterThanOne: false\n    resources:\n"
      "    - name: nvidia.com/gpu\n      replicas: 4\n";
  const std::string packed =
      "version: v1\nflags:\n  plugin: {sharedDevicesAllocationPolicy: packed}\n" +
      TimeSlicing(4).substr(std::string("version: v1\n").size());
  struct Case {
    const char* name;
    std::string strategy, config;
    bool fail_requests;
    ReplicaAllocation allocation;
  };
  const Case cases[] = {
      {"MPS, failRequestsGreaterThanOne unset: true", "mps", mps, true,
       ReplicaAllocation::kDistributed},
      {"MPS relaxed", "mps", mps_relaxed, false, ReplicaAllocation::kDistributed},
      {"time-slicing packed", "time-slicing", packed, false, ReplicaAllocation::kPacked},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const KubeObjects objects =
        MustRead(ReplicaNode("n", "x", c.strategy) + ConfigMap("c", {{"x", c.config}}));
    const DeviceSharing& d = NodeNamed(objects, "n").device_sharing;
    CHECK(d.fail_requests_greater_than_one == c.fail_requests);
    CHECK(d.allocation == c.allocation);
  }
}

TEST_CASE("ConfigMaps that hold no GPU config are skipped and never parsed for anything else") {
  const KubeObjects objects = MustRead(
      ReplicaNode("n", "") +
      "---\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n  settings: 'sharing: [unclosed'\n"
      "  token: s3cr3t-value\n");
  CHECK(objects.skipped_kinds.at("ConfigMap") == 1);
  CHECK(objects.device_plugin_configs.empty());
  CHECK(objects.warnings.empty());
}

// A HAMi node (two L4s, split 10) with pod `p` bound to it; `container` is the pod's container.
std::string HamiCluster(const std::string& container) {
  return "---\nkind: Node\nmetadata:\n  name: h\n  annotations:\n    "
         "hami.io/node-nvidia-register: '[{\"id\":\"GPU-a\",\"index\":0,\"count\":10,"
         "\"devmem\":23034,\"devcore\":100,\"type\":\"NVIDIA L4\",\"health\":true},"
         "{\"id\":\"GPU-b\",\"index\":1,\"count\":10,\"devmem\":23034,\"devcore\":100,"
         "\"type\":\"NVIDIA L4\",\"health\":true}]'\nstatus:\n  capacity: {nvidia.com/gpu: '20'}\n"
         "---\nkind: Pod\nmetadata: {name: p, namespace: ai}\nspec:\n  nodeName: h\n"
         "  containers:\n" +
         container;
}

std::string HamiConfig(const std::string& nvidia) {
  return ConfigMap("hami-scheduler-device", {{"device-config.yaml", "nvidia:\n" + nvidia}});
}

TEST_CASE(
    "HAMi's device config: the defaults of its webhook and scheduler, memoryFactor and "
    "gpuCorePolicy (GenerateResourceRequests, mutateContainerResource)") {
  const std::string cores_only =
      "  - name: c\n    resources:\n      limits: {nvidia.com/gpucores: '30'}\n";
  const std::string mem_only =
      "  - name: c\n    resources:\n      limits: {nvidia.com/gpu: '1', nvidia.com/gpumem: "
      "'4000'}\n";
  const std::string count_only =
      "  - name: c\n    resources:\n      limits: {nvidia.com/gpu: '1', "
      "nvidia.com/gpumem-percentage: '50'}\n";
  struct Case {
    const char* name;
    std::string container, config;
    int vgpus;
    int64_t mem_mib;
    int mem_percent, cores;
  };
  const Case cases[] = {
      {"no config: HAMi's chart defaults (1 vGPU, 100 %, 0 cores)", cores_only, "", 1, 0, 100, 30},
      {"defaultMemory for a container that asks no memory", cores_only, "  defaultMemory: 2048\n",
       1, 2048, 100, 30},
      {"defaultGPUNum 2", cores_only, "  defaultGPUNum: 2\n", 2, 0, 100, 30},
      {"defaultCores where no cores are asked", count_only, "  defaultCores: 20\n", 1, 0, 50, 20},
      {"memoryFactor multiplies an asked gpumem", mem_only, "  memoryFactor: 2\n", 1, 8000, 100, 0},
      {"defaultMemory does not replace an asked gpumem", mem_only, "  defaultMemory: 2048\n", 1,
       4000, 100, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const KubeObjects objects =
        MustRead(HamiCluster(c.container) + (c.config.empty() ? "" : HamiConfig(c.config)));
    const PodSpec& p = PodNamed(objects, "p");
    REQUIRE(p.hami.size() == 1);
    CHECK(p.hami[0].vgpus == c.vgpus);
    CHECK(p.hami[0].mem_mib == c.mem_mib);
    CHECK(p.hami[0].mem_percent == c.mem_percent);
    CHECK(p.hami[0].cores == c.cores);
  }
}

TEST_CASE(
    "the webhook's exclusive cores: the whole memory, by percentage or by asking none, takes "
    "gpucores 100 (defaultExclusiveCoreIfNeeded)") {
  struct Case {
    const char* limits;
    int cores;
  };
  const Case cases[] = {
      {"{nvidia.com/gpu: '1', nvidia.com/gpumem-percentage: '100'}", 100},
      {"{nvidia.com/gpu: '1', nvidia.com/gpumem-percentage: '50'}", 0},
      {"{nvidia.com/gpu: '1', nvidia.com/gpumem: '4000'}", 0},
      {"{nvidia.com/gpu: '1', nvidia.com/gpucores: '40'}", 40},
  };
  for (const Case& c : cases) {
    CAPTURE(c.limits);
    // The objects outlive the reference PodNamed returns into them.
    const KubeObjects objects = MustRead(
        HamiCluster("  - name: c\n    resources:\n      limits: " + std::string(c.limits) + "\n"));
    const PodSpec& p = PodNamed(objects, "p");
    REQUIRE(p.hami.size() == 1);
    CHECK(p.hami[0].cores == c.cores);
  }
}

TEST_CASE(
    "a HAMi node's core policy: the device config's, else the one its pods carry in "
    "GPU_CORE_UTILIZATION_POLICY; a pod that disagrees is a warning") {
  const std::string plain =
      "  - name: c\n    resources:\n      limits: {nvidia.com/gpu: '1', nvidia.com/gpucores: "
      "'30'}\n";
  const std::string forced =
      plain + "    env:\n    - {name: GPU_CORE_UTILIZATION_POLICY, value: force}\n";
  struct Case {
    const char* name;
    std::string input;
    HamiCorePolicy policy;
    const char* warning;
  };
  const Case cases[] = {
      {"nothing says: default", HamiCluster(plain), HamiCorePolicy::kDefault, ""},
      {"the pods say force", HamiCluster(forced), HamiCorePolicy::kForce, ""},
      {"the config says disable", HamiCluster(plain) + HamiConfig("  gpuCorePolicy: disable\n"),
       HamiCorePolicy::kDisable,
       "1 HAMi container(s) (pod ai/p) run with gpuCorePolicy default, but the node's pool is "
       "given disable"},
      {"disableCoreLimit", HamiCluster(plain) + HamiConfig("  disableCoreLimit: true\n"),
       HamiCorePolicy::kDisable, ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const KubeObjects objects = MustRead(c.input);
    CHECK(NodeNamed(objects, "h").hami.core_policy == c.policy);
    CAPTURE(objects.warnings);
    if (*c.warning) CHECK(HasWarning(objects, c.warning));
  }
}

TEST_CASE("HAMi configured with other resource names is refused at the config's field") {
  Expected<KubeObjects> read = ReadKubeString(
      HamiCluster("  - name: c\n    resources:\n      limits: {nvidia.com/gpu: '1'}\n") +
          HamiConfig("  resourceMemoryName: nvidia.com/vgpu-memory\n"),
      "export.yaml");
  REQUIRE_FALSE(read.ok());
  const std::string error = read.error().ToString();
  CAPTURE(error);
  CHECK(error.find("export.yaml:") == 0);
  CHECK(
      error.find("ConfigMap gpu-operator/hami-scheduler-device data key \"device-config.yaml\"") !=
      std::string::npos);
  CHECK(error.find("nvidia.resourceMemoryName: HAMi is configured with resource "
                   "\"nvidia.com/vgpu-memory\" in place of nvidia.com/gpumem") !=
        std::string::npos);
}

}  // namespace
}  // namespace knobsim
