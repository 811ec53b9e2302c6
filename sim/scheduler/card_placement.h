// Card placement inside a node: which card(s) a GPU pod takes, ACK's way (semantics.md §1.5).
//
//  * binpack / spread (ACK scheduler-framework plugin, §1.5 B): every candidate card set is
//    scored 30·avg + 70/n² in float32; the node score is int(best); ties to the lowest index.
//  * best-fit (the legacy open-source extender, §1.5 A): the card with the least free memory
//    that fits, lowest index on ties.
//  * whole cards for nvidia.com/gpu pods; multi-card pods (label aliyun.com/gpu-count M) split
//    gpu-mem N/M per card over M distinct cards (rejected when N/M is not whole);
//    ack.node.gpu.max-pod; require-whole-device; gpu-mem + gpu-core pairs on the same cards.
// The FGD paper's policies (issue 4) plug in beside these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {

enum class CardPolicy { kBinpack, kSpread, kBestFit };

struct CardChoice {
  std::vector<int> cards;       // card indexes on the node
  std::vector<int> mem_units;   // per chosen card
  std::vector<int> core_units;  // per chosen card
  double score = 0;             // float32 candidate score (binpack/spread); 0 for best-fit
};

struct CardPlacementResult {
  std::optional<CardChoice> choice;  // empty when no card set fits
  std::string reason;                // why not (an ACK failure text) when empty
};

// Chooses the card(s) for `pod` on `node` under `policy`. A pod that asks for no GPU gets an
// empty choice with no cards. `max_pods_per_card` combines the node label and POLICY 0's
// implicit max_inst (0 = no limit).
CardPlacementResult PlaceOnCards(const PodSpec& pod, const NodeState& node, CardPolicy policy,
                                 int max_pods_per_card);

// Parses a placement value ("binpack", "spread", "ack-binpack", "ack-spread", "bestfit-extender").
std::optional<CardPolicy> ParseCardPolicy(const std::string& value);

}  // namespace knobsim
