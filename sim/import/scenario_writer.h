// ScenarioWriter: an ImportModel (cluster_import.h) as the text of a scenario file that
// `knobsim run` reads (docs/scenario.md), with a comment beside each imported number saying
// where it came from, and a commented block at the end for what the format has no keys for yet
// (PDBs, StatefulSets, storage, quotas).
//
// The text depends only on the model: no file name, time or path goes in, so the same cluster
// exported as JSON or as YAML gives the same bytes.
#pragma once

#include <string>

#include "sim/import/cluster_import.h"

namespace knobsim {

// A YAML scalar for a string: plain when that reads back as the same string, else double-quoted
// ("true", "8080", "", "a: b" are quoted).
std::string YamlScalar(const std::string& text);

// A duration as the scenario reader parses it: "0", "1h", "90m", "58.6ms", "1.251s".
std::string ScenarioDuration(double seconds);

std::string WriteScenarioYaml(const ImportModel& model);

}  // namespace knobsim
