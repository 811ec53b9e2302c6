// The cGPU compute-sharing policies (POLICY 0-5) as a fluid model: card state in, shares out.
//
// A card holds the pods placed on it. P = pods whose GPU container is running (started, not
// terminated), active or not; A = pods of P with at least one request in service. A pod's share
// is the fraction of the card its work progresses at. See models/README.md for the assumptions
// behind each row (the vendor documents the names, not the arithmetic) and docs/design.md §3.2.
//
//   POLICY 0 fixed equal   1/N, N = max_inst if set else |P|        not work-conserving
//   POLICY 1 preemptive    1/|A|                                    work-conserving
//   POLICY 2 weighted      w_i / sum_A w                            work-conserving
//   POLICY 3 fixed pct     pct_i/100, scaled down if sum_P pct>100  not work-conserving
//   POLICY 4 weak          pct_i / sum_A pct                        work-conserving
//   POLICY 5 native        eta(|A|)/|A|, eta(1)=1, eta(n>=2)=1-overhead
//
// Not a cGPU POLICY: HAMi-core's compute limit (libvgpu; docs/semantics.md §2.8), the driver's
// time-slicing with each pod throttled to its gpucores percentage:
//   capped time-slicing    eta split max-min fair under caps pct_i/100  work-conserving
// The caps hold while two or more pods are active (HAMi's default GPU_CORE_UTILIZATION_POLICY:
// its node monitor turns a container's limit on only while another container of its priority
// is active on the card), or always (`force`).
#pragma once

#include <span>

namespace knobsim {

enum class SharingPolicy : int {
  kFixedEqual = 0,
  kPreemptive = 1,
  kWeighted = 2,
  kFixedPercent = 3,
  kWeak = 4,
  kNative = 5,
  kCappedTimeSlicing = 6,  // HAMi-core's gpucores limits over native time-slicing
};

struct SharingParams {
  SharingPolicy policy = SharingPolicy::kNative;
  int max_inst = 0;              // POLICY 0 slots per card; 0 = unset (use |P|)
  double switch_overhead = 0.0;  // POLICY 5: 1 - eta for two or more active pods, in [0, 1)
  bool caps_when_alone = false;  // capped time-slicing: a lone active pod is capped too (force)
};

// One pod of P on a card, as the policy sees it.
struct PodOnCard {
  bool active = false;  // at least one request in service
  int weight = 1;       // POLICY 2 weight, >= 1
  double percent = 0;   // POLICY 3/4 percentage, in (0, 100] (already resolved from the fallback);
                        // capped time-slicing: the pod's cap (100: none)
};

// Resolves a pod's POLICY 3/4 percentage: gpu-core.percentage when set (1..100), else its
// memory fraction 100 * quota_units / card_units.
double EffectivePercent(int gpu_core_percent, int quota_units, int card_units);

// Resolves a pod's POLICY 2 weight: ALIYUN_COM_GPU_SCHD_WEIGHT when set (>= 1), else
// max(1, floor(pct/5)) when a percentage is set, else 1.
int EffectiveWeight(int schd_weight, int gpu_core_percent);

// Writes the share of every pod in `pods` into `shares` (same size); inactive pods get 0.
// Returns the card's efficiency factor (eta) for the switch-overhead metric: 1 except under
// POLICY 5 with two or more active pods.
double ComputeShares(const SharingParams& params, std::span<const PodOnCard> pods,
                     std::span<double> shares);

}  // namespace knobsim
