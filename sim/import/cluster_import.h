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
// ImportCluster runs its steps in order, each one function of import_steps.h; ScenarioFromImport
// (imported_scenario.h) turns the model into the Scenario a run reads, WriteScenarioYaml
// (scenario_writer.h) into the file. Nothing here reads files or prints: the command line does
// (tools/knobsim/import_command.cpp).
// Privacy: nothing is taken from env, annotations or probe arguments; labels whose key or value
// looks like a credential (LooksLikeSecret) are dropped, by key, with a warning.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/memory_isolation.h"
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

// `--hpa-metric NAME=KIND`: the metric NAME of an exported HPA (a Pods, Object or External
// metric of a metrics adapter) is what knobsim computes as KIND (gpu_utilization, gpu_memory,
// request_rate, in_flight, external_request_rate). Errors name `--hpa-metric`.
Expected<std::pair<std::string, HpaMetricKind>> ParseHpaMetricRule(std::string_view text);
// The scenario's name of a metric kind (`gpu_utilization`, ...).
std::string_view HpaMetricKindName(HpaMetricKind kind);

// `--work-dist auto|exponential|deterministic|gamma:CV2|lognormal:CV2`: nullopt for auto, else
// the distribution (mean unset) with cv = sqrt(CV2). Errors name `--work-dist`.
Expected<std::optional<WorkModel>> ParseWorkDist(std::string_view text);

// httpGet paths that answer only once a model is loaded (KServe / Triton / TF Serving / vLLM /
// TGI conventions); any other path reads as port-only. A trailing `*` is a prefix.
extern const std::vector<std::string_view> kModelAwareHttpPaths;

// The readiness kind a probe gives for fake Ready (docs/import.md "Probes"): no probe, tcpSocket,
// grpc without a service and httpGet on a path not in kModelAwareHttpPaths are port-only (`tcp`);
// httpGet on a model-aware path, grpc naming a service and exec are `model`. `why` says which.
ReadinessKind ClassifyProbe(const Probe& probe, std::string* why);

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

// `--isolation POOL=hard|soft`: the memory isolation of an imported pool (`*`: every pool with
// a cGPU module), whatever the rules of DecideIsolation found. Errors name `--isolation`.
struct IsolationRule {
  std::string pool = "*";
  MemoryIsolation isolation = MemoryIsolation::kHard;
};
Expected<IsolationRule> ParseIsolationRule(std::string_view text);

// A pod that held more GPU memory on a card than its cGPU visible quota
// (VisibleQuotaMib(card MiB, its units on the card, card units)) while it ran healthy: Running,
// Ready, no container OOMKilled or in CrashLoopBackOff. A working module fails the allocation
// that crosses the quota, so this is proof that the node's module does not enforce memory (the
// incident of docs/design.md §1: the old cGPU release).
struct OverQuotaPod {
  std::string ns, pod, node;
  int card = -1;          // -1: the metric had no card label and the pod holds one card
  double peak_mib = 0;    // the window's peak on that card
  int64_t quota_mib = 0;  // the visible quota on that card
};

