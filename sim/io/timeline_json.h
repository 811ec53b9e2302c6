// A run over time (RunResult::timeline, collected with `--timeline` and by `knobsim upgrade`) as
// a results document's per-variant `timeline` section (knobsim.results/v1, additive;
// docs/results.md documents every field).
//
// Same rules as sim/io/results_json.h: keys in a fixed order (sim/io/result_fields.h), shortest
// round-trip doubles, null for a number that is not finite and for a latency where nothing
// succeeded. Times are in seconds from the start of the run, warm-up included.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "sim/results.h"

namespace knobsim {

// {step_s, end_s, workloads[{id, name, namespace, desired, available_fraction, below_desired_s,
// unavailable_s, points[...]}]}. Callers leave the key out when timeline.step is 0.
nlohmann::ordered_json TimelineToJson(const RunTimeline& timeline);

}  // namespace knobsim
