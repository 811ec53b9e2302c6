// EventLookahead: while one event runs, asks the caches for the records the next three will read.
//
// Why: on a large cluster the run's records no longer fit the caches, and every event reads
// chains of them, each link a cache miss that waits on the one before: an arrival its stream,
// its workload's run state, spec and metrics, the Ready list, then the pod it is routed to; a
// card's completion the card, the pods sharing it, their top jobs and their workloads (issue 23;
// docs/benchmarks.md "Cost per request and cluster size"). The agenda already knows the next
// events, so the links are asked for in stages one event apart — the third event's first
// records, the second event's next ones (read from the first, now cached), the next event's last
// ones — and each miss overlaps the work of the events before.
//
// Only on large clusters: while the pods' and cards' tables fit in a few MiB of cache the misses
// are few and looking ahead costs more than it saves (+15 % per request at 100 nodes of
// bench/cluster_size_bench, -19 % at 1 000, -35 % at 5 000), so it runs from
// RunOptions::lookahead_min_bytes of those tables on (4 MiB, a few times a server core's L2
// cache: about 480 nodes of the benchmark's shape, 12 pods and 4 cards a node).
//
// Hints only: nothing here writes the run's state or draws from its streams (the route is
// predicted on a copy of the routing stream), and a wrong guess costs a wasted prefetch, never a
// different result. Events pushed while one runs are seen one stage later, or not at all.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/engine/card_sharing.h"
#include "sim/engine/engine_state.h"
#include "sim/engine/run_recorder.h"
#include "sim/event_queue.h"

namespace knobsim::engine {

class EventLookahead {
 public:
  EventLookahead(const EngineState& state, const CardSharing& sharing, const RunRecorder& recorder);

  // Called after popping an event, before it runs: looks at the next three on the agenda.
  void Ahead() {
    if (s_.pods.size() * sizeof(PodRun) + sharing_.cards.size() * sizeof(CardRun) >=
        s_.options.lookahead_min_bytes)
      LookAhead();
  }

 private:
  void LookAhead();
  // Stage one: the records the event names (its stream and workload; its card; its request).
  void First(const Event& e) const;
  // Stage two: what those lead to (the Ready slot the route will draw; the card's pods).
  void Second(const Event& e);
  // Stage three: the last links (the routed pod; the pods' top jobs and their workloads).
  void Third(const Event& e) const;
  // The workload's run state, the spec's request-flow fields and its metrics.
  void Workload(int32_t w) const;

  const EngineState& s_;
  const CardSharing& sharing_;
  const RunRecorder& recorder_;
  // The Ready slot stage two predicted for the arrival with this sequence number.
  uint64_t routed_seq_ = ~uint64_t{0};
  size_t routed_slot_ = 0;
};

}  // namespace knobsim::engine
