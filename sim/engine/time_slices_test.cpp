#include "sim/engine/time_slices.h"

#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "sim/engine/card_sharing.h"

namespace knobsim::engine {
namespace {

constexpr SimTime kMs = 1'000'000;

// One node with one A10 (speed 1.0) under `policy`, in slice mode; no warm-up.
Scenario SlicedCard(SharingPolicy policy, SimTime quantum, SimTime switch_cost, int max_inst = 0) {
  Scenario s;
  s.name = "time-slices";
  NodePool pool;
  pool.name = "gpu";
  pool.count = 1;
  pool.gpu_type = "A10";
  pool.gpus_per_node = 1;
  s.node_pools.push_back(pool);
  s.cluster.policy = policy;
  s.cluster.max_inst = max_inst;
  s.cluster.time_slice = TimeSliceKnobs{quantum, switch_cost};
  s.run.duration = 100 * kNanosPerSecond;
  s.run.warmup = 0;
  return s;
}

// Pods on card 0, in P (their GPU containers run).
void JoinPods(EngineState& s, CardSharing& sharing, int count) {
  for (int i = 0; i < count; ++i) {
    PodRun pod;
    pod.cards = {0};
    pod.share_on = {0.0};
    pod.percent = 100;
    s.pods.push_back(pod);
    const auto p = static_cast<int32_t>(s.pods.size() - 1);
    sharing.Touch(p);
    sharing.JoinCards(p);
  }
}

// A job of `work` reference-ns that enters service on pod p at `at`.
struct Start {
  int32_t pod;
  SimTime at;
  double work;
};

// Runs the card: starts the jobs at their times, delivers its completions and slice ends as the
// kernel does, and returns each job's finish time (in the order of `starts`) and the number of
// slice-end events delivered.
struct Outcome {
  std::vector<SimTime> finish;
  int slice_ends = 0;
};
Outcome RunCard(EngineState& s, CardSharing& sharing, const std::vector<Start>& starts) {
  Outcome out;
  out.finish.assign(starts.size(), -1);
  std::map<int32_t, size_t> index_of_job;
  size_t next = 0;
  std::vector<int32_t> done;
  sharing.Flush();
  for (;;) {
    const bool has_event = !s.queue.empty();
    if (next < starts.size() && (!has_event || starts[next].at <= s.queue.top().time)) {
      s.now = starts[next].at;
      const int32_t j = s.NewJob();
      s.jobs[j].pod = starts[next].pod;
      sharing.Touch(starts[next].pod);
      sharing.BeginJob(starts[next].pod, j, starts[next].work);
      index_of_job[j] = next++;
      sharing.Flush();
      continue;
    }
    if (!has_event) break;
    const Event e = s.queue.Pop();
    s.now = e.time;
    if (e.kind == kSliceEnd) {
      out.slice_ends += 1;
      sharing.EndSlice(static_cast<int32_t>(e.target), e.generation);
    } else if (e.kind == kCardCompletion && sharing.cards[e.target].generation == e.generation) {
      sharing.TakeFinishedJobs(static_cast<int32_t>(e.target), done);
      for (int32_t j : done) {
        out.finish[index_of_job.at(j)] = s.now;
        sharing.Touch(s.jobs[j].pod);
        --s.pods[s.jobs[j].pod].jobs;
        s.FreeJob(j);
      }
      sharing.MarkDirty(static_cast<int32_t>(e.target));
    }
    sharing.Flush();
  }
  return out;
}

struct SliceCase {
  const char* rule;
  SharingPolicy policy;
  SimTime quantum, switch_cost;
  int max_inst, pods;
  std::vector<Start> starts;
  std::vector<SimTime> finish;  // of each start
  double switch_ms;             // the card's switch-overhead time
};

TEST_CASE("slice mode: round robin of quantum slices with a switch cost between two pods") {
  const std::vector<SliceCase> cases = {
      // Pod 0 runs [0, 1), switch, pod 1 [1.1, 2.1), switch, pod 0 [2.2, 3.2) and is done; the
      // hand-over to pod 1 costs a switch (it was waiting), then it runs alone with no slice end.
      {"two pods alternate and each hand-over costs the switch",
       SharingPolicy::kNative,
       1 * kMs,
       kMs / 10,
       0,
       2,
       {{0, 0, 2e6}, {1, 0, 2e6}},
       {3'200'000, 4'300'000},
       0.3},
      {"one active pod runs at full speed with no slices",
       SharingPolicy::kNative,
       1 * kMs,
       kMs / 10,
       0,
       2,
       {{0, 0, 5e6}},
       {5 * kMs},
       0},
      // Pod 0 is done after 0.3 ms of its 1 ms slice: pod 1 takes over at once (no cost: c = 0).
      {"a holder that goes idle gives up the rest of its slice",
       SharingPolicy::kNative,
       1 * kMs,
       0,
       0,
       2,
       {{0, 0, 0.3e6}, {1, 0, 2e6}},
       {300'000, 2'300'000},
       0},
      // Pod 0 ran until 1 ms and went idle; pod 1 arrives at 2 ms on an idle card: no switch.
      {"a card that idled switches for free",
       SharingPolicy::kNative,
       1 * kMs,
       kMs / 10,
       0,
       2,
       {{0, 0, 1e6}, {1, 2 * kMs, 1e6}},
       {1 * kMs, 3 * kMs},
       0},
      // Pod 0 alone from 0; pod 1 arrives at 2.5 ms and waits for the end of pod 0's third
      // slice (3 ms), runs [3, 4); pod 0 has 3 of its 5 ms and finishes at 6.
      {"a lone holder's slices run on: a second pod waits for the current one's end",
       SharingPolicy::kNative,
       1 * kMs,
       0,
       0,
       2,
       {{0, 0, 5e6}, {1, 2'500'000, 1e6}},
       {6 * kMs, 4 * kMs},
       0},
      // POLICY 0, N = 4 slots of 1 ms: pod 0 owns [0, 1) and [4, 5); pod 1 [1, 2). The slots
      // of pods 2 and 3 (absent) are wasted.
      {"POLICY 0 gives each of N slots its turn and wastes the idle ones",
       SharingPolicy::kFixedEqual,
       1 * kMs,
       0,
       4,
       2,
       {{0, 0, 2e6}, {1, 0, 1e6}},
       {5 * kMs, 2 * kMs},
       0},
      // POLICY 0, N = |P| = 2, slots of 1 ms then 0.25 ms switching: pod 0 [0, 1), [2.5, 3.5).
      {"POLICY 0 switches between every two slots",
       SharingPolicy::kFixedEqual,
       1 * kMs,
       kMs / 4,
       0,
       2,
       {{0, 0, 2e6}},
       {3'500'000},
       0.5},
  };
  for (const SliceCase& c : cases) {
    CAPTURE(c.rule);
    const Scenario scenario = SlicedCard(c.policy, c.quantum, c.switch_cost, c.max_inst);
    EngineState s(scenario, 1, RunOptions{});
    CardSharing sharing(s);
    REQUIRE(sharing.cards[0].sliced);
    JoinPods(s, sharing, c.pods);
    const Outcome out = RunCard(s, sharing, c.starts);
    CHECK(out.finish == c.finish);
    s.now = 10 * kMs;
    sharing.AdvanceCard(0);
    CHECK(sharing.cards[0].switch_ns == doctest::Approx(c.switch_ms * 1e6));
  }
}

TEST_CASE("slice mode: a lone pod on a card schedules no slice end") {
  const Scenario scenario = SlicedCard(SharingPolicy::kNative, kMs, kMs / 10);
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  JoinPods(s, sharing, 1);
  const Outcome out = RunCard(s, sharing, {{0, 0, 7e6}, {0, 1 * kMs, 1e6}});
  CHECK(out.slice_ends == 0);
  // Two jobs of one pod share its progress as in the fluid model: 1 ms alone, then 1 ms each at
  // half speed, then the rest alone.
  CHECK(out.finish == std::vector<SimTime>{8 * kMs, 3 * kMs});
}

TEST_CASE("slice mode: a multi-card pod progresses only while it holds all its cards") {
  Scenario scenario = SlicedCard(SharingPolicy::kNative, kMs, 0);
  scenario.node_pools[0].gpus_per_node = 2;
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  REQUIRE(sharing.cards.size() == 2);
  // Pod 0 on card 1 first, then pod 1 on both cards, then pod 2 on card 0: card 0 runs pods 1
  // and 2 in turn, card 1 pods 0 and 1.
  for (const std::vector<int32_t>& cards : {std::vector<int32_t>{1}, {0, 1}, {0}}) {
    PodRun pod;
    pod.cards.assign(cards.begin(), cards.end());
    pod.share_on.assign(cards.size(), 0.0);
    pod.percent = 100;
    s.pods.push_back(pod);
    const auto p = static_cast<int32_t>(s.pods.size() - 1);
    sharing.Touch(p);
    sharing.JoinCards(p);
  }
  // [0, 1): card 1 runs pod 0 (done), card 0 pod 1 — which holds card 0 only: no progress.
  // [1, 2): card 1 goes to pod 1, card 0 to pod 2 (done at 2). From 2 pod 1 holds both.
  const Outcome split = RunCard(s, sharing, {{0, 0, 1e6}, {1, 0, 1e6}, {2, 0, 1e6}});
  CHECK(split.finish == std::vector<SimTime>{1 * kMs, 3 * kMs, 2 * kMs});
}

TEST_CASE("slice mode: without time_slice every card stays fluid") {
  Scenario scenario = SlicedCard(SharingPolicy::kNative, kMs, 0);
  scenario.cluster.time_slice = TimeSliceKnobs{};
  EngineState s(scenario, 1, RunOptions{});
  CardSharing sharing(s);
  CHECK_FALSE(sharing.cards[0].sliced);
}

}  // namespace
}  // namespace knobsim::engine
