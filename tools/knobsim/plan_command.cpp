// `knobsim plan`: capacity planning — for every traffic level × GPU type × POLICY × placement ×
// pricing, the smallest node count per GPU pool at which every workload meets its SLO with the
// stated confidence, its cost, and the cheapest option per level (docs/plan.md).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/io/price_reader.h"
#include "sim/io/results_json.h"
#include "sim/io/scenario_reader.h"
#include "sim/io/shard_json.h"
#include "sim/output_file.h"
#include "sim/plan/plan.h"
#include "sim/plan/plan_json.h"
#include "sim/report/html_report.h"
#include "sim/shard.h"
#include "sim/text.h"
#include "tools/knobsim/backtest_headline_note.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/shell_quote.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct PlanArgs {
  std::string scenario;
  std::vector<std::string> traffic, gpu_types, policies, placements, pricing;
  std::string density = "auto";
  std::string prices;
  std::string backtest;
  double confidence = 0.95;
  int max_nodes = 256;
  int max_density = 8;
  std::string shard;
  SimulationOptions sim;
  CLI::App* cmd = nullptr;
};

// The plan's default number of replications (PlanOptions::replications says why).
constexpr int kDefaultReplications = 5;

using cli::ShellQuote;

// The arguments that decide the plan's numbers, in a fixed order whatever order they were typed
// in; output (--json, --report, --quiet), --threads and --shard are left out, so every shard of a
// plan and the unsharded run record the same command. `file` writes an input file's argument:
// its path as typed (the document's "command"), or the hash of its bytes (a shard's "sweep",
// which merge compares: shards of one plan may name its files by different paths).
template <class FileText>
std::string CommandText(const PlanArgs& a, FileText file) {
  std::string cmd = "knobsim plan " + file(a.scenario);
  auto add = [&](const char* name, const std::string& value) {
    const CLI::Option* opt = a.cmd->get_option(name);
    if (opt != nullptr && opt->count() > 0)
      cmd += std::string(" ") + name + " " + ShellQuote(value);
  };
  add("--traffic", Join(a.traffic, ","));
  add("--gpu-types", Join(a.gpu_types, ","));
  add("--policies", Join(a.policies, ","));
  add("--placement", Join(a.placements, ","));
  add("--density", a.density);
  if (a.cmd->get_option("--prices")->count() > 0) cmd += " --prices " + file(a.prices);
  add("--pricing", Join(a.pricing, ","));
  add("--confidence", a.cmd->get_option("--confidence")->as<std::string>());
  add("--replications", std::to_string(a.sim.replications));
  add("--max-nodes", std::to_string(a.max_nodes));
  add("--max-density", std::to_string(a.max_density));
  add("--seed", std::to_string(a.sim.seed));
  add("--duration", a.sim.duration);
  add("--warmup", a.sim.warmup);
  return cmd;
}

bool ParseDouble(const std::string& text, double* out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && p == end;
}

bool ParseInt(const std::string& text, int* out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && p == end;
}

