// ExportGenerator: synthetic ACK clusters whose truth we know, for testing and timing `import`.
//
// `knobsim import` reads `kubectl get nodes,pods,deploy,rs,sts,pdb,pvc,pv,sc,resourcequota -A
// -o json` and Prometheus `query_range` responses. To test it we need exports of any size that
// look like a real ACK cluster (docs/semantics.md §1.1-1.3, §5.1-5.6) and whose hidden quantities —
// work per request, request rates, memory profiles, card busy fractions — are known exactly.
// Generate() builds such a cluster: node pools (L20 cgpu binpack and spread, A10 share, A100-80G
// exclusive, CPU), Deployments with their ReplicaSets, StatefulSets with claims and volumes, a
// DaemonSet's pods, bare pods, PDBs and quotas, every pod placed by the generator itself so the
// ACK allocation annotations never overfill a card. The ground truth drives the metrics:
//
//   rate of a workload   mean × (1 + amplitude × cos(2π (t − peak_at) / 1 day)), t in Unix
//                        seconds (UTC days); each running pod serves the per-pod share of it
//   card busy            min(1, Σ pods on the card rate_pod × work / speed_of_card)
//                        (a multi-card pod keeps each of its cards busy for each request)
//   memory per card      rest + slope × rate_pod, whole MiB, split evenly over a pod's cards
//
// With options.request_truth (the backtest profile), GPU pods alone on their cards are simulated
// request by request instead (bursty arrivals, gamma service, FIFO, exact latency); their rate,
// busy and latency series come from that (README.md "Request-level truth").
//
// Everything is a pure function of (seed, time): the same seed gives byte-identical files on one
// standard library, and a metric sampled at any step agrees with the truth at the same instant.
// Random numbers come from splitmix64 with our own mappings (std::uniform_*_distribution differs
// between standard libraries). tools/gen-export/README.md lists the files and their shapes.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input_error.h"

namespace knobsim::gen_export {

enum class ExportFormat { kJson, kYaml, kBoth };

// How the request-level truth places a step's arrivals inside the step, given their count.
enum class ArrivalsInStep {
  kIid,         // i.i.d. uniform: within a step the arrivals are a Poisson process
  kStratified,  // the k-th of n at (k + U_k) / n of the step: knobsim's `traffic: {counts}` rule
};

struct GeneratorOptions {
  int nodes = 20;
  int pods = 60;  // target; the export holds this many when the pools fit them
  uint64_t seed = 1;
  int days = 7;                     // the truth's window, whole UTC days
  int step_s = 60;                  // the truth's grid; divides 86400
  int64_t start_unix = 1717200000;  // window start, 2024-06-01T00:00:00Z; the export is taken
                                    // at start + days
  bool with_metrics = true;
  int metrics_step_s = 0;       // DCGM series; 0 = step_s; a multiple of step_s
  int rate_step_s = 0;          // request-rate series; 0 = metrics_step_s
  int metrics_days = 0;         // the last metrics_days of the window; 0 = days
  bool process_metric = true;   // DCGM_CUSTOM_PROCESS_MEM_USED on the A10 pool's nodes
  bool planted_secrets = true;  // API key, JWT, DB password, token annotation (bait)
  double busy_noise = 0.01;     // uniform ± on each utilization sample (fraction of 1)
  // ---- The backtest profile (README.md "Request-level truth"); all off by default, so the
  // default output stays what it was.
  // Exact FIFO (Lindley) truth for GPU pods alone on their cards: bursty arrivals per step,
  // gamma service times, concurrency 1; their rate, utilization and latency series come from it.
  bool request_truth = false;
  ArrivalsInStep arrivals_in_step = ArrivalsInStep::kIid;
  double idle_floor = 0;      // a card with a served model shows at least this much (max 0.2)
  bool cpu_router = false;    // a CPU-only llm-router Deployment with a request-rate series
  double backtest_split = 0;  // 0: none; else the last fraction of the metrics window is the
                              // test window, the rest the train window (truth.json `backtest`)
  // DCGM's profiling counters (kProfileMetrics) on every card, from a GPU profile drawn for each
  // GPU workload with traffic (README.md "GPU profiles"). Off by default.
  bool gpu_profiles = false;
};

// ---- Request-level truth ---------------------------------------------------------------------

// The latency histogram's finite upper bounds (`le`), seconds; +Inf follows.
inline constexpr double kLatencyBuckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                             1,     2.5,  5,     10,   30,  60};
inline constexpr int kLatencyBucketCount = static_cast<int>(std::size(kLatencyBuckets)) + 1;

