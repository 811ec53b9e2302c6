// EventQueue: the simulation's one agenda, a 4-ary min-heap of small plain records.
//
// Time is an integer count of nanoseconds. Events at the same instant pop in insertion order
// (a sequence number breaks ties), so runs are bit-for-bit reproducible. Cancellation is by
// generation: an event carries the generation its target had when it was scheduled; the owner
// bumps the target's generation to cancel, and the loop drops events whose generation is stale.
// No virtual call and no allocation per event once the heap has grown to its working size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/huge_pages.h"

namespace knobsim {

using SimTime = int64_t;  // nanoseconds since the start of the run

constexpr SimTime kNanosPerSecond = 1'000'000'000;
constexpr SimTime kNanosPerMilli = 1'000'000;

struct Event {
  SimTime time = 0;
  uint64_t seq = 0;         // insertion order, the tie-break at equal times
  uint32_t kind = 0;        // what happens (the simulation's own enum)
  uint32_t target = 0;      // which entity (index into the simulation's tables)
  uint32_t generation = 0;  // the target's generation when scheduled (for cancellation)
};

class EventQueue {
 public:
  void Push(SimTime time, uint32_t kind, uint32_t target, uint32_t generation = 0);
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  // The next events in pop order, as long as nothing is pushed first: top(), then the one
  // after it, then the one after that; fills `next` with up to three and returns how many (0
  // when empty). For looking ahead (sim/engine/lookahead.h): a few comparisons, no change.
  size_t Upcoming(std::span<const Event*, 3> next) const;
  Event Pop();
  void Clear();
  void Reserve(size_t n) { heap_.reserve(n); }

 private:
  static bool Before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void SiftUp(size_t i);
  void SiftDown(size_t i);

  HugeVector<Event> heap_;  // large agendas on huge pages (sim/huge_pages.h)
  uint64_t next_seq_ = 0;
};

}  // namespace knobsim
