// `knobsim check SCENARIO | --kube FILE... [--prom FILE...]`: the pre-upgrade checklist of the
// cGPU upgrade (docs/check.md). Reading is sim/io's, the view sim/check/check_input's, the rules
// sim/check/cluster_checks', the text and JSON sim/check/check_report's; this file parses
// options, prints the report and writes the JSON atomically. Exit 1 when a finding is critical.
#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/check/check_input.h"
#include "sim/check/check_report.h"
#include "sim/check/cluster_checks.h"
#include "sim/check/registry_tags.h"
#include "sim/input_error.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_reader.h"
#include "sim/io/results_json.h"
#include "sim/io/scenario_reader.h"
#include "sim/output_file.h"
#include "sim/quantity.h"
#include "sim/report/html_report.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct CheckArgs {
  std::string scenario;
  std::vector<std::string> kube;
  std::vector<std::string> prom;
  std::string window = "7d";
  std::string registry_tags;
  std::vector<std::string> backup_annotations;
  std::string cgpu_version_label = CheckInputOptions{}.cgpu_version_label;
  std::vector<std::string> cgpu_no_isolation_versions;
  std::string json;
  std::string report;  // --report FILE.html
  bool quiet = false;
  bool no_simulate = false;
};

int RunCheck(const CheckArgs& args) {
  if (args.scenario.empty() == args.kube.empty())
    return BadInput(args.scenario.empty() ? "say what to check: a SCENARIO file or --kube FILE..."
                                          : "give a SCENARIO or --kube FILE..., not both");
  if (!args.scenario.empty() && !args.prom.empty())
    return BadInput("--prom goes with --kube: a scenario's peaks come from its gpu_memory model");
  // The outputs' paths before any file is read, as every command checks them.
  if (args.json != "-") {
    if (Status s = CheckOutputPath(args.json, "--json"); !s) return BadInput(s);
  }
  if (Status s = CheckOutputPath(args.report, "--report"); !s) return BadInput(s);
  CheckInputOptions in_opts;
  in_opts.cgpu_version_label = args.cgpu_version_label;
  in_opts.cgpu_no_isolation_versions = args.cgpu_no_isolation_versions;
  CheckOptions options;
  options.simulate = !args.no_simulate;
  if (!args.backup_annotations.empty()) options.backup_annotations = args.backup_annotations;
  if (!args.registry_tags.empty()) {
    Expected<RegistryTags> tags = ReadRegistryTagsFile(args.registry_tags);
    if (!tags) return BadInput(tags.error().ToString());
    options.registry_tags = std::move(*tags);
  }
  const Expected<double> window_s = ParseWindow("--window", args.window);
  if (!window_s) return BadInput(window_s.error().message);

  CheckInput input;
  std::string source;
  if (!args.scenario.empty()) {
    Expected<Scenario> scenario = ReadScenarioFile(args.scenario);
    if (!scenario) return BadInput(scenario.error().ToString());
    input = CheckInputFromScenario(*scenario, in_opts);
    source = args.scenario;
  } else {
    Expected<KubeObjects> objects = ReadKubeFiles(args.kube);
    if (!objects) return BadInput(objects.error().ToString());
    Metrics metrics;
    if (!args.prom.empty()) {
      std::vector<PromResult> results;
      double first = std::numeric_limits<double>::infinity();
      double last = -first;
      for (const std::string& path : args.prom) {
        Expected<PromResult> r = ReadPromFile(path);
        if (!r) return BadInput(r.error().ToString());
        for (const PromSeries& s : r->series)
          for (double t : s.times) {
            first = std::min(first, t);
            last = std::max(last, t);
          }
        results.push_back(std::move(*r));
      }
      if (!std::isfinite(last)) return BadInput(args.prom.front() + ": the metrics hold no sample");
      // The window ends at the last sample, as `knobsim import` reads it.
      in_opts.window_end = last;
      in_opts.window_start = std::max(first, last - *window_s);
      metrics = PodMemoryMetrics(results, in_opts.window_start, in_opts.window_end);
    }
    input = CheckInputFromExport(*objects, args.prom.empty() ? nullptr : &metrics, in_opts);
    for (const std::string& w : metrics.warnings) input.warnings.push_back(w);
    for (size_t i = 0; i < args.kube.size(); ++i) source += (i ? " " : "") + args.kube[i];
  }

  const CheckReport report = RunChecks(input, options);
  if (!args.json.empty() || !args.report.empty()) {
    const std::string text = CheckReportJson(report, source, KNOBSIM_VERSION);
    if (args.json == "-") {
      std::cout << text << std::flush;
    } else if (!args.json.empty()) {
      if (Status written = WriteFileAtomically(args.json, text); !written) return BadInput(written);
    }
    if (!args.report.empty()) {
      if (Status written = WriteReportFile(nlohmann::ordered_json::parse(text), args.report);
          !written) {
        return BadInput(written);
      }
    }
  }
  if (!args.quiet) {
    // The import and the metrics may say the same thing twice: each line once, in order.
    std::set<std::string> said;
    for (const std::string& w : report.warnings)
      if (said.insert(w).second) std::cerr << "knobsim: warning: " << w << "\n";
    std::ostream& out = args.json == "-" ? std::cerr : std::cout;
    out << CheckReportText(report, source) << std::flush;
  }
  return report.Count(Severity::kCritical) > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void AddCheckCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Before a cGPU upgrade: what will break. Checks quota-vs-peak, port-only-probe, "
      "pdb-blocks-drain, image-after-reset, pvc-without-backup, cgpu-isolation and quota-headroom "
      "on a scenario or an export, with the simulated consequence of enforcing memory isolation. "
      "Exit 1 when a finding is critical. See docs/check.md.");
  cmd->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md)");
  cmd->add_option(
         "--kube", args->kube,
         "kubectl get nodes,pods,deploy,rs,sts,pdb,pvc,pv,sc,resourcequota -A -o json|yaml "
         "(several files, `-` = stdin)")
      ->type_name("FILE");
  cmd->add_option("--prom", args->prom,
                  "Prometheus query_range answers with GPU memory (with --kube)")
      ->type_name("FILE");
  cmd->add_option("--window", args->window, "metrics window ending at the last sample (7d, 36h)")
      ->capture_default_str();
  cmd->add_option("--registry-tags", args->registry_tags,
                  "tags that exist, one registry/repository:tag a line (docs/check.md)")
      ->type_name("FILE");
  cmd->add_option("--backup-annotation", args->backup_annotations,
                  "pod annotation that marks its volumes as backed up (repeatable; default "
                  "backup.velero.io/backup-volumes, knobsim.io/backup)")
      ->type_name("KEY");
  cmd->add_option("--cgpu-version-label", args->cgpu_version_label,
                  "node label or annotation holding the cGPU version")
      ->capture_default_str();
  cmd->add_option("--cgpu-no-isolation-versions", args->cgpu_no_isolation_versions,
                  "cGPU versions without memory isolation (comma-separated)")
      ->delimiter(',')
      ->type_name("V,...");
  cmd->add_option("--report", args->report,
                  "Also write the HTML page of the document (docs/report.md) to FILE.html");
  cmd->add_option("--json", args->json, "Write the knobsim.check/v1 document to FILE; - = stdout")
      ->type_name("FILE");
  cmd->add_flag("--no-simulate", args->no_simulate,
                "Give analytic consequences only (skip the run with isolation hard)");
  cmd->add_flag("--quiet,-q", args->quiet, "Print no report (the exit status and --json still tell)");
  cmd->callback([args, exit_code] { *exit_code = RunCheck(*args); });
}

}  // namespace knobsim::cli
