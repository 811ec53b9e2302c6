#include "sim/scheduler/card_placement.h"

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace knobsim {
namespace {

// Caps the tie-break enumeration of multi-card sets (C(16, 8) = 12 870 fits; a wider node
// keeps the lowest-indexed tied set).
constexpr long kMaxTiedSets = 1 << 14;

// What the pod asks of each card it takes, once the aliyun.com/gpu-count split is done.
struct CardRequest {
  int cards = 1;  // M: distinct cards the pod spans
  int mem = 0;    // gpu-mem units on each of them
  int core = 0;   // gpu-core percent on each of them; 0 = core not scored (not asked, or the node
                  // has no gpu-core resource: NodeResourcesFit rejects such a pod before us)
  bool whole_device = false;
};

// A gpu-mem pod's request per card (its split already checked by CheckCardSplit).
CardRequest PerCardRequest(const PodSpec& pod, const NodeState& node) {
  const int m = std::max(1, pod.gpu_count);
  CardRequest req;
  req.cards = m;
  req.mem = pod.gpu_mem / m;
  // gpu-core is scored only where the node has it (core_mem nodes, §1.5 B pairing).
  req.core = pod.gpu_core > 0 && node.spec.card_core_percent > 0 ? pod.gpu_core / m : 0;
  req.whole_device = pod.require_whole_device;
  return req;
}

// ACKP getReplicaDeviceCount checks every container's request of every sharing resource, not
// only the pod total: 3 + 5 GiB over 2 cards is rejected although 8 / 2 is whole (§1.2).
// Returns the first uneven (resource, request) in container order, gpu-mem before gpu-core.
bool FindUnevenSplit(const PodSpec& pod, int m, const char** resource, int* request) {
  auto check = [&](const char* name, int value) {
    if (value % m == 0) return false;
    *resource = name;
    *request = value;
    return true;
  };
  if (pod.container_gpus.empty()) {
    return check(kGpuMemResource, pod.gpu_mem) || check(kGpuCoreResource, pod.gpu_core);
  }
  for (const ContainerGpu& c : pod.container_gpus) {
    if (check(kGpuMemResource, c.gpu_mem)) return true;
  }
  for (const ContainerGpu& c : pod.container_gpus) {
    if (check(kGpuCoreResource, c.gpu_core)) return true;
  }
  return false;
}

// ACKP checkPodsPerDevice: the node fails with the max-pod text only when no card at all is
// below the limit; otherwise the full cards just drop out of the candidates.
bool AllCardsAtLimit(const NodeState& node, int limit) {
  if (limit <= 0 || node.cards.empty()) return false;
  return std::all_of(node.cards.begin(), node.cards.end(),
                     [&](const CardState& c) { return c.pods >= limit; });
}

// One resource of a card as a candidate: free units, and whether the request fits. ACKP drops
// cards with nothing free; require-whole-device takes only a card that is free, whole and
// exactly the size asked (§1.2).
bool ResourceFits(int total, int used, int request, bool whole_device) {
  const int avail = total - used;
  if (total <= 0 || avail <= 0) return false;
  if (whole_device) return avail == total && avail == request;
  return avail >= request;
}

bool CardEligible(const CardState& card, const CardRequest& req, int limit) {
  if (card.whole) return false;
  if (limit > 0 && card.pods >= limit) return false;
  if (!ResourceFits(card.total_mem, card.used_mem, req.mem, req.whole_device)) return false;
  return req.core == 0 || ResourceFits(card.total_core, card.used_core, req.core, req.whole_device);
}

// The per-card term of ACKP getAllocationScore, in float32 as ACK computes it:
// usedAfter / total for binpack, 1 - usedAfter / total for spread, usedAfter = total - avail +
// alloc = used + alloc (§1.5 B).
float CardTerm(int total, int used, int alloc, CardPolicy policy) {
  const float fraction = static_cast<float>(used + alloc) / static_cast<float>(total);
  return policy == CardPolicy::kSpread ? 1.0f - fraction : fraction;
}

// Rounds a product to float32 where it stands. GCC fuses a*b + c into one FMA wherever the
// target has it (C++ defaults to -ffp-contract=fast; e.g. -march=haswell), skipping the rounding
// of the product that ACK's Go build (amd64 v1, no fusion) performs; the empty asm keeps them
// apart at the cost of two register moves.
float Float32(float x) {
#if defined(__GNUC__)
  __asm__("" : "+r"(x));
#endif
  return x;
}

// score = 30·avg + 70/n/n with avg = Σ terms / n, float32 step by step like the Go code, the
// terms summed in card-index order (ACK's order is that of a Go map, i.e. random; only the last
// float bit can differ).
float CandidateScore(const float* terms, int n) {
  float avg = 0;
  for (int i = 0; i < n; ++i) avg += terms[i];
  const float count = static_cast<float>(n);
  avg = avg / count;
  return Float32(30.0f * avg) + 70.0f / count / count;
}

// With gpu-mem and gpu-core, ACKP findBestCandidateAllocationCombination sums the two candidate
// scores with weight 1/k each (k = 2), float32: s = 0 + mem·w, then s += core·w.
float PairScore(float mem_score, float core_score) {
  const float w = 1.0f / 2.0f;
  float s = 0;
  s += Float32(mem_score * w);
  s += Float32(core_score * w);
  return s;
}

void FillChoice(CardChoice* choice, std::span<const int> cards, const CardRequest& req,
                float score) {
  if (choice == nullptr) return;
  choice->cards.assign(cards.begin(), cards.end());
  choice->mem_units.assign(cards.size(), req.mem);
  choice->core_units.assign(cards.size(), req.core);
  choice->score = score;
}

CardFit Fail(CardFailure failure) {
  return CardFit{false, 0, failure};
}

// The cards `fixed` plus `need` of the equally good cards `tied` (both in card order): the
// lowest indexes, or with `bandwidth` the tied subset whose whole set has the highest
// bottleneck bandwidth (lowest indexes among equals; a lexicographic walk, capped at
// kMaxTiedSets sets). Returns the set in card order; *gbps gets its bandwidth (0 without hook).
std::vector<int> PickTiedCards(const std::vector<int>& fixed, const std::vector<int>& tied,
                               int need, const CardSetBandwidth& bandwidth, double* gbps) {
  std::vector<int> pick(need);
  for (int i = 0; i < need; ++i) pick[i] = i;
  auto set_of = [&] {
    std::vector<int> cards = fixed;
    for (int i : pick) cards.push_back(tied[i]);
    std::sort(cards.begin(), cards.end());
    return cards;
  };
  std::vector<int> best = set_of();
  *gbps = 0;
  if (!bandwidth) return best;
  *gbps = bandwidth(best);
  const int t = static_cast<int>(tied.size());
  for (long visited = 1; visited < kMaxTiedSets; ++visited) {
    int i = need - 1;
    while (i >= 0 && pick[i] == t - need + i) --i;
    if (i < 0) break;
    ++pick[i];
    for (int j = i + 1; j < need; ++j) pick[j] = pick[j - 1] + 1;
    std::vector<int> cards = set_of();
    const double b = bandwidth(cards);
    if (b > *gbps) {
      *gbps = b;
      best = std::move(cards);
    }
  }
  return best;
}

// nvidia.com/gpu pods take idle cards whole (no card choice in ACK: kubelet and the NVIDIA
// device plugin hand out free devices). Lowest indexes first; with `bandwidth`, the idle set
// with the widest bottleneck, as the NVIDIA plugin's preferred allocation favours NVLink-joined
// GPUs (its besteffort policy).
// nvidia.com/gpu pods on a node whose device plugin shares cards (time-slicing or MPS
// replicas): the plugin's preferred allocation (k8s-device-plugin internal/rm/allocate.go,
// greedyAlloc) takes the replicas one at a time, each from the card the policy prefers among
// those with a replica free — distributed: the fewest allocated, packed: the most (counting the
// replicas this pod took already) — and on a tie the card this pod took the fewest from. Go's
// sort leaves a remaining tie to the kubelet's device order; knobsim takes the lowest index
// (an assumption, docs/semantics.md §2.6). The pod's cards are the distinct physical cards.
CardFit PlaceReplicas(const PodSpec& pod, const NodeState& node, CardChoice* choice) {
  int free = 0;
  for (const CardState& card : node.cards) free += card.replicas - card.used_replicas;
  if (free < pod.whole_gpus) return Fail(CardFailure::kInsufficientWholeGpus);
  if (choice == nullptr) return CardFit{true, 0, CardFailure::kNone};
  const bool packed = node.spec.device_sharing.allocation == ReplicaAllocation::kPacked;
  const int n = static_cast<int>(node.cards.size());
  std::vector<int> allocated(n), taken(n, 0);
  for (int d = 0; d < n; ++d) allocated[d] = node.cards[d].used_replicas;
  for (int k = 0; k < pod.whole_gpus; ++k) {
    int best = -1;
    for (int d = 0; d < n; ++d) {
      if (allocated[d] >= node.cards[d].replicas) continue;
      if (best < 0) {
        best = d;
        continue;
      }
      if (allocated[d] != allocated[best]) {
        if (packed ? allocated[d] > allocated[best] : allocated[d] < allocated[best]) best = d;
      } else if (taken[d] < taken[best]) {
        best = d;
      }
    }
    ++allocated[best];
    ++taken[best];
  }
  choice->cards.clear();
  choice->replicas.clear();
  for (int d = 0; d < n; ++d) {
    if (taken[d] == 0) continue;
    choice->cards.push_back(d);
    choice->replicas.push_back(taken[d]);
  }
  choice->mem_units.assign(choice->cards.size(), 0);
  choice->core_units.assign(choice->cards.size(), 0);
  return CardFit{true, 0, CardFailure::kNone};
}

CardFit PlaceWholeGpus(const PodSpec& pod, const NodeState& node, CardChoice* choice,
                       const CardSetBandwidth& bandwidth) {
  if (node.spec.device_sharing.shared()) return PlaceReplicas(pod, node, choice);
  auto idle_device = [&](int d) {
    return !node.cards[d].whole && node.cards[d].pods == 0 && CardServes(node.spec, d, pod);
  };
  int found = 0;
  for (int d = 0; d < static_cast<int>(node.cards.size()); ++d) found += idle_device(d) ? 1 : 0;
  if (found < pod.whole_gpus) return Fail(CardFailure::kInsufficientWholeGpus);
  if (choice != nullptr) {
    std::vector<int> idle;
    for (int d = 0; d < static_cast<int>(node.cards.size()); ++d) {
      if (idle_device(d)) idle.push_back(d);
    }
    double gbps = 0;
    choice->cards = PickTiedCards({}, idle, pod.whole_gpus,
                                  pod.whole_gpus > 1 ? bandwidth : CardSetBandwidth{}, &gbps);
    choice->mem_units.assign(choice->cards.size(), 0);
    choice->core_units.assign(choice->cards.size(), 0);
    choice->bottleneck_gbps = gbps;
  }
  return CardFit{true, 0, CardFailure::kNone};
}

// The open-source extender (§1.5 A, allocateGPUID): the fitting card with the least free
// memory; only a strictly smaller one replaces the current, so ties go to the lowest index. It
// knows neither gpu-core nor require-whole-device: a pod carrying them gets plain best fit.
CardFit PlaceBestFit(const PodSpec& pod, const NodeState& node, int limit, CardChoice* choice) {
  int best = -1;
  int best_avail = 0;
  for (int d = 0; d < static_cast<int>(node.cards.size()); ++d) {
    const CardState& card = node.cards[d];
    if (card.whole || (limit > 0 && card.pods >= limit)) continue;
    if (!ResourceFits(card.total_mem, card.used_mem, pod.gpu_mem, false)) continue;
    const int avail = card.total_mem - card.used_mem;
    if (best < 0 || avail < best_avail) {
      best = d;
      best_avail = avail;
    }
  }
  if (best < 0) return Fail(CardFailure::kInsufficientMemory);
  if (choice != nullptr) {
    const int cards[] = {best};
    FillChoice(choice, cards, CardRequest{1, pod.gpu_mem, 0, false}, 0);
  }
  return CardFit{true, 0, CardFailure::kNone};
}

// SingleDevice (§1.5 B): every eligible card is a candidate; the walk keeps a candidate only
// when its score is strictly above the best so far, starting from 0. ACK sorts the candidates
// with an unstable sort over Go-map order, so its ties are random; knobsim walks cards by index,
// so ties go to the lowest index (the documented 2 × 15 GiB example relies on that).
CardFit PlaceSingle(const NodeState& node, const CardRequest& req, CardPolicy policy, int limit,
                    CardChoice* choice) {
  int best = -1;
  float best_score = 0;
  for (int d = 0; d < static_cast<int>(node.cards.size()); ++d) {
    const CardState& card = node.cards[d];
    if (!CardEligible(card, req, limit)) continue;
    const float mem_term = CardTerm(card.total_mem, card.used_mem, req.mem, policy);
    float score = CandidateScore(&mem_term, 1);
    if (req.core > 0) {
      const float core_term = CardTerm(card.total_core, card.used_core, req.core, policy);
      score = PairScore(score, CandidateScore(&core_term, 1));
    }
    if (score > best_score) {
      best = d;
      best_score = score;
    }
  }
  if (best < 0) {
    return Fail(req.whole_device ? CardFailure::kNoWholeDevice : CardFailure::kInsufficientMemory);
  }
  if (choice != nullptr) {
    const int cards[] = {best};
    FillChoice(choice, cards, req, best_score);
  }
  return CardFit{true, best_score, CardFailure::kNone};
}

struct Candidate {
  int card = 0;
  float mem_term = 0;
  float core_term = 0;
  double key = 0;  // what the card adds to a set's score, up to constant factors
};

// ReplicaDevice (§1.5 B): ACK scores every set of M eligible cards. The score is 30·avg + 70/M²
// with avg the mean of per-card terms, so the best set is the M cards with the largest terms
// (for gpu-mem + gpu-core, the largest sum of the two terms): no need to enumerate C(n, M)
// sets. Among equal-score sets — all the cards above the M-th largest term plus any of the
// cards equal to it — knobsim takes the lowest indexes (ACK: random), or, given `bandwidth`,
// the widest (PickTiedCards). Exact ties only: sets whose float32 scores meet by rounding are
// not searched.
CardFit PlaceReplica(const NodeState& node, const CardRequest& req, CardPolicy policy, int limit,
                     CardChoice* choice, const CardSetBandwidth& bandwidth) {
  std::vector<Candidate> eligible;  // in card order
  for (int d = 0; d < static_cast<int>(node.cards.size()); ++d) {
    const CardState& card = node.cards[d];
    if (!CardEligible(card, req, limit)) continue;
    Candidate c;
    c.card = d;
    c.mem_term = CardTerm(card.total_mem, card.used_mem, req.mem, policy);
    c.key = c.mem_term;
    if (req.core > 0) {
      c.core_term = CardTerm(card.total_core, card.used_core, req.core, policy);
      c.key += c.core_term;
    }
    eligible.push_back(c);
  }
  const int m = req.cards;
  if (static_cast<int>(eligible.size()) < m) {
    return Fail(req.whole_device ? CardFailure::kNoWholeDevice : CardFailure::kInsufficientMemory);
  }
  std::vector<Candidate> ranked = eligible;  // by key descending, card ascending
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Candidate& a, const Candidate& b) { return a.key > b.key; });
  const double threshold = ranked[m - 1].key;
  std::vector<int> fixed, tied;
  for (const Candidate& c : eligible) {
    if (c.key > threshold) fixed.push_back(c.card);
    if (c.key == threshold) tied.push_back(c.card);
  }
  double gbps = 0;
  const std::vector<int> cards =
      PickTiedCards(fixed, tied, m - static_cast<int>(fixed.size()),
                    choice != nullptr ? bandwidth : CardSetBandwidth{}, &gbps);
  // The chosen set's score, ACK's way, terms in card order.
  std::vector<float> mem_terms, core_terms;
  for (const Candidate& c : eligible) {
    if (!std::binary_search(cards.begin(), cards.end(), c.card)) continue;
    mem_terms.push_back(c.mem_term);
    core_terms.push_back(c.core_term);
  }
  float score = CandidateScore(mem_terms.data(), m);
  if (req.core > 0) score = PairScore(score, CandidateScore(core_terms.data(), m));
  if (choice != nullptr) {
    FillChoice(choice, cards, req, score);
    choice->bottleneck_gbps = gbps;
  }
  return CardFit{true, score, CardFailure::kNone};
}

