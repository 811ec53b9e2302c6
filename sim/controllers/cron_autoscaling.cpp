#include "sim/controllers/cron_autoscaling.h"

#include <optional>
#include <string>

#include "sim/autoscaling/cron_hpa.h"
#include "sim/controllers/horizontal_autoscaling.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {
namespace {

// RunSettings::start_unix_s, or its default: 2024-01-01 (a Monday) 00:00:00 at the controller's
// offset, so that t = 0 is a local midnight.
int64_t StartUnix(const Scenario& scenario) {
  if (scenario.run.start_unix_s) return *scenario.run.start_unix_s;
  return UnixAtWallClock(2024, 1, 1, 0, 0, 0, scenario.cluster.cron_hpa_controller.utc_offset_s);
}

// Pushes the job's next fire strictly after `after_unix_s`, if it has one within the run.
void PushNextFire(Simulator& sim, int32_t c, int32_t job, int64_t after_unix_s) {
  EngineState& s = sim.state;
  const CronHpaRun& run = s.cron_hpas[c];
  const CronHpaSpec& spec = *s.workloads[run.workload].spec->cron_hpa;
  const int64_t next = NextCronFire(spec.jobs[job].schedule, after_unix_s,
                                    s.scenario.cluster.cron_hpa_controller.utc_offset_s);
  if (next == kNoCronFire) return;
  const int64_t offset_s = next - run.start_unix_s;
  if (offset_s < 0 || offset_s > s.end / kNanosPerSecond) return;
  s.queue.Push(offset_s * kNanosPerSecond, kCronHpaFire, static_cast<uint32_t>(c),
               static_cast<uint32_t>(job));
}

}  // namespace

void StartCronAutoscalers(Simulator& sim) {
  EngineState& s = sim.state;
  const int64_t start = StartUnix(s.scenario);
  for (int32_t w = 0; w < static_cast<int32_t>(s.workloads.size()); ++w) {
    const Workload& spec = *s.workloads[w].spec;
    if (!spec.cron_hpa) continue;
    CronHpaRun run;
    run.workload = w;
    run.start_unix_s = start;
    for (int32_t h = 0; h < static_cast<int32_t>(s.hpas.size()); ++h)
      if (s.hpas[h].workload == w) run.hpa = h;
    s.cron_hpas.push_back(run);
    const auto c = static_cast<int32_t>(s.cron_hpas.size() - 1);
    // A fire at t = 0 counts: the controller was running before the run started.
    for (int32_t j = 0; j < static_cast<int32_t>(spec.cron_hpa->jobs.size()); ++j)
      PushNextFire(sim, c, j, start - 1);
  }
}

void FireCronJob(Simulator& sim, int32_t c, int32_t job) {
  EngineState& s = sim.state;
  const CronHpaRun& run = s.cron_hpas[c];
  const int32_t w = run.workload;
  const CronHpaSpec& spec = *s.workloads[w].spec->cron_hpa;
  const int64_t now_unix = run.start_unix_s + s.now / kNanosPerSecond;
  std::optional<autoscaling::HpaState> hpa;
  if (autoscaling::TargetsHpa(spec) && run.hpa >= 0) {
    const HpaSpec& h = s.hpas[run.hpa].controller.spec();
    int current = 0;  // status.currentReplicas: the pods of the target
    for (const PodRun& pod : s.pods)
      if (pod.workload == w && !pod.gone && !pod.terminating) ++current;
    hpa = autoscaling::HpaState{h.min_replicas, h.max_replicas, current};
  }
  const autoscaling::CronHpaAction action = autoscaling::RunCronHpaJob(
      spec, static_cast<size_t>(job), now_unix, s.scenario.cluster.cron_hpa_controller.utc_offset_s,
      hpa, s.workloads[w].desired);
  // cronmanager.go JobResultHandler: the condition's state is the event's reason.
  sim.recorder.Event(action.failed ? "Failed" : "Succeed", spec.namespace_ + "/" + spec.name,
                     action.failed ? "cron hpa failed to execute, because of " + action.message
                                   : "cron hpa job " + spec.jobs[job].name +
                                         " executed successfully. " + action.message);
  if (action.hpa_updated && run.hpa >= 0)
    s.hpas[run.hpa].controller.SetReplicaBounds(action.hpa_min_replicas, action.hpa_max_replicas);
  if (action.scaled && action.replicas != s.workloads[w].desired) {
    ScaleWorkload(
        sim, w, action.replicas,
        "scaled by CronHorizontalPodAutoscaler " + spec.name + " job " + spec.jobs[job].name);
  }
  if (!autoscaling::RunsOnce(spec.jobs[job])) PushNextFire(sim, c, job, now_unix);
}

}  // namespace knobsim::engine
