// `knobsim whatif`: a scenario as written (the base) beside knob changes — one variant from the
// `--knob` flags, or the named variants of a `--knobs FILE` — as the same table and results
// document as `knobsim run`, followed by a verdict per variant (docs/whatif.md).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/io/results_json.h"
#include "sim/io/results_table.h"
#include "sim/io/scenario_reader.h"
#include "sim/quantity.h"
#include "sim/run_set.h"
#include "sim/whatif/knobs.h"
#include "sim/whatif/verdict.h"
#include "tools/knobsim/backtest_headline_note.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct WhatifArgs {
  std::string scenario;
  std::vector<std::string> knobs;
  std::string knobs_file;
  std::string backtest;
  SimulationOptions sim;
};

// The variants the call asks for: one from the --knob flags, or those of --knobs FILE.
Expected<std::vector<Variant>> Variants(const WhatifArgs& args, const Scenario& scenario) {
  if (!args.knobs_file.empty()) return ReadKnobsFile(args.knobs_file, scenario);
  std::vector<KnobText> texts;
  for (const std::string& k : args.knobs) texts.push_back({k, "--knob", 0, ""});
  Expected<Variant> v = VariantFromKnobs(scenario, texts, KnobVariantName(args.knobs));
  if (!v.ok()) return v.error();
  return std::vector<Variant>{std::move(*v)};
}

int Whatif(const WhatifArgs& args) {
  if (args.knobs.empty() == args.knobs_file.empty()) {
    return BadInput(args.knobs.empty()
                        ? "say what to change: --knob KEY=VALUE (repeatable) or --knobs FILE"
                        : "use --knob or --knobs FILE, not both");
  }
  Expected<Scenario> read = ReadScenarioFile(args.scenario);
  if (!read.ok()) return BadInput(read.error().ToString());
  Scenario& scenario = *read;
  NoteCpuHpasWithoutRequest(scenario);

  if (Status s = ApplyRunOverrides(args.sim, &scenario); !s) return BadInput(s);

  Expected<std::vector<Variant>> variants = Variants(args, scenario);
  if (!variants.ok()) return BadInput(variants.error().ToString());
  // The scenario's own variants are not run: a what-if compares the cluster as written with
  // the knobs of this call only (`knobsim run --all` runs the scenario's variants).
  scenario.variants = std::move(*variants);
  std::vector<std::string> headline_notes;
  Expected<std::string> headline = BacktestHeadlineFor(scenario, args.backtest, &headline_notes);
  if (!headline) return BadInput(headline.error());

  RunSetOptions options;
  options.seed = scenario.run.seed;
  options.replications = scenario.run.replications;
  options.threads = args.sim.threads;
  for (const Variant& v : scenario.variants) options.variants.push_back(v.name);
  if (Status s = PrepareRunSet(args.sim, scenario, &options); !s) return BadInput(s);
  std::optional<PriceBook> prices;
  if (Status s = LoadPrices(args.sim, &prices); !s) return BadInput(s);
  RunSetResult results = RunWithProgress(scenario, options, ProgressModeOf(args.sim));
  ApplyPrices(prices, scenario, &results);
  if (Status s = WriteResultsDocument(args.sim, results); !s) return BadInput(s);
  const bool json_to_stdout = args.sim.json_to_stdout();

  std::vector<Verdict> verdicts;
  const VariantSummary& base = results.variants.front();
  for (const VariantSummary& v : results.variants) verdicts.push_back(JudgeVariant(base, v));

  if (!args.sim.quiet) {
    // With `--json -` stdout is the document alone; the verdict goes to stderr.
    std::ostream& out = json_to_stdout ? std::cerr : std::cout;
    // The summary first (what ran, what changed, the verdicts), then the numbers behind it.
    TableOptions table;
    table.width = TableWidth(args.sim);
    if (!json_to_stdout) out << ResultsSummary(results, table) << "\n";
    if (!headline->empty()) out << *headline << "\n";
    for (const Verdict& v : verdicts) out << VerdictText(v);
    if (!json_to_stdout) out << "\n" << ResultsDetails(results, table);
    out << std::flush;
    for (const std::string& n : headline_notes) std::cerr << "knobsim: " << n << "\n";
  }

  if (args.sim.fail_on_slo) {
    // What the change breaks that works today: SLOs the base meets, pods the base places.
    std::vector<std::string> newly, pending;
    const std::vector<std::string> base_pending = PendingPods(base);
    for (const Verdict& v : verdicts) {
      if (v.variant == kBaseVariant) continue;
      for (const SloMiss& m : v.slo_misses) {
        if (m.change == Change::kNew) newly.push_back(v.variant + " " + m.workload);
      }
    }
    for (const VariantSummary& v : results.variants) {
      if (v.name == kBaseVariant) continue;
      for (const std::string& pod : PendingPods(v)) {
        if (std::find(base_pending.begin(), base_pending.end(), pod) == base_pending.end())
          pending.push_back(v.name + " " + pod);
      }
    }
    auto list = [](const std::vector<std::string>& items) {
      std::string text;
      for (size_t i = 0; i < items.size(); ++i) text += (i > 0 ? "; " : "") + items[i];
      return text;
    };
    if (!newly.empty())
      std::cerr << "knobsim: SLO newly missed (" << newly.size() << "): " << list(newly) << "\n";
    if (!pending.empty()) {
      std::cerr << "knobsim: pods newly Pending (" << pending.size() << "): " << list(pending)
                << "\n";
    }
    if (!newly.empty() || !pending.empty()) return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

void AddWhatifCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<WhatifArgs>();
  CLI::App* cmd = app.add_subcommand(
      "whatif",
      "Compare the scenario as written (base) with knob changes: the --knob flags of one call make "
      "one variant, --knobs FILE several; prints the side-by-side table and a verdict per variant "
      "(SLO misses, Pending, fake-Ready and OOM pods, compared with base). See docs/whatif.md.");
  cmd->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md)")
      ->required();
  cmd->add_option(
         "--knob", args->knobs,
         "A knob change KEY[:TARGET]=VALUE (repeatable; together they make one variant), "
         "e.g. policy=3, isolation=hard, placement:POOL=spread, quota:NS/NAME=peak+10%, "
         "spread:NAME=hostname:1, replicas:NAME=3, nodes:POOL=6, traffic=1.5, gpu_core:NAME=40")
      ->type_name("KNOB");
  cmd->add_option("--knobs", args->knobs_file, "YAML file of named variants, each a list of knobs")
      ->type_name("FILE");
  AddSimulationOptions(cmd, &args->sim,
                       "Write the results document (docs/results.md) to FILE; - writes it to "
                       "stdout (the table is left out, the verdict goes to stderr)",
                       "Print no table, no verdict and no progress line");
  AddWideOption(cmd, &args->sim);
  AddPricesOption(cmd, &args->sim);
  AddBacktestHeadlineOption(cmd, &args->backtest);
  cmd->add_flag("--fail-on-slo", args->sim.fail_on_slo,
                "Exit with status 1 when a variant misses an SLO that the base meets, or leaves "
                "a pod Pending that the base places");
  cmd->callback([args, exit_code] { *exit_code = Whatif(*args); });
}

}  // namespace knobsim::cli
