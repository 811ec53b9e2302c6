#include "sim/scheduler/card_placement.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

namespace knobsim {
namespace {

// A sharing node whose cards hold `used` gpu-mem units each (one pod per used card).
NodeState ShareNode(int total, std::initializer_list<int> used) {
  NodeState node;
  node.spec.gpu_schedule = "cgpu";
  node.spec.card_mem_units = total;
  node.spec.gpu_cards = static_cast<int>(used.size());
  for (int u : used) {
    CardState card;
    card.total_mem = total;
    card.used_mem = u;
    card.pods = u > 0 ? 1 : 0;
    node.cards.push_back(card);
  }
  return node;
}

// A core_mem node: cards of `total` units and 100 % compute, used as given.
NodeState CoreMemNode(int total, std::initializer_list<std::pair<int, int>> used) {
  NodeState node;
  node.spec.gpu_schedule = "core_mem";
  node.spec.card_mem_units = total;
  node.spec.card_core_percent = 100;
  node.spec.gpu_cards = static_cast<int>(used.size());
  for (const auto& [mem, core] : used) {
    CardState card;
    card.total_mem = total;
    card.used_mem = mem;
    card.total_core = 100;
    card.used_core = core;
    card.pods = mem > 0 ? 1 : 0;
    node.cards.push_back(card);
  }
  return node;
}

PodSpec SharePod(int mem, int count = 1, int core = 0) {
  PodSpec pod;
  pod.gpu_mem = mem;
  pod.gpu_core = core;
  pod.gpu_count = count;
  pod.container_gpus = {ContainerGpu{mem, core}};
  return pod;
}

// What binding does to the cards (ClusterState::Bind), for sequences of pods.
void Take(NodeState& node, const CardChoice& choice) {
  for (size_t i = 0; i < choice.cards.size(); ++i) {
    CardState& card = node.cards[choice.cards[i]];
    card.used_mem += choice.mem_units[i];
    card.used_core += choice.core_units[i];
    ++card.pods;
  }
}

const char* Name(CardPolicy p) {
  return p == CardPolicy::kBinpack ? "binpack" : p == CardPolicy::kSpread ? "spread" : "bestfit";
}

TEST_CASE("binpack takes the fullest card that fits, spread the emptiest (Appendix B)") {
  // Two 15 GiB cards holding 10 and 2 GiB, a 3 GiB pod: binpack 96 (card 0) vs 80 (card 1),
  // spread 74 (card 0) vs 90 (card 1) — docs/semantics.md Appendix B, docs/validation.md rung 2.
  struct Row {
    CardPolicy policy;
    std::vector<int> used;
    int card;
    int score;
  };
  for (const Row& row : {
           Row{CardPolicy::kBinpack, {10, 2}, 0, 96},
           Row{CardPolicy::kSpread, {10, 2}, 1, 90},
           // Each card's own candidate score, the losing side of the comparison.
           Row{CardPolicy::kBinpack, {2}, 0, 80},
           Row{CardPolicy::kSpread, {10}, 0, 74},
       }) {
    CAPTURE(Name(row.policy));
    NodeState node = ShareNode(15, {});
    for (int u : row.used) node.cards.push_back(CardState{15, u, 0, 0, 1, false});
    const CardPlacementResult r = PlaceOnCards(SharePod(3), node, row.policy, 0);
    REQUIRE(r.choice.has_value());
    CHECK(r.choice->cards == std::vector<int>{row.card});
    CHECK(r.choice->mem_units == std::vector<int>{3});
    CHECK(static_cast<int>(r.choice->score) == row.score);
    const CardFit fit = EvaluateCards(SharePod(3), node, row.policy, 0);
    CHECK(fit.fits);
    CHECK(fit.score == static_cast<float>(r.choice->score));
  }
}

TEST_CASE("the documented 2 and 3 GiB pods on two empty 15 GiB cards; ties go to card 0") {
  // CSK "The binpack and spread algorithms": binpack puts both pods on GPU1 (card 0); spread puts
  // pod1 on GPU1 and pod2 on GPU2. Pod1 ties on the empty cards (binpack 74/74, spread 96/96).
  struct Row {
    CardPolicy policy;
    int first_card, first_score, second_card;
  };
  for (const Row& row : {Row{CardPolicy::kBinpack, 0, 74, 0}, Row{CardPolicy::kSpread, 0, 96, 1}}) {
    CAPTURE(Name(row.policy));
    NodeState node = ShareNode(15, {0, 0});
    const CardPlacementResult first = PlaceOnCards(SharePod(2), node, row.policy, 0);
    REQUIRE(first.choice.has_value());
    CHECK(first.choice->cards == std::vector<int>{row.first_card});
    CHECK(static_cast<int>(first.choice->score) == row.first_score);
    Take(node, *first.choice);
    const CardPlacementResult second = PlaceOnCards(SharePod(3), node, row.policy, 0);
    REQUIRE(second.choice.has_value());
    CHECK(second.choice->cards == std::vector<int>{row.second_card});
  }
}

TEST_CASE("extender best fit takes the card with the least free memory that fits") {
  // EXT designs.md example, in MiB: free (12207, 8138, 4069, 16276), request 8138 -> card 1.
  NodeState node = ShareNode(16276, {16276 - 12207, 16276 - 8138, 16276 - 4069, 0});
  const CardPlacementResult r = PlaceOnCards(SharePod(8138), node, CardPolicy::kExtenderBestFit, 0);
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards == std::vector<int>{1});
  CHECK(r.choice->mem_units == std::vector<int>{8138});
  CHECK(r.choice->score == 0);

