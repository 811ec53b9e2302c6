// `knobsim interference fit|predict`: the co-location interference model fitted from measured
// pairs of jobs sharing a card, its cross-validated error against the naive baselines, and its
// predictions for other pairs (docs/interference.md; the model: models/interference.h).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/interference.h"
#include "sim/io/interference_files.h"
#include "sim/output_file.h"
#include "sim/text.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {
namespace {

struct FitArgs {
  std::string solo, pairs, out, json;
  int folds = 5;
  uint64_t seed = 1;
  bool quiet = false;
};

struct PredictArgs {
  std::string model, pairs, solo, json, out;
  bool quiet = false;
};

void WarnIgnored(const std::string& file, const std::vector<std::string>& columns) {
  if (columns.empty()) return;
  std::cerr << "knobsim: warning: " << file << ": column" << (columns.size() > 1 ? "s " : " ")
            << Join(columns) << " ignored (not used by the interference model)\n";
}

// The profiles in name order, as the model file keeps them.
std::vector<JobProfile> ByName(std::vector<JobProfile> profiles) {
  std::sort(profiles.begin(), profiles.end(),
            [](const JobProfile& a, const JobProfile& b) { return a.job < b.job; });
  return profiles;
}

std::string CrossValidationText(const CrossValidation& cv) {
  std::ostringstream out;
  out << fmt::format(
      "Cross-validated ({} folds over {} pairs): mean absolute error of the co-located speed\n",
      cv.folds, cv.pairs);
  out << fmt::format("  {:<40} {:.4f}\n", "model", cv.model_mae);
  out << fmt::format("  {:<40} {:.4f}\n", "profile surface alone (jobs never paired)",
                     cv.surface_mae);
  out << fmt::format("  {:<40} {:.4f}\n", "baseline: speed = 1 (no slowdown)", cv.speed_one_mae);
  out << fmt::format("  {:<40} {:.4f}\n", "baseline: the training mean", cv.train_mean_mae);
  const double best_baseline = std::min(cv.speed_one_mae, cv.train_mean_mae);
  if (cv.model_mae >= best_baseline) {
    out << "  warning: the model is no better than a baseline on these pairs; do not use it\n";
  }
  return out.str();
}

int Fit(const FitArgs& args) {
  if (Status bad = CheckOutputPath(args.out, "-o"); !bad) return BadInput(bad);
  if (Status bad = CheckOutputPath(args.json, "--json"); !bad) return BadInput(bad);
  Expected<SoloTable> solo = ReadSoloCsv(args.solo);
  if (!solo) return BadInput(solo.error());
  Expected<PairTable> table = ReadPairsCsv(args.pairs, /*speeds_required=*/true);
  if (!table) return BadInput(table.error());
  WarnIgnored(args.solo, solo->ignored_columns);
  WarnIgnored(args.pairs, table->ignored_columns);
  Expected<std::vector<PairSample>> pairs = ResolvePairs(*table, solo->profiles, args.pairs);
  if (!pairs) return BadInput(pairs.error());
  if (pairs->size() < 2) {
    return BadInput(args.pairs + ": a fit needs at least 2 pairs (it holds " +
                    std::to_string(pairs->size()) + ")");
  }
  const InterferenceFitOptions options{args.folds, args.seed};
  InterferenceModelFile file;
  file.cross_validation = CrossValidateInterference(solo->profiles, *pairs, options);
  file.model = FitInterference(solo->profiles, *pairs, options);
  file.profiles = ByName(solo->profiles);

  const nlohmann::ordered_json model_json = InterferenceModelJson(file);
  if (Status written = WriteFileAtomically(args.out, model_json.dump(2) + "\n"); !written) {
    return BadInput(written);
  }
  if (!args.json.empty()) {
    const std::string cv_text = model_json.at("cross_validation").dump(2) + "\n";
    if (Status written = WriteFileAtomically(args.json, cv_text); !written)
      return BadInput(written);
  }
  if (args.quiet || args.out == "-") return kExitOk;
  std::set<std::string> paired;
  for (const PairSample& p : *pairs) {
    paired.insert(solo->profiles[p.a].job);
    paired.insert(solo->profiles[p.b].job);
  }
  std::cout << fmt::format("Fitted on {} pairs of {} jobs ({} profiled); ", pairs->size(),
                           paired.size(), solo->profiles.size());
  if (file.model.lambda > 0) {
    std::cout << fmt::format("per-job offsets for {} jobs, ridge λ = {:g} (chosen by {}-fold "
                             "cross-validation).\n",
                             file.model.jobs.size(), file.model.lambda, args.folds);
  } else {
    std::cout << fmt::format("the profile surface alone (fewer than {} pairs).\n",
                             kMinPairsForJobOffsets);
  }
  std::cout << CrossValidationText(*file.cross_validation);
  std::cout << "Model written to " << args.out << "\n";
  return kExitOk;
}

std::string PredictionsCsv(const std::vector<PairRow>& rows,
                           const std::vector<std::pair<double, double>>& predicted) {
  std::string out = "job_a,job_b,predicted_a,predicted_b\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    out += fmt::format("{},{},{:.6g},{:.6g}\n", rows[i].job_a, rows[i].job_b, predicted[i].first,
                       predicted[i].second);
  }
  return out;
}

