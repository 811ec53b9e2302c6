// The GPU sharing modes knobsim does not model, recognised by what each one writes into an
// export, so that the reader refuses them (exit 2) instead of reading their devices as whole
// cards: the parts of HAMi knobsim does not model, the NVIDIA device plugin's time-slicing, MPS and
// MIG where the labels do not say enough to model them, and ACK's own `mps`, `topology` and `mig`
// schedules (docs/semantics.md §2.5, docs/import.md "GPU sharing modes knobsim refuses").
//
// Why refuse and not leave out: each mode changes what one unit of `nvidia.com/gpu` (or of the
// node's capacity) is — a time slice, a vGPU, a slice of the card — for every pod of the node,
// so nothing of such a node reads right, and leaving its nodes out would silently shrink the
// cluster a what-if is about. A pod that asks for such a resource has no card knobsim could
// place it on.
//
// The rules look only at keys and values the systems' own code writes, each rule named after
// what it reads (the unit tests are named the same); the first that matches is reported. What
// they need is passed in plain, so that the reader can point at the field of the key found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kube_types.h"

namespace knobsim::kube {

// Where a rule found its evidence, so the reader can name that field.
enum class SharingEvidence { kLabel, kAnnotation, kCapacity, kPodResource };

struct UnmodelledSharing {
  std::string rule;    // e.g. "gfd-replicas"
  std::string system;  // e.g. "NVIDIA time-slicing"
  SharingEvidence evidence = SharingEvidence::kLabel;
  std::string key;          // the label, annotation or resource that shows it
  std::string found;        // what it says: `nvidia.com/gpu.replicas=4`
  std::string consequence;  // what reading it as knobsim reads other clusters would get wrong
};

// A node's labels, the keys of its annotations (all of them, before the secret filter: HAMi's
// registration annotation lists card UUIDs, which can read as a token) and status.capacity.
// Rules, in order:
//   ack-schedule-mps, ack-schedule-topology, ack-schedule-mig  ack.node.gpu.schedule
//   ack-topology-resource   capacity aliyun.com/gpu > 0 (ACK's topology-aware whole GPUs)
//   hami-node-annotation    an annotation under hami.io/ without HAMi's device registration
//                           (hami.io/node-nvidia-register), or one beside it other than the
//                           handshake, the node lock and topology scores (e.g. device-cordon);
//                           a registered HAMi node is read by the node reader (ReadHamiSide)
//   (a node DevicePluginMig models stops here: nothing is refused)
//   mig-resource            capacity nvidia.com/mig-<profile> > 0 (mig.strategy mixed)
//   mig-product             nvidia.com/gpu.product with a MIG part (mig.strategy single:
//                           `A100-SXM4-40GB-MIG-1g.5gb`, `…-MIG-INVALID`)
//   mig-config              nvidia.com/mig.config other than all-disabled (MIG manager's layout)
//   gfd-sharing-strategy    nvidia.com/gpu.sharing-strategy other than none
//   gfd-replicas            nvidia.com/gpu.replicas above 1 (or not a count)
//   gfd-shared-product      nvidia.com/gpu.product ending in -SHARED
//   shared-resource         capacity nvidia.com/<name>.shared > 0 (renameByDefault replicas) where
//                           DevicePluginReplicas does not model them
//   mps-capable             nvidia.com/mps.capable=true
//   capacity-above-count    capacity nvidia.com/gpu above nvidia.com/gpu.count (replicas or
//                           vGPUs without the labels that say which)
std::optional<UnmodelledSharing> UnmodelledNodeSharing(const Labels& labels,
                                                       const std::vector<std::string>& annotations,
                                                       const ResourceList& capacity);

// A pod's annotation keys (before the secret filter) and the resource names of its containers'
// requests and limits (init containers included). Rules, in order:
//   hami-pod-annotation     an annotation under hami.io/ other than the allocation, binding and
//                           policies HAMi writes (e.g. device-scoring-weights), or one of HAMi's
//                           card selectors knobsim does not model (nvidia.com/use-gpuuuid,
//                           nouse-gpuuuid, vgpu-mode, numa-bind)
//   hami-resource           nvidia.com/priority (HAMi-core's task priority); gpumem,
//                           gpumem-percentage and gpucores are read by the pod reader
//   shared-resource         nvidia.com/<name>.shared other than nvidia.com/gpu.shared (a MIG
//                           profile's renamed replicas)
//   ack-topology-resource   aliyun.com/gpu
std::optional<UnmodelledSharing> UnmodelledPodSharing(const std::vector<std::string>& annotations,
                                                      const std::vector<std::string>& resources);

// The NVIDIA device plugin's time-slicing or MPS replicas, which knobsim models
// (NodeSpec::device_sharing, docs/semantics.md §2.6), read from GPU feature discovery's labels:
// nvidia.com/gpu.sharing-strategy time-slicing | mps, nvidia.com/gpu.replicas R >= 2 (MPS: at
// most 48), nvidia.com/gpu.count C, and capacity nvidia.com/gpu in 1..C x R (fewer: unhealthy
// replicas). Replicas renamed to nvidia.com/gpu.shared (renameByDefault) are modelled the same,
// with capacity nvidia.com/gpu.shared in place of nvidia.com/gpu. failRequestsGreaterThanOne
// is not in the labels: the plugin's default (false for time-slicing, true for MPS). Nothing
// when the node does not show all of it; UnmodelledNodeSharing then refuses what it does show.
struct ModelledReplicas {
  DeviceSharing sharing;
  int cards = 0;        // physical cards (nvidia.com/gpu.count)
  int64_t offered = 0;  // capacity nvidia.com/gpu
};
std::optional<ModelledReplicas> DevicePluginReplicas(const Labels& labels,
                                                     const ResourceList& capacity);

// MIG as the NVIDIA device plugin advertises it and GPU feature discovery labels it
// (k8s-device-plugin internal/lm/mig-strategy.go), which knobsim models (NodeSpec::mig,
// docs/semantics.md §2.7):
//   single  nvidia.com/mig.strategy=single, nvidia.com/gpu.product <card>-MIG-<profile>, and
//           capacity nvidia.com/gpu > 0: the node's MIG devices, all of that profile;
//   mixed   nvidia.com/mig.strategy=mixed and capacity nvidia.com/mig-<profile> > 0 for each
//           profile; nvidia.com/gpu.product names the card and nvidia.com/gpu.count its cards.
// Not modelled, so nothing here (UnmodelledNodeSharing then refuses what the node shows): MIG
// devices shared again by replicas (a .replicas label above 1), whole cards offered beside MIG
// devices under mixed (capacity nvidia.com/gpu > 0), single's INVALID product.
struct ModelledMig {
  MigStrategy strategy = MigStrategy::kNone;
  std::string card_product;  // GFD's product of the whole card, e.g. NVIDIA-A100-SXM4-80GB
  std::vector<std::pair<std::string, int64_t>> devices;  // profile -> devices offered, by name
  int cards = 0;  // nvidia.com/gpu.count under mixed; 0 under single (its labels count devices)
};
std::optional<ModelledMig> DevicePluginMig(const Labels& labels, const ResourceList& capacity);

// The refusal: "<object>: <system> (<found>) is not modelled: <consequence>", and its hint.
std::string UnmodelledSharingMessage(const UnmodelledSharing& s, std::string_view object);
extern const std::string_view kUnmodelledSharingHint;

}  // namespace knobsim::kube