CardFit Place(const PodSpec& pod, const NodeState& node, CardPolicy policy, int limit,
              CardChoice* choice, const CardSetBandwidth& bandwidth) {
  if (pod.whole_gpus > 0) return PlaceWholeGpus(pod, node, choice, bandwidth);
  if (pod.gpu_mem <= 0) {
    // ACKP checkNodeIsValid: a sharing pod must ask gpu-mem; a pod asking nothing takes no card.
    if (pod.gpu_core > 0) return Fail(CardFailure::kCoreWithoutMemory);
    return CardFit{true, 0, CardFailure::kNone};
  }
  if (const CardFailure split = CheckCardSplit(pod, policy); split != CardFailure::kNone) {
    return Fail(split);
  }
  if (AllCardsAtLimit(node, limit)) return Fail(CardFailure::kMaxPods);
  if (policy == CardPolicy::kExtenderBestFit) return PlaceBestFit(pod, node, limit, choice);
  const CardRequest req = PerCardRequest(pod, node);
  if (req.cards == 1) return PlaceSingle(node, req, policy, limit, choice);
  return PlaceReplica(node, req, policy, limit, choice, bandwidth);
}

}  // namespace

float AckCardTerm(int total, int used, int alloc, CardPolicy policy) {
  return CardTerm(total, used, alloc, policy);
}

