#include "sim/plan/capacity_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace knobsim {

CapacitySearchResult FindSmallestSize(const CapacitySearchSettings& settings,
                                      const std::function<bool(int)>& meets) {
  if (settings.max_nodes < 1) throw std::invalid_argument("max_nodes must be at least 1");
  if (!(settings.growth > 1.0)) throw std::invalid_argument("growth must be above 1");
  CapacitySearchResult out;
  auto eval = [&](int n) {
    const bool met = meets(n);
    out.steps.push_back({n, met});
    return met;
  };
  const int max_nodes = settings.max_nodes;
  const int start = std::clamp(settings.lower_bound, 1, max_nodes);

  int lo = 0;  // the largest size known to miss (0: none, size 0 never meets)
  int hi = 0;  // the smallest size known to meet (0: none yet)
  if (eval(start)) {
    // Shrink: the estimate was generous. Stop at the first miss, or when 1 meets.
    hi = start;
    while (hi > 1) {
      const int next = std::min(hi - 1, static_cast<int>(std::floor(hi / settings.growth)));
      const int n = std::max(1, next);
      if (eval(n)) {
        hi = n;
      } else {
        lo = n;
        break;
      }
    }
  } else {
    lo = start;
    while (hi == 0) {
      if (lo >= max_nodes) {
        out.reason = "max nodes " + std::to_string(max_nodes) + " reached";
        return out;
      }
      const double grown = std::ceil(lo * settings.growth);
      const int n = static_cast<int>(std::min<double>(max_nodes, std::max<double>(lo + 1, grown)));
      if (eval(n)) {
        hi = n;
      } else {
        lo = n;
      }
    }
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (eval(mid) ? hi : lo) = mid;
  }
  out.nodes = hi;
  return out;
}

int OfferedLoadNodes(double load, int cards_per_node, double target_utilization) {
  if (!(load > 0) || cards_per_node < 1 || !(target_utilization > 0)) return 1;
  const double nodes = std::ceil(load / (cards_per_node * target_utilization) - 1e-9);
  if (nodes >= std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
  return std::max(1, static_cast<int>(nodes));
}

}  // namespace knobsim
