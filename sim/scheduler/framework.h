// The scheduling framework's plugin interfaces, after kube-scheduler's
// (pkg/scheduler/framework): filters reject a node with a PluginStatus (upstream's Status, named
// apart from the failure Status of sim/input_error.h) carrying reasons; scores rate feasible
// nodes 0..100 after normalisation; the Scheduler (sim/scheduler/scheduler.h) runs them in
// upstream order and composes the FailedScheduling message from the reasons.
//
// Plugins are per-Scheduler objects used by one thread. PreFilter / PreScore may compute
// per-pod state (topology spread counts, ...) and keep it in the plugin until the next pod.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"
#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {

enum class StatusCode {
  kSuccess,
  kUnschedulable,                 // preemption might help
  kUnschedulableAndUnresolvable,  // preemption cannot help
  // Something is wrong with the pod's own objects (a claim's CEL selector fails): upstream's
  // statusError, which aborts the scheduling cycle on the first node that returns it.
  kError,
};

struct PluginStatus {
  StatusCode code = StatusCode::kSuccess;
  std::vector<std::string> reasons;  // e.g. {"Insufficient cpu", "Insufficient memory"}
  bool ok() const { return code == StatusCode::kSuccess; }
  static PluginStatus Success() { return {}; }
  static PluginStatus Unschedulable(std::string reason) {
    return {StatusCode::kUnschedulable, {std::move(reason)}};
  }
  static PluginStatus Unresolvable(std::string reason) {
    return {StatusCode::kUnschedulableAndUnresolvable, {std::move(reason)}};
  }
  static PluginStatus Error(std::string reason) {
    return {StatusCode::kError, {std::move(reason)}};
  }
};

// Wording that changed across Kubernetes releases (docs/semantics.md §3.4, §3.7).
struct KubeVersion {
  int minor = 35;    // 1.<minor>; default: current upstream
  bool dra = false;  // DRA-enabled cluster: "no new claims to deallocate, " phrase
  // Set per pod by the Scheduler: what DynamicResources' PostFilter answered for a pod whose
  // claims passed its PreFilter (DynamicResourcesPlugin::PostFilter); empty otherwise, and the
  // answer is "no new claims to deallocate" where the cluster runs DRA.
  std::string_view dra_answer;
  // "1.28", "1.35+dra"; bad text is an error that is only a message (the caller names the
  // option it came from).
  static Expected<KubeVersion> Parse(std::string_view text);
};

class FilterPlugin {
 public:
  virtual ~FilterPlugin() = default;
  virtual std::string_view Name() const = 0;
  // Per-pod preparation. A non-success status rejects the pod on every node (PreFilter message).
  virtual PluginStatus PreFilter(const PodSpec&, const ClusterState&) {
    return PluginStatus::Success();
  }
  virtual PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int node) const = 0;
  // After PreFilter: true when Filter passes every node for that pod (upstream's PreFilter `Skip`
  // status), so the Scheduler may leave it out.
  virtual bool Skipped() const { return false; }
  // After PreFilter: the only nodes the pod may go to (upstream's PreFilterResult.NodeNames;
  // sorted and unique; names of nodes that do not exist are allowed and ignored), or nullptr for
  // every node. The
  // Scheduler filters only those; the others get the release's status for nodes outside the
  // PreFilter result (docs/semantics.md §3.7).
  virtual const std::vector<std::string>* PreFilterNodeNames() const { return nullptr; }
};

// DynamicResources (filters/dynamic_resources.cpp): a filter whose Filter also finds the DRA
// devices of the pod's unallocated claims on each node it passes; the Scheduler hands the
// winner's to the bind (Placement::dra_allocations).
class DynamicResourcesPlugin : public FilterPlugin {
 public:
  // The allocations of the last cycle's unallocated claims on `node`, a node its Filter passed
  // (empty when there was nothing to allocate).
  virtual std::vector<DraAllocation> Allocations(const ClusterState& cluster, int node) const = 0;
  // After PreFilter: DRAExtendedResource is on and a DeviceClass backs some extended resource
  // the pod asks, so on a node that offers none of it the plugin allocates a claim of its own
  // for it (upstream's special claim).
  virtual bool MakesExtendedResourceClaim() const = 0;
  // That claim on `node` (a node its Filter passed), named `<pod>-extended-resources` and owned
  // by the pod; nullopt where the node's device plugins serve every such resource.
  virtual std::optional<ResourceClaimSpec> ExtendedResourceClaim(int node) const = 0;
  // After a cycle in which no node passed: what the plugin's PostFilter does and answers
  // (kNoClaimsToDeallocate, kStillNotSchedulable, or a claim deallocated in `cluster`).
  virtual std::string_view PostFilter(const PodSpec& pod, ClusterState& cluster) = 0;
  // Upstream's Score (1.35+, prioritized lists): whether some unallocated claim of the pod has a
  // firstAvailable request (else every node scores 0), and for a node a Filter passed the sum,
  // over those requests, of 8 minus the index of the entry the node's allocation uses.
  virtual bool HasPrioritizedLists() const = 0;
  virtual int64_t PrioritizedListScore(const ClusterState& cluster, int node) const = 0;
};

// DynamicResources' PostFilter answers (upstream's texts).
inline constexpr std::string_view kNoClaimsToDeallocate = "no new claims to deallocate";
inline constexpr std::string_view kStillNotSchedulable = "still not schedulable";

class ScorePlugin {
 public:
  virtual ~ScorePlugin() = default;
  virtual std::string_view Name() const = 0;
  virtual int Weight() const = 0;
  // Per-pod preparation over the nodes that passed every filter.
  virtual void PreScore(const PodSpec&, const ClusterState&, std::span<const int> /*feasible*/) {}
  // Raw score of one feasible node.
  virtual int64_t Score(const PodSpec& pod, const ClusterState& cluster, int node) const = 0;
  // Normalises the raw scores of the feasible nodes (same order as PreScore's list) to 0..100
  // in place. Default: none (the plugin already scores 0..100).
  virtual void Normalize(std::span<const int> /*feasible*/, std::span<int64_t> /*scores*/) const {}
  // After PreScore: true when, for that pod, every feasible node gets the same normalised score
  // (upstream's PreScore `Skip` status, or a constant), so the Scheduler may leave Score and
  // Normalize out: a constant added to every node cannot change which node wins.
  virtual bool Skipped() const { return false; }
};

}  // namespace knobsim
