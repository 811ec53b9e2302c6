// Applying a variant (a named set of knob changes) to the base scenario.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/mig_layout.h"
#include "sim/scenario.h"

namespace knobsim {

// The scenario one run of `variant` simulates: `base` with every set knob replaced. The reader
// has already checked that every pool and workload the variant names exists.
Scenario ApplyVariant(const Scenario& base, const Variant& variant);

// A `sharing` knob's value: `cgpu`, `exclusive`, `timeslicing:N` (or `time-slicing:N`),
// `mps:N`, `mig:LAYOUT` (sim/mig_layout.h: single strategy for one profile, else mixed) or
// `mig-mixed:LAYOUT`, `hami` (HAMi's default 10 vGPUs a card) or `hami:N`. On failure `knob` is
// empty and `error`/`hint` say why.
struct PoolSharingText {
  std::optional<PoolSharingKnob> knob;
  std::string error, hint;
};
PoolSharingText ParsePoolSharing(std::string_view text);

// Why `knob` cannot apply to `pool` (a MIG layout its card cannot take); nullopt when it can.
std::optional<MigLayoutProblem> PoolSharingProblem(const NodePool& pool,
                                                   const PoolSharingKnob& knob);

// The seed of replication r of a run with seed `seed` (r = 0 is the seed itself). Variants share
// seeds, so paired variants see common random numbers.
uint64_t ReplicationSeed(uint64_t seed, int replication);

}  // namespace knobsim
