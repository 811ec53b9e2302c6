// Where slice mode (cluster.time_slice, sim/engine/time_slices.h) may run. It replaces the fluid
// split of native time-slicing (POLICY 5, cards without cGPU, device-plugin and DRA
// time-slicing) and of POLICY 0's fixed slots; cGPU POLICY 1-4, MPS, HAMi-core's caps and the
// co-location model are not round-robin slices of the whole card, so a scenario that has them
// beside slice mode is refused (by the scenario reader, and by whatif's knobs for the variants
// they make), never run with some cards silently fluid.
#pragma once

#include <string>

#include "sim/scenario.h"

namespace knobsim {

// The shortest slice: shorter ones only multiply the events (the fluid model is their limit,
// docs/validation.md rung 4).
inline constexpr SimTime kMinTimeSliceQuantum = 1000;  // 1 µs
inline constexpr const char* kTimeSliceTooShortHint =
    "slices are at least 1us; leave time_slice out for the fluid model, their limit";

// Why slice mode cannot share the scenario's cards, or "" when it can (or is off). The rule for
// which card gets which split is CardSharing's constructor's and placement.cpp's ShareDraCards'.
std::string TimeSliceRefusal(const Scenario& s);

// The message and hint of the refusal `why` (what the reader and whatif print).
inline std::string TimeSliceRefusalMessage(const std::string& why) {
  return "slice mode shares only cards of native time-slicing and cGPU POLICY 0, but " + why;
}
inline constexpr const char* kTimeSliceRefusalHint =
    "leave time_slice out (the fluid model) or share these cards by POLICY 0 or 5";

}  // namespace knobsim
