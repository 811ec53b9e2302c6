// Reads a scenario file (YAML, documented key by key in docs/scenario.md) into a Scenario.
//
// The reader is strict on purpose: a what-if answer built on a silently ignored key is worse
// than no answer. Unknown keys, wrong types, values out of range, names that refer to nothing
// and YAML syntax errors all come back as one InputError naming the file, the line and the
// field path (`workloads[2].gpu_mem`), with a hint where a likely fix exists (`did you mean
// `replicas`?`). Values the reader derives (a pool's schedule, placement, cGPU state and
// isolation from its labels) follow docs/semantics.md §1.2 and are documented in docs/scenario.md.
#pragma once

#include <string>

#include "sim/input_error.h"
#include "sim/scenario.h"

namespace knobsim {

// Reads the scenario at `path`; errors name `path` as given.
Expected<Scenario> ReadScenarioFile(const std::string& path);

// Reads a scenario from YAML text; `file_name` is what errors and Scenario::file call it.
Expected<Scenario> ReadScenarioString(const std::string& yaml, const std::string& file_name);

}  // namespace knobsim
