#include "sim/scheduler/fgd/milli_view.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace knobsim::fgd {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

int64_t Get(const knobsim::ResourceList& list, const char* key) {
  const auto it = list.find(key);
  return it == list.end() ? 0 : it->second;
}

// A node with cards but no model label still has a model for the policies (an empty name means
// "no GPU" to them).
std::string_view CardModelName(const knobsim::NodeSpec& node) {
  return node.gpu_model.empty() ? std::string_view("unknown-gpu")
                                : std::string_view(node.gpu_model);
}

}  // namespace

int MilliOfUnits(double units, int card_units) {
  if (card_units <= 0) return 0;
  // std::nearbyint rounds half to even in the default rounding mode (see the header for why).
  const double milli = std::nearbyint(kMilliPerCard * units / card_units);
  return static_cast<int>(std::clamp(milli, 0.0, double{kMilliPerCard}));
}

int CardFreeMilli(int used_units, int card_units, bool whole, bool at_pod_limit, bool occupied) {
  if (whole || at_pod_limit) return 0;
  if (card_units <= 0) return occupied ? 0 : kMilliPerCard;
  if (used_units >= card_units) return 0;
  return kMilliPerCard - MilliOfUnits(used_units, card_units);
}

TargetPod TargetPodOf(const knobsim::PodSpec& pod) {
  TargetPod t;
  t.cpu_milli = Get(pod.requests, "cpu");
  t.memory_mib = (Get(pod.requests, "memory") + kMiB - 1) / kMiB;
  t.gpu_mem = pod.gpu_mem;
  t.gpu_count = pod.gpu_count;
  t.whole_gpus = pod.whole_gpus;
  return t;
}

PodRequest RequestOnCards(const TargetPod& pod, int card_units) {
  PodRequest r;
  r.cpu = pod.cpu_milli;
  r.mem = pod.memory_mib;
  if (pod.whole_gpus > 0) {
    r.num_gpu = pod.whole_gpus;
    r.milli = kMilliPerCard;
  } else if (pod.gpu_mem > 0) {
    r.num_gpu = std::max(1, pod.gpu_count);
    if (card_units > 0) {
      r.milli = std::max(1, MilliOfUnits(static_cast<double>(pod.gpu_mem) / r.num_gpu, card_units));
    } else {
      // No gpu-mem on this node: no access (§5.2 NA). The spec keeps the type apart from a
      // whole-card type of the same size.
      r.milli = kMilliPerCard;
      r.spec = "gpu-mem";
      r.models = 0;
    }
  }
  return r;
}

std::vector<TypicalPod> TypicalPodsOnCards(std::span<const TargetPod> pods, int card_units) {
  std::vector<PodRequest> requests;
  requests.reserve(pods.size());
  for (const TargetPod& p : pods) requests.push_back(RequestOnCards(p, card_units));
  return TypicalPods(requests);
}

NodeState MilliViewOf(const knobsim::ClusterState& cluster, int index, const ModelTable& models,
                      int max_pods_per_card) {
  const knobsim::NodeState& n = cluster.node(index);
  const int units = n.spec.card_mem_units;
  NodeState s;
  s.cpu_free = Get(n.spec.allocatable, "cpu") - Get(n.requested, "cpu");
  s.mem_free = (Get(n.spec.allocatable, "memory") - Get(n.requested, "memory")) / kMiB;
  s.pods = static_cast<int>(n.pods.size());
  s.cards = std::min(static_cast<int>(n.cards.size()), kMaxCardsPerNode);
  s.model = s.cards > 0 ? std::max(0, models.Find(CardModelName(n.spec))) : -1;
  for (int g = 0; g < s.cards; ++g) {
    const knobsim::CardState& card = n.cards[g];
    s.free[g] =
        CardFreeMilli(card.used_mem, units, card.whole,
                      max_pods_per_card > 0 && card.pods >= max_pods_per_card, card.pods > 0);
  }
  for (int p : n.pods) {
    if (cluster.bound(p)) s.tags |= RequestOnCards(TargetPodOf(cluster.pod(p)), units).tag();
  }
  return s;
}

ModelTable ModelsOf(const knobsim::ClusterState& cluster) {
  ModelTable models;
  for (const knobsim::NodeState& n : cluster.nodes()) {
    if (!n.cards.empty()) models.Add(CardModelName(n.spec));
  }
  return models;
}

}  // namespace knobsim::fgd
