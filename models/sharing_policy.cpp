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
  if (params.policy == SharingPolicy::kNative && active >= 2) {
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
        return eta / active;
    }
    return 0.0;
  };

  for (std::size_t i = 0; i < n; ++i) {
    if (pods[i].active) shares[i] = share_of(pods[i]);
  }
  return eta;
}

}  // namespace knobsim
