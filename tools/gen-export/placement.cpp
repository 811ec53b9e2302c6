// Placement (plan.h's PlaceAll): every pod of every workload gets a name, identity and memory
// offset, and is bound to a node and cards, or left Pending with the scheduler's
// FailedScheduling message.
//
// Contract: DaemonSet pods are bound to their sharing node directly; the others go, in the
// order the workloads were made, to the fitting node with the most free GPU units (or CPU), and
// on it to cards by the pool's rule (binpack: the fullest card that fits; spread: the emptiest).
// A card never holds more units than it has, nor more summed peak memory than its physical
// memory (soft isolation). Names and identities come from one stream per workload.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "tools/gen-export/plan.h"
#include "tools/gen-export/random.h"

namespace knobsim::gen_export {
namespace {

// The pod's peak memory on each of its cards, with its own offset (TruthPod::mem_offset_mib).
int64_t PeakCardMib(const Workload& w, int64_t offset) {
  const TruthWorkload& t = w.truth;
  return t.rest_mib + offset + std::llround(t.mib_per_rps * t.pod_mean_rate * (1 + t.amplitude));
}

class Placer {
 public:
  explicit Placer(Plan& plan) : plan_(plan) {}
  void PlaceAll();

 private:
  bool Tolerates(const Workload& w, const Node& node) const {
    return w.tolerate_all || w.pool == node.pool ||
           (w.pool < 0 && plan_.pools[node.pool].gpu == nullptr);
  }
  // Cards for the pod on `node` by the pool's placement rule; empty when it does not fit.
  std::vector<int> Cards(const Workload& w, const Node& node, int64_t peak) const;
  void Place(PodPlan& pod);
  std::string Unschedulable(const Workload& w) const;

