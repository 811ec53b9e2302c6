#include "models/sharing_policy.h"

#include <doctest/doctest.h>

#include <numeric>
#include <random>
#include <vector>

namespace knobsim {
namespace {

struct Result {
  std::vector<double> shares;
  double eta = 0;
  double total() const { return std::accumulate(shares.begin(), shares.end(), 0.0); }
};

Result Shares(SharingPolicy policy, const std::vector<PodOnCard>& pods, int max_inst = 0,
              double switch_overhead = 0.05) {
  Result r;
  r.shares.assign(pods.size(), -1.0);  // prove every slot is written
  r.eta = ComputeShares({policy, max_inst, switch_overhead}, pods, r.shares);
  return r;
}

// The worked card used throughout: three pods in P, pods 0 and 2 active.
// Percentages 20/30/50, weights 1/2/3.
std::vector<PodOnCard> ThreePodsTwoActive() {
  return {{true, 1, 20}, {false, 2, 30}, {true, 3, 50}};
}

constexpr SharingPolicy kAllPolicies[] = {SharingPolicy::kFixedEqual, SharingPolicy::kPreemptive,
                                          SharingPolicy::kWeighted,   SharingPolicy::kFixedPercent,
                                          SharingPolicy::kWeak,       SharingPolicy::kNative};

}  // namespace

TEST_CASE("the policy numbers are the POLICY env values of the cGPU DaemonSet") {
  CHECK(static_cast<int>(SharingPolicy::kFixedEqual) == 0);
  CHECK(static_cast<int>(SharingPolicy::kPreemptive) == 1);
  CHECK(static_cast<int>(SharingPolicy::kWeighted) == 2);
  CHECK(static_cast<int>(SharingPolicy::kFixedPercent) == 3);
  CHECK(static_cast<int>(SharingPolicy::kWeak) == 4);
  CHECK(static_cast<int>(SharingPolicy::kNative) == 5);
}

TEST_CASE("POLICY 0 gives each active pod 1/max_inst and wastes the idle slots") {
  Result r = Shares(SharingPolicy::kFixedEqual, ThreePodsTwoActive(), /*max_inst=*/4);
  CHECK(r.shares[0] == doctest::Approx(0.25));
  CHECK(r.shares[1] == 0);
  CHECK(r.shares[2] == doctest::Approx(0.25));
  CHECK(r.total() == doctest::Approx(0.5));
  CHECK(r.eta == 1);
}

TEST_CASE("POLICY 0 without max_inst divides the card among the running pods, busy or idle") {
  Result r = Shares(SharingPolicy::kFixedEqual, ThreePodsTwoActive());
  CHECK(r.shares[0] == doctest::Approx(1.0 / 3));
  CHECK(r.shares[1] == 0);
  CHECK(r.shares[2] == doctest::Approx(1.0 / 3));
  CHECK(r.total() < 1);
}

TEST_CASE("POLICY 0 gives a lone busy pod only its slot") {
  Result r = Shares(SharingPolicy::kFixedEqual, {{true, 1, 100}}, /*max_inst=*/2);
  CHECK(r.shares[0] == doctest::Approx(0.5));
}

TEST_CASE("POLICY 0 never hands out more than the card when P exceeds max_inst") {
  // The scheduler forbids it (max_inst acts as ack.node.gpu.max-pod); the model stays physical.
  std::vector<PodOnCard> pods(3, PodOnCard{true, 1, 10});
  Result r = Shares(SharingPolicy::kFixedEqual, pods, /*max_inst=*/2);
  for (double s : r.shares) CHECK(s == doctest::Approx(1.0 / 3));
  CHECK(r.total() == doctest::Approx(1.0));
}

TEST_CASE("POLICY 1 splits the card equally among the active pods only") {
  Result r = Shares(SharingPolicy::kPreemptive, ThreePodsTwoActive());
  CHECK(r.shares[0] == doctest::Approx(0.5));
  CHECK(r.shares[1] == 0);
  CHECK(r.shares[2] == doctest::Approx(0.5));
  CHECK(r.eta == 1);

  Result lone = Shares(SharingPolicy::kPreemptive, {{true, 1, 10}, {false, 1, 10}});
  CHECK(lone.shares[0] == doctest::Approx(1.0));
}

TEST_CASE("POLICY 2 splits the card among active pods in proportion to their weights") {
  Result r = Shares(SharingPolicy::kWeighted, ThreePodsTwoActive());
  CHECK(r.shares[0] == doctest::Approx(0.25));  // 1 / (1 + 3)
  CHECK(r.shares[1] == 0);
  CHECK(r.shares[2] == doctest::Approx(0.75));  // 3 / (1 + 3)
  CHECK(r.eta == 1);
}

TEST_CASE("POLICY 2 with equal weights is POLICY 1") {
  std::vector<PodOnCard> pods = {{true, 4, 10}, {true, 4, 20}, {false, 4, 30}, {true, 4, 40}};
  Result weighted = Shares(SharingPolicy::kWeighted, pods);
  Result preemptive = Shares(SharingPolicy::kPreemptive, pods);
  for (size_t i = 0; i < pods.size(); ++i) {
    CHECK(weighted.shares[i] == doctest::Approx(preemptive.shares[i]));
  }
}

TEST_CASE("POLICY 2 treats a weight below 1 as 1") {
  Result r = Shares(SharingPolicy::kWeighted, {{true, 0, 10}, {true, -3, 10}, {true, 2, 10}});
  CHECK(r.shares[0] == doctest::Approx(0.25));
  CHECK(r.shares[1] == doctest::Approx(0.25));
  CHECK(r.shares[2] == doctest::Approx(0.5));
}

TEST_CASE("POLICY 3 caps a lone pod at its percentage") {
  Result r = Shares(SharingPolicy::kFixedPercent, {{true, 1, 30}});
  CHECK(r.shares[0] == doctest::Approx(0.30));
  CHECK(r.eta == 1);
}

TEST_CASE("POLICY 3 gives each active pod its percentage and wastes the rest") {
  Result r = Shares(SharingPolicy::kFixedPercent, ThreePodsTwoActive());
  CHECK(r.shares[0] == doctest::Approx(0.20));
  CHECK(r.shares[1] == 0);
  CHECK(r.shares[2] == doctest::Approx(0.50));
  CHECK(r.total() == doctest::Approx(0.70));
}

TEST_CASE("POLICY 3 scales every share down when the running pods reserve more than 100") {
  // 60 + 60 + 30 = 150 over P, so each share is pct / 150 -- idle pods count too.
  std::vector<PodOnCard> pods = {{true, 1, 60}, {false, 1, 60}, {true, 1, 30}};
  Result r = Shares(SharingPolicy::kFixedPercent, pods);
  CHECK(r.shares[0] == doctest::Approx(0.40));
  CHECK(r.shares[1] == 0);
  CHECK(r.shares[2] == doctest::Approx(0.20));

  pods[1].active = true;
  Result full = Shares(SharingPolicy::kFixedPercent, pods);
  CHECK(full.total() == doctest::Approx(1.0));
}

TEST_CASE("POLICY 3 does not scale up a card reserved exactly to 100") {
  Result r = Shares(SharingPolicy::kFixedPercent, {{true, 1, 40}, {true, 1, 60}});
  CHECK(r.shares[0] == doctest::Approx(0.40));
  CHECK(r.shares[1] == doctest::Approx(0.60));
}

TEST_CASE("POLICY 4 splits the whole card among active pods in proportion to percentage") {
  Result r = Shares(SharingPolicy::kWeak, ThreePodsTwoActive());
  CHECK(r.shares[0] == doctest::Approx(20.0 / 70));
  CHECK(r.shares[1] == 0);
  CHECK(r.shares[2] == doctest::Approx(50.0 / 70));
  CHECK(r.total() == doctest::Approx(1.0));
  CHECK(r.eta == 1);

  Result lone = Shares(SharingPolicy::kWeak, {{true, 1, 30}});
  CHECK(lone.shares[0] == doctest::Approx(1.0));  // borrows the unreserved 70 %
}

TEST_CASE("POLICY 4 never gives a pod less than its POLICY 3 share") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> size(1, 8);
  std::uniform_int_distribution<int> pct(1, 100);
  std::bernoulli_distribution busy(0.6);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<PodOnCard> pods(size(rng));
    for (PodOnCard& pod : pods) pod = {busy(rng), 1, static_cast<double>(pct(rng))};
    Result weak = Shares(SharingPolicy::kWeak, pods);
    Result fixed = Shares(SharingPolicy::kFixedPercent, pods);
    for (size_t i = 0; i < pods.size(); ++i) {
      CAPTURE(trial);
      CHECK(weak.shares[i] >= fixed.shares[i] - 1e-12);
    }
  }
}

