#include "sim/io/results_json.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/text.h"

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

RunResult OneRun(int64_t requests, double p99, double busy) {
  RunResult r;
  WorkloadResult w;
  w.name = "chat";
  w.requests = requests;
  w.completed = requests - 3;
  w.errors = {1, 0, 0, 1, 1};  // oom, fake_ready, timeout, no_replica, interrupted
  w.latency_ms = {10, 8, 15, p99, 40};
  w.throughput_rps = static_cast<double>(w.completed) / 100;
  w.slo_met = true;
  w.slo_latency_ms = p99;
  w.error_ratio = 3.0 / static_cast<double>(requests);
  w.measured_s = 100;
  w.in_system_mean = 0.5;
  w.time_in_system_mean_ms = 12;
  r.workloads.push_back(w);
  WorkloadResult dead;  // every request failed: no latency at all
  dead.name = "dead";
  dead.requests = 5;
  dead.errors.fake_ready = 5;
  dead.error_ratio = 1;
  r.workloads.push_back(dead);
  CardResult c;
  c.node = "gpu-0";
  c.index = 1;
  c.gpu = "A10";
  c.busy = busy;
  c.effective = busy / 2;
  c.waste = busy / 2;
  c.memory_physical_mib = 23028;
  c.memory_quota_mib = 4186;
  c.memory_used_mib = 3000.5;
  c.memory_peak_mib = 3500;
  c.pods = {"default/chat-0"};
  r.cards.push_back(c);
  PodResult ok{"default", "chat-0", "chat", "gpu-0", {1}, "Running", 0, ""};
  PodResult pending{"default", "chat-1", "chat", "", {}, "Pending", 0, "0/4 nodes are available"};
  r.pods = {ok, pending};
  r.cluster.gpu_mem_allocated_units = 4;
  r.cluster.gpu_mem_total_units = 22;
  r.cluster.allocation_ratio = 4.0 / 22;
  r.cluster.pending_pods = 1;
  r.cluster.events.push_back({1'500'000'000, "FailedScheduling", "default/chat-1", "no fit"});
  return r;
}

RunSetResult Set(std::vector<RunResult> runs) {
  Scenario s;
  Workload chat;
  chat.name = "chat";
  chat.slo.latency = 200 * kNanosPerMilli;
  s.workloads = {chat};
  RunSetResult r;
  r.scenario = "demo";
  r.seed = 7;
  r.replications = static_cast<int>(runs.size());
  r.duration = 110 * kNanosPerSecond;
  r.warmup = 10 * kNanosPerSecond;
  r.variants.push_back(SummarizeVariant("base", "as written", s, std::move(runs)));
  return r;
}

TEST_CASE("results JSON: one replication keeps counts as integers and has no ci95") {
  Json j = ResultsToJson(Set({OneRun(100, 30, 0.4)}), "0.1.0");
  std::vector<std::string> keys;
  for (auto& [k, v] : j.items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"schema", "knobsim_version", "scenario", "seed",
                                         "replications", "duration_s", "warmup_s", "variants"});
  CHECK(j["schema"] == "knobsim.results/v1");
  CHECK(j["duration_s"] == 110.0);
  const Json& v = j["variants"][0];
  CHECK(v["name"] == "base");
  const Json& w = v["workloads"][0];
  CHECK(w["requests"].is_number_integer());
  CHECK(w["requests"] == 100);
  CHECK(w["completed"] == 97);
  CHECK(w["errors"]["oom"] == 1);
  CHECK(w["errors"]["no_replica"] == 1);
  CHECK(w["errors"]["interrupted"] == 1);
  std::vector<std::string> causes;
  for (auto& [k, v] : w["errors"].items()) causes.push_back(k);
  CHECK(causes ==
        std::vector<std::string>{"oom", "fake_ready", "timeout", "no_replica", "interrupted"});
  CHECK(w["latency_ms"]["p99"] == 30.0);
  CHECK(w["slo_met"] == true);
  CHECK(w["slo"]["latency_ms"] == 200.0);
  CHECK_FALSE(w.contains("ci95"));
  for (const char* k :
       {"name", "requests", "completed", "errors", "latency_ms", "throughput_rps", "slo_met",
        "in_system_end", "in_system_mean", "measured_s", "time_in_system_mean_ms"}) {
    CHECK_MESSAGE(w.contains(k), k);
  }
  // No successes: latency is unknown, not 0 ms.
  const Json& dead = v["workloads"][1];
  CHECK(dead["latency_ms"]["p99"].is_null());
  CHECK(dead["errors"]["fake_ready"] == 5);
  const Json& c = v["cards"][0];
  CHECK(c["node"] == "gpu-0");
  CHECK(c["index"] == 1);
  CHECK(c["busy"] == 0.4);
  CHECK(c["memory_quota_mib"].is_number_integer());
  CHECK(c["memory_used_mib"] == 3000.5);
  CHECK(c["pods"][0] == "default/chat-0");
  CHECK(v["pods"][1]["node"].is_null());
  CHECK(v["pods"][1]["state"] == "Pending");
  CHECK(v["pods"][0]["cards"][0] == 1);
  CHECK(v["cluster"]["events"][0]["time_s"] == 1.5);
  CHECK(v["cluster"]["pending_pods"] == 1);
}

TEST_CASE("results JSON: replications give means, double counts and ci95 half-widths") {
  Json j = ResultsToJson(Set({OneRun(100, 30, 0.4), OneRun(110, 34, 0.5), OneRun(120, 38, 0.6)}),
                         "0.1.0");
  const Json& w = j["variants"][0]["workloads"][0];
  CHECK(w["requests"].is_number_float());
  CHECK(w["requests"] == 110.0);
  CHECK(w["latency_ms"]["p99"] == 34.0);
  CHECK(w["slo_met_replications"] == 3);
  REQUIRE(w.contains("ci95"));
  // sd 10 over three values: 4.303 * 10 / sqrt(3).
  CHECK(w["ci95"]["requests"].get<double>() == doctest::Approx(24.84).epsilon(0.01));
  CHECK(w["ci95"]["latency_ms"]["p99"].get<double>() == doctest::Approx(9.94).epsilon(0.01));
  CHECK(w["ci95"]["errors"]["oom"] == 0.0);
  const Json& c = j["variants"][0]["cards"][0];
  CHECK(c["busy"].get<double>() == doctest::Approx(0.5));
  REQUIRE(c.contains("ci95"));
  CHECK(c["ci95"]["busy"].get<double>() > 0);
}

TEST_CASE("results JSON: non-finite numbers are null and the text is deterministic") {
  RunResult r = OneRun(100, 30, 0.4);
  r.workloads[0].in_system_mean = std::numeric_limits<double>::quiet_NaN();
  r.cards[0].effective = std::numeric_limits<double>::infinity();
  RunSetResult set = Set({r});
  const std::string text = ResultsJsonText(ResultsToJson(set, "0.1.0"));
  CHECK(text == ResultsJsonText(ResultsToJson(set, "0.1.0")));
  CHECK(text.back() == '\n');
  Json j = Json::parse(text);
  CHECK(j["variants"][0]["workloads"][0]["in_system_mean"].is_null());
  CHECK(j["variants"][0]["cards"][0]["effective"].is_null());
  CHECK(text.find("NaN") == std::string::npos);
}

TEST_CASE("WriteFileAtomically: replaces the file, leaves no temporary, keeps it on failure") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("knobsim_results_json_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.json").string();
  REQUIRE(WriteFileAtomically(path, "old\n").ok());
  REQUIRE(WriteFileAtomically(path, "new\n").ok());
  CHECK(*ReadFileText(path) == "new\n");
  CHECK(std::distance(std::filesystem::directory_iterator(dir),
                      std::filesystem::directory_iterator()) == 1);
  const Status err = WriteFileAtomically((dir / "missing" / "out.json").string(), "x");
  REQUIRE_FALSE(err.ok());
  CHECK(err.error().file.find("missing") != std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace knobsim
