#include "sim/backtest/backtest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "models/memory_isolation.h"
#include "sim/backtest/accuracy.h"
#include "sim/backtest/independent_parts.h"
#include "sim/backtest/measured_windows.h"
#include "sim/backtest/score_text.h"
#include "sim/cluster.h"
#include "sim/engine/simulation.h"
#include "sim/import/imported_scenario.h"
#include "sim/io/evidence_fingerprint.h"
#include "sim/text.h"
#include "sim/timeline_stats.h"
#include "sim/variant.h"

namespace knobsim::backtest {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The M/M/1 baseline's load is capped here: at or above 1 its mean is infinite, and a baseline
// that says "infinite" for a busy window is not one anybody would use.
constexpr double kMm1MaxLoad = 0.99;

std::string PodId(const PodKey& k) {
  return k.ns + "/" + k.pod;
}

// What the two imports and the run give the comparisons.
struct Inputs {
  ImportModel model;  // the train window's import, with the test window's recorded traffic
  Metrics train, test;
  Scenario scenario;
  Cluster cluster;
  std::vector<RunResult> runs;                     // the replications, each with its timeline
  TimelineStats timeline;                          // their summary
  std::map<PodKey, int> workload_of_pod;           // pods of the export -> index in model.workloads
  std::map<std::string, std::string> node_of_pod;  // namespace/name -> node
  // Per workload index, its pods' measured latency series in each window.
  std::map<int, std::vector<const PodLatency*>> test_latency, train_latency;
  // Per workload index, the histogram bounds (seconds, +Inf last) its measured p99 is read
  // through; empty for a workload without common buckets.
  std::vector<std::vector<double>> bucket_le;
};

int Windows(const BacktestOptions& o) {
  return o.window_s > 0 ? static_cast<int>(std::floor(o.test.length() / o.window_s + 1e-9)) : 0;
}

}  // namespace

Status CheckBacktestOptions(const BacktestOptions& o) {
  const int windows = Windows(o);
  if (!(o.train.from < o.train.to)) return Status::Failure("--train: the window is empty");
  if (!(o.test.from < o.test.to)) return Status::Failure("--test: the window is empty");
  if (o.test.from < o.train.to)
    return Status::Failure("--test: the test window must start after the train window ends");
  if (!(o.window_s > 0)) return Status::Failure("--window: must be positive");
  if (windows < 1)
    return Status::Failure("--window: " + std::to_string(o.window_s) +
                           " s is longer than the test window (" + std::to_string(o.test.length()) +
                           " s)");
  if (o.replications < 1) return Status::Failure("--replications: must be at least 1");
  return Status::Ok();
}

