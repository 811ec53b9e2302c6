// ImportedScenario: an ImportModel (cluster_import.h) as the Scenario that `knobsim run` reads
// from the text WriteScenarioYaml writes of it, built without the text: `knobsim check --kube`
// simulates this.
//
// Field for field what the scenario reader (sim/io/scenario_reader.cpp) makes of the writer's
// keys: only the keys the writer writes, under the same conditions (gpu_count and gpu_core only
// with gpu_mem, gpu_memory / traffic / work only when the model has them, a workload without
// labels labelled {app: name}); the numbers as the text holds them (rates, durations and the
// switch overhead through the writer's own texts, ScenarioRate / ScenarioDuration /
// ScenarioDecimal, read with the reader's parsers); the values the reader derives from a pool's
// labels (schedule, placement, max-pod, cGPU state) derived by the same rules; the kube objects
// with the fields the writer writes.
//
// An error where the reader would refuse the written text for something an export can hold:
// more current pods than replicas (a rollout's surge), traffic on a workload without a GPU,
// names that are not DNS labels, duplicate names, a gpu_mem that does not split over gpu_count,
// card indexes above 63, label values the reader does not know. The error names `file_name`
// and the field path as the reader would, without a line (there is no text).
// imported_scenario_test.cpp holds the two paths to the same Scenario.
#pragma once

#include <string>

#include "sim/import/cluster_import.h"
#include "sim/input_error.h"
#include "sim/scenario.h"

namespace knobsim {

Expected<Scenario> ScenarioFromImport(const ImportModel& model, const std::string& file_name);

}  // namespace knobsim
