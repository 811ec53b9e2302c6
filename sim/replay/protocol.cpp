#include "sim/replay/protocol.h"

namespace knobsim::replay {

using fgd::GoRand;
using fgd::PodRequest;

RunOrder PrepareRun(const Workload& w, int64_t seed, double tune, GoRand& rng) {
  RunOrder order;
  rng.Seed(seed);
  for (int i = 0; i < kDrawsBeforeShuffle; ++i) rng.Int63();

  const int n = static_cast<int>(w.pods.size());
  order.events.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order.events[i] = i;  // name order
  rng.Shuffle(order.events);

  // §2.3 TunePodsByNodeTotalResource.
  const double target = tune * static_cast<double>(w.capacity_milli);
  int64_t total = 0;
  for (int p : order.events) total += w.requests[p].gpu_request();
  bool any_gpu = false;  // without a GPU request nothing could ever reach the target
  for (const PodRequest& r : w.requests) any_gpu = any_gpu || r.gpu_request() > 0;
  if (static_cast<double>(total) < target) {
    while (any_gpu) {
      const int k = rng.Intn(n);  // over the name-sorted originals, not the shuffled list
      // The stop test adds the per-card share, not the full request (a reference quirk).
      if (static_cast<double>(total + w.requests[k].milli) > target) {
        order.overshoot = k;
        break;
      }
      order.events.push_back(k);
      total += w.requests[k].gpu_request();
      ++order.copies;
    }
  } else {
    while (static_cast<double>(total) > target && !order.events.empty()) {
      const int k = rng.Intn(static_cast<int>(order.events.size()));
      total -= w.requests[order.events[k]].gpu_request();
      order.events.erase(order.events.begin() + k);
      ++order.removed;
    }
  }
  order.total_request = total;

  for (int i = 0; i < kDrawsBeforePerm; ++i) rng.Int63();
  order.rank = rng.Perm(static_cast<int>(w.nodes.size()));
  return order;
}

}  // namespace knobsim::replay
