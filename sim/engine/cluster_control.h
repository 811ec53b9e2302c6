// ClusterControl: what a model that operates the cluster during a run may see and do — the
// kubectl verbs (cordon, evict, uncordon) and the cloud's (take a node down for a reset, bring it
// back with new settings). The simulator implements it (sim/controllers/operator_control.h); a
// ClusterOperator (the rolling upgrade of sim/upgrade/) is called at t = 0, at the times it asked
// to be woken, and when a pod it deleted is gone. The simulation kernel stays free of any one
// procedure: cordon/drain/reset order, PodDisruptionBudgets and retries live in the operator.
//
// What the simulator does on its own, as Kubernetes' controllers would (docs/upgrade.md):
//  * a deleted pod leaves its Service at once (Terminating), finishes the requests it holds for
//    up to the termination grace period, then is gone; its GPU memory and its node resources
//    are freed then;
//  * a Deployment's ReplicaSet creates the replacement at once, a StatefulSet (same name) once
//    the old pod is gone; a bare Pod, Job or DaemonSet pod is not replaced;
//  * Pending pods are scheduled again (sim/scheduler, priority then creation order) whenever
//    capacity may have appeared: a pod gone, a node uncordoned or back;
//  * a pod starting on a node pulls its image unless the node already holds it; a node taken
//    down loses its image cache; an image the registry no longer has ends in ImagePullBackOff.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/memory_isolation.h"
#include "models/sharing_policy.h"
#include "sim/event_queue.h"
#include "sim/scenario.h"

namespace knobsim {

// One pod as the API server lists it now.
struct PodView {
  int id = -1;        // stable while the pod exists; a replacement is a new id
  int workload = -1;  // index into Scenario::workloads
  int replica = 0;    // the replica ordinal it stands for
  std::string namespace_;
  std::string name;
  int node = -1;             // index of ClusterControl::Node; -1 = not bound (Pending)
  std::string phase;         // the API phase: Pending | Running
  bool ready = false;        // condition Ready=True — a fake-Ready pod IS Ready here
  bool available = false;    // Ready with its model loaded: what the service can use
  bool terminating = false;  // deletionTimestamp set: leaving
  std::string status;        // `kubectl get pods` STATUS: Running, ContainerCreating, Pending,
                             // ImagePullBackOff, CrashLoopBackOff, Terminating, NodeLost
  // Its controller's /scale now (spec.replicas: the scenario's, or what an HPA or CronHPA last
  // set), which a disruption budget's percentage and maxUnavailable rules read; -1 when unknown
  // (the scenario's replicas stand in) or for a DaemonSet's pod.
  int controller_scale = -1;
};

struct NodeView {
  std::string name;
  int pool = -1;  // index into Scenario::node_pools
  std::string zone;
  bool cordoned = false;  // spec.unschedulable
  bool down = false;      // taken down (reset in progress), not back yet
};

// What a reset node comes back with; unset fields keep what the node had.
struct NodeSettings {
  std::optional<MemoryIsolation> isolation;  // cGPU memory isolation on its cards
  std::optional<SharingPolicy> policy;       // cGPU POLICY on its cards
  std::optional<std::string> cgpu_version;   // informational: shown in the node's timeline
};

class ClusterControl {
 public:
  virtual SimTime Now() const = 0;
  virtual const Scenario& scenario() const = 0;
  virtual int NodeCount() const = 0;
  virtual NodeView Node(int node) const = 0;
  // Every pod that exists now (terminating ones included), by id.
  virtual std::vector<PodView> Pods() const = 0;
  virtual void SetCordoned(int node, bool cordoned) = 0;
  // The pod is deleted (an accepted eviction): it starts terminating now. The operator hears
  // PodGone when it has left. Deleting a terminating or gone pod does nothing.
  virtual void DeletePod(int pod, const std::string& why) = 0;
  // The node leaves for its reset: what still runs there stops (requests in flight fail as
  // `interrupted`), pods other than DaemonSet pods are deleted at once, the image cache is lost.
  virtual void TakeNodeDown(int node, const std::string& why) = 0;
  // The node rejoins with `settings`, still cordoned; its DaemonSet pods start again.
  virtual void BringNodeUp(int node, const NodeSettings& settings) = 0;
  // Calls ClusterOperator::Wake(token) at `at` (>= Now()).
  virtual void WakeAt(SimTime at, uint64_t token) = 0;
  // The run ends at `at` instead of its planned end (never later than that).
  virtual void EndRunAt(SimTime at) = 0;
  // A cluster event in the results (ClusterEvent): kind, "namespace/pod" or "", message.
  virtual void Record(const std::string& kind, const std::string& pod,
                      const std::string& message) = 0;

 protected:
  ~ClusterControl() = default;
};

// A model that operates the cluster while traffic flows (knobsim upgrade's rolling reset).
class ClusterOperator {
 public:
  virtual ~ClusterOperator() = default;
  virtual void Start(ClusterControl& cluster) = 0;  // at t = 0, before any event
  virtual void Wake(ClusterControl& cluster, uint64_t token) = 0;
  // A pod it (or anyone) deleted has finished terminating and no longer exists.
  virtual void PodGone(ClusterControl& cluster, int pod) = 0;
};

}  // namespace knobsim
