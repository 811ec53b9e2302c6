#include "sim/scheduler/hami_devices.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <map>
#include <memory>
#include <numeric>
#include <string_view>

#include "sim/scheduler/plugins.h"
#include "sim/text.h"

namespace knobsim {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view AnnotationOf(const PodSpec& pod, const char* key) {
  const auto it = pod.annotations.find(key);
  return it == pod.annotations.end() ? std::string_view() : std::string_view(it->second);
}

// device.CheckType: some comma item of use-gputype is a substring of the card's type (upper
// case, trimmed), and no item of nouse-gputype is; an empty annotation says nothing.
bool TypeMatches(std::string_view list, const std::string& card_type) {
  while (true) {
    const size_t comma = list.find(',');
    const std::string want = Upper(TrimSpace(list.substr(0, comma)));
    if (card_type.find(want) != std::string::npos) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

bool TypeAllowed(const PodSpec& pod, const std::string& card_type) {
  const std::string type = Upper(card_type);
  const std::string_view use = AnnotationOf(pod, kHamiUseTypeAnnotation);
  if (!use.empty() && !TypeMatches(use, type)) return false;
  const std::string_view nouse = AnnotationOf(pod, kHamiNoUseTypeAnnotation);
  return nouse.empty() || !TypeMatches(nouse, type);
}

// HAMi's GenReason: "<count>/<cards> <Reason>" per reason, sorted as strings, joined by ", ".
std::string GenReason(const std::map<std::string, int>& reasons, int cards) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reasons)
    parts.push_back(std::to_string(count) + "/" + std::to_string(cards) + " " + reason);
  std::sort(parts.begin(), parts.end());
  return Join(parts, ", ");
}

// One container on the node's cards as they are in `cards` (the earlier containers included):
// HAMi's fitInDevices, which sorts the cards and hands them to Fit. Fills `taken` and returns ""
// when it fits, else HAMi's reason.
std::string FitContainer(const PodSpec& pod, const NodeSpec& node, const HamiRequest& request,
                         HamiGpuPolicy policy, const std::vector<CardState>& cards,
                         std::vector<HamiDevice>& taken) {
  const int n = static_cast<int>(cards.size());
  if (request.vgpus > n) return "NodeInsufficientDevice";
  // sort.Sort over the score (pdqsort: insertion sort, stable, on up to 12 cards); knobsim keeps
  // equal cards in index order on larger nodes too.
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<float> score(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) score[c] = HamiCardScore(cards[c]);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    switch (policy) {
      case HamiGpuPolicy::kBinpack:
        return score[a] < score[b];
      case HamiGpuPolicy::kMutex:
        return cards[a].used_replicas > cards[b].used_replicas;
      case HamiGpuPolicy::kSpread:
        break;
    }
    return score[a] > score[b];
  });
  return FitHamiContainer(pod, node.gpu_model, request, cards, order, taken);
}

// A container's vGPUs onto the node copy the next container sees (HAMi's AddResourceUsage).
void AddUsage(const std::vector<HamiDevice>& taken, std::vector<CardState>& cards) {
  for (const HamiDevice& d : taken) {
    ++cards[d.card].used_replicas;
    cards[d.card].used_mem += d.mem_mib;
    cards[d.card].used_core += d.cores;
  }
}

// The extender as a filter: a node where the pod's containers do not fit gets HAMi's reason,
// which kube-scheduler reports as Unschedulable (findNodesThatPassExtenders). HAMi names the
// nodes without its device registration "node unregistered" (pkg/scheduler/scheduler.go).
class HamiFilter : public FilterPlugin {
 public:
  std::string_view Name() const override { return "hami-scheduler"; }

  PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int index) const override {
    if (pod.hami.empty()) return PluginStatus::Success();
    const NodeState& node = cluster.node(index);
    if (!node.spec.hami.enabled()) return PluginStatus::Unschedulable("node unregistered");
    HamiFit fit = FitHamiPod(pod, node);
    if (fit.fits) return PluginStatus::Success();
    return PluginStatus::Unschedulable(std::move(fit.reason));
  }
};

}  // namespace

