// ClusterImport: an exported cluster (KubeObjects) and what Prometheus saw of it (Metrics) as the
// parts of a scenario, each number with a note saying where it came from (docs/import.md).
//
// Nodes become node pools: nodes that agree on everything the scheduler reads (GPU type, cards,
// allocatable cpu / memory / pods, labels other than hostname and zone, taints, GPU schedule,
// placement, max-pod) share one pool, and each node keeps its name, zone and zone labels in the
// pool's `nodes:` list. Pods become workloads through their owners (sim/io/kube_owners.h), each
// with the pods it runs now and where (`pods:` with node and cards).
//
// With metrics, each workload gets its GPU memory from the window's peak (FitGpuMemory), its
// traffic from the summed request rates of its pods (DownsampleTraffic) and its work per request
// from FitWorkPerRequest over the cards where the linear busy model holds (FitEligible). Without
// them, documented defaults, each listed in `defaults`.
//
// Nothing here reads files or prints: the command line does (tools/knobsim/import_command.cpp).
// Privacy: nothing is taken from env, annotations or probe arguments; labels whose key or value
// looks like a credential (LooksLikeSecret) are dropped, by key, with a warning.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_metrics.h"
#include "sim/scenario.h"

namespace knobsim {

// `--probe-rule [NS/]NAME=tcp|model`: the readiness kind of the workloads whose owner is NAME in
// namespace NS (any namespace without NS); `*` matches any name or namespace. Later rules win.
struct ProbeRule {
  std::string ns = "*";
  std::string name;
  ReadinessKind probe = ReadinessKind::kModel;
};
// Errors name the field `--probe-rule` and quote the text.
Expected<ProbeRule> ParseProbeRule(std::string_view text);

// httpGet paths that answer only once a model is loaded (KServe / Triton / TF Serving / vLLM /
// TGI conventions); any other path reads as port-only. A trailing `*` is a prefix.
extern const std::vector<std::string_view> kModelAwareHttpPaths;

// The readiness kind a probe gives for fake Ready (docs/import.md "Probes"): no probe, tcpSocket,
// grpc without a service and httpGet on a path not in kModelAwareHttpPaths are port-only (`tcp`);
// httpGet on a model-aware path, grpc naming a service and exec are `model`. `why` says which.
ReadinessKind ClassifyProbe(const Probe& probe, std::string* why);

// The catalog key of `aliyun.accelerator/nvidia_name` ("NVIDIA-L20" -> L20, "Tesla-T4" -> T4,
// "NVIDIA-A100-SXM4-80GB" -> A100-80G, "Tesla-V100-SXM2-32GB" -> V100-32G); "" when unknown.
std::string GpuCatalogKey(std::string_view nvidia_name);

// GPU memory demand from a measured peak and rest level (MiB, CUDA context included, as
// DCGM_FI_DEV_FB_USED counts it): weights = floor(rest - context), at least 0; activation per
// in-flight request = ceil((peak - context - weights) / concurrency), at least 0. The simulated
// peak, context + weights + activation x concurrency, is the measured peak (rounded up to MiB).
struct GpuMemoryFit {
  int64_t weights_mib = 0;
  int64_t activation_mib = 0;
};
GpuMemoryFit FitGpuMemory(double peak_mib, double rest_mib, int64_t context_mib, int concurrency);

// A rate series (requests/s at `times`) as piecewise-constant pieces of `piece_s` seconds from
// `start`: each piece the mean of the samples in it (a piece without samples holds 0, the pod
// was not serving). `flat` when the pieces' coefficient of variation is at most `flat_cv`: then
// a Poisson rate of `mean` describes it as well.
struct TrafficCurve {
  std::vector<RatePoint> pieces;  // `at` from `start`, every piece_s
  double mean = 0;                // of the pieces
  bool flat = true;
};
TrafficCurve DownsampleTraffic(const std::vector<double>& times, const std::vector<double>& rates,
                               double start, double end, double piece_s, double flat_cv);

// Whether a card's busy series obeys busy = Σ rate × work / speed under cGPU `policy`
// (models/work_fit.h): always on an exclusive card and never under POLICY 0 or 3 on a shared
// one; on a shared card under POLICY 1, 2, 4, and 5 without switch overhead, and with overhead
// only while one pod holds the card.
bool FitEligible(int policy, double switch_overhead, bool exclusive, int pods_on_card);

struct ImportOptions {
  std::string name = "imported";  // the scenario's name
  int policy = 5;                 // the cluster's cGPU POLICY: not in the export; ACK's default
  double switch_overhead = 0;     // POLICY 5 overhead; 0 keeps the linear fit exact
  double piece_s = 3600;          // traffic pieces
  double flat_cv = 0.05;          // pieces this even make a Poisson rate
  double default_work_s = 0.01;   // unidentified work (the scenario reader's default)
  double fit_bin_s = 3600;        // the work fit's rows: means over this many seconds
  std::vector<ProbeRule> probe_rules;
  // The metrics window in Unix seconds (used when `metrics` is given).
  double window_start = 0;
  double window_end = 0;
};

struct ImportedNode {
  std::string name;
  std::string zone;  // topology.kubernetes.io/zone; empty = none
  Labels labels;     // other per-node labels (zone labels of other keys), hostname excluded
};

struct ImportedPool {
  NodePool pool;                   // count = nodes.size(); zones unused (per node)
  std::vector<ImportedNode> nodes;
  std::string gpu_model;           // aliyun.accelerator/nvidia_name as exported
  std::vector<std::string> notes;  // comments above the pool
};

struct ImportedGpuType {
  GpuType type;
  std::string note;
};

struct ImportedPod {
  std::string name;
  std::string node;
  std::vector<int> cards;  // empty: no GPU, or unknown cards (ACK's choice on that node)
};

struct ImportedWorkload {
  Workload spec;  // name, namespace, requests, GPU asks, selectors, probe, memory, traffic, work
  std::string kind;   // Deployment, StatefulSet, DaemonSet, Pod, ...
  std::string owner;  // the owner's name (spec.name may be <ns>-<owner>)
  std::vector<ImportedPod> pods;
  bool has_memory = false;   // write gpu_memory
  bool has_traffic = false;  // write traffic
  bool has_work = false;     // write work
  // Comments keyed by the scenario key they explain ("probe", "gpu_memory", "traffic", "work",
  // "replicas", "pods", ""), written beside or above it.
  std::map<std::string, std::string> notes;
};

struct ImportModel {
  std::string name;
  int policy = 5;
  double switch_overhead = 0;
  double duration_s = 3600;  // the window, or 1 h without metrics
  std::vector<ImportedGpuType> gpu_types;  // types not in the catalog
  std::vector<ImportedPool> pools;
  std::vector<ImportedWorkload> workloads;
  std::vector<std::string> header;    // comment lines at the top (sources, rules, fit quality)
  std::vector<std::string> trailer;   // comment lines at the end (PDBs, storage, quotas, kinds)
  std::vector<std::string> warnings;  // skipped things, for stderr (counted)
  std::vector<std::string> defaults;  // which numbers are defaults, for stderr
  std::vector<std::string> fit_report;  // fit quality lines, for stderr (also in the header)
};

// Builds the model; `metrics` may be null (no --prom). Never fails: what cannot be used is a
// warning. Deterministic: the same objects and metrics give the same model.
ImportModel ImportCluster(const KubeObjects& objects, const Metrics* metrics,
                          const ImportOptions& options);

}  // namespace knobsim
