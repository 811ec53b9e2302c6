#include "sim/fragmentation_report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/replay/fragmentation.h"
#include "sim/replay/node_state.h"
#include "sim/replay/request.h"

namespace knobsim {
namespace {

using replay::kMilliPerCard;

int UnitsToMilli(double units, int card_units) {
  const double milli = std::round(kMilliPerCard * units / card_units);
  return static_cast<int>(std::clamp(milli, 0.0, double{kMilliPerCard}));
}

// The pod as the replay sees it on a node whose cards hold `card_units` each.
replay::PodRequest ToRequest(const FragPodInput& pod, int card_units) {
  replay::PodRequest r;
  r.cpu = pod.cpu_milli;
  r.mem = pod.memory_mib;
  if (pod.whole_gpus > 0) {
    r.num_gpu = pod.whole_gpus;
    r.milli = kMilliPerCard;
  } else if (pod.gpu_mem > 0) {
    r.num_gpu = std::max(1, pod.gpu_count);
    if (card_units > 0) {
      r.milli = std::max(1, UnitsToMilli(static_cast<double>(pod.gpu_mem) / r.num_gpu, card_units));
    } else {
      // gpu-mem cannot be had on a node without gpu-mem units: no access (§5.2 NA). The spec
      // keeps this type apart from a whole-card type of the same size.
      r.milli = kMilliPerCard;
      r.spec = "gpu-mem";
      r.models = 0;
    }
  }
  return r;
}

}  // namespace

FragmentationResult MeasureFragmentation(std::span<const FragNodeInput> nodes,
                                         std::span<const FragPodInput> pods) {
  std::map<int, std::vector<replay::TypicalPod>> types_by_units;
  FragmentationResult out;
  for (const FragNodeInput& n : nodes) {
    auto it = types_by_units.find(n.card_units);
    if (it == types_by_units.end()) {
      std::vector<replay::PodRequest> requests;
      requests.reserve(pods.size());
      for (const FragPodInput& p : pods) requests.push_back(ToRequest(p, n.card_units));
      it = types_by_units.emplace(n.card_units, replay::TypicalPods(requests)).first;
    }
    replay::NodeState s;
    s.cpu_free = n.cpu_milli - n.cpu_used_milli;
    s.mem_free = n.memory_mib - n.memory_used_mib;
    s.cards = std::min<int>(static_cast<int>(n.cards.size()), replay::kMaxCardsPerNode);
    s.model = s.cards > 0 ? 0 : -1;
    for (int c = 0; c < s.cards; ++c) {
      const FragCardInput& card = n.cards[c];
      int used = 0;
      if (card.whole || (n.card_units > 0 && card.used_units >= n.card_units)) {
        used = kMilliPerCard;
      } else if (n.card_units > 0) {
        used = UnitsToMilli(card.used_units, n.card_units);
      }
      s.free[c] = kMilliPerCard - used;
    }
    NodeFragmentation nf;
    nf.node = n.name;
    nf.idle_milli = static_cast<double>(s.gpu_free());
    nf.fragmented_milli = s.cards > 0 ? replay::NodeFrag(s, it->second) : 0.0;
    out.gpu_milli_total += double{kMilliPerCard} * s.cards;
    out.idle_milli += nf.idle_milli;
    out.fragmented_milli += nf.fragmented_milli;
    out.nodes.push_back(std::move(nf));
  }
  out.frag_ratio = out.idle_milli > 0 ? std::clamp(out.fragmented_milli / out.idle_milli, 0.0, 1.0) : 0.0;
  return out;
}

}  // namespace knobsim