  // Only a strictly smaller free amount replaces the current card: ties to the lowest index.
  NodeState tie = ShareNode(15, {5, 5, 0});
  const CardPlacementResult t = PlaceOnCards(SharePod(4), tie, CardPolicy::kExtenderBestFit, 0);
  REQUIRE(t.choice.has_value());
  CHECK(t.choice->cards == std::vector<int>{0});

  const CardPlacementResult none =
      PlaceOnCards(SharePod(16277), node, CardPolicy::kExtenderBestFit, 0);
  CHECK_FALSE(none.choice.has_value());
  CHECK(none.reason == "Insufficient GPU Memory in one device");
}

TEST_CASE("the extender has no multi-card placement") {
  NodeState node = ShareNode(15, {0, 0, 0, 0});
  const PodSpec pod = SharePod(8, 4);
  CHECK(CheckCardSplit(pod, CardPolicy::kExtenderBestFit) == CardFailure::kExtenderMultiCard);
  const CardPlacementResult r = PlaceOnCards(pod, node, CardPolicy::kExtenderBestFit, 0);
  CHECK_FALSE(r.choice.has_value());
  CHECK(r.reason == "gpushare extender cannot split a pod over cards (aliyun.com/gpu-count 4)");
}

TEST_CASE("ReplicaDevice splits gpu-mem N/M over M cards and scores 30*avg + 70/M^2") {
  // Appendix B: aliyun.com/gpu-count 4, gpu-mem 8 -> 2 GiB on each of 4 cards.
  NodeState empty = ShareNode(15, {0, 0, 0, 0, 0, 0});
  const CardPlacementResult r = PlaceOnCards(SharePod(8, 4), empty, CardPolicy::kBinpack, 0);
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards == std::vector<int>{0, 1, 2, 3});  // all sets tie: lowest indexes
  CHECK(r.choice->mem_units == std::vector<int>{2, 2, 2, 2});
  CHECK(r.choice->core_units == std::vector<int>{0, 0, 0, 0});
  CHECK(r.choice->score == doctest::Approx(30.0 * 2 / 15 + 70.0 / 16).epsilon(1e-6));
  CHECK(static_cast<int>(r.choice->score) == 8);  // 4 + 4.375

