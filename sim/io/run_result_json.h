// One run's RunResult as JSON and back, losing nothing: every count, every double bit for bit,
// every workload's latency histogram. A shard of a sweep carries its runs this way to
// `knobsim merge` (sim/io/shard_json.h, docs/sharding.md), which summarizes them exactly as if
// they had run in one process.
//
// Doubles are written as nlohmann's shortest round-trip numbers, which read back to the same
// bits (-0.0 included); the non-finite ones, which JSON has no number for, as the strings "NaN",
// "Infinity" and "-Infinity" (a NaN's payload is not kept). Histograms keep only their non-empty
// buckets, as [bucket, count] pairs.
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

// The double as RunResultToJson writes it, and back (for other documents that must keep bits).
nlohmann::ordered_json ExactDouble(double x);
// False when `json` is neither a number nor one of the three strings.
bool ReadExactDouble(const nlohmann::ordered_json& json, double* out);

}  // namespace knobsim
