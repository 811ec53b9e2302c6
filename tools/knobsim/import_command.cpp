// `knobsim import --kube FILE|DIR... [--prom FILE...] [--overlay FILE] [-o scenario.yaml]`: an
// exported cluster (or a config repository's manifests) and its Prometheus metrics as a scenario
// file (docs/import.md), merged with an overlay when given (docs/ci-gate.md). Reading is
// sim/io's, the mapping sim/import/cluster_import's, the text sim/import/scenario_writer's, the
// merge sim/import/overlay's; this file parses options, expands directories, prints warnings
// and notes on stderr and writes the file atomically.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "sim/import/cluster_import.h"
#include "sim/import/overlay.h"
#include "sim/import/scenario_writer.h"
#include "sim/input_error.h"
#include "sim/io/evidence_fingerprint.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_metrics.h"
#include "sim/io/prom_reader.h"
#include "sim/io/results_json.h"
#include "sim/output_file.h"
#include "sim/quantity.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/import_options.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct ImportArgs {
  ImportInputArgs input;
  std::string overlay;
  std::string window = "7d";
  std::string piece = "1h";
  std::string traffic = "pieces";
  std::string count_step = "auto";
  std::string duration = "1h";
  std::string out = "-";
};

int RunImport(const ImportArgs& args) {
  ImportSetup setup;
  if (Status s = ResolveImportInputs(args.input, &setup); !s) return BadInput(s);
  if (Status s = CheckOutputPath(args.out, "--out"); !s) return BadInput(s);
  ImportOptions& options = setup.options;
  const Expected<double> window_s = ParseWindow("--window", args.window);
  if (!window_s) return BadInput(window_s.error().message);
  const Expected<double> piece_s = ParseWindow("--piece", args.piece);
  if (!piece_s) return BadInput(piece_s.error().message);
  options.piece_s = *piece_s;
  if (args.duration == "window") {
    if (args.input.prom.empty())
      return BadInput("--duration window needs metrics (--prom): without them there is no window");
    options.run_duration_s = 0;
  } else {
    const Expected<double> duration_s = ParseWindow("--duration", args.duration);
    if (!duration_s) return BadInput(duration_s.error().message);
    options.run_duration_s = *duration_s;
  }
  options.traffic_counts = args.traffic == "counts";
  if (args.count_step != "auto") {
    const Expected<double> count_step_s = ParseWindow("--count-step", args.count_step);
    if (!count_step_s) return BadInput(count_step_s.error().message);
    options.count_step_s = *count_step_s;
  }

  Expected<KubeObjects> objects = ReadKubeInputs(args.input.kube);
  if (!objects) return BadInput(objects.error());

  std::vector<std::string> warnings = objects->warnings;
  Metrics metrics;
  std::string evidence;
  const bool have_metrics = !args.input.prom.empty();
  if (have_metrics) {
    Expected<PromInputs> prom = ReadPromInputs(args.input.prom);
    if (!prom) return BadInput(prom.error());
    // The window ends at the last sample and starts `--window` before it, or at the first
    // sample when the metrics cover less, so that traffic pieces start where the data does.
    options.window_end = prom->last;
    options.window_start = std::max(prom->first, prom->last - *window_s);
    // Per pod: ACK's process metric, else FB_USED (sim/io/prom_metrics.h).
    metrics = InterpretPodMemoryMetrics(prom->results, setup.names, options.window_start,
                                        options.window_end);
    warnings.insert(warnings.end(), prom->warnings.begin(), prom->warnings.end());
    evidence = EvidenceFingerprint(*objects, prom->results);
  }

  ImportModel model = ImportCluster(*objects, have_metrics ? &metrics : nullptr, options);
  model.evidence = evidence;
  if (Status failed = ApplyIsolationRules(model, setup.isolation_rules); !failed)
    return BadInput(failed);
  warnings.insert(warnings.end(), model.warnings.begin(), model.warnings.end());
  for (const std::string& w : warnings) std::cerr << "knobsim: warning: " << w << "\n";
  if (!warnings.empty())
    std::cerr << "knobsim: " << warnings.size() << " warning" << (warnings.size() == 1 ? "" : "s")
              << "\n";
  for (const std::string& line : model.fit_report) std::cerr << "knobsim: fit: " << line << "\n";
  std::cerr << "knobsim: note: " << model.run_note
            << (args.overlay.empty() ? "" : " (unless " + args.overlay + " sets run)") << "\n";
  if (!model.defaults.empty()) {
    // With an overlay these are what the export alone gave; the overlay may set them.
    std::cerr << (args.overlay.empty()
                      ? "knobsim: note: defaults (marked `default` in the scenario):\n"
                      : "knobsim: note: defaults the export alone leaves (unless " + args.overlay +
                            " sets them):\n");
    for (const std::string& d : model.defaults) std::cerr << "knobsim: note:   " << d << "\n";
  }
  // Memory isolation decides what `whatif --knob isolation=hard` can show: say how it was read.
  for (const ImportedPool& p : model.pools)
    for (const std::string& line : p.isolation_notes)
      std::cerr << "knobsim: " << p.pool.name << ": " << line << "\n";
  size_t pods = 0;
  for (const ImportedWorkload& w : model.workloads) pods += w.pods.size();
  std::cerr << "knobsim: imported " << model.pools.size() << " node pools, "
            << model.workloads.size() << " workloads, " << pods << " placed pods\n";

  std::string text = WriteScenarioYaml(model);
  if (!args.overlay.empty()) {
    Expected<std::string> merged = ApplyOverlayFile(text, args.overlay);
    if (!merged) return BadInput(merged.error().ToString());
    text = std::move(*merged);
  }
  if (args.out == "-") {
    std::cout << text << std::flush;
  } else if (Status written = WriteFileAtomically(args.out, text); !written) {
    return BadInput(written);
  }
  return kExitOk;
}

}  // namespace

void AddImportCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import", "Write an exported cluster (and its Prometheus metrics) as a scenario file");
  AddImportInputOptions(cmd, &args->input, /*prom_required=*/false);
  cmd->add_option("--overlay", args->overlay,
                  "scenario fragment merged into the import: pools, traffic, work, SLOs, run "
                  "(docs/ci-gate.md)");
  cmd->add_option("--window", args->window, "metrics window ending at the last sample (7d, 36h)")
      ->capture_default_str();
  cmd->add_option("--duration", args->duration,
                  "the scenario's run length from the metrics window's start (at most the "
                  "window), or `window` for all of it")
      ->capture_default_str();
  cmd->add_option("--piece", args->piece, "length of a piecewise traffic piece")
      ->capture_default_str();
  cmd->add_option("--traffic", args->traffic,
                  "pieces: Poisson per --piece (rate or piecewise); counts: the recorded requests "
                  "per --count-step, replayed exactly (traffic: {counts: ...})")
      ->check(CLI::IsMember({"pieces", "counts"}))
      ->capture_default_str();
  cmd->add_option(
         "--count-step", args->count_step,
         "interval of --traffic counts; auto: the rate metric's sample step (a finer step is "
         "raised to it)")
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out, "scenario file to write (`-` = stdout)")
      ->capture_default_str();
  cmd->callback([args, exit_code] { *exit_code = RunImport(*args); });
}

}  // namespace knobsim::cli