namespace {

Metrics WindowMetrics(std::span<const PromResult> results, const MetricNames& names,
                      const TimeRange& range) {
  return InterpretPodMemoryMetrics(results, names, range.from, range.to);
}

// The train import with the test window's recorded traffic; a workload whose test window has no
// rate keeps none (a note says which).
void ReplayTestTraffic(const ImportModel& test_model, ImportModel& model,
                       std::vector<std::string>& notes) {
  std::map<std::pair<std::string, std::string>, const ImportedWorkload*> test_of;
  for (const ImportedWorkload& w : test_model.workloads)
    test_of[{w.spec.namespace_, w.spec.name}] = &w;
  for (ImportedWorkload& w : model.workloads) {
    const auto at = test_of.find({w.spec.namespace_, w.spec.name});
    const bool recorded = at != test_of.end() && at->second->has_traffic;
    if (w.has_traffic && !recorded)
      notes.push_back(w.spec.namespace_ + "/" + w.spec.name +
                      ": no request rate in the test window; it gets no traffic");
    w.has_traffic = recorded;
    w.spec.traffic = recorded ? at->second->spec.traffic : Traffic{};
    if (recorded) w.notes["traffic"] = at->second->notes.at("traffic");
  }
}

Expected<Inputs> Prepare(const KubeObjects& objects, std::span<const PromResult> results,
                         const BacktestOptions& o, const WindowGrid& grid, BacktestReport& report) {
  Inputs in;
  in.train = WindowMetrics(results, o.names, o.train);
  in.test = WindowMetrics(results, o.names, o.test);
  ImportOptions train_options = o.import;
  train_options.window_start = o.train.from;
  train_options.window_end = o.train.to;
  train_options.traffic_counts = false;
  in.model = ImportCluster(objects, &in.train, train_options);
  ImportOptions test_options = o.import;
  test_options.window_start = o.test.from;
  test_options.window_end = o.test.to;
  test_options.traffic_counts = true;
  const ImportModel test_model = ImportCluster(objects, &in.test, test_options);
  report.warnings = in.model.warnings;
  report.fit_report = in.model.fit_report;
  ReplayTestTraffic(test_model, in.model, report.notes);
  in.model.duration_s = grid.windows * grid.window_s;

  Expected<Scenario> scenario = ScenarioFromImport(in.model, "backtest");
  if (!scenario) return scenario.error();
  in.scenario = std::move(*scenario);
  in.scenario.run.duration = static_cast<SimTime>(std::llround(grid.windows * grid.window_s * 1e9));
  in.scenario.run.warmup = 0;
  // The pods the export shows were serving when the test window began: no pull, no load.
  for (Workload& w : in.scenario.workloads) {
    w.image_pull = 0;
    w.model_load = 0;
  }
  in.cluster = BuildCluster(in.scenario);
  for (size_t wi = 0; wi < in.model.workloads.size(); ++wi) {
    const ImportedWorkload& w = in.model.workloads[wi];
    for (const ImportedPod& p : w.pods) {
      in.workload_of_pod[{w.spec.namespace_, p.name}] = static_cast<int>(wi);
      in.node_of_pod[w.spec.namespace_ + "/" + p.name] = p.node;
    }
  }
  for (const PodLatency& l : in.test.latencies)
    if (const auto at = in.workload_of_pod.find(l.pod); at != in.workload_of_pod.end())
      in.test_latency[at->second].push_back(&l);
  for (const PodLatency& l : in.train.latencies)
    if (const auto at = in.workload_of_pod.find(l.pod); at != in.workload_of_pod.end())
      in.train_latency[at->second].push_back(&l);
  in.bucket_le.resize(in.scenario.workloads.size());
  for (const auto& [wi, pods] : in.test_latency) in.bucket_le[wi] = CommonBuckets(pods);
  return in;
}

RunOptions ReplayRunOptions(const Inputs& in, std::span<const int> workloads, SimTime step) {
  RunOptions run;
  run.timeline_step = step;
  for (const int wi : workloads) {
    std::vector<double> bounds_ms;
    for (double bound : in.bucket_le[wi])
      if (std::isfinite(bound)) bounds_ms.push_back(bound * 1e3);
    run.timeline_latency_bounds_ms.push_back(std::move(bounds_ms));
  }
  return run;
}

// The replications as independent parts (independent_parts.h), each part of each replication one
// job; the timelines merged per replication. nullopt when a replication's placement cannot be
// split, or a part's pods did not stay where they started (the split would not be exact).
std::optional<std::vector<RunResult>> SimulateParts(const Inputs& in, const BacktestOptions& o,
                                                    SimTime step) {
  const int reps = o.replications;
  std::vector<Scenario> placed;
  std::vector<ScenarioParts> parts;
  struct Job {
    int replication = 0, part = 0;
  };
  std::vector<Job> jobs;
  for (int r = 0; r < reps; ++r) {
    placed.push_back(PlacedAtStart(in.scenario, ReplicationSeed(o.seed, r)));
    std::optional<ScenarioParts> split = SplitIndependent(placed.back(), o.max_parts, nullptr);
    if (!split) return std::nullopt;
    parts.push_back(std::move(*split));
  }
  // The heaviest parts (the first of each replication) first, so the last jobs are short.
  for (int k = 0;; ++k) {
    bool any = false;
    for (int r = 0; r < reps; ++r) {
      if (k >= static_cast<int>(parts[r].workloads.size())) continue;
      jobs.push_back({r, k});
      any = true;
    }
    if (!any) break;
  }
  std::vector<RunResult> runs(jobs.size());
  std::vector<char> stayed(jobs.size(), 1);
  RunJobs(
      static_cast<int>(jobs.size()), o.threads,
      [&](int j) {
        const Job& job = jobs[j];
        const ScenarioParts& split = parts[job.replication];
        const Scenario part = PartScenario(placed[job.replication], split, job.part);
        RunResult run = knobsim::Simulate(part, ReplicationSeed(o.seed, job.replication),
                                          ReplayRunOptions(in, split.workloads[job.part], step));
        stayed[j] = PodsStayed(part, run);
        runs[j].timeline = std::move(run.timeline);
        KeepOwnCards(split, job.part, runs[j].timeline);
      },
      o.progress);
  if (std::find(stayed.begin(), stayed.end(), 0) != stayed.end()) return std::nullopt;
  std::vector<RunResult> merged(static_cast<size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    std::vector<RunResult> of_replication(parts[r].workloads.size());
    for (size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].replication == r) of_replication[jobs[j].part] = std::move(runs[j]);
    merged[r].timeline = MergePartTimelines(in.scenario, parts[r], of_replication);
  }
  return merged;
}