int Predict(const PredictArgs& args) {
  if (Status bad = CheckOutputPath(args.json, "--json"); !bad) return BadInput(bad);
  if (Status bad = CheckOutputPath(args.out, "-o"); !bad) return BadInput(bad);
  Expected<InterferenceModelFile> model = ReadInterferenceModel(args.model);
  if (!model) return BadInput(model.error());
  std::vector<JobProfile> profiles = model->profiles;
  if (!args.solo.empty()) {
    // Profiles given here add jobs the fit never saw and replace the model's own.
    Expected<SoloTable> solo = ReadSoloCsv(args.solo);
    if (!solo) return BadInput(solo.error());
    WarnIgnored(args.solo, solo->ignored_columns);
    std::map<std::string, size_t> known;
    for (size_t i = 0; i < profiles.size(); ++i) known.emplace(profiles[i].job, i);
    for (JobProfile& p : solo->profiles) {
      if (const auto same = known.find(p.job); same != known.end()) {
        profiles[same->second] = std::move(p);
      } else {
        profiles.push_back(std::move(p));
      }
    }
  }
  Expected<PairTable> table = ReadPairsCsv(args.pairs, /*speeds_required=*/false);
  if (!table) return BadInput(table.error());
  WarnIgnored(args.pairs, table->ignored_columns);
  Expected<std::vector<PairSample>> pairs = ResolvePairs(*table, profiles, args.pairs);
  if (!pairs) return BadInput(pairs.error());

  const InterferenceModel& m = model->model;
  std::vector<std::pair<double, double>> predicted;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  double model_error = 0, one_error = 0, mean_error = 0;
  for (size_t i = 0; i < pairs->size(); ++i) {
    const PairSample& p = (*pairs)[i];
    const double pa = m.Speed(profiles[p.a], profiles[p.b]);
    const double pb = m.Speed(profiles[p.b], profiles[p.a]);
    predicted.emplace_back(pa, pb);
    nlohmann::ordered_json row = {{"job_a", table->rows[i].job_a},
                                  {"job_b", table->rows[i].job_b},
                                  {"predicted_a", pa},
                                  {"predicted_b", pb}};
    if (table->has_speeds) {
      row["speed_a"] = p.speed_a;
      row["speed_b"] = p.speed_b;
      model_error += std::abs(pa - p.speed_a) + std::abs(pb - p.speed_b);
      one_error += std::abs(1 - p.speed_a) + std::abs(1 - p.speed_b);
      mean_error += std::abs(m.train_mean - p.speed_a) + std::abs(m.train_mean - p.speed_b);
    }
    rows.push_back(std::move(row));
  }
  const double samples = 2.0 * static_cast<double>(pairs->size());
  nlohmann::ordered_json doc = {{"schema", "knobsim.interference-predictions/v1"},
                                {"model", args.model},
                                {"pairs", rows}};
  if (table->has_speeds) {
    doc["error"] = {{"pairs", pairs->size()},
                    {"model_mae", model_error / samples},
                    {"speed_one_mae", one_error / samples},
                    {"train_mean_mae", mean_error / samples}};
  }
  if (!args.json.empty()) {
    if (Status written = WriteFileAtomically(args.json, doc.dump(2) + "\n"); !written)
      return BadInput(written);
  }
  const std::string csv = PredictionsCsv(table->rows, predicted);
  if (!args.out.empty()) {
    if (Status written = WriteFileAtomically(args.out, csv); !written) return BadInput(written);
  } else if (args.json.empty()) {
    std::cout << csv;  // no output file named: the predictions are the output
  }
  const bool stdout_taken = args.out == "-" || args.json == "-" ||
                            (args.out.empty() && args.json.empty());
  if (table->has_speeds && !args.quiet && !stdout_taken) {
    std::cout << fmt::format(
        "Predicted {} pairs: mean absolute error of the co-located speed {:.4f} (baselines: "
        "speed = 1 {:.4f}, the training mean {:.4f}).\n",
        pairs->size(), model_error / samples, one_error / samples, mean_error / samples);
  }
  return kExitOk;
}

