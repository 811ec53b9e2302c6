// Metrics -> GPU memory, traffic and work per request (import_steps.h, ImportMetrics).
#include <algorithm>
#include <charconv>
#include <cmath>

#include "models/work_fit.h"
#include "sim/import/import_steps.h"
#include "sim/import/scenario_writer.h"
#include "sim/text.h"

namespace knobsim {
using namespace import_text;

namespace {

int CardNumber(const std::string& gpu) {
  int card = -1;
  std::from_chars(gpu.data(), gpu.data() + gpu.size(), card);
  return card;
}

// What the fit is asked: the cards whose busy is linear in the rates and the pods on them.
struct FitProblem {
  double step = 0;                      // seconds per row
  std::vector<int> workload_of_column;  // fit column -> workload index
  std::vector<FitCard> cards;
  std::vector<std::string> card_keys;             // per card: "node/index", card_idle_busy's key
  std::vector<const CardUtilization*> raw_cards;  // per card, the samples before binning
  std::vector<FitPod> pods;
  std::vector<const PodRate*> raw_pods;  // per pod
  std::vector<std::string> left_out;     // cards not linear under the POLICY
  std::string bin_why;                   // how the row length was chosen (ChooseFitBin)
};

// Rows are means over the bin ChooseFitBin gives (at least the coarsest series' step): rate
// samples carry Poisson noise, and noise in a regressor biases least squares low (errors in
// variables); averaging keeps the equation exact, since busy is linear in the rates.
FitProblem BuildFit(const KubeObjects& objects, const Metrics& metrics, const NodeIndex& nodes,
                    const PodIndex& pods, const RateIndex& rates, const GpuCatalog& catalog,
                    const ImportOptions& options, ImportModel& model) {
  FitProblem fit;
  const double start = options.window_start, end = options.window_end;
  // Rows per card are counted at the coarsest series' step over the span the card has samples.
  double sample_step = 0;
  std::vector<double> card_spans;
  for (const CardUtilization& cu : metrics.cards) {
    sample_step = std::max(sample_step, MedianStep(cu.times));
    double first = INFINITY, last = -INFINITY;
    for (double t : cu.times)
      if (t >= start && t <= end) {
        first = std::min(first, t);
        last = std::max(last, t);
      }
    card_spans.push_back(last >= first ? last - first : 0);
  }
  for (const PodRate& r : metrics.rates) sample_step = std::max(sample_step, MedianStep(r.times));
  std::vector<int> card_samples;
  for (double span : card_spans)
    card_samples.push_back(sample_step > 0 ? static_cast<int>(span / sample_step + 1e-9) + 1 : 1);
  fit.step = ChooseFitBin(options, sample_step, card_samples, &fit.bin_why);
  std::vector<int> column(model.workloads.size(), -1);
  for (size_t wi = 0; wi < model.workloads.size(); ++wi)
    if (!rates.of_workload[wi].empty()) {
      column[wi] = static_cast<int>(fit.workload_of_column.size());
      fit.workload_of_column.push_back(static_cast<int>(wi));
    }
  if (!(fit.step > 0) || fit.workload_of_column.empty()) return fit;
  const int bins = std::max(1, static_cast<int>(std::ceil((end - start) / fit.step - 1e-9)));
  std::map<int, int> fit_pod_of;
  for (const CardUtilization& cu : metrics.cards) {
    const int gpu = CardNumber(cu.card.gpu);
    if (!nodes.pool_of_node.count(cu.card.node)) {
      model.warnings.push_back("metrics for card " + cu.card.ToString() +
                               " on a node absent from the export; not used");
      continue;
    }
    static const std::vector<int> kNoPods;
    const auto held = pods.card_pods.find({cu.card.node, gpu});
    const std::vector<int>& on_card = held == pods.card_pods.end() ? kNoPods : held->second;
    bool exclusive = false;
    for (int i : on_card) exclusive = exclusive || objects.pods[i].whole_gpus > 0;
    const std::string cname = cu.card.node + "/gpu" + cu.card.gpu;
    if (!FitEligible(options.policy, options.switch_overhead, exclusive,
                     static_cast<int>(on_card.size()))) {
      fit.left_out.push_back(cname);
      continue;
    }
    FitCard fc;
    fc.name = cname;
    if (const GpuType* t = catalog.Find(nodes.gpu_of_node.at(cu.card.node))) fc.speed = t->speed;
    fc.busy = Bin(cu.times, cu.busy, start, fit.step, bins);
    fit.card_keys.push_back(cu.card.node + "/" + cu.card.gpu);
    fit.raw_cards.push_back(&cu);
    for (int i : on_card) {
      auto r = rates.of_pod.find(i);
      if (r == rates.of_pod.end()) continue;  // no requests measured: assumed idle
      auto [it, fresh] = fit_pod_of.emplace(i, static_cast<int>(fit.pods.size()));
      if (fresh) {
        const PodSpec& p = objects.pods[i];
        FitPod fp;
        fp.workload = column[pods.workload_of.at(PodKey{p.namespace_, p.name}).first];
        fp.rate = Bin(r->second->times, r->second->rate, start, fit.step, bins);
        for (double& x : fp.rate)
          if (!std::isfinite(x)) x = 0;  // no sample: the pod was not serving
        fit.pods.push_back(std::move(fp));
        fit.raw_pods.push_back(r->second);
      }
      fc.pods.push_back(it->second);
    }
    fit.cards.push_back(std::move(fc));
  }
  return fit;
}

// The share of a binned rate's variance that is measurement noise busy does not follow: the
// seen fraction of its sample-to-sample changes is cov(Δbusy, Δrate) / (work / speed × var
// Δrate) (independent noise of other pods and of busy leaves the covariance alone); the rest,
// halved (a difference holds two samples' noise) and divided by the samples per row, over the
// variance of the binned rate (ImportOptions::max_idle_attenuation).
double UnseenNoiseShare(const CardUtilization& cu, const PodRate& r, double work_per_speed,
                        double bin_s, const ImportOptions& options) {
  const double start = options.window_start, end = options.window_end;
  if (!(work_per_speed > 0)) return 0;
  const double half = MedianStep(cu.times) / 2;
  double dr2 = 0, drdb = 0;
  int k = 0;
  for (size_t i = 1; i < r.times.size(); ++i) {
    if (r.times[i - 1] < start || r.times[i] > end) continue;
    const double dr = r.rate[i] - r.rate[i - 1];
    const double db = BusyAt(cu, r.times[i], half) - BusyAt(cu, r.times[i - 1], half);
    if (!std::isfinite(dr) || !std::isfinite(db)) continue;
    dr2 += dr * dr;
    drdb += dr * db;
    ++k;
  }
  if (k < 2 || !(dr2 > 0)) return 0;
  const double seen = std::clamp(drdb / (work_per_speed * dr2), 0.0, 1.0);
  const double unseen = (1 - seen) * dr2 / k / 2;
  const double per_row = std::max(1.0, bin_s / std::max(MedianStep(r.times), 1e-9));
  const int bins = std::max(1, static_cast<int>(std::ceil((end - start) / bin_s - 1e-9)));
  double n = 0, sum = 0, sum2 = 0;
  for (double v : Bin(r.times, r.rate, start, bin_s, bins)) {
    if (!std::isfinite(v)) continue;
    n += 1;
    sum += v;
    sum2 += v * v;
  }
  const double variance = n > 1 ? (sum2 - sum * sum / n) / (n - 1) : 0;
  return variance > 0 ? unseen / per_row / variance : 0;
}

// Cards whose rates carry noise busy does not follow get no idle term (their FitCard::idle off);
// `first` is a fit without idle terms, for the work the seen fraction needs. Notes the count.
void GuardIdleTerms(const FitProblem& problem, const WorkFitResult& first,
                    const ImportOptions& options, std::vector<FitCard>& cards, ImportModel& model) {
  int off = 0;
  double worst = 0;
  std::string worst_card;
  for (size_t c = 0; c < cards.size(); ++c) {
    for (int q : cards[c].pods) {
      const double w = first.work_s[problem.pods[q].workload];
      const double share =
          UnseenNoiseShare(*problem.raw_cards[c], *problem.raw_pods[q],
                           std::isfinite(w) ? w / cards[c].speed : 0, problem.step, options);
      if (share > worst) {
        worst = share;
        worst_card = cards[c].name;
      }
      if (share > options.max_idle_attenuation) cards[c].idle = false;
    }
    off += !cards[c].idle;
  }
  if (off > 0)
    model.fit_report.push_back(
        "idle term left out on " + std::to_string(off) + " of " + std::to_string(cards.size()) +
        " cards: their rates change from sample to sample in ways busy does not follow "
        "(measurement noise), which an idle term would turn into too little work (errors in "
        "variables; noise over variation above " +
        FormatNumber("%g", options.max_idle_attenuation) + ", largest " +
        FormatNumber("%.3f", worst) + " on " + worst_card + ")");
}

// The fit's quality lines, each card's idle term and the work of each workload it identified.
void ApplyFit(const FitProblem& problem, const std::string& policy_text,
              const ImportOptions& options, ImportModel& model) {
  const int columns = static_cast<int>(problem.workload_of_column.size());
  std::vector<FitCard> cards = problem.cards;
  WorkFitOptions fit_options;
  if (options.fit_idle) {
    GuardIdleTerms(problem, FitWorkPerRequest(cards, problem.pods, columns), options, cards, model);
    fit_options.fit_idle = true;
  }
  const WorkFitResult fit = FitWorkPerRequest(cards, problem.pods, columns, fit_options);
  model.fit_report.push_back("work per request: NNLS over " + std::to_string(problem.cards.size()) +
                             " cards, " + std::to_string(fit.rows) + " samples of " +
                             Seconds(problem.step) + ", R² " + FormatNumber("%.4f", fit.r2) +
                             (fit.converged ? "" : " (did not converge)"));
  if (!problem.left_out.empty())
    model.fit_report.push_back(std::to_string(problem.left_out.size()) +
                               " shared cards left out: under " + policy_text +
                               " busy is not linear in the rates there");
  for (size_t i = 0; i < fit.cards.size(); ++i) {
    const auto& c = fit.cards[i];
    model.fit_report.push_back(
        "  " + c.name + ": RMSE " + FormatNumber("%.4f", c.rmse) + ", mean busy measured " +
        FormatNumber("%.3f", c.mean_measured) + " fitted " + FormatNumber("%.3f", c.mean_fitted) +
        (c.idle_fitted ? " (idle " + FormatNumber("%.4f", c.idle_busy) + ")" : "") +
        (c.saturated ? ", " + std::to_string(c.saturated) + " saturated samples left out" : ""));
    if (c.idle_fitted) model.card_idle_busy[problem.card_keys[i]] = c.idle_busy;
  }
  for (const std::string& n : fit.notes) model.fit_report.push_back("  note: " + n);
  for (size_t col = 0; col < problem.workload_of_column.size(); ++col) {
    ImportedWorkload& iw = model.workloads[problem.workload_of_column[col]];
    if (fit.identified[col] && std::isfinite(fit.work_s[col]) && fit.work_s[col] > 0) {
      iw.spec.work.mean_s = fit.work_s[col];
      iw.has_work = true;
      iw.notes["work"] = "fitted (NNLS, " + policy_text + "): busy = Σ rate × work / speed" +
                         (std::isfinite(fit.workloads[col].std_error_s)
                              ? ", std error " + Seconds(fit.workloads[col].std_error_s)
                              : "");
    }
  }
}

// Requests per step of a count: rounded on the running total, so the counts add up to the
// recorded requests (no step's rounding is lost).
std::vector<int64_t> RoundedCounts(const std::vector<double>& requests, int64_t& written) {
  std::vector<int64_t> values;
  values.reserve(requests.size());
  double total = 0;
  written = 0;
  for (double n : requests) {
    total += std::max(0.0, n);
    const auto upto = static_cast<int64_t>(std::llround(total));
    values.push_back(upto - written);
    written = upto;
  }
  return values;
}

// Traffic of one workload: its pods' rates summed per piece, then flat or piecewise.
// `--traffic counts`: requests per step, from each pod's mean rate over the step: per pod when
// a current pod has a series (which pod served them decides which card is busy), else summed.
void WorkloadCounts(const std::vector<const PodRate*>& rates,
                    const std::set<const PodRate*>& current, const ImportOptions& options,
                    ImportedWorkload& iw, std::vector<std::string>& warnings) {
  const double start = options.window_start, end = options.window_end;
  const std::string who = iw.spec.namespace_ + "/" + iw.spec.name;
  // A rate sample stands for the interval since the one before, so no count can be finer than
  // the series' step (the median gap, as the work fit takes it).
  double sample = 0;
  for (const PodRate* r : rates) sample = std::max(sample, MedianStep(r->times));
  double step = options.count_step_s > 0 ? options.count_step_s : sample;
  if (step <= 0) step = 60;  // a single sample: one count a minute
  if (sample > 0 && step < sample * 0.999) {
    warnings.push_back(who + ": --count-step " + Seconds(step) +
                       " is finer than the rate metric's samples (" + Seconds(sample) +
                       "); counts written per " + Seconds(sample));
    step = sample;
  }
  // A sample stamped t is the rate over (t - sample, t] (`rate(x[w])`, and a step's increase):
  // it is binned at the start of that interval, so that the replay is not one step late.
  const auto requests_of = [&](const PodRate& r) {
    std::vector<double> covers_from = r.times;
    for (double& t : covers_from) t -= sample;
    const TrafficCurve c = DownsampleTraffic(covers_from, r.rate, start, end, step, 0);
    std::vector<double> requests(c.pieces.size());
    for (size_t k = 0; k < c.pieces.size(); ++k) requests[k] = c.pieces[k].rate * step;
    return requests;
  };
  const bool per_pod = std::any_of(rates.begin(), rates.end(),
                                   [&](const PodRate* r) { return current.count(r) > 0; });
  Traffic& t = iw.spec.traffic;
  t.kind = ArrivalKind::kCounts;
  t.counts.step = static_cast<SimTime>(std::llround(step * kNanosPerSecond));
  t.counts.values.clear();
  t.counts.per_pod.clear();
  int64_t written = 0;
  std::vector<double> summed, left_out;
  std::map<std::string, std::vector<double>> of_pod;  // by name: the order of `pods:`
  for (const PodRate* r : rates) {
    const std::vector<double> requests = requests_of(*r);
    std::vector<double>& into = !per_pod           ? summed
                                : current.count(r) ? of_pod[r->pod.pod]
                                                   : left_out;
    if (into.size() < requests.size()) into.resize(requests.size(), 0.0);
    for (size_t k = 0; k < requests.size(); ++k) into[k] += requests[k];
  }
  iw.has_traffic = true;
  if (!per_pod) {
    t.counts.values = RoundedCounts(summed, written);
    iw.notes["traffic"] = "recorded requests per " + Seconds(step) +
                          " (the request rate summed over " + std::to_string(rates.size()) +
                          " pods), " + std::to_string(written) + " in all";
    return;
  }
  for (auto& [pod, requests] : of_pod) {
    int64_t n = 0;
    t.counts.per_pod.push_back({pod, 0, RoundedCounts(requests, n)});
    written += n;
  }
  // Pods gone since (replaced, scaled down) recorded requests too: the Service's counts, routed
  // among the current pods, so that the workload's load is the recorded one.
  int64_t gone = 0;
  t.counts.values = RoundedCounts(left_out, gone);
  if (gone == 0) t.counts.values.clear();
  const auto pods = [](size_t n) { return std::to_string(n) + (n == 1 ? " pod" : " pods"); };
  iw.notes["traffic"] = "recorded requests per " + Seconds(step) + " of each pod on its own (" +
                        pods(of_pod.size()) + ", each its own request rate), " +
                        std::to_string(written) + " in all";
  if (gone > 0)
    iw.notes["traffic"] += "; and at the Service (values) the " + std::to_string(gone) +
                           " requests of " + pods(rates.size() - of_pod.size()) +
                           " no longer running, routed among the current pods";
}

void WorkloadTraffic(const std::vector<const PodRate*>& rates,
                     const std::set<const PodRate*>& current, const ImportOptions& options,
                     ImportedWorkload& iw, std::vector<std::string>& warnings) {
  if (options.traffic_counts) return WorkloadCounts(rates, current, options, iw, warnings);
  const double start = options.window_start, end = options.window_end;
  TrafficCurve sum;
  for (const PodRate* r : rates) {
    TrafficCurve c = DownsampleTraffic(r->times, r->rate, start, end, options.piece_s, 0);
    if (sum.pieces.empty())
      sum.pieces = c.pieces;
    else
      for (size_t k = 0; k < sum.pieces.size(); ++k) sum.pieces[k].rate += c.pieces[k].rate;
  }
  std::vector<double> t, v;
  for (const RatePoint& rp : sum.pieces) {
    t.push_back(start + static_cast<double>(rp.at) / kNanosPerSecond);
    v.push_back(rp.rate);
  }
  const TrafficCurve curve = DownsampleTraffic(t, v, start, end, options.piece_s, options.flat_cv);
  iw.has_traffic = true;
  if (curve.flat) {
    iw.spec.traffic.kind = ArrivalKind::kPoisson;
    iw.spec.traffic.rate = curve.mean;
    iw.notes["traffic"] = "mean of the request rate over the window (" +
                          std::to_string(rates.size()) + " pods); flat within " +
                          FormatNumber("%.0f", options.flat_cv * 100) + " %: Poisson";
  } else {
    iw.spec.traffic.kind = ArrivalKind::kPiecewise;
    iw.spec.traffic.pieces = curve.pieces;
    iw.notes["traffic"] = "request rate summed over " + std::to_string(rates.size()) +
                          " pods, mean per " + Seconds(options.piece_s) + " piece; mean " +
                          FormatNumber("%.4g/s", curve.mean);
  }
}

}  // namespace

bool KnownPods::operator()(const PodKey& k) {
  if (pods_.workload_of.count(k)) return true;
  unknown_.insert(k);
  return false;
}

void CardsFromDcgm(const Metrics& metrics, const NodeIndex& nodes, KnownPods& known,
                   PodIndex& pods) {
  std::map<int, std::set<int>> dcgm_cards;
  for (const CardUtilization& cu : metrics.cards) {
    const int gpu = CardNumber(cu.card.gpu);
    if (gpu < 0 || !nodes.pool_of_node.count(cu.card.node)) continue;
    for (const PodKey& k : cu.pods) {
      if (!known(k)) continue;
      const int i = pods.workload_of.at(k).second;
      auto pl = pods.place.find(i);
      if (pl == pods.place.end() || pl->second.node != cu.card.node || !pl->second.cards.empty())
        continue;
      dcgm_cards[i].insert(gpu);
    }
  }
  for (auto& [i, cards] : dcgm_cards) {
    PodPlace& pl = pods.place[i];
    pl.cards.assign(cards.begin(), cards.end());
    for (int c : cards) pods.card_pods[{pl.node, c}].push_back(i);
  }
}

void MemoryFromPeaks(const Metrics& metrics, const NodeIndex& nodes, const PodIndex& pods,
                     KnownPods& known, const GpuCatalog& catalog, ImportModel& model) {
  std::vector<const PodMemoryPeak*> peak(model.workloads.size(), nullptr);
  for (const PodMemoryPeak& m : metrics.pod_memory) {
    if (!known(m.pod)) continue;
    const int wi = pods.workload_of.at(m.pod).first;
    if (!peak[wi] || m.peak_mib > peak[wi]->peak_mib) peak[wi] = &m;
  }
  for (size_t wi = 0; wi < model.workloads.size(); ++wi) {
    ImportedWorkload& iw = model.workloads[wi];
    if (iw.spec.gpu_mem <= 0 && iw.spec.whole_gpus <= 0) continue;
    std::string& note = iw.notes["gpu_memory"];
    if (!peak[wi]) {
      note = "default: no per-pod memory metric (weights 0, activation 0)";
      model.defaults.push_back("gpu_memory of " + iw.spec.namespace_ + "/" + iw.spec.name);
      for (const CardTotalMemory& t : metrics.card_totals)
        for (const PodKey& k : t.pods)
          if (auto at = pods.workload_of.find(k);
              at != pods.workload_of.end() && at->second.first == static_cast<int>(wi))
            note += "; card " + t.card.ToString() + " total peak " + Mib(t.peak_mib) + " over " +
                    std::to_string(t.pods.size()) + " pods";
      continue;
    }
    const PodMemoryPeak& m = *peak[wi];
    int64_t context = 0;
    if (const auto pl = pods.place.find(pods.workload_of.at(m.pod).second); pl != pods.place.end())
      if (const GpuType* t = catalog.Find(nodes.gpu_of_node.at(pl->second.node)))
        context = t->context_mib;
    const GpuMemoryFit fit = FitGpuMemory(m.peak_mib, m.mean_mib, context, iw.spec.concurrency);
    iw.spec.memory.weights_mib = fit.weights_mib;
    iw.spec.memory.activation_mib = fit.activation_mib;
    iw.has_memory = true;
    note = "window peak of " + m.source + ": " + Mib(m.peak_mib) + " (" + m.pod.pod + "), mean " +
           Mib(m.mean_mib) + "; weights = mean - context " + std::to_string(context) +
           " MiB, activation = the rest at concurrency " + std::to_string(iw.spec.concurrency);
  }
}

RateIndex IndexRates(const Metrics& metrics, const PodIndex& pods, KnownPods& known,
                     size_t workloads) {
  RateIndex rates;
  rates.of_workload.resize(workloads);
  for (const PodRate& r : metrics.rates) {
    if (!known(r.pod)) continue;
    const auto& at = pods.workload_of.at(r.pod);
    rates.of_workload[at.first].push_back(&r);
    rates.of_pod[at.second] = &r;
    if (pods.place.count(at.second) > 0) rates.current.insert(&r);
  }
  return rates;
}

void TrafficFromRates(const RateIndex& rates, const ImportOptions& options, ImportModel& model) {
  for (size_t wi = 0; wi < model.workloads.size(); ++wi) {
    if (rates.of_workload[wi].empty()) continue;
    ImportedWorkload& iw = model.workloads[wi];
    if (!iw.spec.asks_gpu()) {
      // knobsim serves requests on GPUs only: a CPU-only service's traffic would make a
      // scenario the reader refuses, and modelling it as GPU work would be a different model.
      const std::string who = iw.spec.namespace_ + "/" + iw.spec.name;
      model.warnings.push_back(who +
                               ": has a request rate but no GPU; its traffic is left out "
                               "(knobsim models requests served on GPUs only)");
      iw.notes["traffic"] =
          "left out: a request rate but no GPU (CPU-only requests are not "
          "modelled)";
      continue;
    }
    WorkloadTraffic(rates.of_workload[wi], rates.current, options, iw, model.warnings);
  }
}

namespace {

// Each pool's cards with a fitted idle term, summed up above the pool.
void IdleNotes(const NodeIndex& nodes, ImportModel& model) {
  std::map<int, std::vector<std::pair<std::string, double>>> of_pool;
  for (const auto& [key, idle] : model.card_idle_busy) {
    const auto at = nodes.pool_of_node.find(key.substr(0, key.rfind('/')));
    if (at != nodes.pool_of_node.end()) of_pool[at->second].push_back({key, idle});
  }
  for (const auto& [pool, cards] : of_pool) {
    double sum = 0;
    const std::pair<std::string, double>* top = &cards[0];
    for (const auto& c : cards) {
      sum += c.second;
      if (c.second > top->second) top = &c;
    }
    model.pools[pool].notes.push_back(
        "idle utilization fitted on " + std::to_string(cards.size()) +
        " cards (busy with no "
        "requests, not simulated; a backtest adds it to predicted utilization): mean " +
        FormatNumber("%.2f %%", 100 * sum / static_cast<double>(cards.size())) + ", largest " +
        FormatNumber("%.2f %%", 100 * top->second) + " (" + top->first + ")");
  }
}

}  // namespace

void FitWork(const KubeObjects& objects, const Metrics& metrics, const NodeIndex& nodes,
             const PodIndex& pods, const RateIndex& rates, const GpuCatalog& catalog,
             const ImportOptions& options, ImportModel& model) {
  const FitProblem problem =
      BuildFit(objects, metrics, nodes, pods, rates, catalog, options, model);
  const std::string policy_text =
      "POLICY " + std::to_string(options.policy) +
      (options.policy == 5 ? FormatNumber(", switch overhead %g", options.switch_overhead) : "");
  if (!problem.bin_why.empty()) model.fit_report.push_back("fit rows: " + problem.bin_why);
  if (!problem.cards.empty()) {
    ApplyFit(problem, policy_text, options, model);
    IdleNotes(nodes, model);
  } else if (!problem.workload_of_column.empty()) {
    model.fit_report.push_back("work per request: no card to fit (" +
                               std::to_string(problem.left_out.size()) + " left out under " +
                               policy_text + ", or no utilization metric)");
  }
}

void DefaultWork(const ImportOptions& options, ImportModel& model) {
  for (ImportedWorkload& iw : model.workloads) {
    if (!iw.has_traffic || iw.has_work) continue;
    iw.spec.work.mean_s = options.default_work_s;
    iw.has_work = true;
    iw.notes["work"] = "default " + Seconds(options.default_work_s) +
                       ": not identified by the fit (no fitted card, or collinear)";
    model.defaults.push_back("work of " + iw.spec.namespace_ + "/" + iw.spec.name);
  }
}

double ChooseFitBin(const ImportOptions& options, double step, std::vector<int> card_samples,
                    std::string* why) {
  if (options.fit_bin_s > 0) {
    if (step > 0 && options.fit_bin_s < step * 0.999) {
      *why = "--fit-bin " + Seconds(options.fit_bin_s) + " is finer than the metrics' samples (" +
             Seconds(step) + "); rows of " + Seconds(step);
      return step;
    }
    *why = "means over " + Seconds(options.fit_bin_s) + " (--fit-bin)";
    return options.fit_bin_s;
  }
  if (!(step > 0)) {
    *why = "means over " + Seconds(options.fit_bin_max_s) + " (--fit-bin auto: no sample step)";
    return options.fit_bin_max_s;
  }
  std::vector<double> counts(card_samples.begin(), card_samples.end());
  const double median = Median(counts).value_or(0);
  const int rows = options.fit_min_rows_per_card;
  const int max_k = std::max(1, static_cast<int>(std::floor(options.fit_bin_max_s / step + 1e-9)));
  const int want_k = static_cast<int>(std::floor(median / std::max(1, rows)));
  const int k = std::clamp(want_k, 1, max_k);
  *why = "means over " + Seconds(k * step) + " (--fit-bin auto: ";
  if (want_k < 1)
    *why += "the sample step; the median card has " + FormatNumber("%.0f", median) +
            " samples, fewer than the " + std::to_string(rows) + " rows asked)";
  else
    *why += "the largest multiple of the " + Seconds(step) + " sample step up to " +
            Seconds(options.fit_bin_max_s) + " that leaves the median card, " +
            FormatNumber("%.0f", median) + " samples, at least " + std::to_string(rows) + " rows)";
  return k * step;
}

void OverrideWorkDist(const ImportOptions& options, ImportModel& model) {
  if (!options.work_dist) return;
  const WorkModel& w = *options.work_dist;
  for (ImportedWorkload& iw : model.workloads) {
    if (!iw.has_work) continue;
    iw.spec.work.dist = w.dist;
    iw.spec.work.cv = w.cv;
    iw.notes["work"] +=
        std::string("; dist ") + WorkDistName(w.dist) +
        (w.dist == WorkDistribution::kGamma || w.dist == WorkDistribution::kLognormal
             ? FormatNumber(" cv² %.4g", w.cv * w.cv)
             : "") +
        " as --work-dist says";
  }
}

void ImportMetrics(const KubeObjects& objects, const Metrics& metrics, const NodeIndex& nodes,
                   const GpuCatalog& catalog, const ImportOptions& options, PodIndex& pods,
                   ImportModel& model) {
  model.duration_s = std::max(1.0, options.window_end - options.window_start);
  for (const std::string& n : metrics.notes) model.header.push_back("metrics: " + n);
  for (const std::string& w : metrics.warnings) model.warnings.push_back(w);
  KnownPods known(pods);
  // Whole-GPU pods (and others without allocation annotations) take their cards from the DCGM
  // labels of the card's series.
  CardsFromDcgm(metrics, nodes, known, pods);
  MemoryFromPeaks(metrics, nodes, pods, known, catalog, model);
  ProfilesFromDcgm(metrics, pods, known, model);
  const RateIndex rates = IndexRates(metrics, pods, known, model.workloads.size());
  TrafficFromRates(rates, options, model);
  FitWork(objects, metrics, nodes, pods, rates, catalog, options, model);
  if (!options.work_dist) WorkShapes(metrics, nodes, pods, catalog, options, model);
  for (const std::string& line : model.fit_report) model.header.push_back(line);
  DefaultWork(options, model);
  OverrideWorkDist(options, model);
  LatencyObjectives(metrics, pods, options, model);
  if (!known.unknown().empty())
    model.warnings.push_back(std::to_string(known.unknown().size()) +
                             " pods in the metrics are not in the export (e.g. " +
                             known.unknown().begin()->ToString() + "); their series are not used");
  if (metrics.rates.empty())
    model.defaults.push_back("traffic and work of every workload (no --rate-metric series)");
}

void NoMetricsDefaults(ImportModel& model) {
  model.defaults.push_back("traffic of every workload: none (no metrics)");
  model.defaults.push_back("work of every workload: 10ms exponential (the reader's default)");
  model.defaults.push_back(
      "gpu_memory of every GPU workload: weights 0, activation 0 (no metrics)");
  for (ImportedWorkload& iw : model.workloads) {
    iw.notes["traffic"] = "default: no metrics, no traffic";
    if (iw.spec.asks_gpu())
      iw.notes["gpu_memory"] = "default: no metrics (weights 0, activation 0)";
  }
}

}  // namespace knobsim