// The replications of the test window, each with a timeline of one step per comparison window
// that counts the successes into the measured histogram's buckets where there is one. Split into
// independent parts when the scenario allows it (the same numbers, on every core).
std::vector<RunResult> Simulate(const Inputs& in, const BacktestOptions& o, SimTime step) {
  std::vector<int> all(in.scenario.workloads.size());
  std::iota(all.begin(), all.end(), 0);
  const RunOptions whole = ReplayRunOptions(in, all, step);
  RunSetOptions run;
  run.replications = o.replications;
  run.seed = o.seed;
  run.threads = o.threads;
  run.progress = o.progress;
  run.timeline_step = step;
  run.limits = o.limits;
  run.simulate = [&whole](const Scenario& s, uint64_t seed) {
    return knobsim::Simulate(s, seed, whole);
  };
  if (Status s = CheckRunSetLimits(in.scenario, run); !s) throw std::invalid_argument(s.ToString());
  if (o.max_parts > 1) {
    if (std::optional<std::vector<RunResult>> runs = SimulateParts(in, o, step))
      return std::move(*runs);
  }
  RunSetResult result = RunSet(in.scenario, run);
  return std::move(result.variants.front().runs);
}

// Window k's p99 as histogram_quantile reads it from the successes of every replication counted
// into the buckets `le` (seconds, +Inf last); NaN without a success.
double BucketP99Ms(const std::vector<RunResult>& runs, int wi, size_t k,
                   const std::vector<double>& le) {
  std::vector<double> cumulative(le.size(), 0.0);
  for (const RunResult& run : runs) {
    const std::vector<TimelinePoint>& points = run.timeline.workloads[wi].points;
    if (k >= points.size()) continue;
    const TimelinePoint& p = points[k];
    for (size_t i = 0; i + 1 < le.size() && i < p.latency_at_or_below.size(); ++i)
      cumulative[i] += static_cast<double>(p.latency_at_or_below[i]);
    cumulative.back() += static_cast<double>(p.completed);
  }
  return cumulative.back() > 0 ? HistogramQuantile(0.99, le, cumulative) * 1e3 : kNaN;
}

const CardTimelineStats* FindCard(const TimelineStats& t, const std::string& node,
                                  const std::string& gpu) {
  for (const CardTimelineStats& c : t.cards)
    if (c.node == node && std::to_string(c.index) == gpu) return &c;
  return nullptr;
}

double MeanOf(const std::vector<double>& values) {
  double sum = 0;
  int n = 0;
  for (double v : values)
    if (std::isfinite(v)) sum += v, ++n;
  return n > 0 ? sum / n : kNaN;
}

double StandardDeviation(const std::vector<double>& values) {
  const double mean = MeanOf(values);
  double sum = 0;
  int n = 0;
  for (double v : values)
    if (std::isfinite(v)) sum += (v - mean) * (v - mean), ++n;
  return n > 1 ? std::sqrt(sum / (n - 1)) : 0;
}

