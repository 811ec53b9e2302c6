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
  const int start = std::clamp(settings.start, 1, max_nodes);
  // The next step while galloping: 1 first, then growing by `growth` (and by at least 1).
  auto grow = [&](int step) {
    const double grown = std::ceil(step * settings.growth);
    return static_cast<int>(std::min<double>(max_nodes, std::max<double>(step + 1, grown)));
  };

  int lo = 0;  // the largest size known to miss (0: none, size 0 never meets)
  int hi = 0;  // the smallest size known to meet (0: none yet)
  int step = 1;
  if (eval(start)) {
    // Down: stop at the first miss, or when 1 meets.
    hi = start;
    while (hi > 1) {
      const int n = std::max(1, hi - step);
      if (!eval(n)) {
        lo = n;
        break;
      }
      hi = n;
      step = grow(step);
    }
  } else {
    lo = start;
    while (hi == 0) {
      if (lo >= max_nodes) {
        out.reason = "max nodes " + std::to_string(max_nodes) + " reached";
        return out;
      }
      const int n = std::min(max_nodes, lo + step);
      if (eval(n)) {
        hi = n;
      } else {
        lo = n;
        step = grow(step);
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