  struct Row {
    CardPolicy policy;
    std::vector<int> cards;
    double score;
  };
  // Cards holding (6, 0, 9, 3, 12, 0) of 15; 2 units each on 3 cards. Binpack: the three
  // fullest (4, 2, 0); spread: the three emptiest (1, 5, 3).
  for (const Row& row : {
           Row{CardPolicy::kBinpack, {0, 2, 4}, 30.0 * (8 + 11 + 14) / 45 + 70.0 / 9},
           Row{CardPolicy::kSpread, {1, 3, 5}, 30.0 * (13 + 10 + 13) / 45 + 70.0 / 9},
       }) {
    CAPTURE(Name(row.policy));
    NodeState node = ShareNode(15, {6, 0, 9, 3, 12, 0});
    const CardPlacementResult c = PlaceOnCards(SharePod(6, 3), node, row.policy, 0);
    REQUIRE(c.choice.has_value());
    CHECK(c.choice->cards == row.cards);
    CHECK(c.choice->mem_units == std::vector<int>{2, 2, 2});
    CHECK(c.choice->score == doctest::Approx(row.score).epsilon(1e-6));
  }

  // Fewer than M cards with N/M free.
  NodeState tight = ShareNode(15, {14, 0, 14, 0});
  const CardPlacementResult f = PlaceOnCards(SharePod(6, 3), tight, CardPolicy::kBinpack, 0);
  CHECK_FALSE(f.choice.has_value());
  CHECK(f.reason == "node(s) didn't have enough device resources to allocate");
}

// ACK scores every set of M cards; knobsim takes the M best per-card terms. Same set score, and
// the same set when ties are broken by lowest indexes (lexicographic enumeration order).
TEST_CASE("the best M-card set from sorted per-card terms equals the brute-force best") {
  auto brute = [](const NodeState& node, int mem, int m, CardPolicy policy) {
    std::vector<int> eligible;
    for (int d = 0; d < static_cast<int>(node.cards.size()); ++d) {
      if (node.cards[d].total_mem - node.cards[d].used_mem >= mem / m &&
          node.cards[d].used_mem < node.cards[d].total_mem) {
        eligible.push_back(d);
      }
    }
    double best = 0;
    std::vector<int> best_set;
    std::vector<bool> mask(eligible.size());
    std::fill(mask.begin(), mask.begin() + std::min<size_t>(m, mask.size()), true);
    do {
      std::vector<int> set;
      for (size_t i = 0; i < mask.size(); ++i) {
        if (mask[i]) set.push_back(eligible[i]);
      }
      if (static_cast<int>(set.size()) != m) break;
      double sum = 0;  // exact enough: compare with a tolerance below
      for (int d : set) {
        const double f = double(node.cards[d].used_mem + mem / m) / node.cards[d].total_mem;
        sum += policy == CardPolicy::kSpread ? 1 - f : f;
      }
      const double score = 30 * sum / m + 70.0 / m / m;
      if (score > best + 1e-9) {
        best = score;
        best_set = set;
      }
    } while (std::prev_permutation(mask.begin(), mask.end()));
    return std::make_pair(best, best_set);
  };
  uint32_t seed = 12345;
  auto next = [&](int bound) {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<int>((seed >> 8) % static_cast<uint32_t>(bound));
  };
  for (int trial = 0; trial < 300; ++trial) {
    const int cards = 2 + next(7);
    const int total = 4 + next(20);
    NodeState node = ShareNode(total, {});
    for (int d = 0; d < cards; ++d) {
      // Few distinct levels, so ties are common.
      node.cards.push_back(CardState{total, next(4) * total / 4, 0, 0, 1, false});
    }
    const int m = 2 + next(3);
    const int mem = m * (1 + next(3));
    const CardPolicy policy = next(2) ? CardPolicy::kBinpack : CardPolicy::kSpread;
    const auto [score, set] = brute(node, mem, m, policy);
    const CardPlacementResult r = PlaceOnCards(SharePod(mem, m), node, policy, 0);
    CAPTURE(trial);
    REQUIRE(r.choice.has_value() == !set.empty());
    if (set.empty()) continue;
    CHECK(r.choice->score == doctest::Approx(score).epsilon(1e-5));
    CHECK(r.choice->cards == set);
  }
}

