#include "tools/knobsim/simulation_options.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>

#include <nlohmann/json.hpp>

#include "sim/autoscaling/horizontal_controller.h"
#include "sim/engine/simulation.h"
#include "sim/io/pool_costs.h"
#include "sim/io/results_json.h"
#include "sim/output_file.h"
#include "sim/quantity.h"
#include "sim/report/html_report.h"
#include "sim/whatif/verdict_json.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"

namespace knobsim::cli {
namespace {

std::string Seconds(SimTime t) {
  const double s = static_cast<double>(t) / kNanosPerSecond;
  std::string text = std::to_string(s);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text + " s";
}

}  // namespace

void AddSimulationOptions(CLI::App* cmd, SimulationOptions* o, std::string_view json_help,
                          std::string_view quiet_help) {
  o->seed_opt =
      cmd->add_option("--seed", o->seed, "Override the scenario's seed")->check(Uint64Digits());
  o->replications_opt =
      cmd->add_option("--replications", o->replications,
                      "Override the number of replications (mean and 95 % interval when > 1)")
          ->check(CLI::Range(1, 1000000));
  cmd->add_option("--threads", o->threads,
                  "Runs in parallel (default 0 = all cores); results do not depend on it")
      ->check(CLI::Range(0, 4096));
  o->json_opt = cmd->add_option("--json", o->json, std::string(json_help));
  o->json_opt->type_name("FILE");
  cmd->add_option("--report", o->report,
                  "Also write the HTML report of that document (docs/report.md) to FILE")
      ->type_name("FILE.html");
  o->duration_opt = cmd->add_option("--duration", o->duration,
                                    "Override the simulated time, warm-up included (e.g. 10m)");
  o->duration_opt->type_name("DURATION");
  o->warmup_opt = cmd->add_option("--warmup", o->warmup, "Override the warm-up (e.g. 1m)");
  o->warmup_opt->type_name("DURATION");
  o->timeline_opt = cmd->add_option(
      "--timeline", o->timeline,
      "Also record each variant over time with this step (e.g. 1m): requests, errors by cause, "
      "p50/p99 and available pods per step, in the --json document and the report");
  o->timeline_opt->type_name("STEP");
  AddLimitOption(cmd, &o->limits);
  cmd->add_flag("--quiet,-q", o->quiet, std::string(quiet_help));
  AddProgressOption(cmd, &o->progress);
}

void AddWideOption(CLI::App* cmd, SimulationOptions* o) {
  cmd->add_flag("--wide", o->wide,
                "Print the table in one block of columns, however wide (default: fitted to "
                "$COLUMNS or the terminal, further variants continued in blocks below)");
}

void AddLimitOption(CLI::App* cmd, std::vector<std::string>* limits, std::string_view names) {
  cmd->add_option("--limit", *limits,
                  fmt::format("Raise (or lower) a size limit checked before the run: {} "
                              "(repeatable; docs/limits.md has the defaults)",
                              names))
      ->type_name("NAME=VALUE");
}

Status ApplyLimitOptions(const std::vector<std::string>& texts, RunLimits* limits,
                         std::string_view names) {
  for (const std::string& text : texts) {
    if (Status s = SetRunLimit(text, limits); !s) return s;
    // Known to SetRunLimit, so it has a NAME=: one this command does not check would be ignored.
    const std::string_view name = std::string_view(text).substr(0, text.find('='));
    bool checked = false;
    for (std::string_view rest = names; !rest.empty();) {
      const size_t comma = rest.find(", ");
      checked = checked || rest.substr(0, comma) == name;
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    }
    if (!checked) {
      return Status::Failure(
          fmt::format("--limit: this command does not check {}; it checks {}", name, names));
    }
  }
  return Status::Ok();
}

Status PrepareRunSet(const SimulationOptions& o, const Scenario& scenario, RunSetOptions* run) {
  if (Status s = CheckOutputPaths(o); !s) return s;
  if (Status s = ApplyLimitOptions(o.limits, &run->limits); !s) return s;
  if (Status s = ApplyTimelineOption(o, run); !s) return s;
  return CheckRunSetLimits(scenario, *run);
}

Status CheckOutputPaths(const SimulationOptions& o) {
  if (o.json_wanted()) {
    if (Status s = CheckOutputPath(o.json, "--json"); !s) return s;
  }
  if (o.report_wanted()) {
    if (Status s = CheckOutputPath(o.report, "--report"); !s) return s;
  }
  return Status::Ok();
}

Status ApplyTimelineOption(const SimulationOptions& o, RunSetOptions* run) {
  if (o.timeline_opt == nullptr || o.timeline_opt->count() == 0) return Status::Ok();
  SimTime step = 0;
  if (Status s = ParseDurationOption("--timeline", o.timeline, &step); !s) return s;
  if (step <= 0) return Status::Failure("--timeline: the step must be positive, e.g. 1m");
  run->timeline_step = step;
  return Status::Ok();
}

void NoteCpuHpasWithoutRequest(const Scenario& scenario) {
  for (const Workload& w : scenario.workloads) {
    if (!w.hpa || w.cpu_milli > 0) continue;
    for (const HpaMetric& m : autoscaling::MetricsOf(*w.hpa)) {
      if (m.kind != HpaMetricKind::kCpu || m.target_type != HpaTargetType::kUtilization) continue;
      std::cerr << "knobsim: warning: workload " << w.name << ": its HPA "
                << (w.hpa->metrics.empty() ? "lists no metric, so runs on cpu at 80 %, "
                                           : "has a cpu utilization target, ")
                << "and the workload requests no cpu: the HPA cannot compute it (missing "
                   "request for cpu) and keeps the replicas; set the workload's cpu\n";
      break;
    }
  }
}

Status ApplyRunOverrides(const SimulationOptions& o, Scenario* scenario) {
  RunSettings& run = scenario->run;
  if (o.seed_opt->count() > 0) run.seed = o.seed;
  if (o.replications_opt->count() > 0) run.replications = o.replications;
  if (o.duration_opt->count() > 0) {
    if (Status s = ParseDurationOption("--duration", o.duration, &run.duration); !s) return s;
  }
  if (o.warmup_opt->count() > 0) {
    if (Status s = ParseDurationOption("--warmup", o.warmup, &run.warmup); !s) return s;
  }
  if (run.duration <= 0) return Status::Failure("the run duration must be positive");
  if (run.warmup >= run.duration) {
    return Status::Failure("the warm-up (" + Seconds(run.warmup) +
                           ") must be shorter than the run duration (" + Seconds(run.duration) +
                           "); see --duration and --warmup");
  }
  if (run.replications < 1) return Status::Failure("replications must be at least 1");
  return Status::Ok();
}

ProgressMode ProgressModeOf(const SimulationOptions& o) {
  return ChooseProgressMode(o.quiet, o.progress);
}

void AddPricesOption(CLI::App* cmd, SimulationOptions* options) {
  cmd->add_option("--prices", options->prices,
                  "Price each node pool's node-hours from this price file (docs/prices.md): "
                  "cost per pool in the table and the --json document")
      ->type_name("FILE");
}

Status LoadPrices(const SimulationOptions& options, std::optional<PriceBook>* prices) {
  prices->reset();
  if (options.prices.empty()) return Status::Ok();
  Expected<PriceBook> book = ReadPriceFile(options.prices);
  if (!book) return Status::Failure(book.error().ToString());
  *prices = std::move(*book);
  return Status::Ok();
}

void ApplyPrices(const std::optional<PriceBook>& prices, const Scenario& scenario,
                 RunSetResult* results) {
  if (!prices) return;
  const PoolPricing pricing = PriceNodePools(*prices, scenario, results);
  for (const std::string& why : pricing.unpriced)
    std::cerr << "knobsim: --prices: pool " << why << "; its cost is left out\n";
}

RunSetResult RunWithProgress(const Scenario& scenario, RunSetOptions run, ProgressMode mode) {
  ProgressLine progress(mode, "knobsim", "runs");
  run.progress = progress.Callback();
  try {
    RunSetResult results = RunSet(scenario, run);
    progress.Clear();
    return results;
  } catch (...) {
    progress.Clear();
    throw;
  }
}

nlohmann::ordered_json ResultsDocument(const RunSetResult& results) {
  nlohmann::ordered_json document = ResultsToJson(results, KNOBSIM_VERSION);
  AddVerdicts(results, &document);
  return document;
}

Status WriteResultsDocument(const SimulationOptions& o, const RunSetResult& results) {
  if (!o.json_wanted() && !o.report_wanted()) return Status::Ok();
  const nlohmann::ordered_json document = ResultsDocument(results);
  if (o.report_wanted()) {
    if (Status s = WriteReportFile(document, o.report); !s) return s;
  }
  if (!o.json_wanted()) return Status::Ok();
  const std::string text = ResultsJsonText(document);
  if (o.json_to_stdout()) {
    std::cout << text << std::flush;
    return Status::Ok();
  }
  return WriteFileAtomically(o.json, text);
}

int TableWidth(const SimulationOptions& options) {
  if (options.wide) return std::numeric_limits<int>::max();
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    int n = 0;
    const char* end = columns + std::strlen(columns);
    const auto [ptr, ec] = std::from_chars(columns, end, n);
    if (ec == std::errc() && ptr == end && n >= 40) return n;
  }
  winsize ws{};
  if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col > 0) {
    return std::clamp(static_cast<int>(ws.ws_col), 80, 200);
  }
  return 132;
}

int BadInput(const std::string& message) {
  std::cerr << "knobsim: " << message << "\n";
  return kExitBadInput;
}

int BadInput(const InputError& error) {
  return BadInput(error.ToString());
}

int BadInput(const Status& failed) {
  return BadInput(failed.ToString());
}

}  // namespace knobsim::cli