float AckCandidateScore(const float* terms, int n) {
  return CandidateScore(terms, n);
}

CardPlacementResult PlaceOnCards(const PodSpec& pod, const NodeState& node, CardPolicy policy,
                                 int max_pods_per_card, const CardSetBandwidth& bandwidth) {
  CardPlacementResult result;
  CardChoice choice;
  const CardFit fit = Place(pod, node, policy, max_pods_per_card, &choice, bandwidth);
  if (fit.fits) {
    result.choice = std::move(choice);
  } else {
    result.reason = CardFailureReason(fit.failure, pod, policy);
  }
  return result;
}

bool CardServes(const NodeSpec& node, int card, const PodSpec& pod) {
  // Renamed replicas serve only pods asking nvidia.com/gpu.shared; a HAMi node's vGPUs only its
  // extender places (hami_devices.h).
  if (node.device_sharing.renamed) return pod.device_resource == kSharedGpuResource;
  if (node.hami.enabled()) return false;
  if (node.mig.strategy != MigStrategy::kMixed) return pod.device_resource.empty();
  if (node.mig.instances.empty()) return false;  // no layout: no device of any profile
  const std::string_view asked = pod.device_resource;
  const std::string& profile = node.mig.instances[card % node.mig.instances.size()];
  return asked.size() == kMigResourcePrefix.size() + profile.size() &&
         asked.substr(0, kMigResourcePrefix.size()) == kMigResourcePrefix &&
         asked.substr(kMigResourcePrefix.size()) == profile;
}