TEST_CASE("a request that does not split evenly over aliyun.com/gpu-count is rejected") {
  // ACKP getReplicaDeviceCount checks every container's request of every resource, and prints
  // the float32 quotient with one decimal.
  struct Row {
    std::vector<ContainerGpu> containers;
    int count;
    const char* reason;
  };
  for (const Row& row : {
           Row{{{8, 0}}, 3, "invalid replica for resource aliyun.com/gpu-mem,because 8 / 3 = 2.7"},
           Row{{{3, 0}, {5, 0}},
               2,
               "invalid replica for resource aliyun.com/gpu-mem,because 3 / 2 = 1.5"},
           Row{{{8, 50}},
               4,
               "invalid replica for resource aliyun.com/gpu-core.percentage,because 50 / 4 = 12.5"},
           Row{{{2, 0}, {6, 0}}, 2, nullptr},  // 1 + 3 per card: fine
       }) {
    CAPTURE(row.count);
    PodSpec pod = SharePod(0, row.count);
    pod.container_gpus = row.containers;
    for (const ContainerGpu& c : row.containers) {
      pod.gpu_mem += c.gpu_mem;
      pod.gpu_core += c.gpu_core;
    }
    NodeState node = CoreMemNode(15, {{0, 0}, {0, 0}, {0, 0}, {0, 0}});
    const CardPlacementResult r = PlaceOnCards(pod, node, CardPolicy::kBinpack, 0);
    if (row.reason == nullptr) {
      CHECK(CheckCardSplit(pod, CardPolicy::kBinpack) == CardFailure::kNone);
      CHECK(r.choice.has_value());
      continue;
    }
    CHECK(CheckCardSplit(pod, CardPolicy::kBinpack) == CardFailure::kInvalidReplica);
    CHECK_FALSE(r.choice.has_value());
    CHECK(r.reason == row.reason);
  }
}

TEST_CASE("max-pod: full cards drop out, and a node whose cards are all full says so") {
  NodeState node = ShareNode(15, {10, 2});
  node.cards[0].pods = 3;
  // Binpack would take card 0 (96); with max-pod 3 it is full, card 1 remains.
  const CardPlacementResult r = PlaceOnCards(SharePod(3), node, CardPolicy::kBinpack, 3);
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards == std::vector<int>{1});
  // No limit (0): card 0 again.
  CHECK(PlaceOnCards(SharePod(3), node, CardPolicy::kBinpack, 0).choice->cards ==
        std::vector<int>{0});

  node.cards[1].pods = 3;
  for (CardPolicy policy :
       {CardPolicy::kBinpack, CardPolicy::kSpread, CardPolicy::kExtenderBestFit}) {
    CAPTURE(Name(policy));
    const CardPlacementResult full = PlaceOnCards(SharePod(3), node, policy, 3);
    CHECK_FALSE(full.choice.has_value());
    CHECK(full.reason == "The number of pods per gpu device has reached the maximum allowed");
  }
  // One card below the limit but without room: a memory failure, not a max-pod one.
  node.cards[1].pods = 1;
  node.cards[1].used_mem = 14;
  const CardPlacementResult mem = PlaceOnCards(SharePod(3), node, CardPolicy::kBinpack, 3);
  CHECK(mem.reason == "node(s) didn't have enough device resources to allocate");
}

TEST_CASE("require-whole-device takes only a free card exactly the size asked") {
  struct Row {
    std::vector<int> used;
    int request;
    int count;
    std::vector<int> cards;  // empty: rejected
  };
  for (const Row& row : {
           Row{{3, 0, 0}, 15, 1, {1}},           // card 0 is not free
           Row{{0, 0}, 10, 1, {}},               // free cards, but of 15, not 10
           Row{{0, 4, 0, 0}, 45, 3, {0, 2, 3}},  // 15 per card over three free cards
           Row{{0, 4, 0}, 45, 3, {}},
       }) {
    CAPTURE(row.request);
    NodeState node = ShareNode(15, {});
    for (int u : row.used) node.cards.push_back(CardState{15, u, 0, 0, u > 0 ? 1 : 0, false});
    PodSpec pod = SharePod(row.request, row.count);
    pod.require_whole_device = true;
    const CardPlacementResult r = PlaceOnCards(pod, node, CardPolicy::kBinpack, 0);
    if (row.cards.empty()) {
      CHECK_FALSE(r.choice.has_value());
      CHECK(r.reason ==
            "Pod's RequireWholeGPU is true and not available devices can be fully occupied by it");
    } else {
      REQUIRE(r.choice.has_value());
      CHECK(r.choice->cards == row.cards);
    }
  }
}