TEST_CASE("POLICY 5 splits the card equally and loses the switch overhead with two active") {
  Result r = Shares(SharingPolicy::kNative, ThreePodsTwoActive(), 0, /*switch_overhead=*/0.05);
  CHECK(r.eta == doctest::Approx(0.95));
  CHECK(r.shares[0] == doctest::Approx(0.475));
  CHECK(r.shares[1] == 0);
  CHECK(r.shares[2] == doctest::Approx(0.475));
  CHECK(r.total() == doctest::Approx(0.95));
}

TEST_CASE("POLICY 5 runs a lone active pod at full speed whatever the overhead") {
  Result r = Shares(SharingPolicy::kNative, {{true, 1, 10}, {false, 1, 10}}, 0, 0.2);
  CHECK(r.eta == 1);
  CHECK(r.shares[0] == doctest::Approx(1.0));
  CHECK(r.shares[1] == 0);
}

TEST_CASE("POLICY 5 with zero overhead is POLICY 1") {
  std::vector<PodOnCard> pods = {{true, 1, 10}, {true, 1, 10}, {true, 1, 10}};
  Result native = Shares(SharingPolicy::kNative, pods, 0, 0.0);
  CHECK(native.eta == 1);
  for (double s : native.shares) CHECK(s == doctest::Approx(1.0 / 3));
}

