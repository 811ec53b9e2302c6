#include "sim/replay/timed.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace knobsim::replay {

using fgd::CardsFit;
using fgd::FragExceptQ3;
using fgd::FragTotal;
using fgd::FragVector;
using fgd::GoRand;
using fgd::kMaxPodsPerNode;
using fgd::NodeState;
using fgd::PodRequest;
using fgd::PolicyKind;

namespace {

// Trace times beyond this (about 126 years) could overflow the nanosecond clock once a
// lifetime is added; no real trace comes near.
constexpr int64_t kMaxTraceSeconds = 4'000'000'000;

struct PodTimes {
  SimTime arrive = 0;
  std::optional<SimTime> depart;
};

PodTimes TimesOf(const TracePod& pod, double compress) {
  PodTimes t;
  const int64_t created = pod.creation_time.value_or(0);
  t.arrive = compress == 1 ? created * kNanosPerSecond
                           : static_cast<SimTime>(std::llround(static_cast<double>(created) *
                                                               kNanosPerSecond / compress));
  if (pod.deletion_time) {
    const int64_t lifetime = std::max<int64_t>(0, *pod.deletion_time - created);
    t.depart = t.arrive + lifetime * kNanosPerSecond;
  }
  return t;
}

enum EventKind : uint32_t { kArrive, kDepart };
enum class State : uint8_t { kWaiting, kPending, kRunning, kGone };

class TimedReplayer {
 public:
  TimedReplayer(const Workload& w, PolicyKind policy, int64_t seed, const TimedOptions& options)
      : w_(w),
        options_(options),
        rng_(seed),
        rank_(rng_.Perm(static_cast<int>(w.nodes.size()))),
        placer_(w, policy, rank_, rng_) {
    const size_t n = w.pods.size();
    state_.assign(n, State::kWaiting);
    placement_.assign(n, Placer::Placement{});
    arrival_.assign(n, 0);
  }

  TimedResult Run() {
    Schedule();
    SimTime next_sample = 0;
    while (!queue_.empty() && (options_.until <= 0 || queue_.top().time <= options_.until)) {
      const SimTime now = queue_.top().time;
      for (; next_sample < now; next_sample += options_.interval) Sample(next_sample);
      const Event e = queue_.Pop();
      Accumulate(now);
      result_.end = now;
      if (e.kind == kArrive) {
        Arrive(now, static_cast<int>(e.target));
      } else {
        Depart(now, static_cast<int>(e.target));
      }
      result_.peak_used = std::max(result_.peak_used, placer_.used());
      result_.peak_pending = std::max(result_.peak_pending, pending_count_);
    }
    const SimTime stop = options_.until > 0 ? options_.until : result_.end;
    Accumulate(stop);
    if (options_.until > 0) {
      for (; next_sample <= options_.until; next_sample += options_.interval) Sample(next_sample);
    } else {
      Sample(next_sample);  // the first sample at or after the last event: the final state
    }
    result_.pending_at_end = pending_count_;
    if (stop > result_.first_arrival) {
      const double length = static_cast<double>(stop - result_.first_arrival);
      result_.averages = {integral_.used / length, integral_.frag / length,
                          integral_.pending / length};
    } else {
      Snapshot(&result_.averages);  // everything at one instant: the state it leaves
    }
    return std::move(result_);
  }

 private:
  void Snapshot(TimedAverages* state) const {
    state->used = static_cast<double>(placer_.used());
    state->frag = FragExceptQ3(placer_.frag());
    state->pending = pending_count_;
  }

  // Adds the state held since the previous event, up to `until`, to the averages' integrals
  // (which start at the first arrival).
  void Accumulate(SimTime until) {
    const SimTime from = std::max(integrated_to_, result_.first_arrival);
    integrated_to_ = until;
    if (until <= from) return;
    TimedAverages state;
    Snapshot(&state);
    const double dt = static_cast<double>(until - from);
    integral_.used += dt * state.used;
    integral_.frag += dt * state.frag;
    integral_.pending += dt * state.pending;
  }

