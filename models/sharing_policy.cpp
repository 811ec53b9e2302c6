#include "models/sharing_policy.h"

#include <algorithm>
#include <cassert>
#include <cstddef>

namespace knobsim {

double EffectivePercent(int gpu_core_percent, int quota_units, int card_units) {
  // gpu-core.percentage is 1..100 per card (docs/semantics.md §1.1); absent or 0 falls back to the
  // pod's memory fraction (docs/design.md §3.2, POLICY 3 row; an assumption, the vendor is silent).
  if (gpu_core_percent > 0) return std::min(gpu_core_percent, 100);
  if (card_units <= 0 || quota_units <= 0) return 0;  // not on the card; callers never ask
  return 100.0 * std::min(quota_units, card_units) / card_units;
}

int EffectiveWeight(int schd_weight, int gpu_core_percent) {
  if (schd_weight >= 1) return schd_weight;
  // pct/5 is the only evidence of a percentage -> cGPU weight mapping (the intelligent
  // scheduler's code, docs/semantics.md §1.7) [UNCONFIRMED]; the floor of 1 keeps small pods alive.
  if (gpu_core_percent > 0) return std::max(1, std::min(gpu_core_percent, 100) / 5);
  return 1;
}

namespace {

// Water-filling: the card's eta split equally among the active pods, except that none gets more
// than its cap; what a capped pod leaves goes to the others (a throttled context sleeps, so the
// time slices go to whoever is runnable). Caps in ascending order each take min(cap, what is
// left / pods left). O(n²) without allocation: a card holds few pods, and this is the hot path.
void CappedShares(std::span<const PodOnCard> pods, double eta, std::span<double> shares) {
  constexpr double kUnset = -1;
  std::size_t pods_left = 0;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (!pods[i].active) continue;
    shares[i] = kUnset;
    ++pods_left;
  }
  double left = eta;
  for (; pods_left > 0; --pods_left) {
    std::size_t next = pods.size();
    for (std::size_t i = 0; i < pods.size(); ++i)
      if (shares[i] == kUnset && (next == pods.size() || pods[i].percent < pods[next].percent))
        next = i;
    const double cap = std::clamp(pods[next].percent, 0.0, 100.0) / 100.0;
    shares[next] = std::min(cap, left / static_cast<double>(pods_left));
    left -= shares[next];
  }
}

}  // namespace

double ComputeShares(const SharingParams& params, std::span<const PodOnCard> pods,
                     std::span<double> shares) {
  assert(shares.size() == pods.size());
  const std::size_t n = std::min(pods.size(), shares.size());
  std::fill(shares.begin(), shares.end(), 0.0);

  int active = 0;
  double weight_active = 0;  // double: weights come from a user env var, unbounded
  double pct_active = 0;
  double pct_all = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const PodOnCard& pod = pods[i];
    // Callers resolve percentages with EffectivePercent for pods holding quota on the card.
    assert(pod.percent > 0 && pod.percent <= 100);
    const double pct = std::max(pod.percent, 0.0);
    pct_all += pct;
    if (!pod.active) continue;
    ++active;
    weight_active += std::max(pod.weight, 1);
    pct_active += pct;
  }
  if (active == 0) return 1.0;  // no share computed, no completion event on the card

  double eta = 1.0;
  const bool time_sliced =
      params.policy == SharingPolicy::kNative || params.policy == SharingPolicy::kCappedTimeSlicing;
  if (time_sliced && active >= 2) {
    // Driver time-slicing loses some of the card to context switches once two contexts
    // alternate (docs/semantics.md §2.4: eta ~ 0.90-0.95). A lone context runs undisturbed.
    assert(params.switch_overhead >= 0 && params.switch_overhead < 1);
    eta = 1.0 - std::clamp(params.switch_overhead, 0.0, 1.0);
  }
  auto share_of = [&](const PodOnCard& pod) -> double {
    switch (params.policy) {
      case SharingPolicy::kFixedEqual: {
        // N = max_inst slots whether or not they are filled: idle slots are wasted. The
        // scheduler keeps |P| <= max_inst; taking the larger keeps the card at most full if a
        // caller breaks that.
        const int slots = std::max(params.max_inst, static_cast<int>(n));
        return 1.0 / slots;
      }
      case SharingPolicy::kPreemptive:
        return 1.0 / active;
      case SharingPolicy::kWeighted:
        return std::max(pod.weight, 1) / weight_active;
      case SharingPolicy::kFixedPercent:
        // Reserved slices of idle pods and the unreserved remainder are wasted. Only core_mem
        // nodes make the scheduler keep sum_P pct <= 100; elsewhere (explicit percentages on a
        // cgpu node, mixed with memory-fraction fallbacks) the card can be oversubscribed, and
        // every reservation is scaled down so the card is at most full.
        return std::max(pod.percent, 0.0) / std::max(100.0, pct_all);
      case SharingPolicy::kWeak:
        return pct_active > 0 ? std::max(pod.percent, 0.0) / pct_active : 0.0;
      case SharingPolicy::kNative:
      case SharingPolicy::kCappedTimeSlicing:  // uncapped: a lone pod under the default policy
        return eta / active;
    }
    return 0.0;
  };

  if (params.policy == SharingPolicy::kCappedTimeSlicing &&
      (active >= 2 || params.caps_when_alone)) {
    CappedShares(pods.first(n), eta, shares);
    return eta;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (pods[i].active) shares[i] = share_of(pods[i]);
  }
  return eta;
}

}  // namespace knobsim