// What the request-level truth measured over one window (samples whose timestamp t has
// from <= t < to; a step's sample is stamped at the step's end).
struct RequestWindowTruth {
  int64_t arrivals = 0;
  int64_t completions = 0;
  double mean_latency_s = 0;  // over the completions (arrival to finish)
  double p99_latency_s = 0;   // from a log histogram, 0.1 % resolution
  double mean_wait_s = 0;     // arrival to the start of service
  double mean_service_s = 0;  // the drawn service times on this card
  double service_cv2 = 0;     // their squared coefficient of variation
  double mean_busy = 0;       // of the pod's cards, without idle floor and noise
};

// One request-truth pod's requests, per truth step: step i covers [start + i·step, start +
// (i+1)·step) and its samples are stamped at its end. Requests are counted where they arrive
// (arrivals) or complete (completions, latency); busy time where the card works.
struct RequestSeries {
  int64_t start_unix = 0;
  int step_s = 0;
  std::vector<int32_t> arrivals;
  std::vector<double> busy_s;  // seconds the pod's cards were busy in the step
  std::vector<int32_t> completions;
  std::vector<double> latency_sum_s;
  std::vector<int32_t> bucket_counts;   // kLatencyBucketCount per step, not cumulative
  RequestWindowTruth all, train, test;  // the metrics window; the backtest's windows
};

// ---- Ground truth ----------------------------------------------------------------------------

// A workload's DCGM profiling counters per unit of busy: while its kernels run alone on a card,
// SM_ACTIVE reads sm_active, and so on; over a sample, each times the card's busy fraction.
struct TruthGpuProfile {
  double sm_active = 0;
  double sm_occupancy = 0;
  double dram_active = 0;
  double tensor_active = 0;
};

struct TruthWorkload {
  std::string kind;  // Deployment | StatefulSet | DaemonSet | Pod
  std::string namespace_;
  std::string name;
  std::string pool;  // node pool name; "" when it may run anywhere
  int replicas = 0;
  int running = 0;     // replicas bound to a node
  bool gpu = false;    // asks for aliyun.com/gpu-mem or nvidia.com/gpu
  int gpu_mem = 0;     // aliyun.com/gpu-mem units per pod (all containers)
  int gpu_count = 1;   // cards per pod
  int whole_gpus = 0;  // nvidia.com/gpu per pod
  // Traffic (only when has_traffic): a Pending replica serves nothing, so the workload's rate
  // is the per-pod rate times `running` (what the rate metric sums to).
  bool has_traffic = false;
  double work_s = 0;         // per request, on the reference card (A10, speed 1.0)
  double pod_mean_rate = 0;  // requests/s per running pod, mean over a day
  double mean_rate = 0;      // pod_mean_rate × running
  double amplitude = 0;
  int64_t peak_at_s = 0;  // seconds after 00:00 UTC
  bool cpu_only = false;  // traffic without a GPU (the router): served on CPU, not modelled
  // Request-level truth (options.request_truth): some pod of it has one. Service time on a card
  // is gamma with mean work_s / speed and this squared coefficient of variation.
  bool request_truth = false;
  double service_cv2 = 0;
  // Memory per card of each pod: rest_mib + pod offset + mib_per_rps × rate_pod.
  int64_t rest_mib = 0;
  double mib_per_rps = 0;
  int64_t quota_mib = 0;    // per card: cGPU's visible quota, or the card when whole
  int64_t peak_mib = 0;     // per pod, all its cards, max over the window
  bool over_quota = false;  // peak above the quota: soft isolation only (quickstart)
  std::optional<TruthGpuProfile> gpu_profile;  // options.gpu_profiles: GPU workloads with traffic
};

struct TruthPod {
  std::string namespace_;
  std::string name;
  int workload = -1;                      // index into GroundTruth::workloads
  std::string node;                       // "" when Pending
  std::vector<int> cards;                 // indices into GroundTruth::cards
  int units_per_card = 0;                 // aliyun.com/gpu-mem on each card; 0 for whole cards
  int64_t mem_offset_mib = 0;             // per card, keeps two pods of one workload apart
  std::optional<RequestSeries> requests;  // the request-level truth, when this pod has one
};

struct TruthCard {
  std::string node;
  int index = 0;  // card index on the node (the `gpu` label)
  std::string uuid;
  std::string gpu_type;  // catalog name
  double speed = 1;
  int units = 0;  // aliyun.com/gpu-mem units; 0 on exclusive nodes
  int64_t memory_mib = 0;
  bool exclusive = false;
  std::vector<int> pods;  // indices into GroundTruth::pods
  std::string fb_used;    // "per_pod" | "card_total": what pod-labelled FB_USED holds
  bool process_metric = false;
  double mean_busy = 0;  // noiseless, over the window (request truth: over the metrics window)
  double peak_busy = 0;
  double idle_floor = 0;       // utilization shown while a model is loaded and idle
  bool request_truth = false;  // its busy is its one pod's simulated busy time
};

