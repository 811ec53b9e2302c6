// The ground truth: GroundTruth filled from the placed plan (plan.h's FillTruth), the noiseless
// curves behind every metric (PodRate, CardBusy, PodCardMemoryMib in export_generator.h), and
// truth.json (TruthJson).
//
// Contract: the curves repeat every UTC day, so FillTruth takes one day of the truth's grid for
// the window's means and peaks, exactly; the peak memory uses PodCardMemoryMib's expression
// operation for operation, so the metric's maximum equals it. truth.json records every option,
// so the files can be made again byte for byte.
#include <algorithm>
#include <cmath>
#include <numbers>

#include <nlohmann/json.hpp>

#include "tools/gen-export/export_generator.h"
#include "tools/gen-export/plan.h"
#include "tools/gen-export/request_truth.h"
#include "tools/gen-export/text_encoding.h"
#include "tools/gen-export/vocabulary.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

// The pod's rate on the diurnal curve, bursts left out: what memory follows.
double CurveRate(const GroundTruth& truth, int pod, int64_t t) {
  const TruthPod& p = truth.pods[pod];
  const TruthWorkload& w = truth.workloads[p.workload];
  if (!w.has_traffic || p.node.empty()) return 0;
  return w.pod_mean_rate * DiurnalFactor(w, t);
}

// The request-truth series' step ending at t, or -1 outside it.
int64_t StepEndingAt(const RequestSeries& r, int64_t t) {
  const int64_t i = (t - r.start_unix) / r.step_s - 1;
  return t > r.start_unix && i < static_cast<int64_t>(r.arrivals.size()) ? i : -1;
}

json WindowJson(const RequestWindowTruth& w) {
  return {{"arrivals", w.arrivals},
          {"completions", w.completions},
          {"mean_latency_s", w.mean_latency_s},
          {"p99_latency_s", w.p99_latency_s},
          {"mean_wait_s", w.mean_wait_s},
          {"mean_service_s", w.mean_service_s},
          {"service_cv2", w.service_cv2},
          {"mean_busy", w.mean_busy}};
}

json Bounds(int64_t from, int64_t to) {
  return {{"from_unix", from},
          {"to_unix", to},
          {"from", Rfc3339(from)},
          {"to", Rfc3339(to)},
          {"arg", Rfc3339(from) + "/" + Rfc3339(to)}};
}

// The options of the backtest profile, each only when it differs from the default, so that a
// default export's truth.json stays what it was.
void BacktestOptions(const GeneratorOptions& o, json& generator) {
  if (o.request_truth) generator["request_truth"] = true;
  if (o.arrivals_in_step == ArrivalsInStep::kStratified)
    generator["arrivals_in_step"] = "stratified";
  if (o.idle_floor > 0) generator["idle_floor"] = o.idle_floor;
  if (o.cpu_router) generator["cpu_router"] = true;
  if (o.backtest_split > 0) generator["backtest_split"] = o.backtest_split;
  if (o.gpu_profiles) generator["gpu_profiles"] = true;
}

json RequestModelJson(const GeneratorOptions& o) {
  return {{"pods", "running GPU pods with traffic alone on every card they hold; the others fluid"},
          {"arrivals",
           "Markov-modulated Poisson per truth step: rate = diurnal x (burst ? multiplier : 1) / "
           "mean_modulation; times in a step " +
               std::string(o.arrivals_in_step == ArrivalsInStep::kIid
                               ? "i.i.d. uniform given the count"
                               : "stratified, (k + U) / n of the step")},
          {"burst_multiplier", kBurstMultiplier},
          {"burst_mean_s", kBurstMeanS},
          {"burst_gap_mean_s", kBurstGapMeanS},
          {"mean_modulation", kMeanModulation},
          {"rate_scaled_by", 1 / kBurstPeakFactor},
          {"service", "gamma, mean work_s / card speed, the workload's service_cv2"},
          {"queue", "FIFO, one request at a time per pod (knobsim concurrency 1), Lindley exact"},
          {"start", "empty, one sample step before the metrics window"},
          {"busy", "per step, the pod's busy time / step, on each of its cards"},
          {"utilization", "min(1, idle_floor + busy) + busy_noise, whole percent"},
          {"latency", "arrival to finish, counted in the step where the request finishes"}};
}

}  // namespace

