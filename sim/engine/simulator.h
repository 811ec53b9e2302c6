// Simulator: the kernel of one run — the clock, the event dispatch and the request flow.
//
// A request arrives (its workload's arrival process), is routed to a Ready replica, optionally
// spends CPU time, waits in the pod's FIFO queue, runs on the GPU as a job (one request, or one
// dynamic batch) under the card-sharing model, optionally spends CPU time again, and departs —
// or times out, or fails (no replica, a fake-Ready pod, CUDA OOM for its activations, its pod
// stopped under it). That much lives here; the rest is delegated:
//  * CardSharing (card_sharing.h): the cards, their shares, rates, completions and memory;
//  * RunRecorder (run_recorder.h): every count, integral and timeline step, and the RunResult;
//  * EventLookahead (lookahead.h): prefetches the next events' records (hints only);
//  * the controllers (sim/controllers/): placement, the pods' lifecycle and endpoints, image
//    pulls, spot reclaims, deletion and termination, replacement, the Pending queue, and the
//    ClusterControl a ClusterOperator drives (RunOptions::cluster_operator).
// The collaborators are public members: the controllers are free functions on the Simulator.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/controllers/operator_control.h"
#include "sim/engine/card_sharing.h"
#include "sim/engine/engine_state.h"
#include "sim/engine/lookahead.h"
#include "sim/engine/run_recorder.h"

namespace knobsim::engine {

class Simulator {
 public:
  Simulator(const Scenario& scenario, uint64_t seed, const RunOptions& options);
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Places the pods, runs the events up to the end and collects the results.
  RunResult Run();

  // The pod stops whatever it was doing: pending lifecycle events are cancelled and every
  // request routed to it fails as `interrupted`. Its container is still in P (StopContainer).
  void AbortWork(int32_t p);
  // A closed-loop job's next iteration, sent to pod p (sim/controllers/closed_loops.h).
  void SendIteration(int32_t p);

  // The scenario with each DaemonSet's pods laid out over the nodes (daemon_sets.h), when it has
  // DaemonSets; `state` runs it.
  std::optional<Scenario> with_daemon_pods_;
  EngineState state;
  CardSharing sharing;
  RunRecorder recorder;
  OperatorControl control;
  EventLookahead lookahead;

 private:
  void Dispatch(const Event& e);
  void Arrive(int32_t stream);  // an index into EngineState::streams
  int32_t Route(WorkloadRun& w);
  int32_t RouteToOwnPod(ArrivalStream& stream, WorkloadRun& w);
  // A new request of workload w with work_s of work (its record set up, counted if after the
  // warm-up).
  int32_t NewRequest(int32_t w, double work_s);
  // Request r goes to pod p: its timeout starts, then its CPU stage or the pod's queue.
  void Admit(int32_t r, int32_t p);
  void Enqueue(int32_t r);
  void TryStartService(int32_t p);
  void CompleteCard(int32_t c);
  void FinishJob(int32_t j);
  void Depart(int32_t r, bool success, int64_t ErrorCounts::*cause);
  void Account(int32_t r, bool success, int64_t ErrorCounts::*cause);
  void FreeJobRequests(int32_t j);
  void Timeout(int32_t r);

  std::vector<int32_t> done_jobs_;  // scratch for CompleteCard
};

}  // namespace knobsim::engine
