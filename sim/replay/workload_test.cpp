#include "sim/replay/workload.h"

#include <doctest/doctest.h>

#include "sim/replay/test_data.h"
#include "sim/replay/trace_conversion.h"
#include "sim/replay/trace_reader.h"
#include "sim/scheduler/fgd/fragmentation.h"

namespace knobsim::replay {

using fgd::NodeFrag;
using fgd::TypicalPod;

namespace {

TEST_CASE("default trace: 35 typical types, the empty cluster 13.94 % fragmented (§5.1, §5.3)") {
  REQUIRE_MESSAGE(testing::TraceAvailable(), "shared trace not found at " << testing::TraceDir());
  auto nodes = ReadNodeCsv(testing::TraceDir() + "openb_node_list_gpu_node.csv");
  auto pods = ReadPodCsv(testing::TraceDir() + "openb_pod_list_default.csv");
  REQUIRE(nodes.ok());
  REQUIRE(pods.ok());
  const Workload w = MakeWorkload("openb_pod_list_default", *nodes, *pods);
  CHECK(w.num_pod_types == 91);
  REQUIRE(w.typical.size() == 35);
  CHECK(w.typical[0].cpu == 3152);
  CHECK(w.typical[0].milli == 810);
  CHECK(w.typical[0].num_gpu == 1);
  CHECK(w.typical[0].count == 1047);
  CHECK(w.typical[0].p == doctest::Approx(0.134818).epsilon(1e-5));
  int64_t covered = 0;
  double cpu_only = 0;
  for (const TypicalPod& t : w.typical) {
    covered += t.count;
    if (t.milli == 0) cpu_only += t.p;
  }
  CHECK(100.0 * static_cast<double>(covered) / 8152 == doctest::Approx(95.26).epsilon(1e-4));
  CHECK(cpu_only == doctest::Approx(0.13598).epsilon(1e-4));
  double f = 0;
  for (const TraceNode& n : w.nodes) f += NodeFrag(MakeNodeState(n, w.models), w.typical);
  CHECK(f == doctest::Approx(866232.55).epsilon(1e-8));
  CHECK(100 * f / 1000 / 6212 == doctest::Approx(13.94).epsilon(1e-3));
}

}  // namespace
}  // namespace knobsim::replay