double DiurnalFactor(const TruthWorkload& w, int64_t t) {
  const int64_t since_peak = ((t - w.peak_at_s) % kDay + kDay) % kDay;
  return 1 + w.amplitude * std::cos(2 * std::numbers::pi * static_cast<double>(since_peak) /
                                    static_cast<double>(kDay));
}

void FillTruth(Plan& plan, GroundTruth& truth, const std::vector<int>& pod_order,
               const std::vector<int>& workload_order) {
  const GeneratorOptions& o = plan.o;
  truth.start_unix = o.start_unix;
  truth.end_unix = o.start_unix + o.days * kDay;
  truth.step_s = o.step_s;
  std::vector<int> workload_index(plan.workloads.size());
  for (size_t i = 0; i < workload_order.size(); ++i) {
    workload_index[workload_order[i]] = static_cast<int>(i);
    Workload& w = plan.workloads[workload_order[i]];
    w.truth.running = 0;
    for (int p : w.pods) w.truth.running += plan.pods[p].node >= 0 ? 1 : 0;
    w.truth.mean_rate = w.truth.pod_mean_rate * w.truth.running;
    truth.workloads.push_back(w.truth);
  }
  // Cards in export order: by node name, then index.
  std::vector<int> node_order(plan.nodes.size());
  for (size_t i = 0; i < node_order.size(); ++i) node_order[i] = static_cast<int>(i);
  std::sort(node_order.begin(), node_order.end(),
            [&](int a, int b) { return plan.nodes[a].name < plan.nodes[b].name; });
  std::vector<int> card_index(plan.cards.size(), -1);
  for (int n : node_order) {
    const Node& node = plan.nodes[n];
    const Pool& pool = plan.pools[node.pool];
    for (int c = node.first_card; c < node.first_card + node.cards; ++c) {
      card_index[c] = static_cast<int>(truth.cards.size());
      TruthCard card;
      card.node = node.name;
      card.index = plan.cards[c].index;
      card.uuid = plan.cards[c].uuid;
      card.gpu_type = pool.gpu->name;
      card.speed = pool.gpu->speed;
      card.units = pool.units;
      card.memory_mib = pool.gpu->memory_mib;
      card.exclusive = pool.exclusive;
      card.fb_used = node.fb_per_pod ? "per_pod" : "card_total";
      card.process_metric = pool.spec->process_metric && o.process_metric;
      truth.cards.push_back(card);
    }
  }
  for (int p : pod_order) {
    const PodPlan& pod = plan.pods[p];
    const Workload& w = plan.workloads[pod.workload];
    TruthPod t;
    t.namespace_ = w.ns;
    t.name = pod.name;
    t.workload = workload_index[pod.workload];
    t.node = pod.node >= 0 ? plan.nodes[pod.node].name : "";
    for (int c : pod.cards) {
      t.cards.push_back(card_index[c]);
      truth.cards[card_index[c]].pods.push_back(static_cast<int>(truth.pods.size()));
    }
    t.units_per_card = w.whole > 0 ? 0 : w.units_per_card;
    t.mem_offset_mib = pod.mem_offset;
    if (pod.request_truth) t.requests.emplace();
    truth.pods.push_back(std::move(t));
  }
  // The curves repeat every day and the grid divides the day, so one day of the grid gives the
  // whole window's means and peaks exactly.
  const int per_day = static_cast<int>(kDay / o.step_s);
  std::vector<std::vector<double>> factor(truth.workloads.size());
  for (size_t wi = 0; wi < truth.workloads.size(); ++wi) {
    if (!truth.workloads[wi].has_traffic) continue;
    factor[wi].resize(per_day);
    for (int i = 0; i < per_day; ++i) {
      factor[wi][i] = DiurnalFactor(truth.workloads[wi], o.start_unix + int64_t{i} * o.step_s);
    }
  }
  for (TruthCard& card : truth.cards) {
    double sum = 0, peak = 0;
    for (int i = 0; i < per_day; ++i) {
      double load = 0;
      for (int p : card.pods) {
        const TruthWorkload& w = truth.workloads[truth.pods[p].workload];
        if (w.has_traffic) load += w.pod_mean_rate * factor[truth.pods[p].workload][i] * w.work_s;
      }
      const double busy = std::min(1.0, load / card.speed);
      sum += busy;
      peak = std::max(peak, busy);
    }
    card.mean_busy = sum / per_day;
    card.peak_busy = peak;
  }
  // Memory grows with the rate, so it peaks where the rate does on the grid; the expression is
  // PodCardMemoryMib's, operation for operation, so the metric's maximum equals it exactly.
  std::vector<double> top(truth.workloads.size(), 1.0);
  for (size_t wi = 0; wi < truth.workloads.size(); ++wi) {
    if (!factor[wi].empty()) top[wi] = *std::max_element(factor[wi].begin(), factor[wi].end());
  }
  for (const TruthPod& pod : truth.pods) {
    TruthWorkload& w = truth.workloads[pod.workload];
    if (pod.node.empty() || !w.gpu || w.rest_mib == 0) continue;
    const double rate = w.has_traffic ? w.pod_mean_rate * top[pod.workload] : 0.0;
    const int64_t peak = w.rest_mib + pod.mem_offset_mib + std::llround(w.mib_per_rps * rate);
    w.peak_mib = std::max(w.peak_mib, peak * static_cast<int64_t>(pod.cards.size()));
  }
  for (TruthWorkload& w : truth.workloads) {
    if (w.peak_mib > 0) w.over_quota = w.peak_mib > w.quota_mib * std::max(1, w.gpu_count);
  }
  truth.planted_secrets = plan.secrets;
  std::sort(truth.planted_secrets.begin(), truth.planted_secrets.end());
  truth.planted_secrets.erase(
      std::unique(truth.planted_secrets.begin(), truth.planted_secrets.end()),
      truth.planted_secrets.end());
}

