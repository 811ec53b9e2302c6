#include "sim/engine/card_sharing.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
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

// A co-location model by hand: speed(a | b) = base - 0.5 u_a u_b (the surface's constant and
// u_a·u_b terms), clamped to [0, 1.2]; workloads 0..2 have GPU utilizations 80 %, 50 % and 40 %,
// workload 3 has no profile.
Scenario CoLocated(SharingPolicy policy, double base = 1.0) {
  Scenario s = OneCard(policy);
  auto setup = std::make_shared<InterferenceSetup>();
  setup->source = "model.json";
  setup->model.weights.assign(kSurfaceTerms, 0.0);
  setup->model.weights[0] = base;
  setup->model.weights[5] = -0.5;
  setup->model.min_speed = 0;
  setup->model.max_speed = 1.2;
  s.cluster.interference = setup;
  for (double u : {80.0, 50.0, 40.0, -1.0}) {
    Workload w;
    w.name = "w" + std::to_string(s.workloads.size());
    if (u >= 0) w.interference = JobProfile{"", u, 0, 0};
    s.workloads.push_back(w);
  }
  return s;
}

// Pods of the given workloads on card 0, each with a job of 1 s of work in service.
void RunPodsOf(EngineState& s, CardSharing& sharing, std::vector<int32_t> workloads) {
  AddPods(s, static_cast<int>(workloads.size()));
  for (size_t i = 0; i < workloads.size(); ++i) {
    const auto p = static_cast<int32_t>(i);
    s.pods[p].workload = workloads[i];
    sharing.Touch(p);
    sharing.JoinCards(p);
  }
  for (size_t i = 0; i < workloads.size(); ++i)
    StartJob(s, sharing, static_cast<int32_t>(i), 1e9);
  sharing.Flush();
}

TEST_CASE("co-location: two profiled active pods run at the model's speeds, eta 1") {
  const Scenario scenario = CoLocated(SharingPolicy::kNative);
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  REQUIRE(sharing.cards[0].co_location);
  RunPodsOf(s, sharing, {0, 1});
  // 1 - 0.5 · 0.8 · 0.5 = 0.8 for each: more than POLICY 5's 0.95 / 2, and the card does more
  // than one card's worth of solo work.
  CHECK(s.pods[0].rate == doctest::Approx(0.8));
  CHECK(s.pods[1].rate == doctest::Approx(0.8));
  CHECK(sharing.cards[0].eta == 1);
  CHECK(sharing.cards[0].sum_share == doctest::Approx(1.6));
  s.now = 1'000'000;
  sharing.AdvanceCard(0);
  CHECK(sharing.cards[0].switch_ns == 0);
  CHECK(sharing.cards[0].effective_ns == doctest::Approx(1.6e6));
}

TEST_CASE("co-location: with three active pods each runs at the product of its pair speeds") {
  const Scenario scenario = CoLocated(SharingPolicy::kNative);
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  RunPodsOf(s, sharing, {0, 1, 2});
  const auto speed = [](double u, double v) { return 1 - 0.5 * u * v; };
  CHECK(s.pods[0].rate == doctest::Approx(speed(0.8, 0.5) * speed(0.8, 0.4)));
  CHECK(s.pods[1].rate == doctest::Approx(speed(0.5, 0.8) * speed(0.5, 0.4)));
  CHECK(s.pods[2].rate == doctest::Approx(speed(0.4, 0.8) * speed(0.4, 0.5)));
}

TEST_CASE("co-location: a share never exceeds the card, and one active pod runs alone") {
  const Scenario scenario = CoLocated(SharingPolicy::kNative, 1.15);
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  RunPodsOf(s, sharing, {1, 2});
  // 1.15 - 0.5 · 0.5 · 0.4 = 1.05 predicted: capped at 1 (faster than alone is no share).
  CHECK(s.pods[0].rate == doctest::Approx(1.0));
  CHECK(s.pods[1].rate == doctest::Approx(1.0));
}

TEST_CASE("co-location: an active pod without a profile leaves the card to POLICY 5's split") {
  const Scenario scenario = CoLocated(SharingPolicy::kNative);
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  RunPodsOf(s, sharing, {0, 3});
  const double eta = 1 - scenario.cluster.switch_overhead;
  CHECK(s.pods[0].rate == doctest::Approx(eta / 2));
  CHECK(s.pods[1].rate == doctest::Approx(eta / 2));
  CHECK(sharing.cards[0].eta == doctest::Approx(eta));
}

TEST_CASE("co-location: cGPU's own time slices (POLICY 0-4) keep their split") {
  const Scenario scenario = CoLocated(SharingPolicy::kPreemptive);
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  CHECK_FALSE(sharing.cards[0].co_location);
  RunPodsOf(s, sharing, {0, 1});
  CHECK(s.pods[0].rate == doctest::Approx(0.5));
  CHECK(s.pods[1].rate == doctest::Approx(0.5));
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
