#include "sim/io/run_result_json.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

// Doubles compare by their bits: -0.0 is not 0.0 here, and a NaN equals a NaN.
bool Same(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

void CheckSame(const WorkloadResult& a, const WorkloadResult& b) {
  CHECK(a.name == b.name);
  CHECK(a.namespace_ == b.namespace_);
  CHECK(a.requests == b.requests);
  CHECK(a.completed == b.completed);
  CHECK(a.errors.oom == b.errors.oom);
  CHECK(a.errors.fake_ready == b.errors.fake_ready);
  CHECK(a.errors.timeout == b.errors.timeout);
  CHECK(a.errors.no_replica == b.errors.no_replica);
  CHECK(a.errors.interrupted == b.errors.interrupted);
  CHECK(Same(a.latency_ms.mean, b.latency_ms.mean));
  CHECK(Same(a.latency_ms.p50, b.latency_ms.p50));
  CHECK(Same(a.latency_ms.p90, b.latency_ms.p90));
  CHECK(Same(a.latency_ms.p99, b.latency_ms.p99));
  CHECK(Same(a.latency_ms.p999, b.latency_ms.p999));
  CHECK(Same(a.throughput_rps, b.throughput_rps));
  CHECK(a.slo_met == b.slo_met);
  CHECK(Same(a.slo_latency_ms, b.slo_latency_ms));
  CHECK(Same(a.error_ratio, b.error_ratio));
  CHECK(a.in_system_end == b.in_system_end);
  CHECK(a.in_system_overdue == b.in_system_overdue);
  CHECK(a.in_system_oldest_ms == b.in_system_oldest_ms);
  CHECK(Same(a.in_system_mean, b.in_system_mean));
  CHECK(Same(a.measured_s, b.measured_s));
  CHECK(Same(a.time_in_system_mean_ms, b.time_in_system_mean_ms));
  CHECK(Same(a.queue_wait_ms_mean, b.queue_wait_ms_mean));
  CHECK(Same(a.queue_wait_ms_p99, b.queue_wait_ms_p99));
  CHECK(Same(a.service_ms_mean, b.service_ms_mean));
  CHECK(a.closed_loop == b.closed_loop);
  CHECK(a.loop.steps_done == b.loop.steps_done);
  CHECK(a.loop.completed_at == b.loop.completed_at);
  CHECK(Same(a.loop.steps_per_s, b.loop.steps_per_s));
  CHECK(Same(a.loop.step_ms_mean, b.loop.step_ms_mean));
  CHECK(Same(a.loop.solo_step_ms, b.loop.solo_step_ms));
  CHECK(Same(a.loop.slowdown, b.loop.slowdown));
  CHECK(a.histogram.contents() == b.histogram.contents());
  for (double q : {0.0, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    CHECK(Same(a.histogram.Quantile(q), b.histogram.Quantile(q)));
  }
}

void CheckSame(const CardResult& a, const CardResult& b) {
  CHECK(a.node == b.node);
  CHECK(a.index == b.index);
  CHECK(a.gpu == b.gpu);
  CHECK(Same(a.busy, b.busy));
  CHECK(Same(a.effective, b.effective));
  CHECK(Same(a.switch_overhead, b.switch_overhead));
  CHECK(Same(a.waste, b.waste));
  CHECK(a.memory_physical_mib == b.memory_physical_mib);
  CHECK(a.memory_quota_mib == b.memory_quota_mib);
  CHECK(Same(a.memory_used_mib, b.memory_used_mib));
  CHECK(a.memory_peak_mib == b.memory_peak_mib);
  CHECK(a.pods == b.pods);
}

void CheckSame(const PodResult& a, const PodResult& b) {
  CHECK(a.namespace_ == b.namespace_);
  CHECK(a.name == b.name);
  CHECK(a.workload == b.workload);
  CHECK(a.node == b.node);
  CHECK(a.cards == b.cards);
  CHECK(a.state == b.state);
  CHECK(a.restarts == b.restarts);
  CHECK(a.message == b.message);
  CHECK(Same(a.bottleneck_gbps, b.bottleneck_gbps));
  CHECK(Same(a.throughput_factor, b.throughput_factor));
}

void CheckSame(const RunResult& a, const RunResult& b) {
  REQUIRE(a.workloads.size() == b.workloads.size());
  for (size_t i = 0; i < a.workloads.size(); ++i) CheckSame(a.workloads[i], b.workloads[i]);
  REQUIRE(a.cards.size() == b.cards.size());
  for (size_t i = 0; i < a.cards.size(); ++i) CheckSame(a.cards[i], b.cards[i]);
  REQUIRE(a.pods.size() == b.pods.size());
  for (size_t i = 0; i < a.pods.size(); ++i) CheckSame(a.pods[i], b.pods[i]);
  CHECK(a.cluster.gpu_mem_allocated_units == b.cluster.gpu_mem_allocated_units);
  CHECK(a.cluster.gpu_mem_total_units == b.cluster.gpu_mem_total_units);
  CHECK(Same(a.cluster.allocation_ratio, b.cluster.allocation_ratio));
  CHECK(a.cluster.pending_pods == b.cluster.pending_pods);
  CHECK(a.cluster.fake_ready_pods == b.cluster.fake_ready_pods);
  CHECK(a.cluster.preempted_pods == b.cluster.preempted_pods);
  CHECK(a.cluster.request_oom_errors == b.cluster.request_oom_errors);
  REQUIRE(a.cluster.events.size() == b.cluster.events.size());
  for (size_t i = 0; i < a.cluster.events.size(); ++i) {
    CHECK(a.cluster.events[i].time == b.cluster.events[i].time);
    CHECK(a.cluster.events[i].kind == b.cluster.events[i].kind);
    CHECK(a.cluster.events[i].pod == b.cluster.events[i].pod);
    CHECK(a.cluster.events[i].message == b.cluster.events[i].message);
  }
  CHECK(a.events_processed == b.events_processed);
  CHECK(a.requests_simulated == b.requests_simulated);
  CHECK(a.end == b.end);
  CHECK(Same(a.fragmentation.gpu_milli_total, b.fragmentation.gpu_milli_total));
  CHECK(Same(a.fragmentation.idle_milli, b.fragmentation.idle_milli));
  CHECK(Same(a.fragmentation.fragmented_milli, b.fragmentation.fragmented_milli));
  CHECK(Same(a.fragmentation.frag_ratio, b.fragmentation.frag_ratio));
  REQUIRE(a.fragmentation.nodes.size() == b.fragmentation.nodes.size());
  for (size_t i = 0; i < a.fragmentation.nodes.size(); ++i) {
    CHECK(a.fragmentation.nodes[i].node == b.fragmentation.nodes[i].node);
    CHECK(Same(a.fragmentation.nodes[i].idle_milli, b.fragmentation.nodes[i].idle_milli));
    CHECK(
        Same(a.fragmentation.nodes[i].fragmented_milli, b.fragmentation.nodes[i].fragmented_milli));
  }
}

// A run with awkward numbers in every kind of field: thirds, tiny and huge values, -0.0, the
// largest int64, non-finite doubles, and a histogram spread over many buckets.
RunResult AwkwardRun() {
  RunResult r;
  WorkloadResult w;
  w.name = "chat";
  w.namespace_ = "ai";
  w.requests = std::numeric_limits<int64_t>::max();
  w.completed = 12345;
  w.errors = {1, 2, 3, 4, 5};
  w.latency_ms = {1.0 / 3, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, -0.0};
  w.throughput_rps = std::nan("");
  w.slo_met = true;
  w.slo_latency_ms = std::numeric_limits<double>::infinity();
  w.error_ratio = -std::numeric_limits<double>::infinity();
  w.in_system_end = 7;
  w.in_system_overdue = 3;
  w.in_system_oldest_ms = 81234.5;
  w.in_system_mean = 2.0 / 7;
  w.measured_s = 3300.000000000001;
  w.time_in_system_mean_ms = 123.456789012345678;
  w.queue_wait_ms_mean = 0.1 + 0.2;
  w.queue_wait_ms_p99 = 7.25;
  w.service_ms_mean = 1.0 / 3.0;
  w.closed_loop = true;
  w.loop = {20000, 1822592426543, 11.470742906835524, 1.0 / 3, 0.1 + 0.2, 7.0 / 3};
  for (int i = 0; i < 5000; ++i) w.histogram.Record(0.001 * std::exp(i * 0.003));
  w.histogram.Record(0);     // below the smallest bucket
  w.histogram.Record(1e12);  // beyond the largest
  r.workloads.push_back(w);
  WorkloadResult idle;  // nothing recorded: no buckets at all
  idle.name = "idle";
  r.workloads.push_back(idle);
  CardResult c;
  c.node = "gpu-0";
  c.index = 3;
  c.gpu = "A10";
  c.busy = 0.7000000000000001;
  c.effective = 1e-17;
  c.switch_overhead = 0.05;
  c.waste = -1e-18;
  c.memory_physical_mib = 23028;
  c.memory_quota_mib = 4186;
  c.memory_used_mib = 3000.25;
  c.memory_peak_mib = 3500;
  c.pods = {"ai/chat-0", "ai/chat-1"};
  r.cards.push_back(c);
  r.pods.push_back({"ai", "chat-0", "chat", "gpu-0", {3, 4}, "Running", 2, "", 12.5, 0.85});
  r.pods.push_back({"ai", "chat-1", "chat", "", {}, "Pending", 0, "0/4 nodes: \"x\"\n", 0, 1});
  r.cluster.gpu_mem_allocated_units = 4;
  r.cluster.gpu_mem_total_units = 22;
  r.cluster.allocation_ratio = 4.0 / 22;
  r.cluster.pending_pods = 1;
  r.cluster.fake_ready_pods = 2;
  r.cluster.preempted_pods = 3;
  r.cluster.request_oom_errors = 9;
  r.cluster.events.push_back({-5, "FailedScheduling", "ai/chat-1", "no fit"});
  r.cluster.events.push_back({std::numeric_limits<int64_t>::max(), "LoadOOM", "ai/chat-0", ""});
  r.events_processed = std::numeric_limits<uint64_t>::max();
  r.requests_simulated = 99;
  r.fragmentation.gpu_milli_total = 4000;
  r.fragmentation.idle_milli = 1234.5;
  r.fragmentation.fragmented_milli = 1.0 / 7;
  r.fragmentation.frag_ratio = 0.1;
  r.fragmentation.nodes.push_back({"gpu-0", 1234.5, 1.0 / 7});
  return r;
}

TEST_CASE("RunResult JSON: write, read and compare gives the same run, bit for bit") {
  const RunResult before = AwkwardRun();
  // Through text, as a shard travels between processes.
  const std::string text = RunResultToJson(before).dump(2);
  const Json parsed = Json::parse(text);
  Expected<RunResult> after = RunResultFromJson(parsed, "shard.json", "jobs[0].result");
  REQUIRE_MESSAGE(after.ok(), after.error().ToString());
  CheckSame(before, *after);
  CHECK(std::signbit(after->workloads[0].latency_ms.p999));  // -0.0 stays negative
  CHECK(after->workloads[0].latency_ms.p90 == 5e-324);       // the smallest denormal
  CHECK(after->workloads[0].histogram.count() == 5002);
  CHECK(after->workloads[1].histogram.contents().buckets.empty());
  // Writing what was read gives the same text again.
  CHECK(RunResultToJson(*after).dump(2) == text);
}

TEST_CASE("RunResult JSON: a merged histogram of read-back runs equals the one of the originals") {
  RunResult a = AwkwardRun(), b = AwkwardRun();
  for (int i = 0; i < 100; ++i) b.workloads[0].histogram.Record(7.5 + i);
  const Expected<RunResult> ra = RunResultFromJson(Json::parse(RunResultToJson(a).dump()), "f", "");
  const Expected<RunResult> rb = RunResultFromJson(Json::parse(RunResultToJson(b).dump()), "f", "");
  REQUIRE(ra.ok());
  REQUIRE(rb.ok());
  LatencyHistogram original = a.workloads[0].histogram, read = ra->workloads[0].histogram;
  original.Merge(b.workloads[0].histogram);
  read.Merge(rb->workloads[0].histogram);
  CHECK(original.contents() == read.contents());
  CHECK(read.count() == 5002 * 2 + 100);
  CHECK(read.Quantile(0.99) == original.Quantile(0.99));
}

TEST_CASE("RunResult JSON: non-finite doubles are strings, finite ones numbers") {
  const Json j = RunResultToJson(AwkwardRun());
  const Json& w = j["workloads"][0];
  CHECK(w["throughput_rps"] == "NaN");
  CHECK(w["slo_latency_ms"] == "Infinity");
  CHECK(w["error_ratio"] == "-Infinity");
  CHECK(w["latency_ms"]["mean"].is_number_float());
  CHECK(w["errors"]["interrupted"] == 5);
  CHECK(w["histogram"]["buckets"][0].size() == 2);
}

TEST_CASE("RunResult JSON: a bad field is named by its path in the document") {
  Json j = RunResultToJson(AwkwardRun());
  SUBCASE("missing") {
    j["workloads"][0]["errors"].erase("timeout");
    const Expected<RunResult> r = RunResultFromJson(j, "s.json", "jobs[2].result");
    REQUIRE(!r.ok());
    CHECK(r.error().file == "s.json");
    CHECK(r.error().path == "jobs[2].result.workloads[0].errors.timeout");
    CHECK(r.error().message == "is missing");
  }
  SUBCASE("wrong type") {
    j["cards"][0]["busy"] = "high";
    const Expected<RunResult> r = RunResultFromJson(j, "s.json", "");
    REQUIRE(!r.ok());
    CHECK(r.error().path == "cards[0].busy");
  }
  SUBCASE("histogram counts that do not add up") {
    j["workloads"][0]["histogram"]["count"] = 3;
    const Expected<RunResult> r = RunResultFromJson(j, "s.json", "");
    REQUIRE(!r.ok());
    CHECK(r.error().path == "workloads[0].histogram");
    CHECK(r.error().message.find("count says 3") != std::string::npos);
  }
  SUBCASE("histogram bucket out of range") {
    j["workloads"][0]["histogram"]["buckets"][0][0] = LatencyHistogram::BucketCount();
    const Expected<RunResult> r = RunResultFromJson(j, "s.json", "");
    REQUIRE(!r.ok());
    CHECK(r.error().path == "workloads[0].histogram.buckets[0]");
  }
  SUBCASE("negative count") {
    j["events_processed"] = -1;
    const Expected<RunResult> r = RunResultFromJson(j, "s.json", "");
    REQUIRE(!r.ok());
    CHECK(r.error().path == "events_processed");
  }
}

// Guards the serializer against a field added to the results without being written out: the
// sizes are those of x86-64 with libstdc++. When one changes, serialize the new field in
// its list in sim/io/result_fields.h (and compare it above), then update the number here.
TEST_CASE("RunResult JSON: the result structs have the fields the serializer knows") {
#if defined(__x86_64__) && defined(__GLIBCXX__)
  CHECK(sizeof(ErrorCounts) == 5 * 8);
  CHECK(sizeof(LatencySummary) == 5 * 8);
  CHECK(sizeof(ClosedLoopResult) == 6 * 8);
  CHECK(sizeof(WorkloadResult) == 2 * 32 + 2 * 8 + 40 + 40 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 +
                                      3 * 8 + sizeof(LatencyHistogram) + 8 +
                                      sizeof(ClosedLoopResult));
  CHECK(sizeof(CardResult) == 32 + 8 + 32 + 4 * 8 + 8 + 8 + 8 + 8 + 24);
  CHECK(sizeof(PodResult) == 3 * 32 + 32 + 24 + 32 + 8 + 32 + 8 + 8);
  CHECK(sizeof(ClusterEvent) == 8 + 3 * 32);
  CHECK(sizeof(ClusterResult) == 8 + 8 + 8 + 4 + 4 + 4 + 4 /* padding */ + 8 + 24);
  CHECK(sizeof(NodeFragmentation) == 32 + 8 + 8);
  CHECK(sizeof(FragmentationResult) == 4 * 8 + 24);
  // + the timeline (not serialized: see RunResultToJson) + end.
  CHECK(sizeof(RunTimeline) == 8 + 8 + 24 + 24 + 24);
  CHECK(sizeof(PoolResult) == 32 + 8 + 8 * 8 + 8 + 3 * 8 + 3 * 32 + 8);
  CHECK(sizeof(RunResult) == 3 * 24 + sizeof(ClusterResult) + 8 + 8 + sizeof(FragmentationResult) +
                                 sizeof(RunTimeline) + 8 + 24);
#endif
}

}  // namespace
}  // namespace knobsim
