#include "sim/scheduler/fgd/fragmentation_report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/scheduler/fgd/fragmentation.h"
#include "sim/scheduler/fgd/milli_view.h"
#include "sim/scheduler/fgd/node_state.h"
#include "sim/scheduler/fgd/request.h"

namespace knobsim {
using fgd::kMilliPerCard;

FragmentationResult MeasureFragmentation(std::span<const FragNodeInput> nodes,
                                         std::span<const FragPodInput> pods) {
  std::map<int, std::vector<fgd::TypicalPod>> types_by_units;
  FragmentationResult out;
  for (const FragNodeInput& n : nodes) {
    auto it = types_by_units.find(n.card_units);
    if (it == types_by_units.end()) {
      it = types_by_units.emplace(n.card_units, fgd::TypicalPodsOnCards(pods, n.card_units)).first;
    }
    fgd::NodeState s;
    s.cpu_free = n.cpu_milli - n.cpu_used_milli;
    s.mem_free = n.memory_mib - n.memory_used_mib;
    s.cards = std::min<int>(static_cast<int>(n.cards.size()), fgd::kMaxCardsPerNode);
    s.model = s.cards > 0 ? 0 : -1;
    for (int c = 0; c < s.cards; ++c) {
      const FragCardInput& card = n.cards[c];
      s.free[c] = fgd::CardFreeMilli(card.used_units, n.card_units, card.whole, false,
                                     card.whole || card.used_units > 0);
    }
    NodeFragmentation nf;
    nf.node = n.name;
    nf.idle_milli = static_cast<double>(s.gpu_free());
    nf.fragmented_milli = s.cards > 0 ? fgd::NodeFrag(s, it->second) : 0.0;
    out.gpu_milli_total += double{kMilliPerCard} * s.cards;
    out.idle_milli += nf.idle_milli;
    out.fragmented_milli += nf.fragmented_milli;
    out.nodes.push_back(std::move(nf));
  }
  out.frag_ratio =
      out.idle_milli > 0 ? std::clamp(out.fragmented_milli / out.idle_milli, 0.0, 1.0) : 0.0;
  return out;
}

}  // namespace knobsim
