// DynamicResources: a pod's DRA claims must be allocatable on the node (docs/semantics.md §6.3;
// upstream pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go).
//
// PreFilter resolves the pod's claims (DraCatalog::ClaimsOf): a claim or template that does not
// exist, a claim reserved for as many pods as the API allows, or a request naming a device class
// that does not exist rejects the pod everywhere. Filter then checks, per node, that every
// allocated claim's node selector admits the node ("resourceclaim not available on the node")
// and that the unallocated ones can all be allocated there by the structured allocator
// (dra/allocator.h; "cannot allocate all claims"). Filter only asks whether they fit;
// Allocations() allocates on the node the Scheduler chose (the same search, so the same devices)
// for the bind. Every status is
// UnschedulableAndUnresolvable, as upstream's statusUnschedulable makes them: preemption does not
// free devices. An allocator error (a CEL runtime error, an unsupported request) aborts upstream's
// cycle; here it rejects the node with the error's text **[simplification]**. DRA has no score
// plugin upstream: among the feasible nodes the other scores decide, and within a node first fit.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/scheduler/dra/allocator.h"
#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

// ResourceClaimReservedForMaxSize: a claim shared by more pods cannot be reserved again.
constexpr size_t kReservedForMaxSize = 256;

// An allocation's node selector (set) admits the node; taken as the optional it is stored in, so
// the selector is not copied per node.
bool MatchesNode(const std::optional<DraNodeSelector>& selector, const NodeSpec& node) {
  const dra::DraNodeRef ref{node.name, &node.labels};
  return dra::NodeMatches(ref, "", false, selector);
}

class DynamicResourcesFilter final : public DynamicResourcesPlugin {
 public:
  std::string_view Name() const override { return "DynamicResources"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState& cluster) override {
    claims_.clear();
    to_allocate_.clear();
    allocator_.reset();
    skipped_ = pod.resource_claims.empty();
    if (skipped_) return PluginStatus::Success();
    const DraCatalog& dra = cluster.dra();
    std::string error;
    claims_ = dra.ClaimsOf(pod, &error);
    if (!error.empty()) return PluginStatus::Unresolvable(error);
    for (const PodClaimRef& ref : claims_) {
      const ResourceClaimSpec& claim = ref.claim;
      if (claim.allocation) {
        const bool reserved = std::any_of(claim.reserved_for.begin(), claim.reserved_for.end(),
                                          [&](const DraConsumer& c) { return c.name == pod.name; });
        if (!reserved && claim.reserved_for.size() >= kReservedForMaxSize)
          return PluginStatus::Unresolvable("resourceclaim in use");
        continue;
      }
      for (const DraRequest& request : claim.spec.requests) {
        if (request.exactly) {
          if (PluginStatus s = CheckClass(dra, request.exactly->device_class_name, request.name);
              !s.ok())
            return s;
        }
        for (const DraExactRequest& sub : request.first_available) {
          if (PluginStatus s =
                  CheckClass(dra, sub.device_class_name, request.name + "/" + sub.name);
              !s.ok())
            return s;
        }
      }
      to_allocate_.push_back(&ref.claim);
    }
    if (!to_allocate_.empty()) {
      allocator_ = std::make_unique<dra::Allocator>(dra::AllocatorFeatures{}, dra.allocated(),
                                                    dra.classes(), dra.slice_index(), cache_);
      allocator_->UseHeldByDevice(dra.held_by_device());
    }
    return PluginStatus::Success();
  }

  bool Skipped() const override { return skipped_; }

  PluginStatus Filter(const PodSpec&, const ClusterState& cluster, int node) const override {
    if (skipped_) return PluginStatus::Success();
    const NodeSpec& spec = cluster.node(node).spec;
    for (const PodClaimRef& ref : claims_) {
      const std::optional<DraAllocation>& a = ref.claim.allocation;
      if (a && a->node_selector && !MatchesNode(a->node_selector, spec))
        return PluginStatus::Unresolvable("resourceclaim not available on the node");
    }
    if (!allocator_) return PluginStatus::Success();
    dra::AllocateResult result =
        allocator_->Allocate({spec.name, &spec.labels}, to_allocate_, /*build_allocations=*/false);
    switch (result.outcome) {
      case dra::AllocateResult::Outcome::kAllocated:
        return PluginStatus::Success();
      case dra::AllocateResult::Outcome::kUnschedulable:
        return PluginStatus::Unresolvable(std::string(dra::kReasonCannotAllocate));
      case dra::AllocateResult::Outcome::kError:
        break;
    }
    return PluginStatus::Unresolvable(result.message);
  }

  std::vector<DraAllocation> Allocations(const ClusterState& cluster, int node) const override {
    if (!allocator_) return {};
    const NodeSpec& spec = cluster.node(node).spec;
    dra::AllocateResult result = allocator_->Allocate({spec.name, &spec.labels}, to_allocate_);
    return std::move(result.allocations);
  }

 private:
  // validateDeviceClass: an empty class is an unsupported request; a missing one waits.
  static PluginStatus CheckClass(const DraCatalog& dra, const std::string& cls,
                                 const std::string& request) {
    if (cls.empty())
      return PluginStatus::Unresolvable("request " + request + ": unsupported request type");
    if (dra.FindClass(cls) == nullptr)
      return PluginStatus::Unresolvable("request " + request + ": device class " + cls +
                                        " does not exist");
    return PluginStatus::Success();
  }

  bool skipped_ = true;
  std::vector<PodClaimRef> claims_;
  std::vector<const ResourceClaimSpec*> to_allocate_;  // into claims_
  dra::AllocatorCache cache_;  // kept across pods: selectors, their verdicts, nodes' pools
  mutable std::unique_ptr<dra::Allocator> allocator_;  // reused for every node of the cycle
};

}  // namespace

std::unique_ptr<DynamicResourcesPlugin> NewDynamicResourcesFilter() {
  return std::make_unique<DynamicResourcesFilter>();
}

}  // namespace knobsim
