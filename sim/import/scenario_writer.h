// ScenarioWriter: an ImportModel (cluster_import.h) as the text of a scenario file that
// `knobsim run` reads (docs/scenario.md), with a comment beside each imported number saying
// where it came from, and a commented block at the end for what the format has no keys for yet
// (PDBs, StatefulSets, storage, quotas).
//
// The text depends only on the model: no file name, time or path goes in, so the same cluster
// exported as JSON or as YAML gives the same bytes.
#pragma once

#include <cstdint>
#include <string>

#include "sim/import/cluster_import.h"

namespace knobsim {

// A YAML scalar for a string: plain when that reads back as the same string, else double-quoted
// ("true", "8080", "", "a: b" are quoted).
std::string YamlScalar(const std::string& text);

// A memory amount in MiB as the scenario reader reads it: "0", "6Gi", "6000Mi".
std::string ScenarioMemory(int64_t mib);

// The `dra:` value of a DRA pool and of a DRA workload (docs/scenario.md "DRA"): "true",
// "{driver: hami}", "{mig: \"3g.40gb+1g.10gb*4\"}"; "{gpus: 1, shared: true, sharing: mps, mps:
// {…}}", "{gpus: 1, driver: hami, memory: 6Gi, cores: 30}" (scenario_writer_dra.cpp).
std::string DraPoolValue(const NodePool& pool);
std::string DraAskValue(const DraAsk& ask);

// An `hpa:` metric and scaling rules as the scenario reader reads them
// (scenario_writer_autoscalers.cpp): "{metric: cpu, utilization: 50}",
// "{metric: gpu_memory, average: 6Gi}"; "{stabilization_window: 300s, policies: [{type: Pods,
// value: 4, period: 15s}]}".
std::string HpaMetricValue(const HpaMetric& metric);
std::string HpaRulesValue(const HpaScalingRules& rules);

// A cpu amount in millicores as the reader reads it: "4", "500m".
std::string ScenarioCpu(int64_t milli);

// A duration as the scenario reader parses it: "0", "1h", "90m", "58.6ms", "1.251s".
std::string ScenarioDuration(double seconds);

// A rate as the writer puts it: six significant digits, never in exponent form (the rate
// grammar has none): "0", "12.3457/s", "0.000123457/s".
std::string ScenarioRate(double per_s);

// A plain number with six decimals at most, trailing zeros dropped: "0", "0.05".
std::string ScenarioDecimal(double v);

// The reader's name of a work distribution: "constant", "exponential", "lognormal", "gamma".
const char* WorkDistName(WorkDistribution dist);

// A `work:` value: "{dist: gamma, mean: 15.2s, cv: 0.316228}"; cv (ScenarioDecimal) only for
// lognormal and gamma.
std::string ScenarioWork(const WorkModel& work);

std::string WriteScenarioYaml(const ImportModel& model);

}  // namespace knobsim
