// Closed-loop jobs (Workload::closed_loop, docs/scenario.md "Closed-loop jobs"): a training or
// batch job that sends itself its work instead of answering traffic.
//
// Each pod of such a workload keeps `in_flight` loops from the moment it is available (Serving,
// model loaded, not terminating). A loop sends an iteration — a request to that pod, its work
// drawn from the workload's work stream, through its CPU stages, queue and GPU as any request —
// and when the iteration leaves, waits `think` (the CPU or data phase, off the GPU) and sends the
// next. A failed iteration (timed out, OOM) is sent again after the think time; an interrupted
// one died with its pod's work (AbortWork moves the pod to its next loop epoch, ending every
// loop of it), and the pod's next life starts its loops afresh. A loop whose pod is no longer
// available when it would send ends.
//
// With `steps`, the job is done once that many iterations have succeeded, workload-wide: no
// loop sends again, and the job's pods complete (deleted, the in-flight iterations finishing in
// the grace period), freeing their cards to the pods that share them.
#pragma once

#include <cstdint>

#include "sim/engine/engine_state.h"

namespace knobsim::engine {

class Simulator;

// Pod p just became available: start the loops it lacks (one kIterationStart each, now).
void StartLoops(Simulator& sim, int32_t p);
// A kIterationStart for pod p in loop epoch `epoch`: send the loop's next iteration, or end it.
void IterationStart(Simulator& sim, int32_t p, uint32_t epoch);
// Iteration r left its pod: success, or failure by `cause`. Called as it is accounted, its
// pod still set.
void IterationEnded(Simulator& sim, int32_t r, bool success, int64_t ErrorCounts::*cause);
// A kJobComplete for workload w: its steps are done, its pods complete.
void CompleteJob(Simulator& sim, int32_t w);

}  // namespace knobsim::engine
