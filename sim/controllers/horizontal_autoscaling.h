// The HorizontalPodAutoscaler on the simulated clock (docs/autoscaling.md). Every workload with
// an `hpa` gets a controller (sim/autoscaling/horizontal_controller.h) that syncs at t = 0 and
// every sync period after. At each sync it reads the metrics a metrics adapter would serve from
// the simulated pods, and scales the workload as its ReplicaSet or StatefulSet would:
//  * the metrics (HpaMetricKind): a pod's GPU utilization is the busy fraction of its cards (a
//    card is busy while any pod runs work on it — DCGM_FI_DEV_GPU_UTIL is a device metric, so
//    pods sharing a card see the same value) over the metric window; its request rate the
//    requests routed to it over the window; in flight and GPU memory are gauges at the sync;
//    the external request rate is the Service's arrivals over the window. A pod's sample is the
//    change since the oldest sync inside the window that saw it Running: a pod Running for less
//    than one sync has no sample yet (a missing pod), as a rate over a single scrape has none.
//    A pod's cpu is its requests' CPU stages (CpuUsage, engine_state.h) over the window, in
//    millicores rounded up (metrics-server's usage: a rate of the kubelet's counter), against
//    the workload's cpu request (Utilization targets; none: the metric fails each sync, as
//    upstream's "missing request for cpu"). A pod's startTime and Ready transition feed the
//    CPU readiness rules.
//  * Pods bound and starting (pulling, loading) are Running; unbound or pulling pods Pending;
//    terminating pods are deleted (ignored by the calculation).
//  * a scale-up creates the new pods at once (Pending, then scheduled, pulled and loaded like
//    any pod); a scale-down deletes pods, which drain their requests for the grace period and
//    are not replaced. A ReplicaSet deletes unbound pods first, then Pending before Running,
//    not Ready before Ready, then the newest (controller.ActivePods); a StatefulSet its highest
//    ordinals.
// Each rescale is a cluster event "SuccessfulRescale" with upstream's message ("New size: N;
// reason: ...").
#pragma once

#include <cstdint>
#include <string>

#include "sim/event_queue.h"

namespace knobsim::engine {

class Simulator;

// A pod's cpu sample: `core_ns` of CPU used over `dt`, as average cores in millicores rounded
// up (metrics-server's usage over its window, then Quantity.MilliValue).
int64_t AverageMillicores(int64_t core_ns, SimTime dt);

// Creates the controllers of the workloads with an HPA and their first syncs (t = 0).
void StartAutoscalers(Simulator& sim);
// kHpaSync: one sync of HPA `h`, and the next one pushed.
void SyncAutoscaler(Simulator& sim, int32_t h);

// The workload's scale subresource set to `replicas` (by its HPA or its CronHPA): pods created
// or deleted as above, `why` in their events.
void ScaleWorkload(Simulator& sim, int32_t w, int32_t replicas, const std::string& why);

}  // namespace knobsim::engine
