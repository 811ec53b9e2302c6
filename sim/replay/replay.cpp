#include "sim/replay/replay.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "sim/replay/random_policy.h"

namespace knobsim::replay {

double Round2(double x) {
  // glibc's printf is exact (it rounds the binary value's full decimal expansion), as are
  // Python's round() and Go's strconv; parsing the text back gives the same double as theirs.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return std::strtod(buf, nullptr);
}

namespace {

// Σ of the nodes' class vectors in a fixed pairwise order over node names, so the cluster
// totals are a function of the cluster's state alone (not of the order of past updates).
class FragTree {
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

// The cross-node memo key of an expensive policy's score: the pod type and everything the
// score reads of the node, packed into 128 bits. Nodes that do not pack (more than 8 cards,
// very large CPU) are simply not memoised.
struct MemoKey {
  uint64_t a = 0;
  uint64_t b = 0;
  bool operator==(const MemoKey&) const = default;
};

struct MemoKeyHash {
  size_t operator()(const MemoKey& k) const {
    uint64_t h = k.a * 0x9E3779B97F4A7C15ULL ^ (k.b + 0x632BE59BD9B4E5DULL + (k.a << 6));
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    return static_cast<size_t>(h);
  }
};

bool PackKey(int type, const NodeState& node, MemoKey* key) {
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

class Replayer {
 public:
  Replayer(const Workload& w, PolicyKind kind, int64_t seed, double tune)
      : w_(w), kind_(kind), rng_(seed) {
    result_.order = PrepareRun(w, seed, tune, rng_);
    policy_ = MakePolicy(kind, w.typical);
    const int n = static_cast<int>(w.nodes.size());
    // Nodes sit in rank order, so the first node reaching the best score is the tie winner.
    node_index_.resize(n);
    for (int i = 0; i < n; ++i) node_index_[result_.order.rank[i]] = i;
    nodes_.resize(n);
    for (int pos = 0; pos < n; ++pos)
      nodes_[pos] = MakeNodeState(w.nodes[node_index_[pos]], w.models);
    version_.assign(n, 1);
    cache_.assign(static_cast<size_t>(n) * w.num_pod_types, CacheEntry{});
    frag_ = std::make_unique<FragTree>(n);
    for (int pos = 0; pos < n; ++pos) {
      frag_->Set(node_index_[pos], NodeFragVector(nodes_[pos], w.typical));
    }
  }

  RunResult Run() {
    const size_t events = result_.order.events.size();
    result_.events.reserve(events);
    result_.node_of_event.reserve(events);
    int64_t arrived = 0;
    int64_t used = 0;
    for (int p : result_.order.events) {
      const PodRequest& pod = w_.requests[p];
      arrived += pod.gpu_request();
      const int pos =
          kind_ == PolicyKind::kRandom ? PickRandom(pod) : PickBest(pod, w_.pod_type[p]);
      if (pos >= 0) {
        NodeState& node = nodes_[pos];
        const CardTake take =
            kind_ == PolicyKind::kRandom ? RandomCards(pod, node, rng_) : policy_->Cards(pod, node);
        Commit(node, pod, take);
        ++version_[pos];
        frag_->Set(node_index_[pos], NodeFragVector(node, w_.typical));
        used += pod.gpu_request();
        ++result_.placed;
        result_.node_of_event.push_back(node_index_[pos]);
      } else {
        ++result_.failed;
        result_.node_of_event.push_back(-1);
      }
      const FragVector& total = frag_->total();
      const double frag = FragExceptQ3(total);
      const double idle = FragTotal(total);
      EventMetrics m;
      m.arrived = arrived;
      m.used = used;
      m.frag_amount = Round2(frag);
      m.frag_ratio = idle > 0 ? Round2(100 * frag / idle) : 0;
      result_.events.push_back(m);
    }
    return std::move(result_);
  }

 private:
  struct CacheEntry {
    uint32_t version = 0;  // the node's version the score was computed at (0: never)
    int32_t score = 0;
  };

  // §3 Selection: the highest score, ties to the smallest rank (the earliest position).
  int PickBest(const PodRequest& pod, int type) {
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

  int ScoreOf(const PodRequest& pod, int type, const NodeState& node) {
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
  int PickRandom(const PodRequest& pod) {
    feasible_.clear();
    const int n = static_cast<int>(nodes_.size());
    for (int pos = 0; pos < n; ++pos) {
      if (Feasible(nodes_[pos], pod)) feasible_.push_back(pos);
    }
    if (feasible_.empty()) return -1;
    return feasible_[RandomNodePosition(static_cast<int>(feasible_.size()), rng_)];
  }

  const Workload& w_;
  PolicyKind kind_;
  GoRand rng_;
  std::unique_ptr<Policy> policy_;
  RunResult result_;
  std::vector<int> node_index_;   // position (rank) -> Workload::nodes index
  std::vector<NodeState> nodes_;  // by position
  std::vector<uint32_t> version_;
  std::vector<CacheEntry> cache_;  // [position][pod type]
  std::unordered_map<MemoKey, int, MemoKeyHash> memo_;
  std::unique_ptr<FragTree> frag_;
  std::vector<int> feasible_;
};

}  // namespace

RunResult Replay(const Workload& workload, PolicyKind policy, int64_t seed, double tune) {
  Replayer r(workload, policy, seed, tune);
  return r.Run();
}

}  // namespace knobsim::replay
