// ImportSteps: the steps of ImportCluster (cluster_import.h), one function each, in the order
// ImportCluster runs them, and the indexes they hand on. Each step reads the export (and the
// metrics) and the indexes of the steps before it, and adds to the ImportModel: its pools,
// workloads, notes, warnings, defaults and header lines, in the order the writer prints them.
//
//   objects  = WithTemplatePods(exported)                  manifests without pods
//   nodes    = PoolsFromNodes(objects, options, model)     node pools and unknown GPU types
//   pods     = WorkloadsFromPods(objects, nodes, options, model)
//   CheckEvidence(metrics, nodes, pods, ...)               impossible evidence flagged, corrected
//   ImportMetrics(...) or NoMetricsDefaults(model)        memory, traffic, work, their defaults
//   RunLength(options, have_metrics, model)                the run's duration
//   DecideIsolation(...)                                   memory isolation rules 2-4
//   CurrentPods(objects, pods, model)                      `pods:` of each workload
//   KubeSection(objects, model)                            the `kube:` objects
//   HpasFromObjects(objects, options, model)               each workload's `hpa:`
//
// Internal to sim/import (the command line and the checks call ImportCluster); declared here so
// each step has its own tests (import_steps_test.cpp).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/gpu_catalog.h"
#include "sim/import/cluster_import.h"

namespace knobsim {

// ---- What the steps hand on -----------------------------------------------------------------

// PoolsFromNodes: where each exported node went.
struct NodeIndex {
  std::map<std::string, int> pool_of_node;              // node name -> index in model.pools
  std::map<std::string, std::string> gpu_of_node;       // node name -> GPU type ("" CPU-only)
  std::map<std::string, const NodeSpec*> node_by_name;  // into the objects given
};

struct PodPlace {
  std::string node;
  std::vector<int> cards;  // from the allocation annotations, else the DCGM labels; may be empty
};

// WorkloadsFromPods: which workload each live pod joined and where it runs. Pods are indexes
// into KubeObjects::pods (after WithTemplatePods).
struct PodIndex {
  std::map<PodKey, std::pair<int, int>> workload_of;  // pod -> (workload, pod index)
  std::map<int, PodPlace> place;                      // pod index -> where it runs (bound only)
  std::map<std::pair<std::string, int>, std::vector<int>> card_pods;  // (node, card) -> pods
};

// ---- The steps ------------------------------------------------------------------------------

// The export plus, for each Deployment or StatefulSet without a pod in it, its template pod
// (KubeObjects::template_pods, pending): a config repository's manifests import as workloads
// with spec.replicas and no `pods:`. Owners with pods are read from their pods only.
KubeObjects WithTemplatePods(const KubeObjects& exported);

// Nodes that agree on everything the scheduler reads share a pool (ClusterImport's header);
// pools are named gpu-<type> / cpu, numbered when several share a name, and counted. A GPU the
// catalog does not know gets an ImportedGpuType. Labels that look like credentials are dropped
// unless a pod selects nodes by them; memory isolation rule 1 is decided here.
NodeIndex PoolsFromNodes(const KubeObjects& objects, const ImportOptions& options,
                         ImportModel& model);

// One workload per owner (GroupPodsByWorkload) with a live pod (Succeeded and Failed pods are
// counted in one warning): its name, requests, selectors, images, probe and replicas from the
// owner's first bound pod, and where each live pod runs (PodIndex) when its node is exported.
PodIndex WorkloadsFromPods(const KubeObjects& objects, const NodeIndex& nodes,
                           const ImportOptions& options, ImportModel& model);

// With metrics: cards from the DCGM labels, GPU memory from the peaks, traffic from the rates,
// work per request from the fit (its quality lines also in the header), and each default said
// so (ImportCluster's header). Pods in the metrics but not in the export are one warning.
void ImportMetrics(const KubeObjects& objects, const Metrics& metrics, const NodeIndex& nodes,
                   const GpuCatalog& catalog, const ImportOptions& options, PodIndex& pods,
                   ImportModel& model);

// Without metrics: the defaults ImportMetrics would otherwise replace, noted per workload.
void NoMetricsDefaults(ImportModel& model);

// Evidence that cannot be true (docs/import.md "Impossible evidence"), each case a warning that
// names the pod or card, the numbers and what was done, also written as a comment beside what
// it affected (ImportedWorkload / ImportedPool `evidence`):
//  - card utilization above 100 % or below 0 (counted by InterpretMetrics, which clamped noise
//    within its ratio tolerance to 100 % and dropped the rest): reported per card;
//  - negative request rates (dropped by InterpretMetrics before the per-pod sum): per pod;
//  - a pod's DCGM or rate series labelled with an exported node other than the one the export
//    places the pod on: those series are not used for that pod (removed from the card's pods,
//    the memory peaks, the card totals and the rates). Labels naming no exported node are not
//    compared (dcgm-exporter's Hostname is its own pod's name without hostNetwork);
//  - a pod's memory peak above its card's physical memory (CardMemoryMib of the card's node):
//    the peak is capped at the card (measured_peak_mib keeps the measurement), the mean at most
//    the card too, so FitGpuMemory keeps the weights from the mean when they fit; such a peak
//    is no evidence of soft isolation (OverQuotaEvidence skips it).
// Returns the metrics to import from when anything was corrected (and one rate series per pod:
// a pod's series of several node labels are summed once the others are removed), else nullopt:
// the given metrics are used as they are.
std::optional<Metrics> CheckEvidence(const Metrics& metrics, const NodeIndex& nodes,
                                     const PodIndex& pods, const GpuCatalog& catalog,
                                     ImportModel& model);

// The run's duration: `run_duration_s` from the window's start, at most the window (0: all of
// it); without metrics `run_duration_s` itself. run_note and a header line say which.
void RunLength(const ImportOptions& options, bool have_metrics, ImportModel& model);

// Memory isolation rules 2-4 (ImportCluster's header) on the pools rule 1 left hard: over-quota
// evidence from the metrics (may be null; OverQuotaEvidence), the version list, else hard;
// each pool's notes say which rule decided.
void DecideIsolation(const KubeObjects& objects, const Metrics* metrics, const NodeIndex& nodes,
                     const PodIndex& pods, const GpuCatalog& catalog, const ImportOptions& options,
                     ImportModel& model);

// Each workload's `pods:`: its placed pods by name, with node, cards and readiness.
void CurrentPods(const KubeObjects& objects, const PodIndex& pods, ImportModel& model);

// The objects the checks read (the scenario's `kube:`), and header lines for the kinds skipped.
void KubeSection(const KubeObjects& objects, ImportModel& model);

// Each HorizontalPodAutoscaler onto the workload its scaleTargetRef names (kind, namespace,
// owner): the workload's `hpa:` with the bounds, the behavior and the metrics knobsim computes
// (the adapter's DCGM names, and options.hpa_metric_kinds); CPU, memory and unknown metrics are
// left out with a warning naming the file, the line and the metric. An HPA with no metric left,
// one whose target is not imported, and HPAs sharing a target (the controller acts on none)
// are warnings and leave the workload's replicas fixed. Replicas outside the bounds move inside
// them, as the controller's first sync does. Run after CurrentPods.
void HpasFromObjects(const KubeObjects& objects, const ImportOptions& options,
                     ImportModel& model);

// Each ACK CronHorizontalPodAutoscaler onto the workload it scales: one whose scaleTargetRef is
// an HPA goes onto that HPA's workload as `cron_hpa: {target: hpa}` when the HPA was imported;
// one naming a workload directly becomes `target: workload` unless the workload has an HPA
// (the two would fight: left out, said). Schedules and excludeDates the controller could not
// parse, targets not imported, and two CronHPAs on one workload are warnings naming the file
// and line, and are left out. A warning says that the run's wall clock (run.start) decides
// when the jobs fire. Run after HpasFromObjects.
void CronHpasFromObjects(const KubeObjects& objects, ImportModel& model);

// ---- Parts of the steps, tested on their own ------------------------------------------------

// The pods of the metrics that the export has (in PodIndex); the others are kept for the one
// warning that names how many there were.
class KnownPods {
 public:
  explicit KnownPods(const PodIndex& pods) : pods_(pods) {}
  bool operator()(const PodKey& pod);
  const std::set<PodKey>& unknown() const { return unknown_; }