TEST_CASE("gpu-mem + gpu-core pods score both resources at weight 1/2 on the same card") {
  // Card 0: 10/15 GiB and 20 % used; card 1: 2/15 GiB and 80 %. Pod: 3 GiB, 10 %.
  // Binpack, card 0: mem 96, core 70 + 30*0.3 = 79 -> 87.5; card 1: mem 80, core 97 -> 88.5.
  NodeState node = CoreMemNode(15, {{10, 20}, {2, 80}});
  const CardPlacementResult r = PlaceOnCards(SharePod(3, 1, 10), node, CardPolicy::kBinpack, 0);
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards == std::vector<int>{1});
  CHECK(r.choice->core_units == std::vector<int>{10});
  CHECK(r.choice->score == doctest::Approx(88.5));
  // Spread, card 0: mem 74, core 91 -> 82.5; card 1: mem 90, core 73 -> 81.5.
  const CardPlacementResult s = PlaceOnCards(SharePod(3, 1, 10), node, CardPolicy::kSpread, 0);
  REQUIRE(s.choice.has_value());
  CHECK(s.choice->cards == std::vector<int>{0});
  CHECK(s.choice->score == doctest::Approx(82.5));

  // A card without the compute left is no candidate, whatever its memory.
  NodeState busy = CoreMemNode(15, {{10, 20}, {2, 95}});
  CHECK(PlaceOnCards(SharePod(3, 1, 10), busy, CardPolicy::kBinpack, 0).choice->cards ==
        std::vector<int>{0});
  NodeState none = CoreMemNode(15, {{10, 95}, {2, 95}});
  CHECK(PlaceOnCards(SharePod(3, 1, 10), none, CardPolicy::kBinpack, 0).reason ==
        "node(s) didn't have enough device resources to allocate");

  // Multi-card: 2 cards, 4 GiB and 60 % -> 2 GiB and 30 % on each.
  NodeState four = CoreMemNode(15, {{0, 80}, {0, 0}, {10, 0}, {0, 0}});
  const CardPlacementResult m = PlaceOnCards(SharePod(4, 2, 60), four, CardPolicy::kBinpack, 0);
  REQUIRE(m.choice.has_value());
  CHECK(m.choice->cards == std::vector<int>{1, 2});  // card 0 lacks 30 %; card 2 is fullest
  CHECK(m.choice->mem_units == std::vector<int>{2, 2});
  CHECK(m.choice->core_units == std::vector<int>{30, 30});

  // On a node without gpu-core the compute request is not scored (NodeResourcesFit keeps such
  // pods off it anyway), and asking compute without memory is refused (ACKP, sic).
  NodeState plain = ShareNode(15, {10, 2});
  const CardPlacementResult p = PlaceOnCards(SharePod(3, 1, 10), plain, CardPolicy::kBinpack, 0);
  REQUIRE(p.choice.has_value());
  CHECK(p.choice->cards == std::vector<int>{0});
  CHECK(p.choice->core_units == std::vector<int>{0});
  PodSpec core_only = SharePod(0, 1, 10);
  CHECK(PlaceOnCards(core_only, node, CardPolicy::kBinpack, 0).reason ==
        "reqeust resources must include aliyun.com/gpu-mem");
}

