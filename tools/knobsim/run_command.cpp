// `knobsim run`: read a scenario, run the base and the chosen variants (replicated, in parallel),
// print the side-by-side table and optionally write the results document.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/io/quantity.h"
#include "sim/io/results_json.h"
#include "sim/io/results_table.h"
#include "sim/io/scenario_reader.h"
#include "sim/run_set.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> variants;
  bool all = false;
  SimulationOptions sim;
};

std::string Join(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) s += ", ";
    s += parts[i];
  }
  return s;
}

std::string VariantList(const Scenario& s) {
  if (s.variants.empty()) return "the scenario defines no variants";
  std::vector<std::string> names;
  for (const Variant& v : s.variants) names.push_back(v.name);
  std::string list = "available: ";
  list += Join(names);
  return list;
}

int Run(const RunArgs& args) {
  Expected<Scenario> read = ReadScenarioFile(args.scenario);
  if (!read.ok()) return BadInput(read.error().ToString());
  Scenario& scenario = *read;

  // Command-line overrides of the scenario's run settings.
  if (auto error = ApplyRunOverrides(args.sim, &scenario)) return BadInput(*error);

  RunSetOptions options;
  options.seed = scenario.run.seed;
  options.replications = scenario.run.replications;
  options.threads = args.sim.threads;
  if (args.all) {
    for (const Variant& v : scenario.variants) options.variants.push_back(v.name);
  }
  for (const std::string& name : args.variants) {
    if (name != kBaseVariant && FindVariant(scenario, name) == nullptr) {
      return BadInput("unknown variant \"" + name + "\" in " + args.scenario + "; " +
                      VariantList(scenario));
    }
    options.variants.push_back(name);
  }

  const RunSetResult results = RunWithProgress(scenario, options, args.sim.quiet);
  if (auto failed = WriteResultsDocument(args.sim, results)) return BadInput(*failed);
  // With `--json -` stdout is the document alone, so a pipe into jq or a file gets valid JSON.
  if (!args.sim.quiet && !args.sim.json_to_stdout()) {
    TableOptions table;
    table.width = TableWidth();
    std::cout << ResultsTable(results, table) << std::flush;
  }

  if (args.sim.fail_on_slo) {
    std::vector<std::string> missed;
    for (const VariantSummary& v : results.variants) {
      for (const WorkloadStats& w : v.workloads) {
        if (!w.slo_met) missed.push_back(v.name + "/" + w.name);
      }
    }
    if (!missed.empty()) {
      std::cerr << "knobsim: SLO missed (" << missed.size() << "): " << Join(missed) << "\n";
      return kExitCheckFailed;
    }
  }
  return kExitOk;
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand(
      "run",
      "Simulate a scenario: the base cluster and the chosen variants side by side, per workload "
      "(latency, errors by cause, SLO) and per card (utilization, memory).");
  run->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md)")
      ->required();
  run->add_option("--variant", args->variants,
                  "Also run this variant of the scenario (repeatable, or comma-separated); the "
                  "base always runs first")
      ->delimiter(',');
  run->add_flag("--all", args->all, "Run every variant the scenario defines");
  AddSimulationOptions(run, &args->sim,
                       "Write the results document (docs/results.md) to FILE; - writes it to "
                       "stdout instead of the table",
                       "Print no table and no progress line");
  run->add_flag("--fail-on-slo", args->sim.fail_on_slo,
                "Exit with status 1 when any workload of any variant run misses its SLO");
  run->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace knobsim::cli
