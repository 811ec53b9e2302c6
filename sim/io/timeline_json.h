// A run over time (RunResult::timeline, collected with `--timeline` and by `knobsim upgrade`),
// summarized over the replications (sim/timeline_stats.h), as a results document's per-variant
// `timeline` section (knobsim.results/v1, additive;
// docs/results.md documents every field).
//
// Same rules as sim/io/results_json.h: keys in a fixed order (sim/io/result_fields.h), shortest
// round-trip doubles, null for a number that is not finite and for a latency where nothing
// succeeded. Times are in seconds from the start of the run, warm-up included.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "sim/timeline_stats.h"

namespace knobsim {

// {step_s, end_s, replications, workloads[{id, name, namespace, desired, available_fraction,
// below_desired_s, unavailable_s, points[...]}], cards[{id, node, index, gpu, points[...]}]}:
// means over the replications, each object with its "ci95" half-widths when `replicated`.
// Callers leave the key out when timeline.step is 0.
nlohmann::ordered_json TimelineToJson(const TimelineStats& timeline, bool replicated);
// One run's timeline (RunResult::timeline) in the same form.
nlohmann::ordered_json TimelineToJson(const RunResult& run);

}  // namespace knobsim
