#include "sim/controllers/closed_loops.h"

#include <string>

#include "sim/controllers/endpoints.h"
#include "sim/controllers/horizontal_autoscaling.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

void StartLoops(Simulator& sim, int32_t p) {
  EngineState& s = sim.state;
  PodRun& pod = s.pods[p];
  const WorkloadRun& w = s.workloads[pod.workload];
  if (!w.spec->closed_loop || w.job_done) return;
  // Through events rather than at once: a pod turns available in the middle of its lifecycle's
  // bookkeeping, and its first iterations start after it.
  for (; pod.loops < w.spec->closed_loop->in_flight; ++pod.loops)
    s.queue.Push(s.now, kIterationStart, static_cast<uint32_t>(p), pod.loop_epoch);
}

void IterationStart(Simulator& sim, int32_t p, uint32_t epoch) {
  EngineState& s = sim.state;
  PodRun& pod = s.pods[p];
  if (epoch != pod.loop_epoch) return;  // its pod's work was aborted: the loop died with it
  if (s.workloads[pod.workload].job_done || !EndpointOf(s, p).available) {
    --pod.loops;
    return;
  }
  sim.SendIteration(p);
}

void IterationEnded(Simulator& sim, int32_t r, bool success, int64_t ErrorCounts::*cause) {
  if (cause == &ErrorCounts::interrupted) return;  // AbortWork ended the loop (a new epoch)
  EngineState& s = sim.state;
  const Request& req = s.requests[r];
  const int32_t p = req.pod;
  const PodRun& pod = s.pods[p];
  const int32_t w_index = pod.workload;
  WorkloadRun& w = s.workloads[w_index];
  const ClosedLoop& loop = *w.spec->closed_loop;
  // A step is a success before the job is done; a failed one is sent again after the think.
  if (success && !w.job_done) {
    if (req.counted) {
      // Its GPU phase alone on a whole card of its type (the slowdown's yardstick).
      const double speed = pod.cards.empty() ? 1 : sim.sharing.cards[pod.cards[0]].speed;
      sim.recorder.IterationSucceeded(w_index, req.work_s * 1e9 / (speed * pod.throughput_factor));
    }
    if (++w.steps_done == loop.steps) {
      w.job_done = true;
      sim.recorder.JobCompleted(w_index);
      s.queue.Push(s.now, kJobComplete, static_cast<uint32_t>(w_index));
    }
  }
  s.queue.Push(s.now + loop.think, kIterationStart, static_cast<uint32_t>(p), pod.loop_epoch);
}

void CompleteJob(Simulator& sim, int32_t w) {
  const WorkloadRun& run = sim.state.workloads[w];
  ScaleWorkload(sim, w, 0,
                "job completed its " + std::to_string(run.spec->closed_loop->steps) + " steps");
}

}  // namespace knobsim::engine