struct ImportOptions {
  std::string name = "imported";  // the scenario's name
  int policy = 5;                 // the cluster's cGPU POLICY: not in the export; ACK's default
  double switch_overhead = 0;     // POLICY 5 overhead; 0 keeps the linear fit exact
  double piece_s = 3600;          // traffic pieces
  // `--traffic counts`: the recorded requests per count_step_s (traffic: {counts: ...}) instead
  // of Poisson pieces, so a replay keeps the recorded bursts down to that step.
  // 0: the rate metric's own sample step (a finer step is raised to it, with a warning).
  bool traffic_counts = false;
  double count_step_s = 0;
  double flat_cv = 0.05;         // pieces this even make a Poisson rate
  double default_work_s = 0.01;  // unidentified work (the scenario reader's default)
  // The work fit's rows are means over fit_bin_s (`--fit-bin D`); 0 = auto (`--fit-bin auto`):
  // the largest multiple of the metrics' sample step, at most fit_bin_max_s, that leaves the
  // median fitted card at least fit_min_rows_per_card rows (the sample step itself when even it
  // leaves fewer). Coarse rows average out the requests that straddle two samples; 30 rows give
  // the idle term and two or three workloads per card room to be told apart.
  double fit_bin_s = 0;
  double fit_bin_max_s = 3600;
  int fit_min_rows_per_card = 30;
  bool fit_idle = true;  // the fit's idle term per card (models/work_fit.h)
  // A card gets no idle term when a pod's rate varies from sample to sample in ways the card's
  // busy does not follow (measurement noise: the part of Δrate busy does not follow, per row,
  // over the binned rate's variance) by more than this: with an intercept only the rate's
  // variation identifies the work, and noise in it would lower the work by about that fraction
  // (errors in variables); without one the mean level carries the fit and the bias stays small.
  double max_idle_attenuation = 0.02;
  // `--work-dist`: unset = auto (the shape from the latency, WorkShapes); set = this dist and cv
  // for every workload with work (its mean ignored).
  std::optional<WorkModel> work_dist;
  // WorkShapes: a latency sample counts as service time when its pod is alone on its card and
  // the card's busy (less its idle term) is at most alone_max_busy; the M/G/1 wait left is
  // removed (models/service_time_fit.h). At 0.3 the wait is at most a fifth of the service time
  // at cv² 1 and the relation's error (bursty arrivals) stays small; above it the wait dominates
  // the shape.
  double alone_max_busy = 0.3;
  int min_shape_samples = 10;  // fewer eligible samples: exponential kept, said
  // Histogram: lognormal when its log-likelihood beats gamma's by more than this (a likelihood
  // ratio of e² ≈ 7.4, both one free parameter), else gamma, the default. Summary: lognormal when
  // its squared log error of the quantile ratios is below gamma's divided by e² too.
  double prefer_lognormal = 2.0;
  // LatencyObjectives: a workload's latency target is its measured p99 × this (`--slo-headroom`).
  // The measured p99 is the cluster as it runs today; the simulated p99 of that same cluster
  // differs from it by the model's error (the backtest's p99 tolerance, docs/backtest.md) and a
  // window's p99 from the next by the tail's own noise, so a target at 1× would call the
  // unchanged cluster failing; at 1.5× a change that makes the tail half as slow again fails.
  double slo_headroom = 1.5;
  std::vector<ProbeRule> probe_rules;
  // `--hpa-metric`: metric names of exported HPAs -> what knobsim computes, over the defaults
  // (DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED; sim/import/import_autoscalers.cpp).
  std::map<std::string, HpaMetricKind, std::less<>> hpa_metric_kinds;
  // Memory isolation (docs/import.md "Memory isolation"): a measured peak more than this
  // fraction above the visible quota is evidence of a module that does not enforce it (2 %:
  // DCGM samples a moving figure, and ACK says the usable memory is "tens to hundreds of MiB"
  // under the quota, never above it).
  double over_quota_margin = 0.02;
  // Rule (c): nodes whose label `cgpu_version_label` holds one of these versions run a cGPU
  // release known to lack memory isolation. ACK documents no such label, so the key is ours
  // [UNCONFIRMED]; the list is empty by default (the rule is off).
  std::string cgpu_version_label = "aliyun.accelerator/cgpu-version";
  std::vector<std::string> cgpu_no_isolation_versions;
  // Pod annotations that mark a volume as backed up; the only annotations written
  // (`--backup-annotation`).
  std::vector<std::string> backup_annotations = {"backup.velero.io/backup-volumes",
                                                 "knobsim.io/backup"};
  // The metrics window in Unix seconds (used when `metrics` is given).
  double window_start = 0;
  double window_end = 0;
  // `--duration`: the scenario's run length, from the window's start (the traffic's `at: 0`),
  // at most the window; 0 runs the whole window. 1 h by default, so that a run of an imported
  // week answers in seconds; the fit still reads the whole window.
  double run_duration_s = 3600;
};

struct ImportedNode {
  std::string name;
  std::string zone;  // topology.kubernetes.io/zone; empty = none
  Labels labels;     // other per-node labels (zone labels of other keys), hostname excluded
};

struct ImportedPool {
  NodePool pool;  // count = nodes.size(); zones unused (per node)
  std::vector<ImportedNode> nodes;
  std::string gpu_model;           // aliyun.accelerator/nvidia_name as exported
  std::vector<std::string> notes;  // comments above the pool
  // Impossible evidence on the pool's cards (CheckEvidence), written as warnings above it.
  std::vector<std::string> evidence;
  // Which rule set memory_isolation, written above it; the over-quota pods that were evidence.
  std::vector<std::string> isolation_notes;
  std::vector<OverQuotaPod> over_quota;
};

