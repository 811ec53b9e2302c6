#include "sim/engine/run_recorder.h"

#include <algorithm>
#include <utility>

#include "sim/engine/card_sharing.h"
#include "sim/slo_check.h"

namespace knobsim::engine {
namespace {

constexpr size_t kMaxEvents = 1000;  // cluster events kept in the results

const char* PhaseName(PodPhase phase) {
  switch (phase) {
    case PodPhase::kPending:
      return "Pending";
    case PodPhase::kPulling:
      return "Starting";
    case PodPhase::kLoading:
      return "Starting";
    case PodPhase::kServing:
      return "Running";
    case PodPhase::kFakeReady:
      return "FakeReady";
    case PodPhase::kUnready:
      return "Unready";
    case PodPhase::kCrashLoop:
      return "CrashLoopBackOff";
    case PodPhase::kImagePullBackOff:
      return "ImagePullBackOff";
  }
  return "Unknown";
}

bool SharingNode(const NodePool& pool) {
  return pool.schedule != GpuSchedule::kDefault;
}

void AddStep(ErrorCounts& into, const ErrorCounts& from) {
  into.oom += from.oom;
  into.fake_ready += from.fake_ready;
  into.timeout += from.timeout;
  into.no_replica += from.no_replica;
  into.interrupted += from.interrupted;
}

}  // namespace

RunRecorder::RunRecorder(const EngineState& state) : s_(state) {
  workloads_.resize(state.workloads.size());
  for (size_t w = 0; w < workloads_.size(); ++w) {
    workloads_[w].result.name = state.workloads[w].spec->name;
    workloads_[w].result.namespace_ = state.workloads[w].spec->namespace_;
    if (state.options.timeline_step > 0 && w < state.options.timeline_latency_bounds_ms.size())
      workloads_[w].bounds_ms = state.options.timeline_latency_bounds_ms[w];
  }
}

// Prometheus' `le`: a latency equal to a bound counts in that bound's bucket.
void RunRecorder::CountInBucket(const WorkloadMetrics& m, TimelineStep& step, double ms) {
  if (step.in_bucket.empty()) step.in_bucket.assign(m.bounds_ms.size() + 1, 0);
  const auto at = std::lower_bound(m.bounds_ms.begin(), m.bounds_ms.end(), ms);
  ++step.in_bucket[static_cast<size_t>(at - m.bounds_ms.begin())];
}

void RunRecorder::IntegrateAvailability(int32_t w_index) {
  const WorkloadRun& w = s_.workloads[w_index];
  WorkloadMetrics& m = workloads_[w_index];
  const SimTime now = s_.now;
  if (now <= m.available_last) return;
  const int desired = w.desired;  // the scenario's replicas, or what its HPA set
  const SimTime from = std::max(m.available_last, s_.warmup);
  if (now > from && desired > 0) {
    const double dt = static_cast<double>(now - from);
    m.available_fraction_ns += dt * std::min(w.available, desired) / desired;
    if (w.available < desired) m.below_desired_ns += dt;
    if (w.available == 0) m.unavailable_ns += dt;
  }
  const SimTime step = s_.options.timeline_step;
  if (step > 0) {
    const int ready = static_cast<int>(w.ready.size());
    for (SimTime t = m.available_last; t < now;) {
      const SimTime until = std::min((t / step + 1) * step, now);
      TimelineStep& at = StepAt(m, t);
      at.available_ns += static_cast<double>(until - t) * w.available;
      at.ready_ns += static_cast<double>(until - t) * ready;
      at.desired_ns += static_cast<double>(until - t) * desired;
      at.pending_ns += static_cast<double>(until - t) * w.pending;
      at.available_min = std::min(at.available_min, w.available);
      at.pending_max = std::max(at.pending_max, w.pending);
      t = until;
    }
  }
  m.available_last = now;
}

void RunRecorder::PodEvent(const char* kind, int32_t p, std::string message) {
  if (cluster_.events.size() >= kMaxEvents) return;
  const PodRun& pod = s_.pods[p];
  cluster_.events.push_back({s_.now, kind,
                             s_.workloads[pod.workload].spec->namespace_ + "/" + pod.name,
                             std::move(message)});
}

void RunRecorder::PodPreempted(int32_t p, std::string message) {
  ++cluster_.preempted_pods;
  PodEvent("Preempted", p, std::move(message));
}

void RunRecorder::NodeEvent(const char* kind, int32_t n, std::string message) {
  if (cluster_.events.size() >= kMaxEvents) return;
  // Node events name no pod; the message starts with the node.
  cluster_.events.push_back({s_.now, kind, "", "node " + s_.cluster.nodes[n].name + " " + message});
}

void RunRecorder::Event(const std::string& kind, const std::string& pod,
                        const std::string& message) {
  if (cluster_.events.size() >= kMaxEvents) return;
  cluster_.events.push_back({s_.now, kind, pod, message});
}

void RunRecorder::SetFragmentation(FragmentationResult fragmentation) {
  fragmentation_ = std::move(fragmentation);
}

RunResult RunRecorder::Collect(CardSharing& sharing) {
  RunResult result;
  for (int32_t w = 0; w < static_cast<int32_t>(workloads_.size()); ++w) IntegrateAvailability(w);
  result.end = s_.end;
  CollectWorkloads(result);
  CollectCards(sharing, result);  // advances every card to the end
  if (s_.options.timeline_step > 0) result.timeline = CollectTimeline(sharing);
  CollectPods(result);
  if (cluster_.gpu_mem_total_units > 0)
    cluster_.allocation_ratio = static_cast<double>(cluster_.gpu_mem_allocated_units) /
                                static_cast<double>(cluster_.gpu_mem_total_units);
  result.cluster = std::move(cluster_);
  result.events_processed = s_.events;
  result.requests_simulated = s_.arrivals;
  result.fragmentation = std::move(fragmentation_);
  return result;
}

namespace {

// The counted requests still in the system at the end, per workload: how many are older than
// the workload's overdue age, and the oldest's arrival. Read from the request table (a live
// record is one not yet gone), once per run, so the hot path keeps no ordered set of arrivals.
struct Unanswered {
  int64_t count = 0;
  int64_t overdue = 0;
  SimTime oldest_arrival = 0;
};

std::vector<Unanswered> UnansweredAtEnd(const EngineState& s) {
  std::vector<Unanswered> out(s.workloads.size());
  for (const Request& r : s.requests) {
    if (!r.counted || r.stage == RequestStage::kGone) continue;
    Unanswered& u = out[static_cast<size_t>(r.workload)];
    if (u.count == 0 || r.arrival < u.oldest_arrival) u.oldest_arrival = r.arrival;
    ++u.count;
    if (s.end - r.arrival > OverdueAge(s.workloads[r.workload].spec->slo)) ++u.overdue;
  }
  return out;
}

}  // namespace

void RunRecorder::CollectWorkloads(RunResult& result) {
  const double measured_ns = static_cast<double>(std::max<SimTime>(0, s_.end - s_.warmup));
  const double measured_s = measured_ns / 1e9;
  const std::vector<Unanswered> unanswered = UnansweredAtEnd(s_);
  for (size_t w = 0; w < workloads_.size(); ++w) {
    WorkloadMetrics& m = workloads_[w];
    AccountInSystem(m);
    WorkloadResult r = std::move(m.result);
    const Slo& slo = s_.workloads[w].spec->slo;
    r.measured_s = measured_s;
    r.in_system_end = m.in_system;
    r.in_system_overdue = unanswered[w].overdue;
    r.in_system_oldest_ms =
        unanswered[w].count > 0
            ? static_cast<double>(s_.end - unanswered[w].oldest_arrival) / kNanosPerMilli
            : 0;
    r.in_system_mean = measured_ns > 0 ? m.in_system_integral / measured_ns : 0;
    r.time_in_system_mean_ms =
        m.departures > 0 ? m.time_in_system_sum_ns / 1e6 / static_cast<double>(m.departures) : 0;
    r.throughput_rps = measured_s > 0 ? static_cast<double>(r.completed) / measured_s : 0;
    if (r.completed > 0) {
      r.latency_ms.mean = m.latency_sum_ms / static_cast<double>(r.completed);
      r.latency_ms.p50 = r.histogram.Quantile(0.50);
      r.latency_ms.p90 = r.histogram.Quantile(0.90);
      r.latency_ms.p99 = r.histogram.Quantile(0.99);
      r.latency_ms.p999 = r.histogram.Quantile(0.999);
      r.queue_wait_ms_mean = m.wait_sum_ms / static_cast<double>(r.completed);
      r.queue_wait_ms_p99 = m.wait_histogram.Quantile(0.99);
      r.service_ms_mean = r.latency_ms.mean - r.queue_wait_ms_mean;
    }
    r.error_ratio = r.requests > 0
                        ? static_cast<double>(r.errors.total()) / static_cast<double>(r.requests)
                        : 0;
    r.slo_latency_ms = r.completed > 0 ? r.histogram.Quantile(slo.percentile / 100.0) : 0;
    r.slo_met = CheckSlo(r, slo).met();
    if (s_.workloads[w].spec->closed_loop) CollectClosedLoop(w, r);
    cluster_.request_oom_errors += r.errors.oom;
    result.workloads.push_back(std::move(r));
  }
}

void RunRecorder::IterationSucceeded(int32_t w, double solo_gpu_ns) {
  ++workloads_[w].steps;
  workloads_[w].solo_gpu_sum_ns += solo_gpu_ns;
}

void RunRecorder::JobCompleted(int32_t w) {
  workloads_[w].result.loop.completed_at = s_.now;
}

void RunRecorder::CollectClosedLoop(size_t w, WorkloadResult& r) const {
  const Workload& spec = *s_.workloads[w].spec;
  ClosedLoopResult& loop = r.loop;
  r.closed_loop = true;
  loop.steps_done = s_.workloads[w].steps_done;
  // The job ran from the warm-up's end to its completion (or the run's end).
  const SimTime until = loop.completed_at >= 0 ? std::min(loop.completed_at, s_.end) : s_.end;
  const double ran_s = static_cast<double>(std::max<SimTime>(0, until - s_.warmup)) / 1e9;
  const int64_t steps = workloads_[w].steps;
  if (steps == 0 || ran_s <= 0) return;
  const double think_ms = static_cast<double>(spec.closed_loop->think) / kNanosPerMilli;
  const double cpu_ms = static_cast<double>(spec.cpu_before + spec.cpu_after) / kNanosPerMilli;
  loop.steps_per_s = static_cast<double>(steps) / ran_s;
  loop.step_ms_mean = r.latency_ms.mean + think_ms;
  loop.solo_step_ms =
      workloads_[w].solo_gpu_sum_ns / 1e6 / static_cast<double>(steps) + cpu_ms + think_ms;
  loop.slowdown = loop.solo_step_ms > 0 ? loop.step_ms_mean / loop.solo_step_ms : 0;
}

void RunRecorder::CollectCards(CardSharing& sharing, RunResult& result) {
  const double measured_ns = static_cast<double>(std::max<SimTime>(0, s_.end - s_.warmup));
  for (size_t c = 0; c < sharing.cards.size(); ++c) {
    sharing.AdvanceCard(static_cast<int32_t>(c));
    const CardRun& run = sharing.cards[c];
    const Card& card = s_.cluster.cards[c];
    CardResult r;
    r.node = s_.cluster.nodes[card.node].name;
    r.index = card.index;
    r.gpu = card.gpu->name;
    if (measured_ns > 0) {
      r.busy = run.busy_ns / measured_ns;
      r.effective = run.effective_ns / measured_ns;
      r.switch_overhead = run.switch_ns / measured_ns;
      r.waste = std::max(0.0, r.busy - r.effective - r.switch_overhead);
      r.memory_used_mib = run.memory_integral / measured_ns;
    }
    r.memory_physical_mib = run.physical_mib;
    r.memory_peak_mib = run.memory_peak_mib;
    result.cards.push_back(std::move(r));
  }
  const auto& node_pools = s_.scenario.node_pools;
  // The cards of the nodes that exist at the end (an autoscaled pool's empty slots have none).
  for (const Card& card : s_.cluster.cards)
    if (SharingNode(node_pools[s_.cluster.nodes[card.node].pool]) && !s_.nodes[card.node].absent)
      cluster_.gpu_mem_total_units += card.units;
}

// The pods that exist at the end, by workload and replica (a replacement after the pod it
// replaced while that one still terminates).
void RunRecorder::CollectPods(RunResult& result) {
  const HugeVector<PodRun>& pods = s_.pods;
  std::vector<int32_t> existing;
  for (int32_t p = 0; p < static_cast<int32_t>(pods.size()); ++p)
    if (!pods[p].gone) existing.push_back(p);
  std::stable_sort(existing.begin(), existing.end(), [&pods](int32_t a, int32_t b) {
    if (pods[a].workload != pods[b].workload) return pods[a].workload < pods[b].workload;
    return pods[a].replica < pods[b].replica;
  });
  for (int32_t p : existing) {
    const PodRun& pod = pods[p];
    const Workload& spec = *s_.workloads[pod.workload].spec;
    PodResult r;
    r.namespace_ = spec.namespace_;
    r.name = pod.name;
    r.workload = spec.name;
    // A restarting container that is loading again still shows CrashLoopBackOff to the user.
    r.state = pod.terminating                                       ? "Terminating"
              : pod.restarts > 0 && pod.phase == PodPhase::kLoading ? "CrashLoopBackOff"
                                                                    : PhaseName(pod.phase);
    r.restarts = pod.restarts;
    r.bottleneck_gbps = pod.bottleneck_gbps;
    r.throughput_factor = pod.throughput_factor;
    r.message = pod.message;
    if (pod.admission_failed) {
      r.state = "UnexpectedAdmissionError";  // what kubectl shows for the Failed pod
      r.node = pod.failed_on;
      result.pods.push_back(std::move(r));
      continue;
    }
    // A pod whose node was reclaimed waits, Pending and unbound, for the replacement node.
    if (pod.node >= 0 && !s_.nodes[pod.node].down()) {
      r.node = s_.cluster.nodes[pod.node].name;
      cluster_.gpu_mem_allocated_units += spec.gpu_mem;
      for (int32_t c : pod.cards) {
        r.cards.push_back(s_.cluster.cards[c].index);
        CardResult& card = result.cards[c];
        card.memory_quota_mib += pod.quota_mib;
        card.pods.push_back(spec.namespace_ + "/" + pod.name);
      }
    } else {
      ++cluster_.pending_pods;
    }
    if (pod.phase == PodPhase::kFakeReady) ++cluster_.fake_ready_pods;
    result.pods.push_back(std::move(r));
  }
}

RunTimeline RunRecorder::CollectTimeline(const CardSharing& sharing) {
  RunTimeline timeline;
  const SimTime step = s_.options.timeline_step;
  const SimTime end = s_.end;
  timeline.step = step;
  timeline.end = end;
  const size_t steps = static_cast<size_t>(std::max<SimTime>(1, (end + step - 1) / step));
  for (size_t w = 0; w < workloads_.size(); ++w) {
    WorkloadMetrics& m = workloads_[w];
    const WorkloadRun& run = s_.workloads[w];
    // Departures at the very end of the last step belong to it.
    while (m.timeline.size() > steps) {
      TimelineStep extra = std::move(m.timeline.back());
      m.timeline.pop_back();
      TimelineStep& last = m.timeline.back();
      last.arrivals += extra.arrivals;
      last.completed += extra.completed;
      AddStep(last.errors, extra.errors);
      last.latency_sum_ms += extra.latency_sum_ms;
      last.wait_sum_ms += extra.wait_sum_ms;
      last.histogram.Merge(extra.histogram);
      if (last.in_bucket.size() < extra.in_bucket.size())
        last.in_bucket.resize(extra.in_bucket.size(), 0);
      for (size_t i = 0; i < extra.in_bucket.size(); ++i) last.in_bucket[i] += extra.in_bucket[i];
    }
    m.timeline.resize(steps);
    WorkloadTimeline out;
    out.name = run.spec->name;
    out.namespace_ = run.spec->namespace_;
    out.desired = run.spec->replicas;
    for (size_t k = 0; k < steps; ++k) {
      const TimelineStep& in = m.timeline[k];
      TimelinePoint point;
      point.start = static_cast<SimTime>(k) * step;
      const double length = static_cast<double>(std::min(step, end - point.start));
      point.arrivals = in.arrivals;
      point.completed = in.completed;
      point.errors = in.errors;
      if (in.completed > 0) {
        point.latency_mean_ms = in.latency_sum_ms / static_cast<double>(in.completed);
        point.latency_p50_ms = in.histogram.Quantile(0.50);
        point.latency_p99_ms = in.histogram.Quantile(0.99);
        point.queue_wait_mean_ms = in.wait_sum_ms / static_cast<double>(in.completed);
        point.service_mean_ms = point.latency_mean_ms - point.queue_wait_mean_ms;
      }
      if (length > 0) {
        point.available_mean = in.available_ns / length;
        point.ready_mean = in.ready_ns / length;
        point.desired_mean = in.desired_ns / length;
        point.pending_mean = in.pending_ns / length;
      }
      point.available_min =
          in.available_min == std::numeric_limits<int>::max() ? run.available : in.available_min;
      point.pending_max = in.pending_max;
      if (!m.bounds_ms.empty()) {
        point.latency_at_or_below.assign(m.bounds_ms.size(), 0);
        int64_t below = 0;
        for (size_t i = 0; i < m.bounds_ms.size(); ++i) {
          below += i < in.in_bucket.size() ? in.in_bucket[i] : 0;
          point.latency_at_or_below[i] = below;
        }
      }
      out.points.push_back(std::move(point));
    }
    const double measured = static_cast<double>(end - s_.warmup);
    out.available_fraction = measured > 0 ? m.available_fraction_ns / measured : 0;
    out.below_desired_ns = static_cast<SimTime>(m.below_desired_ns);
    out.unavailable_ns = static_cast<SimTime>(m.unavailable_ns);
    timeline.workloads.push_back(std::move(out));
  }
  timeline.cards = CollectCardTimelines(sharing, steps);
  return timeline;
}

std::vector<CardTimeline> RunRecorder::CollectCardTimelines(const CardSharing& sharing,
                                                            size_t steps) const {
  const SimTime step = s_.options.timeline_step;
  std::vector<CardTimeline> cards;
  for (size_t c = 0; c < sharing.cards.size(); ++c) {
    const CardRun& run = sharing.cards[c];
    const Card& card = s_.cluster.cards[c];
    CardTimeline out;
    out.node = s_.cluster.nodes[card.node].name;
    out.index = card.index;
    out.gpu = card.gpu->name;
    for (size_t k = 0; k < steps; ++k) {
      CardTimelinePoint point;
      point.start = static_cast<SimTime>(k) * step;
      const double length = static_cast<double>(std::min(step, s_.end - point.start));
      if (k < run.timeline.size() && length > 0) {
        const CardStep& in = run.timeline[k];
        point.busy = in.busy_ns / length;
        point.effective = in.effective_ns / length;
        point.memory_used_mib = in.memory_integral / length;
        point.memory_peak_mib = in.memory_peak_mib;
      } else {
        // Never advanced into this step: nothing changed on the card since before it.
        point.busy = run.active > 0 ? 1 : 0;
        point.effective = run.sum_share;
        point.memory_used_mib = static_cast<double>(run.memory_used_mib);
        point.memory_peak_mib = run.memory_used_mib;
      }
      out.points.push_back(point);
    }
    cards.push_back(std::move(out));
  }
  return cards;
}

}  // namespace knobsim::engine