  Plan& plan_;
};

std::vector<int> Placer::Cards(const Workload& w, const Node& node, int64_t peak) const {
  const Pool& pool = plan_.pools[node.pool];
  std::vector<int> fit;
  for (int c = node.first_card; c < node.first_card + node.cards; ++c) {
    const Card& card = plan_.cards[c];
    if (w.whole > 0) {
      if (card.pods == 0) fit.push_back(c);
      continue;
    }
    if (card.whole || card.units_free < w.units_per_card) continue;
    if (w.whole_device && card.units_free != pool.units) continue;
    if (pool.spec->max_pod > 0 && card.pods >= pool.spec->max_pod) continue;
    // Soft isolation: the card's real total must stay within its physical memory.
    if (card.peak_mib + peak > pool.gpu->memory_mib) continue;
    fit.push_back(c);
  }
  const int need = w.whole > 0 ? w.whole : w.gpu_count;
  if (static_cast<int>(fit.size()) < need) return {};
  if (w.whole == 0) {
    // binpack: the fullest card that fits; spread: the emptiest (docs/semantics.md §1.5).
    const bool spread = pool.spec->placement == "spread";
    std::stable_sort(fit.begin(), fit.end(), [&](int a, int b) {
      const int fa = plan_.cards[a].units_free, fb = plan_.cards[b].units_free;
      return spread ? fa > fb : fa < fb;
    });
  }
  fit.resize(static_cast<size_t>(need));
  std::sort(fit.begin(), fit.end());
  return fit;
}

void Placer::Place(PodPlan& pod) {
  const Workload& w = plan_.workloads[pod.workload];
  int64_t cpu = 0, mem = 0;
  for (const Container& c : w.containers) {
    cpu += c.cpu_m;
    mem += c.mem_mib;
  }
  const bool gpu = w.units_per_card > 0 || w.whole > 0;
  const int64_t peak = w.whole > 0 ? 0 : PeakCardMib(w, pod.mem_offset);
  // kube-scheduler spreads (LeastAllocated); we take the fitting node with the most GPU units
  // (or CPU) left, the lowest index on ties, so the placement is easy to reproduce.
  int best = -1;
  std::vector<int> best_cards;
  double best_score = -1;
  auto consider = [&](int n) {
    const Node& node = plan_.nodes[n];
    if (!Tolerates(w, node)) return;
    if (node.cpu_free_m < cpu || node.mem_free_mib < mem || node.pods_free < 1) return;
    std::vector<int> cards;
    if (gpu) {
      cards = Cards(w, node, peak);
      if (cards.empty()) return;
    }
    double score = static_cast<double>(node.cpu_free_m) /
                   static_cast<double>(plan_.pools[node.pool].spec->instance.cpu_alloc_m);
    if (gpu && node.cards > 0) {
      double free = 0;
      for (int c = node.first_card; c < node.first_card + node.cards; ++c) {
        const Card& card = plan_.cards[c];
        free += w.whole > 0 ? (card.pods == 0 ? 1.0 : 0.0)
                            : static_cast<double>(card.units_free) /
                                  static_cast<double>(plan_.pools[node.pool].units);
      }
      score = free / node.cards;
    }
    if (score > best_score) {
      best = n;
      best_score = score;
      best_cards = std::move(cards);
    }
  };
  if (w.pool >= 0) {
    for (int n : plan_.pools[w.pool].nodes) consider(n);
  } else {
    for (int n = 0; n < static_cast<int>(plan_.nodes.size()); ++n) consider(n);
  }
  if (best < 0) {
    pod.message = Unschedulable(w);
    return;
  }
  Node& node = plan_.nodes[best];
  node.cpu_free_m -= cpu;
  node.mem_free_mib -= mem;
  node.pods_free -= 1;
  for (const Container& c : w.containers) {
    const std::string image = c.repo + ":" + c.tag;
    if (std::find(node.images.begin(), node.images.end(), image) == node.images.end()) {
      node.images.push_back(image);
    }
  }
  for (int c : best_cards) {
    Card& card = plan_.cards[c];
    card.pods += 1;
    if (w.whole > 0) {
      card.whole = true;
    } else {
      card.units_free -= w.units_per_card;
      card.peak_mib += peak;
    }
  }
  pod.node = best;
  pod.cards = std::move(best_cards);
}

// The scheduler's FailedScheduling message (docs/semantics.md §3.7), in the simple form that
// applies here: the pool's nodes lack the resource, the others do not match the selector.
std::string Placer::Unschedulable(const Workload& w) const {
  const int total = static_cast<int>(plan_.nodes.size());
  const int in_pool = w.pool >= 0 ? static_cast<int>(plan_.pools[w.pool].nodes.size()) : total;
  std::string resource = "cpu";
  if (w.whole > 0) {
    resource = "nvidia.com/gpu";
  } else if (w.units_per_card > 0) {
    resource = "aliyun.com/gpu-mem";
  }
  std::string reasons = fmt::format("{} Insufficient {}", in_pool, resource);
  std::string preemption = fmt::format("{} No preemption victims found for incoming pod", in_pool);
  if (total > in_pool) {
    reasons +=
        fmt::format(", {} node(s) didn't match Pod's node affinity/selector", total - in_pool);
    preemption += fmt::format(", {} Preemption is not helpful for scheduling", total - in_pool);
  }
  return fmt::format("0/{} nodes are available: {}. preemption: 0/{} nodes are available: {}.",
                     total, reasons, total, preemption);
}

void Placer::PlaceAll() {
  // DaemonSet pods first (the DaemonSet controller binds them to their node directly), then
  // the workloads in the order they were made.
  for (int wi = 0; wi < static_cast<int>(plan_.workloads.size()); ++wi) {
    Workload& w = plan_.workloads[wi];
    std::vector<int> ds_nodes;
    if (w.kind == Kind::kDaemonSet) {
      for (int n = 0; n < static_cast<int>(plan_.nodes.size()); ++n) {
        const Pool& pool = plan_.pools[plan_.nodes[n].pool];
        if (pool.gpu != nullptr && !pool.exclusive) ds_nodes.push_back(n);
      }
      w.replicas = static_cast<int>(ds_nodes.size());
      w.truth.replicas = w.replicas;
    }
    Rng names = Stream(plan_.o.seed, kPodStreamBase + (uint64_t{1} << 40) + wi);
    std::set<std::string> suffixes;
    for (int r = 0; r < w.replicas; ++r) {
      const int index = static_cast<int>(plan_.pods.size());
      PodPlan pod;
      pod.workload = wi;
      pod.ordinal = r;
      std::string suffix;
      do {
        suffix = names.Chars(kKubeAlphabet, 5);
      } while (!suffixes.insert(suffix).second);
      switch (w.kind) {
        case Kind::kDeployment:
          pod.name = fmt::format("{}-{}-{}", w.name, w.hash, suffix);
          break;
        case Kind::kStatefulSet:
          pod.name = fmt::format("{}-{}", w.name, r);
          break;
        case Kind::kDaemonSet:
          pod.name = fmt::format("{}-{}", w.name, suffix);
          break;
        case Kind::kBarePod:
          pod.name = w.name;
          break;
      }
      pod.uid = names.Uuid();
      pod.ip = fmt::format("172.{}.{}.{}", 16 + index / 65024, index / 254 % 256, 1 + index % 254);
      // Distinct per pod (index × 37 mod 211 repeats only 211 pods apart), so two pods of one
      // workload on one card never report identical memory.
      pod.mem_offset = w.truth.has_traffic ? (int64_t{index} * 37) % 211 : 0;
      pod.created = w.created + names.Int(0, 2 * static_cast<int>(kDay));
      pod.created = std::min(pod.created, plan_.o.start_unix - 3600);
      pod.restarts = names.Chance(0.1) ? names.Int(1, 3) : 0;
      if (w.kind == Kind::kDaemonSet) {
        Node& node = plan_.nodes[ds_nodes[r]];
        const Container& c = w.containers[0];
        node.cpu_free_m -= c.cpu_m;
        node.mem_free_mib -= c.mem_mib;
        node.pods_free -= 1;
        node.images.push_back(c.repo + ":" + c.tag);
        pod.node = ds_nodes[r];
      } else {
        Place(pod);
      }
      w.pods.push_back(index);
      plan_.pods.push_back(std::move(pod));
    }
  }
}

}  // namespace

void PlaceAll(Plan& plan) {
  Placer(plan).PlaceAll();
}

}  // namespace knobsim::gen_export
