// The kernel: clock, dispatch, request flow (sim/engine/simulator.h).
#include "sim/engine/simulator.h"

#include <algorithm>

#include "sim/controllers/closed_loops.h"
#include "sim/controllers/cron_autoscaling.h"
#include "sim/controllers/daemon_sets.h"
#include "sim/controllers/endpoints.h"
#include "sim/controllers/horizontal_autoscaling.h"
#include "sim/controllers/node_autoscaling.h"
#include "sim/controllers/placement.h"
#include "sim/controllers/pod_lifecycle.h"
#include "sim/controllers/spot_reclaims.h"
#include "sim/controllers/termination.h"

namespace knobsim::engine {

Simulator::Simulator(const Scenario& scenario, uint64_t seed, const RunOptions& options)
    : with_daemon_pods_(WithDaemonPods(scenario)),
      state(with_daemon_pods_ ? *with_daemon_pods_ : scenario, seed, options),
      sharing(state),
      recorder(state),
      control(*this),
      lookahead(state, sharing, recorder) {}

RunResult Simulator::Run() {
  EngineState& s = state;
  PlacePods(*this);
  StartAutoscalers(*this);
  StartCronAutoscalers(*this);
  StartClusterAutoscaler(*this);
  s.queue.Push(s.warmup, kWarmupEnd, 0);
  for (int32_t n = 0; n < static_cast<int32_t>(s.nodes.size()); ++n)
    if (s.nodes[n].reclaim_mean_ns > 0) ScheduleReclaim(s, n);
  for (size_t a = 0; a < s.streams.size(); ++a) {
    const SimTime first = s.streams[a].arrivals.Next(0);
    if (first < s.end)
      s.queue.Push(first, kArrival, static_cast<uint32_t>(a),
                   static_cast<uint32_t>(s.streams[a].workload));
  }
  if (s.options.cluster_operator != nullptr) s.options.cluster_operator->Start(control);
  while (!s.queue.empty() && s.queue.top().time <= s.end) {
    const Event e = s.queue.Pop();
    s.now = e.time;
    ++s.events;
    lookahead.Ahead();
    Dispatch(e);
    sharing.Flush();
  }
  s.now = s.end;
  RunResult result = recorder.Collect(sharing);
  result.pools = PoolResults(s);
  if (result.timeline.step > 0) result.timeline.pools = PoolTimelines(s);
  return result;
}

void Simulator::Dispatch(const Event& e) {
  EngineState& s = state;
  const auto target = static_cast<int32_t>(e.target);
  switch (e.kind) {
    case kArrival:
      Arrive(target);
      break;
    case kCardCompletion:
      if (sharing.cards[target].generation == e.generation) CompleteCard(target);
      break;
    case kCpuBeforeDone:
      if (s.requests[target].generation == e.generation) Enqueue(target);
      break;
    case kCpuAfterDone:
      if (s.requests[target].generation == e.generation) Depart(target, true, nullptr);
      break;
    case kTimeout:
      if (s.requests[target].generation == e.generation) Timeout(target);
      break;
    case kContainerStart:
      if (s.pods[target].generation == e.generation) StartContainer(*this, target);
      break;
    case kLoadDone:
      if (s.pods[target].generation == e.generation) FinishLoad(*this, target);
      break;
    case kWarmupEnd:
      sharing.WarmupEnded();
      break;
    case kBatchWait:
      if (s.pods[target].batch_generation == e.generation) TryStartService(target);
      break;
    case kSpotReclaim:
      ReclaimNode(*this, target);
      break;
    case kNodeReplaced:
      ReplaceNode(*this, target);
      break;
    case kTerminated:
      Terminate(*this, target);
      break;
    case kPodReady:
      if (s.pods[target].generation == e.generation) TurnReady(*this, target);
      break;
    case kOperatorWake:
      s.options.cluster_operator->Wake(control, s.wake_tokens[e.target]);
      break;
    case kHpaSync:
      SyncAutoscaler(*this, target);
      break;
    case kCronHpaFire:
      FireCronJob(*this, target, static_cast<int32_t>(e.generation));
      break;
    case kAutoscalerScan:
      RunAutoscalerLoop(*this);
      break;
    case kNodeProvisioned:
      JoinProvisionedNode(*this, target);
      break;
    case kSpotRelease:
      ReleaseNode(*this, target);
      break;
    case kProvisionTimeout:
      GiveUpProvisioning(*this, target);
      break;
    case kIterationStart:
      IterationStart(*this, target, e.generation);
      break;
    case kJobComplete:
      CompleteJob(*this, target);
      break;
    case kSliceEnd:
      sharing.EndSlice(target, e.generation);
      break;
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

void Simulator::Arrive(int32_t stream_index) {
  EngineState& s = state;
  ArrivalStream& stream = s.streams[stream_index];
  const int32_t w_index = stream.workload;
  WorkloadRun& w = s.workloads[w_index];
  const Workload& spec = *w.spec;
  const SimTime now = s.now;
  // Draw the work first, whatever happens to the request, so that variants stay in step; a
  // recording's own work replaces the draw (drawn all the same, to keep the stream in step).
  // A workload's streams share its work stream: their arrivals interleave by time alone (equal
  // times in the order pushed, itself set by the times before), the same in every variant.
  double work_s = DrawWorkSeconds(spec.work, w.work_stream);
  if (const std::optional<double> recorded = stream.arrivals.RecordedWork()) work_s = *recorded;
  const SimTime next = stream.arrivals.Next(now);
  if (next < s.end)
    s.queue.Push(next, kArrival, static_cast<uint32_t>(stream_index),
                 static_cast<uint32_t>(w_index));
  ++s.arrivals;
  ++w.arrivals;

  const int32_t r = NewRequest(w_index, work_s);
  const int32_t p = stream.replica >= 0 ? RouteToOwnPod(stream, w) : Route(w);
  if (p == kNone) {
    Depart(r, false, &ErrorCounts::no_replica);
    return;
  }
  if (s.pods[p].phase == PodPhase::kFakeReady) {
    // The server answers from a process with no model loaded: the request fails at once.
    Depart(r, false, &ErrorCounts::fake_ready);
    return;
  }
  Admit(r, p);
}

void Simulator::SendIteration(int32_t p) {
  EngineState& s = state;
  const int32_t w_index = s.pods[p].workload;
  WorkloadRun& w = s.workloads[w_index];
  const int32_t r = NewRequest(w_index, DrawWorkSeconds(w.spec->work, w.work_stream));
  s.requests[r].iteration = true;
  ++s.arrivals;
  Admit(r, p);
}

int32_t Simulator::NewRequest(int32_t w, double work_s) {
  EngineState& s = state;
  const int32_t r = s.NewRequest();
  Request& req = s.requests[r];
  req.arrival = s.now;
  req.gpu_start = -1;
  req.work_s = work_s;
  req.workload = w;
  req.pod = kNone;
  req.next = kNone;
  req.job = kNone;
  req.counted = s.now >= s.warmup;
  req.iteration = false;
  recorder.Arrived(w, req.counted);
  return r;
}

void Simulator::Admit(int32_t r, int32_t p) {
  EngineState& s = state;
  Request& req = s.requests[r];
  const Workload& spec = *s.workloads[req.workload].spec;
  const SimTime now = s.now;
  req.pod = p;
  ++s.pods[p].outstanding;
  ++s.pods[p].routed;
  if (spec.timeout > 0)
    s.queue.Push(now + spec.timeout, kTimeout, static_cast<uint32_t>(r), req.generation);
  if (spec.cpu_before > 0) {
    req.stage = RequestStage::kCpuBefore;
    s.pods[p].cpu.Change(now, +1);
    s.queue.Push(now + spec.cpu_before, kCpuBeforeDone, static_cast<uint32_t>(r), req.generation);
    return;
  }
  Enqueue(r);
}

// A pod's recorded requests go to the pod of its replica ordinal (a replacement too) while it
// is Ready, and to the Service's routing otherwise.
int32_t Simulator::RouteToOwnPod(ArrivalStream& stream, WorkloadRun& w) {
  const HugeVector<PodRun>& pods = state.pods;
  if (stream.pod != kNone && EndpointOf(state, stream.pod).ready) return stream.pod;
  for (const int32_t p : w.ready) {
    if (pods[p].replica == stream.replica) {
      stream.pod = p;
      return p;
    }
  }
  return Route(w);
}

int32_t Simulator::Route(WorkloadRun& w) {
  const auto& ready = w.ready;
  if (ready.empty()) return kNone;
  switch (w.spec->routing) {
    case Routing::kRandom:
      return ready[w.route_stream.Below(ready.size())];
    case Routing::kRoundRobin:
      return ready[w.round_robin++ % ready.size()];
    case Routing::kLeastOutstanding: {
      // Ties go to a uniformly random replica (reservoir sampling over the tied ones): always
      // taking the first would pile an idle service's requests onto one pod.
      const HugeVector<PodRun>& pods = state.pods;
      int32_t best = ready[0];
      uint64_t tied = 1;
      for (size_t i = 1; i < ready.size(); ++i) {
        const int32_t p = ready[i];
        if (pods[p].outstanding < pods[best].outstanding) {
          best = p;
          tied = 1;
        } else if (pods[p].outstanding == pods[best].outstanding &&
                   w.route_stream.Below(++tied) == 0) {
          best = p;
        }
      }
      return best;
    }
  }
  return kNone;
}

void Simulator::Enqueue(int32_t r) {
  EngineState& s = state;
  Request& req = s.requests[r];
  PodRun& pod = s.pods[req.pod];
  if (req.stage == RequestStage::kCpuBefore) pod.cpu.Change(s.now, -1);
  req.stage = RequestStage::kQueued;
  req.enqueued = s.now;
  req.next = kNone;
  if (pod.queue_tail == kNone) {
    pod.queue_head = r;
  } else {
    s.requests[pod.queue_tail].next = r;
  }
  pod.queue_tail = r;
  ++pod.queue_len;
  TryStartService(req.pod);
}

void Simulator::TryStartService(int32_t p) {
  EngineState& s = state;
  PodRun& pod = s.pods[p];
  const Workload& spec = *s.workloads[pod.workload].spec;
  while (pod.queue_len > 0 && (spec.concurrency == 0 || pod.jobs < spec.concurrency)) {
    int batch = 1;
    if (spec.batching.max_batch > 1) {
      const SimTime oldest = s.requests[pod.queue_head].enqueued;
      if (pod.queue_len < spec.batching.max_batch && s.now < oldest + spec.batching.max_wait) {
        ++pod.batch_generation;
        s.queue.Push(oldest + spec.batching.max_wait, kBatchWait, static_cast<uint32_t>(p),
                     pod.batch_generation);
        return;
      }
      batch = std::min(pod.queue_len, spec.batching.max_batch);
    }
    // Take `batch` requests off the queue into one job.
    const int32_t j = s.NewJob();
    Job& job = s.jobs[j];
    job.pod = p;
    job.first = pod.queue_head;
    double max_work = 0;
    int32_t last = kNone;
    for (int i = 0; i < batch; ++i) {
      const int32_t r = pod.queue_head;
      pod.queue_head = s.requests[r].next;
      s.requests[r].job = j;
      s.requests[r].stage = RequestStage::kOnGpu;
      max_work = std::max(max_work, s.requests[r].work_s);
      last = r;
    }
    s.requests[last].next = kNone;
    if (pod.queue_head == kNone) pod.queue_tail = kNone;
    pod.queue_len -= batch;
    job.live = batch;
    job.activation_mib = pod.activation_mib * batch;

    if (!pod.cards.empty()) sharing.Touch(p);
    if (!sharing.ChangeMemory(p, job.activation_mib, true)) {
      // The activation does not fit: CUDA OOM for every request of the job.
      for (int32_t r = job.first; r != kNone;) {
        const int32_t next = s.requests[r].next;
        Depart(r, false, &ErrorCounts::oom);
        r = next;
      }
      s.FreeJob(j);
      continue;
    }
    for (int32_t r = job.first; r != kNone; r = s.requests[r].next) s.requests[r].gpu_start = s.now;
    const double work_ns = max_work * 1e9 * (1 + spec.batching.beta * (batch - 1));
    sharing.BeginJob(p, j, work_ns);
  }
}

// Every job on the card that is done completes, in arrival order of its first request.
void Simulator::CompleteCard(int32_t c) {
  sharing.TakeFinishedJobs(c, done_jobs_);
  const HugeVector<Request>& requests = state.requests;
  const HugeVector<Job>& jobs = state.jobs;
  std::sort(done_jobs_.begin(), done_jobs_.end(), [&requests, &jobs](int32_t a, int32_t b) {
    return requests[jobs[a].first].arrival < requests[jobs[b].first].arrival;
  });
  for (size_t i = 0; i < done_jobs_.size(); ++i) FinishJob(done_jobs_[i]);
  sharing.MarkDirty(c);
}

void Simulator::FinishJob(int32_t j) {
  EngineState& s = state;
  Job& job = s.jobs[j];
  const int32_t p = job.pod;
  PodRun& pod = s.pods[p];
  const Workload& spec = *s.workloads[pod.workload].spec;
  sharing.Touch(p);
  --pod.jobs;
  sharing.ChangeMemory(p, -job.activation_mib, false);
  for (int32_t r = job.first; r != kNone;) {
    Request& req = s.requests[r];
    const int32_t next = req.next;
    if (req.stage == RequestStage::kGone) {
      s.FreeRequest(r);  // timed out while on the GPU; already counted
    } else if (spec.cpu_after > 0) {
      req.job = kNone;
      req.stage = RequestStage::kCpuAfter;
      pod.cpu.Change(s.now, +1);
      s.queue.Push(s.now + spec.cpu_after, kCpuAfterDone, static_cast<uint32_t>(r), req.generation);
    } else {
      Depart(r, true, nullptr);
    }
    r = next;
  }
  s.FreeJob(j);
  TryStartService(p);
}

// The request leaves the system (success, or failure by `cause`): count it, free its record.
void Simulator::Depart(int32_t r, bool success, int64_t ErrorCounts::*cause) {
  Account(r, success, cause);
  state.FreeRequest(r);
}

// Counts the request's departure. Its record stays allocated (a request that left its job early
// is still linked in it until the job ends; see FreeJobRequests).
void Simulator::Account(int32_t r, bool success, int64_t ErrorCounts::*cause) {
  EngineState& s = state;
  Request& req = s.requests[r];
  if (req.pod != kNone) {
    PodRun& pod = s.pods[req.pod];
    // Every way out of a CPU stage passes here but its normal end before the GPU (Enqueue):
    // done, timed out, or interrupted with its pod.
    if (req.stage == RequestStage::kCpuBefore || req.stage == RequestStage::kCpuAfter)
      pod.cpu.Change(s.now, -1);
    // A terminating pod whose last request left is gone now, before its grace period ends.
    if (--pod.outstanding == 0 && pod.terminating)
      s.queue.Push(s.now, kTerminated, static_cast<uint32_t>(req.pod));
    if (req.iteration) IterationEnded(*this, r, success, cause);
  }
  req.pod = kNone;
  req.stage = RequestStage::kGone;
  ++req.generation;
  recorder.Departed(req.workload, req.arrival, req.gpu_start, req.counted, success, cause);
  req.counted = false;
}

// Frees the records of the requests of job j that already left it (timed out on the GPU).
void Simulator::FreeJobRequests(int32_t j) {
  EngineState& s = state;
  for (int32_t q = s.jobs[j].first; q != kNone;) {
    const int32_t next = s.requests[q].next;
    if (s.requests[q].stage == RequestStage::kGone) s.free_requests.push_back(q);
    q = next;
  }
}

void Simulator::Timeout(int32_t r) {
  EngineState& s = state;
  Request& req = s.requests[r];
  const Workload& spec = *s.workloads[req.workload].spec;
  switch (req.stage) {
    case RequestStage::kQueued: {
      PodRun& pod = s.pods[req.pod];
      // Unlink from the FIFO (a singly linked list: find the predecessor).
      int32_t prev = kNone;
      for (int32_t q = pod.queue_head; q != r; q = s.requests[q].next) prev = q;
      if (prev == kNone) {
        pod.queue_head = req.next;
      } else {
        s.requests[prev].next = req.next;
      }
      if (pod.queue_tail == r) pod.queue_tail = prev;
      --pod.queue_len;
      Depart(r, false, &ErrorCounts::timeout);
      return;
    }
    case RequestStage::kOnGpu: {
      const int32_t j = req.job;
      Job& job = s.jobs[j];
      const int32_t p = job.pod;
      // The client gives up now. Its record stays linked in the job until the job ends.
      Account(r, false, &ErrorCounts::timeout);
      // complete: the GPU finishes the job anyway (wasted work). abort: the request leaves the
      // GPU; the job ends when no request is left in it.
      if (spec.on_timeout == TimeoutAction::kComplete || --job.live > 0) return;
      PodRun& pod = s.pods[p];
      sharing.Touch(p);
      --pod.jobs;
      job.in_service = false;  // dropped lazily from the service heap
      ++pod.dead_jobs;
      sharing.ChangeMemory(p, -job.activation_mib, false);
      FreeJobRequests(j);
      TryStartService(p);
      return;
    }
    case RequestStage::kCpuBefore:
    case RequestStage::kCpuAfter:
      Depart(r, false, &ErrorCounts::timeout);
      return;
    case RequestStage::kGone:
      return;
  }
}

void Simulator::AbortWork(int32_t p) {
  EngineState& s = state;
  PodRun& pod = s.pods[p];
  ++pod.generation;        // cancels a pending pull, load or restart
  ++pod.batch_generation;  // and a batch wait
  ++pod.loop_epoch;        // and a closed-loop job's loops
  pod.loops = 0;
  if (!pod.cards.empty()) sharing.Touch(p);
  for (const ServiceEntry& entry : pod.service) {
    const int32_t j = entry.job;
    if (s.jobs[j].in_service) {
      for (int32_t r = s.jobs[j].first; r != kNone; r = s.requests[r].next)
        if (s.requests[r].stage != RequestStage::kGone)
          Account(r, false, &ErrorCounts::interrupted);
      FreeJobRequests(j);
    }
    s.FreeJob(j);
  }
  pod.service.clear();
  pod.dead_jobs = 0;
  pod.jobs = 0;
  pod.attained = 0;
  pod.rate = 0;
  pod.last_update = s.now;
  for (int32_t r = pod.queue_head; r != kNone;) {
    const int32_t next = s.requests[r].next;
    Depart(r, false, &ErrorCounts::interrupted);
    r = next;
  }
  pod.queue_head = pod.queue_tail = kNone;
  pod.queue_len = 0;
  // Requests in their CPU stages before or after the GPU are in no list of the pod: find them.
  for (size_t r = 0; pod.outstanding > 0 && r < s.requests.size(); ++r) {
    const Request& req = s.requests[r];
    if (req.pod == p &&
        (req.stage == RequestStage::kCpuBefore || req.stage == RequestStage::kCpuAfter))
      Depart(static_cast<int32_t>(r), false, &ErrorCounts::interrupted);
  }
}

}  // namespace knobsim::engine
