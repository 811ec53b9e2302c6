// NodeResourcesFit filter: the pod's requests must fit in what the node has left — allocatable
// minus the requests (not the usage) of the pods bound to it (docs/semantics.md §3.2, upstream
// noderesources/fit.go fitsRequest).
//
// Every failing resource is reported, in upstream's order: pods, cpu, memory,
// ephemeral-storage, then extended resources (aliyun.com/gpu-mem, nvidia.com/gpu, ...). Upstream
// walks extended resources in Go map order, which is random; sorting them by name keeps knobsim's
// messages reproducible and changes nothing a histogram would show for a single one.
//
// Speed: the filter runs on every node for every pod, and looking resources up by name in the
// nodes' maps cost more than everything else it does. So each resource name the filter meets gets
// a slot, and every node keeps its allocatable (fixed) and requested amounts (reread only when
// the node's pods changed, node_cache.h) per slot in plain arrays.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/extended_resources.h"
#include "sim/scheduler/filters/node_cache.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

int64_t Amount(const ResourceList& list, const std::string& name) {
  const auto it = list.find(name);
  return it == list.end() ? 0 : it->second;
}

// Upstream's IsScalarResourceName: extended and prefixed-native resources (they carry a '/',
// e.g. aliyun.com/gpu-mem, nvidia.com/gpu), hugepages-* and attachable-volumes-*. Anything else
// a pod names (a typo such as "gpu") is not checked by the filter at all.
bool IsScalarResource(const std::string& name) {
  return name.find('/') != std::string::npos || name.rfind("hugepages-", 0) == 0 ||
         name.rfind("attachable-volumes-", 0) == 0;
}

// Slots 0..3 are fixed; extended resources get theirs as pods ask for them.
enum FixedSlot { kPodsSlot, kCpuSlot, kMemorySlot, kEphemeralStorageSlot, kNumFixedSlots };

// Per node and slot: allocatable (never changes) and Σ requests of the bound pods.
class NodeAmounts {
 public:
  NodeAmounts() : names_{"pods", "cpu", "memory", "ephemeral-storage"} {
    for (size_t s = 0; s < names_.size(); ++s) slot_of_.emplace(names_[s], static_cast<int>(s));
  }

  // Rebuilds every node's row when the cluster is not the one seen before.
  void Sync(const ClusterState& cluster) {
    if (!nodes_.Changed(cluster)) return;
    cluster_ = &cluster;
    Rebuild();
  }

  // The slot of a resource name; a new one is read on every node.
  int Slot(const std::string& name) {
    const auto [it, added] = slot_of_.try_emplace(name, static_cast<int>(names_.size()));
    if (added) {
      names_.push_back(name);
      if (names_.size() > stride_) stride_ *= 2;
      Rebuild();  // rare: once per extended resource name in the cluster's life
    }
    return it->second;
  }

  int64_t allocatable(size_t node, int slot) const { return allocatable_[node * stride_ + slot]; }

  // The node's requested amounts by slot, reread from its map when its pods changed.
  const int64_t* requested(const NodeState& state, size_t node) {
    int64_t* row = &requested_[node * stride_];
    const PodSetFingerprint now = PodSetFingerprint::Of(state);
    if (!(seen_[node] == now)) {
      seen_[node] = now;
      for (size_t s = 0; s < names_.size(); ++s) row[s] = Amount(state.requested, names_[s]);
    }
    return row;
  }

 private:
  void Rebuild() {
    const size_t n = cluster_ == nullptr ? 0 : cluster_->nodes().size();
    allocatable_.assign(n * stride_, 0);
    requested_.assign(n * stride_, 0);
    seen_.assign(n, PodSetFingerprint{});  // matches no real node: every row is reread
    for (size_t node = 0; node < n; ++node) {
      const ResourceList& list = cluster_->node(static_cast<int>(node)).spec.allocatable;
      for (size_t s = 0; s < names_.size(); ++s) {
        allocatable_[node * stride_ + s] = Amount(list, names_[s]);
      }
    }
  }