TEST_CASE("eta is 1 under every policy but POLICY 5") {
  std::vector<PodOnCard> pods = {{true, 2, 30}, {true, 1, 30}};
  for (SharingPolicy policy : kAllPolicies) {
    CAPTURE(static_cast<int>(policy));
    Result r = Shares(policy, pods, 0, 0.1);
    CHECK(r.eta == doctest::Approx(policy == SharingPolicy::kNative ? 0.9 : 1.0));
  }
}

TEST_CASE("work-conserving policies hand out the whole card (times eta) when any pod is busy") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> size(1, 10);
  std::uniform_int_distribution<int> pct(1, 100);
  std::uniform_int_distribution<int> weight(1, 20);
  std::bernoulli_distribution busy(0.5);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<PodOnCard> pods(size(rng));
    for (PodOnCard& pod : pods) pod = {busy(rng), weight(rng), static_cast<double>(pct(rng))};
    pods[0].active = true;
    for (SharingPolicy policy : {SharingPolicy::kPreemptive, SharingPolicy::kWeighted,
                                 SharingPolicy::kWeak, SharingPolicy::kNative}) {
      CAPTURE(trial);
      CAPTURE(static_cast<int>(policy));
      Result r = Shares(policy, pods, 0, 0.07);
      CHECK(r.total() == doctest::Approx(r.eta));
    }
  }
}

TEST_CASE("no policy hands out more than the card or anything to an idle pod") {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> size(1, 10);
  std::uniform_int_distribution<int> pct(1, 100);
  std::bernoulli_distribution busy(0.5);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<PodOnCard> pods(size(rng));
    for (PodOnCard& pod : pods) pod = {busy(rng), 1, static_cast<double>(pct(rng))};
    for (SharingPolicy policy : kAllPolicies) {
      CAPTURE(trial);
      CAPTURE(static_cast<int>(policy));
      Result r = Shares(policy, pods, /*max_inst=*/static_cast<int>(pods.size()), 0.05);
      CHECK(r.total() <= 1.0 + 1e-12);
      for (size_t i = 0; i < pods.size(); ++i) {
        CHECK(r.shares[i] >= 0);
        if (!pods[i].active) CHECK(r.shares[i] == 0);
      }
    }
  }
}

TEST_CASE("a card with no active pod gets all-zero shares and eta 1") {
  std::vector<PodOnCard> idle = {{false, 1, 50}, {false, 3, 50}};
  for (SharingPolicy policy : kAllPolicies) {
    CAPTURE(static_cast<int>(policy));
    Result r = Shares(policy, idle, 2, 0.3);
    CHECK(r.eta == 1);
    CHECK(r.shares[0] == 0);
    CHECK(r.shares[1] == 0);
  }
}

