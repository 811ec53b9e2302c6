// Simulate: one run of one resolved scenario (a variant already applied) with one seed.
//
// Places every pod (sim/scheduler), starts them (image pull, model load, memory checks), drives
// requests through routing, per-pod FIFO queues and the card-sharing model until the end time,
// and collects the results after warm-up. Deterministic: the same scenario and seed give the
// same RunResult, bit for bit. Reads and writes no files; prints nothing.
#pragma once

#include <cstdint>

#include "sim/results.h"
#include "sim/scenario.h"

namespace knobsim {

RunResult Simulate(const Scenario& scenario, uint64_t seed);

}  // namespace knobsim
