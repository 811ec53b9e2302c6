// The request-level truth (plan.h's ChooseRequestTruth and SimulateRequests): which pods get
// one, and each such pod's requests simulated one by one.
//
// Contract: a pod gets the request-level truth when options.request_truth is set, it runs, its
// workload has traffic and a GPU, and it is alone on every card it holds (whole-GPU pods always
// are); pods that share a card keep the fluid truth. Its arrivals per truth step are a
// Markov-modulated Poisson count (request_truth.h), their times inside the step i.i.d. uniform
// (or stratified, options.arrivals_in_step); service times are gamma with mean work_s / speed
// and the workload's cv²; the pod serves FIFO one request at a time, knobsim's `concurrency: 1`,
// so each latency is exact by the Lindley recursion: start = max(arrival, previous finish).
// Counts, in-step placement and services come from three streams of the pod's own (seed,
// namespace/name), so --arrivals-in-step moves the requests inside their steps only.
// The simulation starts empty one sample step before the metrics window, so the first sample
// has its whole interval.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "tools/gen-export/plan.h"
#include "tools/gen-export/random.h"
#include "tools/gen-export/request_truth.h"
#include "tools/gen-export/vocabulary.h"

namespace knobsim::gen_export {
namespace {

// A log-spaced latency histogram for the windows' p99: 1000 bins a decade from 0.1 ms.
constexpr int kLogBinsPerDecade = 1000;
constexpr double kLogFloor = -4;
constexpr int kLogBins = 8 * kLogBinsPerDecade;

struct WindowAccumulator {
  int64_t from = 0, to = 0;  // sample timestamps [from, to)
  int64_t arrivals = 0, completions = 0, steps = 0;
  double latency_s = 0, wait_s = 0, service_s = 0, service_sq = 0, busy_s = 0;
  std::vector<uint32_t> log_hist = std::vector<uint32_t>(kLogBins, 0);

  bool Holds(int64_t ts) const { return from <= ts && ts < to; }
  void Complete(double latency, double wait, double service) {
    ++completions;
    latency_s += latency;
    wait_s += wait;
    service_s += service;
    service_sq += service * service;
    const double bin =
        std::floor((std::log10(std::max(latency, 1e-12)) - kLogFloor) * kLogBinsPerDecade);
    ++log_hist[static_cast<size_t>(std::clamp(bin, 0.0, kLogBins - 1.0))];
  }
  RequestWindowTruth Summary(int step_s) const {
    RequestWindowTruth t;
    t.arrivals = arrivals;
    t.completions = completions;
    if (steps > 0) t.mean_busy = busy_s / (static_cast<double>(steps) * step_s);
    if (completions == 0) return t;
    const double n = static_cast<double>(completions);
    t.mean_latency_s = latency_s / n;
    t.mean_wait_s = wait_s / n;
    t.mean_service_s = service_s / n;
    const double var = std::max(0.0, service_sq / n - t.mean_service_s * t.mean_service_s);
    t.service_cv2 = t.mean_service_s > 0 ? var / (t.mean_service_s * t.mean_service_s) : 0;
    const auto want = static_cast<uint64_t>(std::ceil(0.99 * n));
    uint64_t seen = 0;
    for (int b = 0; b < kLogBins; ++b) {
      seen += log_hist[static_cast<size_t>(b)];
      if (seen >= want) {
        t.p99_latency_s = std::pow(10.0, kLogFloor + (b + 0.5) / kLogBinsPerDecade);
        break;
      }
    }
    return t;
  }
};

int BucketOf(double latency) {
  for (int b = 0; b + 1 < kLatencyBucketCount; ++b) {
    if (latency <= kLatencyBuckets[b]) return b;
  }
  return kLatencyBucketCount - 1;
}

// Adds the busy interval [from, to) (seconds since the series' start) to the steps it covers.
void AddBusy(std::vector<double>& busy_s, double from, double to, int step) {
  const auto steps = static_cast<int64_t>(busy_s.size());
  for (auto i = static_cast<int64_t>(from / step); i < steps; ++i) {
    const double lo = std::max(from, static_cast<double>(i * step));
    const double hi = std::min(to, static_cast<double>((i + 1) * step));
    if (hi <= lo) break;
    busy_s[static_cast<size_t>(i)] += hi - lo;
  }
}

Rng PodStream(const GeneratorOptions& o, const TruthPod& pod, std::string_view purpose) {
  return Rng(
      Mix64(o.seed ^ HashText(std::string(purpose) + "/" + pod.namespace_ + "/" + pod.name)));
}

class PodSimulation {
 public:
  PodSimulation(const GeneratorOptions& o, const TruthPod& pod, const TruthWorkload& w,
                double speed, RequestSeries& series, std::vector<WindowAccumulator>& windows)
      : o_(o),
        w_(w),
        series_(series),
        windows_(windows),
        counts_(PodStream(o, pod, "arrivals")),
        placing_(PodStream(o, pod, "in-step")),
        services_(PodStream(o, pod, "service")),
        mean_service_s_(w.work_s / speed) {}