struct ImportedGpuType {
  GpuType type;
  std::string note;
};

struct ImportedPod {
  std::string name;
  std::string node;
  std::vector<int> cards;  // empty: no GPU, or unknown cards (ACK's choice on that node)
  bool ready = true;       // false: Running with condition Ready=False in the export
};

struct ImportedWorkload {
  Workload spec;     // name, namespace, requests, GPU asks, selectors, probe, memory, traffic, work
  std::string kind;  // Deployment, StatefulSet, DaemonSet, Pod, ...
  std::string owner;  // the owner's name (spec.name may be <ns>-<owner>)
  std::vector<ImportedPod> pods;
  // Its pod's spec.containers by name: a ContainerResource metric of its HPA is the pod's own
  // only when the pod has that one container (the workload stands for one container).
  std::vector<std::string> containers;
  bool has_memory = false;   // write gpu_memory
  bool has_traffic = false;  // write traffic
  bool has_work = false;     // write work
  bool has_slo = false;      // write slo (LatencyObjectives)
  // Comments keyed by the scenario key they explain ("probe", "gpu_memory", "traffic", "work",
  // "replicas", "pods", ""), written beside or above it.
  std::map<std::string, std::string> notes;
  // Impossible evidence (CheckEvidence) keyed like `notes` ("gpu_memory", "traffic", "pods"):
  // what was measured and what was done, written as warnings above that key.
  std::map<std::string, std::vector<std::string>> evidence;
};

struct ImportModel {
  std::string name;
  int policy = 5;
  double switch_overhead = 0;
  double duration_s = 3600;  // the run length (RunLength)
  std::string run_note;      // how it was chosen, above `run:` and on stderr
  // The wall clock at t = 0 (Unix seconds): the metrics window's start, where the traffic's
  // `at: 0` is (RunLength). Written as `run.start` when a CronHPA reads it (cron_hpa_start).
  std::optional<int64_t> start_unix_s;
  bool cron_hpa_start = false;
  std::string evidence;      // EvidenceFingerprint of the export and metrics; empty without metrics
  std::vector<ImportedGpuType> gpu_types;  // types not in the catalog
  std::vector<ImportedPool> pools;
  std::vector<ImportedWorkload> workloads;
  std::vector<std::string> header;      // comment lines at the top (sources, rules, fit quality)
  ScenarioKube kube;                    // PDBs, StatefulSets, storage, quotas: the `kube:` section
  std::vector<std::string> warnings;    // skipped things, for stderr (counted)
  std::vector<std::string> defaults;    // which numbers are defaults, for stderr
  std::vector<std::string> fit_report;  // fit quality lines, for stderr (also in the header)
  // The work fit's idle term per card, "node/index" -> busy fraction (0..1): DCGM's reading with
  // no requests. Not simulated (the pool's comment says so); a backtest adds it to predicted
  // utilization. Cards the fit did not give an idle term are absent.
  std::map<std::string, double> card_idle_busy;
};

// Builds the model; `metrics` may be null (no --prom). A Deployment or StatefulSet without pods
// in `objects` (a config repository's manifests) becomes a workload from its template pod
// (KubeObjects::template_pods) with spec.replicas and no placed pods. Never fails: what cannot be
// used is a warning. Deterministic: the same objects and metrics give the same model.
//
// Memory isolation of a pool with GPUs, the first rule that applies (docs/import.md; the
// user's `--isolation` comes after, ApplyIsolationRules):
//  1. no cGPU module (schedule share / default) or `cgpu.disable.isolation=true`: soft;
//  2. a node whose cGPU version (label `cgpu_version_label`) is in `cgpu_no_isolation_versions`:
//     soft;
//  3. an OverQuotaPod on one of its nodes: soft. The pool's nodes run one cGPU release (ACK
//     installs it per node pool, and the nodepool-id label keeps pools apart), so one node is
//     evidence for all;
//  4. else hard: the module enforces the quota.
ImportModel ImportCluster(const KubeObjects& objects, const Metrics* metrics,
                          const ImportOptions& options);

// `--isolation` rules applied to an imported model in order (a later rule wins), each pool's
// comment saying so. An error names the rule when its pool is not in the model, or when it asks
// `hard` of one pool without a cGPU module; `*=hard` passes such pools by.
Status ApplyIsolationRules(ImportModel& model, const std::vector<IsolationRule>& rules);

}  // namespace knobsim
