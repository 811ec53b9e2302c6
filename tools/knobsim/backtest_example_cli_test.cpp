// End-to-end tests of the backtest example (tools/gen-export/README.md "Request-level truth"):
// the real knobsim-gen-export writes the backtest profile, the test keeps the train window of
// each metric file (what `knobsim backtest --train` hands the import), and the real `knobsim
// import` must recover each request-truth GPU workload's work within 5 %, warn about the
// CPU-only router, and replay the recorded counts step by step.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

const char* const kImportedMetrics[] = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED",
                                        "DCGM_CUSTOM_PROCESS_MEM_USED", "http_requests_per_second"};

// The backtest profile written once per idle floor, with each metric cut to the train window.
struct Example {
  std::string dir;
  json truth;

  explicit Example(const std::string& name, const std::string& flags) : dir(TempPath(name)) {
    std::filesystem::remove_all(dir);
    const std::string cmd = Quoted(KNOBSIM_GEN_EXPORT_BINARY) +
                            " --profile backtest --nodes 8 --pods 24 --days 1 " + flags + " -o " +
                            Quoted(dir) + " >/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    truth = json::parse(ReadFile(dir + "/truth.json"));
    const int64_t from = truth.at("backtest").at("train").at("from_unix");
    const int64_t to = truth.at("backtest").at("train").at("to_unix");
    std::filesystem::create_directories(dir + "/train");
    for (const char* metric : kImportedMetrics) {
      json doc = json::parse(ReadFile(dir + "/prom/" + metric + ".json"));
      for (json& series : doc.at("data").at("result")) {
        json kept = json::array();
        for (const json& v : series.at("values"))
          if (v.at(0).get<int64_t>() >= from && v.at(0).get<int64_t>() < to) kept.push_back(v);
        series["values"] = kept;
      }
      std::ofstream(dir + "/train/" + metric + ".json") << doc.dump();
    }
  }
  ~Example() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }

  Outcome Import(const std::string& window, const std::string& extra = "") const {
    std::string args = "import --kube " + Quoted(dir + "/export.json");
    for (const char* metric : kImportedMetrics)
      args += " --prom " + Quoted(dir + "/" + window + "/" + metric + ".json");
    return Run(args + " --rate-metric http_requests_per_second " + extra);
  }
};

// The `work:` mean the scenario holds for workload `name`, in seconds.
double ImportedWork(const std::string& scenario, const std::string& name) {
  const auto at = scenario.find("\n  - name: " + name + "\n");
  REQUIRE(at != std::string::npos);
  std::smatch m;
  const std::string rest = scenario.substr(at);
  REQUIRE(std::regex_search(rest, m, std::regex(R"(work: \{dist: \w+, mean: ([0-9.]+)(ms|s)\})")));
  return std::stod(m[1]) / (m[2] == "ms" ? 1000 : 1);
}

void CheckWorkWithin5Percent(const Example& example) {
  const Outcome o = example.Import("train");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  int checked = 0;
  for (const json& w : example.truth.at("workloads")) {
    if (!w.value("request_truth", false) || w.at("running") == 0) continue;
    const std::string name = w.at("name");
    const double truth = w.at("work_s");
    const double fitted = ImportedWork(o.out, name);
    CAPTURE(name);
    CAPTURE(truth);
    CAPTURE(fitted);
    CHECK(std::abs(fitted - truth) <= 0.05 * truth);
    ++checked;
  }
  CHECK(checked >= 3);  // the whole-GPU LLM server, qwen-chat, a pod alone on a shared card
}

TEST_CASE("import of the backtest example's train window recovers each GPU workload's work") {
  // Without an idle floor, busy = Σ rate × work / speed holds exactly in expectation.
  const Example example("backtest-nofloor", "--idle-floor 0");
  CheckWorkWithin5Percent(example);
}

// The profile's idle floor (1.5-3 points per card with a served model) is the work fit's idle
// term (models/work_fit.h, FitCard::idle), kept out of the work: without it the floor read as
// +8 % to +70 % of work on cards 5-25 % busy.
TEST_CASE("import of the backtest example with its idle floor recovers the work") {
  const Example example("backtest-floor", "");
  CheckWorkWithin5Percent(example);
}

