// Card placement inside a node: which card(s) a GPU pod takes, ACK's way (docs/semantics.md §1.5).
//
//  * binpack / spread (ACK scheduler-framework plugin, §1.5 B): every candidate card set is
//    scored 30·avg + 70/n² in float32; the node score is int(best); ties to the lowest index.
//  * best-fit (the legacy open-source extender, §1.5 A): the card with the least free memory
//    that fits, lowest index on ties.
//  * whole cards for nvidia.com/gpu pods; multi-card pods (label aliyun.com/gpu-count M) split
//    gpu-mem N/M per card over M distinct cards (rejected when N/M is not whole);
//    ack.node.gpu.max-pod; require-whole-device; gpu-mem + gpu-core pairs on the same cards.
//  * the FGD paper's policies (random, dotprod, clustering, packing, bestfit, fgd;
//    docs/fgd-policies.md §4) rank nodes and choose cards through sim/scheduler/policy_placement.h;
//    here they share ACK's card fit (the filter a pool keeps whatever its placement).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {

enum class CardPolicy {
  kBinpack,  // ACK's plugin (§1.5 B)
  kSpread,
  kExtenderBestFit,  // the legacy open-source extender (§1.5 A)
  // The FGD paper's (docs/fgd-policies.md §4), scored by policy_placement.h:
  kRandom,
  kDotProd,
  kClustering,
  kPacking,
  kBestFit,
  kFgd,
};

// Whether `policy` is one of the FGD paper's (ranked by policy_placement.h, not by ACK's score).
bool IsPaperPolicy(CardPolicy policy);

struct CardChoice {
  std::vector<int> cards;       // card indexes on the node
  std::vector<int> mem_units;   // per chosen card
  std::vector<int> core_units;  // per chosen card
  std::vector<int> replicas = {};  // nvidia.com/gpu replicas per chosen card on a shared node
  double score = 0;             // float32 candidate score (binpack/spread); 0 for best-fit
  // Bottleneck bandwidth (GB/s) of a multi-card choice when the caller knows the node's GPU
  // topology (models/gpu_topology); 0 for single-card choices or an unknown topology.
  double bottleneck_gbps = 0;
};

struct CardPlacementResult {
  std::optional<CardChoice> choice;  // empty when no card set fits
  std::string reason;                // why not (an ACK failure text) when empty
};

// Bottleneck bandwidth (GB/s) of a set of cards on the node (sorted indexes). The card choice
// calls it only to break ties between multi-card sets of equal score — aliyun.com/gpu-count
// pods and nvidia.com/gpu pods of 2+ cards; the higher bandwidth wins — and to fill
// CardChoice::bottleneck_gbps. The GPU-share plugin builds it from models/gpu_topology, so this
// file stays free of topology code.
using CardSetBandwidth = std::function<double(std::span<const int> cards)>;

// Chooses the card(s) for `pod` on `node` under `policy`. A pod that asks for no GPU gets an
// empty choice with no cards. `max_pods_per_card` combines the node label and POLICY 0's
// implicit max_inst (0 = no limit). `bandwidth` (optional) breaks ties between multi-card sets.
CardPlacementResult PlaceOnCards(const PodSpec& pod, const NodeState& node, CardPolicy policy,
                                 int max_pods_per_card, const CardSetBandwidth& bandwidth = {});

// Why no card set fits; the text of each is CardFailureReason.
enum class CardFailure {
  kNone,
  kInsufficientMemory,     // no card (or not M cards) with the units free
  kMaxPods,                // every card holds max-pod pods already
  kNoWholeDevice,          // require-whole-device and no card is free, whole and of the size asked
  kInvalidReplica,         // a container's request does not split evenly over aliyun.com/gpu-count
  kExtenderMultiCard,      // best-fit (the legacy extender) has no multi-card placement
  kCoreWithoutMemory,      // gpu-core.percentage asked without aliyun.com/gpu-mem
  kInsufficientWholeGpus,  // fewer idle cards than nvidia.com/gpu asks
};

