// ClusterState: the scheduler's snapshot — every node, what is bound on it, and its cards.
//
// Pods bound here are the ones the real scheduler would see (phase Succeeded/Failed excluded by
// the caller). Requested amounts are kept per node so a filter reads them in O(1); pods are
// kept per node (indexes into `pods`) for topology spread counting. Binding a pod updates the
// node's requests, its cards' occupancy and the pod lists; nothing else is cached here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/kube_types.h"
#include "sim/scheduler/dra/dra_catalog.h"
#include "sim/scheduler/volume_catalog.h"

namespace knobsim {

// On a HAMi node (NodeSpec::hami) a card is HAMi's DeviceUsage: replicas its vGPU slots (Count),
// total_mem / used_mem in MiB (Totalmem), total_core / used_core its cores (Totalcore).
struct CardState {
  int total_mem = 0;  // gpu-mem units of the card
  int used_mem = 0;
  int total_core = 0;  // gpu-core.percentage of the card (100 on core_mem nodes, else 0)
  int used_core = 0;
  int pods = 0;        // pods holding a share of this card
  bool whole = false;  // held by an nvidia.com/gpu pod
  // On nodes whose device plugin shares cards (NodeSpec::device_sharing): the card's
  // nvidia.com/gpu replicas and how many are held. Such a card is never `whole`.
  int replicas = 0;
  int used_replicas = 0;
};

struct NodeState {
  NodeSpec spec;
  ResourceList requested;         // Σ requests of bound pods (scheduler units)
  int64_t nonzero_cpu_milli = 0;  // Σ non-zero-defaulted requests (scoring)
  int64_t nonzero_memory_bytes = 0;
  std::vector<int> pods;         // indexes into ClusterState::pods
  std::vector<CardState> cards;  // one per physical card, by index
  // Bumped by every Bind / BindExisting / Unbind that touches the node, so the Scheduler can
  // tell which nodes changed since its last cycle without rereading their state.
  uint64_t generation = 0;
  // Not in the cluster (ClusterState::SetAbsent): a node-pool slot without a node now.
  bool absent = false;
};

// Where a pod goes: a node and, for GPU pods, the units it takes on each card.
struct Placement {
  int node = -1;
  std::vector<int> cards;       // card indexes on the node
  std::vector<int> mem_units;   // gpu-mem units per chosen card (same order)
  std::vector<int> core_units;  // gpu-core percent per chosen card (same order)
  std::vector<int> replicas = {};  // nvidia.com/gpu replicas per chosen card on a shared node
  double bottleneck_gbps = 0;   // slowest link inside a multi-card set (0: one card or unknown)
  // The allocations of the pod's DRA claims not allocated before, in the order
  // DraCatalog::ClaimsOf lists them (the DynamicResources filter's result for the node).
  std::vector<DraAllocation> dra_allocations = {};
  // DRAExtendedResource: the claim the scheduler makes for the pod's extended resources on the
  // node (its allocation last in dra_allocations); the bind adds it to the catalog and to the
  // pod's claims.
  std::optional<ResourceClaimSpec> extended_resource_claim = {};
};

class ClusterState {
 public:
  // Adds a node; its cards come from spec.gpu_cards / card_mem_units / card_core_percent.
  int AddNode(NodeSpec spec);
  // Records a pod bound at `placement` (requests, cards, pod lists). Returns the pod's index.
  int Bind(PodSpec pod, const Placement& placement);
  // Binds a pod read from a manifest at spec.node_name with the allocation its annotations
  // carry. Returns -1 when the node is unknown.
  int BindExisting(PodSpec pod);
  // Removes a bound pod (its resources are freed); the index stays valid but empty.
  void Unbind(int pod);
  // Binds an unbound pod again at its own index, with `placement` (its node's pod list in index
  // order, as before): preemption's dry run takes victims out and puts them back this way, and
  // the cluster is then what it was (the revision moves, as after any change).
  void Rebind(int pod, const Placement& placement);
  // Marks a bound pod as being deleted by a preemption (metadata.deletionTimestamp and the
  // DisruptionTarget condition): it keeps its resources until it is unbound.
  void MarkPreempted(int pod);
  // Whether some bound pod has a priority below `priority` (preemption has a victim somewhere).
  bool HasBoundPodBelow(int priority) const {
    return !bound_priorities_.empty() && bound_priorities_.begin()->first < priority;
  }
  // Cordons (true) or uncordons a node: spec.unschedulable, read by the NodeUnschedulable filter.
  void SetUnschedulable(int node, bool unschedulable);
  // Takes a node out of the cluster (true) or brings it back, keeping its index. An absent
  // node is not in the scheduler's snapshot at all: no filter or score sees it, it makes no
  // topology domain and counts in no "0/N nodes are available" message. Node-pool autoscaling
  // keeps a pool's nodes up to its maximum this way (sim/controllers/node_autoscaling.h). Pods
  // must be unbound from a node before it goes.
  void SetAbsent(int node, bool absent);
  // Nodes not absent; and a counter bumped whenever that set changes.
  int present_count() const { return static_cast<int>(nodes_.size()) - absent_count_; }
  uint64_t membership() const { return membership_; }
  // Moves with every change a scheduler can see (a bind, an unbind, a node added, cordoned,
  // taken out or brought back, volumes, namespace labels) to a number no ClusterState has had
  // before, so equal revisions mean the same cluster: a cache keyed on it is never stale, even
  // across copies.
  uint64_t revision() const { return revision_; }
  // Node changes (a generation moved) counted since the state began, and the nodes of those
  // after `since` (an earlier change_count()), oldest first, repeats possible: a cache refreshes
  // only them. nullopt when the record no longer reaches back that far (it keeps about two
  // changes per node): the caller then looks at every node.
  uint64_t change_count() const { return changes_before_ + changed_nodes_.size(); }
  std::optional<std::span<const int>> NodesChangedSince(uint64_t since) const;

