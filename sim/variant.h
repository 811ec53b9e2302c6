// Applying a variant (a named set of knob changes) to the base scenario.
#pragma once

#include "sim/scenario.h"

namespace knobsim {

// The scenario one run of `variant` simulates: `base` with every set knob replaced. The reader
// has already checked that every pool and workload the variant names exists.
Scenario ApplyVariant(const Scenario& base, const Variant& variant);

// The seed of replication r of a run with seed `seed` (r = 0 is the seed itself). Variants share
// seeds, so paired variants see common random numbers.
uint64_t ReplicationSeed(uint64_t seed, int replication);

}  // namespace knobsim
