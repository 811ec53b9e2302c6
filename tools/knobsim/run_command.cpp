// `knobsim run`: read a scenario, run the base and the chosen variants (replicated, in parallel),
// print the side-by-side table and optionally write the results document.
#include <sys/ioctl.h>
#include <unistd.h>

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

namespace knobsim::cli {

namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> variants;
  bool all = false;
  uint64_t seed = 0;
  int replications = 1;
  int threads = 0;
  std::string json;
  std::string duration;
  std::string warmup;
  bool quiet = false;
  bool fail_on_slo = false;
  // Whether an option was given, so that only given ones override the scenario's run settings.
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

int BadInput(const InputError& e) {
  return BadInput(e.ToString());
}

// `--duration 10m`: the option is named the way a file error names a field.
bool ParseDurationOption(const std::string& option, const std::string& text, SimTime* out,
                         std::string* error) {
  const Parsed<int64_t> d = ParseDuration(text);
  if (!d.ok()) {
    *error = option + ": " + d.error + (d.hint.empty() ? "" : "; " + d.hint);
    return false;
  }
  *out = *d.value;
  return true;
}

std::string Seconds(SimTime t) {
  const double s = static_cast<double>(t) / kNanosPerSecond;
  std::string text = std::to_string(s);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text + " s";
}

// The progress line: stderr only, only on a terminal, only once the run has taken a second,
// and erased at the end so that the terminal keeps just the results.
class Progress {
 public:
  explicit Progress(bool enabled)
      : enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
        start_(std::chrono::steady_clock::now()) {}

  ProgressFn Callback() {
    if (!enabled_) return {};
    return [this](int done, int total) { Show(done, total); };
  }

  void Clear() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  void Show(int done, int total) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < 1.0 || done == total) return;
    std::cerr << "\r\033[Kknobsim: " << done << "/" << total << " runs done ("
              << (100 * done / total) << " %), " << static_cast<int>(elapsed) << " s" << std::flush;
    shown_ = true;
  }

  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

// Table width: the terminal's when stdout is one (within reason), else a width that reads well
// in logs and CI output.
int TableWidth() {
  winsize ws{};
  if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col > 0) {
    return std::clamp(static_cast<int>(ws.ws_col), 80, 200);
  }
  return 132;
}

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
  if (!read.ok()) return BadInput(read.error());
  Scenario& scenario = *read;

  // Command-line overrides of the scenario's run settings.
  if (args.seed_opt->count() > 0) scenario.run.seed = args.seed;
  if (args.replications_opt->count() > 0) scenario.run.replications = args.replications;
  std::string error;
  if (args.duration_opt->count() > 0 &&
      !ParseDurationOption("--duration", args.duration, &scenario.run.duration, &error)) {
    return BadInput(error);
  }
  if (args.warmup_opt->count() > 0 &&
      !ParseDurationOption("--warmup", args.warmup, &scenario.run.warmup, &error)) {
    return BadInput(error);
  }
  if (scenario.run.duration <= 0) return BadInput("the run duration must be positive");
  if (scenario.run.warmup >= scenario.run.duration) {
    return BadInput("the warm-up (" + Seconds(scenario.run.warmup) +
                    ") must be shorter than the run duration (" + Seconds(scenario.run.duration) +
                    "); see --duration and --warmup");
  }
  if (scenario.run.replications < 1) return BadInput("replications must be at least 1");

  RunSetOptions options;
  options.seed = scenario.run.seed;
  options.replications = scenario.run.replications;
  options.threads = args.threads;
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

  Progress progress(!args.quiet);
  options.progress = progress.Callback();
  RunSetResult results;
  try {
    results = RunSet(scenario, options);
  } catch (...) {
    progress.Clear();
    throw;
  }
  progress.Clear();

  const bool json_to_stdout = args.json_opt->count() > 0 && args.json == "-";
  if (args.json_opt->count() > 0) {
    const std::string text = ResultsJsonText(results, KNOBSIM_VERSION);
    if (json_to_stdout) {
      std::cout << text << std::flush;
    } else if (auto failed = WriteFileAtomically(args.json, text)) {
      return BadInput(*failed);
    }
  }
  // With `--json -` stdout is the document alone, so a pipe into jq or a file gets valid JSON.
  if (!args.quiet && !json_to_stdout) {
    TableOptions table;
    table.width = TableWidth();
    std::cout << ResultsTable(results, table) << std::flush;
  }

  if (args.fail_on_slo) {
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
  const CLI::Validator digits = Uint64Digits();
  args->seed_opt =
      run->add_option("--seed", args->seed, "Override the scenario's seed")->check(digits);
  args->replications_opt =
      run->add_option("--replications", args->replications,
                      "Override the number of replications (mean and 95 % interval when > 1)")
          ->check(CLI::Range(1, 1000000));
  run->add_option("--threads", args->threads,
                  "Runs in parallel (default 0 = all cores); results do not depend on it")
      ->check(CLI::Range(0, 4096));
  args->json_opt = run->add_option(
      "--json", args->json,
      "Write the results document (docs/results.md) to FILE; - writes it to stdout instead of "
      "the table");
  args->json_opt->type_name("FILE");
  args->duration_opt = run->add_option("--duration", args->duration,
                                       "Override the simulated time, warm-up included (e.g. 10m)");
  args->duration_opt->type_name("DURATION");
  args->warmup_opt = run->add_option("--warmup", args->warmup, "Override the warm-up (e.g. 1m)");
  args->warmup_opt->type_name("DURATION");
  run->add_flag("--quiet,-q", args->quiet, "Print no table and no progress line");
  run->add_flag("--fail-on-slo", args->fail_on_slo,
                "Exit with status 1 when any workload of any variant run misses its SLO");
  run->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace knobsim::cli
