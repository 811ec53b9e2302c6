#include "sim/scheduler/pod_affinity_index.h"

#include <algorithm>
#include <optional>
#include <span>

namespace knobsim {
namespace {

std::string ListSignature(const std::vector<AffinityTerm>& terms) {
  std::string sig;
  for (const AffinityTerm& t : terms) sig.append(t.Signature()).append("\x18");
  return sig;
}

}  // namespace

void TermMatchCounts::Sync(const ClusterState& cluster) {
  if (nodes_.Changed(cluster)) {
    cluster_ = &cluster;
    entries_.clear();
    keys_.clear();
  }
  // Between pods only: vectors handed out during one pod stay put.
  const size_t max_entries = MaxEntries();
  while (entries_.size() > max_entries) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.last_used < oldest->second.last_used) oldest = it;
    }
    entries_.erase(oldest);
  }
}

size_t TermMatchCounts::MaxEntries() const {
  const size_t nodes = cluster_ == nullptr ? 1 : std::max<size_t>(1, cluster_->nodes().size());
  return std::clamp<size_t>(kBudgetBytes / (16 * nodes), 64, 4096);
}

const TermMatchCounts::Matches& TermMatchCounts::Counts(const std::vector<AffinityTerm>& terms) {
  Entry& entry = entries_[ListSignature(terms)];
  entry.last_used = ++clock_;
  const size_t num_nodes = cluster_->nodes().size();
  if (entry.matches.count.size() != num_nodes) {
    entry.generation.assign(num_nodes, ~uint64_t{0});
    entry.matches.count.assign(num_nodes, 0);
    entry.matches.nodes.clear();
    entry.position.assign(num_nodes, -1);
    entry.fresh = true;
  }
  const std::optional<std::span<const int>> changed =
      entry.fresh ? std::nullopt : cluster_->NodesChangedSince(entry.synced_changes);
  if (changed) {
    for (int n : *changed) Refresh(entry, terms, n);
  } else {
    for (size_t n = 0; n < num_nodes; ++n) Refresh(entry, terms, static_cast<int>(n));
  }
  entry.synced_changes = cluster_->change_count();
  entry.fresh = false;
  return entry.matches;
}

void TermMatchCounts::Refresh(Entry& entry, const std::vector<AffinityTerm>& terms, int n) {
  const NodeState& node = cluster_->node(n);
  if (entry.generation[n] == node.generation) return;
  entry.generation[n] = node.generation;
  int count = 0;
  for (int p : node.pods) {
    if (cluster_->bound(p) && MatchesAllTerms(terms, cluster_->pod(p), *cluster_)) ++count;
  }
  int& was = entry.matches.count[n];
  std::vector<int>& nodes = entry.matches.nodes;
  if (was == 0 && count > 0) {
    entry.position[n] = static_cast<int>(nodes.size());
    nodes.push_back(n);
  } else if (was > 0 && count == 0) {
    const int at = entry.position[n];
    nodes[at] = nodes.back();
    entry.position[nodes[at]] = at;
    nodes.pop_back();
    entry.position[n] = -1;
  }
  was = count;
}

const KeyIndex& TermMatchCounts::Key(const std::string& key) {
  auto [it, inserted] = keys_.try_emplace(key);
  if (inserted) it->second = KeyIndex::Of(*cluster_, key);
  return it->second;
}

int DomainSlot(std::vector<DomainCounts>& domains, const std::string& key, TermMatchCounts& keys) {
  for (size_t i = 0; i < domains.size(); ++i) {
    if (domains[i].key == key) return static_cast<int>(i);
  }
  DomainCounts& d = domains.emplace_back();
  d.key = key;
  d.index = &keys.Key(key);
  d.count.assign(d.index->num_values, 0);
  return static_cast<int>(domains.size()) - 1;
}

