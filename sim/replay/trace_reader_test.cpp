#include "sim/replay/trace_reader.h"

#include <doctest/doctest.h>

#include <string>

#include "sim/replay/test_data.h"

namespace knobsim::replay {
namespace {

const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

std::string PodFile(const std::string& rows) {
  std::string s = kPodHeader;
  s += rows;
  return s;
}

std::string ErrorOf(const std::string& text, bool nodes = false) {
  if (nodes) {
    auto r = ParseNodeCsv(text, "nodes.csv");
    return r.ok() ? std::string("ok") : r.error().ToString();
  }
  auto r = ParsePodCsv(text, "pods.csv");
  return r.ok() ? std::string("ok") : r.error().ToString();
}

TEST_CASE("a node row keeps every column in the trace's units") {
  auto nodes = ParseNodeCsv(
      "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,64000,262144,2,P100\n"
      "openb-node-0001,32000,131072,0,\n",
      "nodes.csv");
  REQUIRE(nodes.ok());
  REQUIRE(nodes->size() == 2);
  const TraceNode& n = (*nodes)[0];
  CHECK(n.name == "openb-node-0000");
  CHECK(n.cpu_milli == 64000);
  CHECK(n.memory_mib == 262144);
  CHECK(n.gpu == 2);
  CHECK(n.model == "P100");
  CHECK(n.line == 2);
  CHECK((*nodes)[1].model.empty());  // a CPU-only node of the all-node list
}

TEST_CASE("an 11-column pod row keeps every column, times optional") {
  auto pods = ParsePodCsv(PodFile("openb-pod-0001,6000,12288,1,460,V100M16|V100M32,LS,Running,"
                                  "427061,12902960,427061\n"
                                  "openb-pod-0002,4000,0,0,0,,BE,Pending,5,,\n"),
                          "pods.csv");
  REQUIRE(pods.ok());
  REQUIRE(pods->size() == 2);
  const TracePod& p = (*pods)[0];
  CHECK(p.cpu_milli == 6000);
  CHECK(p.memory_mib == 12288);
  CHECK(p.num_gpu == 1);
  CHECK(p.gpu_milli == 460);
  CHECK(p.gpu_spec == "V100M16|V100M32");
  CHECK(p.qos == "LS");
  CHECK(p.pod_phase == "Running");
  CHECK(p.creation_time == 427061);
  CHECK(p.deletion_time == 12902960);
  CHECK(p.scheduled_time == 427061);
  const TracePod& q = (*pods)[1];
  CHECK(q.creation_time == 5);
  CHECK_FALSE(q.deletion_time.has_value());
  CHECK_FALSE(q.scheduled_time.has_value());
}

TEST_CASE("the 5-column multigpu files read without spec, QoS or times") {
  auto pods = ParsePodCsv(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\r\n"
      "openb-pod-0000,12000,16384,8,1000\r\n",
      "multi.csv");
  REQUIRE(pods.ok());
  CHECK((*pods)[0].num_gpu == 8);
  CHECK((*pods)[0].gpu_spec.empty());
  CHECK_FALSE((*pods)[0].creation_time.has_value());
}

TEST_CASE("a malformed row names the file, the line and the column") {
  CHECK(ErrorOf(PodFile("openb-pod-0001,6x00,1,1,460,,LS,Running,0,1,0\n")) ==
        "pods.csv:2: cpu_milli: \"6x00\" is not a non-negative integer");
  CHECK(ErrorOf(PodFile("a,1,1,1,460,,LS,Running,0,1,0\nb,1,-5,1,460,,LS,Running,0,1,0\n")) ==
        "pods.csv:3: memory_mib: \"-5\" is not a non-negative integer");
  CHECK(ErrorOf(PodFile("a,1,1,1,460,,LS,Running,0,1\n")) ==
        "pods.csv:2: scheduled_time: missing: the row has 10 fields, the header 11");
  CHECK(ErrorOf(PodFile("a,1,1,1,460,,LS,Running,0,1,0,9\n")) ==
        "pods.csv:2: row: 12 fields, the header has 11");
  CHECK(ErrorOf(PodFile("a,1,1,1,460,,XX,Running,0,1,0\n")) ==
        "pods.csv:2: qos: \"XX\" is not one of LS, BE, Burstable, Guaranteed");
  CHECK(ErrorOf(PodFile("a,1,1,1,460,,LS,Done,0,1,0\n")) ==
        "pods.csv:2: pod_phase: \"Done\" is not one of Running, Succeeded, Failed, Pending");
  CHECK(ErrorOf(PodFile("a,1,1,1,460,,LS,Running,0.5,1,0\n")) ==
        "pods.csv:2: creation_time: \"0.5\" is not a non-negative integer");
  CHECK(ErrorOf(PodFile("a,1,1,1,460,,LS,Running,0,1,0\na,1,1,1,460,,LS,Running,0,1,0\n")) ==
        "pods.csv:3: name: duplicate pod name \"a\"");
  CHECK(ErrorOf(PodFile(",1,1,1,460,,LS,Running,0,1,0\n")) == "pods.csv:2: name: empty pod name");
}

TEST_CASE("a wrong header is an error on line 1") {
  CHECK(ErrorOf("name,cpu,memory_mib,num_gpu,gpu_milli\n") ==
        "pods.csv:1: header: column 2 is \"cpu\", expected \"cpu_milli\"");
  CHECK(ErrorOf("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n") ==
        "pods.csv:1: header: 6 columns, expected 5 or 11");
  CHECK(ErrorOf("") == "pods.csv: empty file: expected a header and pod rows");
  CHECK(ErrorOf("sn,cpu_milli,memory_mib,gpus,model\n", true) ==
        "nodes.csv:1: header: column 4 is \"gpus\", expected \"gpu\"");
}

TEST_CASE("node rows: cards within the replay's limit, a model for GPU nodes, unique names") {
  const std::string header = "sn,cpu_milli,memory_mib,gpu,model\n";
  CHECK(ErrorOf(header + "n1,1000,1024,17,T4\n", true) ==
        "nodes.csv:2: gpu: 17 cards: a replay node has at most 16");
  CHECK(ErrorOf(header + "n1,1000,1024,2,\n", true) ==
        "nodes.csv:2: model: empty model on a node with GPUs");
  CHECK(ErrorOf(header + "n1,1000,1024,2,T4\nn1,1000,1024,2,T4\n", true) ==
        "nodes.csv:3: sn: duplicate node name \"n1\"");
  CHECK(ErrorOf(header + "n1,1000,lots,2,T4\n", true) ==
        "nodes.csv:2: memory_mib: \"lots\" is not a non-negative integer");
}

TEST_CASE("a file that cannot be read is an input error") {
  auto r = ReadPodCsv("/nonexistent/pods.csv");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().ToString() == "/nonexistent/pods.csv: cannot read the file");
}

TEST_CASE("the openb GPU node list has 1 213 nodes and 6 212 GPUs (docs/fgd-policies.md §1.1)") {
  REQUIRE_MESSAGE(testing::TraceAvailable(), "shared trace not found at " << testing::TraceDir());
  auto nodes = ReadNodeCsv(testing::TraceDir() + "openb_node_list_gpu_node.csv");
  REQUIRE(nodes.ok());
  int64_t gpus = 0, cpu = 0, mem = 0;
  for (const TraceNode& n : *nodes) {
    gpus += n.gpu;
    cpu += n.cpu_milli;
    mem += n.memory_mib;
  }
  CHECK(nodes->size() == 1213);
  CHECK(gpus == 6212);
  CHECK(cpu == 107018000);
  CHECK(mem == 503828480);
  auto all = ReadNodeCsv(testing::TraceDir() + "openb_node_list_all_node.csv");
  REQUIRE(all.ok());
  CHECK(all->size() == 1523);
}

TEST_CASE("every shared pod list reads") {
  REQUIRE_MESSAGE(testing::TraceAvailable(), "shared trace not found at " << testing::TraceDir());
  const std::pair<const char*, size_t> files[] = {
      {"default", 8152},    {"cpu050", 7439},     {"cpu100", 7853},      {"cpu200", 8832},
      {"gpushare40", 8152}, {"gpushare60", 8152}, {"gpushare100", 8152}, {"gpuspec10", 8152},
      {"gpuspec20", 8152},  {"multigpu20", 8324}, {"multigpu30", 8508}};
  for (const auto& [trace, rows] : files) {
    auto pods = ReadPodCsv(testing::TraceDir() + "openb_pod_list_" + trace + ".csv");
    REQUIRE_MESSAGE(pods.ok(), trace);
    CHECK_MESSAGE(pods->size() == rows, trace);
  }
}

}  // namespace
}  // namespace knobsim::replay
