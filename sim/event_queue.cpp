#include "sim/event_queue.h"

#include <algorithm>

namespace knobsim {

// A 4-ary heap: children of i are 4i+1 .. 4i+4. Versus a binary heap it halves the depth and
// keeps the four children of a node in two cache lines (Event is 32 bytes), which is where the
// time goes once the agenda outgrows L1. Both sifts carry the moving event in registers and
// move a hole, so each level costs one copy, and the event is never stored only to be read
// straight back (on the pop-push chain of a simulation that round trip dominated small queues).
namespace {

constexpr size_t kArity = 4;

// The order of EventQueue::Before without short-circuit branches, so that choosing among
// children compiles to conditional moves: which child is earliest is a coin toss on random
// times, and a mispredicted branch per child costs more than the comparisons themselves.
inline bool Earlier(const Event& a, const Event& b) {
  return (a.time < b.time) | ((a.time == b.time) & (a.seq < b.seq));
}

// Places `moving` at hole i or above. By value: the caller's copy may live in the slot that the
// first move overwrites.
inline void SiftUpFrom(Event* h, size_t i, Event moving) {
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!Earlier(moving, h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = moving;
}

// Places `moving` at hole i or below, in a heap of n events.
inline void SiftDownFrom(Event* h, size_t n, size_t i, Event moving) {
  for (;;) {
    const size_t first = i * kArity + 1;
    size_t best;
    if (first + kArity <= n) {
      // A full family, the common case: a two-round tournament keeps the choices independent.
      const size_t a = first + Earlier(h[first + 1], h[first]);
      const size_t b = first + 2 + Earlier(h[first + 3], h[first + 2]);
      best = Earlier(h[b], h[a]) ? b : a;
    } else if (first < n) {
      best = first;
      for (size_t c = first + 1; c < n; ++c) best = Earlier(h[c], h[best]) ? c : best;
    } else {
      break;
    }
    if (!Earlier(h[best], moving)) break;
    h[i] = h[best];
    i = best;
  }
  h[i] = moving;
}

}  // namespace

void EventQueue::Push(SimTime time, uint32_t kind, uint32_t target, uint32_t generation) {
  const Event moving{time, next_seq_++, kind, target, generation};
  heap_.emplace_back();  // the hole at the end; SiftUpFrom fills it or a slot above
  SiftUpFrom(heap_.data(), heap_.size() - 1, moving);
}

Event EventQueue::Pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) SiftDownFrom(heap_.data(), heap_.size(), 0, last);
  return top;
}

size_t EventQueue::Upcoming(std::span<const Event*, 3> next) const {
  const Event* h = heap_.data();
  const size_t n = heap_.size();
  if (n == 0) return 0;
  next[0] = h;
  if (n == 1) return 1;
  // The second is the earliest of the root's children; the third, the earliest of the root's
  // other children and the second's children.
  const size_t root_children = std::min(n, kArity + 1);
  size_t second = 1;
  for (size_t c = 2; c < root_children; ++c) second = Earlier(h[c], h[second]) ? c : second;
  next[1] = h + second;
  if (n == 2) return 2;
  const Event* third = nullptr;
  for (size_t c = 1; c < root_children; ++c)
    if (c != second && (third == nullptr || Earlier(h[c], *third))) third = h + c;
  for (size_t c = second * kArity + 1; c < n && c <= second * kArity + kArity; ++c)
    if (third == nullptr || Earlier(h[c], *third)) third = h + c;
  next[2] = third;
  return 3;
}

void EventQueue::Clear() {
  // Keeps the capacity: a queue reused across replications should not regrow.
  heap_.clear();
  next_seq_ = 0;
}

void EventQueue::SiftUp(size_t i) {
  SiftUpFrom(heap_.data(), i, heap_[i]);
}

void EventQueue::SiftDown(size_t i) {
  SiftDownFrom(heap_.data(), heap_.size(), i, heap_[i]);
}

}  // namespace knobsim
