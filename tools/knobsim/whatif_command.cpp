// `knobsim whatif`: a scenario as written (the base) beside knob changes — one variant from the
// `--knob` flags, or the named variants of a `--knobs FILE` — as the same table and results
// document as `knobsim run`, followed by a verdict per variant (docs/whatif.md).
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
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
#include "sim/whatif/knobs.h"
#include "sim/whatif/verdict.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"

namespace knobsim::cli {

namespace {

struct WhatifArgs {
  std::string scenario;
  std::vector<std::string> knobs;
  std::string knobs_file;
  uint64_t seed = 0;
  int replications = 1;
  int threads = 0;
  std::string json;
  std::string duration;
  std::string warmup;
  bool quiet = false;
  bool fail_on_slo = false;
  CLI::Option* seed_opt = nullptr;
  CLI::Option* replications_opt = nullptr;
  CLI::Option* duration_opt = nullptr;
  CLI::Option* warmup_opt = nullptr;
  CLI::Option* json_opt = nullptr;
};

int BadInput(const std::string& message) {
  std::cerr << "knobsim: " << message << "\n";
  return kExitBadInput;
}

// A command-line duration, named the way a file error names a field.
bool Duration(const std::string& option, const std::string& text, SimTime* out, std::string* error) {
  const Parsed<int64_t> d = ParseDuration(text);
  if (!d.ok()) {
    *error = option + ": " + d.error + (d.hint.empty() ? "" : "; " + d.hint);
    return false;
  }
  *out = *d.value;
  return true;
}

// The terminal's width when stdout is one (within reason), else one that reads well in logs;
// the same rule as `knobsim run`.
int TableWidth() {
  winsize ws{};
  if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col > 0) {
    return std::clamp(static_cast<int>(ws.ws_col), 80, 200);
  }
  return 132;
}

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

  if (args.seed_opt->count() > 0) scenario.run.seed = args.seed;
  if (args.replications_opt->count() > 0) scenario.run.replications = args.replications;
  std::string error;
  if (args.duration_opt->count() > 0 &&
      !Duration("--duration", args.duration, &scenario.run.duration, &error)) {
    return BadInput(error);
  }
  if (args.warmup_opt->count() > 0 && !Duration("--warmup", args.warmup, &scenario.run.warmup, &error)) {
    return BadInput(error);
  }
  if (scenario.run.duration <= 0) return BadInput("the run duration must be positive");
  if (scenario.run.warmup >= scenario.run.duration) {
    return BadInput("the warm-up must be shorter than the run duration; see --duration and --warmup");
  }

  Expected<std::vector<Variant>> variants = Variants(args, scenario);
  if (!variants.ok()) return BadInput(variants.error().ToString());
  // The scenario's own variants are not run: a what-if compares the cluster as written with
  // the knobs of this call only (`knobsim run --all` runs the scenario's variants).
  scenario.variants = std::move(*variants);

  RunSetOptions options;
  options.seed = scenario.run.seed;
  options.replications = scenario.run.replications;
  options.threads = args.threads;
  for (const Variant& v : scenario.variants) options.variants.push_back(v.name);
  const RunSetResult results = RunSet(scenario, options);

  const bool json_to_stdout = args.json_opt->count() > 0 && args.json == "-";
  if (args.json_opt->count() > 0) {
    const std::string text = ResultsJsonText(results, KNOBSIM_VERSION);
    if (json_to_stdout) {
      std::cout << text << std::flush;
    } else if (auto failed = WriteFileAtomically(args.json, text)) {
      return BadInput(failed->ToString());
    }
  }

  std::vector<Verdict> verdicts;
  const VariantSummary& base = results.variants.front();
  for (const VariantSummary& v : results.variants) verdicts.push_back(JudgeVariant(base, v));

  if (!args.quiet) {
    // With `--json -` stdout is the document alone; the verdict goes to stderr.
    std::ostream& out = json_to_stdout ? std::cerr : std::cout;
    if (!json_to_stdout) {
      TableOptions table;
      table.width = TableWidth();
      out << ResultsTable(results, table) << "\n";
    }
    for (const Verdict& v : verdicts) out << VerdictText(v);
    out << std::flush;
  }

  if (args.fail_on_slo) {
    std::vector<std::string> newly;
    for (const Verdict& v : verdicts) {
      for (const SloMiss& m : v.slo_misses) {
        if (m.change == Change::kNew && v.variant != kBaseVariant) newly.push_back(v.variant + " " + m.workload);
      }
    }
    if (!newly.empty()) {
      std::string list;
      for (size_t i = 0; i < newly.size(); ++i) list += (i > 0 ? "; " : "") + newly[i];
      std::cerr << "knobsim: SLO newly missed (" << newly.size() << "): " << list << "\n";
      return kExitCheckFailed;
    }
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
  cmd->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md)")->required();
  cmd->add_option("--knob", args->knobs,
                  "A knob change KEY[:TARGET]=VALUE (repeatable; together they make one variant), "
                  "e.g. policy=3, isolation=hard, placement:POOL=spread, quota:NS/NAME=peak+10%, "
                  "spread:NAME=hostname:1, replicas:NAME=3, nodes:POOL=6, traffic=1.5, gpu_core:NAME=40")
      ->type_name("KNOB");
  cmd->add_option("--knobs", args->knobs_file, "YAML file of named variants, each a list of knobs")
      ->type_name("FILE");
  args->seed_opt = cmd->add_option("--seed", args->seed, "Override the scenario's seed")->check(Uint64Digits());
  args->replications_opt =
      cmd->add_option("--replications", args->replications,
                      "Override the number of replications (mean and 95 % interval when > 1)")
          ->check(CLI::Range(1, 1000000));
  cmd->add_option("--threads", args->threads,
                  "Runs in parallel (default 0 = all cores); results do not depend on it")
      ->check(CLI::Range(0, 4096));
  args->json_opt = cmd->add_option("--json", args->json,
                                   "Write the results document (docs/results.md) to FILE; - writes it "
                                   "to stdout (the table is left out, the verdict goes to stderr)");
  args->json_opt->type_name("FILE");
  args->duration_opt =
      cmd->add_option("--duration", args->duration, "Override the simulated time, warm-up included (e.g. 10m)");
  args->duration_opt->type_name("DURATION");
  args->warmup_opt = cmd->add_option("--warmup", args->warmup, "Override the warm-up (e.g. 1m)");
  args->warmup_opt->type_name("DURATION");
  cmd->add_flag("--quiet,-q", args->quiet, "Print no table and no verdict");
  cmd->add_flag("--fail-on-slo", args->fail_on_slo,
                "Exit with status 1 when a variant misses an SLO that the base meets");
  cmd->callback([args, exit_code] { *exit_code = Whatif(*args); });
}

}  // namespace knobsim::cli