std::string DeviceAdmissionError(const PodSpec& pod, const NodeSpec& node) {
  const DeviceSharing& sharing = node.device_sharing;
  if (!sharing.shared() || !sharing.fail_requests_greater_than_one) return {};
  if (pod.container_whole_gpus_max <= 1) return {};
  // The kubelet wraps the plugin's error (plugin/server.go Allocate, rm.go ValidateRequest).
  std::string text =
      "Allocate failed due to rpc error: code = Unknown desc = invalid allocation "
      "request for \"nvidia.com/gpu\": invalid request: maximum request size for "
      "shared resources is 1; found ";
  text.append(std::to_string(pod.container_whole_gpus_max)).append(", which is unexpected");
  return text;
}

std::optional<CardChoice> CheckCardSet(const PodSpec& pod, const NodeState& node,
                                       std::span<const int> cards, int max_pods_per_card) {
  const int n = static_cast<int>(node.cards.size());
  for (size_t i = 0; i < cards.size(); ++i) {
    if (cards[i] < 0 || cards[i] >= n || (i > 0 && cards[i] <= cards[i - 1])) return std::nullopt;
  }
  CardChoice choice;
  if (pod.whole_gpus > 0 && node.spec.device_sharing.shared()) {
    // Replicas: the listed cards take the pod's replicas in turn, each within its free ones.
    if (cards.empty() || static_cast<int>(cards.size()) > pod.whole_gpus) return std::nullopt;
    choice.replicas.assign(cards.size(), 0);
    for (int k = 0; k < pod.whole_gpus; ++k) ++choice.replicas[k % cards.size()];
    for (size_t i = 0; i < cards.size(); ++i) {
      const CardState& card = node.cards[cards[i]];
      if (card.used_replicas + choice.replicas[i] > card.replicas) return std::nullopt;
    }
    choice.cards.assign(cards.begin(), cards.end());
    choice.mem_units.assign(cards.size(), 0);
    choice.core_units.assign(cards.size(), 0);
    return choice;
  }
  if (pod.whole_gpus > 0) {
    if (static_cast<int>(cards.size()) != pod.whole_gpus) return std::nullopt;
    for (int d : cards) {
      if (node.cards[d].whole || node.cards[d].pods > 0 || !CardServes(node.spec, d, pod))
        return std::nullopt;
    }
    choice.cards.assign(cards.begin(), cards.end());
    choice.mem_units.assign(cards.size(), 0);
    choice.core_units.assign(cards.size(), 0);
    return choice;
  }
  if (pod.gpu_mem <= 0) {
    if (!cards.empty() || pod.gpu_core > 0) return std::nullopt;
    return choice;
  }
  if (CheckCardSplit(pod, CardPolicy::kBinpack) != CardFailure::kNone) return std::nullopt;
  const CardRequest req = PerCardRequest(pod, node);
  if (static_cast<int>(cards.size()) != req.cards) return std::nullopt;
  for (int d : cards) {
    if (!CardEligible(node.cards[d], req, max_pods_per_card)) return std::nullopt;
  }
  FillChoice(&choice, cards, req, 0);
  return choice;
}