  void Run() {
    const auto steps = static_cast<int64_t>(series_.arrivals.size());
    const int step = series_.step_s;
    const double p_end = 1 - std::exp(-step / kBurstMeanS);
    const double p_start = 1 - std::exp(-step / kBurstGapMeanS);
    bool burst = counts_.Chance(kBurstShare);
    std::vector<double> times;
    for (int64_t i = 0; i < steps; ++i) {
      if (i > 0) burst = burst ? !counts_.Chance(p_end) : counts_.Chance(p_start);
      const int64_t mid = series_.start_unix + i * step + step / 2;
      const double rate = w_.pod_mean_rate * DiurnalFactor(w_, mid) *
                          (burst ? kBurstMultiplier : 1.0) / kMeanModulation;
      Arrivals(static_cast<double>(i * step), step, rate, times);
      series_.arrivals[static_cast<size_t>(i)] = static_cast<int32_t>(times.size());
      const int64_t ts = series_.start_unix + (i + 1) * step;
      for (WindowAccumulator& acc : windows_) {
        if (acc.Holds(ts)) acc.arrivals += static_cast<int64_t>(times.size());
      }
      for (double a : times) Serve(a);
    }
    for (int64_t i = 0; i < steps; ++i) {
      const int64_t ts = series_.start_unix + (i + 1) * step;
      for (WindowAccumulator& acc : windows_) {
        if (!acc.Holds(ts)) continue;
        acc.busy_s += series_.busy_s[static_cast<size_t>(i)];
        ++acc.steps;
      }
    }
  }

 private:
  // The step's arrivals, in order: a Poisson count (exponential gaps at `rate` until the step
  // ends), at the times the gaps give (i.i.d. uniform given the count) or stratified.
  void Arrivals(double t0, int step, double rate, std::vector<double>& times) {
    times.clear();
    if (!(rate > 0)) return;
    const double end = t0 + step;
    for (double t = t0 + counts_.Exponential() / rate; t < end; t += counts_.Exponential() / rate)
      times.push_back(t);
    if (o_.arrivals_in_step == ArrivalsInStep::kStratified) {
      const auto n = static_cast<double>(times.size());
      for (size_t k = 0; k < times.size(); ++k)
        times[k] = t0 + (static_cast<double>(k) + placing_.Unit()) / n * step;
    }
  }

  // One request arriving at `a` (seconds since the series' start), FIFO behind the others.
  void Serve(double a) {
    const double cv2 = w_.service_cv2;
    const double service =
        cv2 > 0 ? mean_service_s_ * cv2 * services_.Gamma(1 / cv2) : mean_service_s_;
    const double start = std::max(a, free_at_);
    const double finish = start + service;
    free_at_ = finish;
    AddBusy(series_.busy_s, start, finish, series_.step_s);
    const auto c = static_cast<int64_t>(finish / series_.step_s);
    if (c >= static_cast<int64_t>(series_.completions.size())) return;  // after the window
    const double latency = finish - a;
    const auto ci = static_cast<size_t>(c);
    ++series_.completions[ci];
    series_.latency_sum_s[ci] += latency;
    ++series_.bucket_counts[ci * kLatencyBucketCount + static_cast<size_t>(BucketOf(latency))];
    const int64_t ts = series_.start_unix + (c + 1) * series_.step_s;
    for (WindowAccumulator& acc : windows_) {
      if (acc.Holds(ts)) acc.Complete(latency, start - a, service);
    }
  }