std::string FitHamiContainer(const PodSpec& pod, const std::string& card_type,
                             const HamiRequest& request, const std::vector<CardState>& cards,
                             std::span<const int> order, std::vector<HamiDevice>& taken) {
  const bool type_ok = TypeAllowed(pod, card_type);
  const bool mutex = HamiPoliciesOf(pod).gpu == HamiGpuPolicy::kMutex;
  int cores = request.cores;
  int wanted = request.vgpus;
  std::map<std::string, int> reasons;
  for (size_t i = order.size(); i-- > 0;) {
    const CardState& card = cards[order[i]];
    if (!type_ok) {
      ++reasons["CardTypeMismatch"];
      continue;
    }
    if (card.replicas <= card.used_replicas) {
      ++reasons["CardTimeSlicingExhausted"];
      continue;
    }
    if (mutex && card.used_replicas > 0) {
      ++reasons["ExclusiveDeviceAllocateConflict"];
      continue;
    }
    cores = std::min(cores, 100);  // "core limit can't exceed 100", from here on
    const int64_t mem = request.MemOn(card.total_mem);
    if (card.total_mem - card.used_mem < mem) {
      ++reasons["CardInsufficientMemory"];
      continue;
    }
    if (card.total_core - card.used_core < cores) {
      ++reasons["CardInsufficientCore"];
      continue;
    }
    // gpucores 100 asks for the card alone (device.go: "Coresreq=100 indicates it want this
    // card exclusively").
    if (card.total_core == 100 && cores == 100 && card.used_replicas > 0) {
      ++reasons["ExclusiveDeviceAllocateConflict"];
      continue;
    }
    if (card.total_core != 0 && card.used_core == card.total_core && cores == 0) {
      ++reasons["CardComputeUnitsExhausted"];
      continue;
    }
    taken.push_back({order[i], static_cast<int>(mem), cores});
    if (--wanted == 0) return "";
  }
  if (!taken.empty()) reasons["AllocatedCardsInsufficientRequest"] = static_cast<int>(taken.size());
  return GenReason(reasons, static_cast<int>(order.size()));
}

HamiPolicies HamiPoliciesOf(const PodSpec& pod) {
  HamiPolicies p;
  p.node_spread = AnnotationOf(pod, kHamiNodePolicyAnnotation) == "spread";
  const std::string_view gpu = AnnotationOf(pod, kHamiGpuPolicyAnnotation);
  p.gpu = gpu == "binpack" ? HamiGpuPolicy::kBinpack
          : gpu == "mutex" ? HamiGpuPolicy::kMutex
                           : HamiGpuPolicy::kSpread;
  return p;
}

float HamiCardScore(const CardState& card) {
  if (card.replicas == 0 || card.total_core == 0 || card.total_mem == 0) return 0;
  return 10.0f * (static_cast<float>(card.used_replicas) / static_cast<float>(card.replicas) +
                  static_cast<float>(card.used_core) / static_cast<float>(card.total_core) +
                  static_cast<float>(card.used_mem) / static_cast<float>(card.total_mem));
}

float HamiNodeScore(const NodeState& node) {
  int64_t used = 0, count = 0, used_core = 0, total_core = 0, used_mem = 0, total_mem = 0;
  for (const CardState& c : node.cards) {
    used += c.used_replicas;
    count += c.replicas;
    used_core += c.used_core;
    total_core += c.total_core;
    used_mem += c.used_mem;
    total_mem += c.total_mem;
  }
  if (count == 0 || total_core == 0 || total_mem == 0) return 0;
  return 10.0f * (static_cast<float>(used) / static_cast<float>(count) +
                  static_cast<float>(used_core) / static_cast<float>(total_core) +
                  static_cast<float>(used_mem) / static_cast<float>(total_mem));
}

HamiFit FitHamiPod(const PodSpec& pod, const NodeState& node) {
  HamiFit fit;
  if (!node.spec.hami.enabled()) {
    fit.reason = "NodeInsufficientDevice";
    return fit;
  }
  const HamiGpuPolicy policy = HamiPoliciesOf(pod).gpu;
  std::vector<CardState> cards = node.cards;  // the node copy the containers fill in turn
  for (const HamiRequest& request : pod.hami) {
    std::vector<HamiDevice>& taken = fit.containers.emplace_back();
    if (request.vgpus <= 0) continue;
    fit.reason = FitContainer(pod, node.spec, request, policy, cards, taken);
    if (!fit.reason.empty()) {
      fit.containers.clear();
      return fit;
    }
    AddUsage(taken, cards);
  }
  fit.fits = true;
  return fit;
}