double PodRate(const GroundTruth& truth, int pod, int64_t t) {
  if (const std::optional<RequestSeries>& r = truth.pods[pod].requests) {
    const int64_t i = StepEndingAt(*r, t);
    return i < 0 ? 0.0 : r->arrivals[static_cast<size_t>(i)] / static_cast<double>(r->step_s);
  }
  return CurveRate(truth, pod, t);
}

double CardBusy(const GroundTruth& truth, int card, int64_t t) {
  const TruthCard& c = truth.cards[card];
  if (c.request_truth) {
    const RequestSeries& r = *truth.pods[c.pods.front()].requests;
    const int64_t i = StepEndingAt(r, t);
    return i < 0 ? 0.0 : std::min(1.0, r.busy_s[static_cast<size_t>(i)] / r.step_s);
  }
  double load = 0;
  for (int p : c.pods)
    load += PodRate(truth, p, t) * truth.workloads[truth.pods[p].workload].work_s;
  return std::min(1.0, load / c.speed);
}

int64_t PodCardMemoryMib(const GroundTruth& truth, int pod, int64_t t) {
  const TruthPod& p = truth.pods[pod];
  const TruthWorkload& w = truth.workloads[p.workload];
  if (p.node.empty() || !w.gpu) return 0;
  return w.rest_mib + p.mem_offset_mib + std::llround(w.mib_per_rps * CurveRate(truth, pod, t));
}

