// What `knobsim import` makes of an export's DRA objects (docs/import.md "DRA resource claims"):
// the nodes whose DRA devices a scenario pool can publish become `dra:` pools — the NVIDIA DRA
// driver's whole GPUs, its MIG instances created ahead (one layout on every card), or HAMi's DRA
// driver's shared GPUs — and a pod whose one claim asks such devices as a scenario can say it
// becomes a `dra:` workload. Everything else a DRA claim or slice can say is refused here, with
// the reason, and the pod left out (ImportCluster warns): a scenario claim is whole GPUs of
// class gpu.nvidia.com (shared by one workload's replicas or one per pod, with the driver's
// TimeSlicing or MPS sharing), MIG instances of one profile of class mig.nvidia.com, or a pod's
// own share of HAMi GPUs (memory and cores) of class hami-core-gpu.project-hami.io.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/kube_objects.h"
#include "sim/scenario.h"

namespace knobsim {

// A node's GPUs as a DRA driver publishes them: how many cards, their productName with spaces
// as dashes (GPU feature discovery's spelling, which the catalog reads), the driver, and for
// the NVIDIA driver's MIG instances the layout of every card (its profiles, sorted).
struct DraNodeGpus {
  int count = 0;
  std::string product;
  DraDriver driver = DraDriver::kNvidia;
  std::vector<std::string> mig;
  bool dynamic_mig = false;  // NVIDIA DynamicMIG: each card's devices consume its counter set
  // NVIDIA-driver GPUs that allow multiple allocations, shared by consumable memory.
  std::optional<DraPool::SharedMemory> shared_memory;
  int64_t memory_mib = 0;  // a whole card's `memory` capacity, 0 when no device says
};

// The nodes whose newest ResourceSlices list only one driver's devices of one product that a
// scenario pool publishes: the NVIDIA DRA driver's whole GPUs (type "gpu"), its MIG instances
// created ahead (type "mig", no shared counters: every card with the same profiles), or its
// DynamicMIG devices (whole GPUs and MIG partitions that all consume a card's counter set: the
// cards are the counter sets), or HAMi's DRA driver's GPUs (type "hami-gpu"), by node name. A
// node whose slices hold other devices (per-device selection, tainted devices, GPUs with and
// without MIG or DynamicMIG) or another driver's is not among them: `why_not` (when given)
// receives "node: reason" for each.
std::map<std::string, DraNodeGpus> DraGpuNodes(const KubeObjects& objects,
                                               std::map<std::string, std::string>* why_not);

// The scenario claim `pod`'s DRA claims amount to, or nullopt with `why` set: exactly one claim
// (entries the pod's status lists without one do not count), found in the export as a claim or
// template, of one request for `count` devices without allocation mode All, admin access,
// tolerations or constraints:
//   - class gpu.nvidia.com, no selectors or capacity requests, a config that is at most the
//     driver's GpuConfig sharing (TimeSlicing; MPS with defaultActiveThreadPercentage and
//     defaultPinnedDeviceMemoryLimit);
//   - class mig.nvidia.com, selectors that the export's MIG instances of exactly one profile
//     match (evaluated, not read), no config;
//   - class hami-core-gpu.project-hami.io, no selectors, capacity requests of `memory` and
//     `cores` only, no config, and the pod's own claim (a template's).
// A claim by name is shared (`shared: true`); a template's is the pod's own. Whether several
// workloads use one claim is the caller's check.
std::optional<DraAsk> ScenarioDraAsk(const PodSpec& pod, const KubeObjects& objects,
                                     std::string* why);

// DRAExtendedResource (on from Kubernetes 1.36): a pod without claims whose requests hold an
// extended resource that a DeviceClass backs — its `extendedResourceName`, or the implicit
// `deviceclass.resource.kubernetes.io/<class>` — gets it from the DRA allocator, as a claim
// the scheduler makes for the pod, wherever a node offers none of it through a device plugin.
// The scenario claim that amounts to, when the export's newest kubelet is 1.36 or later and
// no node offers the resource: `count` devices of the class, the pod's own (whole GPUs of
// gpu.nvidia.com, or a whole card of HAMi's class). nullopt with `why` empty when the pod asks
// no such resource; with `why` set when it does but a scenario cannot say it.
// The first extended resource of `pod`'s requests that a DeviceClass of `objects` backs, and
// that class (upstream's extendedresourcecache: explicit extendedResourceName, the lower class
// name on a clash **[simplification]**: creation times are not kept; or the implicit
// deviceclass.resource.kubernetes.io/<class>); {"", nullptr} when none.
std::pair<std::string, const DeviceClassSpec*> DraBackedResource(const PodSpec& pod,
                                                                 const KubeObjects& objects);

// The newest kubelet minor version among the nodes (1.<minor>), 0 when none says.
int NewestKubeletMinor(const KubeObjects& objects);

// DRAExtendedResource is on from Kubernetes 1.36. Where the scheduler's version (1.`minor`) is
// older but the kubelets of `cluster` run 1.36 or later, `pending` pods asking an extended
// resource a DeviceClass (of either file) backs are judged as device-plugin requests, which
// the cluster does not do: the warning naming them, or "".
std::string OlderSchedulerWarning(const std::vector<PodSpec>& pending, const KubeObjects& cluster,
                                  const KubeObjects& pods, int minor);

struct ExtendedResourceNodes {
  int newest_kubelet_minor = 0;   // NewestKubeletMinor
  std::set<std::string> offered;  // resources some node's allocatable holds (> 0)
};
// What ExtendedResourceDraAsk needs of the nodes, worked out once for all pods.
ExtendedResourceNodes ExtendedResourceNodesOf(const KubeObjects& objects);
std::optional<DraAsk> ExtendedResourceDraAsk(const PodSpec& pod, const KubeObjects& objects,
                                             const ExtendedResourceNodes& nodes, std::string* why,
                                             std::string* resource = nullptr);

// The claim a shared DraAsk came from, "namespace/name" (the pod's claim by name).
std::string SharedClaimKey(const PodSpec& pod);

}  // namespace knobsim
