// DynamicResources: a pod's DRA claims must be allocatable on the node (docs/semantics.md §6.3;
// upstream pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go).
//
// PreFilter resolves the pod's claims (DraCatalog::ClaimsOf): a claim that does not exist, is
// being deleted, or (made from a template) is not owned by the pod, and a request naming a
// device class that does not exist, reject the pod everywhere; a request without a class is an
// error of the claim, which aborts the cycle. Filter then allocates the unallocated claims on
// the node with the structured allocator (dra/allocator.h; "cannot allocate all claims", or
// "invalid resource pools were encountered" when a pool the node sees is broken), and after that
// checks that each allocated claim's node selector admits the node ("resourceclaim not available
// on the node", the claim remembered for PostFilter). Filter only asks whether the claims fit;
// Allocations() allocates on the node the Scheduler chose (the same search, so the same
// devices) for the bind. Rejections are UnschedulableAndUnresolvable, as upstream's
// statusUnschedulable makes them: preemption does not free devices. An allocator error (a CEL
// runtime error, more devices than a claim may have) is an error status: the Scheduler aborts
// the cycle with it, as upstream does, even where other nodes would fit.
//
// PostFilter, when no node fits: an allocated claim some node refused for its node selector,
// reserved for no pod or for this one alone, is deallocated (upstream picks one of them at
// random; here the first in the pod's order **[simplification]**), so a later attempt allocates
// it afresh.
//
// The plugin's score (prioritized lists) is scores/dynamic_resources.cpp, through
// PrioritizedListScore.
//
// DRAExtendedResource (1.36+, extendedresources.go): the pod's extended resources a DeviceClass
// backs are, on a node that offers none of them, requests of a claim the plugin makes for the
// pod (dra/extended_resources.h), allocated with its other claims; the bind records it
// (Placement::extended_resource_claim). Not modelled: a stale such claim of a prior cycle,
// binding conditions and their timeouts, the Filter timeout.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/scheduler/dra/allocator.h"
#include "sim/scheduler/dra/extended_resources.h"
#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

// resource.k8s.io/v1 FirstAvailableDeviceRequestMaxSize: the score of a request's first entry.
constexpr int64_t kFirstAvailableDeviceRequestMaxSize = 8;

// An allocation's node selector (set) admits the node; taken as the optional it is stored in, so
// the selector is not copied per node.
bool MatchesNode(const std::optional<DraNodeSelector>& selector, const NodeSpec& node) {
  const dra::DraNodeRef ref{node.name, &node.labels};
  return dra::NodeMatches(ref, "", false, selector);
}

class DynamicResourcesFilter final : public DynamicResourcesPlugin {
 public:
  explicit DynamicResourcesFilter(const KubeVersion& version) : version_(version) {}

