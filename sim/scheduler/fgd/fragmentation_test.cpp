#include "sim/scheduler/fgd/fragmentation.h"

#include <doctest/doctest.h>

#include "sim/scheduler/fgd/worked_example.h"

namespace knobsim::fgd {
namespace {

using testing::WorkedExample;

TEST_CASE("worked example: each node's fragment before placement (docs/fgd-policies.md §6)") {
  const WorkedExample ex;
  // N1: A fits (Q3, nothing too small), B fits card 1 so card 0's 600 is B's fragment (Q2),
  // C (CPU-only) counts all 1600 idle.
  const FragVector v1 = NodeFragVector(ex.n1, ex.types);
  CHECK(v1[kQ2LackGpu] == doctest::Approx(180));
  CHECK(v1[kXLSatisfied] == doctest::Approx(320));
  CHECK(v1[kQ3Satisfied] == doctest::Approx(1100));
  CHECK(FragExceptQ3(v1) == doctest::Approx(500));
  // N2: B's cards fit but its CPU does not (Q4).
  const FragVector v2 = NodeFragVector(ex.n2, ex.types);
  CHECK(v2[kQ4LackCpu] == doctest::Approx(750));
  CHECK(FragExceptQ3(v2) == doctest::Approx(1250));
  CHECK(NodeFrag(ex.n3, ex.types) == doctest::Approx(400));
  const double f =
      NodeFrag(ex.n1, ex.types) + NodeFrag(ex.n2, ex.types) + NodeFrag(ex.n3, ex.types);
  const double idle = FragTotal(v1) + FragTotal(v2) + FragTotal(NodeFragVector(ex.n3, ex.types));
  CHECK(f == doctest::Approx(2150));
  CHECK(idle == doctest::Approx(6100));
  CHECK(100 * f / idle == doctest::Approx(35.2459).epsilon(1e-5));  // 35.25 % printed
}

TEST_CASE("a constrained type makes a node of another model pure fragment (NA)") {
  WorkedExample ex;
  ex.types[0].models = ex.models.Mask("V100M16");
  const FragVector v = NodeFragVector(ex.n1, ex.types);
  CHECK(v[kNoAccess] == doctest::Approx(0.5 * 1600));
  CHECK(v[kQ3Satisfied] == doctest::Approx(0.3 * 1000));
}

TEST_CASE("a type that fits neither cards nor CPU is Q1; cards only, Q4; CPU only, Q2") {
  WorkedExample ex;
  NodeState n = ex.n1;  // free [600, 1000]
  n.cpu_free = 1000;
  const FragVector v = NodeFragVector(n, {ex.types.data(), 2});
  CHECK(v[kQ4LackCpu] == doctest::Approx(0.5 * 1600 + 0.3 * 1600));  // cards fit, CPU short
  n.free = {600, 900};
  const FragVector w = NodeFragVector(n, {ex.types.data(), 2});
  CHECK(w[kQ1LackBoth] == doctest::Approx(0.3 * 1500));  // B: no whole card, no CPU
  n.cpu_free = 100000;
  const FragVector u = NodeFragVector(n, {ex.types.data(), 2});
  CHECK(u[kQ2LackGpu] == doctest::Approx(0.3 * 1500));  // B: no whole card, CPU fine
}

TEST_CASE("typical pods: by count then key descending, shares renormalised over the taken") {
  std::vector<PodRequest> pods;
  const auto add = [&](int n, int64_t cpu, int milli) {
    for (int i = 0; i < n; ++i) {
      PodRequest r;
      r.cpu = cpu;
      r.num_gpu = milli > 0 ? 1 : 0;
      r.milli = milli;
      pods.push_back(r);
    }
  };
  add(50, 1000, 500);
  add(30, 2000, 0);
  add(10, 3000, 1000);  // ties with the next on count: the larger key comes first
  add(10, 4000, 1000);
  const std::vector<TypicalPod> types = TypicalPods(pods, 85);
  REQUIRE(types.size() == 3);  // 50 + 30 < 85, + 10 reaches 90
  CHECK(types[2].cpu == 4000);
  CHECK(types[0].p == doctest::Approx(50.0 / 90));
  CHECK(types[1].p == doctest::Approx(30.0 / 90));
}

}  // namespace
}  // namespace knobsim::fgd
