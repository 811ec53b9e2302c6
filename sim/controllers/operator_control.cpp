#include "sim/controllers/operator_control.h"

#include <algorithm>

#include "sim/controllers/image_pulls.h"
#include "sim/controllers/pending_pods.h"
#include "sim/controllers/pod_lifecycle.h"
#include "sim/controllers/termination.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {
namespace {

// `kubectl get pods` STATUS of a pod that exists.
const char* PodStatus(const EngineState& s, const PodRun& pod) {
  if (pod.terminating) return "Terminating";
  if (pod.node < 0) return "Pending";
  if (s.nodes[pod.node].down()) return "NodeLost";
  if (pod.phase == PodPhase::kPulling || pod.phase == PodPhase::kPending)
    return "ContainerCreating";
  if (pod.phase == PodPhase::kImagePullBackOff) return "ImagePullBackOff";
  if (pod.phase == PodPhase::kCrashLoop || (pod.restarts > 0 && pod.phase == PodPhase::kLoading))
    return "CrashLoopBackOff";
  return "Running";
}

}  // namespace

SimTime OperatorControl::Now() const {
  return sim_.state.now;
}

const Scenario& OperatorControl::scenario() const {
  return sim_.state.scenario;
}

int OperatorControl::NodeCount() const {
  return static_cast<int>(sim_.state.nodes.size());
}

NodeView OperatorControl::Node(int n) const {
  const EngineState& s = sim_.state;
  NodeView view;
  const knobsim::Node& node = s.cluster.nodes[n];
  view.name = node.name;
  view.pool = node.pool;
  view.zone = node.zone;
  view.cordoned = s.nodes[n].cordoned;
  view.down = s.nodes[n].down();
  return view;
}

std::vector<PodView> OperatorControl::Pods() const {
  const EngineState& s = sim_.state;
  std::vector<PodView> pods;
  for (size_t i = 0; i < s.pods.size(); ++i) {
    const PodRun& pod = s.pods[i];
    if (pod.gone) continue;
    const Workload& spec = *s.workloads[pod.workload].spec;
    PodView v;
    v.id = static_cast<int>(i);
    v.workload = pod.workload;
    v.replica = pod.replica;
    v.namespace_ = spec.namespace_;
    v.name = pod.name;
    v.node = pod.node;
    v.ready = pod.phase == PodPhase::kServing || pod.phase == PodPhase::kFakeReady;
    v.available = pod.phase == PodPhase::kServing && !pod.terminating;
    v.terminating = pod.terminating;
    const bool waiting = pod.node < 0 || pod.phase == PodPhase::kPending ||
                         pod.phase == PodPhase::kPulling ||
                         pod.phase == PodPhase::kImagePullBackOff;
    v.phase = waiting ? "Pending" : "Running";
    v.status = PodStatus(s, pod);
    if (spec.kind != "DaemonSet") v.controller_scale = s.workloads[pod.workload].desired;
    pods.push_back(std::move(v));
  }
  return pods;
}

void OperatorControl::SetCordoned(int n, bool cordoned) {
  EngineState& s = sim_.state;
  s.nodes[n].cordoned = cordoned;
  // A spot node under its interruption notice stays cordoned whatever the operator does.
  s.cluster_state.SetUnschedulable(n, cordoned || s.nodes[n].down() || s.nodes[n].notified);
  if (!cordoned) SchedulePending(sim_);
}

void OperatorControl::DeletePod(int pod, const std::string& why) {
  engine::DeletePod(sim_, pod, why);
}

// The node leaves (drained, one hopes): what still runs there stops at once. DaemonSet pods
// stay bound and start again when it is back; any other pod is deleted, and replaced.
void OperatorControl::TakeNodeDown(int n, const std::string& why) {
  EngineState& s = sim_.state;
  if (s.nodes[n].resetting) return;
  s.nodes[n].resetting = true;
  s.nodes[n].images.clear();
  s.cluster_state.SetUnschedulable(n, true);
  const std::vector<int32_t> held = s.nodes[n].pods;  // Terminate edits the node's list
  for (int32_t p : held) {
    if (s.pods[p].gone) continue;
    if (s.workloads[s.pods[p].workload].spec->kind == "DaemonSet") {
      EvictPod(sim_, p, why);
      continue;
    }
    sim_.AbortWork(p);
    StopContainer(sim_, p);
    engine::DeletePod(sim_, p, why);  // nothing in flight: it is gone at this instant
  }
  sim_.recorder.NodeEvent("NodeDown", n, why);
}

void OperatorControl::BringNodeUp(int n, const NodeSettings& settings) {
  EngineState& s = sim_.state;
  if (!s.nodes[n].resetting) return;
  s.nodes[n].resetting = false;
  const knobsim::Node& node = s.cluster.nodes[n];
  const NodePool& pool = s.scenario.node_pools[node.pool];
  for (int c = node.first_card; c < node.first_card + node.num_cards; ++c) {
    CardRun& card = sim_.sharing.cards[c];
    if (settings.isolation) card.isolation = *settings.isolation;
    // Where cGPU does not run, the driver's own time-slicing stays (docs/design.md §3.2).
    if (settings.policy && pool.cgpu_active) card.params.policy = *settings.policy;
    card.membership_changed = true;
  }
  s.cluster_state.SetUnschedulable(n, s.nodes[n].cordoned || s.nodes[n].reclaimed);
  if (!s.nodes[n].reclaimed) {
    for (int32_t p : s.nodes[n].pods)
      if (!s.pods[p].gone && s.pods[p].phase == PodPhase::kPending) StartOnNode(sim_, p);
  }
  std::string how = "is back";
  if (settings.isolation)
    how += *settings.isolation == MemoryIsolation::kHard ? " with memory isolation hard"
                                                         : " with memory isolation soft";
  sim_.recorder.NodeEvent("NodeUp", n, how);
  SchedulePending(sim_);
}

void OperatorControl::WakeAt(SimTime at, uint64_t token) {
  EngineState& s = sim_.state;
  s.wake_tokens.push_back(token);
  s.queue.Push(std::max(at, s.now), kOperatorWake, static_cast<uint32_t>(s.wake_tokens.size() - 1));
}

void OperatorControl::EndRunAt(SimTime at) {
  EngineState& s = sim_.state;
  s.end = std::min(s.end, std::max(at, s.now));
}

void OperatorControl::Record(const std::string& kind, const std::string& pod,
                             const std::string& message) {
  sim_.recorder.Event(kind, pod, message);
}

}  // namespace knobsim::engine
