#include "sim/import/import_dra.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "sim/mig_layout.h"
#include "sim/quantity.h"
#include "sim/scheduler/dra/cel.h"
#include "sim/scheduler/dra/constraints.h"
#include "sim/scheduler/dra/extended_resources.h"
#include "sim/scheduler/dra/hami_gpu_devices.h"
#include "sim/scheduler/dra/nvidia_gpu_devices.h"
#include "sim/text.h"

namespace knobsim {
namespace {

using dra::kNvidiaDriver;

// The attribute `id` of `d` published by `driver` (attribute names are stored qualified).
const DraAttribute* Attribute(const DraDevice& d, const std::string& driver,
                              const std::string& id) {
  return dra::LookupAttribute(d, driver, driver + "/" + id);
}

std::string StringOf(const DraAttribute* a) {
  return a != nullptr && !a->list && a->strings.size() == 1 ? a->strings.front() : "";
}

// What one node's newest slices publish, gathered device by device.
struct NodeDevices {
  DraNodeGpus gpus;
  int whole = 0;                                        // NVIDIA type "gpu"
  std::map<std::string, std::vector<std::string>> mig;  // parentUUID -> its profiles
  int hami = 0;                                         // HAMi type "hami-gpu"
  std::set<std::string> counter_sets;                   // DynamicMIG: the cards' counter sets
  int uncounted = 0;  // NVIDIA devices that consume no counter set
  std::optional<DraPool::SharedMemory> shared;  // NVIDIA GPUs shared by consumable memory
  int unshared = 0;                             // NVIDIA GPUs allocated whole
};

// The consumable `memory` of a GPU that allows multiple allocations, as a scenario pool's
// shared_memory (whole MiB); nullopt with `why` for any other capacity or policy.
std::optional<DraPool::SharedMemory> SharedMemoryOf(const DraDevice& d, std::string& why) {
  constexpr int64_t kMiBMilli = (int64_t{1} << 20) * 1000;
  const std::string memory = std::string(kNvidiaDriver) + "/memory";
  for (const auto& [name, capacity] : d.capacity) {
    if (name != memory) {
      why = "shared device " + d.name + " has capacity " + name + ", which is not modelled";
      return std::nullopt;
    }
  }
  const auto it = d.capacity.find(memory);
  if (it == d.capacity.end()) {
    why = "shared device " + d.name + " has no memory capacity";
    return std::nullopt;
  }
  DraPool::SharedMemory shared;
  const std::optional<DraCapacityPolicy>& policy = it->second.request_policy;
  if (!policy) return shared;  // each claim consumes what it asks (to the MiB here)
  const auto mib = [&](std::optional<int64_t> milli, int64_t& out) {
    if (!milli) return true;
    if (*milli % kMiBMilli != 0) return false;
    out = *milli / kMiBMilli;
    return true;
  };
  if (!policy->valid_values_milli.empty() || !mib(policy->default_milli, shared.default_mib) ||
      !mib(policy->min_milli, shared.min_mib) || !mib(policy->step_milli, shared.step_mib) ||
      (policy->max_milli && *policy->max_milli != it->second.milli)) {
    why = "shared device " + d.name +
          "'s memory request policy (validValues, a maximum below the card, or amounts not in "
          "whole MiB) is not modelled";
    return std::nullopt;
  }
  return shared;
}

// Why `d` of `slice` is no device a scenario pool publishes, or "" (then `node` counts it).
std::string ReadDevice(const ResourceSliceSpec& slice, const DraDevice& d, NodeDevices& node) {
  const bool nvidia = slice.driver == kNvidiaDriver;
  const std::string type = StringOf(Attribute(d, slice.driver, "type"));
  if (!d.taints.empty()) return "device " + d.name + " is tainted";
  if (!nvidia && !d.consumes_counters.empty())
    return "device " + d.name + " consumes shared counters";
  if (nvidia) {
    // DynamicMIG: every device of a card, whole or MIG, takes from the card's counter set.
    for (const DraCounterConsumption& c : d.consumes_counters)
      node.counter_sets.insert(c.counter_set);
    if (d.consumes_counters.empty()) ++node.uncounted;
  }
  if (nvidia && d.allow_multiple_allocations && type != "gpu")
    return "device " + d.name + " of type " + type + " allows multiple allocations";
  if (nvidia && type == "gpu" && d.allow_multiple_allocations) {
    std::string why;
    const std::optional<DraPool::SharedMemory> shared = SharedMemoryOf(d, why);
    if (!shared) return why;
    if (node.shared && *node.shared != *shared)
      return "GPUs whose shared memory has two request policies";
    node.shared = shared;
    ++node.whole;
  } else if (nvidia && type == "gpu") {
    ++node.unshared;
    ++node.whole;
  } else if (nvidia && type == "mig") {
    const std::string profile = StringOf(Attribute(d, slice.driver, "profile"));
    const std::string parent = StringOf(Attribute(d, slice.driver, "parentUUID"));
    if (profile.empty() || parent.empty())
      return "MIG device " + d.name + " names no profile or parentUUID";
    if (d.consumes_counters.empty()) node.mig[parent].push_back(profile);
  } else if (!nvidia && type == "hami-gpu" && d.allow_multiple_allocations) {
    for (const auto& [name, capacity] : d.capacity) {
      const std::string id = name.substr(name.find('/') + 1);
      if (id != "memory" && id != "cores")
        return "device " + d.name + " has capacity " + id + ", which is not modelled";
    }
    ++node.hami;
  } else {
    return "device " + d.name + " is of type " + (type.empty() ? "?" : type);
  }
  if (type == "gpu" || type == "hami-gpu") {
    const auto memory = d.capacity.find(slice.driver + "/memory");
    if (memory != d.capacity.end() && node.gpus.memory_mib == 0)
      node.gpus.memory_mib = memory->second.milli / 1000 >> 20;
  }
  std::string product = StringOf(Attribute(d, slice.driver, "productName"));
  std::replace(product.begin(), product.end(), ' ', '-');
  if (!node.gpus.product.empty() && product != node.gpus.product)
    return "GPUs of two products (" + node.gpus.product + ", " + product + ")";
  node.gpus.product = product;
  return "";
}

// Why `slice` holds devices a scenario pool does not publish, or "" (then `node` counts them).
std::string ReadSlice(const ResourceSliceSpec& slice, NodeDevices& node) {
  if (slice.driver != kNvidiaDriver && slice.driver != dra::kHamiCoreDriver)
    return "ResourceSlice " + slice.name + " of driver " + slice.driver;
  if (slice.per_device_node_selection)
    return "ResourceSlice " + slice.name + " has per-device node selection";
  if (!slice.shared_counters.empty() && slice.driver != kNvidiaDriver)
    return "ResourceSlice " + slice.name + " has shared counters";
  for (const DraDevice& d : slice.devices)
    if (std::string why = ReadDevice(slice, d, node); !why.empty()) return why;
  return "";
}

// The node's GPUs once every slice is read, or "" in `why` when its devices mix kinds or its
// cards differ in their MIG instances.
DraNodeGpus NodeGpus(NodeDevices& node, std::string& why) {
  DraNodeGpus gpus = node.gpus;
  if (!node.counter_sets.empty()) {
    // DynamicMIG: one counter set a card; every device of the node must take from one.
    if (node.uncounted > 0 || node.hami > 0) {
      why =
          node.hami > 0 ? "devices of two drivers" : "GPUs with and without DynamicMIG partitions";
      return gpus;
    }
    gpus.count = static_cast<int>(node.counter_sets.size());
    gpus.dynamic_mig = true;
    return gpus;
  }
  const int kinds = (node.whole > 0) + (!node.mig.empty()) + (node.hami > 0);
  if (kinds > 1) {
    why = node.hami > 0 ? "devices of two drivers" : "GPUs with and without MIG instances";
    return gpus;
  }
  if (node.hami > 0) {
    gpus.driver = DraDriver::kHamiCore;
    gpus.count = node.hami;
    return gpus;
  }
  if (node.shared && node.unshared > 0) {
    why = "GPUs shared by consumable memory and GPUs allocated whole";
    return gpus;
  }
  gpus.shared_memory = node.shared;
  gpus.count = node.whole;
  if (node.mig.empty()) return gpus;
  for (auto& [parent, profiles] : node.mig) std::sort(profiles.begin(), profiles.end());
  const std::vector<std::string>& first = node.mig.begin()->second;
  for (const auto& [parent, profiles] : node.mig) {
    if (profiles != first) {
      why = "cards cut into different MIG instances (" + MigLayoutString(first) + ", " +
            MigLayoutString(profiles) + ")";
      return gpus;
    }
  }
  gpus.count = static_cast<int>(node.mig.size());
  gpus.mig = first;
  return gpus;
}

// The claim spec `entry` of `pod` resolves to, and whether it is shared (a claim by name).
const DraClaimSpec* ClaimSpecOf(const PodSpec& pod, const PodResourceClaim& entry,
                                const KubeObjects& objects, bool* shared, std::string* why) {
  *shared = !entry.resource_claim_name.empty();
  const std::string& claim_name = *shared ? entry.resource_claim_name : entry.generated_claim_name;
  for (const ResourceClaimSpec& c : objects.resource_claims)
    if (c.namespace_ == pod.namespace_ && c.name == claim_name) return &c.spec;
  if (!*shared) {
    for (const ResourceClaimTemplateSpec& t : objects.resource_claim_templates)
      if (t.namespace_ == pod.namespace_ && t.name == entry.resource_claim_template_name)
        return &t.spec;
  }
  *why = "its claim " + (claim_name.empty() ? entry.resource_claim_template_name : claim_name) +
         " is not in the export";
  return nullptr;
}

// The NVIDIA DRA driver's GpuConfig sharing in `config`, into `ask`; false with `why` for
// anything else a config can say.
bool ReadSharing(const DraOpaqueConfig& config, DraAsk& ask, std::string* why) {
  if (config.driver != kNvidiaDriver) {
    *why = "a config for driver " + config.driver;
    return false;
  }
  const nlohmann::json p = nlohmann::json::parse(config.parameters_json, nullptr, false);
  if (!p.is_object() || p.value("kind", "") != "GpuConfig") {
    *why = "a driver config other than GpuConfig";
    return false;
  }
  for (const auto& [key, value] : p.items()) {
    if (key != "apiVersion" && key != "kind" && key != "sharing") {
      *why = "GpuConfig." + key + ", which is not modelled";
      return false;
    }
  }
  if (!p.contains("sharing")) return true;
  const nlohmann::json& s = p.at("sharing");
  const std::string strategy = s.is_object() ? s.value("strategy", "") : "";
  if (strategy == "TimeSlicing") {
    // timeSlicingConfig.interval (the driver's time slice) is not modelled: POLICY 5's rule.
    ask.sharing = DeviceSharingStrategy::kTimeSlicing;
    return true;
  }
  if (strategy != "MPS") {
    *why = "GpuConfig sharing strategy " + (strategy.empty() ? std::string("?") : strategy);
    return false;
  }
  ask.sharing = DeviceSharingStrategy::kMps;
  if (!s.contains("mpsConfig")) return true;
  const nlohmann::json& m = s.at("mpsConfig");
  for (const auto& [key, value] : m.items()) {
    if (key == "defaultActiveThreadPercentage" && value.is_number_integer() &&
        value.get<int64_t>() >= 1 && value.get<int64_t>() <= 100) {
      ask.mps_active_thread_percentage = value.get<int>();
    } else if (key == "defaultPinnedDeviceMemoryLimit" && value.is_string()) {
      const std::optional<int64_t> milli = ParseQuantityMilli(value.get<std::string>());
      if (!milli || *milli <= 0) {
        *why = "mpsConfig.defaultPinnedDeviceMemoryLimit " + value.get<std::string>();
        return false;
      }
      ask.mps_pinned_memory_mib = *milli / 1000 / (int64_t{1} << 20);
    } else {
      *why = "mpsConfig." + key + ", which is not modelled";
      return false;
    }
  }
  return true;
}

// The profile of the MIG instances in `objects` that `selectors` match, or "" with `why`: none,
// or instances of several profiles, match; or a selector fails.
std::string MatchedMigProfile(const std::vector<std::string>& selectors, const KubeObjects& objects,
                              std::string& why) {
  std::vector<dra::CelSelector> compiled;
  for (const std::string& expression : selectors) {
    Parsed<dra::CelSelector> c = dra::CelSelector::Compile(expression);
    if (!c.ok()) {
      why = "selector " + expression + ": " + c.error;
      return "";
    }
    compiled.push_back(std::move(*c.value));
  }
  std::set<std::string> profiles;
  for (const ResourceSliceSpec& slice : objects.resource_slices) {
    if (slice.driver != kNvidiaDriver) continue;
    for (const DraDevice& d : slice.devices) {
      if (StringOf(Attribute(d, slice.driver, "type")) != "mig") continue;
      const dra::CelDevice device{&slice.driver, &d.attributes, &d.capacity,
                                  d.allow_multiple_allocations};
      bool all = true;
      for (const dra::CelSelector& selector : compiled) {
        const dra::CelResult r = selector.Evaluate(device);
        all = all && r.error.empty() && r.matches;
      }
      if (all) profiles.insert(StringOf(Attribute(d, slice.driver, "profile")));
    }
  }
  if (profiles.size() == 1) return *profiles.begin();
  why = profiles.empty()
            ? "its selectors match no MIG instance in the export"
            : "its selectors match MIG instances of " + std::to_string(profiles.size()) +
                  " profiles (" +
                  Join(std::vector<std::string>(profiles.begin(), profiles.end()), ", ") +
                  "); a scenario claim asks one";
  return "";
}

// A claim's capacity requests of `driver`'s devices into `ask`: `memory` (whole MiB, rounded
// up) and, for HAMi's driver, `cores` (whole percent), by short or driver-qualified name; why
// not, or "".
std::string ReadShare(const DraExactRequest& e, const std::string& driver, DraAsk& ask) {
  constexpr int64_t kMiBMilli = (int64_t{1} << 20) * 1000;
  const bool hami = driver == dra::kHamiCoreDriver;
  for (const auto& [name, milli] : e.capacity_requests_milli) {
    std::string id = name;
    if (id.starts_with(driver + "/")) id = id.substr(driver.size() + 1);
    if (id == "memory") {
      ask.memory_mib = (milli + kMiBMilli - 1) / kMiBMilli;
    } else if (hami && id == "cores" && milli % 1000 == 0 && milli >= 0 && milli <= 100000) {
      ask.cores = static_cast<int>(milli / 1000);
    } else {
      return "request " + e.name + " asks capacity " + name + " a scenario cannot say";
    }
  }
  return "";
}

// Why `spec` is not a scenario claim, or "" with `ask` filled.
std::string ReadClaim(const DraClaimSpec& spec, const KubeObjects& objects, DraAsk& ask) {
  if (spec.requests.size() != 1) return std::to_string(spec.requests.size()) + " requests";
  const DraRequest& r = spec.requests.front();
  if (!r.exactly) return "request " + r.name + " lists firstAvailable alternatives";
  const DraExactRequest& e = *r.exactly;
  const std::string& cls = e.device_class_name;
  if (cls != dra::kNvidiaGpuClass && cls != dra::kNvidiaMigClass && cls != dra::kHamiCoreClass)
    return "request " + r.name + " asks class " + cls;
  if (e.all) return "request " + r.name + " asks for all devices";
  if (e.admin_access) return "request " + r.name + " asks admin access";
  if (!e.tolerations.empty()) return "request " + r.name + " tolerates device taints";
  if (e.count < 1 || e.count > 32) return "request " + r.name + " asks " + std::to_string(e.count);
  if (!spec.constraints.empty()) return "its constraints (matchAttribute, distinctAttribute)";
  ask.gpus = static_cast<int>(e.count);
  if (cls != dra::kNvidiaMigClass && !e.selectors.empty())
    return "request " + r.name + " has CEL selectors";
  if (cls == dra::kNvidiaMigClass && !e.capacity_requests_milli.empty())
    return "request " + r.name + " asks consumable capacity of MIG instances, which have none";
  if (cls != dra::kNvidiaGpuClass && !spec.config.empty())
    return "a device config on class " + cls + ", which is not modelled";
  if (cls == dra::kHamiCoreClass) {
    ask.driver = DraDriver::kHamiCore;
    return ReadShare(e, dra::kHamiCoreDriver, ask);
  }
  if (cls == dra::kNvidiaMigClass) {
    std::string why;
    ask.mig_profile = MatchedMigProfile(e.selectors, objects, why);
    return ask.mig_profile.empty() ? "request " + r.name + ": " + why : "";
  }
  if (std::string why = ReadShare(e, kNvidiaDriver, ask); !why.empty()) return why;
  std::string why;
  for (const DraOpaqueConfig& c : spec.config)
    if (!ReadSharing(c, ask, &why)) return why;
  return "";
}

}  // namespace

std::map<std::string, DraNodeGpus> DraGpuNodes(const KubeObjects& objects,
                                               std::map<std::string, std::string>* why_not) {
  // The newest generation of each pool (older ones are being replaced).
  std::map<std::pair<std::string, std::string>, int64_t> newest;
  for (const ResourceSliceSpec& s : objects.resource_slices) {
    int64_t& g = newest[{s.driver, s.pool}];
    g = std::max(g, s.pool_generation);
  }
  std::map<std::string, NodeDevices> devices;
  std::map<std::string, std::string> refused;
  for (const ResourceSliceSpec& s : objects.resource_slices) {
    if (s.pool_generation != newest.at({s.driver, s.pool})) continue;
    const std::string node = s.node_name;
    if (node.empty()) {
      if (why_not != nullptr)
        (*why_not)["(no node)"] = "ResourceSlice " + s.name + " is not bound to one node";
      continue;
    }
    if (refused.count(node)) continue;
    if (std::string why = ReadSlice(s, devices[node]); !why.empty()) refused[node] = std::move(why);
  }
  std::map<std::string, DraNodeGpus> nodes;
  for (auto& [node, d] : devices) {
    if (refused.count(node)) continue;
    std::string why;
    DraNodeGpus gpus = NodeGpus(d, why);
    if (!why.empty()) {
      refused[node] = std::move(why);
    } else if (gpus.count > 0) {
      nodes[node] = std::move(gpus);
    }
  }
  if (why_not != nullptr)
    for (const auto& [node, why] : refused) (*why_not)[node] = why;
  return nodes;
}

std::optional<DraAsk> ScenarioDraAsk(const PodSpec& pod, const KubeObjects& objects,
                                     std::string* why) {
  std::vector<const PodResourceClaim*> entries;
  for (const PodResourceClaim& e : pod.resource_claims)
    if (!e.no_claim_made) entries.push_back(&e);
  if (entries.size() != 1) {
    *why = std::to_string(entries.size()) + " claims (a scenario pod has one)";
    return std::nullopt;
  }
  bool shared = false;
  const DraClaimSpec* spec = ClaimSpecOf(pod, *entries.front(), objects, &shared, why);
  if (spec == nullptr) return std::nullopt;
  DraAsk ask;
  if (std::string reason = ReadClaim(*spec, objects, ask); !reason.empty()) {
    *why = std::move(reason);
    return std::nullopt;
  }
  if (shared && ask.driver == DraDriver::kHamiCore) {
    *why = "a claim of HAMi's DRA driver shared by several pods (one HAMi-core limit for all)";
    return std::nullopt;
  }
  ask.shared = shared;
  if (!shared) {
    // A pod's own claim has nothing to share: its GpuConfig sharing means nothing.
    ask.sharing = DeviceSharingStrategy::kTimeSlicing;
    ask.mps_active_thread_percentage = 0;
    ask.mps_pinned_memory_mib = 0;
  }
  return ask;
}

std::pair<std::string, const DeviceClassSpec*> DraBackedResource(const PodSpec& pod,
                                                                 const KubeObjects& objects) {
  for (const auto& [name, amount] : pod.requests) {
    if (amount <= 0) continue;
    if (const DeviceClassSpec* c = dra::ExtendedResourceClass(objects.device_classes, name))
      return {name, c};
  }
  return {"", nullptr};
}

int NewestKubeletMinor(const KubeObjects& objects) {
  int newest = 0;
  for (const NodeSpec& n : objects.nodes) {
    std::string_view v = n.kubelet_version;
    if (v.starts_with("v")) v.remove_prefix(1);
    if (!v.starts_with("1.")) continue;
    v.remove_prefix(2);
    int minor = 0;
    std::from_chars(v.data(), v.data() + v.size(), minor);
    newest = std::max(newest, minor);
  }
  return newest;
}

ExtendedResourceNodes ExtendedResourceNodesOf(const KubeObjects& objects) {
  ExtendedResourceNodes nodes;
  nodes.newest_kubelet_minor = NewestKubeletMinor(objects);
  for (const NodeSpec& n : objects.nodes) {
    for (const auto& [name, amount] : n.allocatable)
      if (amount > 0) nodes.offered.insert(name);
  }
  return nodes;
}

std::optional<DraAsk> ExtendedResourceDraAsk(const PodSpec& pod, const KubeObjects& objects,
                                             const ExtendedResourceNodes& nodes, std::string* why,
                                             std::string* resource) {
  why->clear();
  if (!pod.resource_claims.empty()) return std::nullopt;
  const auto [asked, cls] = DraBackedResource(pod, objects);
  if (cls == nullptr) return std::nullopt;
  for (const auto& [name, amount] : pod.requests) {
    if (name != asked && amount > 0 &&
        dra::ExtendedResourceClass(objects.device_classes, name) != nullptr) {
      *why = "it asks two extended resources that DeviceClasses back";
      return std::nullopt;
    }
  }
  const int64_t count = pod.requests.at(asked);
  if (resource != nullptr) *resource = asked;
  if (nodes.offered.count(asked)) return std::nullopt;  // a device plugin's
  if (nodes.newest_kubelet_minor < dra::kDraExtendedResourceMinor)
    return std::nullopt;  // the gate is off before 1.36
  if (cls->name != dra::kNvidiaGpuClass && cls->name != dra::kHamiCoreClass) {
    *why = "it asks " + asked + ", which DeviceClass " + cls->name +
           " backs, not a class a "
           "scenario says";
    return std::nullopt;
  }
  if (count < 1 || count > 32) {
    *why = "it asks " + std::to_string(count) + " devices through " + asked;
    return std::nullopt;
  }
  DraAsk ask;
  ask.gpus = static_cast<int>(count);
  if (cls->name == dra::kHamiCoreClass) ask.driver = DraDriver::kHamiCore;
  return ask;
}

std::string SharedClaimKey(const PodSpec& pod) {
  for (const PodResourceClaim& e : pod.resource_claims)
    if (!e.no_claim_made && !e.resource_claim_name.empty())
      return pod.namespace_ + "/" + e.resource_claim_name;
  return "";
}

std::string OlderSchedulerWarning(const std::vector<PodSpec>& pending, const KubeObjects& cluster,
                                  const KubeObjects& pods, int minor) {
  if (minor >= dra::kDraExtendedResourceMinor ||
      NewestKubeletMinor(cluster) < dra::kDraExtendedResourceMinor)
    return "";
  KubeObjects classes;
  classes.device_classes = cluster.device_classes;
  classes.device_classes.insert(classes.device_classes.end(), pods.device_classes.begin(),
                                pods.device_classes.end());
  std::vector<std::string> named;
  std::string example;
  for (const PodSpec& p : pending) {
    const auto [resource, cls] = DraBackedResource(p, classes);
    if (cls == nullptr) continue;
    named.push_back(p.namespace_ + "/" + p.name);
    if (example.empty()) example = resource + ", which DeviceClass " + cls->name + " backs";
  }
  if (named.empty()) return "";
  return std::to_string(named.size()) + " pending pod(s) (" + FirstNames(named) +
         ") ask an extended resource a DeviceClass backs (" + example +
         "), and the kubelets run 1.36 or later, where DRAExtendedResource is on; at "
         "--kube-version 1." +
         std::to_string(minor) +
         " they are judged as device-plugin requests: give --kube-version 1.36 to allocate them "
         "through DRA";
}

}  // namespace knobsim
