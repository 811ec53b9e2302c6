#include "sim/event_queue.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace knobsim {
namespace {

TEST_CASE("events pop in time order whatever the push order") {
  EventQueue q;
  const SimTime times[] = {50, 10, 40, 30, 20, 0, 70, 60};
  for (uint32_t i = 0; i < 8; ++i) q.Push(times[i], 0, i);
  CHECK(q.size() == 8);
  SimTime last = -1;
  while (!q.empty()) {
    CHECK(q.top().time >= last);
    Event e = q.Pop();
    CHECK(e.time == times[e.target]);
    last = e.time;
  }
  CHECK(last == 70);
}

TEST_CASE("events at the same instant pop in insertion order") {
  EventQueue q;
  // Many ties at a few instants, pushed interleaved, so the heap has to reorder ties that sit in
  // different subtrees; only the sequence number can put them back in insertion order.
  constexpr uint32_t kPerInstant = 1000;
  for (uint32_t i = 0; i < kPerInstant; ++i) {
    for (SimTime t : {SimTime{30}, SimTime{10}, SimTime{20}}) q.Push(t, 0, i);
  }
  for (SimTime t : {SimTime{10}, SimTime{20}, SimTime{30}}) {
    for (uint32_t i = 0; i < kPerInstant; ++i) {
      Event e = q.Pop();
      REQUIRE(e.time == t);
      REQUIRE(e.target == i);
    }
  }
  CHECK(q.empty());
}

TEST_CASE("the payload travels with the event") {
  EventQueue q;
  q.Push(5, 7, 11, 13);
  Event e = q.Pop();
  CHECK(e.time == 5);
  CHECK(e.kind == 7);
  CHECK(e.target == 11);
  CHECK(e.generation == 13);
}

TEST_CASE("interleaved pushes and pops match a stable sorted model") {
  // std::multimap keeps equal keys in insertion order, exactly the contract of the queue.
  std::mt19937_64 rng(20240611);
  for (SimTime time_range : {SimTime{8}, SimTime{1000}, SimTime{1} << 40}) {
    EventQueue q;
    std::multimap<SimTime, uint32_t> model;
    SimTime now = 0;
    uint32_t next_id = 0;
    for (int step = 0; step < 200000; ++step) {
      // Push-heavy at first, pop-heavy later, so the heap grows, churns and drains.
      uint64_t push_weight = step < 100000 ? 6 : 3;
      if (model.empty() || rng() % 10 < push_weight) {
        // Never schedule in the past, as the simulation never does.
        SimTime t = now + static_cast<SimTime>(rng() % static_cast<uint64_t>(time_range));
        q.Push(t, 0, next_id);
        model.emplace(t, next_id);
        ++next_id;
      } else {
        Event e = q.Pop();
        auto it = model.begin();
        REQUIRE(e.time == it->first);
        REQUIRE(e.target == it->second);
        model.erase(it);
        now = e.time;
      }
      REQUIRE(q.size() == model.size());
    }
    while (!model.empty()) {
      Event e = q.Pop();
      REQUIRE(e.time == model.begin()->first);
      REQUIRE(e.target == model.begin()->second);
      model.erase(model.begin());
    }
    CHECK(q.empty());
  }
}

TEST_CASE("Upcoming names the next three events in pop order") {
  // Random times with many ties, at every queue size from empty to a few levels deep: the
  // events Upcoming names are the ones a copy of the queue pops next.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<SimTime> time(0, 40);
  EventQueue q;
  for (uint32_t i = 0; i < 300; ++i) {
    const Event* next[3] = {};
    const size_t n = q.Upcoming(next);
    REQUIRE(n == std::min<size_t>(q.size(), 3));
    EventQueue copy = q;
    for (size_t k = 0; k < n; ++k) {
      const Event popped = copy.Pop();
      REQUIRE(next[k]->seq == popped.seq);
    }
    // Mostly pushes, some pops, so the heap grows and shrinks through every shape.
    if (i % 4 == 3 && !q.empty()) {
      q.Pop();
    } else {
      q.Push(time(rng), 0, i);
    }
  }
}

TEST_CASE("a stale generation lets the owner drop a cancelled event") {
  // The owner keeps one generation per target and bumps it to cancel whatever is scheduled for
  // that target; the loop skips events whose generation no longer matches.
  enum Kind : uint32_t { kCompletion = 1 };
  std::vector<uint32_t> generation(2, 0);
  EventQueue q;
  q.Push(100, kCompletion, 0, generation[0]);
  q.Push(200, kCompletion, 1, generation[1]);
  // Something changed on target 0 at t = 50: cancel its completion and schedule a later one.
  ++generation[0];
  q.Push(300, kCompletion, 0, generation[0]);

  std::vector<std::pair<SimTime, uint32_t>> fired;
  while (!q.empty()) {
    Event e = q.Pop();
    if (e.generation != generation[e.target]) continue;
    fired.emplace_back(e.time, e.target);
  }
  REQUIRE(fired.size() == 2);
  CHECK(fired[0] == std::pair<SimTime, uint32_t>{200, 1});
  CHECK(fired[1] == std::pair<SimTime, uint32_t>{300, 0});
}

TEST_CASE("Clear empties the queue and restarts the sequence") {
  EventQueue q;
  for (uint32_t i = 0; i < 100; ++i) q.Push(i % 7, 0, i);
  q.Clear();
  CHECK(q.empty());
  CHECK(q.size() == 0);
  q.Push(3, 0, 1);
  q.Push(3, 0, 2);
  Event first = q.Pop();
  CHECK(first.seq == 0);
  CHECK(first.target == 1);
  CHECK(q.Pop().target == 2);
  CHECK(q.empty());
}

TEST_CASE("a reused queue replays the same order after Clear") {
  // Replications reuse one queue; the order must not depend on what ran before.
  auto run = [](EventQueue& q) {
    for (uint32_t i = 0; i < 50; ++i) q.Push((i * 37) % 11, 0, i);
    std::vector<uint32_t> order;
    while (!q.empty()) order.push_back(q.Pop().target);
    return order;
  };
  EventQueue q;
  auto first = run(q);
  q.Push(1, 0, 999);  // leftovers from an earlier run
  q.Clear();
  CHECK(run(q) == first);
}

}  // namespace
}  // namespace knobsim
