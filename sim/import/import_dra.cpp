#include "sim/import/import_dra.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/quantity.h"
#include "sim/scheduler/dra/constraints.h"
#include "sim/scheduler/dra/nvidia_gpu_devices.h"

namespace knobsim {
namespace {

using dra::kNvidiaDriver;

// The driver's attribute `id` of `d` (attribute names are stored qualified).
const DraAttribute* Attribute(const DraDevice& d, const std::string& id) {
  return dra::LookupAttribute(d, kNvidiaDriver, std::string(kNvidiaDriver) + "/" + id);
}

std::string StringOf(const DraAttribute* a) {
  return a != nullptr && !a->list && a->strings.size() == 1 ? a->strings.front() : "";
}

// Why `slice` is not whole GPUs of one product only, or "" (then `gpus` counts them).
std::string WholeGpus(const ResourceSliceSpec& slice, DraNodeGpus& gpus) {
  if (slice.driver != kNvidiaDriver)
    return "ResourceSlice " + slice.name + " of driver " + slice.driver;
  if (!slice.shared_counters.empty() || slice.per_device_node_selection)
    return "ResourceSlice " + slice.name + " has shared counters or per-device node selection";
  for (const DraDevice& d : slice.devices) {
    const std::string type = StringOf(Attribute(d, "type"));
    if (type != "gpu") return "device " + d.name + " is of type " + (type.empty() ? "?" : type);
    if (!d.consumes_counters.empty() || d.allow_multiple_allocations || !d.taints.empty())
      return "device " + d.name + " consumes counters, is shared or is tainted";
    std::string product = StringOf(Attribute(d, "productName"));
    std::replace(product.begin(), product.end(), ' ', '-');
    if (gpus.count > 0 && product != gpus.product)
      return "GPUs of two products (" + gpus.product + ", " + product + ")";
    gpus.product = product;
    ++gpus.count;
  }
  return "";
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

// Why `spec` is not `count` whole GPUs of the driver's class, or "" with `ask` filled.
std::string ReadClaim(const DraClaimSpec& spec, DraAsk& ask) {
  if (spec.requests.size() != 1) return std::to_string(spec.requests.size()) + " requests";
  const DraRequest& r = spec.requests.front();
  if (!r.exactly) return "request " + r.name + " lists firstAvailable alternatives";
  const DraExactRequest& e = *r.exactly;
  if (e.device_class_name != dra::kNvidiaGpuClass)
    return "request " + r.name + " asks class " + e.device_class_name;
  if (!e.selectors.empty()) return "request " + r.name + " has CEL selectors";
  if (e.all) return "request " + r.name + " asks for all devices";
  if (e.admin_access) return "request " + r.name + " asks admin access";
  if (!e.tolerations.empty()) return "request " + r.name + " tolerates device taints";
  if (!e.capacity_requests_milli.empty())
    return "request " + r.name + " asks consumable capacity, not modelled in a run yet";
  if (e.count < 1 || e.count > 32) return "request " + r.name + " asks " + std::to_string(e.count);
  if (!spec.constraints.empty()) return "its constraints (matchAttribute, distinctAttribute)";
  ask.gpus = static_cast<int>(e.count);
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
  std::map<std::string, DraNodeGpus> nodes;
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
    DraNodeGpus& gpus = nodes[node];
    if (std::string why = WholeGpus(s, gpus); !why.empty()) refused[node] = std::move(why);
  }
  for (const auto& [node, why] : refused) {
    nodes.erase(node);
    if (why_not != nullptr) (*why_not)[node] = why;
  }
  std::erase_if(nodes, [](const auto& n) { return n.second.count == 0; });
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
  if (std::string reason = ReadClaim(*spec, ask); !reason.empty()) {
    *why = std::move(reason);
    return std::nullopt;
  }
  ask.shared = shared;
  if (!shared) ask = DraAsk{ask.gpus, false, DeviceSharingStrategy::kTimeSlicing, 0, 0};
  return ask;
}

std::string SharedClaimKey(const PodSpec& pod) {
  for (const PodResourceClaim& e : pod.resource_claims)
    if (!e.no_claim_made && !e.resource_claim_name.empty())
      return pod.namespace_ + "/" + e.resource_claim_name;
  return "";
}

}  // namespace knobsim
