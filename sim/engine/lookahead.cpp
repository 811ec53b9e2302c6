#include "sim/engine/lookahead.h"

#include "sim/prefetch.h"

namespace knobsim::engine {

namespace {

template <class T>
constexpr int LinesOf() {
  return static_cast<int>((sizeof(T) + 63) / 64);
}

// What a PodRun's request flow reads: progress and queue, the service heap, cards and shares,
// memory (engine_state.h: its lines 0-3).
constexpr int kPodLines = 4;

}  // namespace

EventLookahead::EventLookahead(const EngineState& state, const CardSharing& sharing,
                               const RunRecorder& recorder)
    : s_(state), sharing_(sharing), recorder_(recorder) {}

void EventLookahead::LookAhead() {
  const Event* next[3] = {};
  const size_t n = s_.queue.Upcoming(next);
  // The next event first: its stage three reads the slot stage two predicted for it an event
  // ago, before stage two predicts the one for the event after it.
  if (n > 0) Third(*next[0]);
  if (n > 1) Second(*next[1]);
  if (n > 2) First(*next[2]);
}

void EventLookahead::Workload(int32_t w) const {
  const auto index = static_cast<size_t>(w);
  PrefetchLines(&s_.workloads[index], LinesOf<WorkloadRun>());
  // The spec's fields of the request flow, from the work model to the routing (two lines).
  PrefetchLines(&s_.scenario.workloads[index].work, 2);
  recorder_.Prefetch(w);
}

void EventLookahead::First(const Event& e) const {
  switch (e.kind) {
    case kArrival:
      PrefetchLines(&s_.streams[e.target], LinesOf<ArrivalStream>());
      Workload(static_cast<int32_t>(e.generation));  // an arrival names its workload
      break;
    case kCardCompletion:
      PrefetchLines(&sharing_.cards[e.target], LinesOf<CardRun>());
      break;
    case kCpuBeforeDone:
    case kCpuAfterDone:
    case kTimeout:
      PrefetchLines(&s_.requests[e.target], LinesOf<Request>());
      break;
    default:
      break;
  }
}

void EventLookahead::Second(const Event& e) {
  switch (e.kind) {
    case kArrival: {
      // The Ready slot Route will draw (RouteToOwnPod's streams have their pod already).
      const ArrivalStream& stream = s_.streams[e.target];
      const WorkloadRun& w = s_.workloads[static_cast<size_t>(stream.workload)];
      if (stream.replica >= 0 || w.ready.empty()) break;
      if (w.spec->routing == Routing::kRandom) {
        RandomStream draw = w.route_stream;  // a copy: Route draws from the stream itself
        routed_slot_ = draw.Below(w.ready.size());
      } else if (w.spec->routing == Routing::kRoundRobin) {
        routed_slot_ = w.round_robin % w.ready.size();
      } else {
        break;  // least outstanding: reads every Ready pod
      }
      routed_seq_ = e.seq;
      Prefetch(&w.ready[routed_slot_]);
      break;
    }
    case kCardCompletion: {
      const CardRun& card = sharing_.cards[e.target];
      if (card.generation != e.generation) break;  // stale: dropped unread
      for (const int32_t p : card.running) PrefetchLines(&s_.pods[p], kPodLines);
      break;
    }
    case kCpuBeforeDone:
    case kCpuAfterDone:
    case kTimeout: {
      const Request& request = s_.requests[e.target];
      if (request.generation == e.generation && request.pod != kNone)
        PrefetchLines(&s_.pods[request.pod], kPodLines);
      break;
    }
    default:
      break;
  }
}

void EventLookahead::Third(const Event& e) const {
  switch (e.kind) {
    case kArrival: {
      const ArrivalStream& stream = s_.streams[e.target];
      int32_t p = kNone;
      if (stream.replica >= 0) {
        p = stream.pod;
      } else if (routed_seq_ == e.seq) {
        const WorkloadRun& w = s_.workloads[static_cast<size_t>(stream.workload)];
        if (routed_slot_ < w.ready.size()) p = w.ready[routed_slot_];
      }
      if (p != kNone) PrefetchLines(&s_.pods[p], kPodLines);
      break;
    }
    case kCardCompletion: {
      // The jobs that may complete: each busy pod's top one, and its workload's records.
      const CardRun& card = sharing_.cards[e.target];
      if (card.generation != e.generation) break;
      for (const int32_t p : card.running) {
        const PodRun& pod = s_.pods[p];
        if (pod.jobs == 0 || pod.service.empty()) continue;
        Prefetch(&s_.jobs[pod.service.front().job]);
        Workload(pod.workload);
      }
      break;
    }
    default:
      break;
  }
}

}  // namespace knobsim::engine