TEST_CASE("the CPU-only router's traffic is left out of the import with a warning naming it") {
  const Example example("backtest-router", "--idle-floor 0");
  const Outcome o = example.Import("train");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(o.err.find("llm/llm-router: has a request rate but no GPU") != std::string::npos);
}

// The numbers of the flow list that follows `key: [` in `text` from `from` on.
std::vector<int64_t> CountList(const std::string& text, const std::string& key, size_t from) {
  const auto values = text.find(key + ": [", from);
  REQUIRE_MESSAGE(values != std::string::npos, key);
  const size_t open = values + key.size() + 3;
  const std::string list = text.substr(open, text.find(']', open) - open);
  std::vector<int64_t> out;
  int64_t number = -1;
  for (const char c : list + ",") {
    if (c >= '0' && c <= '9') {
      number = (number < 0 ? 0 : number * 10) + (c - '0');
    } else if (number >= 0) {
      out.push_back(number);
      number = -1;
    }
  }
  return out;
}

// A sample stamped t counts the requests of (t - step, t]: the window starts at the first
// sample, whose requests came before it, so interval i of the counts is sample i + 1. The rate
// metric is per pod, so each of llm-serving's current pods replays its own requests.
TEST_CASE("--traffic counts of the backtest example replays each pod's recorded requests") {
  const Example example("backtest-counts", "--idle-floor 0");
  const Outcome o = example.Import("prom", "--traffic counts");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  // The requests per step of each of llm-serving's pods: rate x 60 s, whole
  // (request_truth_test.cpp).
  std::map<std::string, std::vector<int64_t>> recorded;
  const json rates = json::parse(ReadFile(example.dir + "/prom/http_requests_per_second.json"));
  for (const json& s : rates.at("data").at("result")) {
    const std::string pod = s.at("metric").at("pod");
    if (pod.rfind("llm-serving-", 0) != 0) continue;
    for (const json& v : s.at("values"))
      recorded[pod].push_back(std::llround(std::stod(v[1].get<std::string>()) * 60));
  }
  int64_t truth = 0;
  for (const json& p : example.truth.at("pods"))
    if (p.at("workload") == "llm-serving")
      truth += p.at("requests").at("window").at("arrivals").get<int64_t>();
  int64_t sum = 0;
  for (const auto& [pod, steps] : recorded)
    for (int64_t n : steps) sum += n;
  CHECK(sum == truth);

  const auto at = o.out.find("\n  - name: llm-serving\n");
  REQUIRE(at != std::string::npos);
  const auto next = o.out.find("\n  - name: ", at + 1);
  CHECK(o.out.find("per_pod:", at) < next);
  CHECK(o.out.find("values: [", at) > next);
  REQUIRE(recorded.size() == 2);
  int64_t first_20m = 0;  // both pods' requests in the first 20 intervals
  for (const auto& [pod, steps] : recorded) {
    CAPTURE(pod);
    const std::vector<int64_t> replayed = CountList(o.out, pod, at);
    REQUIRE(replayed.size() >= 20);
    for (size_t i = 0; i < 20; ++i) first_20m += replayed[i];
    REQUIRE(replayed.size() + 1 == steps.size());
    for (size_t i = 0; i < replayed.size(); ++i) {
      CAPTURE(i);
      CHECK(replayed[i] == steps[i + 1]);
    }
  }

  // The scenario runs (no warm-up): every recorded request of the first 20 minutes arrives.
  const std::string scenario = example.dir + "/counts.yaml";
  std::ofstream(scenario) << o.out;
  const Outcome run = Run("run " + Quoted(scenario) + " --duration 20m --quiet --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const json results = json::parse(run.out);
  int found = 0;
  for (const json& w : results.at("variants")[0].at("workloads")) {
    if (w.at("name") != "llm-serving") continue;
    CHECK(w.at("requests").get<int64_t>() == first_20m);
    ++found;
  }
  CHECK(found == 1);
}

}  // namespace
}  // namespace knobsim::e2e
