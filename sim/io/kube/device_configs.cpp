// ConfigMaps holding the NVIDIA device plugin's and HAMi's GPU-sharing configs, the GPU
// operator's reference to the former, and their application to nodes and pods (sources in
// docs/semantics.md §2.6 and §2.8; the selection rules in device_configs.h).
#include "sim/io/kube/device_configs.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/document_tree.h"
#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/resources.h"

namespace knobsim::kube {
namespace {

constexpr std::string_view kHamiConfigKey = "device-config.yaml";

// One of sharing.timeSlicing and sharing.mps (api/config/v1 ReplicatedResources, as its
// UnmarshalJSON validates it).
struct Replicated {
  bool rename_by_default = false;
  std::optional<bool> fail_requests_greater_than_one;
  int gpu_replicas = 1;  // of nvidia.com/gpu
  bool replicated = false;
};

Replicated ReadReplicated(FieldReader& in, const Field& f) {
  in.ExpectMap(f);
  Replicated out;
  for (const auto& [key, value] : in.Entries(f)) {
    if (key == "renameByDefault") {
      out.rename_by_default = in.Bool(value);
    } else if (key == "failRequestsGreaterThanOne") {
      out.fail_requests_greater_than_one = in.Bool(value);
    } else if (key != "resources") {
      in.Warn(value, "not a key of the device plugin's config: the plugin ignores it");
    }
  }
  const Field resources = in.Require(f, "resources");
  const std::vector<Field> items = in.Items(resources);
  if (items.empty()) in.Fail(resources, "no resources specified");
  for (const Field& item : items) {
    in.ExpectMap(item);
    const std::string name = in.String(in.Require(item, "name"));
    const int replicas = static_cast<int>(
        in.Int(in.Require(item, "replicas"), 2, std::numeric_limits<int32_t>::max()));
    out.replicated = true;
    if (name == kNvidiaGpuResource) out.gpu_replicas = replicas;
    // DisableResourceNamingInConfig: the plugin drops both, with its own warning.
    if (auto devices = in.Get(item, "devices");
        devices && !(devices->node->kind == NodeKind::kScalar && in.String(*devices) == "all"))
      in.Warn(*devices, "the device plugin ignores `devices` (every card is replicated)");
    if (auto rename = in.Get(item, "rename"))
      in.Warn(*rename, "the device plugin ignores `rename` (renameByDefault decides the name)");
  }
  return out;
}

// A device-plugin config, or nullopt when `root` is not one (another kind of text).
std::optional<DevicePluginConfig> ReadPluginConfig(FieldReader& in, const Field& root) {
  if (root.node->kind != NodeKind::kMap) return std::nullopt;
  for (const auto& [key, value] : in.Entries(root)) {
    if (key != "version" && key != "flags" && key != "resources" && key != "sharing" &&
        key != "imex")
      return std::nullopt;
  }
  const std::optional<Field> sharing = in.Get(root, "sharing");
  const std::optional<Field> flags = in.Get(root, "flags");
  if (!sharing && !flags) return std::nullopt;
  DevicePluginConfig out;
  if (auto version = in.Get(root, "version"); version && in.String(*version) != "v1")
    in.Fail(*version, Cat({"unknown version ", Quote(in.String(*version))}), "the plugin reads v1");
  if (flags) {
    in.ExpectMap(*flags);
    if (auto plugin = in.Get(*flags, "plugin")) {
      in.ExpectMap(*plugin);
      if (auto policy = in.Get(*plugin, "sharedDevicesAllocationPolicy")) {
        out.allocation =
            in.Enum(*policy, {"distributed", "packed"}, "an allocation policy") == "packed"
                ? ReplicaAllocation::kPacked
                : ReplicaAllocation::kDistributed;
      }
    }
  }
  if (!sharing) return out;
  in.ExpectMap(*sharing);
  std::optional<Replicated> time_slicing, mps;
  for (const auto& [key, value] : in.Entries(*sharing)) {
    if (key == "timeSlicing") {
      time_slicing = ReadReplicated(in, value);
    } else if (key == "mps") {
      mps = ReadReplicated(in, value);
    } else {
      in.Warn(value, "not a sharing strategy of the device plugin: it ignores it");
    }
  }
  // Sharing.SharingStrategy() and ReplicatedResources(): MPS wins where it replicates; the
  // options come from mps whenever it is set; NewConfig defaults MPS to failing requests > 1.
  const Replicated none;
  const Replicated& active = mps ? *mps : time_slicing ? *time_slicing : none;
  out.strategy = mps && mps->replicated                     ? DeviceSharingStrategy::kMps
                 : time_slicing && time_slicing->replicated ? DeviceSharingStrategy::kTimeSlicing
                                                            : DeviceSharingStrategy::kNone;
  const Replicated& shared = out.strategy == DeviceSharingStrategy::kTimeSlicing ? *time_slicing
                             : out.strategy == DeviceSharingStrategy::kMps       ? *mps
                                                                                 : none;
  out.replicas = shared.gpu_replicas;
  out.rename_by_default = active.rename_by_default;
  out.fail_requests_greater_than_one =
      active.fail_requests_greater_than_one.value_or(mps.has_value());
  return out;
}

// HAMi's NvidiaConfig: the keys that change a request or the core policy are read; resource
// names other than HAMi's defaults are refused (knobsim reads pods by those names).
HamiDeviceConfig ReadHamiConfig(FieldReader& in, const Field& nvidia) {
  in.ExpectMap(nvidia);
  HamiDeviceConfig out;
  const std::pair<const char*, const char*> names[] = {
      {"resourceCountName", kNvidiaGpuResource},
      {"resourceMemoryName", kHamiMemResource},
      {"resourceMemoryPercentageName", kHamiMemPercentResource},
      {"resourceCoreName", kHamiCoresResource}};
  for (const auto& [key, expected] : names) {
    const std::optional<Field> f = in.Get(nvidia, key);
    if (f && in.String(*f) != expected)
      in.Fail(*f,
              Cat({"HAMi is configured with resource ", Quote(in.String(*f)), " in place of ",
                   expected}),
              "knobsim reads HAMi pods by its default resource names (nvidia.com/gpu, gpumem, "
              "gpumem-percentage, gpucores); docs/import.md \"HAMi\"");
  }
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  if (auto f = in.Get(nvidia, "defaultGPUNum"))
    out.default_gpu_num = static_cast<int>(in.Int(*f, 0, kMaxCardsPerNode));
  if (auto f = in.Get(nvidia, "defaultMemory")) out.default_memory_mib = in.Int(*f, 0, kInt32Max);
  if (auto f = in.Get(nvidia, "defaultCores"))
    out.default_cores = static_cast<int>(in.Int(*f, 0, 100));
  // GenerateResourceRequests: max(memoryFactor, 1) multiplies an asked gpumem.
  if (auto f = in.Get(nvidia, "memoryFactor"))
    out.memory_factor = std::max<int64_t>(1, in.Int(*f, 0, kInt32Max));
  if (auto f = in.Get(nvidia, "gpuCorePolicy"); f && !in.String(*f).empty()) {
    const std::string policy = in.Enum(*f, {"default", "force", "disable"}, "a gpuCorePolicy");
    out.core_policy = policy == "force"     ? HamiCorePolicy::kForce
                      : policy == "disable" ? HamiCorePolicy::kDisable
                                            : HamiCorePolicy::kDefault;
  }
  // The device plugin's Allocate sets GPU_CORE_UTILIZATION_POLICY=disable under this switch.
  if (auto f = in.Get(nvidia, "disableCoreLimit"); f && in.Bool(*f))
    out.core_policy = HamiCorePolicy::kDisable;
  if (auto f = in.Get(nvidia, "enableNumaTopology"); f && in.Bool(*f))
    in.Warn(*f, "HAMi's NUMA alignment of vGPUs with CPUs is not modelled");
  return out;
}

}  // namespace

void ReadConfigMap(ObjectReader& r, const Field& object) {
  const ObjectMeta meta = ReadObjectMetaFields(r, object, "ConfigMap", /*namespaced=*/true);
  const std::string config_map = Cat({meta.namespace_, "/", meta.name});
  bool kept = false;
  const std::optional<Field> data = r.Get(object, "data");
  if (data && data->node->kind == NodeKind::kMap) {
    for (const auto& [key, value] : r.Entries(*data, /*reveal=*/false)) {
      if (value.node->kind != NodeKind::kScalar) continue;
      const std::string text(r.tree().Scalar(*value.node));
      const bool hami = key == kHamiConfigKey;
      // Cheap screen before parsing: a device-plugin config names sharing or flags.
      if (!hami && text.find("sharing") == std::string::npos &&
          text.find("flags") == std::string::npos)
        continue;
      // Errors and warnings inside the text name the ConfigMap, the key and the line in the text.
      const std::string where = Cat({r.file(), ":", std::to_string(value.line), ": ConfigMap ",
                                     config_map, " data key ", Quote(key), ", in its text"});
      DocumentTree tree(text);
      if (!ParseDocumentTree(text, where, tree) || tree.documents().size() != 1) {
        if (hami) r.Warn(value, "HAMi's device config is not YAML: HAMi's defaults are used");
        continue;
      }
      FieldReader in(where, tree, r.out().warnings);
      const TreeNode& root_node = tree.node(tree.documents()[0]);
      const Field root{&root_node, "", LineOf(root_node, 1)};
      const ObjectSource source{r.file(), value.line};
      if (hami) {
        if (root_node.kind != NodeKind::kMap) continue;
        const std::optional<Field> nvidia = in.Get(root, "nvidia");
        if (!nvidia) continue;
        // Unmodelled resource names stop the read: HAMi pods would be misread.
        HamiDeviceConfig c = ReadHamiConfig(in, *nvidia);
        c.config_map = config_map;
        c.source = source;
        r.out().hami_device_configs.push_back(std::move(c));
        kept = true;
        continue;
      }
      try {
        std::optional<DevicePluginConfig> c = ReadPluginConfig(in, root);
        if (!c) continue;
        c->config_map = config_map;
        c->key = key;
        c->source = source;
        r.out().device_plugin_configs.push_back(std::move(*c));
        kept = true;
      } catch (const Failure& f) {
        // The plugin refuses this config (it would not start with it); another may be in use.
        r.out().warnings.push_back(f.error.ToString() +
                                   "; the device plugin refuses this config, so knobsim does "
                                   "not apply it");
      }
    }
  }
  if (!kept) ++r.out().skipped_kinds["ConfigMap"];
}

void ReadClusterPolicy(ObjectReader& r, const Field& object) {
  ReadObjectMetaFields(r, object, "ClusterPolicy", /*namespaced=*/false);
  DevicePluginConfigRef ref;
  ref.source = ObjectSource{r.file(), object.line};
  if (auto spec = r.Get(object, "spec")) {
    if (auto plugin = r.Get(*spec, "devicePlugin")) {
      if (auto config = r.Get(*plugin, "config")) {
        r.ExpectMap(*config);
        if (auto name = r.Get(*config, "name")) ref.config_map = r.String(*name);
        if (auto key = r.Get(*config, "default")) ref.default_key = r.String(*key);
      }
    }
  }
  if (ref.config_map.empty()) {
    ++r.out().skipped_kinds["ClusterPolicy"];
    return;
  }
  r.out().device_plugin_config_refs.push_back(std::move(ref));
}

}  // namespace knobsim::kube

