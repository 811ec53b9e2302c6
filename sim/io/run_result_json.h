// One run's RunResult as JSON and back, losing nothing: every count, every double bit for bit,
// every workload's latency histogram. A shard of a sweep carries its runs this way to
// `knobsim merge` (sim/io/shard_json.h, docs/sharding.md), which summarizes them exactly as if
// they had run in one process.
//
// The fields are those of sim/io/result_fields.h, written with the exact number policy of
// sim/io/json_numbers.h (non-finite doubles as "NaN", "Infinity", "-Infinity"; times in
// nanoseconds). Histograms keep only their non-empty buckets, as [bucket, count] pairs.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sim/input_error.h"
#include "sim/results.h"

namespace knobsim {

nlohmann::ordered_json RunResultToJson(const RunResult& result);

// Reads what RunResultToJson wrote. `file` and `path` (the field path of `json` inside its
// document, e.g. "jobs[3].result") name the place in an error.
Expected<RunResult> RunResultFromJson(const nlohmann::ordered_json& json, const std::string& file,
                                      const std::string& path);

}  // namespace knobsim