  std::string_view Name() const override { return "DynamicResources"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState& cluster) override {
    claims_.clear();
    to_allocate_.clear();
    extended_.clear();
    node_claims_.clear();
    cluster_ = &cluster;
    if (version_.minor >= dra::kDraExtendedResourceMinor) {
      // preFilterExtendedResources: the pod's extended resources a DeviceClass backs.
      for (const auto& [name, amount] : pod.requests) {
        if (amount <= 0) continue;
        if (const DeviceClassSpec* c = dra::ExtendedResourceClass(cluster.dra().classes(), name))
          extended_[name] = c;
      }
      if (!extended_.empty()) {
        pod_ = pod;  // its requests build each node's claim
        pod_.resource_claims.clear();
      }
    }
    allocator_.reset();
    unavailable_.clear();
    skipped_ = pod.resource_claims.empty() && extended_.empty();
    if (skipped_) return PluginStatus::Success();
    const DraCatalog& dra = cluster.dra();
    ClaimLookupError error;
    claims_ = dra.ClaimsOf(pod, &error);
    if (error) return PluginStatus::Unresolvable(LookupMessage(error, pod));
    skipped_ = claims_.empty() && extended_.empty();  // every entry listed without a claim
    unavailable_.assign(claims_.size(), false);
    for (const PodClaimRef& ref : claims_) {
      const ResourceClaimSpec& claim = ref.claim;
      // Upstream's CanBeReserved has no limit: a claim is never "in use" here.
      if (claim.allocation) continue;
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
    if (!to_allocate_.empty() || !extended_.empty()) {
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
    const ResourceClaimSpec* extended = NodeClaim(node);
    // filterExtendedResources: the node's device plugins serve every such resource, and the pod
    // has no claim of its own: nothing left to do here.
    if (extended == nullptr && claims_.empty()) return PluginStatus::Success();
    if (allocator_) {
      dra::AllocateResult result =
          allocator_->Allocate({spec.name, &spec.labels}, ClaimsToAllocate(extended),
                               /*build_allocations=*/false);
      switch (result.outcome) {
        case dra::AllocateResult::Outcome::kAllocated:
          break;
        case dra::AllocateResult::Outcome::kUnschedulable:
          return PluginStatus::Unresolvable(result.message.empty()
                                                ? std::string(dra::kReasonCannotAllocate)
                                                : std::move(result.message));
        case dra::AllocateResult::Outcome::kError:
          return PluginStatus::Error(std::move(result.message));
      }
    }
    bool unavailable = false;
    for (size_t i = 0; i < claims_.size(); ++i) {
      const std::optional<DraAllocation>& a = claims_[i].claim.allocation;
      if (a && a->node_selector && !MatchesNode(a->node_selector, spec)) {
        unavailable_[i] = true;
        unavailable = true;
      }
    }
    if (unavailable) return PluginStatus::Unresolvable("resourceclaim not available on the node");
    return PluginStatus::Success();
  }

  std::vector<DraAllocation> Allocations(const ClusterState& cluster, int node) const override {
    if (!allocator_) return {};
    const NodeSpec& spec = cluster.node(node).spec;
    dra::AllocateResult result =
        allocator_->Allocate({spec.name, &spec.labels}, ClaimsToAllocate(NodeClaim(node)));
    return std::move(result.allocations);
  }

  bool MakesExtendedResourceClaim() const override { return !extended_.empty(); }

  std::optional<ResourceClaimSpec> ExtendedResourceClaim(int node) const override {
    const ResourceClaimSpec* claim = NodeClaim(node);
    if (claim == nullptr) return std::nullopt;
    ResourceClaimSpec named = *claim;
    // Upstream's generateName `<pod>-extended-resources-` gets a random suffix from the API
    // server; the name here has none.
    named.name = pod_.name + "-extended-resources";
    return named;
  }

  bool HasPrioritizedLists() const override {
    for (const ResourceClaimSpec* claim : to_allocate_) {
      for (const DraRequest& request : claim->spec.requests)
        if (!request.first_available.empty()) return true;
    }
    return false;
  }

  int64_t PrioritizedListScore(const ClusterState& cluster, int node) const override {
    const std::vector<DraAllocation> allocations = Allocations(cluster, node);
    int64_t score = 0;
    for (size_t c = 0; c < allocations.size() && c < to_allocate_.size(); ++c) {
      for (const DraRequest& request : to_allocate_[c]->spec.requests) {
        for (size_t i = 0; i < request.first_available.size(); ++i) {
          const std::string ref = request.name + "/" + request.first_available[i].name;
          const auto& results = allocations[c].results;
          if (std::any_of(results.begin(), results.end(),
                          [&](const DraDeviceResult& r) { return r.request == ref; }))
            score += kFirstAvailableDeviceRequestMaxSize - static_cast<int64_t>(i);
        }
      }
    }
    return score;
  }

  std::string_view PostFilter(const PodSpec& pod, ClusterState& cluster) override {
    if (claims_.empty() && extended_.empty()) return kNoClaimsToDeallocate;
    for (size_t i = 0; i < claims_.size(); ++i) {
      if (!unavailable_[i]) continue;
      const ResourceClaimSpec& claim = claims_[i].claim;
      const std::vector<DraConsumer>& reserved = claim.reserved_for;
      if (reserved.empty() || (reserved.size() == 1 && reserved[0].uid == pod.uid)) {
        cluster.DeallocateClaim(claim.namespace_, claim.name);
        return "deallocation of ResourceClaim completed";
      }
    }
    return kStillNotSchedulable;
  }

 private:
  // Upstream's texts for what foreachPodResourceClaim (and the lister) report.
  std::string LookupMessage(const ClaimLookupError& error, const PodSpec& pod) const {
    using Kind = ClaimLookupError::Kind;
    switch (error.kind) {
      case Kind::kClaimNotFound:
        return "resourceclaim.resource.k8s.io \"" + error.name + "\" not found";
      case Kind::kTemplateNotFound:
        // The controller cannot make the claim: the pod waits for it (resourceclaim.Name).
        return "pod \"" + pod.namespace_ + "/" + pod.name + "\": ResourceClaim not created yet";
      case Kind::kBeingDeleted:
        return "resourceclaim \"" + error.name + "\" is being deleted";
      case Kind::kNotOwner: {
        // IsForPod; 1.36 capitalised "Pod" when PodGroups could own claims too.
        const char* noun = version_.minor >= 36 ? "Pod" : "pod";
        return "ResourceClaim " + pod.namespace_ + "/" + error.name + " was not created for " +
               noun + " " + pod.namespace_ + "/" + pod.name + " (" + noun + " is not owner)";
      }
      case Kind::kNone:
        break;
    }
    return "";
  }

  // validateDeviceClass: an empty class is an unsupported request (an error of the claim); a
  // missing one waits.
  static PluginStatus CheckClass(const DraCatalog& dra, const std::string& cls,
                                 const std::string& request) {
    if (cls.empty())
      return PluginStatus::Error("request " + request + ": unsupported request type");
    if (dra.FindClass(cls) == nullptr)
      return PluginStatus::Unresolvable("request " + request + ": device class " + cls +
                                        " does not exist");
    return PluginStatus::Success();
  }

  // The claim for the pod's extended resources that `node` leaves to DRA (those it offers none
  // of: filterExtendedResources), made once per distinct set; nullptr when there are none.
  const ResourceClaimSpec* NodeClaim(int node) const {
    if (extended_.empty()) return nullptr;
    const NodeSpec& spec = cluster_->node(node).spec;
    std::map<std::string, const DeviceClassSpec*> delegated;
    std::string key;
    for (const auto& [name, cls] : extended_) {
      const auto it = spec.allocatable.find(name);
      if (it != spec.allocatable.end() && it->second > 0) continue;  // a device plugin's
      delegated[name] = cls;
      key.append(name).push_back('\n');
    }
    if (delegated.empty()) return nullptr;
    auto [it, fresh] = node_claims_.try_emplace(key);
    if (fresh) {
      ResourceClaimSpec& claim = it->second;
      claim.name = kExtendedResourceClaimEntry;  // upstream's in-memory name
      claim.namespace_ = pod_.namespace_;
      claim.owner_pod = pod_.name;
      claim.owner_pod_uid = pod_.uid;
      claim.spec.requests = dra::ExtendedResourceRequests(pod_, delegated);
    }
    return &it->second;
  }

  // The claims to allocate on a node: the pod's unallocated ones, then the extended one.
  std::vector<const ResourceClaimSpec*> ClaimsToAllocate(const ResourceClaimSpec* extended) const {
    std::vector<const ResourceClaimSpec*> claims = to_allocate_;
    if (extended != nullptr) claims.push_back(extended);
    return claims;
  }

  KubeVersion version_;
  bool skipped_ = true;
  const ClusterState* cluster_ = nullptr;
  // DRAExtendedResource: the pod's extended resources a DeviceClass backs, and the pod.
  std::map<std::string, const DeviceClassSpec*> extended_;
  PodSpec pod_;
  mutable std::map<std::string, ResourceClaimSpec> node_claims_;  // by delegated set
  std::vector<PodClaimRef> claims_;
  std::vector<const ResourceClaimSpec*> to_allocate_;  // into claims_
  // Per claim: some node's Filter refused it for its allocation's node selector.
  mutable std::vector<bool> unavailable_;
  dra::AllocatorCache cache_;  // kept across pods: selectors, their verdicts, nodes' pools
  mutable std::unique_ptr<dra::Allocator> allocator_;  // reused for every node of the cycle
};

}  // namespace

std::unique_ptr<DynamicResourcesPlugin> NewDynamicResourcesFilter(const KubeVersion& version) {
  return std::make_unique<DynamicResourcesFilter>(version);
}

}  // namespace knobsim
