// `knobsim backtest --kube EXPORT --prom FILE... [--latency-metric NAME]
//  (--train FROM/TO --test FROM/TO | --split F) [--window 10m] [--replications R]
//  [--json FILE] [--html FILE]`: how far knobsim's predictions for the exported cluster are from
// what it did next (docs/backtest.md). The work is sim/backtest's; this file parses the options,
// reads the inputs, prints the table on stdout and the notes on stderr, and writes the files.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "sim/backtest/backtest.h"
#include "sim/backtest/backtest_headline.h"
#include "sim/backtest/backtest_json.h"
#include "sim/backtest/backtest_text.h"
#include "sim/io/arrival_file.h"
#include "sim/io/results_json.h"
#include "sim/output_file.h"
#include "sim/report/html_report.h"
#include "sim/text.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/import_options.h"
#include "tools/knobsim/progress_line.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {
namespace {

struct BacktestArgs {
  ImportInputArgs input;
  std::string train, test;
  double split = 0.25;
  std::string window = "10m";
  int replications = 5;
  uint64_t seed = 1;
  int threads = 0;
  std::string json;
  std::string html;
  bool quiet = false;
  bool progress = false;
  bool no_store = false;
  bool no_split = false;
  std::vector<std::string> limits;  // --limit NAME=VALUE
};

// An instant of `--train` / `--test`: RFC 3339 or Unix seconds.
Expected<double> ParseInstant(const std::string& option, const std::string& text) {
  if (std::optional<double> t = ParseRfc3339(text)) return *t;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(v)) return v;
  return InputError{"", 0, option, Quote(text) + " is neither an RFC 3339 instant nor Unix seconds",
                    ""};
}

// FROM/TO.
Expected<backtest::TimeRange> ParseRange(const std::string& option, const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos)
    return InputError{"", 0, option, Quote(text) + " is not FROM/TO", ""};
  Expected<double> from = ParseInstant(option, text.substr(0, slash));
  if (!from) return from.error();
  Expected<double> to = ParseInstant(option, text.substr(slash + 1));
  if (!to) return to.error();
  return backtest::TimeRange{*from, *to};
}

Status Windows(const BacktestArgs& args, const PromInputs& prom, backtest::BacktestOptions* o) {
  if (args.train.empty() != args.test.empty())
    return Status::Failure("--train and --test go together (or give --split)");
  if (!args.train.empty()) {
    Expected<backtest::TimeRange> train = ParseRange("--train", args.train);
    if (!train) return train.error();
    Expected<backtest::TimeRange> test = ParseRange("--test", args.test);
    if (!test) return test.error();
    o->train = *train;
    o->test = *test;
    return Status::Ok();
  }
  if (!(args.split > 0 && args.split < 1))
    return Status::Failure("--split: the test fraction must lie between 0 and 1");
  // The last sample closes the window (it covers the step before it).
  const double cut = prom.last - (prom.last - prom.first) * args.split;
  o->train = {prom.first, cut};
  o->test = {cut, prom.last};
  return Status::Ok();
}

// Keeps the headline where whatif and plan on the imported scenario find it; a store that
// cannot be written is a warning, the backtest itself stands.
void KeepHeadline(const backtest::BacktestReport& report) {
  const std::string dir = backtest::HeadlineStoreDir();
  if (dir.empty()) {
    std::cerr << "knobsim: warning: no folder to keep the backtest's headline in (set "
                 "KNOBSIM_CACHE_DIR): whatif and plan will not show it\n";
    return;
  }
  const Status stored = backtest::StoreHeadline(dir, backtest::HeadlineOf(report, KNOBSIM_VERSION));
  if (!stored) {
    std::cerr << "knobsim: warning: the backtest's headline was not kept: " << stored.ToString()
              << "\n";
    return;
  }
  std::cerr << "knobsim: note: headline kept as " << report.evidence << " in " << dir
            << "/backtests: whatif and plan on a scenario imported from this export print it\n";
}