void AddFit(CLI::App* parent, int* exit_code) {
  auto args = std::make_shared<FitArgs>();
  CLI::App* cmd = parent->add_subcommand(
      "fit",
      "Fit the interference model to jobs measured alone and in pairs; print its "
      "cross-validated error against the baselines \"speed = 1\" and \"the training mean\".");
  cmd->add_option("--solo", args->solo,
                  "The jobs run alone: CSV with job,gpu_util_pct,mem_bw_util_pct,memory_mib")
      ->required()
      ->type_name("SOLO.csv");
  cmd->add_option("--pairs", args->pairs,
                  "The pairs run together: CSV with job_a,job_b,speed_a,speed_b (speeds as a "
                  "fraction of the job's solo speed)")
      ->required()
      ->type_name("PAIRS.csv");
  cmd->add_option("-o,--out", args->out, "The model file to write (atomically; - for stdout)")
      ->required()
      ->type_name("MODEL.json");
  cmd->add_option("--json", args->json, "Also write the cross-validation as JSON")
      ->type_name("FILE");
  cmd->add_option("--folds", args->folds, "Folds of the cross-validation (default 5)")
      ->check(CLI::Range(2, 100));
  cmd->add_option("--seed", args->seed, "Seed of the folds' shuffle (default 1)")
      ->check(Uint64Digits());
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing but errors and warnings");
  cmd->callback([args, exit_code] { *exit_code = Fit(*args); });
}

void AddPredict(CLI::App* parent, int* exit_code) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* cmd = parent->add_subcommand(
      "predict",
      "Predict each pair's co-located speeds with a fitted model; with measured speeds in the "
      "pairs file, also their mean absolute error against the baselines.");
  cmd->add_option("--model", args->model, "The model written by `knobsim interference fit`")
      ->required()
      ->type_name("MODEL.json");
  cmd->add_option("--pairs", args->pairs,
                  "The pairs: CSV with job_a,job_b (speed_a,speed_b, when present, are compared)")
      ->required()
      ->type_name("PAIRS.csv");
  cmd->add_option("--solo", args->solo,
                  "Profiles of jobs the model does not hold (they replace the model's own)")
      ->type_name("SOLO.csv");
  cmd->add_option("--json", args->json,
                  "Write the predictions as JSON: per pair job_a, job_b, predicted_a, predicted_b")
      ->type_name("FILE");
  cmd->add_option("-o,--out", args->out,
                  "Write the predictions as CSV (job_a,job_b,predicted_a,predicted_b); without "
                  "--json or -o the CSV goes to stdout")
      ->type_name("FILE.csv");
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing but errors and warnings");
  cmd->callback([args, exit_code] { *exit_code = Predict(*args); });
}

}  // namespace

void AddInterferenceCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "interference",
      "The co-location interference model: fit it to jobs measured alone and in pairs, and "
      "predict other pairs' speeds. See docs/interference.md.");
  cmd->require_subcommand(1);
  AddFit(cmd, exit_code);
  AddPredict(cmd, exit_code);
}

}  // namespace knobsim::cli
