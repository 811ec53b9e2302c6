// FGD's fragmentation measure (docs/fgd-policies.md §5): the "typical pods" that stand for the
// workload to come, and how much of a node's idle GPU they could not use.
//
// A node's idle milli-GPU is booked, per typical pod type m and weighted by m's share p_m, into
// one of seven classes; everything outside Q3 (the part m could use) is fragment. Summing the
// classes in the reference's order matters: FGD truncates scores computed from these sums, so
// a different floating-point order can move a placement (§5.2).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/scheduler/fgd/node_state.h"
#include "sim/scheduler/fgd/request.h"

namespace knobsim::fgd {

// A pod type of the target workload (§5.1): the key and its renormalised share.
struct TypicalPod {
  int64_t cpu = 0;
  int milli = 0;  // per-card share (0 for CPU-only types)
  int num_gpu = 0;
  std::string spec;  // normalised spec; types differing only here are distinct
  uint64_t models = kAnyModel;
  int64_t count = 0;
  double p = 0;  // share of the taken types, Σ p = 1
};

// §5.1: the most frequent types covering `threshold_percent` of `pods` (the trace's original,
// untuned list, CPU-only pods included), by count then key, descending; shares renormalised.
std::vector<TypicalPod> TypicalPods(std::span<const PodRequest> pods,
                                    double threshold_percent = 95);

// The classes of §5.2, in the reference's order (FragRatioDataMap).
enum FragClass {
  kQ1LackBoth,
  kQ2LackGpu,
  kQ3Satisfied,
  kQ4LackCpu,
  kXLSatisfied,
  kXRLackCpu,
  kNoAccess,
  kFragClasses
};
using FragVector = std::array<double, kFragClasses>;

// §5.2: the node's idle milli-GPU booked per class, types in list order.
FragVector NodeFragVector(const NodeState& node, std::span<const TypicalPod> types);

// §5.3: F_n, the classes other than Q3 summed in class order (FragAmountSumExceptQ3).
double FragExceptQ3(const FragVector& v);
// The idle GPU a vector accounts for: all seven classes in class order.
double FragTotal(const FragVector& v);

// F_n directly (what FGD's score compares before and after a placement).
inline double NodeFrag(const NodeState& node, std::span<const TypicalPod> types) {
  return FragExceptQ3(NodeFragVector(node, types));
}

}  // namespace knobsim::fgd