  const GeneratorOptions& o_;
  const TruthWorkload& w_;
  RequestSeries& series_;
  std::vector<WindowAccumulator>& windows_;
  // One stream each for the counts, the stratified placement and the services, so that the
  // in-step rule changes where requests fall but neither the counts nor the work drawn.
  Rng counts_, placing_, services_;
  double mean_service_s_;
  double free_at_ = 0;
};

int MetricsStep(const GeneratorOptions& o) {
  return o.metrics_step_s == 0 ? o.step_s : o.metrics_step_s;
}
int RateStep(const GeneratorOptions& o) {
  return o.rate_step_s == 0 ? MetricsStep(o) : o.rate_step_s;
}

// The backtest's split point: the last `split` of the metrics window, on a boundary of both
// sample steps, and at least one of their common steps on either side.
void SetWindows(const GeneratorOptions& o, GroundTruth& truth) {
  const int days = o.metrics_days == 0 ? o.days : o.metrics_days;
  const int64_t from = truth.end_unix - days * kDay;
  if (!(o.backtest_split > 0)) return;
  const int64_t unit = std::lcm(int64_t{MetricsStep(o)}, int64_t{RateStep(o)});
  const int64_t units = (truth.end_unix - from) / unit;
  const int64_t train = std::clamp<int64_t>(
      std::llround((1 - o.backtest_split) * static_cast<double>(units)), 1, units - 1);
  truth.train_from = from;
  truth.train_to = truth.test_from = from + train * unit;
  truth.test_to = truth.end_unix;
}

}  // namespace

void ChooseRequestTruth(Plan& plan) {
  if (!plan.o.request_truth) return;
  std::vector<bool> marked(plan.workloads.size(), false);
  for (PodPlan& pod : plan.pods) {
    const TruthWorkload& t = plan.workloads[pod.workload].truth;
    if (pod.node < 0 || !t.gpu || !t.has_traffic || pod.cards.empty()) continue;
    bool alone = true;
    for (int c : pod.cards) alone = alone && plan.cards[c].pods == 1;
    pod.request_truth = alone;
    if (alone) marked[static_cast<size_t>(pod.workload)] = true;
  }
  for (size_t wi = 0; wi < plan.workloads.size(); ++wi) {
    if (!marked[wi]) continue;
    TruthWorkload& t = plan.workloads[wi].truth;
    Rng rng(Mix64(plan.o.seed ^ HashText("service-cv2/" + t.namespace_ + "/" + t.name)));
    t.request_truth = true;
    t.service_cv2 = std::round(rng.Between(kServiceCv2Min, kServiceCv2Max) * 100) / 100;
    t.pod_mean_rate /= kBurstPeakFactor;
  }
}

void SimulateRequests(const GeneratorOptions& o, GroundTruth& truth) {
  SetWindows(o, truth);
  for (TruthCard& card : truth.cards) {
    bool served = false;
    for (int p : card.pods) served = served || truth.workloads[truth.pods[p].workload].has_traffic;
    if (!served || !(o.idle_floor > 0)) continue;
    Rng rng(Mix64(o.seed ^ HashText("idle-floor/" + card.uuid)));
    card.idle_floor = std::round(o.idle_floor * rng.Between(kIdleFloorLow, 1) * 1000) / 1000;
  }
  const int days = o.metrics_days == 0 ? o.days : o.metrics_days;
  const int64_t metrics_from = truth.end_unix - days * kDay;
  const int64_t lead = std::max(MetricsStep(o), RateStep(o));
  const int64_t start = metrics_from - lead;
  const auto steps = static_cast<size_t>((truth.end_unix - start) / o.step_s);
  for (TruthPod& pod : truth.pods) {
    if (!pod.requests) continue;
    RequestSeries& r = *pod.requests;
    r.start_unix = start;
    r.step_s = o.step_s;
    r.arrivals.assign(steps, 0);
    r.busy_s.assign(steps, 0);
    r.completions.assign(steps, 0);
    r.latency_sum_s.assign(steps, 0);
    r.bucket_counts.assign(steps * kLatencyBucketCount, 0);
    std::vector<WindowAccumulator> windows(3);
    windows[0].from = metrics_from;
    windows[0].to = truth.end_unix;
    windows[1].from = truth.train_from;
    windows[1].to = truth.train_to;
    windows[2].from = truth.test_from;
    windows[2].to = truth.test_to;
    const TruthWorkload& w = truth.workloads[static_cast<size_t>(pod.workload)];
    const double speed = truth.cards[static_cast<size_t>(pod.cards.front())].speed;
    PodSimulation(o, pod, w, speed, r, windows).Run();
    r.all = windows[0].Summary(o.step_s);
    r.train = windows[1].Summary(o.step_s);
    r.test = windows[2].Summary(o.step_s);
    double peak = 0;
    for (size_t i = 0; i < steps; ++i) {
      if (windows[0].Holds(start + static_cast<int64_t>(i + 1) * o.step_s))
        peak = std::max(peak, r.busy_s[i] / o.step_s);
    }
    for (int c : pod.cards) {
      TruthCard& card = truth.cards[static_cast<size_t>(c)];
      card.request_truth = true;
      card.mean_busy = r.all.mean_busy;
      card.peak_busy = std::min(1.0, peak);
    }
  }
}

}  // namespace knobsim::gen_export
