// The CEL evaluator's limits and cel-go's saturating cost arithmetic, shared by its parser,
// checker and evaluator. Internal to the CEL evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace knobsim::dra::cel_internal {

// What the Kubernetes environment declares about `device` (resource.k8s.io/v1 validation limits,
// passed to the cost estimator by cel/compile.go): an iteration over device.attributes costs at
// most 32 rounds, a comparison with device.driver at most 63 characters.
inline constexpr uint64_t kDriverNameMaxLength = 63;  // DriverNameMaxLength
inline constexpr uint64_t kDomainMaxLength = 63;      // DeviceMaxDomainLength
inline constexpr uint64_t kIdMaxLength = 32;          // DeviceMaxIDLength
inline constexpr uint64_t kMaxAttributesPerDevice =
    32;  // ResourceSliceMaxAttributesAndCapacitiesPerDevice
inline constexpr uint64_t kMaxAttributeValues = 48;  // ResourceSliceMaxAttributeValuesPerDevice
inline constexpr uint64_t kAttributeMaxElements =
    64;  // max(DeviceAttributeMaxValueLength 64, the 48)

// cel-go common/cost.go.
inline constexpr uint64_t kListCreateCost = 10;
inline constexpr uint64_t kMapCreateCost = 30;
inline constexpr double kStringTraversalFactor = 0.1;
inline constexpr double kRegexLengthFactor = 0.25;

// Deeper nesting is refused when compiled (cel-go's parser refuses past 250 as well), which also
// bounds the recursion of the checker and the evaluator.
inline constexpr int kMaxNesting = 250;

// A guard cel-go does not need: its list concatenation is lazy, ours copies, so an expression that
// doubles a list in a chain of cel.bind would otherwise allocate without bound at a tiny cost.
inline constexpr size_t kMaxAllocatedBytes = size_t{64} << 20;

inline constexpr uint64_t kUnknownSize = std::numeric_limits<uint64_t>::max();

inline constexpr std::string_view kCostLimitExceeded =
    "operation cancelled: actual cost limit exceeded";

// cel-go's saturating cost arithmetic (checker/cost.go).
inline uint64_t AddCost(uint64_t a, uint64_t b) {
  return a > kUnknownSize - b ? kUnknownSize : a + b;
}
inline uint64_t MulCost(uint64_t a, uint64_t b) {
  return b != 0 && a > kUnknownSize / b ? kUnknownSize : a * b;
}
// ceil(x * factor), as multiplyByCostFactor: an unknown size times 0.1 is a large number, not
// "unknown", exactly as upstream.
inline uint64_t FactorCost(uint64_t x, double factor) {
  const double v = std::ceil(static_cast<double>(x) * factor);
  if (v >= 18446744073709551616.0) return kUnknownSize;
  return static_cast<uint64_t>(v);
}

}  // namespace knobsim::dra::cel_internal
