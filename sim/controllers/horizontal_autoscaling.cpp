#include "sim/controllers/horizontal_autoscaling.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "sim/controllers/endpoints.h"
#include "sim/controllers/pending_pods.h"
#include "sim/controllers/termination.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {
namespace {

using autoscaling::ApiPodPhase;
using autoscaling::MetricInput;
using autoscaling::PodSample;

bool Exists(const PodRun& pod) {
  return !pod.gone && !pod.terminating;
}

bool IsReady(const PodRun& pod) {
  return pod.phase == PodPhase::kServing || pod.phase == PodPhase::kFakeReady;
}

// The API phase: Pending until its containers were created (bound, image pulled).
ApiPodPhase PhaseOf(const PodRun& pod) {
  if (pod.admission_failed) return ApiPodPhase::kFailed;  // the HPA ignores it
  const bool waiting = pod.node < 0 || pod.phase == PodPhase::kPending ||
                       pod.phase == PodPhase::kPulling || pod.phase == PodPhase::kImagePullBackOff;
  return waiting ? ApiPodPhase::kPending : ApiPodPhase::kRunning;
}

// What a DCGM exporter's counter holds for a card now (busy_total_ns is integrated to `last`).
double CardBusyNow(const CardRun& card, SimTime now) {
  return card.busy_total_ns + (card.active > 0 ? static_cast<double>(now - card.last) : 0.0);
}

HpaRun::Snapshot TakeSnapshot(const Simulator& sim, const HpaRun& run) {
  const EngineState& s = sim.state;
  HpaRun::Snapshot snap;
  snap.at = s.now;
  snap.arrivals = s.workloads[run.workload].arrivals;
  for (int32_t p = 0; p < static_cast<int32_t>(s.pods.size()); ++p) {
    const PodRun& pod = s.pods[p];
    if (pod.workload != run.workload || pod.gone || PhaseOf(pod) != ApiPodPhase::kRunning) continue;
    HpaRun::PodCounters c;
    c.pod = p;
    c.routed = pod.routed;
    c.cpu_core_ns = pod.cpu.CoreNsAt(s.now);
    for (int32_t card : pod.cards) c.busy_ns += CardBusyNow(sim.sharing.cards[card], s.now);
    snap.pods.push_back(c);
  }
  return snap;
}

const HpaRun::PodCounters* Find(const HpaRun::Snapshot& snap, int32_t pod) {
  auto it = std::lower_bound(snap.pods.begin(), snap.pods.end(), pod,
                             [](const HpaRun::PodCounters& c, int32_t p) { return c.pod < p; });
  return it != snap.pods.end() && it->pod == pod ? &*it : nullptr;
}

// A pod's sample of `kind` at this sync, milli-units; unset when the adapter has none yet.
std::optional<int64_t> Sample(const Simulator& sim, const HpaRun& run,
                              const HpaRun::Snapshot& now_snap, int32_t p, HpaMetricKind kind,
                              SimTime window) {
  const EngineState& s = sim.state;
  const PodRun& pod = s.pods[p];
  if (kind == HpaMetricKind::kInFlight) return int64_t{pod.outstanding} * 1000;
  if (kind == HpaMetricKind::kGpuMemory) return pod.used_mib * 1000;
  const HpaRun::PodCounters* current = Find(now_snap, p);
  if (current == nullptr) return std::nullopt;
  for (const HpaRun::Snapshot& past : run.snapshots) {
    if (past.at < s.now - window || past.at >= s.now) continue;
    const HpaRun::PodCounters* then = Find(past, p);
    if (then == nullptr) continue;
    const double dt = static_cast<double>(s.now - past.at);
    if (kind == HpaMetricKind::kRequestRate)
      return std::llround(static_cast<double>(current->routed - then->routed) * 1e12 / dt);
    if (kind == HpaMetricKind::kCpu)
      return AverageMillicores(current->cpu_core_ns - then->cpu_core_ns, s.now - past.at);
    // Percent of the window its cards were busy, averaged over its cards.
    const double cards = std::max<double>(1, static_cast<double>(pod.cards.size()));
    return std::llround((current->busy_ns - then->busy_ns) / cards / dt * 100.0 * 1000.0);
  }
  return std::nullopt;
}

MetricInput InputFor(const Simulator& sim, const HpaRun& run, const HpaRun::Snapshot& now_snap,
                     const HpaMetric& metric) {
  const EngineState& s = sim.state;
  const SimTime window = s.scenario.cluster.hpa_controller.metric_window;
  MetricInput in;
  if (metric.kind == HpaMetricKind::kExternalRequestRate) {
    for (const HpaRun::Snapshot& past : run.snapshots) {
      if (past.at < s.now - window || past.at >= s.now) continue;
      in.value = std::llround(static_cast<double>(now_snap.arrivals - past.arrivals) * 1e12 /
                              static_cast<double>(s.now - past.at));
      break;
    }
    if (run.snapshots.empty() || run.snapshots.back().at < s.now - window)
      in.error = "no value of the external metric " + metric.name + " yet";
    for (const PodRun& pod : s.pods)
      if (pod.workload == run.workload && Exists(pod) && IsReady(pod)) ++in.ready_pods;
    return in;
  }
  const Workload& spec = *s.workloads[run.workload].spec;
  for (int32_t p = 0; p < static_cast<int32_t>(s.pods.size()); ++p) {
    const PodRun& pod = s.pods[p];
    if (pod.workload != run.workload || pod.gone) continue;
    PodSample sample;
    sample.name = pod.name;
    sample.phase = PhaseOf(pod);
    sample.deleting = pod.terminating;
    sample.ready = IsReady(pod);
    sample.sample_time = s.now;
    sample.sample_window = window;
    // The CPU readiness rules read these (the other metrics' pods are grouped without them).
    if (pod.started_at >= 0) {
      sample.start_time = pod.started_at;
    } else {
      sample.start_time.reset();
      sample.ready.reset();  // no kubelet has reported its conditions yet
    }
    sample.ready_transition = pod.ready_changed;
    if (metric.kind == HpaMetricKind::kCpu && spec.cpu_milli > 0) sample.request = spec.cpu_milli;
    if (sample.phase == ApiPodPhase::kRunning)
      sample.value = Sample(sim, run, now_snap, p, metric.kind, window);
    in.pods.push_back(std::move(sample));
  }
  return in;
}

void ScaleUp(Simulator& sim, int32_t w, int count, const std::string& why) {
  EngineState& s = sim.state;
  WorkloadRun& run = s.workloads[w];
  const Workload& spec = *run.spec;
  for (int k = 0; k < count; ++k) {
    int ordinal = run.next_ordinal;
    if (spec.kind == "StatefulSet") {
      // A StatefulSet creates its lowest missing ordinal.
      std::vector<int> used;
      for (const PodRun& pod : s.pods)
        if (pod.workload == w && !pod.gone) used.push_back(pod.replica);
      for (ordinal = 0; std::find(used.begin(), used.end(), ordinal) != used.end(); ++ordinal) {
      }
    } else {
      ++run.next_ordinal;
    }
    PodRun fresh;
    fresh.workload = w;
    fresh.replica = ordinal;
    fresh.name = spec.name + "-" + std::to_string(ordinal);
    const auto p = static_cast<int32_t>(s.pods.size());
    s.pods.push_back(std::move(fresh));
    s.pending.push_back(p);
    PodCreated(sim, p);
    sim.recorder.PodEvent("SuccessfulCreate", p, "created by its " + spec.kind + ": " + why);
  }
  SchedulePending(sim);
}

void ScaleDown(Simulator& sim, int32_t w, int count, const std::string& why) {
  EngineState& s = sim.state;
  const bool stateful = s.workloads[w].spec->kind == "StatefulSet";
  std::vector<int32_t> victims;
  for (int32_t p = 0; p < static_cast<int32_t>(s.pods.size()); ++p)
    if (s.pods[p].workload == w && Exists(s.pods[p])) victims.push_back(p);
  // controller.ActivePods: the pods cheapest to lose first.
  auto rank = [&](int32_t p) {
    const PodRun& pod = s.pods[p];
    return std::make_tuple(pod.node >= 0, PhaseOf(pod) == ApiPodPhase::kRunning, IsReady(pod),
                           -pod.restarts, -p);
  };
  if (stateful) {
    std::sort(victims.begin(), victims.end(),
              [&](int32_t a, int32_t b) { return s.pods[a].replica > s.pods[b].replica; });
  } else {
    std::sort(victims.begin(), victims.end(),
              [&](int32_t a, int32_t b) { return rank(a) < rank(b); });
  }
  victims.resize(std::min<size_t>(victims.size(), static_cast<size_t>(count)));
  for (int32_t p : victims) {
    s.pods[p].scaled_away = true;
    DeletePod(sim, p, why);
  }
}

int ExistingPods(const EngineState& s, int32_t w) {
  int n = 0;
  for (const PodRun& pod : s.pods)
    if (pod.workload == w && Exists(pod)) ++n;
  return n;
}

}  // namespace

