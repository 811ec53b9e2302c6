// What InterPodAffinity counts over the whole cluster for each incoming pod, kept between pods
// so that a cycle costs a pass over the nodes rather than over every pod (upstream keeps the same
// numbers in its PreFilter / PreScore state, recomputed from all pods each cycle; the results are
// the same). Both caches refresh a node only when its NodeState::generation moved, i.e. when a
// pod was bound to or unbound from it; node labels never change after AddNode (node_cache.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/filters/node_cache.h"
#include "sim/scheduler/pod_affinity_terms.h"

namespace knobsim {

// Per node: how many bound pods match every term of a term list (the incoming pod's required
// affinity terms together, one anti-affinity term, one preferred term), per list signature.
class TermMatchCounts {
 public:
  struct Matches {
    std::vector<int> count;  // per node
    std::vector<int> nodes;  // the nodes whose count is not 0, in no particular order
  };
  // Once per pod, before Counts: forgets everything when the node list changed.
  void Sync(const ClusterState& cluster);
  // Stays valid until the next Sync. Only the nodes changed since the list's last use are
  // looked at again (ClusterState::NodesChangedSince), so a cycle costs the pods bound since.
  const Matches& Counts(const std::vector<AffinityTerm>& terms);
  // Topology values of `key`, numbered once per node list.
  const KeyIndex& Key(const std::string& key);

 private:
  struct Entry {
    std::vector<uint64_t> generation;  // per node, of the count below
    Matches matches;
    std::vector<int> position;  // per node: its index in matches.nodes, -1 when absent
    uint64_t synced_changes = 0;
    uint64_t last_used = 0;
    bool fresh = true;
  };
  void Refresh(Entry& entry, const std::vector<AffinityTerm>& terms, int node);
  // The entries kept: as many as fit in about 64 MiB at 16 bytes per node (at least 64, at most
  // 4096); beyond that the least recently used goes, so the term lists in use stay.
  static constexpr size_t kBudgetBytes = size_t{64} << 20;
  size_t MaxEntries() const;
  uint64_t clock_ = 0;
  NodeListIdentity nodes_;
  const ClusterState* cluster_ = nullptr;
  std::unordered_map<std::string, Entry> entries_;
  std::unordered_map<std::string, KeyIndex> keys_;
};

// Sums per value of one topology key: upstream's topologyToMatchedTermCount (filter) and
// scoreMap (score), one key at a time.
struct DomainCounts {
  std::string key;
  const KeyIndex* index = nullptr;
  std::vector<int64_t> count;  // by value id
  bool any = false;            // some domain got an entry (upstream: the map is not empty)

  int64_t At(int node) const {
    const int v = index->value_of_node[node];
    return v < 0 ? 0 : count[v];
  }
  // Adds `n` at the node's domain; a node without the key adds nothing. The filter adds counts
  // (n == 0 makes no entry); the score adds weights, where an entry is made even when they
  // cancel out (`entry_for_zero`).
  void Add(int node, int64_t n, bool entry_for_zero = false) {
    const int v = index->value_of_node[node];
    if (v < 0 || (n == 0 && !entry_for_zero)) return;
    count[v] += n;
    any = true;
  }
};

// The index in `domains` of the counts for `key`, added (zeroed) when new.
int DomainSlot(std::vector<DomainCounts>& domains, const std::string& key, TermMatchCounts& keys);

// The (anti-)affinity terms of the pods bound on each node, equal terms of different pods in one
// group: the symmetric side of InterPodAffinity, where existing pods' terms are matched against
// the incoming pod. A group is matched once per incoming pod, however many pods carry it.
class ExistingPodTerms {
 public:
  enum Kind {
    kRequiredAntiAffinity,   // filter: the incoming pod may not join their domain
    kRequiredAffinity,       // score: hardPodAffinityWeight
    kPreferredAffinity,      // score: + weight
    kPreferredAntiAffinity,  // score: - weight
  };
  struct Group {
    AffinityTerm term;
    Kind kind;
  };
  struct OnNode {
    int group = 0;
    int pods = 0;  // pods on the node that carry the group's term
  };
  struct Member {
    int node = 0;
    int pods = 0;
  };

  // Which kinds are indexed (the filter needs one, the score three).
  explicit ExistingPodTerms(std::vector<Kind> kinds) : kinds_(std::move(kinds)) {}

  // Once per pod: refreshes the nodes whose pods changed.
  void Sync(const ClusterState& cluster);
  const std::vector<Group>& groups() const { return groups_; }
  const std::vector<OnNode>& on_node(int node) const { return nodes_state_[node].terms; }
  // The nodes holding pods with a group's term, in no particular order: a cycle walks the
  // groups the incoming pod matches instead of every node.
  const std::vector<Member>& members(int group) const { return members_[group]; }

 private:
  struct NodeTerms {
    uint64_t generation = ~uint64_t{0};
    std::vector<OnNode> terms;
    std::vector<int> member_at;  // parallel to terms: the node's index in members_[group]
  };
  void Join(int node);   // the node's terms into members_
  void Leave(int node);  // and out again
  void Add(const std::vector<AffinityTerm>& terms, Kind kind, std::vector<OnNode>& out);
  void Refresh(const ClusterState& cluster, int node);  // when its generation moved

  std::vector<Kind> kinds_;
  NodeListIdentity nodes_;
  uint64_t synced_revision_ = 0;  // ClusterState::revision() of the last Sync (0: none)
  uint64_t synced_changes_ = 0;   // ClusterState::change_count() of the last Sync
  std::vector<NodeTerms> nodes_state_;
  std::vector<Group> groups_;
  std::vector<std::vector<Member>> members_;       // by group
  std::unordered_map<std::string, int> group_of_;  // kind + signature -> index in groups_
};

}  // namespace knobsim