void CompareCards(const Inputs& in, const WindowGrid& grid, const TrustRules& rules,
                  BacktestReport& report) {
  std::map<std::string, const CardUtilization*> train_of;
  for (const CardUtilization& cu : in.train.cards) train_of[cu.card.ToString()] = &cu;
  for (const CardUtilization& cu : in.test.cards) {
    const CardTimelineStats* sim = FindCard(in.timeline, cu.card.node, cu.card.gpu);
    if (sim == nullptr) {
      report.notes.push_back(cu.card.ToString() +
                             ": measured, but no card of the imported cluster has that node and "
                             "index; left out");
      continue;
    }
    CardBacktest c;
    c.node = sim->node;
    c.index = sim->index;
    c.gpu = sim->gpu;
    c.metric = cu.metric;
    const auto idle = in.model.card_idle_busy.find(cu.card.node + "/" + cu.card.gpu);
    c.idle_busy = idle != in.model.card_idle_busy.end() ? idle->second : 0;
    c.measured = WindowMeans(cu.times, cu.busy, grid);
    const auto train = train_of.find(cu.card.ToString());
    const double train_mean = train != train_of.end() ? MeanOf(train->second->busy) : kNaN;
    for (int k = 0; k < grid.windows; ++k) {
      const bool have = static_cast<size_t>(k) < sim->points.size();
      c.predicted.push_back(have ? std::min(1.0, sim->points[k].busy.mean + c.idle_busy) : kNaN);
      c.predicted_ci95.push_back(have ? sim->points[k].busy.half_width : kNaN);
      c.train_mean.push_back(train_mean);
    }
    const bool varies = StandardDeviation(c.measured) >= rules.min_r2_spread;
    c.r2 = varies ? RSquared(c.measured, c.predicted) : kNaN;
    c.mae = MeanAbsoluteError(c.measured, c.predicted);
    c.train_mean_r2 = varies ? RSquared(c.measured, c.train_mean) : kNaN;
    c.train_mean_mae = MeanAbsoluteError(c.measured, c.train_mean);
    report.cards.push_back(std::move(c));
  }
}

// The fitted GPU seconds of one request of pod `pod` on its node's card (NaN when unknown).
double ServiceSeconds(const Inputs& in, const std::string& pod, const Workload& w) {
  const auto node = in.node_of_pod.find(pod);
  if (node == in.node_of_pod.end()) return kNaN;
  for (const Card& card : in.cluster.cards)
    if (in.cluster.nodes[card.node].name == node->second && card.gpu && card.gpu->speed > 0)
      return w.work.mean_s / card.gpu->speed;
  return kNaN;
}

// Per window, the rate-weighted mean over the workload's pods of an M/M/1 queue's mean and p99
// sojourn (S / (1 - ρ), S ln 100 / (1 - ρ)) at each pod's measured rate.
void Mm1Baseline(const Inputs& in, int wi, const WindowGrid& grid, WorkloadBacktest& out) {
  const Workload& spec = in.scenario.workloads[wi];
  const auto n = static_cast<size_t>(grid.windows);
  std::vector<double> weight(n, 0), mean(n, 0), p99(n, 0);
  for (const PodRate& r : in.test.rates) {
    const auto at = in.workload_of_pod.find(r.pod);
    if (at == in.workload_of_pod.end() || at->second != wi) continue;
    const double s = ServiceSeconds(in, PodId(r.pod), spec);
    if (!std::isfinite(s)) continue;
    const std::vector<double> rate = WindowMeans(r.times, r.rate, grid);
    for (size_t k = 0; k < n; ++k) {
      if (!std::isfinite(rate[k]) || rate[k] <= 0) continue;
      const double sojourn = s / (1 - std::min(kMm1MaxLoad, rate[k] * s));
      weight[k] += rate[k];
      mean[k] += rate[k] * sojourn;
      p99[k] += rate[k] * sojourn * std::log(100.0);
    }
  }
  for (size_t k = 0; k < n; ++k) {
    out.mm1_mean_ms.push_back(weight[k] > 0 ? mean[k] / weight[k] * 1e3 : kNaN);
    out.mm1_p99_ms.push_back(weight[k] > 0 ? p99[k] / weight[k] * 1e3 : kNaN);
  }
}