struct GroundTruth {
  int64_t start_unix = 0;
  int64_t end_unix = 0;  // start + days: when the export was taken
  int step_s = 0;
  // The backtest's windows (options.backtest_split > 0), [from, to) in Unix seconds.
  int64_t train_from = 0, train_to = 0, test_from = 0, test_to = 0;
  std::vector<TruthWorkload> workloads;
  std::vector<TruthPod> pods;
  std::vector<TruthCard> cards;
  std::vector<std::string> planted_secrets;  // every value a privacy test must not find
};

// ---- Generation ------------------------------------------------------------------------------

struct GeneratedCluster {
  GeneratorOptions options;
  std::vector<nlohmann::json> nodes;    // v1 Node, by name
  std::vector<nlohmann::json> objects;  // the other kinds in kubectl's order: pods, deploy, rs,
                                        // sts, pdb, pvc, pv, sc, resourcequota
  GroundTruth truth;
};

// Ok, or what is wrong with the options, naming the flag in InputError::path (e.g. "--step").
// Generate() checks them too.
Status CheckOptions(const GeneratorOptions& options);

Expected<GeneratedCluster> Generate(const GeneratorOptions& options);

// The curves behind the metrics, noiseless; t in Unix seconds. For a request-truth pod or card
// they are the step ending at t: arrivals / step and busy time / step.
double PodRate(const GroundTruth& truth, int pod, int64_t t);
double CardBusy(const GroundTruth& truth, int card, int64_t t);
int64_t PodCardMemoryMib(const GroundTruth& truth, int pod, int64_t t);  // on each of its cards
// Profiling counter k (kProfileMetrics) of a card whose busy fraction is `busy` at t, noiseless:
// busy × the counter of its pods' profiles, weighted by each pod's part of the card's work
// (rate × work); GR_ENGINE_ACTIVE is busy itself.
double CardProfileCounter(const GroundTruth& truth, int card, int counter, double busy, int64_t t);

// ---- Output ----------------------------------------------------------------------------------

// `kubectl get ... -o json`: one List, 4-space indent, keys sorted.
std::string ExportJson(const GeneratedCluster& cluster);
// The same objects as two `kind: List` YAML documents: the nodes, then everything else.
std::string ExportYaml(const GeneratedCluster& cluster);
nlohmann::json TruthJson(const GeneratedCluster& cluster);

// The metrics written, one query_range response each (README.md names their labels).
inline constexpr std::string_view kGpuUtilMetric = "DCGM_FI_DEV_GPU_UTIL";
inline constexpr std::string_view kFbUsedMetric = "DCGM_FI_DEV_FB_USED";
inline constexpr std::string_view kProcessMemMetric = "DCGM_CUSTOM_PROCESS_MEM_USED";
inline constexpr std::string_view kRequestRateMetric = "http_requests_per_second";
// The request-truth pods' latency, a classic histogram; each file holds rate(x[step]) samples.
inline constexpr std::string_view kLatencyMetric = "knobsim_request_duration_seconds";
inline constexpr std::string_view kLatencyBucketMetric = "knobsim_request_duration_seconds_bucket";
inline constexpr std::string_view kLatencySumMetric = "knobsim_request_duration_seconds_sum";
inline constexpr std::string_view kLatencyCountMetric = "knobsim_request_duration_seconds_count";
// options.gpu_profiles: DCGM's profiling counters, ratios 0..1, TruthGpuProfile's order, then
// GR_ENGINE_ACTIVE (the card's busy fraction).
inline constexpr std::string_view kProfileMetrics[] = {
    "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY", "DCGM_FI_PROF_DRAM_ACTIVE",
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"};
std::vector<std::string> MetricNames(const GeneratedCluster& cluster);
// Streams one metric as a Prometheus query_range JSON response (docs/semantics.md §5.5).
void WritePromJson(const GeneratedCluster& cluster, std::string_view metric, std::ostream& out);

struct WrittenFile {
  std::string path;
  uint64_t bytes = 0;
};

// Writes export.json and/or export.yaml, truth.json and, with metrics, prom/<metric>.json under
// `dir` (created when missing). Each file goes to a temporary name first and is renamed, so a
// reader never sees half a file. An error names the file it could not write.
Expected<std::vector<WrittenFile>> WriteExport(const GeneratedCluster& cluster,
                                               const std::string& dir, ExportFormat format);

}  // namespace knobsim::gen_export
