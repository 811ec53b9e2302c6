#include "sim/import/scenario_writer.h"

#include <doctest/doctest.h>

#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

TEST_CASE("scalars are plain only where YAML reads them back as the same string") {
  const std::pair<const char*, const char*> cases[] = {
      {"cgpu", "cgpu"},
      {"cn-hangzhou.10.0.1.14", "cn-hangzhou.10.0.1.14"},
      {"aliyun.com/gpu-count", "aliyun.com/gpu-count"},
      {"true", "\"true\""},
      {"No", "\"No\""},
      {"2", "\"2\""},
      {"46068MiB", "\"46068MiB\""},
      {"", "\"\""},
      {"a: b", "\"a: b\""},
      {"say \"hi\"", "\"say \\\"hi\\\"\""},
  };
  for (const auto& [in, out] : cases) {
    CAPTURE(in);
    CHECK(YamlScalar(in) == out);
  }
}

TEST_CASE("durations are written in the reader's grammar") {
  const std::pair<double, const char*> cases[] = {
      {0, "0"},        {3600, "1h"},      {604800, "168h"}, {5400, "90m"},
      {90, "90s"},     {0.0586, "58.6ms"}, {1.2512, "1.2512s"}, {0.0000125, "12.5us"},
  };
  for (const auto& [s, text] : cases) {
    CAPTURE(s);
    CHECK(ScenarioDuration(s) == text);
  }
}

ImportModel Small() {
  ImportModel m;
  m.name = "small";
  ImportedPool p;
  p.pool.name = "gpu-l20";
  p.pool.count = 2;
  p.pool.gpu_type = "L20";
  p.pool.gpus_per_node = 2;
  p.pool.cpu_milli = 31600;
  p.pool.memory_mib = 65536;
  p.pool.pods = 64;
  p.pool.labels = {{"ack.node.gpu.schedule", "cgpu"}, {"aliyun.accelerator/nvidia_count", "2"}};
  p.pool.taints = {{"nvidia.com/gpu", "present", "NoSchedule"}};
  p.nodes = {{"node-0", "zone-a", {}}, {"node-1", "zone-b", {{"x/zone", "zone-b"}}}};
  m.pools.push_back(p);
  ImportedWorkload w;
  w.kind = "Deployment";
  w.owner = "ocr";
  w.spec.name = "ocr";
  w.spec.namespace_ = "ai";
  w.spec.replicas = 2;
  w.spec.gpu_mem = 4;
  w.spec.cpu_milli = 2000;
  w.spec.memory_mib = 4096;
  w.spec.probe = ReadinessKind::kTcp;
  w.spec.memory = {2000, 300, std::nullopt};
  w.has_memory = true;
  w.spec.traffic.kind = ArrivalKind::kPiecewise;
  w.spec.traffic.pieces = {{0, 2.5}, {3600 * kNanosPerSecond, 0.000123}};
  w.has_traffic = true;
  w.spec.work.mean_s = 0.0586;
  w.has_work = true;
  w.notes["work"] = "fitted";
  w.pods = {{"ocr-a", "node-0", {1}}, {"ocr-b", "node-1", {}}};
  m.workloads.push_back(w);
  m.trailer = {"pdbs:", "  - {namespace: ai, name: ocr, min_available: 1}"};
  m.duration_s = 2 * 3600;
  return m;
}

TEST_CASE("the written scenario reads back with the same numbers") {
  const std::string text = WriteScenarioYaml(Small());
  CHECK(text.find("work: {dist: exponential, mean: 58.6ms}  # fitted") != std::string::npos);
  CHECK(text.find("- {name: ocr-a, node: node-0, cards: [1]}") != std::string::npos);
  CHECK(text.find("- {at: 1h, rate: 0.000123/s}") != std::string::npos);
  CHECK(text.find("#   pdbs:") != std::string::npos);
  Expected<Scenario> s = ReadScenarioString(text, "small.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  REQUIRE(s->node_pools.size() == 1);
  CHECK(s->node_pools[0].count == 2);
  CHECK(s->node_pools[0].cpu_milli == 31600);
  CHECK(s->node_pools[0].memory_mib == 65536);
  CHECK(s->node_pools[0].isolation == MemoryIsolation::kHard);
  REQUIRE(s->workloads.size() == 1);
  const Workload& w = s->workloads[0];
  CHECK(w.namespace_ == "ai");
  CHECK(w.gpu_mem == 4);
  CHECK(w.probe == ReadinessKind::kTcp);
  CHECK(w.memory.weights_mib == 2000);
  CHECK(w.memory.activation_mib == 300);
  REQUIRE(w.traffic.pieces.size() == 2);
  CHECK(w.traffic.pieces[1].rate == doctest::Approx(0.000123));
  CHECK(w.work.mean_s == doctest::Approx(0.0586));
  CHECK(s->run.duration == 2 * 3600 * kNanosPerSecond);
}

TEST_CASE("the same model gives the same bytes") {
  CHECK(WriteScenarioYaml(Small()) == WriteScenarioYaml(Small()));
}

}  // namespace
}  // namespace knobsim