void ExistingPodTerms::Add(const std::vector<AffinityTerm>& terms, Kind kind,
                           std::vector<OnNode>& out) {
  for (const AffinityTerm& term : terms) {
    std::string sig = term.Signature();
    sig.push_back(static_cast<char>('0' + kind));
    auto [it, added] = group_of_.try_emplace(std::move(sig), static_cast<int>(groups_.size()));
    if (added) {
      groups_.push_back(Group{term, kind});
      members_.emplace_back();
    }
    const int group = it->second;
    auto on =
        std::find_if(out.begin(), out.end(), [&](const OnNode& o) { return o.group == group; });
    if (on == out.end()) {
      out.push_back(OnNode{group, 1});
    } else {
      ++on->pods;
    }
  }
}

void ExistingPodTerms::Sync(const ClusterState& cluster) {
  const bool new_list = nodes_.Changed(cluster);
  if (new_list) {
    nodes_state_.clear();
    groups_.clear();
    members_.clear();
    group_of_.clear();
  } else if (cluster.revision() == synced_revision_) {
    return;  // nothing changed: no node to look at
  }
  synced_revision_ = cluster.revision();
  nodes_state_.resize(cluster.nodes().size());
  // Only the nodes changed since the last Sync, where the cluster still knows them.
  const std::optional<std::span<const int>> changed =
      new_list ? std::nullopt : cluster.NodesChangedSince(synced_changes_);
  synced_changes_ = cluster.change_count();
  if (changed) {
    for (int n : *changed) Refresh(cluster, n);
    return;
  }
  for (int n = 0; n < static_cast<int>(nodes_state_.size()); ++n) Refresh(cluster, n);
}

void ExistingPodTerms::Refresh(const ClusterState& cluster, int n) {
  const NodeState& node = cluster.node(n);
  NodeTerms& state = nodes_state_[static_cast<size_t>(n)];
  if (state.generation == node.generation) return;
  state.generation = node.generation;
  Leave(n);
  state.terms.clear();
  for (int p : node.pods) {
    if (!cluster.bound(p)) continue;
    const PodSpec& pod = cluster.pod(p);
    if (!HasPodAffinity(pod)) continue;
    for (Kind kind : kinds_) {
      switch (kind) {
        case kRequiredAntiAffinity:
          Add(RequiredAffinityTerms(pod, pod.pod_anti_affinity.required), kind, state.terms);
          break;
        case kRequiredAffinity:
          Add(RequiredAffinityTerms(pod, pod.pod_affinity.required), kind, state.terms);
          break;
        case kPreferredAffinity:
          Add(PreferredAffinityTerms(pod, pod.pod_affinity.preferred), kind, state.terms);
          break;
        case kPreferredAntiAffinity:
          Add(PreferredAffinityTerms(pod, pod.pod_anti_affinity.preferred), kind, state.terms);
          break;
      }
    }
  }
  Join(n);
}

void ExistingPodTerms::Join(int n) {
  NodeTerms& state = nodes_state_[static_cast<size_t>(n)];
  state.member_at.clear();
  for (const OnNode& on : state.terms) {
    std::vector<Member>& members = members_[static_cast<size_t>(on.group)];
    state.member_at.push_back(static_cast<int>(members.size()));
    members.push_back(Member{n, on.pods});
  }
}

void ExistingPodTerms::Leave(int n) {
  NodeTerms& state = nodes_state_[static_cast<size_t>(n)];
  for (size_t i = 0; i < state.terms.size() && i < state.member_at.size(); ++i) {
    std::vector<Member>& members = members_[static_cast<size_t>(state.terms[i].group)];
    const int at = state.member_at[i];
    // The last member takes the place: find its entry for this group and point it here.
    const Member moved = members.back();
    members[static_cast<size_t>(at)] = moved;
    members.pop_back();
    if (moved.node == n) continue;
    NodeTerms& other = nodes_state_[static_cast<size_t>(moved.node)];
    for (size_t k = 0; k < other.terms.size(); ++k) {
      if (other.terms[k].group == state.terms[i].group) other.member_at[k] = at;
    }
  }
  state.member_at.clear();
}

}  // namespace knobsim