int RunBacktestCommand(const BacktestArgs& args) {
  ImportSetup setup;
  if (Status s = ResolveImportInputs(args.input, &setup); !s) return BadInput(s);
  if (Status s = CheckOutputPath(args.json, "--json"); !s) return BadInput(s);
  if (Status s = CheckOutputPath(args.html, "--report"); !s) return BadInput(s);
  backtest::BacktestOptions options;
  options.import = setup.options;
  options.names = setup.names;
  const Expected<double> window_s = ParseWindow("--window", args.window);
  if (!window_s) return BadInput(window_s.error().message);
  options.window_s = *window_s;
  options.replications = args.replications;
  options.seed = args.seed;
  options.threads = args.threads;
  if (args.no_split) options.max_parts = 1;
  if (Status s = ApplyLimitOptions(args.limits, &options.limits); !s) return BadInput(s);
  if (!setup.isolation_rules.empty())
    return BadInput("--isolation: not taken by backtest (it judges the import as it is)");

  Expected<KubeObjects> objects = ReadKubeInputs(args.input.kube);
  if (!objects) return BadInput(objects.error());
  Expected<PromInputs> prom = ReadPromInputs(args.input.prom);
  if (!prom) return BadInput(prom.error());
  if (Status s = Windows(args, *prom, &options); !s) return BadInput(s);
  if (Status s = backtest::CheckBacktestOptions(options); !s) return BadInput(s);
  // A run is a replication, or one part of one when the replay is split (docs/backtest.md).
  ProgressLine progress(ChooseProgressMode(args.quiet, args.progress), "knobsim backtest", "runs");
  options.progress = progress.Callback();
  Expected<backtest::BacktestReport> report =
      backtest::RunBacktest(*objects, prom->results, options);
  progress.Clear();
  if (!report) return BadInput(report.error());
  for (const std::string& w : objects->warnings) std::cerr << "knobsim: warning: " << w << "\n";
  for (const std::string& w : prom->warnings) std::cerr << "knobsim: warning: " << w << "\n";
  for (const std::string& w : report->warnings) std::cerr << "knobsim: warning: " << w << "\n";
  for (const std::string& line : report->fit_report) std::cerr << "knobsim: fit: " << line << "\n";
  // `--json -` makes stdout the document alone, for a pipe.
  if (args.json != "-") std::cout << backtest::BacktestText(*report) << std::flush;
  const nlohmann::ordered_json document = backtest::BacktestToJson(*report, KNOBSIM_VERSION);
  if (!args.no_store) KeepHeadline(*report);
  if (!args.html.empty()) {
    if (Status failed = WriteReportFile(document, args.html); !failed) return BadInput(failed);
  }
  if (!args.json.empty()) {
    const std::string text = ResultsJsonText(document);
    if (args.json == "-") {
      std::cout << text << std::flush;
    } else if (Status written = WriteFileAtomically(args.json, text); !written) {
      return BadInput(written);
    }
  }
  return kExitOk;
}

}  // namespace

void AddBacktestCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BacktestArgs>();
  CLI::App* cmd = app.add_subcommand(
      "backtest",
      "Import from a train window of the metrics, replay the test window's recorded requests, "
      "and compare the predictions with what was measured (docs/backtest.md)");
  AddImportInputOptions(cmd, &args->input, /*prom_required=*/true);
  cmd->add_option("--train", args->train,
                  "train window FROM/TO (RFC 3339 or Unix seconds); with --test");
  cmd->add_option("--test", args->test, "test window FROM/TO, after the train window");
  cmd->add_option("--split", args->split,
                  "without --train/--test: the last fraction of the metrics is the test window")
      ->capture_default_str();
  cmd->add_option("--window", args->window, "comparison window (10m, 1h)")->capture_default_str();
  cmd->add_option("--replications", args->replications, "independent runs of the test window")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "base seed")->capture_default_str();
  cmd->add_option("--threads", args->threads, "OpenMP threads (0 = all)")
      ->check(CLI::NonNegativeNumber);
  AddLimitOption(cmd, &args->limits);
  cmd->add_option("--json", args->json, "write the knobsim.backtest/v1 document (`-` = stdout)");
  cmd->add_option("--report,--html", args->html,
                  "write the page: predicted against measured per card and workload (as "
                  "`knobsim report` of the --json document)");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress line");
  AddProgressOption(cmd, &args->progress);
  cmd->add_flag("--no-split", args->no_split,
                "replay the whole cluster as one run per replication (the independent parts give "
                "the same numbers on more cores: docs/backtest.md \"Speed\")");
  cmd->add_flag("--no-store", args->no_store,
                "do not keep the headline for whatif and plan (KNOBSIM_CACHE_DIR, else "
                "~/.cache/knobsim: docs/backtest.md)");
  cmd->callback([args, exit_code] { *exit_code = RunBacktestCommand(*args); });
}

}  // namespace knobsim::cli