 private:
  const PodIndex& pods_;
  std::set<PodKey> unknown_;
};

// The rate series of each workload (by index in model.workloads) and of each pod (by index).
struct RateIndex {
  std::vector<std::vector<const PodRate*>> of_workload;
  std::map<int, const PodRate*> of_pod;
  std::set<const PodRate*> current;  // the rates of pods bound now (the scenario's `pods:`)
};

// Pods placed on a node without cards (whole-GPU pods, and others without allocation
// annotations) take the cards whose DCGM series name them.
void CardsFromDcgm(const Metrics& metrics, const NodeIndex& nodes, KnownPods& known,
                   PodIndex& pods);

// Each GPU workload's memory from the highest peak of its pods (FitGpuMemory, the context of
// the card's catalog type), else the default with the card totals that mention its pods.
void MemoryFromPeaks(const Metrics& metrics, const NodeIndex& nodes, const PodIndex& pods,
                     KnownPods& known, const GpuCatalog& catalog, ImportModel& model);

RateIndex IndexRates(const Metrics& metrics, const PodIndex& pods, KnownPods& known,
                     size_t workloads);

// Each workload with rates: its pods' rates summed per piece (DownsampleTraffic), a Poisson
// rate when flat within flat_cv, else piecewise. `--traffic counts`: requests per step, per pod
// (counts.per_pod, by pod name) when a current pod has a rate series, else summed.
void TrafficFromRates(const RateIndex& rates, const ImportOptions& options, ImportModel& model);

// Work per request by NNLS (FitWorkPerRequest) over the cards where busy is linear in the rates
// (FitEligible), rows binned over at least fit_bin_s; its quality lines into fit_report.
void FitWork(const KubeObjects& objects, const Metrics& metrics, const NodeIndex& nodes,
             const PodIndex& pods, const RateIndex& rates, const GpuCatalog& catalog,
             const ImportOptions& options, ImportModel& model);

// The shape of each workload's work from the latency metric (--work-dist auto): its pods'
// latency samples where the pod is alone on its card and the card's busy less its idle term is
// at most alone_max_busy, pooled; gamma or lognormal by the rule of ImportOptions, the M/G/1 wait
// removed (models/service_time_fit.h); the evidence in the work note. Work the fit did not
// identify takes the latency's service mean (times the card's speed). A mean-only latency has no
// shape: exponential kept, said. Run after FitWork (it reads card_idle_busy).
void WorkShapes(const Metrics& metrics, const NodeIndex& nodes, const PodIndex& pods,
                const GpuCatalog& catalog, const ImportOptions& options, ImportModel& model);

// Each workload with traffic gets an objective written out (ImportedWorkload::has_slo): a
// latency target of its measured p99 over the window × options.slo_headroom, rounded up to the
// millisecond, at percentile 99, when the latency metric gives one (pooled histogram buckets when
// every pod has the same bounds, else the request-weighted mean of the samples' p99, said), else
// errors only, said in its note. The error budget stays the reader's default.
void LatencyObjectives(const Metrics& metrics, const PodIndex& pods, const ImportOptions& options,
                       ImportModel& model);

// Each workload whose pods have DCGM profiling series (Metrics::profiles): its gpu_profile, per
// counter the median over its pods' samples taken while the pod was the only pod on its card
// (rounded to 1e-4); a workload whose pods never ran alone gets none, with a warning and a note.
void ProfilesFromDcgm(const Metrics& metrics, const PodIndex& pods, KnownPods& known,
                      ImportModel& model);

// A workload with traffic whose work the fit did not identify: default_work_s, a default.
void DefaultWork(const ImportOptions& options, ImportModel& model);

// `--work-dist` other than auto: that distribution for every workload with work, noted.
void OverrideWorkDist(const ImportOptions& options, ImportModel& model);

// The work fit's rows: `--fit-bin` when given (raised to the sample step), else the auto rule of
// ImportOptions::fit_bin_s; `why` says how it was chosen. `card_samples`: per card, the samples
// its span in the window holds at `step`, the metrics' (coarsest) sample step.
double ChooseFitBin(const ImportOptions& options, double step, std::vector<int> card_samples,
                    std::string* why);

// Pods that ran healthy above their cGPU visible quota (by more than over_quota_margin), added
// to their pool's over_quota; a pod above it that was not healthy is a warning instead.
void OverQuotaEvidence(const KubeObjects& objects, const Metrics& metrics, const NodeIndex& nodes,
                       const PodIndex& pods, const GpuCatalog& catalog,
                       const ImportOptions& options, ImportModel& model);

// Ran healthy in the export: Running, Ready (or not reported), no container OOMKilled, crashed
// with an error or in CrashLoopBackOff; `why` says what spoiled it.
bool RanHealthy(const PodSpec& pod, std::string* why);

// Node label (key, value) pairs some pod selects nodes by (nodeSelector, required or preferred
// node affinity): identifiers, kept even when they look like credentials.
std::set<std::pair<std::string, std::string>> SelectedNodeLabels(const std::vector<PodSpec>& pods);

// Labels that differ node by node without changing what the scheduler can place: the hostname
// and the zone labels (topology.kubernetes.io/zone and the older or CSI copies of it).
bool IsPerNodeLabel(const std::string& key);

// Pod labels that name one pod or one revision, never a workload.
bool IsPerPodLabel(const std::string& key);

// Pool names gpu-<type> / cpu, with -<k> when several pools would share one; counts.
void NamePools(std::vector<ImportedPool>& pools);

// The probe of the workload whose representative pod is `pod`: its GPU container's readiness,
// else the first container's with one, read by ClassifyProbe, then the --probe-rule entries
// (the last match wins). `why` says which.
ReadinessKind WorkloadProbe(const PodSpec& pod, const std::string& ns, const std::string& owner,
                            const std::vector<ProbeRule>& rules, std::string* why);

// Physical memory (MiB) of a card of GPU type `gpu`: the catalog's, else the imported type's
// (model.gpu_types); 0 when neither knows it.
int64_t CardMemoryMib(const std::string& gpu, const GpuCatalog& catalog, const ImportModel& model);

// ---- Text and numbers the steps share (their own namespace: other files have a Mib) ----------

namespace import_text {

std::string FormatNumber(const char* fmt, double v);  // printf of one double
std::string Mib(double mib);                          // "4188 MiB"
std::string Seconds(double s);                        // "1.5 s", "30 ms"
// A DNS-1123 label made from any text: lower case, other characters as '-', at most 63.
std::string DnsLabel(std::string_view s);
// Mean per bin of `bin` seconds from `start` (NaN where a bin has no sample).
std::vector<double> Bin(const std::vector<double>& times, const std::vector<double>& values,
                        double start, double bin, int bins);
// The median spacing of sample times (0 for fewer than two).
double MedianStep(const std::vector<double>& times);
// The card's busy at t: its nearest sample within half_step; NaN without one.
double BusyAt(const CardUtilization& cu, double t, double half_step);

}  // namespace import_text
}  // namespace knobsim
