// The `verdict` a results document carries for each variant (docs/results.md): what the variant
// breaks compared with the base, as `knobsim whatif` prints it (sim/whatif/verdict.h words it).
// The results writer (sim/io/results_json.h) knows nothing of verdicts; every command that
// writes a results document adds them with AddVerdicts, as the last key of each variant.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "sim/run_set.h"
#include "sim/whatif/verdict.h"

namespace knobsim {

// {headline, clean, lines[{kind, text, new}]}.
nlohmann::ordered_json VerdictToJson(const VerdictLines& verdict);

// Adds "verdict" to each variant of `document` (ResultsToJson of `results`: the same variants,
// in the same order), each judged against the first variant, the base.
void AddVerdicts(const RunSetResult& results, nlohmann::ordered_json* document);

}  // namespace knobsim