namespace {

// The workloads as planted: shape, GPU memory model, traffic.
json WorkloadsJson(const GroundTruth& t) {
  json workloads = json::array();
  for (const TruthWorkload& w : t.workloads) {
    json j = {{"kind", w.kind}, {"namespace", w.namespace_}, {"name", w.name},
              {"pool", w.pool}, {"replicas", w.replicas},    {"running", w.running},
              {"gpu", w.gpu}};
    if (w.gpu) {
      j["gpu_mem"] = w.gpu_mem;
      j["gpu_count"] = w.gpu_count;
      j["whole_gpus"] = w.whole_gpus;
      j["memory"] = {{"rest_mib", w.rest_mib},
                     {"mib_per_rps", w.mib_per_rps},
                     {"quota_mib_per_card", w.quota_mib},
                     {"peak_mib", w.peak_mib},
                     {"over_quota", w.over_quota}};
    }
    if (w.cpu_only) j["cpu_only"] = true;
    if (w.gpu_profile)
      j["gpu_profile"] = {{"sm_active", w.gpu_profile->sm_active},
                          {"sm_occupancy", w.gpu_profile->sm_occupancy},
                          {"dram_active", w.gpu_profile->dram_active},
                          {"tensor_active", w.gpu_profile->tensor_active}};
    if (w.request_truth) {
      j["request_truth"] = true;
      j["service"] = {{"dist", "gamma"}, {"cv2", w.service_cv2}};
    }
    if (w.has_traffic) {
      if (!w.cpu_only) j["work_s"] = w.work_s;
      j["pod_mean_rate_per_s"] = w.pod_mean_rate;
      j["mean_rate_per_s"] = w.mean_rate;
      j["amplitude"] = w.amplitude;
      j["peak_at_s"] = w.peak_at_s;
    }
    workloads.push_back(j);
  }
  return workloads;
}

// Each pod with its node, cards and, where planted, its request windows.
json PodsJson(const GroundTruth& t, const GeneratorOptions& o) {
  json pods = json::array();
  for (const TruthPod& p : t.pods) {
    json cards = json::array();
    for (int c : p.cards) cards.push_back({{"node", t.cards[c].node}, {"gpu", t.cards[c].index}});
    json pod = {{"namespace", p.namespace_},
                {"name", p.name},
                {"workload", t.workloads[p.workload].name},
                {"node", p.node.empty() ? json(nullptr) : json(p.node)},
                {"cards", cards},
                {"units_per_card", p.units_per_card},
                {"mem_offset_mib", p.mem_offset_mib}};
    if (p.requests) {
      pod["requests"] = {{"window", WindowJson(p.requests->all)}};
      if (o.backtest_split > 0) {
        pod["requests"]["train"] = WindowJson(p.requests->train);
        pod["requests"]["test"] = WindowJson(p.requests->test);
      }
    }
    pods.push_back(std::move(pod));
  }
  return pods;
}

// Each card with its pods and the busy and memory facts its metrics carry.
json CardsJson(const GroundTruth& t) {
  json cards = json::array();
  for (const TruthCard& c : t.cards) {
    json names = json::array();
    for (int p : c.pods) names.push_back(t.pods[p].namespace_ + "/" + t.pods[p].name);
    json card = {{"node", c.node},
                 {"gpu", c.index},
                 {"uuid", c.uuid},
                 {"gpu_type", c.gpu_type},
                 {"speed", c.speed},
                 {"units", c.units},
                 {"memory_mib", c.memory_mib},
                 {"exclusive", c.exclusive},
                 {"pods", names},
                 {"fb_used", c.fb_used},
                 {"process_metric", c.process_metric},
                 {"mean_busy", c.mean_busy},
                 {"peak_busy", c.peak_busy}};
    if (c.idle_floor > 0) card["idle_floor"] = c.idle_floor;
    if (c.request_truth) card["request_truth"] = true;
    cards.push_back(std::move(card));
  }
  return cards;
}

// The metric files and their steps, or null without metrics.
json MetricsJson(const GeneratedCluster& cluster, int metrics_step) {
  const GeneratorOptions& o = cluster.options;
  const GroundTruth& t = cluster.truth;
  json metrics = nullptr;
  if (o.with_metrics) {
    const int days = o.metrics_days == 0 ? o.days : o.metrics_days;
    json files = json::array();
    for (const std::string& name : MetricNames(cluster)) files.push_back("prom/" + name + ".json");
    metrics = {{"files", files},
               {"start_unix", t.end_unix - days * kDay},
               {"days", days},
               {"step_s", metrics_step},
               {"rate_step_s", o.rate_step_s == 0 ? metrics_step : o.rate_step_s},
               {"gpu_util", kGpuUtilMetric},
               {"fb_used", kFbUsedMetric},
               {"process_mem", o.process_metric ? json(kProcessMemMetric) : json(nullptr)},
               {"request_rate", kRequestRateMetric},
               {"busy_noise", o.busy_noise}};
  }
  return metrics;
}

}  // namespace

