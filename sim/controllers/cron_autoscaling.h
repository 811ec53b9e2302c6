// ACK's CronHPA on the simulated clock (docs/autoscaling.md "CronHPA"). Every workload with a
// `cron_hpa` gets the controller's jobs, each firing at its schedule's times on the wall clock
// (RunSettings::start_unix_s at t = 0, the controller's UTC offset); a fire is one run of
// sim/autoscaling/cron_hpa.h's RunCronHpaJob:
//  * on the workload itself: its scale subresource set to targetSize (pods created or deleted
//    as the HPA's scaling does, sim/controllers/horizontal_autoscaling.h);
//  * on its HPA: the HPA's minReplicas / maxReplicas moved to admit targetSize (its next sync
//    reads them), and the workload raised to targetSize when the HPA's current replicas are
//    below it.
// Each run is an event on the CronHPA ("Succeed" or "Failed", with upstream's message). A job
// fires first at its first time at or after t = 0 (the controller was running before the run);
// runOnce jobs (and `@date` ones) fire once. Not modelled: the GC loop's reruns of jobs with no
// next fire, retries of failed writes (the only failures here are validation, which retries
// do not cure), and the order of jobs firing at the same second (spec order here; upstream's
// is random).
#pragma once

#include <cstdint>

namespace knobsim::engine {

class Simulator;

// The first fire of every job of every workload's CronHPA (after StartAutoscalers).
void StartCronAutoscalers(Simulator& sim);
// kCronHpaFire: job `job` of CronHPA `c` runs, and its next fire is pushed.
void FireCronJob(Simulator& sim, int32_t c, int32_t job);

}  // namespace knobsim::engine
