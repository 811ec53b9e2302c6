// The overlay of `knobsim import --overlay` (docs/ci-gate.md): what a config repository's
// manifests do not say (traffic, work per request, memory, SLOs, node pools, run settings),
// written as a fragment of a scenario file and merged into the imported scenario.
//
// The merge works on the YAML tree, before the normal scenario reader sees the result, so every
// value is checked in one place (sim/io/scenario_reader) and an overlay reads like a scenario:
//  * `name`, `description`: replace the imported ones;
//  * `cluster`, `run`: their keys replace the imported keys of the same name;
//  * `gpu_types`, `variants`: replace the imported lists;
//  * `node_pools`: an entry whose `name` is an imported pool adds its keys to that pool
//    (replacing those it names); any other entry is a new pool;
//  * `workloads`: each entry names imported workloads by `name` (`*` = every one) and, when
//    given, `namespace`, and adds its other keys to each, in file order (a later entry wins). An
//    entry that matches no workload is an error: it is a typo or a renamed service.
// Other top-level keys, duplicate keys and a second document are errors naming the overlay's
// file and line. YAML comments of the imported text do not survive the merge.
#pragma once

#include <string>

#include "sim/input_error.h"

namespace knobsim {

// Merges `overlay_yaml` (read from `overlay_file`, the name errors use) into `scenario_yaml`
// (WriteScenarioYaml's output) and returns the merged scenario text, which the scenario reader
// has accepted. Its errors name the overlay file, and the merged document's field path.
Expected<std::string> ApplyOverlay(const std::string& scenario_yaml,
                                   const std::string& overlay_yaml,
                                   const std::string& overlay_file);

// The same with the overlay read from a file.
Expected<std::string> ApplyOverlayFile(const std::string& scenario_yaml,
                                       const std::string& overlay_path);

}  // namespace knobsim
