#include "sim/scheduler/fgd/policy.h"

#include <doctest/doctest.h>

#include "sim/scheduler/fgd/random_policy.h"
#include "sim/scheduler/fgd/worked_example.h"

namespace knobsim::fgd {
namespace {

using testing::WorkedExample;

int Score(PolicyKind kind, const WorkedExample& ex, const PodRequest& pod, const NodeState& node) {
  return MakePolicy(kind, ex.types)->Score(pod, node);
}

// The single card a policy gives a 1-card pod (-1 if it takes several or none).
int CardOf(PolicyKind kind, const WorkedExample& ex, const PodRequest& pod, const NodeState& node) {
  const CardTake take = MakePolicy(kind, ex.types)->Cards(pod, node);
  int card = -1;
  for (int g = 0; g < node.cards; ++g) {
    if (take[g] == 0) continue;
    if (card >= 0) return -1;
    card = g;
  }
  return card;
}

TEST_CASE("worked example, pod P: N3 fails the model constraint, N1 and N2 pass (§6)") {
  const WorkedExample ex;
  CHECK(Feasible(ex.n1, ex.p));
  CHECK(Feasible(ex.n2, ex.p));
  CHECK_FALSE(Feasible(ex.n3, ex.p));
}

TEST_CASE("worked example, pod P: FGD prefers N2's free card 0 (53) to N1's card 0 (48)") {
  const WorkedExample ex;
  CHECK(Score(PolicyKind::kFgd, ex, ex.p, ex.n1) == 48);
  CHECK(CardOf(PolicyKind::kFgd, ex, ex.p, ex.n1) == 0);
  // Cards 0 and 1 tie at 53, card 2 (half used) scores 50, card 3 is full: card 0.
  CHECK(Score(PolicyKind::kFgd, ex, ex.p, ex.n2) == 53);
  CHECK(CardOf(PolicyKind::kFgd, ex, ex.p, ex.n2) == 0);
  NodeState after = ex.n2;
  Commit(after, ex.p, OneCard(0, ex.p));
  const double cluster =
      NodeFrag(ex.n1, ex.types) + NodeFrag(after, ex.types) + NodeFrag(ex.n3, ex.types);
  CHECK(cluster == doctest::Approx(2025));
}

TEST_CASE("worked example, pod P: BestFit 88 vs 84 picks N1 and its tightest card") {
  const WorkedExample ex;
  CHECK(Score(PolicyKind::kBestFit, ex, ex.p, ex.n1) == 88);
  CHECK(Score(PolicyKind::kBestFit, ex, ex.p, ex.n2) == 84);
  CHECK(CardOf(PolicyKind::kBestFit, ex, ex.p, ex.n1) == 0);
}

TEST_CASE("worked example, pod P: GpuPacking 94 vs 95 (N2's half-used card 2)") {
  const WorkedExample ex;
  CHECK(Score(PolicyKind::kPacking, ex, ex.p, ex.n1) == 94);
  CHECK(Score(PolicyKind::kPacking, ex, ex.p, ex.n2) == 95);
  CHECK(CardOf(PolicyKind::kPacking, ex, ex.p, ex.n2) == 2);
}

TEST_CASE("worked example, pod P: DotProd ties at 99, GpuClustering 95 vs 67") {
  const WorkedExample ex;
  CHECK(Score(PolicyKind::kDotProd, ex, ex.p, ex.n1) == 99);
  CHECK(Score(PolicyKind::kDotProd, ex, ex.p, ex.n2) == 99);
  CHECK(Score(PolicyKind::kClustering, ex, ex.p, ex.n1) == 95);
  CHECK(Score(PolicyKind::kClustering, ex, ex.p, ex.n2) == 67);
}

TEST_CASE("worked example, pod Q: N2 lacks CPU; FGD picks N3 (54 vs 47), BestFit N1 (95 vs 89)") {
  const WorkedExample ex;
  CHECK_FALSE(Feasible(ex.n2, ex.q));
  CHECK(Score(PolicyKind::kFgd, ex, ex.q, ex.n1) == 47);
  CHECK(Score(PolicyKind::kFgd, ex, ex.q, ex.n3) == 54);
  CHECK(CardOf(PolicyKind::kFgd, ex, ex.q, ex.n3) == 0);
  CHECK(Score(PolicyKind::kBestFit, ex, ex.q, ex.n1) == 95);
  CHECK(Score(PolicyKind::kBestFit, ex, ex.q, ex.n3) == 89);
  CHECK(CardOf(PolicyKind::kBestFit, ex, ex.q, ex.n1) == 1);
}

TEST_CASE("a multi-GPU pod takes the lowest whole cards; GpuPacking scores partly used nodes") {
  const WorkedExample ex;
  const NodeState n = ex.Node("T4", 64000, {1000, 300, 1000, 1000}, 0);
  const PodRequest two = ex.Pod(4000, 2, 1000, "");
  for (PolicyKind k :
       {PolicyKind::kFgd, PolicyKind::kBestFit, PolicyKind::kPacking, PolicyKind::kAckBinpack}) {
    const CardTake take = MakePolicy(k, ex.types)->Cards(two, n);
    CHECK_MESSAGE((take[0] == 1000 && take[1] == 0 && take[2] == 1000 && take[3] == 0),
                  PolicyName(k));
  }
  CHECK(Score(PolicyKind::kPacking, ex, two, n) == 48);  // two fully free cards taken
}

TEST_CASE("GpuPacking on untouched nodes: 32, 31, 29, 25 for 1, 2, 4, 8 cards") {
  const WorkedExample ex;
  const PodRequest pod = ex.Pod(1000, 1, 500, "");
  CHECK(Score(PolicyKind::kPacking, ex, pod, ex.Node("T4", 1000, {1000}, 0)) == 32);
  CHECK(Score(PolicyKind::kPacking, ex, pod, ex.Node("T4", 1000, {1000, 1000}, 0)) == 31);
  CHECK(Score(PolicyKind::kPacking, ex, pod, ex.Node("T4", 1000, {1000, 1000, 1000, 1000}, 0)) ==
        29);
  NodeState eight = ex.Node("T4", 1000, {}, 0);
  for (int g = 0; g < 8; ++g) eight.free[eight.cards++] = 1000;
  CHECK(Score(PolicyKind::kPacking, ex, pod, eight) == 25);
}

TEST_CASE("CPU-only pods score 0 under GpuClustering, GpuPacking and ACK: rank decides") {
  const WorkedExample ex;
  const PodRequest cpu = ex.Pod(3000, 0, 0, "");
  for (PolicyKind k : {PolicyKind::kClustering, PolicyKind::kPacking, PolicyKind::kAckBinpack,
                       PolicyKind::kAckSpread}) {
    CHECK(Score(k, ex, cpu, ex.n1) == 0);
    CHECK(Score(k, ex, cpu, ex.n3) == 0);
  }
  // FGD: N1 left with 7000 CPU cannot host B (8000): B's 1600 idle turns from 180 of Q2 into
  // 480 of Q4, F grows by 300 and σ(−0.3) = 0.4256 → 42. N3 keeps 17 000: nothing changes, 50.
  CHECK(Score(PolicyKind::kFgd, ex, cpu, ex.n1) == 42);
  CHECK(Score(PolicyKind::kFgd, ex, cpu, ex.n3) == 50);
  CHECK(MakePolicy(PolicyKind::kFgd, ex.types)->Cards(cpu, ex.n3) == CardTake{});
}

TEST_CASE("GpuClustering: own tag only +75, with others +50, no GPU pod +25, others only +0") {
  const WorkedExample ex;
  const PodRequest one_gpu = ex.Pod(1000, 1, 1000, "");
  const NodeState base = ex.Node("P100", 20000, {1000, 1000}, 0);  // base 25·6000/8000 = 18
  NodeState n = base;
  CHECK(Score(PolicyKind::kClustering, ex, one_gpu, n) == 18 + 25);
  n.tags = 1 << 1;
  CHECK(Score(PolicyKind::kClustering, ex, one_gpu, n) == 18 + 75);
  n.tags = (1 << 1) | 1;
  CHECK(Score(PolicyKind::kClustering, ex, one_gpu, n) == 18 + 50);
  n.tags = 1;
  CHECK(Score(PolicyKind::kClustering, ex, one_gpu, n) == 18);
}

TEST_CASE("a gpu_spec constraint filters nodes but never scores them") {
  const WorkedExample ex;
  const PodRequest v100 = ex.Pod(1000, 1, 500, "V100M16|V100M32|V100M32");
  CHECK(v100.spec == "V100M16|V100M32|V100M32");  // duplicates kept: a distinct typical type
  CHECK_FALSE(Feasible(ex.n1, v100));
  CHECK(Feasible(ex.n2, v100));
  const PodRequest any = ex.Pod(1000, 1, 500, "");
  CHECK(Score(PolicyKind::kBestFit, ex, v100, ex.n2) ==
        Score(PolicyKind::kBestFit, ex, any, ex.n2));
}

TEST_CASE("ACK binpack takes the fullest card that fits, spread the emptiest (float32 scores)") {
  const WorkedExample ex;
  const NodeState n = ex.Node("T4", 10000, {400, 900}, 0);
  const PodRequest pod = ex.Pod(1000, 1, 200, "");
  // binpack: card 0 used after 800 → 70 + 30·0.8 = 94; card 1 → 79. spread: 76 vs 91.
  CHECK(Score(PolicyKind::kAckBinpack, ex, pod, n) == 94);
  CHECK(CardOf(PolicyKind::kAckBinpack, ex, pod, n) == 0);
  CHECK(Score(PolicyKind::kAckSpread, ex, pod, n) == 91);
  CHECK(CardOf(PolicyKind::kAckSpread, ex, pod, n) == 1);
  // A 1-GPU pod fills a card: 100 under binpack, 70 under spread.
  CHECK(Score(PolicyKind::kAckBinpack, ex, ex.Pod(1000, 1, 1000, ""), ex.n3) == 100);
  CHECK(Score(PolicyKind::kAckSpread, ex, ex.Pod(1000, 1, 1000, ""), ex.n3) == 70);
}

TEST_CASE("ACK ties between equal cards go to the lowest index") {
  const WorkedExample ex;
  const PodRequest pod = ex.Pod(1000, 1, 300, "");
  const NodeState n = ex.Node("T4", 10000, {1000, 1000}, 0);
  CHECK(Score(PolicyKind::kAckBinpack, ex, pod, n) == 79);  // 70 + 30·0.3
  CHECK(CardOf(PolicyKind::kAckBinpack, ex, pod, n) == 0);
  CHECK(Score(PolicyKind::kAckSpread, ex, pod, n) == 91);
  CHECK(CardOf(PolicyKind::kAckSpread, ex, pod, n) == 0);
}

TEST_CASE("ACK multi-GPU pods: M whole cards score 30·avg + 70/M², truncated") {
  const WorkedExample ex;
  const NodeState n = ex.Node("T4", 10000, {1000, 500, 1000, 1000}, 0);
  const PodRequest two = ex.Pod(1000, 2, 1000, "");
  CHECK(Score(PolicyKind::kAckBinpack, ex, two, n) == 47);  // 30 + 17.5
  CHECK(Score(PolicyKind::kAckSpread, ex, two, n) == 17);   // 0 + 17.5
}

TEST_CASE("FGD breaks card ties by the first index after truncation") {
  const WorkedExample ex;
  const NodeState n = ex.Node("T4", 10000, {1000, 700, 1000}, 0);
  const PodRequest pod = ex.Pod(1000, 1, 100, "");
  const int card = CardOf(PolicyKind::kFgd, ex, pod, n);
  CHECK((card == 0 || card == 1));  // card 2 equals card 0 and comes later
  CHECK(card != 2);
}

TEST_CASE("01-Random draws one reservoir choice per fitting card") {
  const WorkedExample ex;
  const NodeState n = ex.Node("T4", 10000, {1000, 100, 1000, 1000}, 0);
  const PodRequest pod = ex.Pod(1000, 1, 500, "");
  GoRand a(9), b(9);
  const CardTake take = RandomCards(pod, n, a);
  int expected = -1;
  int fitting = 0;
  for (int g : {0, 2, 3}) {
    if (b.Intn(++fitting) == 0) expected = g;
  }
  CHECK(take[expected] == 500);
  CHECK(a.Int63() == b.Int63());         // the same number of draws
  CHECK(RandomNodePosition(1, a) == 0);  // a single feasible node draws nothing
  CHECK(a.Int63() == b.Int63());
}

TEST_CASE("policy names parse case-insensitively, with ACK's placement values as aliases") {
  CHECK(ParsePolicy("FGD") == PolicyKind::kFgd);
  CHECK(ParsePolicy("binpack") == PolicyKind::kAckBinpack);
  CHECK(ParsePolicy("ack-spread") == PolicyKind::kAckSpread);
  CHECK_FALSE(ParsePolicy("tetris").has_value());
  CHECK(ScPolicyLabel(PolicyKind::kClustering) == "03-GpuClustering");
  CHECK(ScPolicyLabel(PolicyKind::kAckSpread) == "08-ACK-Spread");
}

}  // namespace
}  // namespace knobsim::fgd