// The kubelet's admission of `pod` once bound to `node`: where the NVIDIA device plugin shares
// cards with failRequestsGreaterThanOne, its Allocate refuses a container asking for more than
// one replica (k8s-device-plugin internal/rm/rm.go ValidateRequest) and the pod fails with
// UnexpectedAdmissionError. kube-scheduler cannot see it (it counts nvidia.com/gpu only), so the
// pod is bound first. Returns the kubelet's message, empty when the pod is admitted.
std::string DeviceAdmissionError(const PodSpec& pod, const NodeSpec& node);

// PlaceOnCards' verdict without building the card lists, for the filter and the score plugins
// that run it on every node (no allocation for single-card pods, the common case). `score` is
// the chosen candidate's float32 score (0 for best-fit, whole GPUs and pods without GPU).
struct CardFit {
  bool fits = false;
  float score = 0;
  CardFailure failure = CardFailure::kNone;
};
CardFit EvaluateCards(const PodSpec& pod, const NodeState& node, CardPolicy policy,
                      int max_pods_per_card);

// Whether card slot `card` of `node` is a device of the resource the pod's whole_gpus count:
// nvidia.com/gpu, on a MIG node under the mixed strategy the pod's nvidia.com/mig-<profile>
// (NodeSpec::mig, PodSpec::device_resource), on a node of renamed replicas
// nvidia.com/gpu.shared; never a HAMi node's cards (its extender places its vGPUs).
bool CardServes(const NodeSpec& node, int card, const PodSpec& pod);

// Whether ACK's plugin would accept exactly `cards` (sorted, distinct) for `pod` on `node`:
// every card eligible for the pod's per-card request (units, gpu-core, max-pod,
// require-whole-device) and as many as aliyun.com/gpu-count asks, or idle cards for
// nvidia.com/gpu pods. When so, the choice as PlaceOnCards would fill it (score 0). The FGD
// paper's policies choose cards in milli-GPU; this keeps their choice honest in units.
std::optional<CardChoice> CheckCardSet(const PodSpec& pod, const NodeState& node,
                                       std::span<const int> cards, int max_pods_per_card);

// The node-independent part: aliyun.com/gpu-count against the pod's requests (kInvalidReplica;
// kExtenderMultiCard under best-fit). ACK's plugin checks it in PreFilter, so the pod is
// rejected everywhere with that one reason. kNone when the split is fine.
CardFailure CheckCardSplit(const PodSpec& pod, CardPolicy policy);

// The per-node FailedScheduling reason for `failure` (texts in card_placement.cpp, with sources).
// kInsufficientMemory reads as the extender says under best-fit and as ACK's plugin says
// otherwise.
std::string CardFailureReason(CardFailure failure, const PodSpec& pod,
                              CardPolicy policy = CardPolicy::kBinpack);

// ACK's getAllocationScore in float32 (§1.5 B): one card's term (usedAfter / total for binpack,
// 1 − that for spread) and a candidate's score 30·avg + 70/n² over n terms. The trace replay's
// ACK policies score with the same two functions.
float AckCardTerm(int total, int used, int alloc, CardPolicy policy);
float AckCandidateScore(const float* terms, int n);

// The placement values a scenario, a whatif knob or a node label may name, spelt the canonical
// way: binpack, spread (ACK's) and the FGD paper's random, dotprod, clustering, packing, bestfit,
// fgd (docs/design.md §1 item 5).
const std::vector<std::string>& PlacementNames();
// `value` in its canonical spelling (ack-binpack -> binpack, ack-spread -> spread); nullopt for
// anything else.
std::optional<std::string> NormalizePlacement(std::string_view value);

// Parses a placement value: "binpack", "spread" (also "ack-binpack", "ack-spread"),
// "bestfit-extender", and the paper's "random", "dotprod", "clustering", "packing", "bestfit",
// "fgd".
std::optional<CardPolicy> ParseCardPolicy(const std::string& value);

}  // namespace knobsim
