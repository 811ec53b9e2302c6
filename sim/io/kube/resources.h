// Resource amounts of the Kubernetes export reader: quantities as the API server parses and
// validates them (cpu in millicores, memory and storage in bytes, everything else in units),
// one container's requests and limits, and the pod's requests as the scheduler sums them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/kube/fields.h"
#include "sim/kube_types.h"

namespace knobsim::kube {

// ACK's topology-aware whole-GPU resource, counted as cards on a node.
inline constexpr std::string_view kTopologyGpuResource = "aliyun.com/gpu";

// No card holds a million units of anything; a bigger GPU value is a unit slip (`4Gi` of
// aliyun.com/gpu-mem is 4294967296 units) and would overflow the int fields downstream.
inline constexpr int64_t kMaxGpuUnits = 1'000'000;
// Cards on one node: the largest real hosts have 16; more is a broken export.
inline constexpr int64_t kMaxCardsPerNode = 1024;

// One parsed resource amount and where it came from.
struct ResourceEntry {
  std::string name;
  int64_t value = 0;
  std::string text;
  Field field;
};

struct ContainerResources {
  ResourceList requests;  // after defaulting missing requests to limits
  ResourceList limits;
  bool sidecar = false;  // init container with restartPolicy Always
};

// The amount `text` of resource `name`, in its unit; an error where Kubernetes would reject it
// (or where it is a GPU unit slip), a warning for millibytes of memory.
int64_t ResourceValue(FieldReader& r, const Field& f, const std::string& name,
                      const std::string& text);

// A resource map (`cpu: 500m`, `memory: 1Gi`) in file order; absent reads as empty.
std::vector<ResourceEntry> Resources(FieldReader& r, const std::optional<Field>& f);

// A container's resources, validated as the API server does (extended resources need equal
// limits, no request above its limit), missing requests defaulted to the limits.
ContainerResources ReadContainerResources(FieldReader& r, const Field& container, bool init);

// Upstream's PodRequests (component-helpers resource.PodRequests): regular containers sum;
// restartable (sidecar) init containers add to that sum and to every later init container;
// the pod takes the larger of the two per resource, plus overhead. `defaults` fills a
// container's missing resource (the NonMissingContainerRequests option used for scoring).
ResourceList PodRequests(const std::vector<ContainerResources>& containers,
                         const std::vector<ContainerResources>& init_containers,
                         const ResourceList& overhead, const ResourceList& defaults);

}  // namespace knobsim::kube
