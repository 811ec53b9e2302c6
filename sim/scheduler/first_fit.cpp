#include "sim/scheduler/first_fit.h"

#include <algorithm>
#include <map>

namespace knobsim {
namespace {

bool Tolerates(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.key.empty()) return t.op == "Exists";
  if (t.key != taint.key) return false;
  return t.op == "Exists" || t.value == taint.value;
}

// The first NoSchedule/NoExecute taint no toleration covers, or nullptr.
const Taint* UntoleratedTaint(const Workload& w, const NodePool& pool) {
  for (const Taint& taint : pool.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool ok = std::any_of(w.tolerations.begin(), w.tolerations.end(),
                          [&](const Toleration& t) { return Tolerates(t, taint); });
    if (!ok) return &taint;
  }
  return nullptr;
}

bool MatchesRequirement(const NodeSelectorRequirement& r, const Labels& labels) {
  auto it = labels.find(r.key);
  const bool has = it != labels.end();
  auto in_values = [&] {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  if (r.op == "In") return in_values();
  if (r.op == "NotIn") return !in_values();
  if (r.op == "Exists") return has;
  if (r.op == "DoesNotExist") return !has;
  if ((r.op == "Gt" || r.op == "Lt") && has && r.values.size() == 1) {
    try {
      long long node_value = std::stoll(it->second), bound = std::stoll(r.values[0]);
      return r.op == "Gt" ? node_value > bound : node_value < bound;
    } catch (...) {
      return false;
    }
  }
  return false;
}

bool MatchesNodeSelection(const Workload& w, const Labels& labels) {
  for (const auto& [key, value] : w.node_selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  const auto& terms = w.node_affinity.required_terms;
  if (terms.empty()) return true;
  return std::any_of(terms.begin(), terms.end(), [&](const auto& term) {
    return std::all_of(term.begin(), term.end(),
                       [&](const auto& r) { return MatchesRequirement(r, labels); });
  });
}

bool SharesCards(const NodePool& pool) {
  return pool.schedule == GpuSchedule::kShare || pool.schedule == GpuSchedule::kCgpu ||
         pool.schedule == GpuSchedule::kCoreMem;
}

}  // namespace

FirstFitScheduler::FirstFitScheduler(const Scenario& scenario, Cluster& cluster)
    : scenario_(scenario), cluster_(cluster) {}

int FirstFitScheduler::MaxPodsPerCard(const NodePool& pool) const {
  int limit = pool.max_pods_per_card;
  // POLICY 0 gives each pod 1/max_inst of the card, so the scheduler treats max_inst as an
  // implicit ack.node.gpu.max-pod (DESIGN.md §3.2).
  if (pool.cgpu_active && scenario_.cluster.policy == SharingPolicy::kFixedEqual &&
      scenario_.cluster.max_inst > 0) {
    limit = limit > 0 ? std::min(limit, scenario_.cluster.max_inst) : scenario_.cluster.max_inst;
  }
  return limit;
}

std::vector<std::string> FirstFitScheduler::Reject(const Workload& w, int node_index,
                                                   std::vector<int>& cards) const {
  const Node& node = cluster_.nodes[node_index];
  const NodePool& pool = scenario_.node_pools[node.pool];
  if (UntoleratedTaint(w, pool)) return {"node(s) had untolerated taint(s)"};
  if (!MatchesNodeSelection(w, node.labels)) return {"node(s) didn't match Pod's node affinity/selector"};

  std::vector<std::string> insufficient;
  if (node.pods_free < 1) insufficient.push_back("Too many pods");
  if (w.cpu_milli > node.cpu_free_milli) insufficient.push_back("Insufficient cpu");
  if (w.memory_mib > node.memory_free_mib) insufficient.push_back("Insufficient memory");
  const bool sharing = SharesCards(pool);
  if (w.gpu_mem > 0) {
    int node_free_units = 0;
    if (sharing)
      for (int c = 0; c < node.num_cards; ++c) node_free_units += cluster_.cards[node.first_card + c].free_units;
    if (w.gpu_mem > node_free_units) insufficient.push_back("Insufficient aliyun.com/gpu-mem");
  }
  if (w.whole_gpus > 0) {
    int free_cards = 0;
    if (!sharing)
      for (int c = 0; c < node.num_cards; ++c) free_cards += cluster_.cards[node.first_card + c].pods == 0;
    if (w.whole_gpus > free_cards) insufficient.push_back("Insufficient nvidia.com/gpu");
  }
  if (!insufficient.empty()) return insufficient;

  cards.clear();
  if (w.whole_gpus > 0) {
    for (int c = 0; c < node.num_cards && static_cast<int>(cards.size()) < w.whole_gpus; ++c)
      if (cluster_.cards[node.first_card + c].pods == 0) cards.push_back(node.first_card + c);
    return {};
  }
  if (w.gpu_mem <= 0) return {};
  const int per_card = w.gpu_mem / std::max(1, w.gpu_count);
  const int max_pods = MaxPodsPerCard(pool);
  bool blocked_by_max_pods = false;
  for (int c = 0; c < node.num_cards && static_cast<int>(cards.size()) < w.gpu_count; ++c) {
    const Card& card = cluster_.cards[node.first_card + c];
    if (max_pods > 0 && card.pods >= max_pods) {
      blocked_by_max_pods = true;
      continue;
    }
    if (card.free_units < per_card || card.free_percent < w.gpu_core) continue;
    cards.push_back(node.first_card + c);
  }
  if (static_cast<int>(cards.size()) == w.gpu_count) return {};
  cards.clear();
  if (blocked_by_max_pods) return {"The number of pods per gpu device has reached the maximum allowed"};
  return {"Insufficient GPU memory in one device"};
}

Binding FirstFitScheduler::Place(const Workload& w) {
  Binding binding;
  std::vector<std::vector<std::string>> reasons;
  std::vector<int> cards;
  for (int n = 0; n < static_cast<int>(cluster_.nodes.size()); ++n) {
    std::vector<std::string> why = Reject(w, n, cards);
    if (!why.empty()) {
      reasons.push_back(std::move(why));
      continue;
    }
    Node& node = cluster_.nodes[n];
    node.pods_free -= 1;
    node.cpu_free_milli -= w.cpu_milli;
    node.memory_free_mib -= w.memory_mib;
    const int per_card = w.gpu_count > 0 ? w.gpu_mem / w.gpu_count : w.gpu_mem;
    for (int c : cards) {
      Card& card = cluster_.cards[c];
      card.pods += 1;
      if (w.whole_gpus > 0) {
        card.exclusive = true;
        card.free_units = 0;
        card.free_percent = 0;
      } else {
        card.free_units -= per_card;
        card.free_percent -= w.gpu_core;
      }
    }
    binding.node = n;
    binding.cards = cards;
    return binding;
  }
  binding.message = FailedSchedulingMessage(static_cast<int>(cluster_.nodes.size()), reasons);
  return binding;
}

std::string FailedSchedulingMessage(int num_nodes,
                                    const std::vector<std::vector<std::string>>& reasons) {
  std::map<std::string, int> histogram;
  for (const auto& node_reasons : reasons)
    for (const auto& r : node_reasons) histogram[r] += 1;
  std::vector<std::string> entries;
  for (const auto& [reason, count] : histogram) entries.push_back(std::to_string(count) + " " + reason);
  std::sort(entries.begin(), entries.end());
  std::string msg = "0/" + std::to_string(num_nodes) + " nodes are available";
  if (entries.empty()) return msg + ".";
  msg += ":";
  for (size_t i = 0; i < entries.size(); ++i) msg += (i ? ", " : " ") + entries[i];
  msg += ".";
  return msg;
}

}  // namespace knobsim