CardFailure CheckCardSplit(const PodSpec& pod, CardPolicy policy) {
  const int m = std::max(1, pod.gpu_count);
  if (m == 1 || pod.whole_gpus > 0 || pod.gpu_mem <= 0) return CardFailure::kNone;
  if (policy == CardPolicy::kExtenderBestFit) return CardFailure::kExtenderMultiCard;
  const char* resource = nullptr;
  int request = 0;
  return FindUnevenSplit(pod, m, &resource, &request) ? CardFailure::kInvalidReplica
                                                      : CardFailure::kNone;
}

CardFit EvaluateCards(const PodSpec& pod, const NodeState& node, CardPolicy policy,
                      int max_pods_per_card) {
  return Place(pod, node, policy, max_pods_per_card, nullptr, CardSetBandwidth{});
}

std::string CardFailureReason(CardFailure failure, const PodSpec& pod, CardPolicy policy) {
  switch (failure) {
    case CardFailure::kNone:
      return {};
    case CardFailure::kInsufficientMemory:
      // Each implementation's own text (§1.5): the extender's predicate.go [CONFIRMED], the
      // scheduler-framework plugin's Filter [SECONDARY].
      if (policy == CardPolicy::kExtenderBestFit) return "Insufficient GPU Memory in one device";
      return "node(s) didn't have enough device resources to allocate";
    case CardFailure::kMaxPods:
      // ACKP checkPodsPerDevice (§1.2).
      return "The number of pods per gpu device has reached the maximum allowed";
    case CardFailure::kNoWholeDevice:
      // ACKP singleDevice / replicaDevice Filter with RequireWholeGPU [SECONDARY, not yet in
      // docs/semantics.md].
      return "Pod's RequireWholeGPU is true and not available devices can be fully occupied by it";
    case CardFailure::kInvalidReplica: {
      // ACKP getReplicaDeviceCount: "invalid replica for resource %v,because %v / %v = %.1f"
      // with a float32 quotient (no space after the comma in the source).
      const int m = std::max(1, pod.gpu_count);
      const char* resource = kGpuMemResource;
      int request = pod.gpu_mem;
      FindUnevenSplit(pod, m, &resource, &request);
      char quotient[32];
      std::snprintf(quotient, sizeof quotient, "%.1f",
                    static_cast<double>(static_cast<float>(request) / static_cast<float>(m)));
      std::string text = "invalid replica for resource ";
      text.append(resource).append(",because ").append(std::to_string(request));
      text.append(" / ").append(std::to_string(m)).append(" = ").append(quotient);
      return text;
    }
    case CardFailure::kExtenderMultiCard: {
      // knobsim's wording: the open-source extender has no multi-card placement (designs.md:
      // a request never exceeds one GPU) and would read the pod as N units on one card.
      std::string text = "gpushare extender cannot split a pod over cards (aliyun.com/gpu-count ";
      text.append(std::to_string(pod.gpu_count)).append(")");
      return text;
    }
    case CardFailure::kCoreWithoutMemory:
      // ACKP checkNodeIsValid (sic).
      return "reqeust resources must include aliyun.com/gpu-mem";
    case CardFailure::kInsufficientWholeGpus:
      // fit.go's text for the resource; NodeResourcesFit normally says it first (§3.2).
      return "Insufficient nvidia.com/gpu";
  }
  return {};
}