TEST_CASE("an empty card computes nothing and returns eta 1") {
  for (SharingPolicy policy : kAllPolicies) {
    CAPTURE(static_cast<int>(policy));
    CHECK(ComputeShares({policy, 0, 0.05}, {}, {}) == 1);
  }
}

TEST_CASE("EffectivePercent takes gpu-core.percentage when it is set") {
  CHECK(EffectivePercent(30, 4, 15) == doctest::Approx(30));
  CHECK(EffectivePercent(100, 1, 15) == doctest::Approx(100));
  CHECK(EffectivePercent(1, 15, 15) == doctest::Approx(1));
  CHECK(EffectivePercent(250, 4, 15) == doctest::Approx(100));  // clamped to one card
}

TEST_CASE("EffectivePercent falls back to the pod's memory fraction of the card") {
  CHECK(EffectivePercent(0, 4, 15) == doctest::Approx(26.6667).epsilon(1e-4));
  CHECK(EffectivePercent(0, 15, 15) == doctest::Approx(100));
  CHECK(EffectivePercent(0, 11, 22) == doctest::Approx(50));
  CHECK(EffectivePercent(-1, 2, 15) == doctest::Approx(13.3333).epsilon(1e-4));
}

TEST_CASE("EffectivePercent of a pod holding no units is 0") {
  CHECK(EffectivePercent(0, 0, 15) == 0);
  CHECK(EffectivePercent(0, 4, 0) == 0);
}

TEST_CASE("EffectiveWeight maps a percentage to floor(pct/5), at least 1") {
  CHECK(EffectiveWeight(0, 37) == 7);
  CHECK(EffectiveWeight(0, 3) == 1);
  CHECK(EffectiveWeight(0, 5) == 1);
  CHECK(EffectiveWeight(0, 100) == 20);
  CHECK(EffectiveWeight(0, 0) == 1);
}

TEST_CASE("EffectiveWeight prefers an explicit ALIYUN_COM_GPU_SCHD_WEIGHT") {
  CHECK(EffectiveWeight(3, 37) == 3);
  CHECK(EffectiveWeight(1, 80) == 1);
  CHECK(EffectiveWeight(12, 0) == 12);
  CHECK(EffectiveWeight(-2, 0) == 1);  // unset
}

TEST_CASE("HAMi-core's capped time-slicing: eta split max-min fair under the gpucores caps") {
  struct Case {
    const char* rule;
    std::vector<PodOnCard> pods;  // percent: the pod's cap (100: none)
    bool caps_when_alone;
    std::vector<double> shares;
    double eta;
  };
  const double eta2 = 0.95;  // switch_overhead 0.05 with two or more active pods
  const Case cases[] = {
      {"no caps: POLICY 5's eta/|A|",
       {{true, 1, 100}, {true, 1, 100}},
       false,
       {eta2 / 2, eta2 / 2},
       eta2},
      {"a lone pod is not capped under the default policy",
       {{true, 1, 30}, {false, 1, 100}},
       false,
       {1.0, 0.0},
       1.0},
      {"force caps a lone pod", {{true, 1, 30}}, true, {0.3}, 1.0},
      {"a capped pod leaves the rest to an uncapped one",
       {{true, 1, 30}, {true, 1, 100}},
       false,
       {0.3, eta2 - 0.3},
       eta2},
      {"caps above the fair share do not bind",
       {{true, 1, 60}, {true, 1, 70}},
       false,
       {eta2 / 2, eta2 / 2},
       eta2},
      {"caps summing below eta leave the card part idle",
       {{true, 1, 20}, {true, 1, 30}},
       false,
       {0.2, 0.3},
       eta2},
      {"three pods: the small cap first, the rest shared",
       {{true, 1, 10}, {true, 1, 100}, {false, 1, 5}, {true, 1, 40}},
       false,
       {0.1, eta2 - 0.1 - 0.4, 0.0, 0.4},
       eta2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    std::vector<double> shares(c.pods.size(), -1.0);
    SharingParams params{SharingPolicy::kCappedTimeSlicing, 0, 0.05, c.caps_when_alone};
    const double eta = ComputeShares(params, c.pods, shares);
    CHECK(eta == doctest::Approx(c.eta));
    REQUIRE(shares.size() == c.shares.size());
    for (size_t i = 0; i < shares.size(); ++i) CHECK(shares[i] == doctest::Approx(c.shares[i]));
  }
}

}  // namespace knobsim
