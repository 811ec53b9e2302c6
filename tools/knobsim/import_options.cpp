#include "tools/knobsim/import_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "tools/knobsim/cli_validators.h"

namespace knobsim::cli {
namespace {

Status ExpandKubePaths(const std::vector<std::string>& given, std::vector<std::string>* files) {
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
    if (ec) return Status::Failure("--kube: " + path + ": " + ec.message());
    if (found.empty())
      return Status::Failure("--kube: " + path +
                             ": the directory holds no *.yaml, *.yml or *.json file");
    std::sort(found.begin(), found.end());
    files->insert(files->end(), found.begin(), found.end());
  }
  return Status::Ok();
}

}  // namespace

void AddImportInputOptions(CLI::App* cmd, ImportInputArgs* args, bool prom_required) {
  cmd->add_option(
         "--kube", args->kube,
         "kubectl get nodes,pods,deploy,rs,sts,pdb,pvc,pv,sc,resourcequota -A -o json|yaml "
         "(several files or directories of *.yaml/*.yml/*.json, `-` = stdin)")
      ->required();
  CLI::Option* prom =
      cmd->add_option("--prom", args->prom, "Prometheus query_range answers saved as JSON");
  if (prom_required) prom->required();
  cmd->add_option("--mem-metric", args->mem_metric,
                  "per-pod GPU memory metric (MiB), instead of the DCGM detection");
  cmd->add_option("--rate-metric", args->rate_metric,
                  "per-pod request rate metric (requests/s); without it, no traffic is imported");
  cmd->add_option("--latency-metric", args->latency_metric,
                  "per-pod end-to-end request latency: a histogram (NAME_bucket/_sum/_count), a "
                  "summary (NAME{quantile}) or a mean series (NAME); gives the work's shape");
  cmd->add_option("--latency-unit", args->latency_unit,
                  "seconds per unit of --latency-metric (0.001 for milliseconds)")
      ->check(Finite())
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--slo-headroom", args->slo_headroom,
                  "a workload's latency objective is its measured p99 (--latency-metric) times "
                  "this; without a latency metric the objective is errors only")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--fit-bin", args->fit_bin,
                  "the work fit's row length (5m, 1h); auto: the largest multiple of the sample "
                  "step up to 1h leaving 30 rows per card")
      ->capture_default_str();
  cmd->add_option("--work-dist", args->work_dist,
                  "auto (the shape from --latency-metric, else exponential), exponential, "
                  "deterministic, gamma:CV2 or lognormal:CV2")
      ->capture_default_str();
  cmd->add_option("--probe-rule", args->probe_rules,
                  "[NS/]NAME=tcp|model: override a workload's readiness kind (`*` matches all)");
  cmd->add_option("--hpa-metric", args->hpa_metric_rules,
                  "NAME=gpu_utilization|gpu_memory|request_rate|in_flight|external_request_rate: "
                  "what an exported HPA's metric NAME is (DCGM_FI_DEV_GPU_UTIL and "
                  "DCGM_FI_DEV_FB_USED are known; repeatable)");
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
      ->check(Finite())
      ->check(CLI::Range(0.0, 0.999))
      ->capture_default_str();
  cmd->add_option("--name", args->name, "the scenario's name")->capture_default_str();
}

Status ResolveImportInputs(const ImportInputArgs& args, ImportSetup* setup) {
  ImportOptions& options = setup->options;
  options.name = args.name;
  options.policy = args.policy;
  options.switch_overhead = args.switch_overhead;
  options.slo_headroom = args.slo_headroom;
  if (args.fit_bin != "auto") {
    const Expected<double> fit_bin_s = ParseWindow("--fit-bin", args.fit_bin);
    if (!fit_bin_s) return Status::Failure(fit_bin_s.error().message);
    options.fit_bin_s = *fit_bin_s;
  }
  Expected<std::optional<WorkModel>> work_dist = ParseWorkDist(args.work_dist);
  if (!work_dist) return work_dist.error();
  options.work_dist = *work_dist;
  for (const std::string& text : args.probe_rules) {
    Expected<ProbeRule> rule = ParseProbeRule(text);
    if (!rule) return rule.error();
    options.probe_rules.push_back(*rule);
  }
  for (const std::string& text : args.hpa_metric_rules) {
    Expected<std::pair<std::string, HpaMetricKind>> rule = ParseHpaMetricRule(text);
    if (!rule) return rule.error();
    options.hpa_metric_kinds[rule->first] = rule->second;
  }
  for (const std::string& text : args.isolation_rules) {
    Expected<IsolationRule> rule = ParseIsolationRule(text);
    if (!rule) return rule.error();
    setup->isolation_rules.push_back(*rule);
  }
  options.cgpu_version_label = args.cgpu_version_label;
  options.cgpu_no_isolation_versions = args.cgpu_no_isolation_versions;
  if (!args.backup_annotations.empty()) options.backup_annotations = args.backup_annotations;
  MetricNames& names = setup->names;
  names.mem_metric_override = args.mem_metric;
  names.rate_metric = args.rate_metric;
  names.latency_metric = args.latency_metric;
  names.latency_unit_s = args.latency_unit;
  return Status::Ok();
}

Expected<KubeObjects> ReadKubeInputs(const std::vector<std::string>& given) {
  std::vector<std::string> files;
  if (Status s = ExpandKubePaths(given, &files); !s) return s.error();
  return ReadKubeFiles(files);
}

Expected<PromInputs> ReadPromInputs(const std::vector<std::string>& paths) {
  PromInputs in;
  in.first = std::numeric_limits<double>::infinity();
  in.last = -std::numeric_limits<double>::infinity();
  for (const std::string& path : paths) {
    Expected<PromResult> r = ReadPromFile(path);
    if (!r) return r.error();
    for (const PromSeries& s : r->series) {
      for (double t : s.times) {
        in.last = std::max(in.last, t);
        in.first = std::min(in.first, t);
      }
    }
    in.warnings.insert(in.warnings.end(), r->warnings.begin(), r->warnings.end());
    in.results.push_back(std::move(*r));
  }
  if (!std::isfinite(in.last))
    return InputError{paths.front(), 0, "", "the metrics hold no sample; nothing to import from",
                      ""};
  return in;
}

}  // namespace knobsim::cli