const std::vector<std::string>& PlacementNames() {
  static const std::vector<std::string> names = {"binpack",    "spread",  "random",  "dotprod",
                                                 "clustering", "packing", "bestfit", "fgd"};
  return names;
}

std::optional<std::string> NormalizePlacement(std::string_view value) {
  if (value == "ack-binpack") return "binpack";
  if (value == "ack-spread") return "spread";
  for (const std::string& name : PlacementNames()) {
    if (value == name) return name;
  }
  return std::nullopt;
}

bool IsPaperPolicy(CardPolicy policy) {
  return policy != CardPolicy::kBinpack && policy != CardPolicy::kSpread &&
         policy != CardPolicy::kExtenderBestFit;
}

std::optional<CardPolicy> ParseCardPolicy(const std::string& value) {
  // ACK's own values and knobsim's aliases (docs/design.md §1 item 5). "bestfit" alone is the FGD
  // paper's policy, not the extender.
  static constexpr std::pair<std::string_view, CardPolicy> kNames[] = {
      {"binpack", CardPolicy::kBinpack},
      {"ack-binpack", CardPolicy::kBinpack},
      {"spread", CardPolicy::kSpread},
      {"ack-spread", CardPolicy::kSpread},
      {"bestfit-extender", CardPolicy::kExtenderBestFit},
      {"random", CardPolicy::kRandom},
      {"dotprod", CardPolicy::kDotProd},
      {"clustering", CardPolicy::kClustering},
      {"packing", CardPolicy::kPacking},
      {"bestfit", CardPolicy::kBestFit},
      {"fgd", CardPolicy::kFgd},
  };
  for (const auto& [name, policy] : kNames) {
    if (value == name) return policy;
  }
  return std::nullopt;
}

}  // namespace knobsim