HamiFit FitHamiPodOnCards(const PodSpec& pod, const NodeState& node, std::span<const int> cards) {
  HamiFit fit;
  std::vector<CardState> usage = node.cards;
  size_t next = 0;
  for (const HamiRequest& request : pod.hami) {
    std::vector<HamiDevice>& taken = fit.containers.emplace_back();
    const size_t n = static_cast<size_t>(std::max(0, request.vgpus));
    if (next + n > cards.size()) {
      fit.reason = "AllocatedCardsInsufficientRequest";
      return fit;
    }
    // Fit walks from the end: the listed cards, reversed, are tried in the listed order.
    std::vector<int> order(cards.begin() + static_cast<std::ptrdiff_t>(next),
                           cards.begin() + static_cast<std::ptrdiff_t>(next + n));
    next += n;
    for (int c : order) {
      if (c < 0 || c >= static_cast<int>(usage.size())) {
        fit.reason = "NodeInsufficientDevice";
        return fit;
      }
    }
    std::reverse(order.begin(), order.end());
    fit.reason = FitHamiContainer(pod, node.spec.gpu_model, request, usage, order, taken);
    if (!fit.reason.empty()) return fit;
    AddUsage(taken, usage);
  }
  fit.fits = next == cards.size();
  if (!fit.fits) fit.reason = "the pod lists more cards than it has vGPUs";
  return fit;
}

std::optional<HamiFit> AllocatedHamiPod(const PodSpec& pod, const NodeState& node) {
  const std::vector<std::string>& uuids = node.spec.hami.card_uuids;
  HamiFit fit;
  size_t next = 0;
  for (const HamiRequest& request : pod.hami) {
    std::vector<HamiDevice>& taken = fit.containers.emplace_back();
    for (int k = 0; k < request.vgpus; ++k, ++next) {
      if (next >= pod.hami_allocated.size()) return std::nullopt;
      const auto at = std::find(uuids.begin(), uuids.end(), pod.hami_allocated[next]);
      if (at == uuids.end()) return std::nullopt;
      const int card = static_cast<int>(at - uuids.begin());
      taken.push_back({card, static_cast<int>(request.MemOn(node.cards[card].total_mem)),
                       std::min(request.cores, 100)});
    }
  }
  if (next != pod.hami_allocated.size()) return std::nullopt;
  fit.fits = true;
  return fit;
}

Placement HamiPlacement(int node, const HamiFit& fit) {
  Placement p;
  p.node = node;
  for (const std::vector<HamiDevice>& container : fit.containers) {
    for (const HamiDevice& d : container) {
      const auto at = std::find(p.cards.begin(), p.cards.end(), d.card);
      if (at == p.cards.end()) {
        p.cards.push_back(d.card);
        p.mem_units.push_back(d.mem_mib);
        p.core_units.push_back(d.cores);
        p.replicas.push_back(1);
        continue;
      }
      const size_t i = static_cast<size_t>(at - p.cards.begin());
      p.mem_units[i] += d.mem_mib;
      p.core_units[i] += d.cores;
      ++p.replicas[i];
    }
  }
  return p;
}

int ChooseHamiNode(const PodSpec& pod, const ClusterState& cluster, std::span<const int> feasible) {
  const bool spread = HamiPoliciesOf(pod).node_spread;
  int best = -1;
  float best_score = 0;
  for (int n : feasible) {
    const float score = HamiNodeScore(cluster.node(n));
    const bool better = best < 0 || (spread ? score < best_score : score > best_score) ||
                        (score == best_score && n < best);
    if (better) {
      best = n;
      best_score = score;
    }
  }
  return best;
}

std::unique_ptr<FilterPlugin> NewHamiFilter() {
  return std::make_unique<HamiFilter>();
}

}  // namespace knobsim