namespace knobsim {
namespace {

using kube::Cat;

std::string LabelValue(const Labels& labels, const char* key) {
  const auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

std::string Describe(const DevicePluginConfig& c) {
  return Cat({"config ", Quote(c.key), " of ConfigMap ", c.config_map, " (", c.source.file, ":",
              std::to_string(c.source.line), ")"});
}

std::string SharingText(DeviceSharingStrategy strategy, int replicas, bool renamed) {
  if (strategy == DeviceSharingStrategy::kNone) return "no sharing";
  return Cat({DeviceSharingStrategyName(strategy), " x", std::to_string(replicas),
              renamed ? " renamed" : ""});
}

// The ConfigMap's name without its namespace (a ClusterPolicy names it so).
std::string_view ConfigMapName(const DevicePluginConfig& c) {
  return std::string_view(c.config_map).substr(c.config_map.find('/') + 1);
}

// The configs a node may run: those of the ConfigMap the ClusterPolicy names, else all.
std::vector<const DevicePluginConfig*> Candidates(const KubeObjects& objects,
                                                  const DevicePluginConfigRef* ref) {
  std::vector<const DevicePluginConfig*> out;
  for (const DevicePluginConfig& c : objects.device_plugin_configs) {
    if (ref == nullptr || ConfigMapName(c) == ref->config_map) out.push_back(&c);
  }
  return out;
}

// updateConfigName: the label's config; else the default; else `default`, then the only one.
// Null where none is selected; `why` says what was looked for when that is worth a warning.
const DevicePluginConfig* SelectConfig(const std::vector<const DevicePluginConfig*>& candidates,
                                       const std::string& label, const DevicePluginConfigRef* ref,
                                       std::string& why) {
  std::string wanted = label;
  if (wanted.empty() && ref != nullptr) wanted = ref->default_key;
  std::vector<const DevicePluginConfig*> matches;
  for (const DevicePluginConfig* c : candidates) {
    if (c->key == (wanted.empty() ? "default" : wanted)) matches.push_back(c);
  }
  if (matches.empty() && wanted.empty() && candidates.size() == 1) matches = candidates;
  if (matches.empty()) {
    if (!wanted.empty())
      why = Cat({"selects the device plugin's config ", Quote(wanted),
                 ", which no ConfigMap in the export holds (valid)"});
    return nullptr;
  }
  for (const DevicePluginConfig* c : matches) {
    if (!(*c == *matches.front())) {
      why = Cat({"its device plugin config is ambiguous: ", Describe(*matches.front()), " and ",
                 Describe(*c), " differ"});
      return nullptr;
    }
  }
  return matches.front();
}

void ResolvePluginConfigs(KubeObjects& objects) {
  if (objects.device_plugin_configs.empty()) return;
  const DevicePluginConfigRef* ref = nullptr;
  for (const DevicePluginConfigRef& r : objects.device_plugin_config_refs) {
    const bool read =
        std::any_of(objects.device_plugin_configs.begin(), objects.device_plugin_configs.end(),
                    [&](const DevicePluginConfig& c) { return ConfigMapName(c) == r.config_map; });
    if (read) ref = &r;
  }
  const std::vector<const DevicePluginConfig*> candidates = Candidates(objects, ref);
  for (size_t i = 0; i < objects.nodes.size(); ++i) {
    NodeSpec& node = objects.nodes[i];
    DeviceSharing& d = node.device_sharing;
    // Nodes of the NVIDIA device plugin: its replicas, or whole cards (MIG and HAMi nodes are
    // read from their own labels and annotation).
    if (node.gpu_cards == 0 || node.mig.enabled() || node.hami.enabled()) continue;
    const std::string where =
        Cat({objects.node_sources[i].file, ":", std::to_string(objects.node_sources[i].line),
             ": node ", node.name, ": "});
    std::string why;
    const DevicePluginConfig* c =
        SelectConfig(candidates, LabelValue(node.labels, kDevicePluginConfigLabel), ref, why);
    if (c == nullptr) {
      if (!why.empty())
        objects.warnings.push_back(
            Cat({where, why, "; the plugin's defaults are used for what the labels do not say"}));
      continue;
    }
    const DeviceSharingStrategy strategy = d.shared() ? d.strategy : DeviceSharingStrategy::kNone;
    const int replicas = d.shared() ? d.replicas : 1;
    const bool renamed = d.shared() && d.renamed;
    if (c->strategy != strategy || c->replicas != replicas ||
        (strategy != DeviceSharingStrategy::kNone && c->rename_by_default != renamed)) {
      objects.warnings.push_back(
          Cat({where, "its labels and capacity show ", SharingText(strategy, replicas, renamed),
               ", but it runs ", Describe(*c), ", which says ",
               SharingText(c->strategy, c->replicas, c->rename_by_default),
               ": the labels are what the plugin advertises now (a config takes effect when the "
               "plugin restarts), so they are used, and nothing of the config"}));
      continue;
    }
    if (!d.shared()) continue;
    d.fail_requests_greater_than_one = c->fail_requests_greater_than_one;
    if (c->allocation) d.allocation = *c->allocation;
    objects.device_config_of_node[node.name] = Describe(*c);
  }
}

std::string Describe(const HamiDeviceConfig& c) {
  return Cat({"HAMi's device config in ConfigMap ", c.config_map, " (", c.source.file, ":",
              std::to_string(c.source.line), ")"});
}

// The defaults of HAMi's webhook and scheduler, applied again with the config's values.
void ApplyHamiDefaults(const HamiDeviceConfig& c, std::vector<PodSpec>& pods,
                       std::vector<std::string>& warnings) {
  for (PodSpec& pod : pods) {
    if (pod.hami_asked.size() != pod.hami.size()) continue;  // not read from an export
    for (size_t i = 0; i < pod.hami.size();) {
      HamiRequest& h = pod.hami[i];
      const HamiAsked& asked = pod.hami_asked[i];
      if (asked.vgpus_defaulted && c.default_gpu_num == 0) {
        // mutateContainerResource adds no count: HAMi does not schedule the container.
        warnings.push_back(Cat({"pod ", pod.namespace_, "/", pod.name,
                                ": a container asks HAMi memory or cores without nvidia.com/gpu, "
                                "and ",
                                Describe(c), " sets defaultGPUNum 0: HAMi gives it no vGPU"}));
        pod.hami.erase(pod.hami.begin() + static_cast<long>(i));
        pod.hami_asked.erase(pod.hami_asked.begin() + static_cast<long>(i));
        continue;
      }
      if (asked.vgpus_defaulted) h.vgpus = c.default_gpu_num;
      if (asked.mem_defaulted && c.default_memory_mib > 0) h.mem_mib = c.default_memory_mib;
      if (!asked.mem_defaulted && h.mem_mib > 0) h.mem_mib *= c.memory_factor;
      if (asked.cores_defaulted) h.cores = c.default_cores;
      ++i;
    }
  }
}

// Each HAMi node's core policy: the config's; without one, the policy every GPU pod bound to
// the node carries (the webhook writes none for `default`), where they agree.
void ResolveHamiCorePolicy(KubeObjects& objects, const HamiDeviceConfig* config) {
  std::map<std::string, std::map<HamiCorePolicy, std::vector<std::string>>> seen;
  for (const PodSpec& pod : objects.pods) {
    if (pod.hami.empty() || pod.node_name.empty()) continue;
    for (const HamiAsked& asked : pod.hami_asked) {
      seen[pod.node_name][asked.core_policy.value_or(HamiCorePolicy::kDefault)].push_back(
          pod.namespace_ + "/" + pod.name);
    }
  }
  for (NodeSpec& node : objects.nodes) {
    if (!node.hami.enabled()) continue;
    const auto& policies = seen[node.name];
    if (config != nullptr) {
      node.hami.core_policy = config->core_policy;
      objects.device_config_of_node[node.name] = Describe(*config);
    } else if (policies.size() == 1) {
      node.hami.core_policy = policies.begin()->first;
      if (node.hami.core_policy != HamiCorePolicy::kDefault)
        objects.device_config_of_node[node.name] =
            Cat({"the ", kHamiCorePolicyEnv, " its pods carry"});
    }
    for (const auto& [policy, pods] : policies) {
      if (policy == node.hami.core_policy) continue;
      objects.warnings.push_back(
          Cat({"node ", node.name, ": ", std::to_string(pods.size()), " HAMi container(s) (pod ",
               pods.front(), pods.size() > 1 ? " and others" : "", ") run with gpuCorePolicy ",
               HamiCorePolicyName(policy), ", but the node's pool is given ",
               HamiCorePolicyName(node.hami.core_policy),
               config != nullptr ? Cat({" from ", Describe(*config)})
                                 : std::string(" (its pods disagree; HAMi's default)"),
               ": knobsim applies one core policy to a pool's pods"}));
    }
  }
}

void ResolveHamiConfigs(KubeObjects& objects) {
  const HamiDeviceConfig* config = nullptr;
  if (!objects.hami_device_configs.empty()) {
    config = &objects.hami_device_configs.front();
    for (const HamiDeviceConfig& c : objects.hami_device_configs) {
      if (c == *config) continue;
      objects.warnings.push_back(Cat({Describe(*config), " and ", Describe(c),
                                      " differ: which one HAMi's scheduler reads is not in the "
                                      "export, so HAMi's defaults are used"}));
      config = nullptr;
      break;
    }
  }
  if (config != nullptr) {
    ApplyHamiDefaults(*config, objects.pods, objects.warnings);
    ApplyHamiDefaults(*config, objects.template_pods, objects.warnings);
  }
  ResolveHamiCorePolicy(objects, config);
}

}  // namespace

void ResolveDeviceConfigs(KubeObjects& objects) {
  ResolvePluginConfigs(objects);
  ResolveHamiConfigs(objects);
}

}  // namespace knobsim
