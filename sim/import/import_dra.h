// What `knobsim import` makes of an export's DRA objects (docs/import.md "DRA resource claims"):
// the nodes whose only DRA devices are whole GPUs of the NVIDIA DRA driver become `dra: true`
// pools, and a pod whose one claim asks such GPUs as a scenario can say it becomes a `dra:`
// workload. Everything else a DRA claim or slice can say is refused here, with the reason, and
// the pod left out (ImportCluster warns): a scenario claim is whole GPUs of class
// gpu.nvidia.com, shared by one workload's replicas or one per pod, with the driver's
// TimeSlicing or MPS sharing.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "sim/kube_objects.h"
#include "sim/scenario.h"

namespace knobsim {

// A node's whole GPUs as the NVIDIA DRA driver publishes them: how many, and their productName
// with spaces as dashes (GPU feature discovery's spelling, which the catalog reads).
struct DraNodeGpus {
  int count = 0;
  std::string product;
};

// The nodes whose newest ResourceSlices of driver gpu.nvidia.com list only devices of type
// "gpu" of one product, by node name. A node whose slices hold other devices (MIG partitions,
// shared counters, per-device selection) or another driver's is not among them: `why_not`
// (when given) receives "node: reason" for each.
std::map<std::string, DraNodeGpus> DraGpuNodes(const KubeObjects& objects,
                                               std::map<std::string, std::string>* why_not);

// The scenario claim `pod`'s DRA claims amount to, or nullopt with `why` set: exactly one claim
// (entries the pod's status lists without one do not count), found in the export as a claim or
// template, of one request for `count` GPUs of class gpu.nvidia.com with no selectors,
// allocation mode, admin access, tolerations, capacity requests or constraints, and whose
// config is at most the driver's GpuConfig sharing (TimeSlicing; MPS with
// defaultActiveThreadPercentage and defaultPinnedDeviceMemoryLimit). A claim by name is shared
// (`shared: true`); a template's is the pod's own. Whether several workloads use one claim is
// the caller's check.
std::optional<DraAsk> ScenarioDraAsk(const PodSpec& pod, const KubeObjects& objects,
                                     std::string* why);

// The claim a shared DraAsk came from, "namespace/name" (the pod's claim by name).
std::string SharedClaimKey(const PodSpec& pod);

}  // namespace knobsim