void CompareLatency(const Inputs& in, const BacktestOptions& o, const WindowGrid& grid,
                    BacktestReport& report) {
  WindowGrid train_grid{o.train.from, grid.window_s,
                        static_cast<int>(std::floor(o.train.length() / grid.window_s))};
  const std::vector<const PodLatency*> none;
  for (const auto& [wi, pods] : in.test_latency) {
    const Workload& spec = in.scenario.workloads[wi];
    const WorkloadTimelineStats& sim = in.timeline.workloads[wi];
    const WindowLatency measured = LatencyWindows(pods, grid);
    const auto train_pods = in.train_latency.find(wi);
    const WindowLatency train = LatencyWindows(
        train_pods != in.train_latency.end() ? train_pods->second : none, train_grid);
    const std::vector<double>& le = in.bucket_le[wi];
    WorkloadBacktest w;
    w.p99_through_buckets = !le.empty();
    w.id = spec.namespace_ + "/" + spec.name;
    w.latency_source = measured.source;
    w.work_s = spec.work.mean_s;
    w.measured_requests = measured.requests;
    w.measured_mean_ms = measured.mean_ms;
    w.measured_p99_ms = measured.p99_ms;
    const double train_mean = FiniteMedian(train.mean_ms), train_p99 = FiniteMedian(train.p99_ms);
    for (int k = 0; k < grid.windows; ++k) {
      const bool have = static_cast<size_t>(k) < sim.points.size();
      const TimelinePointStats* p = have ? &sim.points[k] : nullptr;
      const bool latency = p && p->latency_replications > 0;
      w.predicted_requests.push_back(p ? p->arrivals.mean : kNaN);
      w.predicted_mean_ms.push_back(latency ? p->latency_mean_ms.mean : kNaN);
      w.predicted_p99_requests_ms.push_back(latency ? p->latency_p99_ms.mean : kNaN);
      w.predicted_p99_ms.push_back(!latency ? kNaN
                                   : w.p99_through_buckets
                                       ? BucketP99Ms(in.runs, wi, static_cast<size_t>(k), le)
                                       : p->latency_p99_ms.mean);
      w.train_median_mean_ms.push_back(train_mean);
      w.train_median_p99_ms.push_back(train_p99);
    }
    Mm1Baseline(in, wi, grid, w);
    w.mdape_mean = MedianAbsolutePercentageError(w.measured_mean_ms, w.predicted_mean_ms);
    w.mdape_p99 = MedianAbsolutePercentageError(w.measured_p99_ms, w.predicted_p99_ms);
    w.train_median_mdape_mean =
        MedianAbsolutePercentageError(w.measured_mean_ms, w.train_median_mean_ms);
    w.train_median_mdape_p99 =
        MedianAbsolutePercentageError(w.measured_p99_ms, w.train_median_p99_ms);
    w.mm1_mdape_mean = MedianAbsolutePercentageError(w.measured_mean_ms, w.mm1_mean_ms);
    w.mm1_mdape_p99 = MedianAbsolutePercentageError(w.measured_p99_ms, w.mm1_p99_ms);
    if (!measured.p99_exact)
      report.notes.push_back(w.id +
                             ": p99 per window is the request-weighted mean of the "
                             "samples' p99 (no common histogram buckets to add up)");
    report.workloads.push_back(std::move(w));
  }
}

// The visible quota of the pod on a card of `node` (0 when unknown).
double QuotaMib(const Inputs& in, const PodKey& pod) {
  const auto wi = in.workload_of_pod.find(pod);
  const auto node = in.node_of_pod.find(PodId(pod));
  if (wi == in.workload_of_pod.end() || node == in.node_of_pod.end()) return 0;
  const Workload& w = in.scenario.workloads[wi->second];
  for (const Card& card : in.cluster.cards) {
    if (in.cluster.nodes[card.node].name != node->second || !card.gpu) continue;
    if (w.whole_gpus > 0) return static_cast<double>(card.gpu->memory_mib);
    if (w.gpu_mem > 0)
      return static_cast<double>(
          VisibleQuotaMib(card.gpu->memory_mib, w.gpu_mem / std::max(1, w.gpu_count), card.units));
  }
  return 0;
}

