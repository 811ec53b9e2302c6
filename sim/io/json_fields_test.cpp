#include "sim/io/json_fields.h"

#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/io/result_fields.h"

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

std::vector<std::string> Keys(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

PodResult Pod(std::vector<int> cards) {
  PodResult p;
  p.namespace_ = "ai";
  p.name = "chat-0";
  p.workload = "ai/chat";
  p.cards = std::move(cards);
  p.state = "Pending";
  p.message = "no fit";
  p.bottleneck_gbps = 25;
  p.throughput_factor = 0.5;
  return p;
}

TEST_CASE("one pod list, two documents: the results document's nulls, the shard's values") {
  const Json doc = WriteFields<DocumentNumbers>(Pod({}));
  CHECK(Keys(doc) == std::vector<std::string>{"namespace", "name", "workload", "node", "cards",
                                              "state", "restarts", "message"});
  CHECK(doc["node"].is_null());  // not placed
  const Json shard = WriteFields<ExactNumbers>(Pod({}));
  CHECK(shard["node"] == "");
  // The link fields: the document has them for multi-card pods only, before the message; the
  // shard always, last.
  CHECK(Keys(shard) == std::vector<std::string>{"namespace", "name", "workload", "node", "cards",
                                                "state", "restarts", "message", "bottleneck_gbps",
                                                "throughput_factor"});
  CHECK(Keys(WriteFields<DocumentNumbers>(Pod({0, 1}))) ==
        std::vector<std::string>{"namespace", "name", "workload", "node", "cards", "state",
                                 "restarts", "bottleneck_gbps", "throughput_factor", "message"});
}

TEST_CASE("one cluster list: times in seconds for people, nanoseconds for shards") {
  ClusterResult c;
  c.allocation_ratio = std::numeric_limits<double>::quiet_NaN();
  c.events.push_back({1'500'000'000, "LoadOOM", "ai/chat-0", "CUDA OOM"});
  const Json doc = WriteFields<DocumentNumbers>(c);
  CHECK(doc["allocation_ratio"].is_null());
  CHECK(Keys(doc["events"][0]) == std::vector<std::string>{"time_s", "kind", "pod", "message"});
  CHECK(doc["events"][0]["time_s"] == 1.5);
  const Json shard = WriteFields<ExactNumbers>(c);
  CHECK(shard["allocation_ratio"] == "NaN");
  CHECK(shard["events"][0]["time_ns"] == 1'500'000'000);
  const Expected<ClusterResult> back = ReadFields<ClusterResult>(shard, "s.json", "cluster");
  REQUIRE(back.ok());
  CHECK(back->events[0].time == 1'500'000'000);
  CHECK(back->events[0].message == "CUDA OOM");
}

TEST_CASE("a replicated summary: means, then the half-widths of its MeanCi fields only") {
  CardStats c;
  c.node = "gpu-0";
  c.busy = {0.5, 0.1};
  c.memory_quota_mib = {1000.5, 3};
  c.memory_physical_mib = 24000;
  FieldWriter<DocumentNumbers> means(/*replicated=*/true);
  Fields(means, c);
  const Json j = means.Take();
  CHECK(j["memory_quota_mib"] == 1000.5);  // a count's mean is a double
  CHECK(j["memory_physical_mib"] == 24000);
  FieldWriter<DocumentNumbers> ci(/*replicated=*/true, /*ci=*/true);
  Fields(ci, c);
  const Json half = ci.Take();
  CHECK(Keys(half) == std::vector<std::string>{"busy", "effective", "switch_overhead", "waste",
                                               "memory_quota_mib", "memory_used_mib",
                                               "memory_peak_mib"});
  CHECK(half["busy"] == 0.1);
  FieldWriter<DocumentNumbers> single;
  Fields(single, c);
  CHECK(single.Take()["memory_quota_mib"] == 1001);  // one replication: the count itself
}

TEST_CASE("a workload summary without a success has null latencies, also in its ci95") {
  WorkloadStats w;
  w.name = "chat";
  w.namespace_ = "ai";
  w.latency_ms.p99 = {12, 1};
  FieldWriter<DocumentNumbers> values(true), ci(true, true);
  Fields(values, w);
  Fields(ci, w);
  const Json j = values.Take(), half = ci.Take();
  CHECK(j["id"] == "ai/chat");
  CHECK(j["latency_ms"]["p99"].is_null());
  CHECK(j["slo_latency_ms"].is_null());
  CHECK(j["slo_met_replications"] == 0);
  CHECK(half["latency_ms"]["p99"].is_null());
  CHECK_FALSE(half.contains("slo"));  // no MeanCi inside: no half-widths to give
  CHECK_FALSE(half.contains("name"));
}

TEST_CASE("the reader names a bad field by its path, the deferred ones too") {
  Json shard = WriteFields<ExactNumbers>(Pod({0, 1}));
  shard.erase("throughput_factor");
  const Expected<PodResult> missing = ReadFields<PodResult>(shard, "s.json", "pods[3]");
  REQUIRE(!missing.ok());
  CHECK(missing.error().path == "pods[3].throughput_factor");
  CHECK(missing.error().message == "is missing");
  shard = WriteFields<ExactNumbers>(Pod({0, 1}));
  shard["cards"] = Json::array({0, -1});
  const Expected<PodResult> bad = ReadFields<PodResult>(shard, "s.json", "");
  REQUIRE(!bad.ok());
  CHECK(bad.error().path == "cards[1]");
  CHECK(bad.error().message == "is not a card index");
}

}  // namespace
}  // namespace knobsim