  // The labels of a Namespace object read with the cluster (inter-pod affinity's
  // namespaceSelector reads them). A namespace without one has the label the API server gives
  // every namespace, kubernetes.io/metadata.name=<name>, and no other.
  void SetNamespaceLabels(const std::string& ns, Labels labels);
  Labels NamespaceLabels(const std::string& ns) const;
  bool has_namespace_objects() const { return !namespace_labels_.empty(); }

  // The claims, volumes and classes the volume plugins read. A bind does not bind or provision
  // volumes (WaitForFirstConsumer claims stay unbound for the pods after).
  void SetVolumes(VolumeCatalog volumes) {
    volumes_ = std::move(volumes);
    Revise();
  }
  const VolumeCatalog& volumes() const { return volumes_; }

  // The DRA devices, classes and claims (dra/dra_catalog.h). A bind allocates and reserves the
  // pod's claims (Placement::dra_allocations), an unbind releases them, a rebind restores them.
  void SetDra(DraCatalog dra) {
    dra_ = std::move(dra);
    Revise();
  }
  const DraCatalog& dra() const { return dra_; }
  // DynamicResources' PostFilter: the claim loses its allocation and reservations.
  void DeallocateClaim(const std::string& ns, const std::string& name) {
    dra_.Deallocate(ns, name);
    Revise();
  }

  int FindNode(const std::string& name) const;
  const std::vector<NodeState>& nodes() const { return nodes_; }
  const NodeState& node(int i) const { return nodes_[i]; }
  const std::vector<PodSpec>& pods() const { return pods_; }
  const PodSpec& pod(int i) const { return pods_[i]; }
  const Placement& placement(int pod) const { return placements_[pod]; }
  bool bound(int pod) const { return placements_[pod].node >= 0; }

 private:
  static uint64_t NextRevision();
  void Revise() { revision_ = NextRevision(); }
  void NodeChanged(int node);  // its generation, the revision and the record of changes

  std::vector<NodeState> nodes_;
  std::vector<PodSpec> pods_;
  std::vector<Placement> placements_;
  std::unordered_map<std::string, int> node_index_;  // name -> index, for FindNode
  int absent_count_ = 0;
  uint64_t membership_ = 0;
  uint64_t revision_ = NextRevision();
  std::vector<int> changed_nodes_;  // the last node changes, oldest first
  uint64_t changes_before_ = 0;     // changes no longer in changed_nodes_
  std::unordered_map<std::string, Labels> namespace_labels_;
  VolumeCatalog volumes_;
  DraCatalog dra_;
  std::map<int, int> bound_priorities_;  // priority -> bound pods with it

  // A bind's effect on the node, its cards and the priorities, for Bind and Rebind.
  void Occupy(int pod, const Placement& placement);
  // A bind's effect on the pod's DRA claims.
  void BindClaims(const PodSpec& pod, const std::vector<DraAllocation>& allocations);
};

}  // namespace knobsim