  NodeListIdentity nodes_;
  const ClusterState* cluster_ = nullptr;
  std::vector<std::string> names_;  // by slot
  std::unordered_map<std::string, int> slot_of_;
  size_t stride_ = 8;                    // slots per node row (>= names_.size())
  std::vector<int64_t> allocatable_;     // [node * stride_ + slot]
  std::vector<int64_t> requested_;       // [node * stride_ + slot]
  std::vector<PodSetFingerprint> seen_;  // by node: the pods requested_ was read for
};

// The pod's positive requests, in the order the filter reports shortages.
struct RequestItem {
  int slot;
  int64_t amount;
  std::string reason;  // "Insufficient <name>"
  // DRAExtendedResource: a DeviceClass backs it, so a node that offers none of it leaves it to
  // DynamicResources (upstream ShouldDelegateResourceToDRA).
  bool delegable = false;
};

class NodeResourcesFitFilter final : public FilterPlugin {
 public:
  explicit NodeResourcesFitFilter(const KubeVersion& version)
      : oversize_unresolvable_(version.minor >= 34),
        dra_extended_resource_(version.minor >= dra::kDraExtendedResourceMinor) {}

  std::string_view Name() const override { return "NodeResourcesFit"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState& cluster) override {
    amounts_.Sync(cluster);
    request_.clear();
    // A zero request never fails, even on an over-committed node (upstream checks `> 0` first),
    // so only positive amounts become items; a pod with none meets only the pod-count check.
    auto add = [&](const std::string& name, int slot) {
      const auto it = pod.requests.find(name);
      if (it == pod.requests.end() || it->second <= 0) return;
      std::string reason = "Insufficient ";
      reason.append(name);
      const bool delegable = dra_extended_resource_ && IsScalarResource(name) &&
                             dra::ExtendedResourceClass(cluster.dra().classes(), name) != nullptr;
      request_.push_back({slot, it->second, std::move(reason), delegable});
    };
    add("cpu", kCpuSlot);
    add("memory", kMemorySlot);
    add("ephemeral-storage", kEphemeralStorageSlot);
    for (const auto& [name, amount] : pod.requests) {  // ResourceList is sorted by name
      if (IsScalarResource(name) && amount > 0) add(name, amounts_.Slot(name));
    }
    return PluginStatus::Success();
  }

  PluginStatus Filter(const PodSpec&, const ClusterState& cluster, int node) const override {
    const NodeState& n = cluster.node(node);
    const size_t i = static_cast<size_t>(node);
    PluginStatus status;
    // A node without an allocatable "pods" entry admits no pod, as upstream (allowed = 0).
    if (static_cast<int64_t>(n.pods.size()) + 1 > amounts_.allocatable(i, kPodsSlot)) {
      Fail(status, "Too many pods", /*unresolvable=*/false);
    }
    if (request_.empty()) return status;

    const int64_t* requested = amounts_.requested(n, i);
    for (const RequestItem& item : request_) {
      // A resource the node does not list counts as allocatable 0.
      const int64_t total = amounts_.allocatable(i, item.slot);
      if (item.amount <= total - requested[item.slot]) continue;
      if (item.delegable && total <= 0) continue;  // DynamicResources allocates it here
      // Current upstream: a request larger than the whole node can never fit there, so evicting
      // pods (preemption) cannot help; older releases called every shortage resolvable.
      Fail(status, item.reason, oversize_unresolvable_ && item.amount > total);
    }
    return status;
  }

 private:
  static void Fail(PluginStatus& status, std::string reason, bool unresolvable) {
    status.reasons.push_back(std::move(reason));
    if (unresolvable) {
      status.code = StatusCode::kUnschedulableAndUnresolvable;
    } else if (status.code == StatusCode::kSuccess) {
      status.code = StatusCode::kUnschedulable;
    }
  }

  bool oversize_unresolvable_;
  bool dra_extended_resource_;
  std::vector<RequestItem> request_;  // cpu, memory, ephemeral-storage, then extended by name
  // Filter is const to the framework but refreshes this cache (one Scheduler, one thread).
  mutable NodeAmounts amounts_;
};

}  // namespace

std::unique_ptr<FilterPlugin> NewNodeResourcesFitFilter(const KubeVersion& version) {
  return std::make_unique<NodeResourcesFitFilter>(version);
}

}  // namespace knobsim