TEST_CASE("node scores are the float32 candidate score truncated") {
  // 70 + 30*7/22 = 79.545... -> 79 (binpack, 22-unit A10 card holding 6, pod of 1).
  NodeState a10 = ShareNode(22, {6});
  CHECK(static_cast<int>(EvaluateCards(SharePod(1), a10, CardPolicy::kBinpack, 0).score) == 79);

  // float32 can land just below an integer that exact arithmetic reaches: four 40-unit cards
  // holding (0, 0, 3, 27), 1 unit each, spread: exact 30*(39+39+36+12)/160 + 70/16 = 28, float32
  // 27.999998 (terms summed in card order) -> ACK's int() gives 27.
  NodeState cards40 = ShareNode(40, {0, 0, 3, 27});
  const CardFit fit = EvaluateCards(SharePod(4, 4), cards40, CardPolicy::kSpread, 0);
  CHECK(fit.fits);
  CHECK(fit.score < 28.0f);
  CHECK(static_cast<int>(fit.score) == 27);

  // docs/semantics.md §1.5 B: for single cards on these totals float32 truncates like exact maths.
  for (int total : {15, 22, 23, 39, 47, 79, 95, 100, 1000}) {
    for (int used_after = 1; used_after <= total; ++used_after) {
      NodeState node = ShareNode(total, {used_after - 1});
      const int binpack = 70 + 30 * used_after / total;
      const int spread = 70 + 30 * (total - used_after) / total;
      CAPTURE(total);
      CAPTURE(used_after);
      CHECK(static_cast<int>(EvaluateCards(SharePod(1), node, CardPolicy::kBinpack, 0).score) ==
            binpack);
      CHECK(static_cast<int>(EvaluateCards(SharePod(1), node, CardPolicy::kSpread, 0).score) ==
            spread);
    }
  }
}

TEST_CASE("nvidia.com/gpu pods take idle cards whole, lowest indexes first") {
  NodeState node;
  node.spec.gpu_schedule = "default";
  node.spec.gpu_cards = 4;
  node.cards.resize(4);
  node.cards[1].whole = true;
  node.cards[1].pods = 1;
  PodSpec pod;
  pod.whole_gpus = 2;
  const CardPlacementResult r = PlaceOnCards(pod, node, CardPolicy::kBinpack, 0);
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards == std::vector<int>{0, 2});
  CHECK(r.choice->mem_units == std::vector<int>{0, 0});
  pod.whole_gpus = 4;
  const CardPlacementResult f = PlaceOnCards(pod, node, CardPolicy::kBinpack, 0);
  CHECK_FALSE(f.choice.has_value());
  CHECK(f.reason == "Insufficient nvidia.com/gpu");
}

TEST_CASE("a bandwidth hook breaks ties between equal multi-card sets, and only ties") {
  // Cards 4..7 form the fast island in this made-up hook.
  const CardSetBandwidth hook = [](std::span<const int> cards) {
    const bool island = std::all_of(cards.begin(), cards.end(), [](int c) { return c >= 4; });
    return island ? 300.0 : 20.0;
  };
  NodeState empty = ShareNode(15, {0, 0, 0, 0, 0, 0, 0, 0});
  const CardPlacementResult plain = PlaceOnCards(SharePod(8, 4), empty, CardPolicy::kBinpack, 0);
  CHECK(plain.choice->cards == std::vector<int>{0, 1, 2, 3});
  CHECK(plain.choice->bottleneck_gbps == 0);
  const CardPlacementResult wide =
      PlaceOnCards(SharePod(8, 4), empty, CardPolicy::kBinpack, 0, hook);
  CHECK(wide.choice->cards == std::vector<int>{4, 5, 6, 7});
  CHECK(wide.choice->bottleneck_gbps == 300);
  CHECK(wide.choice->score == plain.choice->score);

  // Card 0 is fuller: binpack must keep it, the hook only picks among the rest.
  NodeState used = empty;
  used.cards[0].used_mem = 5;
  const CardPlacementResult kept =
      PlaceOnCards(SharePod(8, 4), used, CardPolicy::kBinpack, 0, hook);
  CHECK(kept.choice->cards == std::vector<int>{0, 1, 2, 3});
  CHECK(kept.choice->bottleneck_gbps == 20);

  // Whole GPUs too (the NVIDIA plugin prefers NVLink-joined sets).
  NodeState exclusive;
  exclusive.cards.resize(8);
  PodSpec whole;
  whole.whole_gpus = 4;
  CHECK(PlaceOnCards(whole, exclusive, CardPolicy::kBinpack, 0, hook).choice->cards ==
        std::vector<int>{4, 5, 6, 7});
}