void CompareMemory(const Inputs& in, const TrustRules& rules, BacktestReport& report) {
  std::map<std::pair<PodKey, std::string>, double> train_peak;
  for (const PodMemoryPeak& m : in.train.pod_memory)
    train_peak[{m.pod, m.card.ToString()}] = m.peak_mib;
  for (const PodMemoryPeak& m : in.test.pod_memory) {
    MemoryBacktest b;
    b.pod = PodId(m.pod);
    b.card = m.card.ToString();
    b.test_peak_mib = m.peak_mib;
    const auto train = train_peak.find({m.pod, b.card});
    b.train_peak_mib = train != train_peak.end() ? train->second : kNaN;
    b.quota_mib = QuotaMib(in, m.pod);
    b.over_train_peak = std::isfinite(b.train_peak_mib) &&
                        b.test_peak_mib > b.train_peak_mib * (1 + rules.memory_margin);
    b.over_quota = b.quota_mib > 0 && b.test_peak_mib > b.quota_mib * (1 + rules.memory_margin);
    report.memory.push_back(std::move(b));
  }
}

void Summarize(BacktestReport& r) {
  BacktestSummary& s = r.summary;
  std::vector<double> r2, mae, base_r2, base_mae;
  for (const CardBacktest& c : r.cards) {
    r2.push_back(c.r2);
    mae.push_back(c.mae * 100);
    base_r2.push_back(c.train_mean_r2);
    base_mae.push_back(c.train_mean_mae * 100);
    s.cards_with_r2 += std::isfinite(c.r2) ? 1 : 0;
  }
  s.cards = static_cast<int>(r.cards.size());
  s.r2_median = FiniteMedian(r2);
  s.mae_pp_median = FiniteMedian(mae);
  s.train_mean_r2_median = FiniteMedian(base_r2);
  s.train_mean_mae_pp_median = FiniteMedian(base_mae);
  // Latency pools every workload's windows: a workload with more windows of traffic says more.
  std::vector<double> mean, p99, base_mean, base_p99, mm1_mean, mm1_p99;
  auto pool = [](std::vector<double>& into, const std::vector<double>& m,
                 const std::vector<double>& p) {
    const std::vector<double> e = AbsolutePercentageErrors(m, p);
    into.insert(into.end(), e.begin(), e.end());
  };
  for (const WorkloadBacktest& w : r.workloads) {
    pool(mean, w.measured_mean_ms, w.predicted_mean_ms);
    pool(p99, w.measured_p99_ms, w.predicted_p99_ms);
    pool(base_mean, w.measured_mean_ms, w.train_median_mean_ms);
    pool(base_p99, w.measured_p99_ms, w.train_median_p99_ms);
    pool(mm1_mean, w.measured_mean_ms, w.mm1_mean_ms);
    pool(mm1_p99, w.measured_p99_ms, w.mm1_p99_ms);
  }
  s.workloads = static_cast<int>(r.workloads.size());
  s.mdape_mean = FiniteMedian(mean);
  s.mdape_p99 = FiniteMedian(p99);
  s.train_median_mdape_mean = FiniteMedian(base_mean);
  s.train_median_mdape_p99 = FiniteMedian(base_p99);
  s.mm1_mdape_mean = FiniteMedian(mm1_mean);
  s.mm1_mdape_p99 = FiniteMedian(mm1_p99);
  s.memory_pods = static_cast<int>(r.memory.size());
  for (const MemoryBacktest& m : r.memory) {
    s.over_train_peak += m.over_train_peak ? 1 : 0;
    s.over_quota += m.over_quota ? 1 : 0;
  }
}