  // Every event goes on the agenda up front, in the order events at one instant must run
  // (timed.h): the queue keeps insertion order between equal times.
  void Schedule() {
    struct Item {
      SimTime time;
      int order;  // 0: departure of an earlier arrival, 1: arrival, 2: departure at arrival
      int pod;
      EventKind kind;
    };
    std::vector<Item> items;
    items.reserve(2 * w_.pods.size());
    for (size_t p = 0; p < w_.pods.size(); ++p) {
      const PodTimes t = TimesOf(w_.pods[p], options_.compress);
      const int pod = static_cast<int>(p);
      items.push_back({t.arrive, 1, pod, kArrive});
      if (t.depart) items.push_back({*t.depart, *t.depart == t.arrive ? 2 : 0, pod, kDepart});
    }
    // Pods sit in name order, so the pod index breaks the remaining ties by name.
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      if (a.time != b.time) return a.time < b.time;
      if (a.order != b.order) return a.order < b.order;
      return a.pod < b.pod;
    });
    for (const Item& i : items) {  // in time order
      if (i.kind == kArrive) {
        result_.first_arrival = i.time;
        break;
      }
    }
    queue_.Reserve(items.size());
    for (const Item& i : items) queue_.Push(i.time, i.kind, static_cast<uint32_t>(i.pod));
  }

  void Arrive(SimTime now, int p) {
    ++result_.arrived;
    arrival_[p] = now;
    const Placer::Placement placement = placer_.Place(p);
    if (placement.node >= 0) {
      Start(p, placement);
      ++result_.placed_at_once;
      Step(now, StepKind::kPlaced, p, placement.node);
    } else {
      state_[p] = State::kPending;
      pending_.push_back(p);
      ++pending_count_;
      pending_gpu_ += w_.requests[p].gpu_request();
      Step(now, StepKind::kPending, p, -1);
    }
  }

  void Depart(SimTime now, int p) {
    if (state_[p] == State::kPending) {
      // Deleted while waiting: it leaves the queue (and pending_, at the next retry pass).
      state_[p] = State::kGone;
      --pending_count_;
      pending_gpu_ -= w_.requests[p].gpu_request();
      ++result_.withdrawn;
      Step(now, StepKind::kWithdrawn, p, -1);
      return;
    }
    if (state_[p] != State::kRunning) return;
    const int node = placement_[p].node;
    placer_.Release(p, placement_[p]);
    state_[p] = State::kGone;
    --running_;
    Step(now, StepKind::kDeparted, p, node);
    Retry(now, node);
  }

  // The retry rule (timed.h): every Pending pod in arrival order, through the full pipeline;
  // only the node just freed can have become feasible, so a pod that does not fit there is
  // passed over without scoring.
  void Retry(SimTime now, int freed) {
    size_t keep = 0;
    for (size_t i = 0; i < pending_.size(); ++i) {
      const int p = pending_[i];
      if (state_[p] != State::kPending) continue;  // withdrawn
      if (options_.retry_all || placer_.Fits(p, freed)) {
        const Placer::Placement placement = placer_.Place(p);
        if (placement.node >= 0) {
          --pending_count_;
          pending_gpu_ -= w_.requests[p].gpu_request();
          Start(p, placement);
          ++result_.placed_after_wait;
          result_.wait_seconds += static_cast<double>(now - arrival_[p]) / kNanosPerSecond;
          Step(now, StepKind::kRetried, p, placement.node);
          continue;
        }
      }
      pending_[keep++] = p;
    }
    pending_.resize(keep);
  }

  void Start(int p, const Placer::Placement& placement) {
    state_[p] = State::kRunning;
    placement_[p] = placement;
    ++running_;
  }

  void Step(SimTime now, StepKind kind, int p, int node) {
    if (options_.record_steps) result_.steps.push_back({now, kind, p, node});
  }

  void Sample(SimTime time) {
    TimedSample s;
    s.time = time;
    s.running = running_;
    s.pending = pending_count_;
    s.used = placer_.used();
    s.pending_gpu = pending_gpu_;
    const FragVector& frag = placer_.frag();
    s.frag = FragExceptQ3(frag);
    s.idle = FragTotal(frag);
    if (pending_count_ > 0) {
      // Pods of one type and memory have one reason; it holds until the cluster changes.
      if (placer_.changes() != reasons_at_) {
        reasons_.clear();
        reasons_at_ = placer_.changes();
      }
      for (int p : pending_) {
        if (state_[p] != State::kPending) continue;
        const auto key = std::make_pair(w_.pod_type[p], w_.requests[p].mem);
        auto it = reasons_.find(key);
        if (it == reasons_.end())
          it = reasons_.emplace(key, WhyPending(placer_, w_.requests[p])).first;
        if (it->second) ++s.reasons[static_cast<int>(*it->second)];
      }
    }
    result_.samples.push_back(s);
  }

  const Workload& w_;
  const TimedOptions options_;
  GoRand rng_;
  std::vector<int> rank_;
  Placer placer_;
  EventQueue queue_;
  std::vector<State> state_;
  std::vector<Placer::Placement> placement_;
  std::vector<SimTime> arrival_;
  std::vector<int> pending_;  // arrival order; withdrawn pods linger until the next retry pass
  int pending_count_ = 0;
  int64_t pending_gpu_ = 0;
  int running_ = 0;
  std::map<std::pair<int, int64_t>, std::optional<PendingReason>> reasons_;
  uint64_t reasons_at_ = ~uint64_t{0};  // placer_.changes() reasons_ was computed at
  TimedResult result_;
  SimTime integrated_to_ = 0;
  TimedAverages integral_;  // ∫ state dt from the first arrival
};

}  // namespace

