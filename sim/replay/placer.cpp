#include "sim/replay/placer.h"

#include <bit>
#include <climits>

#include "sim/replay/trace_conversion.h"
#include "sim/scheduler/fgd/random_policy.h"

namespace knobsim::replay {

using fgd::Commit;
using fgd::Feasible;
using fgd::FragVector;
using fgd::GoRand;
using fgd::kFragClasses;
using fgd::MakePolicy;
using fgd::NodeFragVector;
using fgd::NodeState;
using fgd::PodRequest;
using fgd::PolicyKind;
using fgd::RandomCards;
using fgd::RandomNodePosition;

// Σ of the nodes' class vectors in a fixed pairwise order over node names, so the cluster
// totals are a function of the cluster's state alone (not of the order of past updates).
class Placer::FragTree {
 public:
  explicit FragTree(int n) {
    size_ = 1;
    while (size_ < n) size_ *= 2;
    tree_.assign(2 * static_cast<size_t>(size_), FragVector{});
  }
  void Set(int i, const FragVector& v) {
    int k = size_ + i;
    tree_[k] = v;
    for (k /= 2; k >= 1; k /= 2) {
      for (int c = 0; c < kFragClasses; ++c) tree_[k][c] = tree_[2 * k][c] + tree_[2 * k + 1][c];
    }
  }
  const FragVector& total() const { return tree_[1]; }

 private:
  int size_ = 1;
  std::vector<FragVector> tree_;
};

size_t Placer::MemoKeyHash::operator()(const MemoKey& k) const {
  uint64_t h = k.a * 0x9E3779B97F4A7C15ULL ^ (k.b + 0x632BE59BD9B4E5DULL + (k.a << 6));
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 32;
  return static_cast<size_t>(h);
}

// The cross-node memo key of an expensive policy's score: the pod type and everything the
// score reads of the node, packed into 128 bits. Nodes that do not pack (more than 8 cards,
// very large CPU) are simply not memoised.
bool Placer::PackKey(int type, const NodeState& node, MemoKey* key) {
  if (node.cards > 8 || node.cpu_free < 0 || node.cpu_free >= (int64_t{1} << 20) ||
      type >= (1 << 12) || node.model >= 63) {
    return false;
  }
  // a: type (12 bits) | model + 1 (6) | cards (4) | cpu_free (20) | free[6], free[7] (10 each);
  // b: free[0..5] (10 bits each). A card's free is 0..1000.
  key->a = static_cast<uint64_t>(type) | static_cast<uint64_t>(node.model + 1) << 12 |
           static_cast<uint64_t>(node.cards) << 18 | static_cast<uint64_t>(node.cpu_free) << 22;
  key->b = 0;
  for (int g = 0; g < node.cards; ++g) {
    const uint64_t f = static_cast<uint64_t>(node.free[g]);
    if (g < 6) {
      key->b |= f << (10 * g);
    } else {
      key->a |= f << (42 + 10 * (g - 6));
    }
  }
  return true;
}

Placer::Placer(const Workload& w, PolicyKind kind, std::span<const int> rank, GoRand& rng)
    : w_(w), kind_(kind), rng_(rng) {
  policy_ = MakePolicy(kind, w.typical);
  const int n = static_cast<int>(w.nodes.size());
  // Nodes sit in rank order, so the first node reaching the best score is the tie winner.
  node_index_.resize(n);
  pos_of_.resize(n);
  for (int i = 0; i < n; ++i) {
    node_index_[rank[i]] = i;
    pos_of_[i] = rank[i];
  }
  nodes_.resize(n);
  for (int pos = 0; pos < n; ++pos)
    nodes_[pos] = MakeNodeState(w.nodes[node_index_[pos]], w.models);
  version_.assign(n, 1);
  cache_.assign(static_cast<size_t>(n) * w.num_pod_types, CacheEntry{});
  tag_count_.assign(n, {});
  frag_ = std::make_unique<FragTree>(n);
  for (int pos = 0; pos < n; ++pos) {
    frag_->Set(node_index_[pos], NodeFragVector(nodes_[pos], w.typical));
  }
}

Placer::~Placer() = default;

const FragVector& Placer::frag() const {
  return frag_->total();
}

bool Placer::Fits(int p, int node) const {
  return Feasible(nodes_[pos_of_[node]], w_.requests[p]);
}

Placer::Placement Placer::Place(int p) {
  const PodRequest& pod = w_.requests[p];
  const int pos = kind_ == PolicyKind::kRandom ? PickRandom(pod) : PickBest(pod, w_.pod_type[p]);
  Placement placement;
  if (pos < 0) return placement;
  NodeState& node = nodes_[pos];
  placement.node = node_index_[pos];
  placement.take =
      kind_ == PolicyKind::kRandom ? RandomCards(pod, node, rng_) : policy_->Cards(pod, node);
  Commit(node, pod, placement.take);
  if (const uint64_t tag = pod.tag()) ++tag_count_[pos][std::countr_zero(tag)];
  used_ += pod.gpu_request();
  Changed(pos);
  return placement;
}

void Placer::Release(int p, const Placement& placement) {
  const PodRequest& pod = w_.requests[p];
  const int pos = pos_of_[placement.node];
  NodeState& node = nodes_[pos];
  node.cpu_free += pod.cpu;
  node.mem_free += pod.mem;
  --node.pods;
  for (int g = 0; g < node.cards; ++g) node.free[g] += placement.take[g];
  if (const uint64_t tag = pod.tag()) {
    if (--tag_count_[pos][std::countr_zero(tag)] == 0) node.tags &= ~tag;
  }
  used_ -= pod.gpu_request();
  Changed(pos);
}

void Placer::Changed(int pos) {
  ++version_[pos];
  ++changes_;
  frag_->Set(node_index_[pos], NodeFragVector(nodes_[pos], w_.typical));
}

// §3 Selection: the highest score, ties to the smallest rank (the earliest position).
int Placer::PickBest(const PodRequest& pod, int type) {
  int best = -1;
  int best_score = INT_MIN;
  const int n = static_cast<int>(nodes_.size());
  CacheEntry* row = cache_.data();
  const size_t stride = static_cast<size_t>(w_.num_pod_types);
  for (int pos = 0; pos < n; ++pos) {
    const NodeState& node = nodes_[pos];
    if (!Feasible(node, pod)) continue;
    CacheEntry& e = row[pos * stride + type];
    if (e.version != version_[pos]) {
      e.score = ScoreOf(pod, type, node);
      e.version = version_[pos];
    }
    if (e.score > best_score) {
      best_score = e.score;
      best = pos;
    }
  }
  return best;
}

int Placer::ScoreOf(const PodRequest& pod, int type, const NodeState& node) {
  // The memo key holds no tags: a policy reading them is never memoised.
  if (!policy_->expensive() || policy_->reads_tags()) return policy_->Score(pod, node);
  MemoKey key;
  if (!PackKey(type, node, &key)) return policy_->Score(pod, node);
  const auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  const int score = policy_->Score(pod, node);
  memo_.emplace(key, score);
  return score;
}

// §4.1: a uniform draw over the feasible nodes, listed in rank order.
int Placer::PickRandom(const PodRequest& pod) {
  feasible_.clear();
  const int n = static_cast<int>(nodes_.size());
  for (int pos = 0; pos < n; ++pos) {
    if (Feasible(nodes_[pos], pod)) feasible_.push_back(pos);
  }
  if (feasible_.empty()) return -1;
  return feasible_[RandomNodePosition(static_cast<int>(feasible_.size()), rng_)];
}

}  // namespace knobsim::replay