Verdict UtilizationVerdict(const BacktestSummary& s, const TrustRules& rules) {
  Verdict v{"utilization", false, ""};
  if (s.cards == 0) {
    v.why = "no card had measured utilization in the test window";
    return v;
  }
  const bool r2_ok = std::isfinite(s.r2_median) && s.r2_median >= rules.min_r2;
  const bool mae_ok = std::isfinite(s.mae_pp_median) && s.mae_pp_median <= rules.max_mae_pp;
  const bool beats =
      !std::isfinite(s.train_mean_mae_pp_median) || s.mae_pp_median < s.train_mean_mae_pp_median;
  v.trust = mae_ok && beats && (r2_ok || s.cards_with_r2 == 0);
  v.why = "median R² " + Fixed(s.r2_median, 3) + " over the " + std::to_string(s.cards_with_r2) +
          " cards whose load varied (needs ≥ " + Fixed(rules.min_r2, 2) + "), median MAE " +
          Fixed(s.mae_pp_median, 2) + " points (needs ≤ " + Fixed(rules.max_mae_pp, 1) +
          "; the train-window mean gets " + Fixed(s.train_mean_mae_pp_median, 2) + ")";
  if (!beats) v.why += ": no better than assuming the train-window mean";
  return v;
}

Verdict LatencyVerdict(const BacktestSummary& s, const TrustRules& rules) {
  Verdict v{"latency", false, ""};
  if (s.workloads == 0) {
    v.why = "no measured latency (give --latency-metric)";
    return v;
  }
  const double best_naive = std::min(
      std::isfinite(s.train_median_mdape_mean) ? s.train_median_mdape_mean
                                               : std::numeric_limits<double>::infinity(),
      std::isfinite(s.mm1_mdape_mean) ? s.mm1_mdape_mean : std::numeric_limits<double>::infinity());
  const bool ok = std::isfinite(s.mdape_mean) && s.mdape_mean <= rules.max_latency_mdape;
  const bool beats = s.mdape_mean < best_naive;
  v.trust = ok && beats;
  v.why = "mean latency MdAPE " + Pct(s.mdape_mean) + " (needs ≤ " + Pct(rules.max_latency_mdape) +
          "), p99 " + Pct(s.mdape_p99) + "; train-window median " + Pct(s.train_median_mdape_mean) +
          ", per-pod M/M/1 " + Pct(s.mm1_mdape_mean);
  if (!beats) v.why += ": a naive predictor does as well";
  return v;
}

Verdict MemoryVerdict(const BacktestSummary& s) {
  Verdict v{"memory", s.over_train_peak == 0, ""};
  if (s.memory_pods == 0) {
    v.trust = false;
    v.why = "no per-pod GPU memory in the test window";
    return v;
  }
  v.why = std::to_string(s.over_train_peak) + " of " + std::to_string(s.memory_pods) +
          " pod-cards rose above their train-window peak (a quota sized from the train window "
          "would have failed them), " +
          std::to_string(s.over_quota) + " above their visible quota";
  return v;
}

}  // namespace

Expected<BacktestReport> RunBacktest(const KubeObjects& objects,
                                     std::span<const PromResult> results,
                                     const BacktestOptions& options) {
  const WindowGrid grid{options.test.from, options.window_s, Windows(options)};
  if (Status s = CheckBacktestOptions(options); !s) return s.error();
  BacktestReport report;
  report.evidence = EvidenceFingerprint(objects, results);
  report.train = options.train;
  report.test = options.test;
  report.window_s = options.window_s;
  report.windows = grid.windows;
  report.replications = options.replications;
  report.seed = options.seed;
  Expected<Inputs> in = Prepare(objects, results, options, grid, report);
  if (!in) return in.error();
  in->runs = Simulate(*in, options, static_cast<SimTime>(std::llround(options.window_s * 1e9)));
  in->timeline = SummarizeTimelines(in->runs);
  CompareCards(*in, grid, options.rules, report);
  CompareLatency(*in, options, grid, report);
  CompareMemory(*in, options.rules, report);
  Summarize(report);
  report.verdicts = {UtilizationVerdict(report.summary, options.rules),
                     LatencyVerdict(report.summary, options.rules), MemoryVerdict(report.summary)};
  return report;
}

}  // namespace knobsim::backtest