Status ToOptions(const PlanArgs& a, PlanOptions* o) {
  if (a.cmd->get_option("--traffic")->count() > 0) {
    o->traffic.clear();
    for (const std::string& t : a.traffic) {
      std::string s = t;
      if (!s.empty() && (s.back() == 'x' || s.back() == 'X')) s.pop_back();  // "1.5x"
      double v = 0;
      if (!ParseDouble(s, &v))
        return Status::Failure("--traffic: \"" + t + "\" is not a number (e.g. 1,1.5,2)");
      o->traffic.push_back(v);
    }
  }
  o->gpu_types = a.gpu_types;
  for (const std::string& p : a.policies) {
    int v = 0;
    if (!ParseInt(p, &v))
      return Status::Failure("--policies: \"" + p + "\" is not a cGPU POLICY (0..5)");
    o->policies.push_back(v);
  }
  o->placements = a.placements;
  if (a.density == "auto") {
    o->density = 0;
  } else if (!ParseInt(a.density, &o->density) || o->density < 1) {
    return Status::Failure("--density: \"" + a.density +
                           "\" is neither auto nor a positive number of pods per card");
  }
  if (!a.pricing.empty()) o->pricing = a.pricing;
  o->confidence = a.confidence;
  o->max_nodes = a.max_nodes;
  o->max_density = a.max_density;
  o->threads = a.sim.threads;
  if (Status s = ApplyLimitOptions(a.sim.limits, &o->limits); !s) return s;
  if (!a.shard.empty()) {
    const Expected<Shard> shard = ParseShard(a.shard);
    if (!shard) return Status::Failure("--shard: " + shard.error().message);
    o->shard = *shard;
  }
  return Status::Ok();
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string Fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

// "autoscaled: gpu-a10 2..7 nodes (mean 3.4), p99/SLO 0.84, 1234.56 CNY", under its option.
std::string AutoscaledLine(const nlohmann::ordered_json& a) {
  std::ostringstream line;
  line << "    autoscaled: ";
  for (const auto& p : a.at("pools")) {
    line << p.at("name").get<std::string>() << " " << p.at("min").get<int>() << ".."
         << p.at("max").get<int>() << " nodes (mean " << Fixed(p.at("nodes_mean").get<double>(), 1)
         << "), ";
  }
  line << "p99/SLO " << Fixed(a.at("worst_p99_ratio").get<double>(), 2);
  if (a.at("monthly_cost").is_number())
    line << ", " << Fixed(a.at("monthly_cost").get<double>(), 2) << " "
         << a.at("currency").get<std::string>();
  line << "\n";
  return line.str();
}

// Per traffic level: the recommendation, then the options from the cheapest.
std::string PlanTable(const nlohmann::ordered_json& doc) {
  std::ostringstream out;
  out << "Capacity plan for " << doc.at("scenario").get<std::string>() << " ("
      << doc.at("replications").get<int>() << " replications, confidence "
      << doc.at("confidence").dump() << ")\n";
  const auto& recs = doc.at("recommendations");
  const auto& levels = doc.at("traffic_levels");
  for (size_t i = 0; i < levels.size(); ++i) {
    const double t = levels[i].get<double>();
    out << "\n" << recs[i].at("text").get<std::string>() << "\n";
    std::vector<const nlohmann::ordered_json*> rows;
    for (const auto& o : doc.at("options")) {
      if (o.at("traffic").get<double>() == t) rows.push_back(&o);
    }
    auto key = [](const nlohmann::ordered_json* o) {
      int cards = 0;
      for (const auto& p : o->at("pools")) cards += p.at("cards").get<int>();
      const double cost =
          o->at("monthly_cost").is_number() ? o->at("monthly_cost").get<double>() : cards;
      return std::make_tuple(!o->at("feasible").get<bool>(), cost, o->at("cell").get<int>());
    };
    std::stable_sort(rows.begin(), rows.end(), [&](auto* a, auto* b) { return key(a) < key(b); });
    size_t id_width = 6;
    for (const auto* o : rows) id_width = std::max(id_width, o->at("id").get<std::string>().size());
    out << "  " << Pad("option", id_width) << "  nodes  cards  density  p99/SLO  "
        << Pad("cost", 12) << "  binding\n";
    for (const auto* o : rows) {
      out << "  " << Pad(o->at("id").get<std::string>(), id_width) << "  ";
      if (!o->at("feasible").get<bool>()) {
        out << "infeasible: " << o->at("reason").get<std::string>() << "\n";
        continue;
      }
      int nodes = 0, cards = 0;
      for (const auto& p : o->at("pools")) {
        nodes += p.at("nodes").get<int>();
        cards += p.at("cards").get<int>();
      }
      out << Pad(std::to_string(nodes), 5) << "  " << Pad(std::to_string(cards), 5) << "  "
          << Pad(o->at("density").is_number() ? std::to_string(o->at("density").get<int>()) : "-",
                 7)
          << "  "
          << Pad(o->at("worst_p99_ratio").is_number()
                     ? Fixed(o->at("worst_p99_ratio").get<double>(), 2)
                     : "-",
                 7)
          << "  "
          << Pad(o->at("monthly_cost").is_number() ? Fixed(o->at("monthly_cost").get<double>(), 2) +
                                                         " " + o->at("currency").get<std::string>()
                                                   : "-",
                 12)
          << "  "
          << (o->at("binding_workload").is_string() ? o->at("binding_workload").get<std::string>()
                                                    : "-")
          << "\n";
      if (o->contains("autoscaled")) out << AutoscaledLine(o->at("autoscaled"));
    }
  }
  return out.str();
}

int Plan(const PlanArgs& args) {
  Expected<Scenario> read = ReadScenarioFile(args.scenario);
  if (!read.ok()) return BadInput(read.error().ToString());
  Scenario& scenario = *read;
  if (Status s = ApplyRunOverrides(args.sim, &scenario); !s) return BadInput(s);

  PlanOptions options;
  if (Status s = ToOptions(args, &options); !s) return BadInput(s);
  options.seed = scenario.run.seed;
  options.replications =
      args.sim.replications_opt->count() > 0 ? args.sim.replications : kDefaultReplications;
  std::optional<PriceBook> prices;
  if (!args.prices.empty()) {
    Expected<PriceBook> book = ReadPriceFile(args.prices);
    if (!book.ok()) return BadInput(book.error().ToString());
    prices = std::move(*book);
    options.prices = &*prices;
  }
  if (Status s = ResolvePlanOptions(scenario, &options); !s) return BadInput(s);
  if (Status s = CheckOutputPaths(args.sim); !s) return BadInput(s);
  if (args.sim.report_wanted() && !options.shard.whole()) {
    return BadInput(
        "--report needs the whole plan: merge the shards (knobsim merge), then run "
        "knobsim report on the result");
  }

  std::vector<std::string> headline_notes;
  Expected<std::string> headline = BacktestHeadlineFor(scenario, args.backtest, &headline_notes);
  if (!headline) return BadInput(headline.error());

  // A shard's sweep: what `knobsim merge` compares, input files by their bytes (run shards
  // compare the scenario's hash the same way, sim/io/shard_json.h).
  std::string sweep;
  if (!options.shard.whole()) {
    std::optional<InputError> unreadable;
    sweep = CommandText(args, [&unreadable](const std::string& path) {
      Expected<std::string> hash = FileHash(path);
      if (!hash.ok()) {
        unreadable = hash.error();
        return std::string();
      }
      return *hash;
    });
    if (unreadable) return BadInput(*unreadable);
  }

  ProgressLine progress(ProgressModeOf(args.sim), "knobsim plan", "cells");
  options.progress = [&progress](int cells_done, int cells_total, int sizes) {
    progress.Update(cells_done, cells_total,
                    std::to_string(sizes) + (sizes == 1 ? " size" : " sizes") + " simulated");
  };
  const PlanResult result = RunPlan(scenario, options);
  progress.Clear();
  nlohmann::ordered_json doc = PlanToJson(result, CommandText(args, ShellQuote), KNOBSIM_VERSION);
  if (!sweep.empty()) doc["shard"]["sweep"] = sweep;
  const std::string text = PlanJsonText(doc);
  if (args.sim.json_wanted()) {
    if (args.sim.json_to_stdout()) {
      std::cout << text << std::flush;
    } else if (Status written = WriteFileAtomically(args.sim.json, text); !written) {
      return BadInput(written);
    }
  }
  if (args.sim.report_wanted()) {
    if (Status s = WriteReportFile(doc, args.sim.report); !s) return BadInput(s);
  }
  if (!args.sim.quiet) {
    std::ostream& out = args.sim.json_to_stdout() ? std::cerr : std::cout;
    out << PlanTable(doc);
    if (!headline->empty()) out << "\n" << *headline;
    out << std::flush;
    for (const std::string& n : headline_notes) std::cerr << "knobsim: " << n << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddPlanCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Capacity planning: for every traffic level x GPU type x POLICY x placement x pricing, the "
      "smallest node count per GPU pool at which every workload meets its SLO with the stated "
      "confidence (geometric growth, then bisection; common random numbers), its monthly cost, "
      "the workload that binds, and per traffic level the cheapest option and the cost-versus-p99 "
      "frontier; beside an option whose pool autoscales under an HPA, the cheapest autoscaled "
      "floor that still meets every SLO. See docs/plan.md.");
  args->cmd = cmd;
  cmd->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md)")
      ->required();
  cmd->add_option("--traffic", args->traffic,
                  "Traffic levels, multiples of the scenario's (default 1,1.5,2)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option("--gpu-types", args->gpu_types,
                  "GPU types to try, catalog names (default: the scenario's pools' own)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option("--policies", args->policies,
                  "cGPU POLICY values to try (default: the scenario's)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option(
         "--placement", args->placements,
         "Card placements to try: binpack, spread, fgd, bestfit, ... (default: the scenario's)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option("--density", args->density,
                  "Pods per card: auto (try 1.. what memory allows, keep the cheapest) or N")
      ->type_name("auto|N");
  cmd->add_option("--prices", args->prices, "Price file (docs/prices.md); without it no costs")
      ->type_name("FILE");
  cmd->add_option("--pricing", args->pricing,
                  "Pricing kinds to try: on_demand, spot, reserved (default on_demand; spot and "
                  "reserved need --prices)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option("--confidence", args->confidence,
                  "One-sided confidence of the SLO bounds over the replications (default 0.95)")
      ->check(CLI::Range(0.5, 1.0));
  cmd->add_option(
         "--max-nodes", args->max_nodes,
         "Largest node count per pool tried; beyond it an option is infeasible (default 256)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-density", args->max_density,
                  "Most pods per card --density auto tries (default 8)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--shard", args->shard,
                  "Plan only grid cells j with j mod N == i (i/N, 0-based); merge the outputs with "
                  "knobsim merge")
      ->type_name("i/N");
  AddBacktestHeadlineOption(cmd, &args->backtest);
  AddSimulationOptions(cmd, &args->sim,
                       "Write the plan document (docs/plan.md) to FILE; - writes it to stdout (the "
                       "table goes to stderr)",
                       "Print no table");
  args->sim.replications_opt->description(
      "Replications per size (default 5: the fewest whose t quantile no longer dominates the "
      "bound)");
  cmd->callback([args, exit_code] { *exit_code = Plan(*args); });
}

}  // namespace knobsim::cli
