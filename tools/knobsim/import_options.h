// The options `knobsim import` and `knobsim backtest` share (docs/import.md): what to read — the
// export (`--kube`, files or directories) and the Prometheus answers (`--prom`) — and how the
// import reads the metrics and models the cluster (metric names, the work fit, probes, memory
// isolation, POLICY). One registration, one resolution, so the two commands cannot drift apart.
#pragma once

#include <string>
#include <vector>

#include "sim/import/cluster_import.h"
#include "sim/input_error.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_metrics.h"
#include "sim/io/prom_reader.h"

namespace CLI {
class App;
}

namespace knobsim::cli {

struct ImportInputArgs {
  std::vector<std::string> kube;
  std::vector<std::string> prom;
  std::string mem_metric;
  std::string rate_metric;
  std::string latency_metric;
  double latency_unit = 1.0;
  double slo_headroom = 1.5;  // ImportOptions::slo_headroom
  std::string fit_bin = "auto";
  std::string work_dist = "auto";
  std::vector<std::string> probe_rules;
  std::vector<std::string> hpa_metric_rules;
  std::vector<std::string> isolation_rules;
  std::string cgpu_version_label = ImportOptions{}.cgpu_version_label;
  std::vector<std::string> cgpu_no_isolation_versions;
  std::vector<std::string> backup_annotations;
  int policy = 5;
  double switch_overhead = 0;
  std::string name = "imported";
};

// Registers the options on `cmd`; `--kube` is required, and `--prom` too when `prom_required`.
void AddImportInputOptions(CLI::App* cmd, ImportInputArgs* args, bool prom_required);

// The options as the import takes them (the metrics window is the caller's), the metric names,
// and the `--isolation` rules to apply to the model afterwards (ApplyIsolationRules). Failures
// name the option.
struct ImportSetup {
  ImportOptions options;
  MetricNames names;
  std::vector<IsolationRule> isolation_rules;
};
Status ResolveImportInputs(const ImportInputArgs& args, ImportSetup* setup);

// `--kube`: the files given, a directory standing for every *.yaml, *.yml and *.json file under
// it, recursively, sorted by path (so that the output does not depend on the file system); then
// read as one export.
Expected<KubeObjects> ReadKubeInputs(const std::vector<std::string>& given);

// `--prom`: every file read, and the span of their samples (first and last time). A file
// without any sample at all is an error naming the first file.
struct PromInputs {
  std::vector<PromResult> results;
  double first = 0, last = 0;
  std::vector<std::string> warnings;  // the files' own (skipped series, ...)
};
Expected<PromInputs> ReadPromInputs(const std::vector<std::string>& paths);

}  // namespace knobsim::cli
