#include "sim/scheduler/node_sample.h"

#include <algorithm>
#include <unordered_map>

namespace knobsim {
namespace {

constexpr int kMinFeasibleNodesToFind = 100;          // schedule_one.go minFeasibleNodesToFind
constexpr int kMinFeasibleNodesPercentageToFind = 5;  // minFeasibleNodesPercentageToFind

std::string LabelOr(const Labels& labels, const std::string& first, const std::string& second) {
  if (auto it = labels.find(first); it != labels.end()) return it->second;
  if (auto it = labels.find(second); it != labels.end()) return it->second;
  return {};
}

}  // namespace

int NumFeasibleNodesToFind(int percentage, int num_all_nodes) {
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  if (percentage == kAdaptivePercentageOfNodesToScore) {
    percentage = std::max(50 - num_all_nodes / 125, kMinFeasibleNodesPercentageToFind);
  }
  // 64-bit: upstream's int32 product cannot overflow below 21 million nodes either.
  const int num_nodes = static_cast<int>(static_cast<long long>(num_all_nodes) * percentage / 100);
  return std::max(num_nodes, kMinFeasibleNodesToFind);
}

std::string ZoneKey(const Labels& labels) {
  // A present beta label wins even when empty, as upstream's comma-ok lookup does.
  const std::string zone = LabelOr(labels, kBetaZoneLabel, kZoneLabel);
  const std::string region = LabelOr(labels, kBetaRegionLabel, kRegionLabel);
  if (region.empty() && zone.empty()) return {};
  return region + std::string(":\0:", 3) + zone;
}

std::vector<int> NodeTreeOrder(const std::vector<NodeState>& nodes) {
  std::vector<std::vector<int>> zones;  // in the order their first node arrived
  std::unordered_map<std::string, size_t> zone_of;
  size_t present = 0;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    if (nodes[i].absent) continue;
    ++present;
    auto [it, added] = zone_of.try_emplace(ZoneKey(nodes[i].spec.labels), zones.size());
    if (added) zones.emplace_back();
    zones[it->second].push_back(i);
  }
  std::vector<int> order;
  order.reserve(present);
  for (size_t depth = 0; order.size() < present; ++depth) {
    for (const std::vector<int>& zone : zones) {
      if (depth < zone.size()) order.push_back(zone[depth]);
    }
  }
  return order;
}

}  // namespace knobsim
