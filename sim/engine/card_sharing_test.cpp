#include "sim/engine/card_sharing.h"

#include <doctest/doctest.h>

#include <vector>

namespace knobsim::engine {
namespace {

// One node with one A10 (speed 1.0, 23028 MiB, 22 units) under `policy`; no warm-up.
Scenario OneCard(SharingPolicy policy, MemoryIsolation isolation = MemoryIsolation::kHard) {
  Scenario s;
  s.name = "card-sharing";
  NodePool pool;
  pool.name = "gpu";
  pool.count = 1;
  pool.gpu_type = "A10";
  pool.gpus_per_node = 1;
  pool.isolation = isolation;
  s.node_pools.push_back(pool);
  s.cluster.policy = policy;
  s.run.duration = 100 * kNanosPerSecond;
  s.run.warmup = 0;
  return s;
}

// Pods by hand, each on card 0 with `quota_mib` of visible memory.
void AddPods(EngineState& s, int count, int64_t quota_mib = 4096) {
  for (int i = 0; i < count; ++i) {
    PodRun pod;
    pod.cards = {0};
    pod.share_on = {0.0};
    pod.quota_mib = quota_mib;
    // What BindPod gives a pod of 4 of the card's 22 units (models/sharing_policy.h needs a
    // percentage in (0, 100]).
    pod.percent = 100.0 * 4 / 22;
    s.pods.push_back(pod);
  }
}

int32_t StartJob(EngineState& s, CardSharing& sharing, int32_t p, double work_ns) {
  const int32_t j = s.NewJob();
  s.jobs[j].pod = p;
  sharing.Touch(p);
  sharing.BeginJob(p, j, work_ns);
  return j;
}

Event NextLiveCompletion(EngineState& s, const CardSharing& sharing) {
  while (!s.queue.empty()) {
    const Event e = s.queue.Pop();
    if (e.kind == kCardCompletion && sharing.cards[e.target].generation == e.generation) return e;
  }
  return Event{-1, 0, 0, 0, 0};
}

TEST_CASE("card sharing: two active pods share a card under POLICY 1 and the survivor speeds up") {
  const Scenario scenario = OneCard(SharingPolicy::kPreemptive);
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  REQUIRE(sharing.cards.size() == 1);
  AddPods(s, 2);
  for (int32_t p = 0; p < 2; ++p) {
    sharing.Touch(p);
    sharing.JoinCards(p);
  }
  const int32_t short_job = StartJob(s, sharing, 0, 1e6);  // 1 ms of reference work
  StartJob(s, sharing, 1, 3e6);
  sharing.Flush();
  // Each pod runs at half speed: the 1 ms job finishes at t = 2 ms.
  CHECK(s.pods[0].rate == doctest::Approx(0.5));
  CHECK(s.pods[1].rate == doctest::Approx(0.5));
  Event e = NextLiveCompletion(s, sharing);
  CHECK(e.time == 2'000'000);

  s.now = e.time;
  std::vector<int32_t> done;
  sharing.TakeFinishedJobs(0, done);
  CHECK(done == std::vector<int32_t>{short_job});
  sharing.Touch(0);
  --s.pods[0].jobs;
  sharing.MarkDirty(0);
  sharing.Flush();
  // Pod 1 has 1 ms of its 3 ms done and now runs alone at full speed: done at t = 4 ms.
  CHECK(s.pods[0].rate == 0);
  CHECK(s.pods[1].rate == doctest::Approx(1.0));
  CHECK(s.pods[1].attained == doctest::Approx(1e6));
  e = NextLiveCompletion(s, sharing);
  CHECK(e.time == 4'000'000);

  // The card was busy all along and its whole capacity went to work (no switch overhead).
  s.now = e.time;
  sharing.AdvanceCard(0);
  CHECK(sharing.cards[0].busy_ns == doctest::Approx(4e6));
  CHECK(sharing.cards[0].effective_ns == doctest::Approx(4e6));
  CHECK(sharing.cards[0].switch_ns == 0);
}

TEST_CASE("card sharing: a job of a pod on an unchanged card keeps the shares, only rates move") {
  const Scenario scenario = OneCard(SharingPolicy::kFixedPercent);
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  AddPods(s, 2);
  s.pods[0].percent = 30;
  s.pods[1].percent = 30;
  for (int32_t p = 0; p < 2; ++p) {
    sharing.Touch(p);
    sharing.JoinCards(p);
  }
  StartJob(s, sharing, 0, 3e6);
  sharing.Flush();
  // POLICY 3 is not work-conserving: 30 % even alone. A second job halves each job's rate.
  CHECK(s.pods[0].rate == doctest::Approx(0.3));
  const SimTime alone = NextLiveCompletion(s, sharing).time;  // 3 ms / 0.3, rounded up
  CHECK(alone >= 10'000'000);
  CHECK(alone <= 10'000'001);
  StartJob(s, sharing, 0, 3e6);
  sharing.Flush();
  CHECK(s.pods[0].jobs == 2);
  CHECK(s.pods[0].rate == doctest::Approx(0.15));
  CHECK(sharing.cards[0].sum_share == doctest::Approx(0.3));
}

TEST_CASE("card sharing: memory under hard isolation stops at the quota, soft at the card") {
  SUBCASE("hard") {
    const Scenario scenario = OneCard(SharingPolicy::kNative, MemoryIsolation::kHard);
    EngineState s(scenario, 1, RunOptions{});
    CardSharing sharing(s);
    AddPods(s, 1, 1000);
    CHECK(sharing.ChangeMemory(0, 800, true));
    CHECK_FALSE(sharing.ChangeMemory(0, 300, true));
    CHECK(s.pods[0].used_mib == 800);
    CHECK(sharing.cards[0].memory_used_mib == 800);
    CHECK(sharing.ChangeMemory(0, 300, false));  // unchecked: what is held already
    CHECK(sharing.cards[0].memory_peak_mib == 1100);
    CHECK(sharing.ChangeMemory(0, -1100, false));
    CHECK(sharing.cards[0].memory_used_mib == 0);
  }
  SUBCASE("soft") {
    const Scenario scenario = OneCard(SharingPolicy::kNative, MemoryIsolation::kSoft);
    EngineState s(scenario, 1, RunOptions{});
    CardSharing sharing(s);
    AddPods(s, 1, 1000);
    CHECK(sharing.ChangeMemory(0, 8000, true));  // past its quota, within the card
    CHECK_FALSE(sharing.ChangeMemory(0, 20000, true));
  }
}

}  // namespace
}  // namespace knobsim::engine