std::string_view PendingReasonName(PendingReason reason) {
  switch (reason) {
    case PendingReason::kInsufficientGpu:
      return "insufficient GPU";
    case PendingReason::kGpuSpecMismatch:
      return "gpu_spec mismatch";
    case PendingReason::kInsufficientCpu:
      return "insufficient CPU";
    case PendingReason::kInsufficientMemory:
      return "insufficient memory";
    case PendingReason::kTooManyPods:
      return "too many pods";
  }
  return "?";
}

std::string_view PendingReasonColumn(PendingReason reason) {
  switch (reason) {
    case PendingReason::kInsufficientGpu:
      return "pending_insufficient_gpu";
    case PendingReason::kGpuSpecMismatch:
      return "pending_gpu_spec_mismatch";
    case PendingReason::kInsufficientCpu:
      return "pending_insufficient_cpu";
    case PendingReason::kInsufficientMemory:
      return "pending_insufficient_memory";
    case PendingReason::kTooManyPods:
      return "pending_too_many_pods";
  }
  return "?";
}

std::optional<PendingReason> WhyPending(const Placer& placer, const PodRequest& pod) {
  // Per node, the first filter it fails, in the order card fit, CPU, memory, pod count.
  constexpr PendingReason kByStage[] = {
      PendingReason::kInsufficientGpu, PendingReason::kInsufficientCpu,
      PendingReason::kInsufficientMemory, PendingReason::kTooManyPods};
  int count[4] = {0, 0, 0, 0};  // over the nodes of an allowed model (all, for CPU-only pods)
  bool excluded_fit = false;    // a node that the model constraint alone keeps out
  const bool gpu = pod.wants_gpu();
  for (int i = 0; i < placer.num_nodes(); ++i) {
    const NodeState& node = placer.node(i);
    const bool allowed = !gpu || node.model < 0 || (pod.models >> node.model & 1) != 0;
    int stage = 4;  // passes every filter
    if (gpu && (node.cards == 0 || node.model < 0 || !CardsFit(node, pod))) {
      stage = 0;
    } else if (pod.cpu > node.cpu_free) {
      stage = 1;
    } else if (pod.mem > node.mem_free) {
      stage = 2;
    } else if (node.pods + 1 > kMaxPodsPerNode) {
      stage = 3;
    }
    if (!allowed) {
      excluded_fit = excluded_fit || stage == 4;
    } else if (stage == 4) {
      return std::nullopt;
    } else {
      ++count[stage];
    }
  }
  if (excluded_fit) return PendingReason::kGpuSpecMismatch;
  int best = -1;
  for (int stage = 0; stage < 4; ++stage) {
    if (count[stage] > 0 && (best < 0 || count[stage] > count[best])) best = stage;
  }
  return best < 0 ? PendingReason::kGpuSpecMismatch : kByStage[best];
}

Status CheckTimes(const Workload& w, const std::string& file) {
  const TracePod* first_missing = nullptr;
  bool any = false;
  for (const TracePod& pod : w.pods) {
    if (pod.creation_time) {
      any = true;
    } else if (!first_missing || pod.line < first_missing->line) {
      first_missing = &pod;
    }
  }
  if (!any && !w.pods.empty()) {
    InputError e;
    e.file = file;
    e.message = "no creation times: --timed replays by the trace's times";
    e.hint = "the 5-column multigpu files have none; use an 11-column pod list";
    return e;
  }
  if (first_missing) {
    InputError e;
    e.file = file;
    e.line = first_missing->line;
    e.path = "creation_time";
    e.message = "empty: --timed needs every pod's creation time";
    return e;
  }
  for (const TracePod& pod : w.pods) {
    const std::optional<int64_t>* times[] = {&pod.creation_time, &pod.deletion_time};
    const char* names[] = {"creation_time", "deletion_time"};
    for (int t = 0; t < 2; ++t) {
      if (*times[t] && **times[t] > kMaxTraceSeconds) {
        InputError e;
        e.file = file;
        e.line = pod.line;
        e.path = names[t];
        e.message = std::to_string(**times[t]) + " s is beyond the timed replay's clock (at most " +
                    std::to_string(kMaxTraceSeconds) + " s)";
        return e;
      }
    }
  }
  return Status::Ok();
}

SimTime TimedEnd(const Workload& w, const TimedOptions& options) {
  SimTime end = 0;
  for (const TracePod& pod : w.pods) {
    const PodTimes t = TimesOf(pod, options.compress);
    end = std::max(end, t.depart.value_or(t.arrive));
  }
  return options.until > 0 ? options.until : end;
}

TimedResult ReplayTimed(const Workload& w, PolicyKind policy, int64_t seed,
                        const TimedOptions& options) {
  TimedReplayer r(w, policy, seed, options);
  return r.Run();
}

}  // namespace knobsim::replay
