#include "sim/scheduler/fgd/policy.h"

#include <cctype>

namespace knobsim::fgd {

std::string_view PolicyName(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kRandom:
      return "random";
    case PolicyKind::kDotProd:
      return "dotprod";
    case PolicyKind::kClustering:
      return "clustering";
    case PolicyKind::kPacking:
      return "packing";
    case PolicyKind::kBestFit:
      return "bestfit";
    case PolicyKind::kFgd:
      return "fgd";
    case PolicyKind::kAckBinpack:
      return "ack-binpack";
    case PolicyKind::kAckSpread:
      return "ack-spread";
  }
  return "?";
}

std::string_view ScPolicyLabel(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kRandom:
      return "01-Random";
    case PolicyKind::kDotProd:
      return "02-DotProd";
    case PolicyKind::kClustering:
      return "03-GpuClustering";
    case PolicyKind::kPacking:
      return "04-GpuPacking";
    case PolicyKind::kBestFit:
      return "05-BestFit";
    case PolicyKind::kFgd:
      return "06-FGD";
    case PolicyKind::kAckBinpack:
      return "07-ACK-Binpack";
    case PolicyKind::kAckSpread:
      return "08-ACK-Spread";
  }
  return "?";
}

std::optional<PolicyKind> ParsePolicy(std::string_view name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (PolicyKind k : kAllPolicies) {
    if (lower == PolicyName(k)) return k;
  }
  if (lower == "binpack") return PolicyKind::kAckBinpack;
  if (lower == "spread") return PolicyKind::kAckSpread;
  return std::nullopt;
}

std::unique_ptr<Policy> MakePolicy(PolicyKind kind, std::span<const TypicalPod> types) {
  switch (kind) {
    case PolicyKind::kRandom:
      return NewRandomPolicy();
    case PolicyKind::kDotProd:
      return NewDotProdPolicy();
    case PolicyKind::kClustering:
      return NewClusteringPolicy();
    case PolicyKind::kPacking:
      return NewPackingPolicy();
    case PolicyKind::kBestFit:
      return NewBestFitPolicy();
    case PolicyKind::kFgd:
      return NewFgdPolicy(types);
    case PolicyKind::kAckBinpack:
      return NewAckPolicy(false);
    case PolicyKind::kAckSpread:
      return NewAckPolicy(true);
  }
  return nullptr;
}

CardTake BestMethodCards(const PodRequest& pod, const NodeState& node) {
  if (pod.shared()) {
    const int card = BestFitCard(node, pod.milli);
    if (card >= 0) return OneCard(card, pod);
  }
  return LowestCards(node, pod);
}

CardTake Policy::Cards(const PodRequest& pod, const NodeState& node) const {
  return BestMethodCards(pod, node);
}

}  // namespace knobsim::fgd