TEST_CASE("a pod asking no GPU takes no card") {
  NodeState node = ShareNode(15, {0});
  const CardPlacementResult r = PlaceOnCards(PodSpec{}, node, CardPolicy::kBinpack, 0);
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards.empty());
  CHECK(EvaluateCards(PodSpec{}, node, CardPolicy::kSpread, 0).fits);
}

TEST_CASE("placement values parse to card policies") {
  CHECK(ParseCardPolicy("binpack") == CardPolicy::kBinpack);
  CHECK(ParseCardPolicy("ack-binpack") == CardPolicy::kBinpack);
  CHECK(ParseCardPolicy("spread") == CardPolicy::kSpread);
  CHECK(ParseCardPolicy("ack-spread") == CardPolicy::kSpread);
  CHECK(ParseCardPolicy("bestfit-extender") == CardPolicy::kExtenderBestFit);
  CHECK(ParseCardPolicy("bestfit") == CardPolicy::kBestFit);  // the FGD paper's
  CHECK(ParseCardPolicy("fgd") == CardPolicy::kFgd);
  CHECK(IsPaperPolicy(CardPolicy::kFgd));
  CHECK(IsPaperPolicy(CardPolicy::kRandom));
  CHECK_FALSE(IsPaperPolicy(CardPolicy::kExtenderBestFit));
  CHECK_FALSE(IsPaperPolicy(CardPolicy::kSpread));
  CHECK_FALSE(ParseCardPolicy("Binpack").has_value());
  CHECK_FALSE(ParseCardPolicy("").has_value());
}

}  // namespace
TEST_CASE("CheckCardSet accepts exactly the sets ACK's plugin could choose") {
  ClusterState cluster;
  NodeSpec spec;
  spec.name = "n";
  spec.gpu_cards = 3;
  spec.card_mem_units = 15;
  spec.gpu_schedule = "share";
  const int n = cluster.AddNode(spec);
  PodSpec bound;
  bound.gpu_mem = 10;
  bound.container_gpus = {{10, 0}};
  Placement at;
  at.node = n;
  at.cards = {0};
  at.mem_units = {10};
  at.core_units = {0};
  cluster.Bind(bound, at);
  const NodeState& node = cluster.node(n);

  PodSpec two;  // 2 × 6 units (aliyun.com/gpu-count 2)
  two.gpu_mem = 12;
  two.gpu_count = 2;
  two.container_gpus = {{12, 0}};
  const int ok[] = {1, 2};
  const auto choice = CheckCardSet(two, node, ok, 0);
  REQUIRE(choice.has_value());
  CHECK(choice->cards == std::vector<int>{1, 2});
  CHECK(choice->mem_units == std::vector<int>{6, 6});
  const int full[] = {0, 1};  // card 0 has 5 units free
  CHECK_FALSE(CheckCardSet(two, node, full, 0).has_value());
  const int one[] = {1};
  CHECK_FALSE(CheckCardSet(two, node, one, 0).has_value());
  const int twice[] = {1, 1};
  CHECK_FALSE(CheckCardSet(two, node, twice, 0).has_value());
  const int outside[] = {1, 3};
  CHECK_FALSE(CheckCardSet(two, node, outside, 0).has_value());
  // max-pod 1: card 0 already holds a pod.
  PodSpec small;
  small.gpu_mem = 2;
  small.container_gpus = {{2, 0}};
  const int first[] = {0};
  CHECK(CheckCardSet(small, node, first, 0).has_value());
  CHECK_FALSE(CheckCardSet(small, node, first, 1).has_value());
  // nvidia.com/gpu pods take idle cards only.
  PodSpec whole;
  whole.whole_gpus = 1;
  CHECK_FALSE(CheckCardSet(whole, node, first, 0).has_value());
  const int idle[] = {2};
  CHECK(CheckCardSet(whole, node, idle, 0).has_value());
}

}  // namespace knobsim
