// What the commands that run simulations (run, whatif) share: the options that override the
// scenario's run settings, the progress line, the results document and the table width. One
// home, so `knobsim run` and `knobsim whatif` read and report a run the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/input_error.h"
#include "sim/io/price_reader.h"
#include "sim/run_set.h"
#include "sim/scenario.h"
#include "tools/knobsim/progress_line.h"

namespace knobsim::cli {

struct SimulationOptions {
  uint64_t seed = 0;
  int replications = 1;
  int threads = 0;
  std::string json;
  std::string report;  // --report FILE.html: the page `knobsim report` makes of the document
  std::string duration;
  std::string warmup;
  std::string timeline;  // --timeline STEP
  std::string prices;    // --prices FILE: the node pools' node-hours priced (docs/prices.md)
  std::vector<std::string> limits;  // --limit NAME=VALUE (sim/run_limits.h)
  bool quiet = false;
  bool wide = false;      // --wide: one block of columns, however wide (for a pager or a file)
  bool progress = false;  // --progress: show it off a terminal too
  bool fail_on_slo = false;
  // Whether an option was given, so that only given ones override the scenario's run settings.
  CLI::Option* seed_opt = nullptr;
  CLI::Option* replications_opt = nullptr;
  CLI::Option* duration_opt = nullptr;
  CLI::Option* warmup_opt = nullptr;
  CLI::Option* json_opt = nullptr;
  CLI::Option* timeline_opt = nullptr;

  bool json_wanted() const { return json_opt != nullptr && json_opt->count() > 0; }
  bool report_wanted() const { return !report.empty(); }
  // `--json -`: stdout carries the document alone (a pipe into jq gets valid JSON).
  bool json_to_stdout() const { return json_wanted() && json == "-"; }
};

// Registers --seed, --replications, --threads, --json, --report, --duration, --warmup,
// --timeline, --limit and --quiet; `json_help` and `quiet_help` say what those mean for the
// command. --fail-on-slo is each command's own (its rule differs).
void AddSimulationOptions(CLI::App* cmd, SimulationOptions* options, std::string_view json_help,
                          std::string_view quiet_help);

// Applies the given overrides to scenario->run and checks the result; a failure (only a
// message) when they cannot be used.
Status ApplyRunOverrides(const SimulationOptions& options, Scenario* scenario);

// Says on stderr which HPAs run on cpu utilization (their own metric, or the default when they
// list none) for a workload that requests no cpu: the controller cannot compute it ("missing
// request for cpu", FailedGetResourceMetric) and keeps the replicas, as upstream's does.
void NoteCpuHpasWithoutRequest(const Scenario& scenario);

// --timeline STEP: every run collects RunResult::timeline with that step (the results
// document writes replication 1's, docs/results.md); the message when STEP is not a positive
// duration (only a message). Ok when the option was not given.
Status ApplyTimelineOption(const SimulationOptions& options, RunSetOptions* run);

// The limits a command checks (sim/run_limits.h, docs/limits.md): a simulating command's, and
// `schedule`'s.
inline constexpr std::string_view kSweepLimitNames =
    "rate, nodes, pods, replicas, events, timeline-memory";
inline constexpr std::string_view kScheduleLimitNames = "nodes, pods, explain-rows";

// Adds `--limit NAME=VALUE` (repeatable) to `cmd`; its help names the limits the command checks.
void AddLimitOption(CLI::App* cmd, std::vector<std::string>* limits,
                    std::string_view names = kSweepLimitNames);

// The run limits with every --limit applied; the message of the first bad one, or of a limit
// the command does not check (not in `names`).
Status ApplyLimitOptions(const std::vector<std::string>& texts, RunLimits* limits,
                         std::string_view names = kSweepLimitNames);

// --json's and --report's paths checked (sim/output_file.h), the limits and timeline of `run` set
// from the options, then CheckRunSetLimits: everything a command checks before a sweep runs (the
// message of the first problem).
Status PrepareRunSet(const SimulationOptions& options, const Scenario& scenario,
                     RunSetOptions* run);

// --json's and --report's paths checked before anything runs (sim/output_file.h).
Status CheckOutputPaths(const SimulationOptions& options);

// Adds --prices FILE (run and whatif; plan has its own).
void AddPricesOption(CLI::App* cmd, SimulationOptions* options);

// --prices FILE read before anything runs: the book, or none without the option; the file's
// error (file, line, field) when it cannot be read.
Status LoadPrices(const SimulationOptions& options, std::optional<PriceBook>* prices);

// Each variant's node pools priced from the book (sim/io/pool_costs.h); a pool it cannot price
// is said once on stderr. Nothing without a book.
void ApplyPrices(const std::optional<PriceBook>& prices, const Scenario& scenario,
                 RunSetResult* results);

// RunSet with the progress line of `mode` on stderr (progress_line.h).
RunSetResult RunWithProgress(const Scenario& scenario, RunSetOptions run, ProgressMode mode);

// The progress line these options ask for (--quiet, --progress; progress_line.h).
ProgressMode ProgressModeOf(const SimulationOptions& options);

// The results document of `results` as every command writes it: ResultsToJson with each
// variant's verdict against the base (sim/whatif/verdict_json.h).
nlohmann::ordered_json ResultsDocument(const RunSetResult& results);

// Writes the results document where --json says (stdout for `-`, else atomically to the file)
// and its HTML page where --report says; the file's error when one cannot be written. Ok when
// neither was given.
Status WriteResultsDocument(const SimulationOptions& options, const RunSetResult& results);

// Adds --wide (the side-by-side table of run and whatif in one block).
void AddWideOption(CLI::App* cmd, SimulationOptions* options);

// The width tables are fitted to: unlimited with --wide; else $COLUMNS when set (a number of
// at least 40, as shells export it and as a user sets it for a log); else the terminal's width
// when stdout is one (80..200); else 132, which reads well in logs.
int TableWidth(const SimulationOptions& options);

// Prints "knobsim: MESSAGE" on stderr and returns the bad-input status (2): every command's one
// way out on bad input.
int BadInput(const std::string& message);

// The same for an input error, printed whole ("file:line: path: message; hint"), and for a
// failed Status, printed as its ToString() says.
int BadInput(const InputError& error);
int BadInput(const Status& failed);

}  // namespace knobsim::cli
