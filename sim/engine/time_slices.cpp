#include "sim/engine/time_slices.h"

#include <algorithm>
#include <cassert>

namespace knobsim::engine {

TimeSlices::TimeSlices(EngineState& state, TimeSliceKnobs knobs, size_t cards)
    : s_(state), knobs_(knobs) {
  if (knobs_.enabled()) runs_.resize(cards);
}

int TimeSlices::IndexOf(const CardRun& card, int32_t p) {
  const auto it = std::find(card.running.begin(), card.running.end(), p);
  return it == card.running.end() ? -1 : static_cast<int>(it - card.running.begin());
}

int TimeSlices::NextActive(const CardRun& card, int from) {
  const int n = static_cast<int>(card.running.size());
  for (int k = 0; k < n; ++k) {
    const int i = (from + k) % n;
    if (card.view[i].active) return i;
  }
  return -1;
}

void TimeSlices::Run(const CardRun& card, SliceRun& r) {
  r.switching = false;
  r.last = r.holder;
  r.since = s_.now;
  r.until = card.active >= 2 ? s_.now + knobs_.quantum : -1;
}

void TimeSlices::HandOver(const CardRun& card, SliceRun& r, int next) {
  r.holder = card.running[next];
  r.at = next;
  if (r.last != kNone && r.last != r.holder && knobs_.switch_cost > 0) {
    r.switching = true;
    r.until = s_.now + knobs_.switch_cost;
  } else {
    Run(card, r);
  }
}

void TimeSlices::RoundRobin(CardRun& card, SliceRun& r) {
  const SimTime now = s_.now;
  if (card.active == 0) {
    r = SliceRun{kNone, r.at, kNone, false, 0, -1, r.scheduled, r.generation};
    return;
  }
  const int n = static_cast<int>(card.running.size());
  const int h = r.holder == kNone ? -1 : IndexOf(card, r.holder);
  // The place of the last turn; the pods after a holder that left P moved up into it.
  const int place = r.at < n ? r.at : 0;
  if (r.holder == kNone) {
    // The card was idle: the first active pod from the last turn's place in the order.
    HandOver(card, r, NextActive(card, place));
  } else if (h < 0 || !card.view[h].active) {
    // The holder went idle or left P: the next active pod after it takes the turn. A switch
    // under way goes on to it (the switch began when the last pod stopped).
    const int next = NextActive(card, h >= 0 ? (h + 1) % n : place);
    if (r.switching && card.running[next] != r.last) {
      r.holder = card.running[next];
      r.at = next;
    } else {
      HandOver(card, r, next);
    }
  } else if (r.switching) {
    if (now >= r.until) Run(card, r);
  } else if (card.active < 2) {
    r.until = -1;  // alone: no slice ends
  } else if (r.until < 0) {
    // A second pod became active: it waits for the end of the holder's current slice (a lone
    // holder's slices run on, each restarting at once).
    r.until = r.since + ((now - r.since) / knobs_.quantum + 1) * knobs_.quantum;
  } else if (now >= r.until) {
    HandOver(card, r, NextActive(card, (h + 1) % n));
  }
  r.at = r.holder == kNone ? r.at : IndexOf(card, r.holder);
  if (!r.switching) card.shares[static_cast<size_t>(r.at)] = 1;
  card.eta = r.switching ? 0.0 : 1.0;
}

void TimeSlices::FixedSlots(CardRun& card, SliceRun& r) {
  const int64_t n = static_cast<int64_t>(card.running.size());
  const int64_t slots = std::max<int64_t>(card.params.max_inst, n);
  if (card.active == 0 || slots == 1) {
    r.until = -1;
    for (size_t i = 0; i < card.shares.size(); ++i) card.shares[i] = card.view[i].active ? 1 : 0;
    return;
  }
  const SimTime period = knobs_.quantum + knobs_.switch_cost;
  const SimTime turn = s_.now / period;
  const SimTime start = turn * period;
  const int64_t slot = turn % slots;
  if (s_.now < start + knobs_.quantum) {
    if (slot < n && card.view[static_cast<size_t>(slot)].active)
      card.shares[static_cast<size_t>(slot)] = 1;
    r.until = start + knobs_.quantum;
  } else {
    card.eta = 0;
    r.until = start + period;
  }
}

void TimeSlices::Share(int32_t c, CardRun& card) {
  SliceRun& r = runs_[c];
  std::fill(card.shares.begin(), card.shares.end(), 0.0);
  card.eta = 1;
  if (card.params.policy == SharingPolicy::kFixedEqual) {
    FixedSlots(card, r);
  } else {
    assert(card.params.policy == SharingPolicy::kNative);
    RoundRobin(card, r);
  }
}

void TimeSlices::Schedule(int32_t c) {
  SliceRun& r = runs_[c];
  if (r.until == r.scheduled) return;
  ++r.generation;
  r.scheduled = r.until;
  if (r.until >= 0) s_.queue.Push(r.until, kSliceEnd, static_cast<uint32_t>(c), r.generation);
}

void TimeSlices::Delay(int32_t c, SimTime at) {
  SliceRun& r = runs_[c];
  r.until = at;
  r.scheduled = at;
  s_.queue.Push(at, kSliceEnd, static_cast<uint32_t>(c), r.generation);
}

}  // namespace knobsim::engine
