#include "sim/backtest/backtest_json.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/json_numbers.h"
#include "sim/text.h"

namespace knobsim::backtest {
namespace {

using Json = nlohmann::ordered_json;
using json_numbers::Num;

Json Range(const TimeRange& r) {
  return Json{{"from", Rfc3339(r.from)},
              {"to", Rfc3339(r.to)},
              {"from_unix", Num(r.from)},
              {"to_unix", Num(r.to)}};
}

Json At(const std::vector<double>& v, size_t k) {
  return k < v.size() ? Num(v[k]) : Json(nullptr);
}

Json CardJson(const CardBacktest& c, const BacktestReport& r) {
  Json j;
  j["id"] = c.node + "/" + std::to_string(c.index);
  j["node"] = c.node;
  j["index"] = c.index;
  j["gpu"] = c.gpu;
  j["metric"] = c.metric;
  j["idle_busy"] = Num(c.idle_busy);
  j["r2"] = Num(c.r2);
  j["mae_pp"] = Num(c.mae * 100);
  j["baseline_train_mean"] =
      Json{{"r2", Num(c.train_mean_r2)}, {"mae_pp", Num(c.train_mean_mae * 100)}};
  Json windows = Json::array();
  for (size_t k = 0; k < static_cast<size_t>(r.windows); ++k)
    windows.push_back(Json{{"t_s", Num(static_cast<double>(k) * r.window_s)},
                           {"measured", At(c.measured, k)},
                           {"predicted", At(c.predicted, k)},
                           {"predicted_ci95", At(c.predicted_ci95, k)},
                           {"baseline_train_mean", At(c.train_mean, k)}});
  j["windows"] = std::move(windows);
  return j;
}

Json Pair(const std::vector<double>& mean, const std::vector<double>& p99, size_t k) {
  return Json{{"mean_ms", At(mean, k)}, {"p99_ms", At(p99, k)}};
}

Json WorkloadJson(const WorkloadBacktest& w, const BacktestReport& r) {
  Json j;
  j["id"] = w.id;
  j["latency_source"] = w.latency_source;
  j["p99_through_buckets"] = w.p99_through_buckets;
  j["work_s"] = Num(w.work_s);
  j["mdape_mean"] = Num(w.mdape_mean);
  j["mdape_p99"] = Num(w.mdape_p99);
  j["baseline_train_median"] = Json{{"mdape_mean", Num(w.train_median_mdape_mean)},
                                    {"mdape_p99", Num(w.train_median_mdape_p99)}};
  j["baseline_mm1"] =
      Json{{"mdape_mean", Num(w.mm1_mdape_mean)}, {"mdape_p99", Num(w.mm1_mdape_p99)}};
  Json windows = Json::array();
  for (size_t k = 0; k < static_cast<size_t>(r.windows); ++k) {
    Json m = Pair(w.measured_mean_ms, w.measured_p99_ms, k);
    m["requests"] = At(w.measured_requests, k);
    Json p = Pair(w.predicted_mean_ms, w.predicted_p99_ms, k);
    p["p99_requests_ms"] = At(w.predicted_p99_requests_ms, k);
    p["requests"] = At(w.predicted_requests, k);
    windows.push_back(
        Json{{"t_s", Num(static_cast<double>(k) * r.window_s)},
             {"measured", std::move(m)},
             {"predicted", std::move(p)},
             {"baseline_train_median", Pair(w.train_median_mean_ms, w.train_median_p99_ms, k)},
             {"baseline_mm1", Pair(w.mm1_mean_ms, w.mm1_p99_ms, k)}});
  }
  j["windows"] = std::move(windows);
  return j;
}

Json SummaryJson(const BacktestSummary& s) {
  Json j;
  j["utilization"] =
      Json{{"cards", s.cards},
           {"cards_with_r2", s.cards_with_r2},
           {"r2_median", Num(s.r2_median)},
           {"mae_pp_median", Num(s.mae_pp_median)},
           {"baseline_train_mean", Json{{"r2_median", Num(s.train_mean_r2_median)},
                                        {"mae_pp_median", Num(s.train_mean_mae_pp_median)}}}};
  j["latency"] = Json{{"workloads", s.workloads},
                      {"mdape_mean", Num(s.mdape_mean)},
                      {"mdape_p99", Num(s.mdape_p99)},
                      {"baseline_train_median", Json{{"mdape_mean", Num(s.train_median_mdape_mean)},
                                                     {"mdape_p99", Num(s.train_median_mdape_p99)}}},
                      {"baseline_mm1", Json{{"mdape_mean", Num(s.mm1_mdape_mean)},
                                            {"mdape_p99", Num(s.mm1_mdape_p99)}}}};
  j["memory"] = Json{{"pod_cards", s.memory_pods},
                     {"over_train_peak", s.over_train_peak},
                     {"over_quota", s.over_quota}};
  return j;
}

// ---- Reading back ----------------------------------------------------------------------------

// The most windows and replications a document may claim: far beyond any real backtest, so a
// corrupt count is an error rather than a loop over billions.
constexpr int64_t kMostWindows = 10'000'000;
constexpr int64_t kMostReplications = 1'000'000;

void CheckRange(const JsonField& r) {
  r.Object();
  r.At("from").String();
  r.At("to").String();
  r.At("from_unix").NumberOrNull();
  r.At("to_unix").NumberOrNull();
}

void CheckNumbers(const JsonField& f, std::initializer_list<std::string_view> keys) {
  f.Object();
  for (std::string_view key : keys) f.At(key).NumberOrNull();
}

void CheckCount(const JsonField& f) {
  f.Integer(0, std::numeric_limits<int32_t>::max());
}

// An array of one object per window, each with `t_s`, passed on to `check`.
template <class F>
void CheckWindows(const JsonField& list, int64_t windows, F check) {
  const std::vector<JsonField> items = list.Items();
  if (static_cast<int64_t>(items.size()) != windows) {
    list.Fail("holds " + std::to_string(items.size()) + " windows for the document's " +
              std::to_string(windows));
  }
  for (const JsonField& w : items) {
    w.At("t_s").Number();
    check(w);
  }
}

void CheckSummary(const JsonField& s) {
  s.Object();
  const JsonField u = s.At("utilization");
  CheckNumbers(u, {"r2_median", "mae_pp_median"});
  CheckCount(u.At("cards"));
  CheckCount(u.At("cards_with_r2"));
  CheckNumbers(u.At("baseline_train_mean"), {"r2_median", "mae_pp_median"});
  const JsonField l = s.At("latency");
  CheckNumbers(l, {"mdape_mean", "mdape_p99"});
  CheckCount(l.At("workloads"));
  CheckNumbers(l.At("baseline_train_median"), {"mdape_mean", "mdape_p99"});
  CheckNumbers(l.At("baseline_mm1"), {"mdape_mean", "mdape_p99"});
  const JsonField m = s.At("memory");
  for (std::string_view key : {"pod_cards", "over_train_peak", "over_quota"}) CheckCount(m.At(key));
}

void CheckCard(const JsonField& c, int64_t windows) {
  c.Object();
  for (std::string_view key : {"id", "node", "gpu", "metric"}) c.At(key).String();
  CheckCount(c.At("index"));
  CheckNumbers(c, {"idle_busy", "r2", "mae_pp"});
  CheckNumbers(c.At("baseline_train_mean"), {"r2", "mae_pp"});
  CheckWindows(c.At("windows"), windows, [](const JsonField& w) {
    CheckNumbers(w, {"measured", "predicted", "predicted_ci95", "baseline_train_mean"});
  });
}

void CheckWorkload(const JsonField& wl, int64_t windows) {
  wl.Object();
  wl.At("id").String();
  wl.At("latency_source").String();
  // Added within v1: documents written before it lack the key.
  if (auto through = wl.Find("p99_through_buckets")) through->Bool();
  CheckNumbers(wl, {"work_s", "mdape_mean", "mdape_p99"});
  CheckNumbers(wl.At("baseline_train_median"), {"mdape_mean", "mdape_p99"});
  CheckNumbers(wl.At("baseline_mm1"), {"mdape_mean", "mdape_p99"});
  CheckWindows(wl.At("windows"), windows, [](const JsonField& w) {
    CheckNumbers(w.At("measured"), {"mean_ms", "p99_ms", "requests"});
    CheckNumbers(w.At("predicted"), {"mean_ms", "p99_ms", "requests"});
    if (auto requests_p99 = w.At("predicted").Find("p99_requests_ms")) requests_p99->NumberOrNull();
    CheckNumbers(w.At("baseline_train_median"), {"mean_ms", "p99_ms"});
    CheckNumbers(w.At("baseline_mm1"), {"mean_ms", "p99_ms"});
  });
}

}  // namespace

Status CheckBacktestDocument(const JsonDocument& doc) {
  return CheckJson(doc, [](const JsonField& root) {
    root.Object();
    if (root.At("schema").String() != kBacktestSchema) {
      root.At("schema").Fail("is not " + std::string(kBacktestSchema));
    }
    if (auto evidence = root.Find("evidence")) evidence->String();
    CheckRange(root.At("train"));
    CheckRange(root.At("test"));
    if (!(root.At("window_s").Number() > 0)) root.At("window_s").Fail("is not a positive length");
    const int64_t windows = root.At("windows").Integer(0, kMostWindows);
    root.At("replications").Integer(1, kMostReplications);
    root.At("seed").Unsigned();
    CheckSummary(root.At("summary"));
    for (const JsonField& v : root.At("verdicts").Items()) {
      v.At("what").String();
      v.At("trust").Bool();
      v.At("why").String();
    }
    for (const JsonField& c : root.At("cards").Items()) CheckCard(c, windows);
    for (const JsonField& w : root.At("workloads").Items()) CheckWorkload(w, windows);
    for (const JsonField& m : root.At("memory").Items()) {
      m.At("pod").String();
      m.At("card").String();
      CheckNumbers(m, {"train_peak_mib", "test_peak_mib", "quota_mib"});
      m.At("over_train_peak").Bool();
      m.At("over_quota").Bool();
    }
    for (const JsonField& n : root.At("notes").Items()) n.String();
  });
}

nlohmann::ordered_json BacktestToJson(const BacktestReport& r, std::string_view knobsim_version) {
  Json j;
  j["schema"] = kBacktestSchema;
  j["knobsim_version"] = knobsim_version;
  j["evidence"] = r.evidence;
  j["train"] = Range(r.train);
  j["test"] = Range(r.test);
  j["window_s"] = Num(r.window_s);
  j["windows"] = r.windows;
  j["replications"] = r.replications;
  j["seed"] = r.seed;
  j["summary"] = SummaryJson(r.summary);
  Json verdicts = Json::array();
  for (const Verdict& v : r.verdicts)
    verdicts.push_back(Json{{"what", v.what}, {"trust", v.trust}, {"why", v.why}});
  j["verdicts"] = std::move(verdicts);
  Json cards = Json::array();
  for (const CardBacktest& c : r.cards) cards.push_back(CardJson(c, r));
  j["cards"] = std::move(cards);
  Json workloads = Json::array();
  for (const WorkloadBacktest& w : r.workloads) workloads.push_back(WorkloadJson(w, r));
  j["workloads"] = std::move(workloads);
  Json memory = Json::array();
  for (const MemoryBacktest& m : r.memory)
    memory.push_back(Json{{"pod", m.pod},
                          {"card", m.card},
                          {"train_peak_mib", Num(m.train_peak_mib)},
                          {"test_peak_mib", Num(m.test_peak_mib)},
                          {"quota_mib", m.quota_mib > 0 ? Num(m.quota_mib) : Json(nullptr)},
                          {"over_train_peak", m.over_train_peak},
                          {"over_quota", m.over_quota}});
  j["memory"] = std::move(memory);
  j["notes"] = r.notes;
  return j;
}

}  // namespace knobsim::backtest
