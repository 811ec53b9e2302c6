// TimeSlices: slice mode (cluster.time_slice, docs/semantics.md §2.9) — explicit round-robin time
// slices on the cards that native time-slicing or POLICY 0 shares, in place of the fluid split.
//
// A sliced card runs one pod at a time: the holder's share is 1, every other pod's 0, so its k
// jobs in service progress at speed / k while it holds the card (CardSharing's rates, unchanged);
// between two pods the card spends `switch_cost` with no progress (eta 0 then, which the card's
// switch-overhead metric integrates).
//  * Native time-slicing (POLICY 5 and every card without cGPU): round robin over the active pods
//    in the card's P order. With two or more active the holder runs for up to `quantum`, then the
//    card switches to the next active pod. A holder that goes idle (or leaves P) gives up the rest
//    of its slice at once. One active pod runs alone with no slice-end event, but its slices run
//    on: a pod that becomes active waits for the end of the current one. A hand-over costs
//    `switch_cost` only from a pod that ran up to that moment: a card that idled in between
//    switches for free **[assumption: the switch overlaps the idle time]**.
//  * POLICY 0: N = max(max_inst, |P|) fixed slots, slot i the i-th pod of P, in turns of
//    `quantum` each followed by `switch_cost`, on a clock anchored at t = 0; a slot whose pod is
//    idle (or that holds no pod) is wasted. The card keeps no state: its schedule is a function of
//    the time. N = 1: the one pod holds the card.
// A multi-card pod progresses only while it holds every one of its cards (its share is the
// minimum, as in the fluid model): the cards' round robins are not coordinated, as CUDA's are
// not, and a kernel waiting on a peer card holds its slice.
//
// CardSharing::Flush calls Share for a sliced card whose state changed (its P, its active pods, or
// a slice's end) and Schedule after; the kernel calls EndSlice at each kSliceEnd event.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/engine_state.h"

namespace knobsim::engine {

class TimeSlices {
 public:
  TimeSlices(EngineState& state, TimeSliceKnobs knobs, size_t cards);

  // The card's shares now (card.view and card.active current): moves the round robin on (a holder
  // that went idle or whose slice ended hands over) and writes card.shares and card.eta.
  void Share(int32_t c, CardRun& card);
  // Keeps the card's one kSliceEnd event at the end of its current slice or switch.
  void Schedule(int32_t c);
  // A kSliceEnd event of `generation` fired: whether it is the card's current one (then none is
  // scheduled any more).
  bool Fire(int32_t c, uint32_t generation) {
    SliceRun& r = runs_[c];
    if (r.generation != generation || r.scheduled < 0) return false;
    r.scheduled = -1;
    return true;
  }
  // The fired slice end happens again at `at` instead (the same generation).
  void Delay(int32_t c, SimTime at);

 private:
  struct SliceRun {
    int32_t holder = kNone;  // the pod whose turn it is (running, or being switched to)
    int32_t at = 0;          // its index in card.running when its turn came (a pod that leaves)
    int32_t last = kNone;    // the pod that ran last with no idle card since
    bool switching = false;
    SimTime since = 0;   // when the holder began to run (its slices count from there)
    SimTime until = -1;  // end of the current slice or switch; -1: none (idle, or one pod alone)
    SimTime scheduled = -1;
    uint32_t generation = 0;
  };
  void RoundRobin(CardRun& card, SliceRun& r);
  void FixedSlots(CardRun& card, SliceRun& r);
  // The turn passes to card.running[next]; a switch from the pod that ran last costs switch_cost.
  void HandOver(const CardRun& card, SliceRun& r, int next);
  void Run(const CardRun& card, SliceRun& r);
  // The first active pod of card.running from index `from` on, cyclically (-1: none).
  static int NextActive(const CardRun& card, int from);
  static int IndexOf(const CardRun& card, int32_t p);

  EngineState& s_;
  TimeSliceKnobs knobs_;
  std::vector<SliceRun> runs_;
};

}  // namespace knobsim::engine
