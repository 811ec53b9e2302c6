#include "sim/scheduler/dra/extended_resources.h"

#include <algorithm>
#include <optional>
#include <span>

namespace knobsim::dra {
namespace {

constexpr std::string_view kImplicitPrefix = "deviceclass.resource.kubernetes.io/";

// createResourceRequestAndMappings: the request of container `index` for `resource`, or none
// when it asks none or (a short-lived init container) the reusable requests already hold it.
std::optional<DraRequest> ContainerRequest(int index, const PodSpec::ContainerRequests& c,
                                           const std::string& resource, const std::string& cls,
                                           std::span<const std::optional<DraRequest>> reusable) {
  const auto it = c.requests.find(resource);
  if (it == c.requests.end() || it->second <= 0) return std::nullopt;
  int64_t held = 0;
  for (const std::optional<DraRequest>& r : reusable) {
    if (!r) continue;
    held += r->exactly->count;
    if (held >= it->second) return std::nullopt;
  }
  // The resource's index among the container's requests by name (ResourceList is sorted).
  const int j = static_cast<int>(std::distance(c.requests.begin(), it));
  DraRequest r;
  r.name = "container-" + std::to_string(index) + "-request-" + std::to_string(j);
  DraExactRequest& e = r.exactly.emplace();
  e.name = r.name;
  e.device_class_name = cls;
  e.count = it->second - held;
  return r;
}

}  // namespace

const DeviceClassSpec* ExtendedResourceClass(std::span<const DeviceClassSpec> classes,
                                             std::string_view resource) {
  const DeviceClassSpec* found = nullptr;
  for (const DeviceClassSpec& c : classes) {
    const bool match =
        c.extended_resource_name == resource || (resource.starts_with(kImplicitPrefix) &&
                                                 resource.substr(kImplicitPrefix.size()) == c.name);
    if (match && (found == nullptr || c.name < found->name)) found = &c;
  }
  return found;
}

bool DelegatedToDra(std::string_view resource, const NodeSpec& node,
                    std::span<const DeviceClassSpec> classes, int minor) {
  if (minor < kDraExtendedResourceMinor) return false;
  const auto it = node.allocatable.find(std::string(resource));
  if (it != node.allocatable.end() && it->second > 0) return false;
  return ExtendedResourceClass(classes, resource) != nullptr;
}

std::string WholeGpuResource(const PodSpec& pod) {
  return pod.device_resource.empty() ? std::string(kNvidiaGpuResource) : pod.device_resource;
}

std::vector<DraRequest> ExtendedResourceRequests(
    const PodSpec& pod, const std::map<std::string, const DeviceClassSpec*>& delegated) {
  std::vector<PodSpec::ContainerRequests> containers = pod.container_requests;
  if (containers.empty()) containers.push_back({false, false, pod.requests});
  std::vector<DraRequest> out;
  for (const auto& [resource, cls] : delegated) {  // by name
    std::vector<std::optional<DraRequest>> long_lived(containers.size());
    for (size_t i = 0; i < containers.size(); ++i) {
      const PodSpec::ContainerRequests& c = containers[i];
      if (c.init && !c.sidecar) continue;
      long_lived[i] = ContainerRequest(static_cast<int>(i), c, resource, cls->name, {});
    }
    std::optional<DraRequest> largest_short;
    for (size_t i = 0; i < containers.size(); ++i) {
      const PodSpec::ContainerRequests& c = containers[i];
      if (!c.init || c.sidecar) continue;
      std::optional<DraRequest> r = ContainerRequest(static_cast<int>(i), c, resource, cls->name,
                                                     std::span(long_lived).subspan(i));
      if (r && (!largest_short || largest_short->exactly->count < r->exactly->count))
        largest_short = std::move(r);
    }
    if (largest_short) out.push_back(std::move(*largest_short));
    for (std::optional<DraRequest>& r : long_lived)
      if (r) out.push_back(std::move(*r));
  }
  std::sort(out.begin(), out.end(),
            [](const DraRequest& a, const DraRequest& b) { return a.name < b.name; });
  return out;
}

}  // namespace knobsim::dra
