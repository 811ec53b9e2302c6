// The backtest document read back: what BacktestToJson writes passes CheckBacktestDocument, and
// each kind of damage a hand edit or a truncated copy does is named by file, line and field.
#include "sim/backtest/backtest_json.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

namespace knobsim::backtest {
namespace {

BacktestReport TwoWindows() {
  BacktestReport r;
  r.evidence = "kf1-0123456789abcdef";
  r.train = {0, 3600};
  r.test = {3600, 4800};
  r.window_s = 600;
  r.windows = 2;
  r.replications = 3;
  r.seed = 7;
  CardBacktest c;
  c.node = "gpu-1";
  c.gpu = "L20";
  c.metric = "DCGM_FI_DEV_GPU_UTIL";
  c.measured = {0.2, NAN};
  c.predicted = {0.25, 0.3};
  c.predicted_ci95 = {0.01, 0.02};
  c.train_mean = {0.22, 0.22};
  r.cards.push_back(c);
  WorkloadBacktest w;
  w.id = "default/llm";
  w.latency_source = "histogram";
  w.measured_mean_ms = {100, 120};
  r.workloads.push_back(w);
  r.memory.push_back(MemoryBacktest{"default/llm-0", "gpu-1/0", 1000, 1100, 0, true, false});
  r.verdicts.push_back(Verdict{"utilization", true, "R² 0.9"});
  r.notes.push_back("nothing left out");
  return r;
}

std::string ErrorOf(const nlohmann::ordered_json& doc) {
  Expected<JsonDocument> parsed = ParseJsonDocument(doc.dump(1), "bt.json");
  REQUIRE(parsed.ok());
  const Status s = CheckBacktestDocument(*parsed);
  return s ? "" : s.error().ToString();
}

TEST_CASE("a backtest document as written reads back") {
  CHECK(ErrorOf(BacktestToJson(TwoWindows(), "test")) == "");
}

TEST_CASE("a damaged backtest document is refused with its file, line and field") {
  struct Case {
    const char* rule;
    void (*damage)(nlohmann::ordered_json&);
    const char* expected;  // the message from its field path on
  };
  const Case cases[] = {
      {"a series holds one value per window",
       [](nlohmann::ordered_json& d) { d["cards"][0]["windows"].erase(1); },
       "cards[0].windows: holds 1 windows for the document's 2"},
      {"a number is not a string",
       [](nlohmann::ordered_json& d) { d["workloads"][0]["mdape_p99"] = "0.1"; },
       "workloads[0].mdape_p99: "},
      {"the window count is an integer in range",
       [](nlohmann::ordered_json& d) { d["windows"] = -1; }, "windows: "},
      {"every section is there", [](nlohmann::ordered_json& d) { d.erase("cards"); }, "cards"},
      {"a verdict's trust is a boolean",
       [](nlohmann::ordered_json& d) { d["verdicts"][0]["trust"] = "yes"; }, "verdicts[0].trust: "},
      {"window lengths are positive", [](nlohmann::ordered_json& d) { d["window_s"] = 0; },
       "window_s: "},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    nlohmann::ordered_json doc = BacktestToJson(TwoWindows(), "test");
    c.damage(doc);
    const std::string error = ErrorOf(doc);
    CHECK(error.rfind("bt.json:", 0) == 0);
    CHECK(error.find(c.expected) != std::string::npos);
  }
}

}  // namespace
}  // namespace knobsim::backtest
