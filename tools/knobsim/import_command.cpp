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
#include "sim/io/kube_reader.h"
#include "sim/io/prom_metrics.h"
#include "sim/io/prom_reader.h"
#include "sim/io/quantity.h"
#include "sim/io/results_json.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct ImportArgs {
  std::vector<std::string> kube;
  std::vector<std::string> prom;
  std::string overlay;
  std::string window = "7d";
  std::string piece = "1h";
  std::string traffic = "pieces";
  std::string count_step = "auto";
  std::string duration = "1h";
  std::string mem_metric;
  std::string rate_metric;
  std::vector<std::string> probe_rules;
  std::vector<std::string> isolation_rules;
  std::string cgpu_version_label = ImportOptions{}.cgpu_version_label;
  std::vector<std::string> cgpu_no_isolation_versions;
  std::vector<std::string> backup_annotations;
  int policy = 5;
  double switch_overhead = 0;
  std::string name = "imported";
  std::string out = "-";
};

// `7d`, `36h`, `90m`: Go durations plus whole days, which Prometheus windows are counted in.

// `--kube` names files or directories: a directory stands for every *.yaml, *.yml and *.json
// file under it, recursively, sorted by path so that the input order (and the output) does
// not depend on the file system.
bool ExpandKubePaths(const std::vector<std::string>& given, std::vector<std::string>* files,
                     std::string* error) {
  namespace fs = std::filesystem;
  for (const std::string& path : given) {
    std::error_code ec;
    if (path == "-" || !fs::is_directory(path, ec)) {
      files->push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      const std::string ext = it->path().extension().string();
      if (ext == ".yaml" || ext == ".yml" || ext == ".json") found.push_back(it->path().string());
    }
    if (ec) {
      *error = "--kube: " + path + ": " + ec.message();
      return false;
    }
    if (found.empty()) {
      *error = "--kube: " + path + ": the directory holds no *.yaml, *.yml or *.json file";
      return false;
    }
    std::sort(found.begin(), found.end());
    files->insert(files->end(), found.begin(), found.end());
  }
  return true;
}

int RunImport(const ImportArgs& args) {
  ImportOptions options;
  options.name = args.name;
  options.policy = args.policy;
  options.switch_overhead = args.switch_overhead;
  const Expected<double> window_s = ParseWindow("--window", args.window);
  if (!window_s) return BadInput(window_s.error().message);
  const Expected<double> piece_s = ParseWindow("--piece", args.piece);
  if (!piece_s) return BadInput(piece_s.error().message);
  options.piece_s = *piece_s;
  if (args.duration == "window") {
    if (args.prom.empty())
      return BadInput("--duration window needs metrics (--prom): without them there is no window");
    options.run_duration_s = 0;
  } else {
    const Expected<double> duration_s = ParseWindow("--duration", args.duration);
    if (!duration_s) return BadInput(duration_s.error().message);
    options.run_duration_s = *duration_s;
  }
  std::string error;
  options.traffic_counts = args.traffic == "counts";
  if (args.count_step != "auto") {
    const Expected<double> count_step_s = ParseWindow("--count-step", args.count_step);
    if (!count_step_s) return BadInput(count_step_s.error().message);
    options.count_step_s = *count_step_s;
  }
  for (const std::string& text : args.probe_rules) {
    Expected<ProbeRule> rule = ParseProbeRule(text);
    if (!rule) return BadInput(rule.error().ToString());
    options.probe_rules.push_back(*rule);
  }
  std::vector<IsolationRule> isolation_rules;
  for (const std::string& text : args.isolation_rules) {
    Expected<IsolationRule> rule = ParseIsolationRule(text);
    if (!rule) return BadInput(rule.error().ToString());
    isolation_rules.push_back(*rule);
  }
  options.cgpu_version_label = args.cgpu_version_label;
  options.cgpu_no_isolation_versions = args.cgpu_no_isolation_versions;
  if (!args.backup_annotations.empty()) options.backup_annotations = args.backup_annotations;

  std::vector<std::string> kube_files;
  if (!ExpandKubePaths(args.kube, &kube_files, &error)) return BadInput(error);
  Expected<KubeObjects> objects = ReadKubeFiles(kube_files);
  if (!objects) return BadInput(objects.error().ToString());

  std::vector<std::string> warnings = objects->warnings;
  Metrics metrics;
  const bool have_metrics = !args.prom.empty();
  if (have_metrics) {
    std::vector<PromResult> results;
    double last = -std::numeric_limits<double>::infinity();
    double first = std::numeric_limits<double>::infinity();
    for (const std::string& path : args.prom) {
      Expected<PromResult> r = ReadPromFile(path);
      if (!r) return BadInput(r.error().ToString());
      for (const PromSeries& s : r->series) {
        for (size_t i = 0; i < s.times.size(); ++i) {
          last = std::max(last, s.times[i]);
          first = std::min(first, s.times[i]);
        }
      }
      results.push_back(std::move(*r));
    }
    if (!std::isfinite(last))
      return BadInput(args.prom.front() + ": the metrics hold no sample; nothing to import from");
    // The window ends at the last sample and starts `--window` before it, or at the first
    // sample when the metrics cover less, so that traffic pieces start where the data does.
    options.window_end = last;
    options.window_start = std::max(first, last - *window_s);
    MetricNames names;
    names.mem_metric_override = args.mem_metric;
    names.rate_metric = args.rate_metric;
    // Per pod: ACK's process metric, else FB_USED (sim/io/prom_metrics.h).
    metrics = InterpretPodMemoryMetrics(results, names, options.window_start, options.window_end);
    for (const PromResult& r : results)
      warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
  }

  ImportModel model = ImportCluster(*objects, have_metrics ? &metrics : nullptr, options);
  if (auto failed = ApplyIsolationRules(model, isolation_rules))
    return BadInput(failed->ToString());
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
  } else if (auto failed = WriteFileAtomically(args.out, text)) {
    return BadInput(failed->ToString());
  }
  return kExitOk;
}

}  // namespace

void AddImportCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import", "Write an exported cluster (and its Prometheus metrics) as a scenario file");
  cmd->add_option(
         "--kube", args->kube,
         "kubectl get nodes,pods,deploy,rs,sts,pdb,pvc,pv,sc,resourcequota -A -o json|yaml "
         "(several files or directories of *.yaml/*.yml/*.json, `-` = stdin)")
      ->required();
  cmd->add_option("--overlay", args->overlay,
                  "scenario fragment merged into the import: pools, traffic, work, SLOs, run "
                  "(docs/ci-gate.md)");
  cmd->add_option("--prom", args->prom, "Prometheus query_range answers saved as JSON");
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
  cmd->add_option("--mem-metric", args->mem_metric,
                  "per-pod GPU memory metric (MiB), instead of the DCGM detection");
  cmd->add_option("--rate-metric", args->rate_metric,
                  "per-pod request rate metric (requests/s); without it, no traffic is imported");
  cmd->add_option("--probe-rule", args->probe_rules,
                  "[NS/]NAME=tcp|model: override a workload's readiness kind (`*` matches all)");
  cmd->add_option("--isolation", args->isolation_rules,
                  "POOL=hard|soft: a pool's memory isolation, whatever the import decided (`*` = "
                  "every pool with cGPU; repeatable, the last wins)");
  cmd->add_option("--cgpu-version-label", args->cgpu_version_label,
                  "node label holding the cGPU release (ACK documents none; ours)")
      ->capture_default_str();
  cmd->add_option("--cgpu-no-isolation-versions", args->cgpu_no_isolation_versions,
                  "cGPU releases known not to isolate memory: their pools import as soft")
      ->delimiter(',');
  cmd->add_option(
      "--backup-annotation", args->backup_annotations,
      "pod annotation key that marks volumes as backed up; the only annotations "
      "written (default: backup.velero.io/backup-volumes, knobsim.io/backup; repeatable)");
  cmd->add_option("--policy", args->policy,
                  "the cluster's cGPU POLICY (not in the export; 5 = ACK's native time-slicing)")
      ->check(CLI::Range(0, 5))
      ->capture_default_str();
  cmd->add_option("--switch-overhead", args->switch_overhead,
                  "POLICY 5 switch overhead; above 0 leaves shared cards with 2+ pods out of the "
                  "work fit")
      ->check(CLI::Range(0.0, 0.999))
      ->capture_default_str();
  cmd->add_option("--name", args->name, "the scenario's name")->capture_default_str();
  cmd->add_option("-o,--out", args->out, "scenario file to write (`-` = stdout)")
      ->capture_default_str();
  cmd->callback([args, exit_code] { *exit_code = RunImport(*args); });
}

}  // namespace knobsim::cli
