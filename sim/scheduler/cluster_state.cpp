#include "sim/scheduler/cluster_state.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <set>
#include <utility>

#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/hami_devices.h"

namespace knobsim {

uint64_t ClusterState::NextRevision() {
  // Shared by every ClusterState (threads included): revisions are never reused.
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void ClusterState::NodeChanged(int node) {
  ++nodes_[node].generation;
  Revise();
  // Dropping the older half once the record holds two changes per node keeps it bounded and
  // each change's cost constant on average.
  if (changed_nodes_.size() >= 2 * nodes_.size() + 64) {
    const size_t drop = changed_nodes_.size() / 2;
    changed_nodes_.erase(changed_nodes_.begin(), changed_nodes_.begin() + static_cast<long>(drop));
    changes_before_ += drop;
  }
  changed_nodes_.push_back(node);
}

std::optional<std::span<const int>> ClusterState::NodesChangedSince(uint64_t since) const {
  if (since < changes_before_ || since > change_count()) return std::nullopt;
  return std::span<const int>(changed_nodes_).subspan(since - changes_before_);
}

int ClusterState::AddNode(NodeSpec spec) {
  Revise();
  const int index = static_cast<int>(nodes_.size());
  NodeState node;
  // Every physical card gets a slot, shared or not: whole-GPU pods mark theirs `whole`. Only
  // sharing nodes have per-card units (card_mem_units is 0 elsewhere, as ACK's device plugin
  // reports no aliyun.com/gpu-mem there).
  node.cards.resize(static_cast<size_t>(std::max(0, spec.gpu_cards)));
  for (CardState& card : node.cards) {
    card.total_mem = spec.card_mem_units;
    card.total_core = spec.card_core_percent;
    if (spec.device_sharing.shared()) card.replicas = spec.device_sharing.replicas;
    if (spec.hami.enabled()) {
      // HAMi's DeviceUsage: Count slots, Totalmem MiB, Totalcore (sim/scheduler/hami_devices.h).
      card.replicas = spec.hami.split_count;
      card.total_mem = spec.hami.devmem_mib;
      card.total_core = spec.hami.devcore;
    }
  }
  // Node names are unique in Kubernetes; should a caller add one twice, the first keeps the name.
  node_index_.emplace(spec.name, index);
  node.spec = std::move(spec);
  nodes_.push_back(std::move(node));
  return index;
}

int ClusterState::FindNode(const std::string& name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? -1 : it->second;
}

int ClusterState::Bind(PodSpec pod, const Placement& placement) {
  assert(placement.node >= 0 && placement.node < static_cast<int>(nodes_.size()));
  const int index = static_cast<int>(pods_.size());
  if (const std::optional<ResourceClaimSpec>& claim = placement.extended_resource_claim) {
    // Upstream records it in the pod's status.extendedResourceClaimStatus; an entry of the
    // pod's claims lets unbind and rebind find it as they find the others.
    dra_.AddClaim(*claim);
    PodResourceClaim& entry = pod.resource_claims.emplace_back();
    entry.name = kExtendedResourceClaimEntry;
    entry.resource_claim_name = claim->name;
  }
  if (!pod.resource_claims.empty()) BindClaims(pod, placement.dra_allocations);
  pods_.push_back(std::move(pod));
  placements_.emplace_back();
  Occupy(index, placement);
  return index;
}

void ClusterState::BindClaims(const PodSpec& pod, const std::vector<DraAllocation>& allocations) {
  ClaimLookupError error;
  const std::vector<PodClaimRef> claims = dra_.ClaimsOf(pod, &error);
  // A pod whose claims cannot be resolved was not placed by the DynamicResources filter: an
  // export's running pod, bound as it is, holding what its claims already say.
  if (!error) dra_.Bind(pod, claims, allocations);
}

void ClusterState::Rebind(int pod, const Placement& placement) {
  assert(pod >= 0 && pod < static_cast<int>(pods_.size()) && !bound(pod));
  assert(placement.node >= 0 && placement.node < static_cast<int>(nodes_.size()));
  if (!pods_[pod].resource_claims.empty()) dra_.Restore(pods_[pod]);
  Occupy(pod, placement);
  // Bind appends, so a node's list is in index order; a pod put back goes where it was.
  std::vector<int>& on_node = nodes_[placement.node].pods;
  std::rotate(std::lower_bound(on_node.begin(), on_node.end() - 1, pod), on_node.end() - 1,
              on_node.end());
}

void ClusterState::Occupy(int index, const Placement& placement) {
  const PodSpec& pod = pods_[index];
  NodeState& node = nodes_[placement.node];
  NodeChanged(placement.node);
  for (const auto& [resource, amount] : pod.requests) node.requested[resource] += amount;
  node.nonzero_cpu_milli += pod.nonzero_cpu_milli;
  node.nonzero_memory_bytes += pod.nonzero_memory_bytes;
  node.pods.push_back(index);
  const bool whole = pod.whole_gpus > 0;
  for (size_t i = 0; i < placement.cards.size(); ++i) {
    const int c = placement.cards[i];
    assert(c >= 0 && c < static_cast<int>(node.cards.size()));
    CardState& card = node.cards[c];
    if (i < placement.replicas.size()) {
      card.used_replicas += placement.replicas[i];
    } else if (whole) {
      card.whole = true;
    }
    if (i < placement.mem_units.size()) card.used_mem += placement.mem_units[i];
    if (i < placement.core_units.size()) card.used_core += placement.core_units[i];
    ++card.pods;
  }
  ++bound_priorities_[pod.priority];
  placements_[index] = placement;
}

void ClusterState::MarkPreempted(int pod) {
  if (pod < 0 || pod >= static_cast<int>(pods_.size()) || !bound(pod)) return;
  pods_[pod].terminating = true;
  pods_[pod].preempted_by_scheduler = true;
  NodeChanged(placements_[pod].node);  // spreading no longer counts it
}

int ClusterState::BindExisting(PodSpec pod) {
  const int n = FindNode(pod.node_name);
  if (n < 0) return -1;
  const std::vector<CardState>& cards = nodes_[n].cards;
  const int num_cards = static_cast<int>(cards.size());
  Placement placement;
  placement.node = n;
  if (!pod.hami.empty()) {
    // HAMi's vGPUs where hami.io/vgpu-devices-allocated puts them; without it (or naming cards
    // the node has not), where its extender would put them now, in file order. One that fits
    // nowhere occupies no card.
    std::optional<HamiFit> fit = AllocatedHamiPod(pod, nodes_[n]);
    if (!fit) fit = FitHamiPod(pod, nodes_[n]);
    if (fit->fits) placement = HamiPlacement(n, *fit);
  } else if (pod.whole_gpus > 0 && nodes_[n].spec.device_sharing.shared()) {
    // Replicas of shared cards: the device plugin's own allocation, in file order (it records
    // none where the export shows). An over-committed export occupies no card.
    if (auto choice = PlaceOnCards(pod, nodes_[n], CardPolicy::kBinpack, 0).choice) {
      placement.cards = std::move(choice->cards);
      placement.replicas = std::move(choice->replicas);
      placement.mem_units = std::move(choice->mem_units);
      placement.core_units = std::move(choice->core_units);
    }
  } else if (pod.whole_gpus > 0 && pod.allocated_mem.empty() && pod.allocated_core.empty()) {
    // nvidia.com/gpu pods carry no card in their annotations (the NVIDIA device plugin keeps
    // it to itself), so they take the lowest-indexed free cards, in file order. That counts
    // the node's whole cards right; which physical cards they are only matters for topology,
    // and there it is a guess. An over-committed export takes what is free.
    for (int c = 0; c < num_cards && static_cast<int>(placement.cards.size()) < pod.whole_gpus;
         ++c) {
      if (!cards[c].whole && cards[c].pods == 0 && CardServes(nodes_[n].spec, c, pod)) {
        placement.cards.push_back(c);
        placement.mem_units.push_back(0);
        placement.core_units.push_back(0);
      }
    }
  } else {
    // ACK's allocation, card by card. A card the node does not have (an export taken while
    // the node's GPUs changed) is dropped: there is nothing to occupy. A sharing pod without
    // any allocation annotation occupies its node-level aliyun.com/gpu-mem request but no card,
    // as ACK's cache does with a pod whose allocation it cannot read.
    std::set<int> used;
    for (const auto& [card, units] : pod.allocated_mem) used.insert(card);
    for (const auto& [card, units] : pod.allocated_core) used.insert(card);
    for (int c : used) {
      if (c < 0 || c >= num_cards) continue;
      auto mem = pod.allocated_mem.find(c);
      auto core = pod.allocated_core.find(c);
      placement.cards.push_back(c);
      placement.mem_units.push_back(mem == pod.allocated_mem.end() ? 0 : mem->second);
      placement.core_units.push_back(core == pod.allocated_core.end() ? 0 : core->second);
    }
  }
  return Bind(std::move(pod), placement);
}

void ClusterState::SetUnschedulable(int node, bool unschedulable) {
  NodeState& n = nodes_[node];
  if (n.spec.unschedulable == unschedulable) return;
  n.spec.unschedulable = unschedulable;
  NodeChanged(node);
}

void ClusterState::SetAbsent(int node, bool absent) {
  NodeState& n = nodes_[node];
  if (n.absent == absent) return;
  n.absent = absent;
  absent_count_ += absent ? 1 : -1;
  NodeChanged(node);
  ++membership_;
}

void ClusterState::SetNamespaceLabels(const std::string& ns, Labels labels) {
  Revise();
  namespace_labels_[ns] = std::move(labels);
}

Labels ClusterState::NamespaceLabels(const std::string& ns) const {
  const auto it = namespace_labels_.find(ns);
  if (it != namespace_labels_.end()) return it->second;
  return Labels{{kNamespaceNameLabel, ns}};
}

void ClusterState::Unbind(int pod) {
  if (pod < 0 || pod >= static_cast<int>(pods_.size()) || !bound(pod)) return;
  const PodSpec& spec = pods_[pod];
  const Placement& placement = placements_[pod];
  NodeState& node = nodes_[placement.node];
  NodeChanged(placement.node);
  if (!spec.resource_claims.empty()) dra_.Release(spec);
  for (const auto& [resource, amount] : spec.requests) {
    auto it = node.requested.find(resource);
    if (it == node.requested.end()) continue;
    it->second -= amount;
    if (it->second == 0) node.requested.erase(it);
  }
  node.nonzero_cpu_milli -= spec.nonzero_cpu_milli;
  node.nonzero_memory_bytes -= spec.nonzero_memory_bytes;
  node.pods.erase(std::find(node.pods.begin(), node.pods.end(), pod));
  for (size_t i = 0; i < placement.cards.size(); ++i) {
    CardState& card = node.cards[placement.cards[i]];
    if (i < placement.mem_units.size()) card.used_mem -= placement.mem_units[i];
    if (i < placement.core_units.size()) card.used_core -= placement.core_units[i];
    --card.pods;
    if (i < placement.replicas.size()) {
      card.used_replicas -= placement.replicas[i];
    } else if (spec.whole_gpus > 0) {
      card.whole = false;
    }
  }
  if (auto it = bound_priorities_.find(spec.priority); it != bound_priorities_.end()) {
    if (--it->second == 0) bound_priorities_.erase(it);
  }
  // The spec stays readable (a restart may bind it again); only the placement empties.
  placements_[pod] = Placement{};
}

}  // namespace knobsim