nlohmann::json TruthJson(const GeneratedCluster& cluster) {
  const GeneratorOptions& o = cluster.options;
  const GroundTruth& t = cluster.truth;
  const int metrics_step = o.metrics_step_s == 0 ? o.step_s : o.metrics_step_s;
  const json workloads = WorkloadsJson(t);
  const json pods = PodsJson(t, o);
  const json cards = CardsJson(t);
  const json metrics = MetricsJson(cluster, metrics_step);
  // Every option, so that the files can be made again byte for byte.
  json doc = {
      {"generator",
       {{"nodes", o.nodes},
        {"pods", o.pods},
        {"seed", o.seed},
        {"days", o.days},
        {"step_s", o.step_s},
        {"start_unix", o.start_unix},
        {"with_metrics", o.with_metrics},
        {"metrics_step_s", o.metrics_step_s},
        {"rate_step_s", o.rate_step_s},
        {"metrics_days", o.metrics_days},
        {"process_metric", o.process_metric},
        {"planted_secrets", o.planted_secrets},
        {"busy_noise", o.busy_noise}}},
      {"window",
       {{"start_unix", t.start_unix},
        {"end_unix", t.end_unix},
        {"start", Rfc3339(t.start_unix)},
        {"end", Rfc3339(t.end_unix)},
        {"step_s", t.step_s}}},
      {"reference_gpu", "A10"},
      {"model",
       {{"rate", "mean x (1 + amplitude x cos(2 pi (t - peak_at) / 86400)) per running pod"},
        {"busy", "min(1, sum over the card's pods of rate x work_s / speed)"},
        {"memory", "per card: rest_mib + mem_offset_mib + mib_per_rps x rate, whole MiB"}}},
      {"metrics", metrics},
      {"workloads", workloads},
      {"pods", pods},
      {"cards", cards},
      {"planted_secrets", t.planted_secrets}};
  BacktestOptions(o, doc["generator"]);
  bool requests = false;
  for (const TruthPod& p : t.pods) requests = requests || p.requests.has_value();
  if (requests) {
    doc["request_model"] = RequestModelJson(o);
    if (o.with_metrics) {
      doc["metrics"]["latency"] = kLatencyMetric;
      doc["metrics"]["latency_buckets"] =
          std::vector<double>(std::begin(kLatencyBuckets), std::end(kLatencyBuckets));
    }
  }
  if (o.backtest_split > 0) {
    doc["backtest"] = {{"split", o.backtest_split},
                       {"train", Bounds(t.train_from, t.train_to)},
                       {"test", Bounds(t.test_from, t.test_to)},
                       {"rule",
                        "a sample belongs to the window holding its timestamp t: "
                        "from <= t < to; a sample covers the step before t"}};
  }
  return doc;
}

}  // namespace knobsim::gen_export
