// The placement policies of the FGD paper's experiments (docs/fgd-policies.md §4) and ACK's two
// card placements (docs/validation.md rung 3), as the replay uses them: a node score and, inside
// the node, a card choice.
//
// A policy is a pure function of the pod's request and the node's state. That is what lets the
// replay cache a node's score until a placement changes the node, and score nodes in identical
// states once; and it is the same function the scheduler plugins of sim/scheduler/fgd/plugins.h
// call.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scheduler/fgd/fragmentation.h"
#include "sim/scheduler/fgd/node_state.h"
#include "sim/scheduler/fgd/request.h"

namespace knobsim::fgd {

enum class PolicyKind {
  kRandom,      // 01-Random (§4.1)
  kDotProd,     // 02-DotProd (§4.2)
  kClustering,  // 03-GpuClustering (§4.3)
  kPacking,     // 04-GpuPacking (§4.4)
  kBestFit,     // 05-BestFit (§4.5)
  kFgd,         // 06-FGD (§4.6, §5.4)
  kAckBinpack,  // 07-ACK-Binpack (docs/semantics.md §1.5 B on this protocol)
  kAckSpread,   // 08-ACK-Spread
};

inline constexpr PolicyKind kAllPolicies[] = {
    PolicyKind::kRandom,  PolicyKind::kDotProd, PolicyKind::kClustering, PolicyKind::kPacking,
    PolicyKind::kBestFit, PolicyKind::kFgd,     PolicyKind::kAckBinpack, PolicyKind::kAckSpread};

// The command-line name: random, dotprod, clustering, packing, bestfit, fgd, ack-binpack,
// ack-spread. Parsing also takes `binpack` and `spread` (the scenario files' placement values)
// and is case-insensitive.
std::string_view PolicyName(PolicyKind kind);
std::optional<PolicyKind> ParsePolicy(std::string_view name);
// The reference's `sc_policy` column: 01-Random … 06-FGD, 07-ACK-Binpack, 08-ACK-Spread.
std::string_view ScPolicyLabel(PolicyKind kind);

class Policy {
 public:
  virtual ~Policy() = default;
  virtual PolicyKind kind() const = 0;
  // The node's score, 0..100 (before BestFit's min-max normalisation, which keeps the argmax),
  // for a node that passed every filter of §3. Depends only on the pod's request and on the
  // node's free CPU, cards, model and tags, never on its memory or pod count.
  virtual int Score(const PodRequest& pod, const NodeState& node) const = 0;
  // The card(s) the pod takes on the node the scheduler picked (Reserve). Default: the `best`
  // method of §3 (best fit for a shared pod, the lowest-indexed free cards otherwise).
  virtual CardTake Cards(const PodRequest& pod, const NodeState& node) const;
  // Whether the scores read NodeState::tags (GpuClustering).
  virtual bool reads_tags() const { return false; }
  // Whether a score costs enough (FGD) that looking it up by node state pays.
  virtual bool expensive() const { return false; }
};

// `types` (§5.1) is needed by FGD only and must outlive the policy.
std::unique_ptr<Policy> MakePolicy(PolicyKind kind, std::span<const TypicalPod> types = {});

// The `best` card method (§3): best fit for a shared pod, the lowest-indexed free cards
// otherwise.
CardTake BestMethodCards(const PodRequest& pod, const NodeState& node);

// Factories, one file each.
std::unique_ptr<Policy> NewRandomPolicy();
std::unique_ptr<Policy> NewDotProdPolicy();
std::unique_ptr<Policy> NewClusteringPolicy();
std::unique_ptr<Policy> NewPackingPolicy();
std::unique_ptr<Policy> NewBestFitPolicy();
std::unique_ptr<Policy> NewFgdPolicy(std::span<const TypicalPod> types);
std::unique_ptr<Policy> NewAckPolicy(bool spread);

}  // namespace knobsim::fgd