// Integer arithmetic, exact: the remainder's product stays below 1000 × dt.
int64_t AverageMillicores(int64_t core_ns, SimTime dt) {
  return core_ns / dt * 1000 + (core_ns % dt * 1000 + dt - 1) / dt;
}

void ScaleWorkload(Simulator& sim, int32_t w, int32_t replicas, const std::string& why) {
  EngineState& s = sim.state;
  sim.recorder.IntegrateAvailability(w);
  s.workloads[w].desired = replicas;
  const int existing = ExistingPods(s, w);
  if (replicas > existing) ScaleUp(sim, w, replicas - existing, why);
  if (replicas < existing) ScaleDown(sim, w, existing - replicas, why);
}

void StartAutoscalers(Simulator& sim) {
  EngineState& s = sim.state;
  for (int32_t w = 0; w < static_cast<int32_t>(s.workloads.size()); ++w) {
    const Workload& spec = *s.workloads[w].spec;
    if (!spec.hpa) continue;
    s.hpas.emplace_back(
        w, autoscaling::HorizontalController(*spec.hpa, s.scenario.cluster.hpa_controller));
    s.queue.Push(0, kHpaSync, static_cast<uint32_t>(s.hpas.size() - 1));
  }
}

void SyncAutoscaler(Simulator& sim, int32_t h) {
  EngineState& s = sim.state;
  HpaRun& run = s.hpas[h];
  const int32_t w = run.workload;
  const HpaControllerSettings& settings = run.controller.settings();
  HpaRun::Snapshot now_snap = TakeSnapshot(sim, run);
  std::vector<MetricInput> inputs;
  for (const HpaMetric& m : autoscaling::MetricsOf(run.controller.spec()))
    inputs.push_back(InputFor(sim, run, now_snap, m));
  const int status = ExistingPods(s, w);
  const int current = s.workloads[w].desired;
  const autoscaling::HpaDecision d = run.controller.Reconcile(current, status, inputs, s.now);
  // Keep the snapshots a window can still reach.
  run.snapshots.push_back(std::move(now_snap));
  const SimTime keep = s.now - settings.metric_window;
  run.snapshots.erase(run.snapshots.begin(),
                      std::find_if(run.snapshots.begin(), run.snapshots.end(),
                                   [keep](const HpaRun::Snapshot& x) { return x.at >= keep; }));
  if (d.rescale) {
    const HpaSpec& hpa = run.controller.spec();
    sim.recorder.Event("SuccessfulRescale", hpa.namespace_ + "/" + hpa.name,
                       "New size: " + std::to_string(d.desired) + "; reason: " + d.reason);
    ScaleWorkload(sim, w, d.desired, "scaled by HorizontalPodAutoscaler " + hpa.name);
  }
  if (s.now + settings.sync_period <= s.end)
    s.queue.Push(s.now + settings.sync_period, kHpaSync, static_cast<uint32_t>(h));
}

}  // namespace knobsim::engine
