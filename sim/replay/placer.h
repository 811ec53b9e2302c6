// Placer: a trace cluster under one policy, placing pods one at a time (docs/fgd-policies.md §3)
// and, for the timed replay, releasing them again. Both replays run on it: the paper's protocol
// (replay.cpp: nothing departs) and the timed one (timed.cpp: pods leave at their deletion time).
//
// It is the reference's scheduler with its work cached, not a second algorithm: a node's score
// for a pod type is kept until a placement or a release changes that node (one node per event),
// and under FGD nodes in identical states share one evaluation. Scores, ties (smallest rank) and
// card choices are exactly those of the uncached pipeline of §3.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/replay/workload.h"
#include "sim/scheduler/fgd/fragmentation.h"
#include "sim/scheduler/fgd/go_rand.h"
#include "sim/scheduler/fgd/node_state.h"
#include "sim/scheduler/fgd/policy.h"

namespace knobsim::replay {

class Placer {
 public:
  // `rank[i]` is the tie-break rank of Workload::nodes[i] (a permutation of 0..n-1). 01-Random
  // draws from `rng`. `w` and `rng` must outlive the placer.
  Placer(const Workload& w, fgd::PolicyKind kind, std::span<const int> rank, fgd::GoRand& rng);
  ~Placer();
  Placer(const Placer&) = delete;
  Placer& operator=(const Placer&) = delete;

  struct Placement {
    int node = -1;  // Workload::nodes index; -1: no feasible node, nothing changed
    fgd::CardTake take{};
  };

  // Filters, scores and (if a node is feasible) commits pod `p` (an index into
  // Workload::requests), with the policy's card choice.
  Placement Place(int p);
  // Gives back what Place took: the node's CPU, memory, pod slot, cards and, once its last pod
  // of a kind has gone, GpuClustering's tag.
  void Release(int p, const Placement& placement);

  // §3's filters for pod `p` on node `node` (Workload::nodes index) in the current state.
  bool Fits(int p, int node) const;

  const fgd::NodeState& node(int index) const { return nodes_[pos_of_[index]]; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  // Σ GPU request of the pods placed and not released (milli).
  int64_t used() const { return used_; }
  // The cluster's fragmentation classes (§5.2), summed over nodes in a fixed pairwise order: a
  // function of the state alone, not of the order of past updates.
  const fgd::FragVector& frag() const;
  // Bumped by every placement and release: equal values mean an unchanged cluster.
  uint64_t changes() const { return changes_; }

 private:
  class FragTree;
  struct CacheEntry {
    uint32_t version = 0;  // the node's version the score was computed at (0: never)
    int32_t score = 0;
  };
  struct MemoKey {
    uint64_t a = 0;
    uint64_t b = 0;
    bool operator==(const MemoKey&) const = default;
  };
  struct MemoKeyHash {
    size_t operator()(const MemoKey& k) const;
  };

  int PickBest(const fgd::PodRequest& pod, int type);
  int PickRandom(const fgd::PodRequest& pod);
  int ScoreOf(const fgd::PodRequest& pod, int type, const fgd::NodeState& node);
  static bool PackKey(int type, const fgd::NodeState& node, MemoKey* key);
  void Changed(int pos);

  const Workload& w_;
  fgd::PolicyKind kind_;
  fgd::GoRand& rng_;
  std::unique_ptr<fgd::Policy> policy_;
  std::vector<int> node_index_;        // position (rank) -> Workload::nodes index
  std::vector<int> pos_of_;            // Workload::nodes index -> position
  std::vector<fgd::NodeState> nodes_;  // by position
  std::vector<uint32_t> version_;
  std::vector<CacheEntry> cache_;  // [position][pod type]
  std::unordered_map<MemoKey, int, MemoKeyHash> memo_;
  std::unique_ptr<FragTree> frag_;
  std::vector<int> feasible_;
  // Per position, how many placed pods carry each tag bit, so a release can clear a tag once
  // its last pod has gone (NodeState::tags is a set, not a count).
  std::vector<std::array<uint16_t, 64>> tag_count_;
  int64_t used_ = 0;
  uint64_t changes_ = 0;
};

}  // namespace knobsim::replay
